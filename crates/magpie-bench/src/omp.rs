//! The OpenMP peer of the `loops` suite: the loop bodies of magpie's loop apps compiled as C
//! under OpenMP (`csrc/loops_omp.c`, built by `build.rs`), with the schedule kind and chunk
//! chosen per call (`omp_set_schedule` + `schedule(runtime)`) and the team size per call
//! (`num_threads`).
//!
//! - `mandelbrot`: the image over [-2,1]×[-1.5,1.5], one parallel loop over pixel indices,
//!   compiled with `-ffp-contract=off` so the counts equal plain Rust `f64` arithmetic.
//! - `dist`: one time step `step` of the dist loop: iteration `i` runs `costs[i]` xorshift
//!   steps seeded with `magpie_apps::dist::iteration_seed(step, i)` = `(step << 32) ^ i`; the
//!   loop returns the wrapping sum of the results.
//!
//! [`mandelbrot_sequential`] and [`dist_sequential`] run the same C bodies with no OpenMP.
//! The `*_busy` variants also return each thread's busy time: from entering the parallel
//! region to leaving the loop, which has `nowait` (the load-imbalance measure of
//! `magpie::loops::LoopStats::busy`).

use std::ffi::c_int;
use std::time::Duration;

/// An OpenMP loop schedule kind, as set with `omp_set_schedule`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OmpSchedule {
    /// `static`: chunk 0 gives one block per thread, otherwise chunks dealt round-robin.
    Static,
    /// `dynamic`: chunks taken from a shared counter (chunk 0 means 1).
    Dynamic,
    /// `guided`: shrinking chunks, never below the chunk (chunk 0 means 1).
    Guided,
}

impl OmpSchedule {
    /// Every kind, in the order static, dynamic, guided.
    pub const ALL: [OmpSchedule; 3] = [
        OmpSchedule::Static,
        OmpSchedule::Dynamic,
        OmpSchedule::Guided,
    ];

    /// The `kind` argument of the C functions.
    fn code(self) -> c_int {
        match self {
            OmpSchedule::Static => 0,
            OmpSchedule::Dynamic => 1,
            OmpSchedule::Guided => 2,
        }
    }

    /// The OpenMP name (as in `OMP_SCHEDULE`).
    pub fn name(self) -> &'static str {
        match self {
            OmpSchedule::Static => "static",
            OmpSchedule::Dynamic => "dynamic",
            OmpSchedule::Guided => "guided",
        }
    }
}

/// The C `kind` that runs a loop sequentially, outside OpenMP.
const SEQUENTIAL: c_int = -1;

#[allow(clippy::too_many_arguments)]
mod ffi {
    use std::ffi::c_int;

    extern "C" {
        pub fn omp_mandelbrot(
            width: c_int,
            height: c_int,
            max_iter: c_int,
            kind: c_int,
            chunk: c_int,
            threads: c_int,
            out: *mut u32,
            busy: *mut f64,
            busy_len: c_int,
        ) -> u64;
        pub fn omp_dist(
            costs: *const u64,
            n: usize,
            step: u64,
            kind: c_int,
            chunk: c_int,
            threads: c_int,
            busy: *mut f64,
            busy_len: c_int,
        ) -> u64;
        #[cfg(test)]
        pub fn omp_loops_schedule_roundtrip(
            kind: c_int,
            chunk: c_int,
            kind_out: *mut c_int,
            chunk_out: *mut c_int,
        );
    }
}

fn to_c_int(value: usize, what: &str) -> c_int {
    c_int::try_from(value).unwrap_or_else(|_| panic!("{what} = {value} does not fit a C int"))
}

/// The busy-time slots for a team of `threads` (none when the team size is OpenMP's default).
fn busy_slots(kind: c_int, threads: usize) -> Vec<f64> {
    if kind == SEQUENTIAL {
        vec![0.0]
    } else {
        vec![0.0; threads]
    }
}

fn busy_times(slots: Vec<f64>) -> Vec<Duration> {
    slots
        .into_iter()
        .map(|s| Duration::from_secs_f64(s.max(0.0)))
        .collect()
}

