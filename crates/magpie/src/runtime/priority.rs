//! Task priorities (Pheet's strategy scheduling, thesis 003 §3.7): per-worker priority heaps
//! beside the deques, and the one word that says whether any of them may hold work.
//!
//! # The protocol
//!
//! 1. One slot per worker plus one shared slot (index `workers`) for tasks spawned from
//!    outside the pool. A slot is a binary heap behind a `Mutex` and `best`, the highest
//!    priority in the heap (or [`EMPTY`]), written only while holding the lock.
//! 2. `pending` counts the tasks in all heaps. A push increments it *before* inserting; a
//!    take decrements it *after* removing. Every decrement is preceded (through the lock)
//!    by its own task's increment, so in `pending`'s modification order the count never
//!    drops to 0 while a task is in a heap: 0 read at a point of that order means no task
//!    was in a heap. A relaxed read may be stale; that is harmless, because the owner of a
//!    slot always looks at its own heap (a local task cannot be lost), and the sleep
//!    protocol reads `pending` with `SeqCst` (see `Registry::has_work`).
//! 3. The owner takes from its own heap first (its lock is nearly always uncontended: only
//!    thieves that found the heap the best in the pool take it too). With its own heap
//!    empty, a worker scans every other slot's `best`, locks the best one and takes its top.
//!    The scan is a hint: a heap emptied in between gives `None` and the scan is retried a
//!    bounded number of times; the lock makes every take exact.
//! 4. Ties: larger priority first, then the later push (LIFO among equals), per heap.
//!
//! Each task is in exactly one heap between its push and its take, and only a holder of
//! that heap's lock removes it, so each task is taken exactly once.

use std::cmp::Ordering as CmpOrdering;
use std::collections::BinaryHeap;

use crossbeam_utils::CachePadded;

use crate::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use crate::sync::Mutex;

/// `best` of an empty heap. A task of priority `i64::MIN` publishes `i64::MIN + 1` instead,
/// so it is seen; the heap itself orders it exactly.
pub(crate) const EMPTY: i64 = i64::MIN;

/// How many times a worker whose own heap is empty rescans the others after losing a race
/// for the heap it chose, before it goes on to steal ordinary work.
const SCAN_RETRIES: usize = 4;

/// Where [`PriorityQueues::take`] found a task (the split of the worker counters
/// `priority_taken` and `priority_stolen`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// The taker's own heap.
    Own,
    /// Another worker's heap or the shared slot (tasks spawned from outside the pool).
    Other,
}

struct Entry<T> {
    priority: i64,
    /// Push order within the heap: the later push of two equal priorities runs first.
    seq: u64,
    item: T,
}

impl<T> PartialEq for Entry<T> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == CmpOrdering::Equal
    }
}

impl<T> Eq for Entry<T> {}

impl<T> PartialOrd for Entry<T> {
    fn partial_cmp(&self, other: &Self) -> Option<CmpOrdering> {
        Some(self.cmp(other))
    }
}

impl<T> Ord for Entry<T> {
    fn cmp(&self, other: &Self) -> CmpOrdering {
        (self.priority, self.seq).cmp(&(other.priority, other.seq))
    }
}

struct Heap<T> {
    entries: BinaryHeap<Entry<T>>,
    next_seq: u64,
}

struct Slot<T> {
    heap: Mutex<Heap<T>>,
    /// The top's priority ([`EMPTY`] when the heap is empty); written under `heap`'s lock.
    best: AtomicI64,
}

impl<T> Slot<T> {
    fn new() -> Self {
        Slot {
            heap: Mutex::new(Heap {
                entries: BinaryHeap::new(),
                next_seq: 0,
            }),
            best: AtomicI64::new(EMPTY),
        }
    }

    /// Removes the top task, if any, and republishes `best` while still holding the lock
    /// (protocol step 1). `BEST_UNDER_LOCK = false` republishes it after the unlock instead:
    /// the broken protocol of the loom model's negative control (a stale `best` can then
    /// overwrite a newer one, and an owner that reads [`EMPTY`] skips a task left in its own
    /// heap); nothing else uses it, and the constant leaves the real path unchanged.
    fn take<const BEST_UNDER_LOCK: bool>(&self) -> Option<T> {
        // A poisoned lock still holds a consistent heap: nothing panics while holding it.
        let mut heap = self.heap.lock().unwrap_or_else(|e| e.into_inner());
        let top = heap.entries.pop()?;
        let best = published(&heap);
        if !BEST_UNDER_LOCK {
            drop(heap);
        }
        self.best.store(best, Ordering::Relaxed);
        Some(top.item)
    }
}

fn published<T>(heap: &Heap<T>) -> i64 {
    heap.entries
        .peek()
        .map_or(EMPTY, |e| e.priority.max(EMPTY + 1))
}

/// The priority heaps of one pool (see the [module](self) docs).
pub(crate) struct PriorityQueues<T> {
    /// `workers` worker slots, then the shared slot.
    slots: Box<[CachePadded<Slot<T>>]>,
    /// Tasks in all heaps (an upper bound at any point of its modification order).
    pending: CachePadded<AtomicUsize>,
}

