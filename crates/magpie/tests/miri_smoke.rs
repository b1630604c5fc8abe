//! Small multi-threaded runs of the pool and the deques, sized for Miri
//! (`cargo +nightly miri test -p magpie --test miri_smoke`), which checks them for undefined
//! behaviour: data races, use-after-free of stack jobs and latches, invalid reads. Signals
//! are out of Miri's reach, so only the non-signal deques run here; under plain `cargo test`
//! these are quick exact-value tests like any other.
#![cfg(not(loom))]

mod common;

use common::fib;

use magpie::deque::{chase_lev, split, DequeOwner, DequeStealer, Exposure, Steal};
use magpie::stats::WorkerCounters;
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

fn owner_and_thief<W: DequeOwner<usize>>(owner: W) {
    const N: usize = 60;
    let c = WorkerCounters::default();
    let tc = WorkerCounters::default();
    let stealer = owner.stealer();
    let seen: Vec<AtomicUsize> = (0..N).map(|_| AtomicUsize::new(0)).collect();
    let done = AtomicUsize::new(0);
    std::thread::scope(|s| {
        s.spawn(|| {
            while done.load(Ordering::Acquire) < N {
                match stealer.steal(&tc) {
                    Steal::Success(v) => {
                        seen[v].fetch_add(1, Ordering::Relaxed);
                        done.fetch_add(1, Ordering::AcqRel);
                    }
                    _ => std::thread::yield_now(),
                }
            }
        });
        for i in 0..N {
            owner.push(i, &c);
            if i % 3 == 2 {
                if let Some(v) = owner.pop(&c) {
                    seen[v].fetch_add(1, Ordering::Relaxed);
                    done.fetch_add(1, Ordering::AcqRel);
                }
            }
        }
        while done.load(Ordering::Acquire) < N {
            match owner.pop(&c) {
                Some(v) => {
                    seen[v].fetch_add(1, Ordering::Relaxed);
                    done.fetch_add(1, Ordering::AcqRel);
                }
                None => std::thread::yield_now(),
            }
        }
    });
    assert!(seen.iter().all(|s| s.load(Ordering::Relaxed) == 1));
}

#[test]
fn deques_across_threads() {
    owner_and_thief(chase_lev::Worker::with_capacity(2));
    owner_and_thief(split::Worker::with_capacity(Exposure::User, 2));
    owner_and_thief(split::Worker::with_capacity(Exposure::Conservative, 2));
}
