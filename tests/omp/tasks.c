/* Tasks (GOMP_task, GOMP_taskwait, GOMP_taskgroup_*, GOMP_taskloop*, GOMP_taskyield):
 * every task runs exactly once; taskwait, taskgroup and barriers wait for what they must;
 * depend clauses order tasks; if(0) and final tasks run at once; firstprivate data arrives
 * intact and aligned; taskloop covers every iteration once.
 *
 * The team size comes from OMP_NUM_THREADS. Exits 1 with a message on the first failure. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "tasks"
#include "check.h"

static long counter;
static void count(void) { __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED); }
static long load(const long *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static int loadi(const int *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static void storei(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

/* Recursive fib: a task per call; the number of calls is known exactly. */
static long fib_tasks(int n) {
    count();
    if (n < 2)
        return n;
    long a, b;
#pragma omp task shared(a)
    a = fib_tasks(n - 1);
#pragma omp task shared(b)
    b = fib_tasks(n - 2);
#pragma omp taskwait
    return a + b;
}
static long fib_calls(int n) { return n < 2 ? 1 : 1 + fib_calls(n - 1) + fib_calls(n - 2); }
static long fib_seq(int n) { return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2); }
static void fib(void) {
    what = "fib";
    counter = 0;
    long r = -1;
#pragma omp parallel
#pragma omp single
    r = fib_tasks(22);
    CHECK(r == fib_seq(22), "fib(22) = %ld, want %ld", r, fib_seq(22));
    CHECK(counter == fib_calls(22), "%ld calls ran, want %ld", counter, fib_calls(22));
}

/* taskgroup waits for all descendants (grandchildren too); taskwait waits for children
 * (checked: all children done); the region's end barrier completes every task. */
#define KIDS 16
static int child_done[KIDS], grand_done[KIDS][KIDS];
static void waits(void) {
    what = "taskgroup";
    memset(grand_done, 0, sizeof grand_done);
#pragma omp parallel
#pragma omp single
    {
        for (int round = 0; round < 10; round++) {
#pragma omp taskgroup
            {
                for (int i = 0; i < KIDS; i++) {
#pragma omp task firstprivate(i, round)
                    {
                        for (int j = 0; j < KIDS; j++) {
#pragma omp task firstprivate(i, j, round)
                            {
                                spin(500 * (j % 5));
                                storei(&grand_done[i][j], round + 1);
                            }
                        }
                    }
                }
            }
            for (int i = 0; i < KIDS; i++)
                for (int j = 0; j < KIDS; j++)
                    if (loadi(&grand_done[i][j]) != round + 1)
                        FAIL("taskgroup round %d ended before grandchild %d.%d ran", round, i, j);
        }
    }
    what = "taskwait";
    memset(child_done, 0, sizeof child_done);
    memset(grand_done, 0, sizeof grand_done);
#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < KIDS; i++) {
#pragma omp task firstprivate(i)
            {
                for (int j = 0; j < KIDS; j++) {
#pragma omp task firstprivate(i, j)
                    {
                        spin(2000);
                        storei(&grand_done[i][j], 1);
                    }
                }
                spin(1000 * (i % 3));
                storei(&child_done[i], 1);
            }
        }
#pragma omp taskwait
        for (int i = 0; i < KIDS; i++)
            if (!loadi(&child_done[i]))
                FAIL("taskwait returned before child %d finished", i);
    }
    /* The implicit barrier at the region's end completes every task. */
    for (int i = 0; i < KIDS; i++)
        for (int j = 0; j < KIDS; j++)
            CHECK(grand_done[i][j] == 1, "after the region, grandchild %d.%d did not run", i, j);
}

/* depend: out -> several in -> inout -> in on one variable, in ticket order; a chain on
 * array elements; mutexinoutset (mutual exclusion among its tasks, ordered against in). */