impl<T> PriorityQueues<T> {
    /// Heaps for `workers` workers and the shared slot.
    pub(crate) fn new(workers: usize) -> Self {
        PriorityQueues {
            slots: (0..=workers)
                .map(|_| CachePadded::new(Slot::new()))
                .collect(),
            pending: CachePadded::new(AtomicUsize::new(0)),
        }
    }

    /// The slot of tasks spawned from outside the pool's workers.
    pub(crate) fn shared_slot(&self) -> usize {
        self.slots.len() - 1
    }

    /// Whether any heap may hold a task: the one relaxed load that work without priorities
    /// pays on its idle path.
    #[inline]
    pub(crate) fn maybe_pending(&self) -> bool {
        self.pending.load(Ordering::Relaxed) != 0
    }

    /// `maybe_pending` for the sleep protocol: a `SeqCst` load (the Dekker pair with the
    /// fence after a push to the shared slot).
    pub(crate) fn pending_seqcst(&self) -> bool {
        self.pending.load(Ordering::SeqCst) != 0
    }

    /// Puts `item` in `slot`'s heap with `priority`.
    pub(crate) fn push(&self, slot: usize, priority: i64, item: T) {
        // Before the insert: `pending` never reads 0 while the task is in a heap.
        self.pending.fetch_add(1, Ordering::Relaxed);
        let s = &self.slots[slot];
        let mut heap = s.heap.lock().unwrap_or_else(|e| e.into_inner());
        let seq = heap.next_seq;
        heap.next_seq += 1;
        heap.entries.push(Entry {
            priority,
            seq,
            item,
        });
        s.best.store(published(&heap), Ordering::Relaxed);
    }

    /// The task worker `me` should run next among the prioritised ones, and where it was:
    /// the top of its own heap if it has one ([`Origin::Own`]), else the top of the heap
    /// with the best published priority, the shared slot included ([`Origin::Other`]),
    /// scanning from `me + 1` so that thieves spread over equal victims. `None` if every
    /// heap looked empty.
    #[inline]
    pub(crate) fn take(&self, me: usize) -> Option<(T, Origin)> {
        self.take_publishing::<true>(me)
    }

    /// [`take`](Self::take) with protocol step 1 broken: each heap's `best` republished
    /// after its lock is released. Only for the loom model's negative control.
    #[cfg(all(test, loom))]
    pub(crate) fn take_publishing_best_unlocked(&self, me: usize) -> Option<(T, Origin)> {
        self.take_publishing::<false>(me)
    }

    /// [`take`](Self::take), with `best` republished as [`Slot::take`] says.
    fn take_publishing<const BEST_UNDER_LOCK: bool>(&self, me: usize) -> Option<(T, Origin)> {
        let own = &self.slots[me];
        if own.best.load(Ordering::Relaxed) != EMPTY {
            if let Some(item) = own.take::<BEST_UNDER_LOCK>() {
                return Some((self.taken(item), Origin::Own));
            }
        }
        let n = self.slots.len();
        for _ in 0..SCAN_RETRIES {
            let mut chosen = None;
            let mut best = EMPTY;
            for k in 1..n {
                let i = (me + k) % n;
                let b = self.slots[i].best.load(Ordering::Relaxed);
                if b > best {
                    best = b;
                    chosen = Some(i);
                }
            }
            let i = chosen?;
            if let Some(item) = self.slots[i].take::<BEST_UNDER_LOCK>() {
                return Some((self.taken(item), Origin::Other));
            }
        }
        None
    }

    fn taken(&self, item: T) -> T {
        // After the removal: see `push`.
        self.pending.fetch_sub(1, Ordering::Relaxed);
        item
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_heap_orders_by_priority_then_lifo() {
        let q = PriorityQueues::new(1);
        for (p, name) in [(3, "a"), (1, "b"), (2, "c"), (3, "d")] {
            q.push(0, p, name);
        }
        let order: Vec<_> = std::iter::from_fn(|| q.take(0)).collect();
        assert_eq!(
            order,
            [
                ("d", Origin::Own),
                ("a", Origin::Own),
                ("c", Origin::Own),
                ("b", Origin::Own)
            ]
        );
        assert!(!q.maybe_pending());
    }

    #[test]
    fn an_empty_worker_takes_the_best_of_the_others() {
        let q = PriorityQueues::new(3);
        q.push(0, 5, "w0-5");
        q.push(1, 9, "w1-9");
        q.push(q.shared_slot(), 7, "shared-7");
        q.push(0, i64::MIN, "w0-min");
        assert_eq!(q.take(2), Some(("w1-9", Origin::Other)));
        assert_eq!(q.take(2), Some(("shared-7", Origin::Other)));
        // Worker 0 takes its own before anything else.
        assert_eq!(q.take(0), Some(("w0-5", Origin::Own)));
        assert_eq!(q.take(1), Some(("w0-min", Origin::Other)));
        assert_eq!(q.take(1), None);
        assert!(!q.maybe_pending());
    }
}
