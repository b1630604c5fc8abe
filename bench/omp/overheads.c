/*
 * OpenMP construct overheads in microseconds, in the style of the EPCC syncbench and
 * schedbench: one construct per invocation (`overheads CONSTRUCT` or construct=NAME),
 * timed as `reps` outer repetitions of `inner` back-to-back constructs, each around a fixed
 * delay (work() of the loops suite: `delay_units` xorshift rounds), against a reference
 * loop that runs the same delays without the construct. The overhead of one construct is
 * median(test rep) / inner - median(reference rep) / inner. After three warm-up
 * constructs, `inner` doubles from 1 until the fastest of three test repetitions takes
 * `target_ms`.
 *
 * Constructs (what one of the `inner` constructs is; the reference is one delay unless said):
 *   parallel        #pragma omp parallel { delay }
 *   barrier         in one parallel region, per construct: delay; #pragma omp barrier
 *   for-static      in one parallel region: #pragma omp for schedule(static) over
 *   for-dynamic-1     T * iters iterations (T threads), one delay each, so each thread runs
 *   for-dynamic-64    `iters` delays per construct (the reference: `iters` delays);
 *   for-guided-1      the suffix is the chunk
 *   for-guided-64
 *   for-runtime-1   the same under schedule(runtime), run-sched-var set by
 *   for-runtime-64    omp_set_schedule(omp_sched_dynamic, 1 or 64) before the region
 *   reduction       #pragma omp parallel reduction(+:sum) { delay; sum += 1 }
 *   critical        in one parallel region, each thread inner / T times:
 *                   #pragma omp critical { delay } (inner constructs in all, one after the
 *                   other: the time per construct is the test time / their number)
 *   single          in one parallel region: #pragma omp single { delay } (its barrier too)
 *   task            in one parallel region, each thread per construct:
 *                   #pragma omp task { delay } then #pragma omp taskwait
 *
 * Parameters: construct, reps, target_ms, delay_units, iters. "seconds" is the time of the
 * test repetitions; "check" is "ok" when every construct ran as often as it should (the
 * reduction's sum, the single and critical counts, the tasks run), else exit 1. Extra
 * fields: overhead_us (the figure of merit), test_us and reference_us (per construct),
 * inner.
 */
#include "common.h"
#include "../../crates/magpie-bench/csrc/loop_bodies.h"

static const char *CONSTRUCTS[] = {"parallel",       "barrier",        "for-static",
                                   "for-dynamic-1",  "for-dynamic-64", "for-guided-1",
                                   "for-guided-64",  "for-runtime-1",  "for-runtime-64",
                                   "reduction",      "critical",       "single",
                                   "task",           NULL};

static long delay_units;
static long iters;

