/* Synchronization and team constructs: critical (unnamed, named), atomic (lock-free and
 * GOMP_atomic_start/end), omp_lock_t / omp_nest_lock_t, barriers, single (+ copyprivate,
 * nowait), master/masked, ordered, sections, team queries (thread numbers, levels,
 * omp_in_parallel), num_threads / if clauses, nested regions, omp_set_num_threads,
 * threadprivate, omp_get_wtime and cancellation.
 *
 * The team size comes from OMP_NUM_THREADS. Mutual exclusion is checked with a
 * non-atomic read-modify-write of a shared counter with work between the read and the
 * write: without exclusion, updates get lost. Exits 1 with a message on the first failure. */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "sync"
#include "check.h"

#define MAXT 64
#define REPS 2000

static int nthreads; /* the team size OMP_NUM_THREADS asks for */

/* Work between the read and the write (spin) widens the race window. */
static volatile long counter_a, counter_b, counter_c;
static void racy_inc(volatile long *c) {
    long v = *c;
    spin(30);
    *c = v + 1;
}

/* critical, named criticals (two names: two different locks, so nesting one inside the
 * other is legal and must not deadlock), unnamed critical nested in a named one. */
static void criticals(void) {
    what = "critical";
    counter_a = counter_b = counter_c = 0;
#pragma omp parallel
    for (int r = 0; r < REPS; r++) {
#pragma omp critical
        racy_inc(&counter_a);
#pragma omp critical(alpha)
        {
            racy_inc(&counter_b);
#pragma omp critical(beta)
            racy_inc(&counter_c);
        }
#pragma omp critical(beta)
        {
            racy_inc(&counter_c);
#pragma omp critical
            racy_inc(&counter_a);
        }
    }
    long want = (long)nthreads * REPS;
    CHECK(counter_a == 2 * want, "unnamed critical: counter %ld, want %ld", counter_a, 2 * want);
    CHECK(counter_b == want, "critical(alpha): counter %ld, want %ld", counter_b, want);
    CHECK(counter_c == 2 * want, "critical(beta): counter %ld, want %ld", counter_c, 2 * want);
}

/* atomic: lock-free types, a CAS-loop double, long double (GCC calls GOMP_atomic_start/end
 * for it: one global lock) and atomic capture handing out unique tickets. */
static long double ld_sum;
static __int128 i128_sum;
static void atomics(void) {
    what = "atomic";
    long l = 0, tickets_next = 0;
    double d = 0;
    ld_sum = 0;
    i128_sum = 0;
    static unsigned char taken[MAXT * REPS];
    memset(taken, 0, sizeof taken);
#pragma omp parallel
    for (int r = 0; r < REPS; r++) {
#pragma omp atomic
        l += 3;
#pragma omp atomic update
        d += 0.5;
#pragma omp atomic
        ld_sum += 1.0L;
#pragma omp atomic
        i128_sum += 7;
        long t;
#pragma omp atomic capture
        t = tickets_next++;
        if (t < 0 || t >= (long)sizeof taken)
            FAIL("atomic capture: ticket %ld out of range", t);
        taken[t]++;
    }
    long n = (long)nthreads * REPS;
    CHECK(l == 3 * n, "atomic long: %ld, want %ld", l, 3 * n);
    CHECK(d == 0.5 * (double)n, "atomic double: %g, want %g", d, 0.5 * (double)n);
    CHECK(ld_sum == (long double)n, "atomic long double: %Lg, want %ld", ld_sum, n);
    CHECK(i128_sum == (__int128)7 * n, "atomic __int128: %lld, want %ld", (long long)i128_sum, 7 * n);
    CHECK(tickets_next == n, "atomic capture: next ticket %ld, want %ld", tickets_next, n);
    for (long t = 0; t < n; t++)
        CHECK(taken[t] == 1, "atomic capture: ticket %ld handed out %d times", t, taken[t]);
}

/* omp_lock_t and omp_nest_lock_t: exclusion, recursive acquisition, and the return values
 * of omp_test_lock / omp_test_nest_lock (0 while another thread holds the lock). */