static long ticket;
static long take(void) { return __atomic_fetch_add(&ticket, 1, __ATOMIC_ACQ_REL); }
static void depends(void) {
    what = "depend";
#pragma omp parallel
#pragma omp single
    for (int round = 0; round < 50; round++) {
        int x = 0;
        long t_out = -1, t_in[6], t_inout = -1, t_last = -1;
        int seen_in[6], seen_inout = -1, seen_last = -1;
        ticket = 0;
#pragma omp task depend(out : x) shared(x, t_out)
        {
            spin(20000); /* the readers would overtake a writer that runs late */
            t_out = take();
            x = 1;
        }
        for (int k = 0; k < 6; k++) {
#pragma omp task depend(in : x) shared(x, t_in, seen_in) firstprivate(k)
            {
                spin(1000 * k);
                t_in[k] = take();
                seen_in[k] = x;
            }
        }
#pragma omp task depend(inout : x) shared(x, t_inout, seen_inout)
        {
            t_inout = take();
            seen_inout = x;
            x = 2;
        }
#pragma omp task depend(in : x) shared(x, t_last, seen_last)
        {
            t_last = take();
            seen_last = x;
        }
#pragma omp taskwait
        if (t_out != 0)
            FAIL("round %d: the out task took ticket %ld, want 0", round, t_out);
        for (int k = 0; k < 6; k++)
            if (t_in[k] < 1 || t_in[k] > 6 || seen_in[k] != 1)
                FAIL("round %d: in task %d took ticket %ld and saw x=%d", round, k, t_in[k], seen_in[k]);
        if (t_inout != 7 || seen_inout != 1 || t_last != 8 || seen_last != 2)
            FAIL("round %d: inout ticket %ld saw %d, last in ticket %ld saw %d", round, t_inout,
                 seen_inout, t_last, seen_last);

        /* A chain through array elements: task i reads a[i-1], writes a[i]. */
        int a[64];
        memset(a, 0, sizeof a);
        a[0] = 1;
        for (int i = 1; i < 64; i++) {
#pragma omp task depend(in : a[i - 1]) depend(out : a[i]) shared(a) firstprivate(i)
            {
                spin(100 * (64 - i));
                a[i] = a[i - 1] + 1;
            }
        }
        /* Independent elements: no order, but each must run once (summed below). */
        int b[16] = {0};
        for (int i = 0; i < 16; i++) {
#pragma omp task depend(inout : b[i]) shared(b) firstprivate(i)
            b[i] += i;
#pragma omp task depend(inout : b[i]) shared(b) firstprivate(i)
            b[i] *= 3;
        }
        /* mutexinoutset: the two updates exclude each other (racy increments stay exact)
         * and the later `in` task sees both. */
        volatile long m = 0;
        long seen_m = -1;
        for (int k = 0; k < 4; k++) {
#pragma omp task depend(mutexinoutset : m) shared(m)
            for (int r = 0; r < 200; r++) {
                long v = m;
                spin(10);
                m = v + 1;
            }
        }
#pragma omp task depend(in : m) shared(m, seen_m)
        seen_m = m;
#pragma omp taskwait
        for (int i = 0; i < 64; i++)
            if (a[i] != i + 1)
                FAIL("round %d: chain a[%d] = %d, want %d", round, i, a[i], i + 1);
        for (int i = 0; i < 16; i++)
            if (b[i] != 3 * i)
                FAIL("round %d: b[%d] = %d, want %d (inout on an element out of order)", round, i,
                     b[i], 3 * i);
        if (seen_m != 800)
            FAIL("round %d: after 4 mutexinoutset tasks the in task saw %ld, want 800", round, seen_m);
    }
}

/* if(0): undeferred, done before the encountering task goes on. final(1): omp_in_final
 * inside, and its child tasks are included (run at once). mergeable, untied, priority:
 * accepted, each task once. taskyield inside tasks. */
static void clauses(void) {
    what = "if(0)/final/mergeable/untied/priority";
    counter = 0;
    int bad = 0;
#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < 200; i++) {
            int flag = 0;
#pragma omp task if (0) shared(flag)
            {
                spin(100);
                flag = 1;
            }
            if (flag != 1)
                bad = 1;
            int f2 = 0, in_final = -1, child = 0;
#pragma omp task final(1) shared(f2, in_final, child)
            {
                in_final = omp_in_final();
#pragma omp task shared(child)
                {
                    spin(100);
                    child = 1;
                }
                /* included task: already done here, without a taskwait */
                f2 = child;
            }
#pragma omp taskwait
            if (in_final != 1 || f2 != 1)
                FAIL("final(1): omp_in_final() = %d, included child done = %d", in_final, f2);
#pragma omp task mergeable
            count();
#pragma omp task untied
            {
                count();
#pragma omp taskyield
                count();
            }
#pragma omp task priority(i % 4)
            count();
        }
#pragma omp taskwait
    }
    CHECK(!bad, "an if(0) task had not finished when the encountering task went on");
    CHECK(counter == 200 * 4, "%ld counted task bodies, want %d", counter, 200 * 4);
    CHECK(omp_in_final() == 0, "omp_in_final() outside tasks");

    /* taskyield in many tasks at once: all still run exactly once. */
    counter = 0;
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (int i = 0; i < 400; i++) {
#pragma omp task
            {
                for (int k = 0; k < 5; k++) {
#pragma omp taskyield
                }
                count();
            }
        }
        /* The loop's implicit barrier completed every task created in it. */
        if (load(&counter) != 400)
            FAIL("after the loop's barrier %ld of 400 tasks ran", load(&counter));
    }
}

