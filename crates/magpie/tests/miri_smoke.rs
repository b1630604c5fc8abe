//! Small multi-threaded runs of the pool, sized for Miri
//! (`cargo +nightly miri test -p magpie --test miri_smoke`), which checks them for undefined
//! behaviour: data races, use-after-free of stack jobs and latches, invalid reads. Signals
//! are out of Miri's reach, so only the non-signal deques run here; under plain `cargo test`
//! these are quick exact-value tests like any other. The deques' own small runs are the
//! crate's `deque::tests::smoke` (run by `scripts/miri.sh` with the deques' unit tests).
#![cfg(not(loom))]

mod common;

use common::fib;

use magpie::ThreadPoolBuilder;
use std::sync::atomic::{AtomicUsize, Ordering};

#[test]
fn join_and_scope_on_small_pools() {
    for deque in ["chase-lev", "lcws-user"] {
        for limit in [usize::MAX, 2] {
            let pool = ThreadPoolBuilder::new()
                .num_workers(2)
                .deque(deque)
                .join_push_limit(limit)
                .build()
                .unwrap();
            assert_eq!(pool.install(|| fib(10)), 55, "{deque}");
            let hits = AtomicUsize::new(0);
            pool.scope(|s| {
                for i in 0..8 {
                    let hits = &hits;
                    s.spawn(move |s| {
                        hits.fetch_add(i, Ordering::Relaxed);
                        s.spawn(move |_| {
                            hits.fetch_add(100, Ordering::Relaxed);
                        });
                    });
                }
            });
            assert_eq!(hits.load(Ordering::Relaxed), 28 + 800, "{deque}");
            let t = pool.stats().total();
            assert_eq!(
                t.private_pops + t.public_pops + t.steals,
                t.pushes,
                "{deque}: {t:?}"
            );
        }
    }
}

/// Team regions back to back (the second and third reuse the first's team, its member jobs
/// and implicit tasks: `runtime/team.rs`, "Reuse"), with a barrier, a `single` and tasks.
#[test]
fn team_regions_back_to_back() {
    use magpie::team::{self, TaskOptions};
    let pool = ThreadPoolBuilder::new().num_workers(2).build().unwrap();
    let ran = std::sync::Arc::new(AtomicUsize::new(0));
    let singles = AtomicUsize::new(0);
    pool.install(|| {
        for _ in 0..3 {
            team::parallel(2, &|_| {
                let ran = std::sync::Arc::clone(&ran);
                team::spawn_task(TaskOptions::default(), move || {
                    ran.fetch_add(1, Ordering::Relaxed);
                });
                team::barrier();
                if team::single() {
                    singles.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
    });
    assert_eq!(ran.load(Ordering::Relaxed), 6);
    assert_eq!(singles.into_inner(), 3);
}
