//! [`ThreadPool`]: rayon-core's pool type over a magpie pool.

use std::error::Error;
use std::fmt;

use crate::{BroadcastContext, Scope, ScopeFifo, Yield};

/// A pool of worker threads (rayon-core's `ThreadPool`), each a magpie worker. Dropping it
/// shuts the workers down without waiting for them (as rayon-core does); they finish the
/// jobs already queued first.
///
/// ```
/// let pool = rayon_core::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let (a, b) = pool.join(|| 1 + 1, || 2 + 2);
/// assert_eq!((a, b), (2, 4));
/// assert_eq!(pool.current_num_threads(), 2);
/// ```
pub struct ThreadPool {
    inner: magpie::ThreadPool,
}

impl fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPool")
            .field("num_threads", &self.current_num_threads())
            .field("magpie", &self.inner)
            .finish()
    }
}

impl ThreadPool {
    pub(crate) fn from_magpie(inner: magpie::ThreadPool) -> Self {
        ThreadPool { inner }
    }

    /// Builds a pool from a deprecated [`crate::Configuration`].
    #[deprecated(note = "Use `ThreadPoolBuilder::build`")]
    #[allow(deprecated)]
    pub fn new(configuration: crate::Configuration) -> Result<ThreadPool, Box<dyn Error>> {
        configuration.build()
    }

    /// The magpie pool underneath: its counters ([`magpie::ThreadPool::stats`]), traces,
    /// policies and prioritised spawns.
    ///
    /// ```
    /// let pool = rayon_core::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// pool.magpie().spawn_with_priority(5, || ());
    /// assert_eq!(pool.magpie().num_workers(), 2);
    /// ```
    pub fn magpie(&self) -> &magpie::ThreadPool {
        &self.inner
    }

    /// Runs `op` on a worker of this pool and returns its result; `join`, `scope` and the
    /// other free functions called inside use this pool. A panic in `op` propagates.
    pub fn install<OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        self.inner.install(op)
    }

    /// Runs `op` once on every thread of the pool and returns the results by thread index.
    pub fn broadcast<OP, R>(&self, op: OP) -> Vec<R>
    where
        OP: Fn(BroadcastContext<'_>) -> R + Sync,
        R: Send,
    {
        self.inner.broadcast(op)
    }

    /// The number of threads of this pool.
    #[inline]
    pub fn current_num_threads(&self) -> usize {
        self.inner.num_workers()
    }

    /// The index of the current thread if it is a worker of this pool.
    #[inline]
    pub fn current_thread_index(&self) -> Option<usize> {
        self.inner.current_worker_index()
    }

    /// Whether the current thread, a worker of this pool, has jobs queued; `None` if it is
    /// not one of its workers.
    #[inline]
    pub fn current_thread_has_pending_tasks(&self) -> Option<bool> {
        self.inner.current_thread_has_pending_tasks()
    }

    /// [`crate::join`] in this pool.
    pub fn join<A, B, RA, RB>(&self, oper_a: A, oper_b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.inner.join(oper_a, oper_b)
    }

    /// [`crate::scope`] in this pool.
    pub fn scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R + Send,
        R: Send,
    {
        self.inner.scope(op)
    }

    /// [`crate::scope_fifo`] in this pool.
    pub fn scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
        R: Send,
    {
        self.inner.scope_fifo(op)
    }

    /// [`crate::in_place_scope`] whose spawns go to this pool.
    pub fn in_place_scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R,
    {
        self.inner.in_place_scope(op)
    }

    /// [`crate::in_place_scope_fifo`] whose spawns go to this pool.
    pub fn in_place_scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R,
    {
        self.inner.in_place_scope_fifo(op)
    }

    /// [`crate::spawn`] in this pool.
    pub fn spawn<OP>(&self, op: OP)
    where
        OP: FnOnce() + Send + 'static,
    {
        self.inner.spawn(op)
    }

    /// [`crate::spawn_fifo`] in this pool.
    pub fn spawn_fifo<OP>(&self, op: OP)
    where
        OP: FnOnce() + Send + 'static,
    {
        self.inner.spawn_fifo(op)
    }

    /// [`crate::spawn_broadcast`] in this pool.
    pub fn spawn_broadcast<OP>(&self, op: OP)
    where
        OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
    {
        self.inner.spawn_broadcast(op)
    }

    /// [`crate::yield_now`] if the current thread is a worker of this pool, else `None`.
    pub fn yield_now(&self) -> Option<Yield> {
        self.inner.yield_now()
    }

    /// [`crate::yield_local`] if the current thread is a worker of this pool, else `None`.
    pub fn yield_local(&self) -> Option<Yield> {
        self.inner.yield_local()
    }
}
