//! The ledger of a replicable optimisation (`Options::replicable_window`): what the
//! finished tasks and the frontier of an Ordered search found, so that the incumbent a task
//! prunes with is fixed by its number alone.
//!
//! The protocol (Mutex + Condvar, model-checked by `tests/loom_ledger.rs` beside it):
//! - The Ordered pool numbers tasks in priority order as it hands them out, under its own
//!   lock. Before it takes each node it calls [`TaskLedger::view`] with the number of tasks
//!   handed out so far, `k`: that folds the caller's frontier find in, waits until tasks
//!   `0..=k - window` have finished and (for `k >= 1`) task 0 has passed its checkpoint,
//!   and returns the best of the frontier, of those tasks' final values (a running maximum
//!   over the tasks in number order, so a task that finished early and out of order is not
//!   counted before its turn) and of task 0's checkpoint value.
//! - Task 0 passes its checkpoint at the first tick of its walk (every 64 nodes) at which it
//!   has expanded at least [`CHECKPOINT`] nodes ([`TaskLedger::checkpoint`]), or when it
//!   finishes first. The best value it
//!   had then is fixed by its own (fixed) search: the heuristic's first dive, often close
//!   to the optimum, which the first `window - 1` tasks after it would otherwise run
//!   without. Every other task would make the next one wait as long as it runs, when it is
//!   smaller than the checkpoint, so only task 0 has one.
//! - A worker that finishes task `k` (or skips it) calls [`TaskLedger::done`] with its best
//!   value and its find, and wakes the waiters.
//! - [`TaskLedger::cancel`] (a panic elsewhere) wakes every waiter for good.
//!
//! Every wait ends: the tasks it waits for have been handed out, each to a worker that runs
//! it to its end without taking the pool's lock, and the waiter runs no task below it on its
//! own stack (a worker job that starts on a thread already running a job of the same search,
//! when the space's code forks and the thread waits, gives itself back: `ordered::worker`).

use std::collections::VecDeque;

use crate::sync::atomic::{AtomicBool, Ordering};
use crate::sync::{Condvar, Mutex, MutexGuard};

/// Where a candidate answer was found, for a tie between equal values: a frontier visit
/// made while the pool had handed out `n` tasks is `(n, 0)`, a find of task `n` is `(n, 1)`.
/// The smallest source wins, so the reported answer does not depend on timing either.
pub type Source = (u64, u8);

/// Nodes task 0's walk expands before its checkpoint (at least: the walk checks at its ticks).
pub const CHECKPOINT: u64 = 1024;

/// The shared state of one replicable optimisation (see the module doc).
pub struct TaskLedger<N> {
    window: u64,
    state: Mutex<State<N>>,
    /// Signalled when a task finishes or the search is cancelled.
    finished: Condvar,
    cancelled: AtomicBool,
}

struct State<N> {
    /// The best value of the frontier visits folded so far (and the initial bound).
    frontier: i64,
    /// The best value of tasks `0..seen` (and the initial bound).
    tasks_best: i64,
    /// Tasks below this number are folded into `tasks_best`.
    seen: u64,
    /// The results of tasks `seen..`: `Some(best)` once finished.
    pending: VecDeque<Option<i64>>,
    /// Task 0's best value at its checkpoint, once it has passed it.
    first: Option<i64>,
    /// The answer so far: value, source, node.
    answer: Option<(i64, Source, N)>,
}

impl<N> State<N> {
    /// Keeps the better of the answer so far and `node`; returns the other one, to be
    /// dropped by the caller after the lock is released (a node's `Drop` is user code).
    #[must_use]
    fn offer(&mut self, value: i64, source: Source, node: N) -> Option<N> {
        let better = match &self.answer {
            None => true,
            Some((v, s, _)) => value > *v || (value == *v && source < *s),
        };
        if better {
            self.answer
                .replace((value, source, node))
                .map(|(_, _, old)| old)
        } else {
            Some(node)
        }
    }
}