static void locks(void) {
    what = "locks";
    omp_lock_t lk, lk2;
    omp_nest_lock_t nl;
    omp_init_lock(&lk);
    omp_init_lock(&lk2);
    omp_init_nest_lock(&nl);
    counter_a = counter_b = counter_c = 0;

    /* Free locks: test succeeds (1 for a simple lock, the nesting count for a nest lock). */
    CHECK(omp_test_lock(&lk) == 1, "omp_test_lock on a free lock did not return 1");
    omp_unset_lock(&lk);
    CHECK(omp_test_nest_lock(&nl) == 1, "omp_test_nest_lock on a free lock did not return 1");
    CHECK(omp_test_nest_lock(&nl) == 2, "omp_test_nest_lock by the owner did not return 2");
    omp_unset_nest_lock(&nl);
    omp_unset_nest_lock(&nl);

#pragma omp parallel
    {
        for (int r = 0; r < REPS; r++) {
            omp_set_lock(&lk);
            racy_inc(&counter_a);
            omp_unset_lock(&lk);
            omp_set_lock(&lk2);
            racy_inc(&counter_c);
            omp_unset_lock(&lk2);
            /* Recursive acquisition: 3 levels, test_nest_lock returns the new depth. */
            omp_set_nest_lock(&nl);
            omp_set_nest_lock(&nl);
            racy_inc(&counter_b);
            int depth = omp_test_nest_lock(&nl);
            if (depth != 3)
                FAIL("omp_test_nest_lock by the owner at depth 2 returned %d, want 3", depth);
            racy_inc(&counter_b);
            omp_unset_nest_lock(&nl);
            omp_unset_nest_lock(&nl);
            omp_unset_nest_lock(&nl);
            /* omp_test_lock until it succeeds: counts as acquisition. */
            while (!omp_test_lock(&lk))
                ;
            racy_inc(&counter_a);
            omp_unset_lock(&lk);
        }
        /* Thread 0 holds both locks; every other thread's tests must fail meanwhile. */
#pragma omp barrier
        if (omp_get_thread_num() == 0) {
            omp_set_lock(&lk);
            omp_set_nest_lock(&nl);
        }
#pragma omp barrier
        if (omp_get_thread_num() != 0) {
            if (omp_test_lock(&lk) != 0)
                FAIL("omp_test_lock succeeded on a lock held by thread 0");
            if (omp_test_nest_lock(&nl) != 0)
                FAIL("omp_test_nest_lock succeeded on a nest lock held by thread 0");
        }
#pragma omp barrier
        if (omp_get_thread_num() == 0) {
            omp_unset_lock(&lk);
            omp_unset_nest_lock(&nl);
        }
    }
    long want = 2L * nthreads * REPS;
    CHECK(counter_a == want, "omp_lock_t: counter %ld, want %ld", counter_a, want);
    CHECK(counter_b == want, "omp_nest_lock_t: counter %ld, want %ld", counter_b, want);
    CHECK(counter_c == want / 2, "second omp_lock_t: counter %ld, want %ld", counter_c, want / 2);
    omp_destroy_lock(&lk);
    omp_destroy_lock(&lk2);
    omp_destroy_nest_lock(&nl);
}

/* Barriers: in each phase every thread records the phase it finished. Before a barrier no
 * thread can be more than one phase ahead; after it, every thread finished this phase. The
 * implicit barriers of `for` and `single` (without nowait) are checked the same way. */
#define PHASES 200
static int done_phase[MAXT];
static int loop_done[4096];
static void barriers(void) {
    what = "barrier";
    memset(done_phase, 0xff, sizeof done_phase); /* -1 */
#pragma omp parallel
    {
        int me = omp_get_thread_num(), n = omp_get_num_threads();
        for (int p = 0; p < PHASES; p++) {
            if (p % 7 == me % 7)
                spin(2000); /* some threads arrive late */
            __atomic_store_n(&done_phase[me], p, __ATOMIC_RELEASE);
            for (int u = 0; u < n; u++) {
                int q = __atomic_load_n(&done_phase[u], __ATOMIC_ACQUIRE);
                if (q != p && q != p - 1)
                    FAIL("before barrier %d: thread %d is at phase %d", p, u, q);
            }
#pragma omp barrier
            for (int u = 0; u < n; u++) {
                int q = __atomic_load_n(&done_phase[u], __ATOMIC_ACQUIRE);
                if (q != p && q != p + 1)
                    FAIL("after barrier %d: thread %d is at phase %d", p, u, q);
            }
        }
        /* Implicit barrier of a loop. */
        for (int r = 0; r < 20; r++) {
#pragma omp for schedule(dynamic, 1)
            for (int i = 0; i < 4096; i++)
                __atomic_store_n(&loop_done[i], r + 1, __ATOMIC_RELAXED);
            for (int i = 0; i < 4096; i++)
                if (__atomic_load_n(&loop_done[i], __ATOMIC_RELAXED) < r + 1)
                    FAIL("after a loop's implicit barrier (round %d), iteration %d not done", r, i);
#pragma omp barrier
        }
    }
}

