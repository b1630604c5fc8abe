/*
 * The loop bodies of the loops suite's OpenMP peer (loops_omp.c), shared with the OpenMP
 * benchmark programs of bench/omp (mandelbrot.c, dist.c, overheads.c), which include this
 * header by its path: mandel_pixel() (one Mandelbrot pixel), work() (the Dist loops'
 * xorshift busy loop) and iteration_seed(). The same bodies as `magpie::loops` runs.
 */
#ifndef MAGPIE_BENCH_LOOP_BODIES_H
#define MAGPIE_BENCH_LOOP_BODIES_H

#include <stdint.h>

/* One pixel of the image over [-2,1] x [-1.5,1.5] (width x height, row-major index p): its
 * iteration count, at most max_iter. */
static inline uint32_t mandel_pixel(int64_t p, int width, int height, int max_iter) {
    int x = (int)(p % width);
    int y = (int)(p / width);
    double cr = -2.0 + 3.0 * ((double)x + 0.5) / (double)width;
    double ci = -1.5 + 3.0 * ((double)y + 0.5) / (double)height;
    uint32_t n = 0;
    double zr = 0, zi = 0;
    while (n < (uint32_t)max_iter) {
        double zr2 = zr * zr, zi2 = zi * zi;
        if (zr2 + zi2 > 4.0)
            break;
        zi = 2.0 * zr * zi + ci;
        zr = zr2 - zi2 + cr;
        n++;
    }
    return n;
}

/* xorshift64 rounds, `units` of them, from the seed: the Dist loops' busy work. */
static inline uint64_t work(uint64_t units, uint64_t seed) {
    uint64_t x = seed | 1;
    for (uint64_t u = 0; u < units; u++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return x;
}

/* The seed of iteration i at time step `step`, as magpie_apps::dist::iteration_seed. */
static inline uint64_t iteration_seed(uint64_t step, uint64_t i) { return (step << 32) ^ i; }

#endif