/// Runs the C Mandelbrot loop with `kind` (or [`SEQUENTIAL`]); returns (image, sum of counts,
/// busy time per thread).
fn mandelbrot_kind(
    width: usize,
    height: usize,
    max_iter: u32,
    kind: c_int,
    chunk: usize,
    threads: usize,
) -> (Vec<u32>, u64, Vec<Duration>) {
    let w = to_c_int(width, "width");
    let h = to_c_int(height, "height");
    let pixels = width
        .checked_mul(height)
        .expect("width * height overflows usize");
    let max_iter = to_c_int(max_iter as usize, "max_iter");
    let chunk = to_c_int(chunk, "chunk");
    let threads = to_c_int(threads, "threads");
    let mut busy = busy_slots(kind, threads as usize);
    let busy_len = to_c_int(busy.len(), "busy slots");
    let mut out = vec![0u32; pixels];
    // SAFETY: `out` holds exactly width * height u32s, which is all the C loop writes
    // (indices 0..width*height, each once); `busy` holds `busy_len` f64s and the C side
    // writes only indices below `busy_len`; the other arguments are plain integers, range
    // checked above, and the C side keeps no pointer after returning.
    let sum = unsafe {
        ffi::omp_mandelbrot(
            w,
            h,
            max_iter,
            kind,
            chunk,
            threads,
            out.as_mut_ptr(),
            busy.as_mut_ptr(),
            busy_len,
        )
    };
    (out, sum, busy_times(busy))
}

/// The Mandelbrot image (row-major, `width * height` iteration counts) under OpenMP with the
/// given schedule, chunk (0 = the kind's default) and team size (0 = OpenMP's default), the
/// sum of its counts, and each thread's busy time (index = OpenMP thread number; empty when
/// `threads` is 0).
///
/// # Panics
/// If a size does not fit a C `int`.
pub fn mandelbrot_busy(
    width: usize,
    height: usize,
    max_iter: u32,
    sched: OmpSchedule,
    chunk: usize,
    threads: usize,
) -> (Vec<u32>, u64, Vec<Duration>) {
    mandelbrot_kind(width, height, max_iter, sched.code(), chunk, threads)
}

/// The same C Mandelbrot body as [`mandelbrot_busy`], run sequentially without OpenMP.
pub fn mandelbrot_sequential(width: usize, height: usize, max_iter: u32) -> (Vec<u32>, u64) {
    let (image, sum, _) = mandelbrot_kind(width, height, max_iter, SEQUENTIAL, 0, 1);
    (image, sum)
}

fn dist_kind(
    costs: &[u64],
    step: usize,
    kind: c_int,
    chunk: usize,
    threads: usize,
) -> (u64, Vec<Duration>) {
    let chunk = to_c_int(chunk, "chunk");
    let c_threads = to_c_int(threads, "threads");
    let mut busy = busy_slots(kind, threads);
    let busy_len = to_c_int(busy.len(), "busy slots");
    // SAFETY: `costs` is a live slice of `costs.len()` u64s, which the C loop only reads
    // (indices 0..len); `busy` holds `busy_len` f64s and the C side writes only indices
    // below `busy_len`; it keeps neither pointer after returning.
    let sum = unsafe {
        ffi::omp_dist(
            costs.as_ptr(),
            costs.len(),
            step as u64,
            kind,
            chunk,
            c_threads,
            busy.as_mut_ptr(),
            busy_len,
        )
    };
    (sum, busy_times(busy))
}

/// One time step `step` of the dist-work loop under OpenMP: iteration `i` runs `costs[i]`
/// xorshift steps seeded with `(step << 32) ^ i` (as `magpie_apps::dist::iteration_seed`);
/// returns the wrapping sum of the results. Chunk 0 = the kind's default, threads 0 =
/// OpenMP's default.
///
/// # Panics
/// If `chunk` or `threads` does not fit a C `int`. (The suite uses [`dist_busy`]; this is
/// for the tests.)
#[cfg(test)]
pub fn dist(costs: &[u64], step: usize, sched: OmpSchedule, chunk: usize, threads: usize) -> u64 {
    dist_busy(costs, step, sched, chunk, threads).0
}

/// `dist`, also returning each thread's busy time (index = OpenMP thread number; empty
/// when `threads` is 0).
pub fn dist_busy(
    costs: &[u64],
    step: usize,
    sched: OmpSchedule,
    chunk: usize,
    threads: usize,
) -> (u64, Vec<Duration>) {
    dist_kind(costs, step, sched.code(), chunk, threads)
}

/// The same C dist-work body as `dist` (time step `step`), run sequentially without OpenMP.
pub fn dist_sequential(costs: &[u64], step: usize) -> u64 {
    dist_kind(costs, step, SEQUENTIAL, 0, 1).0
}

