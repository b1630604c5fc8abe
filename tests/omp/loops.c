/* Worksharing loops (GOMP_loop_*, GOMP_loop_ull_*, GOMP_parallel_loop_*): every iteration
 * runs exactly once under every schedule, loop shape and iteration type; nowait chains,
 * collapse(2), combined `parallel for`, orphaned loops, lastprivate and multi-variable
 * reductions give exactly the sequential results.
 *
 * The team size comes from OMP_NUM_THREADS and the runtime schedule from OMP_SCHEDULE (both
 * set by scripts/omp-tests.sh). Exits 1 with a message on the first failed check. */
#include <limits.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "loops"
#include "check.h"

#define MAXN 8192

/* hits[k]: how many times iteration k ran (atomic increments, so a double run shows as 2);
 * expect[k]: 1 where the sequential loop ran iteration k. */
static int hits[MAXN], expect[MAXN];

static void reset(const char *label) {
    what = label;
    memset(hits, 0, sizeof hits);
    memset(expect, 0, sizeof expect);
}
static void mark(long k) {
    if (k < 0 || k >= MAXN)
        FAIL("sequential index %ld out of range", k);
    expect[k] = 1;
}
static void hit(long k) {
    if (k < 0 || k >= MAXN)
        FAIL("parallel index %ld out of range (the runtime handed out an iteration outside the loop)", k);
    __atomic_fetch_add(&hits[k], 1, __ATOMIC_RELAXED);
}
/* Proves: each iteration of the sequential loop ran exactly once, and no other ran. */
static void verify(void) {
    long n = 0;
    for (long k = 0; k < MAXN; k++) {
        n += expect[k];
        CHECK(hits[k] == expect[k], "iteration #%ld ran %d times, expected %d", k, hits[k], expect[k]);
    }
    (void)n;
}

/* Bounds read from volatiles so the compiler cannot fold the loops away. */
static volatile int v_zero = 0, v_n = 1000, v_small = 3, v_one = 1;
static volatile long long v_big = 1LL << 40;

/* One loop shape under one schedule: run sequentially (marking expect[]), then as an
 * orphaned-free `omp for` inside a parallel region (counting hits[]), then compare. */
