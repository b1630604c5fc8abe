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
        (usize::MAX, 2, 1, 1, "more than the limit of 8 GiB"),
    ] {
        let e = mandelbrot::Params::new(w, h, m, s).unwrap_err();
        assert!(e.to_string().contains(what), "{e}");
    }
}

// ---------------------------------------------------------------------------------------
// Dist

use magpie_apps::dist::{self, Dist};

fn all_dists() -> Vec<Dist> {
    [
        "constant",
        "uniform",
        "normal",
        "exponential",
        "gamma:k=2",
        "gamma:k=0.5",
    ]
    .iter()
    .map(|s| s.parse().unwrap())
    .collect()
}

#[test]
fn dist_costs_pinned_and_deterministic() {
    let pins: [(&str, [u64; 6]); 6] = [
        ("constant", [100; 6]),
        ("uniform", [113, 149, 194, 89, 89, 153]),
        ("normal", [99, 37, 102, 49, 106, 80]),
        ("exponential", [84, 137, 354, 59, 59, 144]),
        ("gamma:k=2", [81, 33, 9, 20, 31, 62]),
        ("gamma:k=0.5", [149, 188, 20, 19, 13, 135]),
    ];
    for (name, want) in pins {
        let d: Dist = name.parse().unwrap();
        assert_eq!(dist::costs(&d, 6, 100, 1), want, "{name}");
        assert_eq!(
            dist::costs(&d, 1000, 100, 9),
            dist::costs(&d, 1000, 100, 9),
            "{name}"
        );
        // A prefix of a longer draw: costs are drawn in order.
        assert_eq!(
            dist::costs(&d, 1000, 100, 9)[..6],
            dist::costs(&d, 6, 100, 9)[..]
        );
    }
}

#[test]
fn dist_sample_moments() {
    let n = 100_000;
    // (distribution, mean, c.o.v.) with mean 200 work units.
    for (name, cov) in [
        ("constant", 0.0),
        ("uniform", 1.0 / 3f64.sqrt()),
        ("uniform:spread=0.5", 0.5 / 3f64.sqrt()),
        ("normal", 0.25),
        ("normal:cv=0.1", 0.1),
        ("exponential", 1.0),
        ("gamma:k=2", 1.0 / 2f64.sqrt()),
        ("gamma:k=4", 0.5),
        ("gamma:k=0.5", 2f64.sqrt()),
    ] {
        let d: Dist = name.parse().unwrap();
        let c = dist::costs(&d, n, 200, 12345);
        let mean = c.iter().sum::<u64>() as f64 / n as f64;
        let var = c.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / n as f64;
        assert!((mean - 200.0).abs() < 200.0 * 0.015, "{name}: mean {mean}");
        let got_cov = var.sqrt() / mean;
        assert!(
            (got_cov - cov).abs() < 0.03 + 0.03 * cov,
            "{name}: c.o.v. {got_cov} vs {cov}"
        );
    }
    // The uniform range is respected.
    let c = dist::costs(&"uniform:spread=0.5".parse().unwrap(), n, 200, 3);
    assert!(c.iter().all(|&x| (100..=300).contains(&x)));
}

#[test]
fn dist_parallel_equals_sequential() {
    let mut schedules = SCHEDULES.to_vec();
    schedules.extend([
        "tss",
        "fac",
        "wf",
        "awf-c",
        "laws",
        "static,16",
        "binary-sel",
    ]);
    for d in all_dists() {
        let c = dist::costs(&d, 3000, 20, 5);
        let want = dist::run_seq(&c, 3);
        for workers in [1, 2, 8] {
            let pool = pool(workers);
            for s in &schedules {
                let lp = new_loop(s);
                assert_eq!(
                    pool.install(|| dist::run(&c, 3, &lp)),
                    want,
                    "{d} {s} {workers}"
                );
                assert_eq!(lp.calls(), 3);
            }
        }
    }
}

#[test]
fn dist_checksum_by_hand() {
    // work() against its definition, and run_seq against a plain double loop.
    let mut x = 12u64 | 1;
    for _ in 0..5 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    assert_eq!(dist::work(5, 12), x);
    let c = [3u64, 0, 7, 1];
    let mut sum = 0u64;
    for s in 0..2u64 {
        for (i, &u) in c.iter().enumerate() {
            sum = sum.wrapping_add(dist::work(u, (s << 32) ^ i as u64));
        }
    }
    assert_eq!(dist::run_seq(&c, 2), sum);
    assert_eq!(dist::run_seq(&[], 5), 0);
}

#[test]
fn dist_bad_strings_rejected() {
    for (bad, why) in [
        ("", "empty"),
        ("poisson", "unknown distribution"),
        ("gamma:k=0", "k must be"),
        ("gamma:k=abc", "not a number"),
        ("gamma:shape=2", "unknown parameter"),
        ("gamma:2", "expected `gamma:k=VALUE`"),
        ("uniform:spread=1.5", "spread must be"),
        ("normal:cv=-1", "cv must be"),
        ("normal:cv=inf", "cv must be"),
        ("exponential:k=1", "takes no parameter"),
        ("constant:x=1", "takes no parameter"),
    ] {
        let e = bad.parse::<Dist>().unwrap_err().to_string();
        assert!(e.starts_with("--dist: ") && e.contains(why), "{bad}: {e}");
    }
    for good in [
        "Constant",
        " exp ",
        "GAMMA:k=3",
        "uniform:spread=0",
        "normal:cv=0",
    ] {
        assert!(good.parse::<Dist>().is_ok(), "{good}");
    }
    // Display round-trips.
    for d in all_dists() {
        assert_eq!(d.to_string().parse::<Dist>().unwrap(), d);
    }
}

