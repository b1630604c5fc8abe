//! A small owner-and-thief run of each non-signal deque, sized for Miri (`scripts/miri.sh`
//! runs it with the deques' unit tests), which checks it for undefined behaviour; under plain
//! `cargo test` it is a quick exact-value test like any other.

use crate::deque::{chase_lev, split, DequeOwner, DequeStealer, Exposure, Steal};
use crate::stats::WorkerCounters;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Pushes 0..10 on `w`, checks its length, pops them back in LIFO order, then the empty
/// pops: the unit tests of each deque start from this and check their own counters.
pub(crate) fn ten_pushes_popped_lifo<W: DequeOwner<usize>>(w: &W, c: &WorkerCounters) {
    assert!(w.is_empty());
    for i in 0..10 {
        w.push(i, c);
    }
    assert_eq!(w.len(), 10);
    for i in (0..10).rev() {
        assert_eq!(w.pop(c), Some(i));
    }
    assert_eq!(w.pop(c), None);
    assert!(w.is_empty());
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
