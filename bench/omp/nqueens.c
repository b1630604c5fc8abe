/*
 * N-Queens, counting every solution: a task per placement in the first `task_rows` rows
 * (each placement of row r < task_rows spawns the search below it as a task), a serial
 * bitmask search below; the counts are added atomically.
 *
 * Parameters: n (1..16), task_rows. Check: the number of solutions, compared with the
 * known count for n.
 */
#include "common.h"

static const uint64_t KNOWN[17] = {0,     1,     0,      0,       2,       10,       4,
                                   40,    92,    352,    724,     2680,    14200,    73712,
                                   365596, 2279184, 14772512};

static uint64_t solutions = 0;

/* Counts the completions of rows r..n-1, given the columns and diagonals taken. */
static uint64_t count_seq(int n, int r, uint32_t cols, uint32_t d1, uint32_t d2) {
    if (r == n)
        return 1;
    uint64_t c = 0;
    uint32_t free = ~(cols | d1 | d2) & ((1u << n) - 1);
    while (free) {
        uint32_t bit = free & -free;
        free ^= bit;
        c += count_seq(n, r + 1, cols | bit, (d1 | bit) << 1, (d2 | bit) >> 1);
    }
    return c;
}

static void search(int n, int r, uint32_t cols, uint32_t d1, uint32_t d2, int task_rows) {
    if (r >= task_rows || r == n) {
        uint64_t c = count_seq(n, r, cols, d1, d2);
#pragma omp atomic
        solutions += c;
        return;
    }
    uint32_t free = ~(cols | d1 | d2) & ((1u << n) - 1);
    while (free) {
        uint32_t bit = free & -free;
        free ^= bit;
#pragma omp task firstprivate(n, r, cols, d1, d2, bit, task_rows)
        search(n, r + 1, cols | bit, (d1 | bit) << 1, (d2 | bit) >> 1, task_rows);
    }
#pragma omp taskwait
}

int main(int argc, char **argv) {
    bench_args(argc, argv, "nqueens", NULL);
    int n = (int)arg_long("n", 14, 9, 1);
    int task_rows = (int)arg_long("task_rows", 4, 3, 0);
    bench_args_done();
    if (n > 16)
        bench_fail("n=%d: the known counts go to n = 16", n);

    double seconds = BENCH_TIME_SINGLE(search(n, 0, 0, 0, 0, task_rows));
    if (solutions != KNOWN[n])
        bench_fail("%llu solutions for n = %d, not %llu", (unsigned long long)solutions, n,
                   (unsigned long long)KNOWN[n]);
    bench_report_count(seconds, solutions);
    return 0;
}
