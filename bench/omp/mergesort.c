/*
 * Parallel mergesort of uniform 64-bit keys with tasks (as cilksort): the two halves are
 * sorted as a task and in place, then merged by a parallel merge (split the longer run at
 * its middle key, binary-search that key in the other, merge the two sides as a task and
 * in place). Pieces of at most `cutoff` keys are sorted, and runs of at most `cutoff` keys
 * in all merged, serially (insertion sort below 16). The halves sort into the other buffer
 * and back in turn (no copying back).
 *
 * Parameters: n, cutoff, seed. Check: sorted, the input's keys (two checksums), and a hash
 * of the sorted array.
 */
#include "sort_common.h"

static void merge_seq(const uint64_t *x, long nx, const uint64_t *y, long ny, uint64_t *out) {
    long i = 0, j = 0, k = 0;
    while (i < nx && j < ny)
        out[k++] = y[j] < x[i] ? y[j++] : x[i++];
    while (i < nx)
        out[k++] = x[i++];
    while (j < ny)
        out[k++] = y[j++];
}

/* The first index of y[0..n) whose key is >= v. */
static long lower_bound(const uint64_t *y, long n, uint64_t v) {
    long lo = 0, hi = n;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (y[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void merge(const uint64_t *x, long nx, const uint64_t *y, long ny, uint64_t *out,
                  long cutoff) {
    if (nx < ny) {
        const uint64_t *t = x;
        x = y;
        y = t;
        long tn = nx;
        nx = ny;
        ny = tn;
    }
    if (nx + ny <= cutoff || nx == 0) {
        merge_seq(x, nx, y, ny, out);
        return;
    }
    long mx = nx / 2, my = lower_bound(y, ny, x[mx]);
    out[mx + my] = x[mx];
#pragma omp task firstprivate(x, mx, y, my, out, cutoff)
    merge(x, mx, y, my, out, cutoff);
    merge(x + mx + 1, nx - mx - 1, y + my, ny - my, out + mx + my + 1, cutoff);
#pragma omp taskwait
}

/* Sorts a[0..n): the result in b if to_b, else in a; the other is scratch. */
static void mergesort(uint64_t *a, uint64_t *b, long n, int to_b, long cutoff) {
    if (n <= INSERTION_MAX) {
        insertion_sort(a, n);
        if (to_b)
            memcpy(b, a, sizeof(uint64_t) * (size_t)n);
        return;
    }
    long h = n / 2;
    if (n <= cutoff) {
        mergesort(a, b, h, !to_b, cutoff);
        mergesort(a + h, b + h, n - h, !to_b, cutoff);
    } else {
#pragma omp task firstprivate(a, b, h, to_b, cutoff)
        mergesort(a, b, h, !to_b, cutoff);
        mergesort(a + h, b + h, n - h, !to_b, cutoff);
#pragma omp taskwait
    }
    const uint64_t *from = to_b ? a : b;
    merge(from, h, from + h, n - h, to_b ? b : a, cutoff);
}

int main(int argc, char **argv) {
    struct sort_run r = sort_setup(argc, argv, "mergesort", 6000000);
    uint64_t *b = bench_alloc(sizeof(uint64_t) * (size_t)r.n);
    memset(b, 0, sizeof(uint64_t) * (size_t)r.n); /* touch the scratch before the clock */
    double seconds = BENCH_TIME_SINGLE(mergesort(r.a, b, r.n, 0, r.cutoff));
    sort_report(&r, seconds);
    return 0;
}
