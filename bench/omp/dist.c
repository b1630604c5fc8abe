/*
 * The Dist loop of the loops suite (LB4OMP's synthetic loops) under schedule(runtime):
 * iteration i of step s runs work(costs[i], iteration_seed(s, i)) (the loops suite's body,
 * from loops_omp.c), with costs[i] drawn once from an exponential distribution (c.o.v. 1,
 * a long right tail) of mean `mean_units`, seeded. The same loop call site runs `steps`
 * times.
 *
 * Parameters: iterations, mean_units, steps, seed. Check: the wrapping sum of every
 * iteration's result over every step. Every step must write every iteration's result
 * (never 0); the first and the last step are compared with a sequential run (untimed).
 */
#include "common.h" /* first: it defines _GNU_SOURCE */
#include <math.h>

#include "../../crates/magpie-bench/csrc/loop_bodies.h"

static long n, steps;
static uint64_t *costs, *out, *ref, total;

/* Iteration i of step s. */
static inline uint64_t iteration(long s, long i) {
    return work(costs[i], iteration_seed((uint64_t)s, (uint64_t)i));
}

BENCH_STEP_LOOP(long, i, n, out[i] = iteration(s, i))

/* Every result written (never 0); the first and the last step equal a sequential run's. */
static void check_step(long s) {
    int full = s == 0 || s == steps - 1;
    for (long i = 0; full && i < n; i++)
        ref[i] = iteration(s, i);
    for (long i = 0; i < n; i++) {
        if (out[i] == 0 || (full && out[i] != ref[i]))
            bench_fail("step %ld, iteration %ld: result %#llx, the sequential run's %#llx", s,
                       i, (unsigned long long)out[i],
                       (unsigned long long)(full ? ref[i] : 0));
        total += out[i];
    }
}

int main(int argc, char **argv) {
    bench_args(argc, argv, "dist", NULL);
    n = arg_long("iterations", 400000, 20000, 1);
    long mean = arg_long("mean_units", 100, 100, 0);
    steps = arg_long("steps", 12, 3, 1);
    uint64_t rng = (uint64_t)arg_long("seed", 42, 42, 0);
    bench_args_done();

    costs = bench_alloc(sizeof(uint64_t) * (size_t)n);
    for (long i = 0; i < n; i++)
        costs[i] = (uint64_t)llround(-(double)mean * log(1.0 - splitmix64_f64(&rng)));
    out = bench_alloc(sizeof(uint64_t) * (size_t)n);
    ref = bench_alloc(sizeof(uint64_t) * (size_t)n);
    double seconds = bench_steps(steps, out, sizeof(uint64_t) * (size_t)n, 0, step, check_step);

    char check[32];
    snprintf(check, sizeof check, "%#018llx", (unsigned long long)total);
    bench_report_steps(seconds, check, NULL);
    return 0;
}
