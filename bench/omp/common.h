/*
 * What every OpenMP benchmark program of bench/omp shares: its command line, its one JSON
 * line, the seeded generator of its inputs, and how it names the OpenMP runtime it runs on.
 *
 * Command line: `PROG [--quick] [key=value ...]`. Each program reads its parameters with
 * arg_long()/arg_double(), which give the full-size default, or the quick one under --quick,
 * unless key=value overrides it; every parameter read is recorded for the JSON line's
 * "params". A key that no parameter reads is an error (exit 2).
 *
 * Output: one JSON line on stdout (bench_report()),
 *   {"program":..., "params":{...}, "threads":T, "seconds":S, "check":"...",
 *    "omp_lib":"/path/of/the/library/defining/GOMP_parallel", "schedule":"kind,chunk"
 *    [, more fields of the program]}
 * where "seconds" is the measured kernel's wall time (omp_get_wtime), "check" the answer
 * (equal for every runtime, schedule and thread count of the same parameters), "omp_lib"
 * the shared object that GOMP_parallel resolves to in this process (libgomp, or what
 * LD_PRELOAD put first), "schedule" what omp_get_schedule() reported when the parameters
 * had been read (bench_args_done(): run-sched-var, from OMP_SCHEDULE). A wrong answer is a message on stderr and exit 1
 * (bench_fail()), with no JSON line.
 *
 * The task programs time their root task with BENCH_TIME_SINGLE(); the loop applications
 * define their step with BENCH_STEP_LOOP(), run the steps with bench_steps() and report
 * each step's time too ("step_seconds") with bench_report_steps().
 */
#ifndef MAGPIE_BENCH_OMP_COMMON_H
#define MAGPIE_BENCH_OMP_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <omp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Command line ------------------------------------------------------------------ */

#define BENCH_MAX_ARGS 32
/* Helpers a program may not call. */
#define BENCH_UNUSED __attribute__((unused))

static const char *bench_program = "?";
static int bench_quick = 0;
static int bench_nargs = 0;
static const char *bench_keys[BENCH_MAX_ARGS];
static const char *bench_values[BENCH_MAX_ARGS];
static int bench_used[BENCH_MAX_ARGS];
static char bench_params[1024] = "";

/* "PROGRAM: WHAT: message" on stderr, then exit(status). */
__attribute__((noreturn)) static void bench_vexit(int status, const char *what, const char *fmt,
                                                  va_list ap) {
    fprintf(stderr, "%s: %s: ", bench_program, what);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    exit(status);
}

/* A usage error (a parameter out of range, an unknown argument): exit status 2. */
__attribute__((noreturn)) BENCH_UNUSED static void bench_usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    bench_vexit(2, "error", fmt, ap);
}

/* A wrong answer: the message on stderr, exit status 1. */
__attribute__((noreturn)) BENCH_UNUSED static void bench_fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    bench_vexit(1, "wrong answer", fmt, ap);
}

/*
 * Reads `--quick` and `key=value` arguments. `bare_key`, if not NULL, names the key that an
 * argument without '=' sets (overheads' construct).
 */
BENCH_UNUSED static void bench_args(int argc, char **argv, const char *program, const char *bare_key) {
    bench_program = program;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        char *eq = strchr(a, '=');
        if (strcmp(a, "--quick") == 0) {
            bench_quick = 1;
            continue;
        }
        if (bench_nargs == BENCH_MAX_ARGS)
            bench_usage_error("too many arguments");
        if (eq != NULL) {
            *eq = '\0';
            bench_keys[bench_nargs] = a;
            bench_values[bench_nargs] = eq + 1;
        } else if (bare_key != NULL && a[0] != '-') {
            bench_keys[bench_nargs] = bare_key;
            bench_values[bench_nargs] = a;
        } else {
            bench_usage_error("unknown argument %s (expected --quick or key=value)", a);
        }
        bench_nargs++;
    }
}

BENCH_UNUSED static void bench_param_append(const char *key, const char *json_value) {
    size_t len = strlen(bench_params);
    snprintf(bench_params + len, sizeof bench_params - len, "%s\"%s\":%s", len ? "," : "", key,
             json_value);
}