/* firstprivate copies: an over-aligned struct (arg_align), a struct holding an array
 * (arg_size), a variable-length array (GCC passes a copy function, cpyfn). The parent
 * overwrites its own copies right after creating the task: the task must see the values
 * from creation time. */
struct aligned64 {
    double v[20];
} __attribute__((aligned(64)));
struct witharray {
    int id;
    char name[24];
    long data[100];
};
static void firstprivates(void) {
    what = "firstprivate";
    int bad = 0;
#pragma omp parallel
#pragma omp single
    for (int t = 0; t < 300; t++) {
        struct aligned64 al;
        struct witharray wa;
        int n = 10 + t % 50;
        int vla[n];
        for (int i = 0; i < 20; i++)
            al.v[i] = t + i * 0.5;
        wa.id = t;
        snprintf(wa.name, sizeof wa.name, "task %d", t);
        for (int i = 0; i < 100; i++)
            wa.data[i] = (long)t * 1000 + i;
        for (int i = 0; i < n; i++)
            vla[i] = t - i;
        char c = 'x'; /* a small member first, so the aligned one needs padding */
#pragma omp task firstprivate(c, al, wa, vla, n, t) shared(bad)
        {
            int ok = c == 'x' && ((uintptr_t)&al % 64) == 0 && wa.id == t;
            for (int i = 0; i < 20; i++)
                ok = ok && al.v[i] == t + i * 0.5;
            char want[24];
            snprintf(want, sizeof want, "task %d", t);
            ok = ok && strcmp(wa.name, want) == 0;
            for (int i = 0; i < 100; i++)
                ok = ok && wa.data[i] == (long)t * 1000 + i;
            for (int i = 0; i < n; i++)
                ok = ok && vla[i] == t - i;
            if (!ok) {
                fprintf(stderr, "tasks: task %d: &al %% 64 = %lu, id %d, name '%s'\n", t,
                        (unsigned long)((uintptr_t)&al % 64), wa.id, wa.name);
                __atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
            }
        }
        /* The task has its own copies: clobbering ours must not show. */
        memset(&al, 0xee, sizeof al);
        memset(&wa, 0xee, sizeof wa);
        memset(vla, 0xee, sizeof(int) * n);
        c = 'y';
    }
    CHECK(!bad, "a task saw firstprivate data that was misaligned or not its creation-time copy");
}

/* taskloop: every iteration once with grainsize / num_tasks / nogroup, signed, long and
 * unsigned long long iteration variables, non-unit steps. */
