/*
 * An n-body-like triangular loop: iteration i sums the softened potential between body i
 * and every body j > i, so the iterations' costs fall linearly from n - 1 pairs to none
 * (a static split in contiguous blocks gives the first thread about three quarters of the
 * work at two threads). schedule(runtime); the bodies stay where they are and the same loop
 * call site runs `steps` times.
 *
 * Parameters: bodies, steps, seed. Each row is summed in j order, so every step's rows must
 * equal a sequential run's bit for bit (checked after each step, untimed). Check: the total
 * potential (the rows summed in order), printed exactly (%a).
 */
#include "common.h" /* first: it defines _GNU_SOURCE */
#include <math.h>

static inline double row_potential(const double *px, const double *py, const double *pz,
                                   const double *m, long n, long i) {
    double s = 0.0;
    for (long j = i + 1; j < n; j++) {
        double dx = px[i] - px[j], dy = py[i] - py[j], dz = pz[i] - pz[j];
        s += m[j] / sqrt(dx * dx + dy * dy + dz * dz + 1e-4);
    }
    return m[i] * s;
}

int main(int argc, char **argv) {
    bench_args(argc, argv, "nbody", NULL);
    long n = arg_long("bodies", 7000, 800, 1);
    long steps = arg_long("steps", 10, 3, 1);
    uint64_t seed = (uint64_t)arg_long("seed", 42, 42, 0);
    bench_args_done();

    double *px = bench_alloc(sizeof(double) * (size_t)n);
    double *py = bench_alloc(sizeof(double) * (size_t)n);
    double *pz = bench_alloc(sizeof(double) * (size_t)n);
    double *m = bench_alloc(sizeof(double) * (size_t)n);
    double *row = bench_alloc(sizeof(double) * (size_t)n);
    double *ref = bench_alloc(sizeof(double) * (size_t)n);
    double *step_s = bench_alloc(sizeof(double) * (size_t)steps);
    uint64_t rng = seed;
    for (long i = 0; i < n; i++) {
        px[i] = splitmix64_f64(&rng);
        py[i] = splitmix64_f64(&rng);
        pz[i] = splitmix64_f64(&rng);
        m[i] = 0.5 + splitmix64_f64(&rng);
    }
    for (long i = 0; i < n; i++)
        ref[i] = row_potential(px, py, pz, m, n, i);

    double seconds = 0.0;
    for (long s = 0; s < steps; s++) {
        memset(row, 0xff, sizeof(double) * (size_t)n); /* NaN: a row not written shows */
        double ts = omp_get_wtime();
#pragma omp parallel for schedule(runtime)
        for (long i = 0; i < n; i++)
            row[i] = row_potential(px, py, pz, m, n, i);
        step_s[s] = omp_get_wtime() - ts;
        seconds += step_s[s];
        for (long i = 0; i < n; i++)
            if (memcmp(&row[i], &ref[i], sizeof(double)) != 0)
                bench_fail("step %ld, body %ld: %.17g, the sequential run's %.17g", s, i, row[i],
                           ref[i]);
    }

    double total = 0.0;
    for (long i = 0; i < n; i++)
        total += row[i];
    char check[64], extra[4096];
    snprintf(check, sizeof check, "%a", total);
    bench_steps_json(extra, sizeof extra, step_s, steps);
    bench_report(seconds, check, extra);
    return 0;
}