/* single: once per encounter (with and without nowait, many in a row); copyprivate hands
 * the single thread's values to every thread. */
#define SINGLES 500
static int single_count[SINGLES], single_nw_count[SINGLES];
static void singles(void) {
    what = "single";
    memset(single_count, 0, sizeof single_count);
    memset(single_nw_count, 0, sizeof single_nw_count);
    static int published[SINGLES];
    memset(published, 0, sizeof published);
#pragma omp parallel
    {
        for (int e = 0; e < SINGLES; e++) {
#pragma omp single nowait
            __atomic_fetch_add(&single_nw_count[e], 1, __ATOMIC_RELAXED);
        }
        for (int e = 0; e < SINGLES; e++) {
#pragma omp single
            {
                __atomic_fetch_add(&single_count[e], 1, __ATOMIC_RELAXED);
                __atomic_store_n(&published[e], 1, __ATOMIC_RELAXED);
            }
            /* Implicit barrier at the end of single: everyone sees its write. */
            if (__atomic_load_n(&published[e], __ATOMIC_RELAXED) != 1)
                FAIL("after single %d (implicit barrier) its write is not visible", e);
        }
        for (int e = 0; e < 100; e++) {
            int v;
            struct {
                long a;
                double b;
                char s[40];
            } big;
#pragma omp single copyprivate(v, big)
            {
                v = 1000 + e * omp_get_num_threads() + omp_get_thread_num();
                big.a = -e;
                big.b = e * 0.25;
                snprintf(big.s, sizeof big.s, "single %d", e);
            }
            char want[40];
            snprintf(want, sizeof want, "single %d", e);
            int base = 1000 + e * omp_get_num_threads();
            if (v < base || v >= base + omp_get_num_threads() || big.a != -e ||
                big.b != e * 0.25 || strcmp(big.s, want) != 0)
                FAIL("copyprivate %d: got v=%d a=%ld b=%g s='%s'", e, v, big.a, big.b, big.s);
        }
    }
    for (int e = 0; e < SINGLES; e++) {
        CHECK(single_count[e] == 1, "single %d ran %d times", e, single_count[e]);
        CHECK(single_nw_count[e] == 1, "single nowait %d ran %d times", e, single_nw_count[e]);
    }
}

/* master and masked run on thread 0 (masked filter(1) on thread 1), once per encounter. */
static void masters(void) {
    what = "master/masked";
    int m = 0, k = 0, f = 0;
#pragma omp parallel
    for (int e = 0; e < 100; e++) {
#pragma omp master
        {
            if (omp_get_thread_num() != 0)
                FAIL("master ran on thread %d", omp_get_thread_num());
            m++;
        }
#pragma omp masked
        {
            if (omp_get_thread_num() != 0)
                FAIL("masked ran on thread %d", omp_get_thread_num());
            k++;
        }
#pragma omp masked filter(1)
        {
            if (omp_get_thread_num() != 1)
                FAIL("masked filter(1) ran on thread %d", omp_get_thread_num());
#pragma omp atomic
            f++;
        }
    }
    CHECK(m == 100 && k == 100, "master ran %d times, masked %d, want 100", m, k);
    CHECK(f == (nthreads > 1 ? 100 : 0), "masked filter(1) ran %d times", f);
}

