/*
 * fib(n) with a task per call: each call of n >= 2 spawns fib(n - 1) and fib(n - 2) as two
 * tasks and waits for them (no cut-off beyond n < 2), from one `single` of a parallel region.
 *
 * Parameters: n. Check: fib(n), compared with the iterative value.
 */
#include "common.h"

static uint64_t fib(int n) {
    if (n < 2)
        return (uint64_t)n;
    uint64_t a, b;
#pragma omp task shared(a) firstprivate(n)
    a = fib(n - 1);
#pragma omp task shared(b) firstprivate(n)
    b = fib(n - 2);
#pragma omp taskwait
    return a + b;
}

/* fib(n) by iteration, the check (at most n = 90: fib(n) fits 64 bits). */
static uint64_t fib_want(int n) {
    if (n > 90)
        bench_fail("n=%d: fib(n) overflows 64 bits above n = 90", n);
    uint64_t want = 0, next = 1;
    for (int i = 0; i < n; i++) {
        uint64_t t = want + next;
        want = next;
        next = t;
    }
    return want;
}

int main(int argc, char **argv) {
    bench_args(argc, argv, "fib", NULL);
    int n = (int)arg_long("n", 28, 18, 0);
    bench_args_done();
    uint64_t want = fib_want(n), got = 0;
    double seconds = BENCH_TIME_SINGLE(got = fib(n));
    if (got != want)
        bench_fail("fib(%d) = %llu, not %llu", n, (unsigned long long)got,
                   (unsigned long long)want);
    bench_report_count(seconds, got);
    return 0;
}
