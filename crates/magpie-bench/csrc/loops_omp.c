/*
 * The OpenMP peer of magpie's loop apps: the same loop bodies as `magpie::loops`
 * runs, under OpenMP with `schedule(runtime)`, so the schedule kind and chunk are
 * chosen per call through `omp_set_schedule`.
 *
 * Built by crates/magpie-bench/build.rs with -O2 -fopenmp -ffp-contract=off (no
 * FMA contraction, so the Mandelbrot counts equal the plain-Rust reference bit
 * for bit). Called from crates/magpie-bench/src/omp.rs.
 *
 * Arguments shared by the loops:
 *   kind    -1 = sequential (no OpenMP at all), 0 = static, 1 = dynamic, 2 = guided;
 *           anything else is treated as static.
 *   chunk   the chunk size; 0 (or less) = the runtime's default for the kind
 *           (static: one block per thread; dynamic/guided: 1).
 *   threads the team size (num_threads clause); 0 (or less) = the OpenMP default.
 *   busy    NULL, or an array of busy_len doubles: thread t < busy_len of the team writes
 *           into busy[t] the seconds from its entering the parallel region to its leaving
 *           the loop (the loop has `nowait`, so a thread's time does not include waiting for
 *           the others), and the slots of threads that did not exist are set to 0. The
 *           sequential path writes its whole time into busy[0].
 */

#include <omp.h>
#include <stddef.h>
#include <stdint.h>

#include "loop_bodies.h"

static omp_sched_t kind_to_omp(int kind) {
    switch (kind) {
    case 1:
        return omp_sched_dynamic;
    case 2:
        return omp_sched_guided;
    default:
        return omp_sched_static;
    }
}

static int omp_to_kind(omp_sched_t s) {
    /* Drop the monotonic modifier bit (OpenMP 4.5+) if the runtime reports it. */
    switch ((int)((unsigned)s & 0x7fffffffu)) {
    case omp_sched_static:
        return 0;
    case omp_sched_dynamic:
        return 1;
    case omp_sched_guided:
        return 2;
    default:
        return -2;
    }
}

/* Sets the run-sched-var ICV of the calling thread and returns the team size to use. */
static int setup(int kind, int chunk, int threads) {
    omp_set_schedule(kind_to_omp(kind), chunk > 0 ? chunk : 0);
    return threads > 0 ? threads : omp_get_max_threads();
}

static void clear_busy(double *busy, int busy_len) {
    for (int t = 0; busy != NULL && t < busy_len; t++)
        busy[t] = 0.0;
}

/* Thread t's time since t0, if it has a slot. */
static void record_busy(double *busy, int busy_len, int t, double t0) {
    double elapsed = omp_get_wtime() - t0;
    if (busy != NULL && t >= 0 && t < busy_len)
        busy[t] = elapsed;
}

/* Sets the schedule as the loops do and reads it back (for the tests). */
void omp_loops_schedule_roundtrip(int kind, int chunk, int *kind_out, int *chunk_out) {
    omp_sched_t s;
    int c;
    omp_set_schedule(kind_to_omp(kind), chunk > 0 ? chunk : 0);
    omp_get_schedule(&s, &c);
    *kind_out = omp_to_kind(s);
    *chunk_out = c;
}

/* ---- Mandelbrot ------------------------------------------------------------------ */

/*
 * The image over [-2,1] x [-1.5,1.5], row-major into out[width * height]; one loop
 * over the pixel indices. Returns the sum of the iteration counts.
 */
uint64_t omp_mandelbrot(int width, int height, int max_iter, int kind, int chunk, int threads,
                        uint32_t *out, double *busy, int busy_len) {
    int64_t total = (int64_t)width * (int64_t)height;
    uint64_t sum = 0;
    clear_busy(busy, busy_len);
    if (width <= 0 || height <= 0)
        return 0;
    if (max_iter < 0)
        max_iter = 0;
    if (kind < 0) {
        double t0 = omp_get_wtime();
        for (int64_t p = 0; p < total; p++) {
            uint32_t n = mandel_pixel(p, width, height, max_iter);
            out[p] = n;
            sum += n;
        }
        record_busy(busy, busy_len, 0, t0);
        return sum;
    }
    int team = setup(kind, chunk, threads);
#pragma omp parallel num_threads(team) reduction(+ : sum)
    {
        double t0 = omp_get_wtime();
#pragma omp for schedule(runtime) nowait
        for (int64_t p = 0; p < total; p++) {
            uint32_t n = mandel_pixel(p, width, height, max_iter);
            out[p] = n;
            sum += n;
        }
        record_busy(busy, busy_len, omp_get_thread_num(), t0);
    }
    return sum;
}

/* ---- Dist work ------------------------------------------------------------------- */

/*
 * One time step of the dist loop: iteration i runs work(costs[i], iteration_seed(step, i));
 * returns the wrapping sum of the results.
 */
uint64_t omp_dist(const uint64_t *costs, size_t n, uint64_t step, int kind, int chunk,
                  int threads, double *busy, int busy_len) {
    uint64_t sum = 0;
    clear_busy(busy, busy_len);
    if (kind < 0) {
        double t0 = omp_get_wtime();
        for (size_t i = 0; i < n; i++)
            sum += work(costs[i], iteration_seed(step, (uint64_t)i));
        record_busy(busy, busy_len, 0, t0);
        return sum;
    }
    int team = setup(kind, chunk, threads);
    int64_t len = (int64_t)n;
#pragma omp parallel num_threads(team) reduction(+ : sum)
    {
        double t0 = omp_get_wtime();
#pragma omp for schedule(runtime) nowait
        for (int64_t i = 0; i < len; i++)
            sum += work(costs[i], iteration_seed(step, (uint64_t)i));
        record_busy(busy, busy_len, omp_get_thread_num(), t0);
    }
    return sum;
}
