/* The checks of the C test programs (loops.c, sync.c, tasks.c): define PROGRAM (its name, as
 * its OK line starts) before including this. `what` names the check under way; FAIL prints
 * "PROGRAM: FAIL in [what] (thread N): ..." to stderr and exits 1; CHECK counts a check in
 * `checks` (atomically: checks run inside parallel regions too) and FAILs if it does not hold. */
#ifndef MAGPIE_OMP_TESTS_CHECK_H
#define MAGPIE_OMP_TESTS_CHECK_H

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static const char *what = "start";
static long checks;

#define FAIL(...)                                                                              \
    do {                                                                                       \
        fprintf(stderr, PROGRAM ": FAIL in [%s] (thread %d): ", what, omp_get_thread_num());   \
        fprintf(stderr, __VA_ARGS__);                                                          \
        fprintf(stderr, "\n");                                                                 \
        exit(1);                                                                               \
    } while (0)
#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        __atomic_fetch_add(&checks, 1, __ATOMIC_RELAXED);                                      \
        if (!(cond))                                                                           \
            FAIL(__VA_ARGS__);                                                                 \
    } while (0)

/* A pragma from a macro's arguments: PRAGMA(omp parallel for schedule SCHED). */
#define PRAGMA_(x) _Pragma(#x)
#define PRAGMA(x) PRAGMA_(x)

/* Busy work (between a read and a write, it widens a race window). */
static inline void spin(int n) {
    for (volatile int i = 0; i < n; i++)
        ;
}

#endif
