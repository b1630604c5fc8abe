//! The loop applications (Mandelbrot, Dist, histogram, SpMV) through `magpie::loops` on
//! several schedules × 1, 2 (and 8) workers: every parallel result must equal its
//! sequential reference exactly, and the references are pinned or cross-checked by
//! independent code written here.

use magpie::loops::{Loop, Schedule};
use magpie::{ThreadPool, ThreadPoolBuilder};
use magpie_apps::mandelbrot;

const SCHEDULES: [&str; 9] = [
    "static",
    "ss,7",
    "gss",
    "fac2",
    "awf-b",
    "af",
    "static-steal",
    "rws",
    "auto",
];

fn pool(workers: usize) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_workers(workers)
        .build()
        .unwrap()
}

fn new_loop(schedule: &str) -> Loop {
    Loop::new(schedule.parse::<Schedule>().unwrap())
}

// ---------------------------------------------------------------------------------------
// Mandelbrot

#[test]
fn mandelbrot_known_pixels() {
    assert_eq!(mandelbrot::pixel(0.0, 0.0, 1000), 1000);
    assert_eq!(mandelbrot::pixel(-1.0, 0.0, 1000), 1000);
    // The test comes before each update: |c|² = 8 > 4 is seen after one update.
    assert_eq!(mandelbrot::pixel(2.0, 2.0, 1000), 1);
    assert_eq!(mandelbrot::pixel(1.0, 0.0, 1000), 3);
    assert_eq!(mandelbrot::pixel(0.0, 0.0, 1), 1);
}

/// An independent straightforward double loop over the image.
fn mandelbrot_total_by_hand(w: usize, h: usize, max_iter: u32) -> u64 {
    let mut total = 0u64;
    for y in 0..h {
        for x in 0..w {
            let cr = -2.0 + 3.0 * (x as f64 + 0.5) / w as f64;
            let ci = -1.5 + 3.0 * (y as f64 + 0.5) / h as f64;
            let (mut a, mut b) = (0.0f64, 0.0f64);
            let mut n = 0u32;
            while n < max_iter && a * a + b * b <= 4.0 {
                let t = a * a - b * b + cr;
                b = 2.0 * a * b + ci;
                a = t;
                n += 1;
            }
            total += u64::from(n);
        }
    }
    total
}

#[test]
fn mandelbrot_16x16_total_pinned() {
    let p = mandelbrot::Params::new(16, 16, 1000, 1).unwrap();
    let img = mandelbrot::render_seq(&p);
    let total: u64 = img.iter().map(|&c| u64::from(c)).sum();
    assert_eq!(total, 39_412);
    assert_eq!(total, mandelbrot_total_by_hand(16, 16, 1000));
    // Symmetric about the real axis.
    for y in 0..16 {
        assert_eq!(
            img[y * 16..y * 16 + 16],
            img[(15 - y) * 16..(15 - y) * 16 + 16]
        );
    }
}

#[test]
fn mandelbrot_parallel_equals_sequential() {
    let p = mandelbrot::Params::new(97, 61, 300, 1).unwrap();
    let want = mandelbrot::render_seq(&p);
    assert_eq!(
        want.iter().map(|&c| u64::from(c)).sum::<u64>(),
        mandelbrot_total_by_hand(97, 61, 300)
    );
    for workers in [1, 2] {
        let pool = pool(workers);
        for s in SCHEDULES {
            let lp = new_loop(s);
            for step in 0..3 {
                assert_eq!(
                    pool.install(|| mandelbrot::render(&p, &lp)),
                    want,
                    "{s} on {workers} workers, step {step}"
                );
            }
            assert_eq!(lp.calls(), 3);
        }
    }
}

#[test]
fn mandelbrot_run_time_steps() {
    let p = mandelbrot::Params::new(50, 40, 200, 5).unwrap();
    let want = mandelbrot::run_seq(&p);
    let one: u64 = mandelbrot::render_seq(&p)
        .iter()
        .map(|&c| u64::from(c))
        .sum();
    assert_eq!(want.iterations, 5 * one);
    assert_eq!(
        want.checksum,
        mandelbrot::checksum(&mandelbrot::render_seq(&p))
    );
    for workers in [1, 2] {
        let pool = pool(workers);
        for s in ["gss", "awf-b", "af", "rws", "expert-sel"] {
            let lp = new_loop(s);
            assert_eq!(pool.install(|| mandelbrot::run(&p, &lp)), want, "{s}");
            assert_eq!(lp.calls(), 5);
        }
    }
}

#[test]
fn mandelbrot_bad_params() {
    for (w, h, m, s, what) in [
        (0, 1, 1, 1, "--width"),
        (1, 0, 1, 1, "--height"),
        (1, 1, 0, 1, "--max-iter"),
        (1, 1, 1, 0, "--steps"),
        (usize::MAX, 2, 1, 1, "too large"),
    ] {
        let e = mandelbrot::Params::new(w, h, m, s).unwrap_err();
        assert!(e.to_string().contains(what), "{e}");
    }
}