#define SHAPE(SCHED, TYPE, INIT, COND, INCR, IDX)                                     \
    do {                                                                              \
        reset("schedule" #SCHED " for (" #TYPE " v = " #INIT "; " #COND "; " #INCR ")"); \
        for (TYPE v = INIT; COND; INCR)                                               \
            mark(IDX);                                                                \
        PRAGMA(omp parallel) {                                                        \
            PRAGMA(omp for schedule SCHED)                                            \
            for (TYPE v = INIT; COND; INCR)                                           \
                hit(IDX);                                                             \
        }                                                                             \
        verify();                                                                     \
    } while (0)

#define ULL_TOP (1ULL << 63)

/* Every loop shape under schedule SCHED. */
#define ALL_SHAPES(SCHED)                                                                        \
    do {                                                                                         \
        int n = v_n, z = v_zero, sm = v_small, one = v_one;                                      \
        long long big = v_big;                                                                   \
        unsigned long long un = (unsigned long long)n;                                           \
        /* signed int, up, unit step */                                                          \
        SHAPE(SCHED, int, z, v < n, v++, v);                                                     \
        /* signed int, up by 3 from a negative start (crosses zero) */                           \
        SHAPE(SCHED, int, -50, v < 2 * n, v += 3, (v + 50) / 3);                                 \
        /* signed int, down, unit step */                                                        \
        SHAPE(SCHED, int, n - 1, v >= z, v--, v);                                                \
        /* signed int, down by 7 across zero */                                                  \
        SHAPE(SCHED, int, n, v > -n, v -= 7, (n - v) / 7);                                       \
        /* long beyond the int range */                                                          \
        SHAPE(SCHED, long, big, v < big + n, v++, v - big);                                      \
        /* fewer iterations than threads */                                                      \
        SHAPE(SCHED, int, z, v < sm, v++, v);                                                    \
        SHAPE(SCHED, int, z, v < one, v++, v);                                                   \
        /* empty loops: no iteration may run */                                                  \
        SHAPE(SCHED, int, n, v < n, v++, 0);                                                     \
        SHAPE(SCHED, int, z, v > n, v--, 0);                                                     \
        /* unsigned long long (GOMP_loop_ull_*): up, up by 3, down by 5 from the top */          \
        SHAPE(SCHED, unsigned long long, 0, v < un, v++, (long)v);                               \
        SHAPE(SCHED, unsigned long long, 10, v <= 3 * un, v += 3, (long)((v - 10) / 3));         \
        SHAPE(SCHED, unsigned long long, ULLONG_MAX, v > ULLONG_MAX - 5 * un, v -= 5,            \
              (long)((ULLONG_MAX - v) / 5));                                                     \
        /* unsigned long long starting above 2^63 (not representable as a signed long) */       \
        SHAPE(SCHED, unsigned long long, ULL_TOP + 5, v < ULL_TOP + 5 + 3 * un, v += 3,          \
              (long)((v - ULL_TOP - 5) / 3));                                                    \
        SHAPE(SCHED, unsigned long long, ULL_TOP - 500, v < ULL_TOP + 500, v++,                  \
              (long)(v - (ULL_TOP - 500)));                                                      \
        /* unsigned long long, empty */                                                          \
        SHAPE(SCHED, unsigned long long, ULL_TOP + un, v < ULL_TOP, v++, 0);                     \
    } while (0)

/* Several loops in a row with nowait: threads run ahead into later loops while others are
 * still in earlier ones (the runtime must keep each construct's iteration space apart). */
static int chain[6][MAXN];
static void nowait_chain(void) {
    what = "nowait chain";
    memset(chain, 0, sizeof chain);
    int n = v_n;
#pragma omp parallel
    {
#pragma omp for schedule(dynamic, 3) nowait
        for (int i = 0; i < n; i++)
            __atomic_fetch_add(&chain[0][i], 1, __ATOMIC_RELAXED);
#pragma omp for schedule(guided, 5) nowait
        for (int i = 0; i < n; i++)
            __atomic_fetch_add(&chain[1][i], 1, __ATOMIC_RELAXED);
#pragma omp for schedule(runtime) nowait
        for (int i = 0; i < n; i++)
            __atomic_fetch_add(&chain[2][i], 1, __ATOMIC_RELAXED);
#pragma omp for schedule(dynamic, 1) nowait
        for (unsigned long long u = 0; u < (unsigned long long)n; u++)
            __atomic_fetch_add(&chain[3][u], 1, __ATOMIC_RELAXED);
#pragma omp for schedule(static, 7) nowait
        for (int i = 0; i < n; i++)
            __atomic_fetch_add(&chain[4][i], 1, __ATOMIC_RELAXED);
        /* A loop with the implicit barrier: after it, all of chain[5] is done. */
#pragma omp for schedule(dynamic, 64)
        for (int i = 0; i < n; i++)
            __atomic_fetch_add(&chain[5][i], 1, __ATOMIC_RELAXED);
        /* Proves the implicit barrier at the end of a loop without nowait. */
        for (int i = 0; i < n; i++)
            if (__atomic_load_n(&chain[5][i], __ATOMIC_RELAXED) != 1)
                FAIL("after a loop's implicit barrier, iteration %d is not done", i);
    }
    for (int l = 0; l < 6; l++)
        for (int i = 0; i < n; i++)
            CHECK(chain[l][i] == 1, "nowait loop %d: iteration %d ran %d times", l, i, chain[l][i]);
}

/* collapse(2): the runtime sees one flat iteration space of 37*23 (and 5*3*11 for three). */
#define COLLAPSE2(SCHED)                                                                  \
    do {                                                                                  \
        reset("collapse(2) schedule" #SCHED);                                             \
        int a = v_n / 27, b = v_n / 43; /* 37, 23 */                                      \
        for (int i = 0; i < a; i++)                                                       \
            for (int j = 0; j < b; j++)                                                   \
                mark(i * b + j);                                                          \
        PRAGMA(omp parallel for collapse(2) schedule SCHED)                               \
        for (int i = 0; i < a; i++)                                                       \
            for (int j = 0; j < b; j++)                                                   \
                hit(i * b + j);                                                           \
        verify();                                                                         \
    } while (0)

/* Combined `parallel for`: with compile-time bounds GCC emits GOMP_parallel_loop_* (the
 * team starts with the loop already set up); the ull form has no combined entry. */
#define COMBINED(SCHED)                                                                   \
    do {                                                                                  \
        reset("parallel for schedule" #SCHED);                                            \
        for (int i = 3; i < 3000; i += 5)                                                 \
            mark(i / 5);                                                                  \
        PRAGMA(omp parallel for schedule SCHED)                                           \
        for (int i = 3; i < 3000; i += 5)                                                 \
            hit(i / 5);                                                                   \
        verify();                                                                         \
        reset("parallel for, down, schedule" #SCHED);                                     \
        for (long i = 1000; i > -3000; i -= 7)                                            \
            mark((1000 - i) / 7);                                                         \
        PRAGMA(omp parallel for schedule SCHED)                                           \
        for (long i = 1000; i > -3000; i -= 7)                                            \
            hit((1000 - i) / 7);                                                          \
        verify();                                                                         \
        reset("parallel for ull schedule" #SCHED);                                        \
        for (unsigned long long u = ULL_TOP; u < ULL_TOP + 1000; u++)                     \
            mark((long)(u - ULL_TOP));                                                    \
        PRAGMA(omp parallel for schedule SCHED)                                           \
        for (unsigned long long u = ULL_TOP; u < ULL_TOP + 1000; u++)                     \
            hit((long)(u - ULL_TOP));                                                     \
        verify();                                                                         \
    } while (0)

/* An orphaned loop: its parallel region is in the caller, or there is none at all (then
 * the loop binds to a team of one and must still run every iteration). */
static void orphan(int n) {
#pragma omp for schedule(runtime)
    for (int i = 0; i < n; i++)
        hit(i);
#pragma omp for schedule(dynamic, 2)
    for (unsigned long long u = 0; u < (unsigned long long)n; u++)
        hit((long)u + n);
}
static void orphaned(void) {
    int n = v_n;
    reset("orphaned loops inside a region");
    for (int i = 0; i < 2 * n; i++)
        mark(i);
#pragma omp parallel
    orphan(n);
    verify();
    reset("orphaned loops outside any region");
    for (int i = 0; i < 2 * n; i++)
        mark(i);
    orphan(n);
    verify();
}

/* lastprivate: the value from the sequentially last iteration, and the loop variable's
 * value after the loop (the first value failing the condition). */
#define LASTPRIVATE(SCHED)                                                                \
    do {                                                                                  \
        what = "lastprivate schedule" #SCHED;                                             \
        int n = v_n, i, x = -1;                                                           \
        long y = -1;                                                                      \
        PRAGMA(omp parallel for lastprivate(i, x) schedule SCHED)                         \
        for (i = 0; i < n; i += 7)                                                        \
            x = 2 * i + 1;                                                                \
        CHECK(i == 1001 && x == 2 * 994 + 1, "i = %d (want 1001), x = %d (want %d)", i, x, \
              2 * 994 + 1);                                                               \
        unsigned long long u;                                                             \
        PRAGMA(omp parallel for lastprivate(u, y) schedule SCHED)                         \
        for (u = ULL_TOP + 10; u > ULL_TOP - (unsigned long long)n; u -= 3)               \
            y = (long)(u - ULL_TOP);                                                      \
        CHECK(u == ULL_TOP - 1001 && y == -998, "ull: u = top%+lld (want top-1001), y = %ld " \
              "(want -998)", (long long)(u - ULL_TOP), y);                                 \
    } while (0)

/* Reductions of seven variables at once; every operator's exact result is computed
 * sequentially (the product uses only powers of two, exact in any order). */
static unsigned long mix(unsigned long x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdUL;
    x ^= x >> 29;
    return x;
}
static double factor(long i) { return i % 17 == 0 ? 2.0 : i % 19 == 0 ? 0.5 : 1.0; }

struct red {
    long sum;
    double prod;
    long mx, mn;
    unsigned long band, bor, bxor;
};
static struct red reduce_seq(int n) {
    struct red r = {0, 1.0, LONG_MIN, LONG_MAX, ~0UL, 0, 0};
    for (long i = 0; i < n; i++) {
        unsigned long m = mix((unsigned long)i + 1);
        r.sum += (long)(m >> 20) - 7 * i;
        r.prod *= factor(i);
        long s = (long)(m >> 3) - (long)(1UL << 59);
        r.mx = s > r.mx ? s : r.mx;
        r.mn = s < r.mn ? s : r.mn;
        r.band &= m | (1UL << (i % 64)) | 0x0f0f0f0f0f0f0f0fUL;
        r.bor |= m & 0x00ff00ff00ff00ffUL;
        r.bxor ^= m;
    }
    return r;
}
static void red_check(struct red got, struct red want) {
    CHECK(got.sum == want.sum, "+: %ld, want %ld", got.sum, want.sum);
    CHECK(got.prod == want.prod, "*: %a, want %a", got.prod, want.prod);
    CHECK(got.mx == want.mx, "max: %ld, want %ld", got.mx, want.mx);
    CHECK(got.mn == want.mn, "min: %ld, want %ld", got.mn, want.mn);
    CHECK(got.band == want.band, "&: %#lx, want %#lx", got.band, want.band);
    CHECK(got.bor == want.bor, "|: %#lx, want %#lx", got.bor, want.bor);
    CHECK(got.bxor == want.bxor, "^: %#lx, want %#lx", got.bxor, want.bxor);
}
#define REDUCTION_BODY                                                                    \
    {                                                                                     \
        unsigned long m = mix((unsigned long)i + 1);                                      \
        sum += (long)(m >> 20) - 7 * i;                                                   \
        prod *= factor(i);                                                                \
        long s = (long)(m >> 3) - (long)(1UL << 59);                                      \
        mx = s > mx ? s : mx;                                                             \
        mn = s < mn ? s : mn;                                                             \
        band &= m | (1UL << (i % 64)) | 0x0f0f0f0f0f0f0f0fUL;                             \
        bor |= m & 0x00ff00ff00ff00ffUL;                                                  \
        bxor ^= m;                                                                        \
    }
#define REDUCTIONS(SCHED)                                                                 \
    do {                                                                                  \
        what = "reduction schedule" #SCHED;                                               \
        int n = 5 * v_n;                                                                  \
        long sum = 0, mx = LONG_MIN, mn = LONG_MAX;                                       \
        double prod = 1.0;                                                                \
        unsigned long band = ~0UL, bor = 0, bxor = 0;                                     \
        /* inside a region, as `omp for` */                                               \
        PRAGMA(omp parallel)                                                              \
        {                                                                                 \
            PRAGMA(omp for schedule SCHED reduction(+ : sum) reduction(* : prod)          \
                   reduction(max : mx) reduction(min : mn) reduction(& : band)            \
                   reduction(| : bor) reduction(^ : bxor))                                \
            for (long i = 0; i < n; i++)                                                  \
                REDUCTION_BODY                                                            \
        }                                                                                 \
        red_check((struct red){sum, prod, mx, mn, band, bor, bxor}, reduce_seq(n));       \
        /* combined, with the original values not the identities (they take part) */      \
        sum = 5, prod = 4.0, mx = LONG_MIN, mn = LONG_MAX, band = ~0UL, bor = 0, bxor = 0; \
        PRAGMA(omp parallel for schedule SCHED reduction(+ : sum) reduction(* : prod)     \
               reduction(max : mx) reduction(min : mn) reduction(& : band)                \
               reduction(| : bor) reduction(^ : bxor))                                    \
        for (long i = 0; i < n; i++)                                                      \
            REDUCTION_BODY                                                                \
        struct red want = reduce_seq(n);                                                  \
        want.sum += 5;                                                                    \
        want.prod *= 4.0;                                                                 \
        red_check((struct red){sum, prod, mx, mn, band, bor, bxor}, want);                \
    } while (0)

/* omp_set_schedule changes what schedule(runtime) does, and omp_get_schedule reports it. */
static void set_schedule(void) {
    static const omp_sched_t kinds[] = {omp_sched_static, omp_sched_dynamic, omp_sched_guided,
                                        omp_sched_auto};
    static const int chunks[] = {1, 3, 64};
    for (unsigned k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (unsigned c = 0; c < 3; c++) {
            omp_set_schedule(kinds[k], chunks[c]);
            omp_sched_t got;
            int chunk;
            omp_get_schedule(&got, &chunk);
            what = "omp_set_schedule";
            CHECK(((unsigned)got & ~(unsigned)omp_sched_monotonic) == (unsigned)kinds[k],
                  "omp_get_schedule kind %#x after omp_set_schedule(%d, %d)", (unsigned)got,
                  (int)kinds[k], chunks[c]);
            CHECK(kinds[k] == omp_sched_auto || chunk == chunks[c],
                  "omp_get_schedule chunk %d after omp_set_schedule(%d, %d)", chunk,
                  (int)kinds[k], chunks[c]);
            ALL_SHAPES((runtime));
        }
}

int main(void) {
    const char *env_sched = getenv("OMP_SCHEDULE");

    /* Every loop shape under every schedule of the brief. */
    ALL_SHAPES((runtime));
    ALL_SHAPES((static));
    ALL_SHAPES((auto));
    ALL_SHAPES((static, 1));
    ALL_SHAPES((static, 3));
    ALL_SHAPES((static, 64));
    ALL_SHAPES((dynamic, 1));
    ALL_SHAPES((dynamic, 3));
    ALL_SHAPES((dynamic, 64));
    ALL_SHAPES((guided, 1));
    ALL_SHAPES((guided, 3));
    ALL_SHAPES((guided, 64));
    ALL_SHAPES((nonmonotonic : dynamic, 1));
    ALL_SHAPES((nonmonotonic : dynamic, 3));
    ALL_SHAPES((nonmonotonic : dynamic, 64));
    ALL_SHAPES((monotonic : dynamic, 1));
    ALL_SHAPES((monotonic : dynamic, 3));
    ALL_SHAPES((monotonic : dynamic, 64));
    ALL_SHAPES((nonmonotonic : guided, 3));
    ALL_SHAPES((monotonic : static, 3));

    nowait_chain();
    orphaned();

    COLLAPSE2((runtime));
    COLLAPSE2((static));
    COLLAPSE2((dynamic, 3));
    COLLAPSE2((guided, 2));

    COMBINED((runtime));
    COMBINED((static));
    COMBINED((dynamic, 4));
    COMBINED((guided));
    COMBINED((nonmonotonic : dynamic, 5));
    COMBINED((monotonic : dynamic, 2));
    COMBINED((monotonic : guided, 3));
    COMBINED((monotonic : runtime));

    LASTPRIVATE((runtime));
    LASTPRIVATE((static));
    LASTPRIVATE((static, 3));
    LASTPRIVATE((dynamic, 3));
    LASTPRIVATE((guided, 64));

    REDUCTIONS((runtime));
    REDUCTIONS((static));
    REDUCTIONS((static, 1));
    REDUCTIONS((dynamic, 3));
    REDUCTIONS((guided));

    /* Last: it overrides OMP_SCHEDULE for the rest of the program. */
    set_schedule();

    printf("loops: OK: %ld checks, %d threads, OMP_SCHEDULE=%s\n", checks, omp_get_max_threads(),
           env_sched ? env_sched : "(unset)");
    return 0;
}
