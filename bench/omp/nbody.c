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

static long n;
static double *px, *py, *pz, *m, *row, *ref;

static inline double row_potential(long i) {
    double s = 0.0;
    for (long j = i + 1; j < n; j++) {
        double dx = px[i] - px[j], dy = py[i] - py[j], dz = pz[i] - pz[j];
        s += m[j] / sqrt(dx * dx + dy * dy + dz * dz + 1e-4);
    }
    return m[i] * s;
}

BENCH_STEP_LOOP(long, i, n, row[i] = row_potential(i))

static void check_step(long s) { bench_same_bits(s, row, ref, n, "body", "run"); }

int main(int argc, char **argv) {
    bench_args(argc, argv, "nbody", NULL);
    n = arg_long("bodies", 7000, 800, 1);
    long steps = arg_long("steps", 10, 3, 1);
    uint64_t rng = (uint64_t)arg_long("seed", 42, 42, 0);
    bench_args_done();

    size_t bytes = sizeof(double) * (size_t)n;
    px = bench_alloc(bytes), py = bench_alloc(bytes), pz = bench_alloc(bytes);
    m = bench_alloc(bytes), row = bench_alloc(bytes), ref = bench_alloc(bytes);
    for (long i = 0; i < n; i++) {
        px[i] = splitmix64_f64(&rng);
        py[i] = splitmix64_f64(&rng);
        pz[i] = splitmix64_f64(&rng);
        m[i] = 0.5 + splitmix64_f64(&rng);
    }
    for (long i = 0; i < n; i++)
        ref[i] = row_potential(i);

    /* Rows cleared to NaN before each step: a row not written shows. */
    double seconds = bench_steps(steps, row, bytes, 0xff, step, check_step);

    double total = 0.0;
    for (long i = 0; i < n; i++)
        total += row[i];
    char check[64];
    snprintf(check, sizeof check, "%a", total);
    bench_report_steps(seconds, check, NULL);
    return 0;
}