/* The value given for `key`, or NULL (the last one wins). */
BENCH_UNUSED static const char *bench_given(const char *key) {
    const char *v = NULL;
    for (int i = 0; i < bench_nargs; i++)
        if (strcmp(bench_keys[i], key) == 0) {
            v = bench_values[i];
            bench_used[i] = 1;
        }
    return v;
}

/* An integer parameter >= min: key=value, else full or (under --quick) quick. */
BENCH_UNUSED static long arg_long(const char *key, long full, long quick, long min) {
    const char *v = bench_given(key);
    long x = bench_quick ? quick : full;
    if (v != NULL) {
        char *end;
        x = strtol(v, &end, 10);
        if (*v == '\0' || *end != '\0')
            bench_usage_error("%s=%s: not an integer", key, v);
    }
    if (x < min)
        bench_usage_error("%s=%ld: must be at least %ld", key, x, min);
    char buf[32];
    snprintf(buf, sizeof buf, "%ld", x);
    bench_param_append(key, buf);
    return x;
}

/* A real parameter > 0. */
BENCH_UNUSED static double arg_double(const char *key, double full, double quick) {
    const char *v = bench_given(key);
    double x = bench_quick ? quick : full;
    if (v != NULL) {
        char *end;
        x = strtod(v, &end);
        if (*v == '\0' || *end != '\0')
            bench_usage_error("%s=%s: not a number", key, v);
    }
    if (!(x > 0.0))
        bench_usage_error("%s=%g: must be a number > 0", key, x);
    char buf[32];
    snprintf(buf, sizeof buf, "%.17g", x);
    bench_param_append(key, buf);
    return x;
}

/* A string parameter (no quotes or backslashes in it). */
BENCH_UNUSED static const char *arg_string(const char *key, const char *dflt) {
    const char *v = bench_given(key);
    if (v == NULL)
        v = dflt;
    if (strpbrk(v, "\"\\") != NULL)
        bench_usage_error("%s=%s: no quotes or backslashes", key, v);
    char buf[128];
    snprintf(buf, sizeof buf, "\"%s\"", v);
    bench_param_append(key, buf);
    return v;
}

/* run-sched-var when the parameters were read, before the program could change it. */
static char bench_schedule_read[64] = "?";
BENCH_UNUSED static void bench_schedule(char *buf, size_t len);

/* After the parameters are read: a key nothing read is an error. Reads run-sched-var. */
BENCH_UNUSED static void bench_args_done(void) {
    for (int i = 0; i < bench_nargs; i++)
        if (!bench_used[i])
            bench_usage_error("unknown parameter %s (known: %s)", bench_keys[i],
                              bench_params[0] ? bench_params : "none");
    bench_schedule(bench_schedule_read, sizeof bench_schedule_read);
}

/* ---- Inputs ------------------------------------------------------------------------- */

/* SplitMix64: the seeded generator of every input. */
static inline uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform on [0, 1). */
static inline double splitmix64_f64(uint64_t *state) {
    return (double)(splitmix64(state) >> 11) * (1.0 / 9007199254740992.0);
}

BENCH_UNUSED static void *bench_alloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "%s: error: out of memory (%zu bytes)\n", bench_program, bytes);
        exit(2);
    }
    return p;
}

/* ---- Output ------------------------------------------------------------------------- */

/* The shared object that defines GOMP_parallel in this process (what the program's calls bind to). */
BENCH_UNUSED static const char *bench_omp_lib(void) {
    Dl_info info;
    void *sym = dlsym(RTLD_DEFAULT, "GOMP_parallel");
    if (sym == NULL || dladdr(sym, &info) == 0 || info.dli_fname == NULL)
        return "?";
    return info.dli_fname;
}

/* run-sched-var as `kind,chunk` (kind static/dynamic/guided/auto, else its number). */
BENCH_UNUSED static void bench_schedule(char *buf, size_t len) {
    omp_sched_t kind;
    int chunk;
    omp_get_schedule(&kind, &chunk);
    int k = (int)((unsigned)kind & 0x7fffffffu); /* without the monotonic modifier */
    const char *names[] = {"?", "static", "dynamic", "guided", "auto"};
    if (k >= 1 && k <= 4)
        snprintf(buf, len, "%s,%d", names[k], chunk);
    else
        snprintf(buf, len, "kind%d,%d", k, chunk);
}

/*
 * The program's JSON line. `check` is the answer as a string; `extra` is NULL or more
 * fields (`"key":value,...`, without braces) for the program to add.
 */
