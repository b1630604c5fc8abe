//! Loom models of the Chase-Lev deque.
//!
//! Run with:
//! `RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test -p magpie --lib --profile test-release -- loom_chase_lev`
//!
//! Every model checks that each pushed value is obtained exactly once (by the owner, a thief,
//! or the final drain), over all interleavings loom explores. Loom also checks, through the
//! deque's per-index shadow cells, that each push happens before the steal of its element.
use crate::deque::chase_lev::Worker;
use crate::deque::{DequeOwner, DequeStealer, Steal};
use crate::stats::WorkerCounters;
use loom::thread;

/// The models are small enough to be explored exhaustively (no preemption bound): all four
/// take about 8 s together in release mode. `LOOM_MAX_PREEMPTIONS=3` bounds them if needed.
fn builder() -> loom::model::Builder {
    loom::model::Builder::new()
}

/// Up to `attempts` steal calls; stops at the first `Empty`.
fn steal_some(s: &impl DequeStealer<usize>, attempts: usize) -> Vec<usize> {
    let c = WorkerCounters::default();
    let mut got = Vec::new();
    for _ in 0..attempts {
        match s.steal(&c) {
            Steal::Success(v) => got.push(v),
            Steal::Retry => {}
            Steal::Empty => break,
            Steal::Private => panic!("chase-lev never answers Private"),
        }
    }
    assert_eq!(c.steals.get(), got.len() as u64);
    got
}

/// Pops everything left and checks the union of all obtained values.
fn drain_and_check(w: &Worker<usize>, c: &WorkerCounters, mut got: Vec<usize>, n: usize) {
    while let Some(v) = w.pop(c) {
        got.push(v);
    }
    assert!(w.is_empty());
    got.sort_unstable();
    assert_eq!(got, (0..n).collect::<Vec<_>>(), "each value exactly once");
}

#[test]
fn push_pop_vs_one_thief() {
    builder().check(|| {
        let c = WorkerCounters::default();
        let w = Worker::new();
        let s = w.stealer();
        w.push(0, &c);
        w.push(1, &c);
        let thief = thread::spawn(move || steal_some(&s, 2));
        let mut got = Vec::new();
        got.extend(w.pop(&c));
        w.push(2, &c);
        got.extend(w.pop(&c));
        got.extend(w.pop(&c));
        got.extend(thief.join().unwrap());
        drain_and_check(&w, &c, got, 3);
    });
}

#[test]
fn pop_vs_two_thieves_on_last_element() {
    builder().check(|| {
        let c = WorkerCounters::default();
        let w = Worker::new();
        w.push(0, &c);
        let thieves: Vec<_> = (0..2)
            .map(|_| {
                let s = w.stealer();
                thread::spawn(move || steal_some(&s, 1))
            })
            .collect();
        let mut got: Vec<usize> = w.pop(&c).into_iter().collect();
        for t in thieves {
            got.extend(t.join().unwrap());
        }
        assert_eq!(
            got,
            vec![0],
            "exactly one of owner and thieves gets the element"
        );
        drain_and_check(&w, &c, got, 1);
    });
}

#[test]
fn growth_while_stealing() {
    builder().check(|| {
        let c = WorkerCounters::default();
        let w = Worker::with_capacity(2);
        let s = w.stealer();
        w.push(0, &c);
        let thief = thread::spawn(move || steal_some(&s, 2));
        // Grows 2 -> 4 on the third push, possibly while the thief reads the old buffer.
        w.push(1, &c);
        w.push(2, &c);
        let mut got: Vec<usize> = w.pop(&c).into_iter().collect();
        got.extend(thief.join().unwrap());
        drain_and_check(&w, &c, got, 3);
    });
}

/// A thief reads a slot at a stale `top` while another thief takes that element and the
/// owner wraps around and overwrites the slot (capacity 2, no growth needed): the stale
/// value must be discarded (`Retry`), never returned.
#[test]
fn stale_read_on_wraparound_is_discarded() {
    builder().check(|| {
        let c = WorkerCounters::default();
        let w = Worker::with_capacity(2);
        w.push(0, &c);
        w.push(1, &c);
        let thieves: Vec<_> = (0..2)
            .map(|_| {
                let s = w.stealer();
                thread::spawn(move || steal_some(&s, 1))
            })
            .collect();
        w.push(2, &c);
        let mut got = Vec::new();
        for t in thieves {
            got.extend(t.join().unwrap());
        }
        drain_and_check(&w, &c, got, 3);
    });
}
