//! Loom model of the priority heaps' protocol (`runtime::priority`): an owner and a thief
//! take from the same heap; every task is taken exactly once.
//!
//! Run with:
//! `RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom cargo test -p magpie --lib --profile test-release -- loom_priority`
//!
//! `broken_best_published_after_unlock` is the negative control: the same model on a take
//! that breaks protocol step 1 on purpose (`best` republished after the heap's lock is
//! released), which must lose a task (checked by `negative_controls_fail`); it shows the
//! model can catch a broken step of the protocol.

use crate::runtime::priority::{Origin, PriorityQueues};
use crate::sync::{loom_common, Arc};

/// A take of [`PriorityQueues`]: the real one, or the negative control's broken one.
type Take = fn(&PriorityQueues<u32>, usize) -> Option<(u32, Origin)>;

/// What the owner-and-thief model asserts when a task is lost or taken twice (the failure
/// the negative control must show).
const NOT_EXACTLY_ONCE: &str = "a task lost or taken twice";

/// The owner (worker 0) pushes two tasks and takes until its heap is empty; a thief (worker
/// 1, whose own heap stays empty) takes what it can meanwhile. Every task is taken exactly
/// once, the owner's from its own heap and the thief's from another, and `pending` is 0 at
/// the end.
fn owner_and_thief(take: Take) {
    loom::model(move || {
        let q = Arc::new(PriorityQueues::new(2));
        let thief = {
            let q = Arc::clone(&q);
            loom::thread::spawn(move || {
                let mut got = Vec::new();
                if q.maybe_pending() {
                    got.extend(take(&q, 1));
                }
                got
            })
        };
        q.push(0, 1, 1u32);
        q.push(0, 2, 2u32);
        let mine: Vec<_> = std::iter::from_fn(|| take(&q, 0)).collect();
        let stolen = thief.join().unwrap();
        assert!(mine.iter().all(|&(_, o)| o == Origin::Own), "{mine:?}");
        assert!(
            stolen.iter().all(|&(_, o)| o == Origin::Other),
            "{stolen:?}"
        );
        let mut got: Vec<u32> = mine.iter().chain(&stolen).map(|&(t, _)| t).collect();
        got.sort_unstable();
        assert_eq!(got, [1, 2], "{NOT_EXACTLY_ONCE}");
        assert!(!q.maybe_pending());
    });
}

#[test]
fn owner_and_thief_take_each_task_once() {
    owner_and_thief(PriorityQueues::take);
}

/// Negative control: the thief takes the owner's task 1 and computes `best` = empty, but
/// stores it only after unlocking; the owner's push of task 2 publishes 2 in between, the
/// thief's late store overwrites it, and the owner, reading its own heap as empty, never
/// takes task 2. Must fail (run by [`negative_controls_fail`]).
#[test]
#[ignore = "negative control: must fail; run by negative_controls_fail"]
fn broken_best_published_after_unlock() {
    owner_and_thief(PriorityQueues::take_publishing_best_unlocked);
}

/// The broken model above must lose a task under loom.
#[test]
fn negative_controls_fail() {
    loom_common::negative_controls_fail_with(
        module_path!(),
        &["broken_best_published_after_unlock"],
        NOT_EXACTLY_ONCE,
    );
}
