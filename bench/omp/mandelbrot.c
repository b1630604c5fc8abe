/*
 * Mandelbrot, one loop iteration per image row, schedule(runtime): OMP_SCHEDULE picks the
 * schedule. The rows are the upper half of the loops suite's image ([-2,1] x [-1.5,1.5],
 * `height` of its 2 * height rows), from its top edge down to the real axis: the rows
 * crossing the set cost far more than those outside it, and the costs grow along the loop
 * (so that a static split is uneven, as the whole symmetric image would not be). The same loop call
 * site runs `steps` times (time steps of the same image, so adaptive schedules can learn).
 *
 * Parameters: width, height, max_iter, steps. Check: the sum of the iteration counts over
 * every step. Each step's row sums are compared with one sequential step's (untimed).
 */
#include "common.h"
#include "../../crates/magpie-bench/csrc/loop_bodies.h"

static int width, height, max_iter;
static uint64_t *ref, *rows, total;

static uint64_t row_sum(int y) {
    uint64_t s = 0;
    for (int x = 0; x < width; x++)
        s += mandel_pixel((int64_t)y * width + x, width, 2 * height, max_iter);
    return s;
}

BENCH_STEP_LOOP(int, y, height, rows[y] = row_sum(y))

static void check_step(long s) {
    for (int y = 0; y < height; y++) {
        if (rows[y] != ref[y])
            bench_fail("step %ld, row %d: %llu iterations, the sequential run's %llu", s, y,
                       (unsigned long long)rows[y], (unsigned long long)ref[y]);
        total += rows[y];
    }
}

int main(int argc, char **argv) {
    bench_args(argc, argv, "mandelbrot", NULL);
    width = (int)arg_long("width", 1024, 128, 1);
    height = (int)arg_long("height", 512, 64, 1);
    max_iter = (int)arg_long("max_iter", 400, 200, 1);
    long steps = arg_long("steps", 8, 3, 1);
    bench_args_done();

    ref = bench_alloc(sizeof(uint64_t) * (size_t)height);
    rows = bench_alloc(sizeof(uint64_t) * (size_t)height);
    for (int y = 0; y < height; y++)
        ref[y] = row_sum(y);
    double seconds =
        bench_steps(steps, rows, sizeof(uint64_t) * (size_t)height, 0xff, step, check_step);

    char check[32];
    snprintf(check, sizeof check, "%llu", (unsigned long long)total);
    bench_report_steps(seconds, check, NULL);
    return 0;
}