BENCH_UNUSED static void bench_report(double seconds, const char *check, const char *extra) {
    printf("{\"program\":\"%s\",\"params\":{%s},\"threads\":%d,\"seconds\":%.9f,"
           "\"check\":\"%s\",\"omp_lib\":\"%s\",\"schedule\":\"%s\"%s%s}\n",
           bench_program, bench_params, omp_get_max_threads(), seconds, check, bench_omp_lib(),
           bench_schedule_read, extra && *extra ? "," : "", extra ? extra : "");
    fflush(stdout);
}

/* The wall time of STMT run once by one thread of a parallel region (`parallel` + `single`:
 * the root task of the task programs), the region's start and end included. */
#define BENCH_TIME_SINGLE(STMT)                                                                    \
    ({                                                                                             \
        double bench_t0_ = omp_get_wtime();                                                        \
        _Pragma("omp parallel") _Pragma("omp single") STMT;                                        \
        omp_get_wtime() - bench_t0_;                                                               \
    })

/* bench_report with a count as the check. */
BENCH_UNUSED static void bench_report_count(double seconds, uint64_t count) {
    char check[32];
    snprintf(check, sizeof check, "%llu", (unsigned long long)count);
    bench_report(seconds, check, NULL);
}

/* ---- Loop applications -------------------------------------------------------------- */

/* The steps of the loop application and each one's time (bench_steps()). */
static long bench_step_count;
static double *bench_step_seconds;

/*
 * Defines a loop application's step: `static void step(long s)` running
 * `for (TYPE I = 0; I < N; I++) BODY;` as one `parallel for schedule(runtime)` (BODY may use
 * the step s). bench_steps() runs it.
 */
#define BENCH_STEP_LOOP(TYPE, I, N, BODY)                                                          \
    static void step(long s) {                                                                     \
        (void)s;                                                                                   \
        _Pragma("omp parallel for schedule(runtime)") for (TYPE I = 0; I < (N); I++) BODY;         \
    }

/*
 * The time steps of a loop application, `steps` of them, all at the same loop call site:
 * each clears `out` (`bytes` bytes set to `fill`, so that a result the step does not write
 * shows), runs step(s) (the step's parallel loop, timed with omp_get_wtime) and then
 * check(s) (untimed). Returns the steps' total time.
 */
BENCH_UNUSED static double bench_steps(long steps, void *out, size_t bytes, int fill,
                                       void (*step)(long), void (*check)(long)) {
    bench_step_count = steps;
    bench_step_seconds = bench_alloc(sizeof(double) * (size_t)steps);
    double total = 0.0;
    for (long s = 0; s < steps; s++) {
        memset(out, fill, bytes);
        double t0 = omp_get_wtime();
        step(s);
        bench_step_seconds[s] = omp_get_wtime() - t0;
        total += bench_step_seconds[s];
        check(s);
    }
    return total;
}

/* Fails unless the step's results y[0..n) equal ref's bit for bit (`what` names one
 * element, `whose` the reference). */
BENCH_UNUSED static void bench_same_bits(long step, const double *y, const double *ref, long n,
                                         const char *what, const char *whose) {
    for (long i = 0; i < n; i++)
        if (memcmp(&y[i], &ref[i], sizeof(double)) != 0)
            bench_fail("step %ld, %s %ld: %.17g, the sequential %s's %.17g", step, what, i, y[i],
                       whose, ref[i]);
}

/*
 * bench_report for a loop application after bench_steps(): the fields `extra` (NULL or
 * `"key":value,...`), then the steps' times, "step_seconds":[...].
 */
BENCH_UNUSED static void bench_report_steps(double seconds, const char *check, const char *extra) {
    size_t len = 64 + (extra ? strlen(extra) : 0) + 32 * (size_t)bench_step_count;
    char *buf = bench_alloc(len);
    size_t used = (size_t)snprintf(buf, len, "%s%s\"step_seconds\":[", extra ? extra : "",
                                   extra && *extra ? "," : "");
    for (long s = 0; s < bench_step_count; s++)
        used += (size_t)snprintf(buf + used, len - used, "%s%.6f", s ? "," : "",
                                 bench_step_seconds[s]);
    snprintf(buf + used, len - used, "]");
    bench_report(seconds, check, buf);
    free(buf);
}

#endif