/// Sets the calling thread's OpenMP run schedule as the loops do, and reads it back with
/// `omp_get_schedule`: (kind, chunk as the runtime stores it).
#[cfg(test)]
fn schedule_roundtrip(sched: OmpSchedule, chunk: usize) -> (Option<OmpSchedule>, i64) {
    let mut kind: c_int = -2;
    let mut got_chunk: c_int = -1;
    // SAFETY: both out-pointers point at live, writable c_ints on this stack frame; the C
    // function writes each once and keeps neither.
    unsafe {
        ffi::omp_loops_schedule_roundtrip(
            sched.code(),
            to_c_int(chunk, "chunk"),
            &mut kind,
            &mut got_chunk,
        )
    };
    let kind = OmpSchedule::ALL.into_iter().find(|s| s.code() == kind);
    (kind, i64::from(got_chunk))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Rust reference of the C Mandelbrot pixel (same expression order, no FMA).
    fn ref_pixel(x: usize, y: usize, width: usize, height: usize, max_iter: u32) -> u32 {
        let cr = -2.0 + 3.0 * (x as f64 + 0.5) / width as f64;
        let ci = -1.5 + 3.0 * (y as f64 + 0.5) / height as f64;
        let mut n = 0u32;
        let (mut zr, mut zi) = (0.0f64, 0.0f64);
        while n < max_iter {
            let (zr2, zi2) = (zr * zr, zi * zi);
            if zr2 + zi2 > 4.0 {
                break;
            }
            zi = 2.0 * zr * zi + ci;
            zr = zr2 - zi2 + cr;
            n += 1;
        }
        n
    }

    fn ref_mandelbrot(width: usize, height: usize, max_iter: u32) -> (Vec<u32>, u64) {
        let image: Vec<u32> = (0..width * height)
            .map(|p| ref_pixel(p % width, p / width, width, height, max_iter))
            .collect();
        let sum = image.iter().map(|&n| u64::from(n)).sum();
        (image, sum)
    }

    /// The Rust reference of the C dist-work body.
    fn ref_work(units: u64, seed: u64) -> u64 {
        let mut x = seed | 1;
        for _ in 0..units {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        x
    }

    fn ref_dist(costs: &[u64], step: usize) -> u64 {
        costs.iter().enumerate().fold(0u64, |acc, (i, &c)| {
            acc.wrapping_add(ref_work(c, ((step as u64) << 32) ^ i as u64))
        })
    }

    /// The sum of time steps `0..steps` as magpie-apps computes it.
    fn apps_dist(costs: &[u64], steps: usize) -> u64 {
        magpie_apps::dist::run_seq(costs, steps)
    }

    /// Uneven costs: a cheap majority, a few heavy iterations, some zeros.
    fn costs() -> Vec<u64> {
        (0..203u64)
            .map(|i| match i % 17 {
                0 => 5_000 + i,
                5 | 11 => 0,
                _ => (i * 37) % 61,
            })
            .collect()
    }

    const W: usize = 24;
    const H: usize = 16;
    const MAX_ITER: u32 = 200;

    #[test]
    fn reference_image_is_not_trivial() {
        let (image, sum) = ref_mandelbrot(W, H, MAX_ITER);
        assert!(image.contains(&MAX_ITER), "some pixels must stay bounded");
        assert!(
            image.iter().any(|&n| n < 3),
            "some pixels must escape at once"
        );
        assert!(sum > 0);
    }

    #[test]
    fn sequential_c_mandelbrot_equals_reference() {
        let (want, want_sum) = ref_mandelbrot(W, H, MAX_ITER);
        let (got, got_sum) = mandelbrot_sequential(W, H, MAX_ITER);
        assert_eq!(got, want);
        assert_eq!(got_sum, want_sum);
    }

    #[test]
    fn openmp_mandelbrot_equals_reference_under_every_schedule() {
        let (want, want_sum) = ref_mandelbrot(W, H, MAX_ITER);
        for sched in OmpSchedule::ALL {
            for chunk in [0, 1, 7] {
                for threads in [1, 2] {
                    let (got, got_sum, _) = mandelbrot_busy(W, H, MAX_ITER, sched, chunk, threads);
                    assert_eq!(got.len(), W * H);
                    for (p, (&g, &w)) in got.iter().zip(&want).enumerate() {
                        assert_eq!(
                            g,
                            w,
                            "pixel ({}, {}) under {} chunk {chunk} with {threads} threads",
                            p % W,
                            p / W,
                            sched.name()
                        );
                    }
                    assert_eq!(
                        got_sum,
                        want_sum,
                        "{} chunk {chunk} threads {threads}",
                        sched.name()
                    );
                }
            }
        }
    }

    #[test]
    fn empty_image() {
        let (image, sum, _) = mandelbrot_busy(0, 5, MAX_ITER, OmpSchedule::Dynamic, 0, 2);
        assert_eq!((image, sum), (Vec::new(), 0));
        assert_eq!(mandelbrot_sequential(5, 0, MAX_ITER), (Vec::new(), 0));
    }

    #[test]
    fn sequential_c_dist_equals_reference() {
        let costs = costs();
        for step in [0, 1, 5] {
            assert_eq!(dist_sequential(&costs, step), ref_dist(&costs, step));
        }
        assert_ne!(
            ref_dist(&costs, 0),
            ref_dist(&costs, 1),
            "steps must differ"
        );
    }

    #[test]
    fn c_dist_steps_add_up_to_magpie_apps_run_seq() {
        let costs = costs();
        for steps in [1, 3] {
            let seq = (0..steps).fold(0u64, |a, s| a.wrapping_add(dist_sequential(&costs, s)));
            assert_eq!(seq, apps_dist(&costs, steps), "sequential C, {steps} steps");
            for sched in OmpSchedule::ALL {
                let par =
                    (0..steps).fold(0u64, |a, s| a.wrapping_add(dist(&costs, s, sched, 3, 2)));
                assert_eq!(
                    par,
                    apps_dist(&costs, steps),
                    "{} {steps} steps",
                    sched.name()
                );
            }
        }
        // Step 2 alone: the difference of the sums over 3 and 2 steps.
        let step2 = apps_dist(&costs, 3).wrapping_sub(apps_dist(&costs, 2));
        assert_eq!(dist(&costs, 2, OmpSchedule::Dynamic, 1, 2), step2);
    }

    #[test]
    fn openmp_dist_equals_reference_under_every_schedule() {
        let costs = costs();
        for step in [0, 3] {
            let want = ref_dist(&costs, step);
            for sched in OmpSchedule::ALL {
                for chunk in [0, 1, 4, 1000] {
                    for threads in [1, 2] {
                        assert_eq!(
                            dist(&costs, step, sched, chunk, threads),
                            want,
                            "step {step} {} chunk {chunk} threads {threads}",
                            sched.name()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn busy_times_one_per_thread() {
        let costs = vec![20_000u64; 64];
        for sched in OmpSchedule::ALL {
            let (sum, busy) = dist_busy(&costs, 1, sched, 1, 2);
            assert_eq!(sum, ref_dist(&costs, 1));
            assert_eq!(busy.len(), 2, "{}", sched.name());
            assert!(busy.iter().any(|b| !b.is_zero()), "{}", sched.name());
            let (_, _, busy) = mandelbrot_busy(W, H, MAX_ITER, sched, 0, 3);
            assert_eq!(busy.len(), 3, "{}", sched.name());
        }
        let (_, _, busy) = mandelbrot_busy(W, H, MAX_ITER, OmpSchedule::Static, 0, 0);
        assert!(busy.is_empty());
    }

    #[test]
    fn dist_of_nothing_is_zero() {
        for sched in OmpSchedule::ALL {
            assert_eq!(dist(&[], 1, sched, 0, 2), 0);
        }
        assert_eq!(dist_sequential(&[], 0), 0);
    }

    #[test]
    fn dist_sum_wraps() {
        // Enough iterations that the sum of 64-bit results must wrap.
        let costs = vec![3u64; 64];
        let want = ref_dist(&costs, 0);
        let exact: u128 = (0..64u64).map(|i| u128::from(ref_work(3, i))).sum();
        assert!(exact > u128::from(u64::MAX), "the test must overflow");
        assert_eq!(want, exact as u64);
        for sched in OmpSchedule::ALL {
            assert_eq!(dist(&costs, 0, sched, 3, 2), want);
        }
    }

    #[test]
    fn the_loops_set_the_runtime_schedule() {
        for sched in OmpSchedule::ALL {
            let (kind, chunk) = schedule_roundtrip(sched, 5);
            assert_eq!(kind, Some(sched));
            assert_eq!(chunk, 5);
        }
        // Chunk 0 asks for the default: static keeps 0 (one block per thread).
        assert_eq!(
            schedule_roundtrip(OmpSchedule::Static, 0),
            (Some(OmpSchedule::Static), 0)
        );
    }
}
