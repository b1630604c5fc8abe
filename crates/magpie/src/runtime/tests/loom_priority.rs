//! Loom model of the priority heaps' protocol (`runtime::priority`): an owner and a thief
//! take from the same heap; every task is taken exactly once.

use crate::runtime::priority::PriorityQueues;
use crate::sync::Arc;

/// The owner pushes two tasks and takes until its heap is empty; a thief takes what it
/// can meanwhile. Every task is taken exactly once, and `pending` is 0 at the end.
#[test]
fn owner_and_thief_take_each_task_once() {
    loom::model(|| {
        let q = Arc::new(PriorityQueues::new(2));
        let thief = {
            let q = Arc::clone(&q);
            loom::thread::spawn(move || {
                let mut got = Vec::new();
                if q.maybe_pending() {
                    got.extend(q.take(1));
                }
                got
            })
        };
        q.push(0, 1, 1u32);
        q.push(0, 2, 2u32);
        let mut got: Vec<u32> = std::iter::from_fn(|| q.take(0)).collect();
        got.extend(thief.join().unwrap());
        got.sort_unstable();
        assert_eq!(got, [1, 2]);
        assert!(!q.maybe_pending());
    });
}