/* ordered: the ordered blocks run in iteration order, whatever the schedule. */
#define ORDN 1000
static int olog[ORDN], opos;
static void ordered_check(const char *label) {
    what = label;
    CHECK(opos == ORDN, "%d ordered blocks ran, want %d", opos, ORDN);
    for (int i = 0; i < ORDN; i++)
        CHECK(olog[i] == i, "ordered log[%d] = %d", i, olog[i]);
}
#define ORDERED(SCHED)                                                                    \
    do {                                                                                  \
        opos = 0;                                                                         \
        PRAGMA(omp parallel for ordered schedule SCHED)                                   \
        for (int i = 0; i < ORDN; i++) {                                                  \
            spin((i * 7919) % 300); /* uneven work: later iterations may arrive first */ \
            PRAGMA(omp ordered)                                                           \
            olog[opos++] = i;                                                             \
        }                                                                                 \
        ordered_check("ordered schedule" #SCHED);                                         \
        opos = 0;                                                                         \
        PRAGMA(omp parallel for ordered schedule SCHED)                                   \
        for (unsigned long long u = 1ULL << 63; u < (1ULL << 63) + ORDN; u++) {           \
            PRAGMA(omp ordered)                                                           \
            olog[opos++] = (int)(u - (1ULL << 63));                                       \
        }                                                                                 \
        ordered_check("ordered ull schedule" #SCHED);                                     \
    } while (0)
/* Each kind, then schedule(runtime) (OMP_SCHEDULE's). */
static void ordereds(void) {
    ORDERED((static));
    ORDERED((static, 1));
    ORDERED((dynamic, 1));
    ORDERED((dynamic, 7));
    ORDERED((guided, 3));
    ORDERED((runtime));
}

/* sections: each section once per construct; combined parallel sections too. */
static int sec_count[50][4];
static void sections(void) {
    what = "sections";
    memset(sec_count, 0, sizeof sec_count);
#pragma omp parallel
    for (int r = 0; r < 50; r++) {
#pragma omp sections
        {
#pragma omp section
            __atomic_fetch_add(&sec_count[r][0], 1, __ATOMIC_RELAXED);
#pragma omp section
            __atomic_fetch_add(&sec_count[r][1], 1, __ATOMIC_RELAXED);
#pragma omp section
            __atomic_fetch_add(&sec_count[r][2], 1, __ATOMIC_RELAXED);
        }
        /* Implicit barrier: all three are done. */
        for (int s = 0; s < 3; s++)
            if (__atomic_load_n(&sec_count[r][s], __ATOMIC_RELAXED) != 1)
                FAIL("after sections %d (implicit barrier) section %d ran %d times", r, s,
                     sec_count[r][s]);
#pragma omp sections nowait
        {
#pragma omp section
            __atomic_fetch_add(&sec_count[r][3], 1, __ATOMIC_RELAXED);
#pragma omp section
            __atomic_fetch_add(&sec_count[r][3], 10, __ATOMIC_RELAXED);
        }
    }
    for (int r = 0; r < 50; r++)
        CHECK(sec_count[r][3] == 11, "sections nowait %d: sum %d, want 11", r, sec_count[r][3]);
    int c[5] = {0};
#pragma omp parallel sections
    {
#pragma omp section
        c[0]++;
#pragma omp section
        c[1]++;
#pragma omp section
        c[2]++;
#pragma omp section
        c[3]++;
#pragma omp section
        c[4]++;
    }
    for (int s = 0; s < 5; s++)
        CHECK(c[s] == 1, "parallel sections: section %d ran %d times", s, c[s]);
}

/* Team queries: thread numbers distinct in 0..n-1 on distinct OS threads, team size,
 * omp_in_parallel, levels; num_threads and if clauses; omp_set_num_threads. */
static void team_check(int want, int level, const char *label) {
    int seen[MAXT] = {0};
    pthread_t self[MAXT];
    int size = -1;
    what = label;
#pragma omp parallel shared(seen, self, size)
    {
        int me = omp_get_thread_num(), n = omp_get_num_threads();
        if (me < 0 || me >= n || n > MAXT)
            FAIL("thread number %d of %d", me, n);
        __atomic_fetch_add(&seen[me], 1, __ATOMIC_RELAXED);
        self[me] = pthread_self();
#pragma omp single
        size = n;
        if (n != size)
            FAIL("omp_get_num_threads differs between threads: %d vs %d", n, size);
        if (omp_in_parallel() != (n > 1))
            FAIL("omp_in_parallel() = %d in a team of %d", omp_in_parallel(), n);
        if (omp_get_level() != level)
            FAIL("omp_get_level() = %d, want %d", omp_get_level(), level);
        if (omp_get_team_size(level) != n || omp_get_ancestor_thread_num(level) != me)
            FAIL("omp_get_team_size/ancestor_thread_num(%d) = %d/%d, want %d/%d", level,
                 omp_get_team_size(level), omp_get_ancestor_thread_num(level), n, me);
    }
    CHECK(size == want, "team of %d threads, want %d", size, want);
    for (int t = 0; t < size; t++) {
        CHECK(seen[t] == 1, "thread number %d seen %d times", t, seen[t]);
        for (int u = 0; u < t; u++)
            CHECK(!pthread_equal(self[t], self[u]), "threads %d and %d are one OS thread", u, t);
    }
}
static void teams(void) {
    what = "outside";
    CHECK(omp_in_parallel() == 0 && omp_get_level() == 0 && omp_get_thread_num() == 0 &&
              omp_get_num_threads() == 1,
          "outside a region: in_parallel %d, level %d, thread %d, threads %d",
          omp_in_parallel(), omp_get_level(), omp_get_thread_num(), omp_get_num_threads());
    CHECK(omp_get_max_threads() == nthreads, "omp_get_max_threads %d, OMP_NUM_THREADS %d",
          omp_get_max_threads(), nthreads);
    CHECK(omp_get_num_procs() >= 1, "omp_get_num_procs %d", omp_get_num_procs());
    team_check(nthreads, 1, "team of OMP_NUM_THREADS");
    int n3 = -1, n1 = -1, in1 = -1, lvl = -1;
#pragma omp parallel num_threads(3)
    {
#pragma omp single
        n3 = omp_get_num_threads();
    }
    what = "num_threads";
    /* With dyn-var false the team has the requested size, unless that exceeds the thread
     * limit (whose default, OMP_THREAD_LIMIT unset, is implementation-defined: libgomp's is
     * INT_MAX, a runtime may choose OMP_NUM_THREADS); then it has at most the limit. */
    int three = omp_get_thread_limit() < 3 ? omp_get_thread_limit() : 3;
    CHECK(n3 == three, "num_threads(3): team of %d, want %d (omp_get_thread_limit() = %d)", n3,
          three, omp_get_thread_limit());
#pragma omp parallel num_threads(1)
    n1 = omp_get_num_threads();
    CHECK(n1 == 1, "num_threads(1): team of %d", n1);
    volatile int zero = 0;
#pragma omp parallel if (zero)
    {
        n1 = omp_get_num_threads();
        in1 = omp_in_parallel();
        lvl = omp_get_level();
    }
    what = "if(0)";
    CHECK(n1 == 1 && in1 == 0 && lvl == 1, "if(0): team %d, in_parallel %d, level %d", n1, in1, lvl);
    omp_set_num_threads(3);
    team_check(three, 1, "omp_set_num_threads(3)");
    omp_set_num_threads(nthreads);
    team_check(nthreads, 1, "omp_set_num_threads(OMP_NUM_THREADS)");
}

/* Nested regions: hold whether the inner one is serialized or not. */
static void nested(void) {
    what = "nested";
    static int inner_hits[4][1000];
    memset(inner_hits, 0, sizeof inner_hits);
    int outers = 0; /* 2, or fewer under a thread limit below 2 */
#pragma omp parallel num_threads(2)
    {
        int outer = omp_get_thread_num();
#pragma omp atomic
        outers++;
#pragma omp parallel num_threads(2)
        {
            if (omp_get_level() != 2)
                FAIL("inner omp_get_level() = %d", omp_get_level());
            int me = omp_get_thread_num(), n = omp_get_num_threads();
            if (me < 0 || me >= n || n > 2)
                FAIL("inner thread %d of %d", me, n);
            if (omp_get_ancestor_thread_num(1) != outer || omp_get_ancestor_thread_num(2) != me)
                FAIL("inner ancestor_thread_num(1/2) = %d/%d, want %d/%d",
                     omp_get_ancestor_thread_num(1), omp_get_ancestor_thread_num(2), outer, me);
#pragma omp for schedule(dynamic, 3)
            for (int i = 0; i < 1000; i++)
                __atomic_fetch_add(&inner_hits[outer][i], 1, __ATOMIC_RELAXED);
        }
    }
    CHECK(outers == (omp_get_thread_limit() < 2 ? 1 : 2), "outer team of %d, want 2 (thread limit %d)",
          outers, omp_get_thread_limit());
    for (int o = 0; o < 4; o++)
        for (int i = 0; i < 1000; i++)
            CHECK(inner_hits[o][i] == (o < outers), "outer %d inner iteration %d ran %d times", o, i,
                  inner_hits[o][i]);
}

/* threadprivate: per-thread storage that persists between regions of the same team size
 * (OpenMP guarantees it with dyn-var false and no nesting); copyin copies the master's. */
static int tp = -1;
#pragma omp threadprivate(tp)
static void threadprivates(void) {
    what = "threadprivate";
#pragma omp parallel
    tp = 10 * omp_get_thread_num() + 7;
#pragma omp parallel
    if (tp != 10 * omp_get_thread_num() + 7)
        FAIL("threadprivate value %d did not persist (want %d)", tp, 10 * omp_get_thread_num() + 7);
    tp = 4242;
#pragma omp parallel copyin(tp)
    {
        if (tp != 4242)
            FAIL("copyin: threadprivate %d, want 4242", tp);
        tp = omp_get_thread_num();
    }
    CHECK(tp == 0, "the master's threadprivate after the region: %d, want 0", tp);
}

/* omp_get_wtime never goes backwards; omp_get_wtick is positive. */
static void wtime(void) {
    what = "omp_get_wtime";
    CHECK(omp_get_wtick() > 0, "omp_get_wtick %g", omp_get_wtick());
#pragma omp parallel
    {
        double prev = omp_get_wtime();
        for (int i = 0; i < 10000; i++) {
            double t = omp_get_wtime();
            if (t < prev)
                FAIL("omp_get_wtime went back: %.9f after %.9f", t, prev);
            prev = t;
        }
    }
}

/* Cancellation: with OMP_CANCELLATION unset, cancel is a no-op and every iteration runs;
 * with it set, no iteration runs twice. Either way the program goes on. */
static void cancellation(void) {
    what = "cancel";
    static int ch[2000];
    memset(ch, 0, sizeof ch);
    int on = omp_get_cancellation();
#pragma omp parallel
    {
#pragma omp for schedule(dynamic, 4)
        for (int i = 0; i < 2000; i++) {
            __atomic_fetch_add(&ch[i], 1, __ATOMIC_RELAXED);
            if (i == 500) {
#pragma omp cancel for
            }
#pragma omp cancellation point for
        }
    }
    for (int i = 0; i < 2000; i++)
        CHECK(on ? ch[i] <= 1 : ch[i] == 1, "cancel for (cancellation %d): iteration %d ran %d times",
              on, i, ch[i]);
    int reached = 0;
#pragma omp parallel
    {
        if (omp_get_thread_num() == 0) {
#pragma omp cancel parallel
        }
#pragma omp cancellation point parallel
#pragma omp atomic
        reached++;
    }
    CHECK(on || reached == nthreads, "cancel parallel (off): %d threads went on, want %d", reached,
          nthreads);
}

int main(void) {
    const char *env = getenv("OMP_NUM_THREADS");
    if (!env || atoi(env) < 1 || atoi(env) > MAXT) {
        fprintf(stderr, "sync: FAIL: set OMP_NUM_THREADS to 1..%d\n", MAXT);
        return 1;
    }
    nthreads = atoi(env);
    teams();
    criticals();
    atomics();
    locks();
    barriers();
    singles();
    masters();
    ordereds();
    sections();
    nested();
    threadprivates();
    wtime();
    cancellation();
    printf("sync: OK: %ld checks, %d threads\n", checks, nthreads);
    return 0;
}
