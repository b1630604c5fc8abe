//! The fork-join runtime: registry (pool state and worker loop), jobs, latches, sleep/wake,
//! and the user API built on them (`join`, `scope`, `spawn`, `install`).

pub(crate) mod latch;
#[cfg(any(not(loom), test))]
pub(crate) mod priority;
pub(crate) mod sleep;
pub(crate) mod tally;
#[cfg(all(test, loom))]
mod tests {
    mod loom_priority;
    mod loom_sleep;
    mod loom_team;
}

/// Puts `#[cfg(not(loom))]` on every item it is given: the runtime proper, which loom does
/// not build (only the concurrent structures above and their models are built there).
macro_rules! not_under_loom {
    ($($item:item)*) => {
        $(#[cfg(not(loom))] $item)*
    };
}

not_under_loom! {
    mod broadcast;
    pub(crate) mod builder;
    mod fifo;
    mod job;
    mod join;
    mod pool;
    pub(crate) mod registry;
    mod scope;
    pub(crate) mod task;
    pub(crate) mod team;
    mod thread;
    mod worker;
}

#[cfg(not(loom))]
pub use self::{
    broadcast::{broadcast, spawn_broadcast, BroadcastContext},
    builder::{
        BuildError, IntoDequeKind, JoinLimit, ParseSettingError, Signal, ThreadPoolBuilder,
        DEFAULT_STACK_SIZE, MAX_WORKERS,
    },
    fifo::{in_place_scope_fifo, scope_fifo, spawn_fifo, ScopeFifo},
    join::{join, join_context, FnContext},
    pool::{PoolStats, ThreadPool},
    scope::{in_place_scope, scope, spawn, spawn_with_priority, Scope},
    thread::ThreadBuilder,
};

#[cfg(not(loom))]
mod global {
    use super::registry::{Registry, WorkerThread};
    use super::{BuildError, ThreadPoolBuilder};
    use std::sync::{Arc, Mutex, OnceLock};

    static GLOBAL: OnceLock<Arc<Registry>> = OnceLock::new();

    /// The global registry, built on first use from the environment. A bad environment value
    /// is reported once on stderr and the defaults are used instead.
    pub(crate) fn global_registry() -> &'static Arc<Registry> {
        if let Some(r) = GLOBAL.get() {
            return r;
        }
        // Under `build_global`'s lock: a `build_global` never races the implicit start, so
        // it never starts a registry that loses (and, with `use_current_thread`, never leaves
        // its thread adopted by a pool that was shut down).
        let _serial = SETTING.lock().unwrap_or_else(|e| e.into_inner());
        GLOBAL.get_or_init(|| {
            let start = |b: ThreadPoolBuilder| b.into_registry();
            match start(ThreadPoolBuilder::from_env()) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("magpie: global pool: {e}; using the default configuration instead");
                    start(ThreadPoolBuilder::new())
                        .unwrap_or_else(|e| panic!("magpie: cannot start the global pool: {e}"))
                }
            }
        })
    }

    /// Serialises `build_global` calls, so that at most one builds a registry at a time.
    static SETTING: Mutex<()> = Mutex::new(());

    /// Installs the registry `make` builds as the global one. `make` runs only if there is
    /// no global pool yet; a failure leaves the global pool unset (a later use builds the
    /// default). If the default was built concurrently, the new registry is shut down.
    pub(crate) fn set_global(
        make: impl FnOnce() -> Result<Arc<Registry>, BuildError>,
    ) -> Result<(), BuildError> {
        let _serial = SETTING.lock().unwrap_or_else(|e| e.into_inner());
        if GLOBAL.get().is_some() {
            return Err(BuildError::GlobalAlreadyInitialized);
        }
        let registry = make()?;
        // Nobody else sets GLOBAL without holding SETTING, which we hold.
        GLOBAL.set(registry).map_err(|lost| {
            lost.terminate();
            BuildError::GlobalAlreadyInitialized
        })
    }

    /// The index of the current thread in its pool, if it is a worker of some pool.
    ///
    /// ```
    /// assert_eq!(magpie::current_worker_index(), None);
    /// let pool = magpie::ThreadPoolBuilder::new().num_workers(3).build().unwrap();
    /// let i = pool.install(magpie::current_worker_index).unwrap();
    /// assert!(i < 3);
    /// ```
    pub fn current_worker_index() -> Option<usize> {
        // SAFETY: a non-null TLS pointer is this thread's live WorkerThread.
        unsafe { WorkerThread::current().as_ref() }.map(|wt| wt.index())
    }

    /// The number of workers of the current pool (the global pool outside any pool).
    ///
    /// ```
    /// let pool = magpie::ThreadPoolBuilder::new().num_workers(3).build().unwrap();
    /// assert_eq!(pool.install(magpie::current_num_workers), 3);
    /// ```
    pub fn current_num_workers() -> usize {
        // SAFETY: a non-null TLS pointer is this thread's live WorkerThread.
        match unsafe { WorkerThread::current().as_ref() } {
            Some(wt) => wt.registry().num_workers(),
            None => global_registry().num_workers(),
        }
    }

    /// Lets thieves take this worker's queued tasks during long sequential code.
    ///
    /// The `lcws-user` deque exposes tasks to thieves only when its owner pushes or pops, so
    /// a worker that queued tasks (a `scope` spawn, the second half of a `join`) and then
    /// computes for a long time without forking again keeps them to itself. Calling this
    /// now and then from such code (every few microseconds of work is plenty) serves any
    /// pending request; the search skeletons call it every 64 nodes. It costs one
    /// thread-local and one relaxed load when no thief asked, and does nothing with the other
    /// deques (Chase-Lev tasks are always public; the signal-based deques are served by
    /// their signal handler) or outside a pool.
    ///
    /// ```
    /// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).deque("lcws-user").build().unwrap();
    /// let total: u64 = pool.scope(|s| {
    ///     s.spawn(|_| { /* a task a thief may take */ });
    ///     (0..1_000_000u64).map(|i| {
    ///         if i % 4096 == 0 {
    ///             magpie::expose_work();
    ///         }
    ///         i
    ///     }).sum()
    /// });
    /// assert_eq!(total, 499_999_500_000);
    /// ```
    #[inline]
    pub fn expose_work() {
        // SAFETY: a non-null TLS pointer is this thread's live WorkerThread.
        if let Some(wt) = unsafe { WorkerThread::current().as_ref() } {
            wt.serve_exposure();
        }
    }

    /// Makes every task the current worker has queued visible to thieves at once (a no-op
    /// outside a pool): for a parallel loop's participants, which are pushed to be stolen.
    #[inline]
    pub(crate) fn expose_all_work() {
        // SAFETY: a non-null TLS pointer is this thread's live WorkerThread.
        if let Some(wt) = unsafe { WorkerThread::current().as_ref() } {
            wt.expose_all();
        }
    }

    /// Successful steals so far by every worker of the current pool (the global pool
    /// outside any pool); 0 when built without the `counters` feature.
    pub(crate) fn current_pool_steals() -> u64 {
        // SAFETY: a non-null TLS pointer is this thread's live WorkerThread.
        match unsafe { WorkerThread::current().as_ref() } {
            Some(wt) => wt.registry().total_steals(),
            None => global_registry().total_steals(),
        }
    }

    /// Calls `f` with the registry of the current pool (the global pool outside any pool),
    /// without touching its reference count.
    pub(crate) fn current_registry_ref<R>(f: impl FnOnce(&Arc<Registry>) -> R) -> R {
        // SAFETY: a non-null TLS pointer is this thread's live WorkerThread.
        match unsafe { WorkerThread::current().as_ref() } {
            Some(wt) => f(wt.registry()),
            None => f(global_registry()),
        }
    }

    /// A snapshot of the counters of the current pool (the global pool outside any pool):
    /// how a program that never holds its pool (a rayon program on the global pool) reads
    /// them.
    ///
    /// ```
    /// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
    /// let stats = pool.install(|| {
    ///     magpie::join(|| (), || ());
    ///     magpie::current_pool_stats()
    /// });
    /// assert_eq!(stats.workers.len(), 2);
    /// assert!(stats.total().tasks_run >= 1);
    /// ```
    pub fn current_pool_stats() -> super::PoolStats {
        current_registry_ref(|r| super::PoolStats { workers: r.stats() })
    }

    /// What a yield did: ran a job, or found none.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Yield {
        /// A pending job ran.
        Executed,
        /// No pending job was found.
        Idle,
    }

    /// Runs one pending job of the current pool if there is one, looking where an idle
    /// worker would (its own deque, its broadcasts, prioritised jobs, other workers' deques,
    /// the pool's shared queue); never blocks. `None` outside any pool.
    ///
    /// ```
    /// assert_eq!(magpie::yield_now(), None);
    /// let pool = magpie::ThreadPoolBuilder::new().num_workers(1).build().unwrap();
    /// let ran = pool.install(|| {
    ///     let (tx, rx) = std::sync::mpsc::channel();
    ///     magpie::spawn(move || tx.send(1).unwrap());
    ///     (magpie::yield_now(), rx.try_recv().ok())
    /// });
    /// assert_eq!(ran, (Some(magpie::Yield::Executed), Some(1)));
    /// ```
    pub fn yield_now() -> Option<Yield> {
        // SAFETY: a non-null TLS pointer is this thread's live WorkerThread.
        unsafe { WorkerThread::current().as_ref() }.map(WorkerThread::yield_now)
    }

    /// Runs one job of the current worker's own (its deque, its broadcast queue) if it has
    /// one, never stealing; `None` outside any pool.
    ///
    /// ```
    /// assert_eq!(magpie::yield_local(), None);
    /// let pool = magpie::ThreadPoolBuilder::new().num_workers(1).build().unwrap();
    /// assert_eq!(pool.install(magpie::yield_local), Some(magpie::Yield::Idle));
    /// ```
    pub fn yield_local() -> Option<Yield> {
        // SAFETY: a non-null TLS pointer is this thread's live WorkerThread.
        unsafe { WorkerThread::current().as_ref() }.map(WorkerThread::yield_local)
    }

    /// Whether the current worker has jobs queued (a hint: thieves may take them at any
    /// time); `None` outside any pool.
    ///
    /// ```
    /// assert_eq!(magpie::current_thread_has_pending_tasks(), None);
    /// let pool = magpie::ThreadPoolBuilder::new().num_workers(1).build().unwrap();
    /// assert_eq!(pool.install(magpie::current_thread_has_pending_tasks), Some(false));
    /// ```
    pub fn current_thread_has_pending_tasks() -> Option<bool> {
        // SAFETY: a non-null TLS pointer is this thread's live WorkerThread.
        unsafe { WorkerThread::current().as_ref() }.map(WorkerThread::has_pending_tasks)
    }

    /// The registry of the current pool (the global pool outside any pool).
    pub(crate) fn current_registry() -> Arc<Registry> {
        // SAFETY: a non-null TLS pointer is this thread's live WorkerThread.
        match unsafe { WorkerThread::current().as_ref() } {
            Some(wt) => wt.registry().clone(),
            None => global_registry().clone(),
        }
    }
}

#[cfg(not(loom))]
pub use global::{
    current_num_workers, current_pool_stats, current_thread_has_pending_tasks,
    current_worker_index, expose_work, yield_local, yield_now, Yield,
};
#[cfg(not(loom))]
pub(crate) use global::{
    current_pool_steals, current_registry, current_registry_ref, expose_all_work, global_registry,
    set_global,
};
