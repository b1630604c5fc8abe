/*
 * What quicksort.c and mergesort.c share: the seeded input, insertion sort for the
 * smallest pieces, and the check of the result (sorted, and the same multiset of keys as
 * the input, by two order-independent checksums).
 */
#ifndef MAGPIE_BENCH_OMP_SORT_COMMON_H
#define MAGPIE_BENCH_OMP_SORT_COMMON_H
#include "common.h"

/* Pieces at most this long are insertion-sorted. */
#define INSERTION_MAX 16

/* Order-independent checksums of a multiset of keys. */
struct keysum {
    uint64_t sum, mixed;
};

static struct keysum keysum_of(const uint64_t *a, long n) {
    struct keysum k = {0, 0};
    for (long i = 0; i < n; i++) {
        uint64_t s = a[i];
        k.sum += a[i];
        k.mixed += splitmix64(&s);
    }
    return k;
}

/* n keys uniform on 64 bits, seeded. */
static uint64_t *sort_input(long n, uint64_t seed) {
    uint64_t *a = bench_alloc(sizeof(uint64_t) * (size_t)n);
    uint64_t rng = seed;
    for (long i = 0; i < n; i++)
        a[i] = splitmix64(&rng);
    return a;
}

static void insertion_sort(uint64_t *a, long n) {
    for (long i = 1; i < n; i++) {
        uint64_t v = a[i];
        long j = i;
        for (; j > 0 && a[j - 1] > v; j--)
            a[j] = a[j - 1];
        a[j] = v;
    }
}

/*
 * Fails unless a[0..n) is sorted and holds the keys `before` summed; returns the check
 * value, a position-weighted hash of the sorted keys, as hex into buf.
 */
static void sort_check(const uint64_t *a, long n, struct keysum before, char *buf, size_t len) {
    for (long i = 1; i < n; i++)
        if (a[i - 1] > a[i])
            bench_fail("not sorted at %ld: %llu > %llu", i, (unsigned long long)a[i - 1],
                       (unsigned long long)a[i]);
    struct keysum after = keysum_of(a, n);
    if (after.sum != before.sum || after.mixed != before.mixed)
        bench_fail("sorted, but the keys are not the input's (checksums differ)");
    uint64_t hash = 0;
    for (long i = 0; i < n; i++)
        hash += a[i] * (2 * (uint64_t)i + 1);
    snprintf(buf, len, "%#018llx", (unsigned long long)hash);
}

#endif
