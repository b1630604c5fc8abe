//! `ThreadPool`: a handle owning a registry and its worker threads.

use std::fmt;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use super::broadcast::{broadcast_in, spawn_broadcast_in, BroadcastContext};
use super::fifo::{scope_fifo_in, spawn_fifo_in, ScopeFifo};
use super::registry::{Registry, WorkerThread};
use super::scope::{in_place, on_worker, spawn_in, Scope};
use super::Yield;
use crate::deque::DequeKind;
use crate::stats::WorkerStats;
use crate::trace::Trace;

/// A pool of workers. Dropping it stops the workers (after the work already queued) and
/// joins their threads.
///
/// ```
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).deque("chase-lev").build().unwrap();
/// let sum = pool.install(|| {
///     let (a, b) = magpie::join(|| (0..500u64).sum::<u64>(), || (500..1000u64).sum::<u64>());
///     a + b
/// });
/// assert_eq!(sum, 499_500);
/// assert_eq!(pool.stats().workers.len(), 2);
/// ```
pub struct ThreadPool {
    registry: Arc<Registry>,
    handles: Mutex<Vec<JoinHandle<()>>>,
}

impl fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPool")
            .field("num_workers", &self.num_workers())
            .field("deque", &self.deque())
            .finish_non_exhaustive()
    }
}

/// Counters of every worker of a pool, from [`ThreadPool::stats`].
#[derive(Debug, Clone, Default)]
pub struct PoolStats {
    /// One entry per worker, by index.
    pub workers: Vec<WorkerStats>,
}

impl PoolStats {
    /// The sum over all workers.
    pub fn total(&self) -> WorkerStats {
        let mut t = WorkerStats::default();
        for w in &self.workers {
            t += *w;
        }
        t
    }
}

impl ThreadPool {
    pub(crate) fn from_parts(registry: Arc<Registry>, handles: Vec<JoinHandle<()>>) -> Self {
        ThreadPool {
            registry,
            handles: Mutex::new(handles),
        }
    }

