//! Every loop schedule runs each iteration exactly once, for ranges of length 0, 1, P − 1,
//! P, P + 1 and large (with a non-zero start), on 1, 2 and 8 workers; `parallel_reduce`
//! matches the sequential sum; `parallel_for_chunks` covers the range with disjoint chunks.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use magpie::loops::{parallel_for, parallel_for_chunks, parallel_reduce, Loop, Schedule};
use magpie::ThreadPoolBuilder;

/// Every schedule, with and without its optional number.
const SPECS: &[&str] = &[
    "static",
    "static,7",
    "ss",
    "ss,4",
    "gss",
    "gss,3",
    "tss",
    "tss,5",
    "tss,40:3",
    "fac",
    "fac2",
    "mfac",
    "mfac,3",
    "wf",
    "wf,1:2:1:3",
    "awf",
    "awf-b",
    "awf-c",
    "awf-d",
    "awf-e",
    "af",
    "static-steal",
    "static-steal,2",
    "rws",
    "rws,50",
    "rws,fac2",
    "rws,guided",
    "laws",
    "laws,fac2",
    "auto",
    "runtime",
    "random-sel",
    "exhaustive-sel",
    "binary-sel",
    "expert-sel",
];

fn lengths(p: usize) -> Vec<usize> {
    let mut v = vec![0, 1, p.saturating_sub(1), p, p + 1, 10_007];
    v.dedup();
    v
}

#[test]
fn every_schedule_runs_each_iteration_exactly_once() {
    for workers in [1, 2, 8] {
        let pool = ThreadPoolBuilder::new()
            .num_workers(workers)
            .build()
            .unwrap();
        for spec in SPECS {
            let schedule: Schedule = spec.parse().unwrap_or_else(|e| panic!("{spec}: {e}"));
            for n in lengths(workers) {
                let start = 3;
                let runs: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
                let stats = pool.install(|| {
                    parallel_for(start..start + n, &schedule, |i| {
                        runs[i - start].fetch_add(1, Ordering::Relaxed);
                    })
                });
                let what = format!("{spec}, {workers} workers, n = {n}");
                for (i, r) in runs.iter().enumerate() {
                    assert_eq!(r.load(Ordering::Relaxed), 1, "{what}: iteration {i}");
                }
                assert_eq!(stats.busy.len(), workers, "{what}");
                assert!(n == 0 || stats.chunks >= 1, "{what}: {stats:?}");
                assert!(stats.chunks <= n as u64, "{what}: {stats:?}");

                // Chunks: disjoint, covering, each non-empty.
                let covered: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
                let chunks = AtomicU64::new(0);
                pool.install(|| {
                    parallel_for_chunks(start..start + n, &schedule, |r| {
                        assert!(!r.is_empty(), "{what}: empty chunk");
                        chunks.fetch_add(1, Ordering::Relaxed);
                        for i in r {
                            covered[i - start].fetch_add(1, Ordering::Relaxed);
                        }
                    })
                });
                assert!(
                    covered.iter().all(|c| c.load(Ordering::Relaxed) == 1),
                    "{what}: chunks"
                );

                // Reduction against the sequential sum of i².
                let want: u64 = (start..start + n).map(|i| (i * i) as u64).sum();
                let (got, _) = pool.install(|| {
                    parallel_reduce(
                        start..start + n,
                        &schedule,
                        || 0u64,
                        |a, i| a + (i * i) as u64,
                        |a, b| a + b,
                    )
                });
                assert_eq!(got, want, "{what}: reduce");
            }
        }
    }
}

#[test]
fn loops_nest_inside_joins_and_loops() {
    let pool = ThreadPoolBuilder::new().num_workers(2).build().unwrap();
    let outer: Schedule = "fac2".parse().unwrap();
    let inner: Schedule = "rws".parse().unwrap();
    let total = AtomicU64::new(0);
    pool.install(|| {
        magpie::join(
            || {
                parallel_for(0..40, &outer, |i| {
                    let (s, _) = parallel_reduce(
                        0..100,
                        &inner,
                        || 0u64,
                        |a, j| a + (i * j) as u64,
                        |a, b| a + b,
                    );
                    total.fetch_add(s, Ordering::Relaxed);
                })
            },
            || {},
        )
    });
    // Σ_i Σ_j i·j = (Σ i)(Σ j) = 780 · 4950.
    assert_eq!(total.into_inner(), 780 * 4950);
}