impl<N> TaskLedger<N> {
    /// A ledger whose incumbent starts at `initial`; task `k` counts the tasks up to
    /// `k - window` (`window >= 1`).
    pub fn new(initial: i64, window: u64) -> Self {
        TaskLedger {
            window: window.max(1),
            state: Mutex::new(State {
                frontier: initial,
                tasks_best: initial,
                seen: 0,
                pending: VecDeque::new(),
                first: None,
                answer: None,
            }),
            finished: Condvar::new(),
            cancelled: AtomicBool::new(false),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<N>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The incumbent so far of the frontier and the folded tasks, without waiting: the view
    /// of the search's sequential start (the root's visit and expansion).
    pub fn current(&self) -> i64 {
        let s = self.lock();
        s.frontier.max(s.tasks_best)
    }

    /// Folds a frontier find (made while the pool had handed out `source.0` tasks).
    pub fn frontier_find(&self, value: i64, source: Source, node: N) {
        let mut s = self.lock();
        s.frontier = s.frontier.max(value);
        let loser = s.offer(value, source, node);
        drop(s);
        drop(loser);
    }

    /// The view of whatever the pool takes after handing out `tasks` tasks: first folds
    /// `find` (the caller's frontier find since its last view, if any), then waits until
    /// tasks `0..=tasks - window` have finished and, if `tasks >= 1`, task 0 has passed its
    /// checkpoint, and returns the best value of the frontier, of those tasks and of task
    /// 0's checkpoint. Returns early, with a value that no longer matters, once the search
    /// is cancelled.
    pub fn view(&self, tasks: u64, find: Option<(i64, Source, N)>) -> i64 {
        if let Some((value, source, node)) = find {
            self.frontier_find(value, source, node);
        }
        // Tasks below `upto` count for this view.
        let upto = (tasks + 1).saturating_sub(self.window);
        let mut s = self.lock();
        loop {
            let best = s.frontier.max(s.tasks_best);
            if self.cancelled.load(Ordering::Relaxed) {
                return best;
            }
            while s.seen < upto {
                let Some(&Some(done)) = s.pending.front() else {
                    break;
                };
                s.tasks_best = s.tasks_best.max(done);
                s.pending.pop_front();
                s.seen += 1;
            }
            if s.seen == upto {
                let best = s.frontier.max(s.tasks_best);
                match (tasks, s.first) {
                    (0, _) => return best,
                    (_, Some(first)) => return best.max(first),
                    _ => {}
                }
            }
            s = self.finished.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Task 0 has passed its checkpoint with the best value `best`: wakes the waiters.
    pub fn checkpoint(&self, best: i64) {
        let mut s = self.lock();
        s.first.get_or_insert(best);
        drop(s);
        self.finished.notify_all();
    }

    /// Task number `task` has finished (or was skipped) with the best value `best` (its
    /// starting view raised by its own finds) and its best find, if any: wakes the waiters.
    pub fn done(&self, task: u64, best: i64, find: Option<(i64, N)>) {
        let mut s = self.lock();
        debug_assert!(task >= s.seen, "task {task} done twice");
        let slot = task.saturating_sub(s.seen) as usize;
        if s.pending.len() <= slot {
            s.pending.resize(slot + 1, None);
        }
        s.pending[slot] = Some(best);
        if task == 0 {
            // Finished before its checkpoint: this was its best value there.
            s.first.get_or_insert(best);
        }
        let loser = find.and_then(|(value, node)| s.offer(value, (task, 1), node));
        drop(s);
        self.finished.notify_all();
        drop(loser);
    }

    /// Stops every wait for good (a panic in a task).
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
        // Under the lock, so that a waiter between its check and its wait sees it.
        let _s = self.lock();
        self.finished.notify_all();
    }

    /// Whether [`cancel`](Self::cancel) was called.
    pub fn cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// The best answer: the greatest value found, from the smallest source among equals.
    pub fn into_answer(self) -> Option<(i64, N)> {
        let s = self.state.into_inner().unwrap_or_else(|e| e.into_inner());
        s.answer.map(|(value, _, node)| (value, node))
    }
}
