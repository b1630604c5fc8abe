/*
 * The loop bodies of the loops suite's OpenMP peer, shared rather than copied:
 * mandel_pixel() (one Mandelbrot pixel), work() (the Dist loops' xorshift busy loop) and
 * iteration_seed(). They are static functions of crates/magpie-bench/csrc/loops_omp.c, so
 * that file is included whole; its exported entry points (omp_mandelbrot, omp_dist, ...)
 * come along unused: they set the schedule with omp_set_schedule(), while these programs
 * take theirs from OMP_SCHEDULE through schedule(runtime).
 */
#ifndef MAGPIE_BENCH_OMP_LOOP_BODIES_H
#define MAGPIE_BENCH_OMP_LOOP_BODIES_H
#include "../../crates/magpie-bench/csrc/loops_omp.c"
#endif
