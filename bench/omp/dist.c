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

#include "loop_bodies.h"

static void step_seq(const uint64_t *costs, long n, long s, uint64_t *out) {
    for (long i = 0; i < n; i++)
        out[i] = work(costs[i], iteration_seed((uint64_t)s, (uint64_t)i));
}

int main(int argc, char **argv) {
    bench_args(argc, argv, "dist", NULL);
    long n = arg_long("iterations", 400000, 20000, 1);
    long mean = arg_long("mean_units", 100, 100, 0);
    long steps = arg_long("steps", 12, 3, 1);
    uint64_t seed = (uint64_t)arg_long("seed", 42, 42, 0);
    bench_args_done();

    uint64_t *costs = bench_alloc(sizeof(uint64_t) * (size_t)n);
    uint64_t *out = bench_alloc(sizeof(uint64_t) * (size_t)n);
    uint64_t *ref = bench_alloc(sizeof(uint64_t) * (size_t)n);
    double *step_s = bench_alloc(sizeof(double) * (size_t)steps);
    uint64_t rng = seed;
    for (long i = 0; i < n; i++)
        costs[i] = (uint64_t)llround(-(double)mean * log(1.0 - splitmix64_f64(&rng)));

    uint64_t total = 0;
    double measured = 0.0;
    for (long s = 0; s < steps; s++) {
        memset(out, 0, sizeof(uint64_t) * (size_t)n);
        double ts = omp_get_wtime();
#pragma omp parallel for schedule(runtime)
        for (long i = 0; i < n; i++)
            out[i] = work(costs[i], iteration_seed((uint64_t)s, (uint64_t)i));
        step_s[s] = omp_get_wtime() - ts;
        measured += step_s[s];
        int full = s == 0 || s == steps - 1;
        if (full)
            step_seq(costs, n, s, ref);
        for (long i = 0; i < n; i++) {
            if (out[i] == 0 || (full && out[i] != ref[i]))
                bench_fail("step %ld, iteration %ld: result %#llx, the sequential run's %#llx", s,
                           i, (unsigned long long)out[i],
                           (unsigned long long)(full ? ref[i] : 0));
            total += out[i];
        }
    }

    char check[32], extra[8192];
    snprintf(check, sizeof check, "%#018llx", (unsigned long long)total);
    bench_steps_json(extra, sizeof extra, step_s, steps);
    bench_report(measured, check, extra);
    return 0;
}
