/*
 * Parallel quicksort of uniform 64-bit keys with tasks: above the cut-off, partition
 * (Hoare, median of three), sort the left part as a task and the right part in place, then
 * taskwait; at most `cutoff` keys are sorted serially (the same quicksort without tasks,
 * insertion sort below 16).
 *
 * Parameters: n, cutoff, seed. Check: sorted, the input's keys (two checksums), and a hash
 * of the sorted array.
 */
#include "sort_common.h"

/* Sorts a[0], a[n/2], a[n-1] and partitions around a[n/2]'s value: returns p, 1 <= p < n,
 * with a[0..p) <= pivot <= a[p..n). n >= 3. */
static long partition(uint64_t *a, long n) {
    uint64_t t;
#define SWAP(x, y) (t = (x), (x) = (y), (y) = t)
    if (a[n / 2] < a[0])
        SWAP(a[n / 2], a[0]);
    if (a[n - 1] < a[n / 2])
        SWAP(a[n - 1], a[n / 2]);
    if (a[n / 2] < a[0])
        SWAP(a[n / 2], a[0]);
    uint64_t pivot = a[n / 2];
    long i = -1, j = n;
    for (;;) {
        do
            i++;
        while (a[i] < pivot);
        do
            j--;
        while (a[j] > pivot);
        if (i >= j)
            return j + 1;
        SWAP(a[i], a[j]);
    }
#undef SWAP
}

static void quicksort_seq(uint64_t *a, long n) {
    while (n > INSERTION_MAX) {
        long p = partition(a, n);
        /* Recurse into the smaller part, loop on the larger. */
        if (p < n - p) {
            quicksort_seq(a, p);
            a += p;
            n -= p;
        } else {
            quicksort_seq(a + p, n - p);
            n = p;
        }
    }
    insertion_sort(a, n);
}

static void quicksort(uint64_t *a, long n, long cutoff) {
    if (n <= cutoff) {
        quicksort_seq(a, n);
        return;
    }
    long p = partition(a, n);
#pragma omp task firstprivate(a, p, cutoff)
    quicksort(a, p, cutoff);
    quicksort(a + p, n - p, cutoff);
#pragma omp taskwait
}

int main(int argc, char **argv) {
    struct sort_run r = sort_setup(argc, argv, "quicksort", 5000000);
    double seconds = BENCH_TIME_SINGLE(quicksort(r.a, r.n, r.cutoff));
    sort_report(&r, seconds);
    return 0;
}