static inline void delay(long salt) {
    volatile uint64_t sink = work((uint64_t)delay_units, (uint64_t)salt);
    (void)sink;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *x, int n) {
    qsort(x, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

#define PRAGMA_(x) _Pragma(#x)
#define PRAGMA(x) PRAGMA_(x)
/* If COND: one worksharing loop under `schedule SCHED` of `total` iterations, a delay each. */
#define FOR_IF(COND, SCHED)                                                                        \
    if (COND) {                                                                                    \
        PRAGMA(omp for schedule SCHED)                                                             \
        for (long i = 0; i < total; i++)                                                           \
            delay(i);                                                                              \
    }

/* In one parallel region, each thread `per_thread` times: `#pragma omp CONSTRUCT` around a
 * delay and n++ (critical: every thread's; single: one thread's of the team). */
#define ROUNDS(PER_THREAD, CONSTRUCT)                                                              \
    PRAGMA(omp parallel) {                                                                         \
        long rounds = (PER_THREAD);                                                                \
        for (long j = 0; j < rounds; j++) {                                                        \
            PRAGMA(omp CONSTRUCT) {                                                                \
                delay(j);                                                                          \
                n++;                                                                               \
            }                                                                                      \
        }                                                                                          \
    }

/* One test repetition of construct c: `inner` constructs. Returns how many ran. */
static long test(int c, long inner) {
    const char *name = CONSTRUCTS[c];
    long n = 0;
    if (strcmp(name, "parallel") == 0) {
        for (long j = 0; j < inner; j++) {
#pragma omp parallel
            delay(j);
            n++;
        }
    } else if (strcmp(name, "barrier") == 0) {
#pragma omp parallel
        {
            for (long j = 0; j < inner; j++) {
                delay(j);
#pragma omp barrier
            }
        }
        n = inner;
    } else if (strncmp(name, "for-", 4) == 0) {
        long chunk = strtol(strrchr(name, '-') + 1, NULL, 10);
        if (strncmp(name, "for-runtime", 11) == 0)
            omp_set_schedule(omp_sched_dynamic, (int)chunk);
#pragma omp parallel
        {
            long total = iters * omp_get_num_threads();
            for (long j = 0; j < inner; j++) {
                FOR_IF(strcmp(name, "for-static") == 0, (static))
                else FOR_IF(strcmp(name, "for-dynamic-1") == 0, (dynamic, 1))
                else FOR_IF(strcmp(name, "for-dynamic-64") == 0, (dynamic, 64))
                else FOR_IF(strcmp(name, "for-guided-1") == 0, (guided, 1))
                else FOR_IF(strcmp(name, "for-guided-64") == 0, (guided, 64))
                else FOR_IF(1, (runtime)) /* for-runtime-1, for-runtime-64 */
            }
        }
        n = inner;
    } else if (strcmp(name, "reduction") == 0) {
        for (long j = 0; j < inner; j++) {
            long sum = 0;
#pragma omp parallel reduction(+ : sum)
            {
                delay(j);
                sum += 1;
            }
            if (sum != omp_get_max_threads())
                bench_fail("reduction %ld: sum %ld over %d threads", j, sum,
                           omp_get_max_threads());
            n++;
        }
    } else if (strcmp(name, "critical") == 0) {
        ROUNDS(inner / omp_get_num_threads(), critical)
    } else if (strcmp(name, "single") == 0) {
        ROUNDS(inner, single)
    } else { /* task */
#pragma omp parallel
        {
            for (long j = 0; j < inner; j++) {
#pragma omp task firstprivate(j)
                {
                    delay(j);
#pragma omp atomic
                    n++;
                }
#pragma omp taskwait
            }
        }
        n /= omp_get_max_threads();
    }
    return n;
}

/* The reference repetition: `inner` times the delays of one construct, no OpenMP. */
static void reference(long inner, long per_construct) {
    for (long j = 0; j < inner; j++)
        for (long i = 0; i < per_construct; i++)
            delay(i);
}

int main(int argc, char **argv) {
    bench_args(argc, argv, "overheads", "construct");
    const char *name = arg_string("construct", "");
    int reps = (int)arg_long("reps", 20, 3, 1);
    double target_ms = arg_double("target_ms", 10.0, 1.0);
    delay_units = arg_long("delay_units", 64, 64, 0);
    iters = arg_long("iters", 128, 128, 1);
    bench_args_done();
    int c = 0;
    while (CONSTRUCTS[c] != NULL && strcmp(CONSTRUCTS[c], name) != 0)
        c++;
    if (CONSTRUCTS[c] == NULL) {
        fprintf(stderr, "overheads: error: unknown construct '%s'; the constructs:", name);
        for (int i = 0; CONSTRUCTS[i] != NULL; i++)
            fprintf(stderr, " %s", CONSTRUCTS[i]);
        fputc('\n', stderr);
        return 2;
    }
    long per_construct = strncmp(name, "for-", 4) == 0 ? iters : 1;

    /* Warm up (the team's threads start), then calibrate: inner doubles until the faster
     * of three repetitions takes target_ms (a preempted thread does not stop it early). */
    for (int w = 0; w < 3; w++)
        test(c, 1);
    long inner = 1;
    for (;;) {
        double best = 1e300;
        for (int k = 0; k < 3; k++) {
            double t0 = omp_get_wtime();
            test(c, inner);
            double t = omp_get_wtime() - t0;
            best = t < best ? t : best;
        }
        if (best * 1e3 >= target_ms || inner >= (1L << 30))
            break;
        inner *= 2;
    }
    if (strcmp(name, "critical") == 0 && inner < omp_get_max_threads())
        inner = omp_get_max_threads();

    double *t = bench_alloc(sizeof(double) * (size_t)reps);
    double *r = bench_alloc(sizeof(double) * (size_t)reps);
    double seconds = 0.0;
    long constructs = inner;
    for (int k = 0; k < reps; k++) {
        double t0 = omp_get_wtime();
        reference(inner, per_construct);
        r[k] = omp_get_wtime() - t0;
        t0 = omp_get_wtime();
        long ran = test(c, inner);
        t[k] = omp_get_wtime() - t0;
        seconds += t[k];
        /* critical runs inner / T per thread, T of them: that many constructs. */
        long want = inner;
        if (strcmp(name, "critical") == 0)
            want = inner / omp_get_max_threads() * omp_get_max_threads();
        if (ran != want)
            bench_fail("%s: %ld constructs ran, %ld expected", name, ran, want);
        constructs = want;
    }
    double test_us = median(t, reps) / (double)constructs * 1e6;
    double reference_us = median(r, reps) / (double)inner * 1e6;

    char extra[256];
    snprintf(extra, sizeof extra,
             "\"overhead_us\":%.6f,\"test_us\":%.6f,\"reference_us\":%.6f,\"inner\":%ld",
             test_us - reference_us, test_us, reference_us, inner);
    bench_report(seconds, "ok", extra);
    return 0;
}