#define TLN 5000
static int tl_hits[TLN];
static void tl_reset(const char *label) {
    what = label;
    memset(tl_hits, 0, sizeof tl_hits);
}
static void tl_hit(long k) {
    if (k < 0 || k >= TLN)
        FAIL("taskloop iteration index %ld out of range", k);
    __atomic_fetch_add(&tl_hits[k], 1, __ATOMIC_RELAXED);
}
static void tl_verify(long n) {
    for (long k = 0; k < TLN; k++)
        CHECK(tl_hits[k] == (k < n), "iteration #%ld ran %d times", k, tl_hits[k]);
}
#define PRAGMA_(x) _Pragma(#x)
#define PRAGMA(x) PRAGMA_(x)
#define TASKLOOPS(CLAUSES)                                                                \
    do {                                                                                  \
        tl_reset("taskloop " #CLAUSES " int");                                            \
        PRAGMA(omp parallel)                                                              \
        PRAGMA(omp single)                                                                \
        {                                                                                 \
            PRAGMA(omp taskloop CLAUSES)                                                  \
            for (int i = 0; i < 4000; i++)                                                \
                tl_hit(i);                                                                \
        }                                                                                 \
        tl_verify(4000);                                                                  \
        tl_reset("taskloop " #CLAUSES " long down by 3");                                 \
        PRAGMA(omp parallel)                                                              \
        PRAGMA(omp single)                                                                \
        {                                                                                 \
            PRAGMA(omp taskloop CLAUSES)                                                  \
            for (long i = 2000; i > -4000; i -= 3)                                        \
                tl_hit((2000 - i) / 3);                                                   \
        }                                                                                 \
        tl_verify(2000);                                                                  \
        tl_reset("taskloop " #CLAUSES " unsigned long long above 2^63, step 7");          \
        PRAGMA(omp parallel)                                                              \
        PRAGMA(omp single)                                                                \
        {                                                                                 \
            PRAGMA(omp taskloop CLAUSES)                                                  \
            for (unsigned long long u = (1ULL << 63) + 1; u < (1ULL << 63) + 7001; u += 7) \
                tl_hit((long)((u - (1ULL << 63) - 1) / 7));                               \
        }                                                                                 \
        tl_verify(1000);                                                                  \
        tl_reset("taskloop " #CLAUSES " empty");                                          \
        volatile int e = 5;                                                               \
        int ev = e;                                                                       \
        PRAGMA(omp parallel)                                                              \
        PRAGMA(omp single)                                                                \
        {                                                                                 \
            PRAGMA(omp taskloop CLAUSES)                                                  \
            for (int i = ev; i < 5; i++)                                                  \
                tl_hit(i);                                                                \
        }                                                                                 \
        tl_verify(0);                                                                     \
    } while (0)
static void taskloops(void) {
    TASKLOOPS();
    TASKLOOPS(grainsize(1));
    TASKLOOPS(grainsize(7));
    TASKLOOPS(grainsize(1000));
    TASKLOOPS(num_tasks(1));
    TASKLOOPS(num_tasks(3));
    TASKLOOPS(num_tasks(50));
    TASKLOOPS(untied grainsize(16));

    /* nogroup: not waited for by the taskloop itself; a taskwait / taskgroup is. */
    tl_reset("taskloop nogroup + taskwait");
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskloop nogroup grainsize(10)
        for (int i = 0; i < 4000; i++)
            tl_hit(i);
#pragma omp taskwait
        tl_verify(4000);
    }
    tl_reset("taskloop nogroup in a taskgroup");
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskgroup
        {
#pragma omp taskloop nogroup num_tasks(17)
            for (unsigned long long u = 0; u < 4000; u++)
                tl_hit((long)u);
        }
        tl_verify(4000);
    }
    /* Outside any region (an initial task, team of one). */
    tl_reset("taskloop outside a region");
#pragma omp taskloop grainsize(100)
    for (int i = 0; i < 4000; i++)
        tl_hit(i);
    tl_verify(4000);
}

/* Tasks created by every thread inside a worksharing loop, a deep tree with a cut-off,
 * and 1e5 small tasks from one producer. */
static long tree(int depth, int cutoff) {
    count();
    if (depth == 0)
        return 1;
    long l, r;
    if (depth > cutoff) {
#pragma omp task shared(l)
        l = tree(depth - 1, cutoff);
#pragma omp task shared(r)
        r = tree(depth - 1, cutoff);
#pragma omp taskwait
    } else {
        l = tree(depth - 1, cutoff);
        r = tree(depth - 1, cutoff);
    }
    return l + r + 1;
}
static void volume(void) {
    what = "tasks in a loop";
    counter = 0;
#pragma omp parallel
    {
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < 1000; i++) {
            for (int k = 0; k < 10; k++) {
#pragma omp task
                count();
            }
        }
        if (load(&counter) != 10000)
            FAIL("after the loop's barrier %ld of 10000 tasks ran", load(&counter));
    }
    what = "deep tree";
    counter = 0;
    long nodes = -1;
#pragma omp parallel
#pragma omp single
    nodes = tree(20, 8);
    CHECK(nodes == (1L << 21) - 1 && counter == nodes, "depth-20 tree: %ld nodes returned, %ld "
          "counted, want %ld", nodes, counter, (1L << 21) - 1);
    what = "1e5 small tasks";
    counter = 0;
#pragma omp parallel
    {
#pragma omp single nowait
        for (int i = 0; i < 100000; i++) {
#pragma omp task
            count();
        }
#pragma omp barrier
        if (load(&counter) != 100000)
            FAIL("after the barrier %ld of 100000 tasks ran", load(&counter));
        /* Every thread a producer. */
#pragma omp barrier
#pragma omp single
        counter = 0;
        for (int i = 0; i < 25000; i++) {
#pragma omp task
            {
                if (omp_get_thread_num() >= omp_get_num_threads())
                    FAIL("task on thread %d of %d", omp_get_thread_num(), omp_get_num_threads());
                count();
            }
        }
#pragma omp taskwait
    }
    CHECK(counter == 25000L * omp_get_max_threads(), "%ld tasks from every thread ran, want %ld",
          counter, 25000L * omp_get_max_threads());
}

int main(void) {
    if (!getenv("OMP_NUM_THREADS")) {
        fprintf(stderr, "tasks: FAIL: set OMP_NUM_THREADS\n");
        return 1;
    }
    /* Tasks outside any region run in the initial task: created and done. */
    what = "task outside a region";
    int out = 0;
#pragma omp task shared(out)
    out = 1;
#pragma omp taskwait
    CHECK(out == 1, "a task outside any region did not run");
    fib();
    waits();
    depends();
    clauses();
    firstprivates();
    taskloops();
    volume();
    printf("tasks: OK: %ld checks, %d threads\n", checks, omp_get_max_threads());
    return 0;
}