// ---------------------------------------------------------------------------------------
// Histogram

use magpie_apps::histogram;

/// Counts by sorting, independently of `histogram_seq`.
fn counts_by_sorting(keys: &[u32], buckets: usize) -> Vec<u64> {
    let mut sorted = keys.to_vec();
    sorted.sort_unstable();
    let mut h = vec![0u64; buckets];
    for run in sorted.chunk_by(|a, b| a == b) {
        h[run[0] as usize] = run.len() as u64;
    }
    h
}

#[test]
fn histogram_parallel_equals_sequential() {
    for (n, buckets, skew) in [
        (0, 1, 0.0),
        (1, 1, 0.0),
        (50_000, 256, 0.0),
        (50_000, 1000, 2.0),
        (20_000, 3, 0.5),
    ] {
        let k = histogram::keys(n, buckets, skew, 77).unwrap();
        let want = histogram::histogram_seq(&k, buckets);
        assert_eq!(want, counts_by_sorting(&k, buckets));
        assert_eq!(want.iter().sum::<u64>(), n as u64);
        for workers in [1, 2, 8] {
            let pool = pool(workers);
            for s in SCHEDULES {
                let lp = new_loop(s);
                for _ in 0..2 {
                    assert_eq!(
                        pool.install(|| histogram::histogram(&k, buckets, &lp)),
                        want,
                        "{s} {workers} n={n} b={buckets}"
                    );
                }
            }
        }
    }
}

#[test]
fn histogram_key_shapes() {
    let n = 200_000;
    let uniform = histogram::histogram_seq(&histogram::keys(n, 10, 0.0, 1).unwrap(), 10);
    assert!(
        uniform
            .iter()
            .all(|&c| (c as f64 - 20_000.0).abs() < 1_000.0),
        "{uniform:?}"
    );
    // skew 1: P(key < b/4) = P(u² < 1/4) = 1/2.
    let skewed = histogram::histogram_seq(&histogram::keys(n, 4, 1.0, 1).unwrap(), 4);
    assert!((skewed[0] as f64 - 100_000.0).abs() < 1_500.0, "{skewed:?}");
    assert!(skewed.windows(2).all(|w| w[0] > w[1]), "{skewed:?}");
    assert!(histogram::keys(10, 0, 0.0, 1)
        .unwrap_err()
        .to_string()
        .contains("--buckets"));
    assert!(histogram::keys(10, 2, f64::NAN, 1)
        .unwrap_err()
        .to_string()
        .contains("--skew"));
}

// ---------------------------------------------------------------------------------------
// SpMV

use magpie_apps::spmv;

#[test]
fn spmv_parallel_equals_sequential_bitwise() {
    for (rows, cols, min_len, alpha) in [
        (0, 1, 1, 1.5),
        (1, 1, 1, 1.5),
        (3000, 3000, 1, 1.1),
        (2000, 500, 4, 2.5),
    ] {
        let a = spmv::power_law(rows, cols, min_len, alpha, 21).unwrap();
        let x = spmv::vector(cols, 22);
        let want = spmv::spmv_seq(&a, &x);
        // An independent dense-free loop over the raw rows, summed in the same order.
        let by_hand: Vec<f64> = (0..rows)
            .map(|r| {
                let (c, v) = a.row(r);
                let mut s = 0.0;
                for k in 0..c.len() {
                    s += v[k] * x[c[k] as usize];
                }
                s
            })
            .collect();
        assert_eq!(want, by_hand);
        let bits = |v: &[f64]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        for workers in [1, 2, 8] {
            let pool = pool(workers);
            for s in SCHEDULES {
                let lp = new_loop(s);
                for _ in 0..2 {
                    let got = pool.install(|| spmv::spmv(&a, &x, &lp));
                    assert_eq!(bits(&got), bits(&want), "{s} {workers} rows={rows}");
                }
            }
        }
    }
}

#[test]
fn spmv_matrix_shape() {
    let a = spmv::power_law(20_000, 10_000, 2, 1.5, 5).unwrap();
    let lens: Vec<usize> = (0..a.n_rows()).map(|r| a.row_len(r)).collect();
    assert_eq!(lens.iter().sum::<usize>(), a.nnz());
    assert!(lens.iter().all(|&l| (2..=10_000).contains(&l)));
    // Skewed: the longest row is far above the mean (about 2 · 1.5 / 0.5 = 6).
    let mean = a.nnz() as f64 / a.n_rows() as f64;
    assert!((4.5..8.0).contains(&mean), "mean row length {mean}");
    assert!(*lens.iter().max().unwrap() as f64 > 50.0 * mean);
    for r in 0..a.n_rows() {
        assert!(a.row(r).0.windows(2).all(|w| w[0] <= w[1]));
    }
    assert!(spmv::power_law(5, 0, 1, 1.5, 1)
        .unwrap_err()
        .to_string()
        .contains("--cols"));
    assert!(spmv::power_law(5, 5, 1, 0.0, 1)
        .unwrap_err()
        .to_string()
        .contains("--alpha"));
    assert!(spmv::Csr::new(1, 2, vec![0, 2], vec![0], vec![1.0]).is_err());
    assert!(spmv::Csr::new(2, 2, vec![0, 2, 1], vec![0], vec![1.0]).is_err());
}
