/*
 * What quicksort.c and mergesort.c share: the parameters, the seeded input, insertion sort
 * for the smallest pieces, and the check of the result (sorted, and the same multiset of keys as
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

/* A sort's run: its parameters (n, cutoff, seed), the input's keys and their checksums. */
struct sort_run {
    long n, cutoff;
    uint64_t *a;
    struct keysum before;
};

/* Reads the sorts' parameters (n defaults to n_full, 200000 under --quick) and makes the
 * input. */
static struct sort_run sort_setup(int argc, char **argv, const char *program, long n_full) {
    struct sort_run r;
    bench_args(argc, argv, program, NULL);
    r.n = arg_long("n", n_full, 200000, 1);
    r.cutoff = arg_long("cutoff", 4096, 4096, INSERTION_MAX);
    uint64_t seed = (uint64_t)arg_long("seed", 42, 42, 0);
    bench_args_done();
    r.a = sort_input(r.n, seed);
    r.before = keysum_of(r.a, r.n);
    return r;
}

/*
 * Fails unless the run's keys are sorted and are the input's; then the JSON line, whose
 * check is a position-weighted hash of the sorted keys, in hex.
 */
static void sort_report(const struct sort_run *r, double seconds) {
    const uint64_t *a = r->a;
    for (long i = 1; i < r->n; i++)
        if (a[i - 1] > a[i])
            bench_fail("not sorted at %ld: %llu > %llu", i, (unsigned long long)a[i - 1],
                       (unsigned long long)a[i]);
    struct keysum after = keysum_of(a, r->n);
    if (after.sum != r->before.sum || after.mixed != r->before.mixed)
        bench_fail("sorted, but the keys are not the input's (checksums differ)");
    uint64_t hash = 0;
    for (long i = 0; i < r->n; i++)
        hash += a[i] * (2 * (uint64_t)i + 1);
    char check[32];
    snprintf(check, sizeof check, "%#018llx", (unsigned long long)hash);
    bench_report(seconds, check, NULL);
}

#endif