    /// Runs `op` on a worker of this pool and returns its result. The free functions
    /// (`join`, `scope`, `spawn`) called inside `op` use this pool.
    ///
    /// From a plain thread, the caller blocks; from a worker of another pool, that worker
    /// keeps running its own pool's jobs while it waits (so pools can call into each other
    /// without deadlock); from a worker of this pool, `op` runs right away.
    pub fn install<OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        self.registry.in_worker(|_, _| op())
    }

    /// [`crate::join`] on this pool.
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.install(|| crate::join(a, b))
    }

    /// [`crate::scope`] on this pool.
    pub fn scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R + Send,
        R: Send,
    {
        self.registry.in_worker(|wt, _| on_worker(wt, op))
    }

    /// [`crate::spawn`] on this pool.
    pub fn spawn<F>(&self, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        spawn_in(&self.registry, f, None)
    }

    /// [`crate::spawn_with_priority`] on this pool: higher `priority` runs first.
    ///
    /// ```
    /// use std::sync::mpsc::channel;
    /// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
    /// let (tx, rx) = channel();
    /// for p in [-3, 0, 5] {
    ///     let tx = tx.clone();
    ///     pool.spawn_with_priority(p, move || tx.send(p).unwrap());
    /// }
    /// drop(tx);
    /// assert_eq!(rx.iter().sum::<i64>(), 2);
    /// ```
    pub fn spawn_with_priority<F>(&self, priority: i64, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        spawn_in(&self.registry, f, Some(priority))
    }

    /// [`crate::scope_fifo`] on this pool.
    pub fn scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
        R: Send,
    {
        scope_fifo_in(&self.registry, op)
    }

    /// [`crate::in_place_scope`] whose jobs go to this pool: `op` runs on the calling thread.
    ///
    /// ```
    /// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
    /// let mut v = [0u8; 2];
    /// pool.in_place_scope(|s| {
    ///     for x in v.iter_mut() {
    ///         s.spawn(|_| *x = magpie::current_worker_index().unwrap() as u8 + 1);
    ///     }
    /// });
    /// assert!(v.iter().all(|&x| x == 1 || x == 2));
    /// ```
    pub fn in_place_scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R,
    {
        in_place(Some(&self.registry), op)
    }

    /// [`crate::in_place_scope_fifo`] whose jobs go to this pool.
    pub fn in_place_scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R,
    {
        in_place(Some(&self.registry), op)
    }

    /// [`crate::spawn_fifo`] on this pool.
    pub fn spawn_fifo<F>(&self, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        spawn_fifo_in(&self.registry, f)
    }

    /// [`crate::broadcast`] on this pool: `op` runs once on each of its workers.
    pub fn broadcast<OP, R>(&self, op: OP) -> Vec<R>
    where
        OP: Fn(BroadcastContext<'_>) -> R + Sync,
        R: Send,
    {
        broadcast_in(&self.registry, op)
    }

    /// [`crate::spawn_broadcast`] on this pool.
    pub fn spawn_broadcast<OP>(&self, op: OP)
    where
        OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
    {
        spawn_broadcast_in(&self.registry, op)
    }

    /// [`crate::yield_now`] if the current thread is a worker of this pool, else `None`.
    pub fn yield_now(&self) -> Option<Yield> {
        self.current_worker().map(WorkerThread::yield_now)
    }

    /// [`crate::yield_local`] if the current thread is a worker of this pool, else `None`.
    pub fn yield_local(&self) -> Option<Yield> {
        self.current_worker().map(WorkerThread::yield_local)
    }

    /// [`crate::current_thread_has_pending_tasks`] if the current thread is a worker of this
    /// pool, else `None`.
    pub fn current_thread_has_pending_tasks(&self) -> Option<bool> {
        self.current_worker().map(WorkerThread::has_pending_tasks)
    }

    /// The current thread's worker, if it is one of this pool.
    fn current_worker(&self) -> Option<&WorkerThread> {
        // SAFETY: a non-null TLS pointer is this thread's live WorkerThread, which outlives
        // the borrow of `self` taken here (it lives as long as its thread's stay in the pool).
        unsafe { WorkerThread::current().as_ref() }
            .filter(|wt| wt.registry().id() == self.registry.id())
    }

    /// Number of workers.
    pub fn num_workers(&self) -> usize {
        self.registry.num_workers()
    }

    /// The deque the workers use.
    pub fn deque(&self) -> DequeKind {
        self.registry.deque_kind()
    }

    /// The victim policy's name.
    pub fn victims(&self) -> String {
        self.registry.victim_policy().name().to_string()
    }

    /// The idle policy's name.
    pub fn idle(&self) -> String {
        self.registry.idle_policy().name().to_string()
    }

    /// The index of the current thread if it is a worker of this pool.
    pub fn current_worker_index(&self) -> Option<usize> {
        self.current_worker().map(WorkerThread::index)
    }

    /// A snapshot of every worker's counters (see [`WorkerStats`] for each field).
    /// `tasks_run` and `busy_ns` are derived at snapshot time.
    pub fn stats(&self) -> PoolStats {
        PoolStats {
            workers: self.registry.stats(),
        }
    }

    /// Sets every counter back to zero. Counters are written by their workers without
    /// read-modify-write operations, so a reset racing with a busy worker may lose a few
    /// events; reset while the pool is quiet for exact numbers.
    pub fn reset_stats(&self) {
        self.registry.reset_stats()
    }

    /// Starts recording what every worker does (a [`Trace`]): until [`ThreadPool::take_trace`],
    /// each worker appends its events to its own buffer, without locks. Calling it while a
    /// recording runs starts over. Each pool records on its own: a trace holds its own
    /// workers' events only, whatever other pools record at the same time.
    ///
    /// ```
    /// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
    /// pool.start_trace();
    /// let n = pool.install(|| 6 * 7);
    /// let trace = pool.take_trace();
    /// assert_eq!(n, 42);
    /// // `install` sent one job to the pool: its span is on the worker that ran it.
    /// let tasks: usize = trace.workers.iter()
    ///     .map(|w| w.events.iter().filter(|e| e.kind == magpie::trace::EventKind::Task).count())
    ///     .sum();
    /// assert_eq!(tasks, 1);
    /// // No recording runs now: the next take is empty.
    /// assert_eq!(pool.take_trace().events().count(), 0);
    /// ```
    pub fn start_trace(&self) {
        self.registry.start_trace()
    }

    /// Ends the recording that [`ThreadPool::start_trace`] started and returns it: per
    /// worker, every event it published since the start. Without a recording, an empty
    /// trace (one empty entry per worker). Events of work that is still running when this
    /// is called may be missing (a task still running appears with its end at the take).
    pub fn take_trace(&self) -> Trace {
        self.registry.take_trace()
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        // The pool terminates once its `'static` jobs ran too (`Registry::release`).
        self.registry.release();
        let handles = std::mem::take(&mut *self.handles.lock().unwrap_or_else(|e| e.into_inner()));
        match self.current_worker() {
            // The calling thread adopted as worker 0 (`use_current_thread`): it serves the
            // pool (its own jobs, its broadcast parts) until the other workers exited.
            Some(wt) if wt.is_adopted() => {
                for h in handles {
                    while !h.is_finished() {
                        if wt.yield_now() == Yield::Idle {
                            std::thread::sleep(std::time::Duration::from_micros(100));
                        }
                    }
                    let _ = h.join();
                }
            }
            // A worker of this very pool cannot join itself: the threads exit on their own.
            Some(_) => {}
            None => {
                for h in handles {
                    let _ = h.join();
                }
            }
        }
    }
}