#[test]
fn a_loop_remembers_its_calls_and_last_statistics() {
    let pool = ThreadPoolBuilder::new().num_workers(2).build().unwrap();
    let lp = Loop::new("awf".parse().unwrap());
    for step in 1..=4u64 {
        let sum = pool.install(|| {
            lp.reduce(0..5000, || 0u64, |a, i| a + i as u64, |a, b| a + b)
                .0
        });
        assert_eq!(sum, 4999 * 5000 / 2);
        assert_eq!(lp.calls(), step);
    }
    let stats = lp.last_stats().unwrap();
    assert_eq!(stats.schedule, "awf");
    assert!(stats.chunks >= 2, "{stats:?}");
}

/// mFAC's lock-free queue (chunk numbers from one atomic counter) reports its chunks' times
/// after the loop, so the loop learns `μ` and `σ` as FAC does; on one worker its chunks are
/// FAC2's batches exactly (N = 1000, P = 1: ⌈R/2⌉ = 500, 250, 125, 63, 31, 16, 8, 4, 2, 1).
#[test]
fn mfac_learns_through_its_lock_free_queue() {
    let pool = ThreadPoolBuilder::new().num_workers(1).build().unwrap();
    let lp = Loop::new("mfac".parse().unwrap());
    let sizes = std::sync::Mutex::new(Vec::new());
    pool.install(|| {
        lp.for_chunks(0..1000, |r| {
            sizes.lock().unwrap().push((r.start, r.len()));
            for i in r {
                std::hint::black_box(i);
            }
        })
    });
    let mut sizes = sizes.into_inner().unwrap();
    sizes.sort();
    let lens: Vec<usize> = sizes.iter().map(|&(_, l)| l).collect();
    assert_eq!(lens, [500, 250, 125, 63, 31, 16, 8, 4, 2, 1]);
    assert_eq!(lp.history().calls, 1);
    let learned = lp.history().iteration_ns.expect("mfac learned μ and σ");
    assert!(learned.mean_ns > 0.0, "{learned:?}");
    // On two workers every iteration still runs once per call, with what was learned.
    let pool = ThreadPoolBuilder::new().num_workers(2).build().unwrap();
    for call in 2..=3 {
        let sum = pool.install(|| {
            lp.reduce(0..10_000, || 0u64, |a, i| a + i as u64, |a, b| a + b)
                .0
        });
        assert_eq!(sum, 9999 * 10_000 / 2);
        assert_eq!(lp.calls(), call);
    }
}

#[test]
fn selectors_run_every_iteration_once_on_every_call() {
    let pool = ThreadPoolBuilder::new().num_workers(2).build().unwrap();
    for spec in ["random-sel", "exhaustive-sel", "binary-sel", "expert-sel"] {
        let lp = Loop::new(spec.parse().unwrap());
        let mut ran = std::collections::BTreeSet::new();
        for call in 0..20 {
            let runs: Vec<AtomicU32> = (0..2000).map(|_| AtomicU32::new(0)).collect();
            let stats = pool.install(|| {
                lp.for_each(0..2000, |i| {
                    runs[i].fetch_add(1, Ordering::Relaxed);
                })
            });
            assert!(
                runs.iter().all(|r| r.load(Ordering::Relaxed) == 1),
                "{spec}, call {call}"
            );
            ran.insert(stats.schedule);
        }
        assert_eq!(lp.calls(), 20);
        // A selector runs members of its portfolio, never itself or `auto`.
        assert!(
            !ran.contains(spec) && !ran.contains("auto"),
            "{spec}: {ran:?}"
        );
        if spec == "exhaustive-sel" || spec == "random-sel" {
            assert!(ran.len() >= 4, "{spec} tried only {ran:?}");
        }
    }
}

#[test]
fn dispensers_cover_the_range_exactly_even_with_huge_chunks() {
    use magpie::loops::Loop;
    // A chunk as big as u64::MAX once made a stealing participant's cursor wrap around and
    // hand out iterations twice.
    for s in [
        "static_steal,18446744073709551615",
        "static,18446744073709551615",
        "ss,18446744073709551615",
        "fac2",
        "rws",
        "auto",
    ] {
        for participants in [1, 2, 3] {
            let lp = Loop::new(s.parse::<Schedule>().unwrap());
            let d = lp.dispense(1000, participants);
            let mut hits = vec![0u8; 1000];
            for p in 0..participants {
                let mut c = d.cursor(p);
                while let Some(chunk) = d.next(&mut c) {
                    assert!(!chunk.is_empty(), "{s}");
                    for i in chunk {
                        hits[i] += 1;
                    }
                }
            }
            assert!(hits.iter().all(|&h| h == 1), "{s} on {participants}");
            lp.finish(&d);
        }
    }
}
