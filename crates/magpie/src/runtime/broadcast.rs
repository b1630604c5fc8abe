//! Broadcasts: one job on every worker of a pool, each exactly once (`broadcast`,
//! `spawn_broadcast`, and the scopes' `spawn_broadcast`).
//!
//! Each worker has a broadcast queue of its own (`ThreadInfo::broadcasts`), which only it
//! takes from: right after its own deque in `find_work`, so a worker busy with its own work
//! finishes that first, and before stealing. The publisher pushes one job into every queue,
//! runs a SeqCst fence, and wakes every sleeping worker (`Registry::inject_broadcast`); a
//! worker about to sleep checks its own queue after announcing itself (`has_work`): the
//! Dekker pair of `sleep.rs`, so no broadcast job is left behind by a sleeper. A worker that
//! runs a long job, or waits outside the pool (the calling thread adopted as worker 0),
//! runs its part when it next looks for work.

use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

use super::job::{HeapJob, JobRef, StackJob};
use super::latch::{CountLatch, LatchRef};
use super::registry::{Registry, WorkerThread};
use super::scope::{ScopeKind, ScopePtr};
use super::{Scope, ScopeFifo};

/// Where a broadcast job runs: the worker's index and the pool's size.
#[derive(Debug)]
pub struct BroadcastContext<'a> {
    index: usize,
    num_workers: usize,
    /// Not `Send`: it describes the thread it was made on.
    _marker: PhantomData<&'a mut *mut ()>,
}

impl BroadcastContext<'_> {
    /// The context of the current worker (broadcast jobs only run on workers).
    fn current() -> Self {
        // SAFETY: a non-null TLS pointer is this thread's live WorkerThread.
        let wt = unsafe { WorkerThread::current().as_ref() }
            .expect("broadcast jobs run on the workers of their pool");
        BroadcastContext {
            index: wt.index(),
            num_workers: wt.registry().num_workers(),
            _marker: PhantomData,
        }
    }

    /// The index of the worker running this job, `0..num_threads()`; each index runs once.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The number of workers of the pool: the number of times the broadcast runs.
    pub fn num_threads(&self) -> usize {
        self.num_workers
    }
}

/// Runs `op` once on every worker of the current pool (the global pool outside any pool)
/// and returns the results by worker index. The caller waits; a worker caller runs its own
/// part and other work meanwhile. A panic in any part propagates after every part ran (the
/// lowest index's first).
///
/// ```
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(3).build().unwrap();
/// let seen = pool.install(|| magpie::broadcast(|ctx| (ctx.index(), ctx.num_threads())));
/// assert_eq!(seen, [(0, 3), (1, 3), (2, 3)]);
/// ```
pub fn broadcast<OP, R>(op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    crate::runtime::current_registry_ref(|registry| broadcast_in(registry, op))
}

/// [`broadcast`] on `registry`.
pub(crate) fn broadcast_in<OP, R>(registry: &Arc<Registry>, op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    registry.in_worker(|wt, _| {
        let n = wt.registry().num_workers();
        let latch = CountLatch::with_count(n, Some(wt));
        let op = &op;
        let jobs: Vec<_> = (0..n)
            .map(|_| StackJob::new(|_| op(BroadcastContext::current()), LatchRef(&latch)))
            .collect();
        // SAFETY: the jobs stay in `jobs` (not moved: the vector is not touched) until the
        // latch counted every one of them down below.
        let refs = jobs.iter().map(|job| unsafe { job.as_job_ref() });
        wt.registry().inject_broadcast(refs);
        latch.wait(Some(wt));
        jobs.into_iter().map(StackJob::into_result).collect()
    })
}

/// Runs `op` once on every worker of the current pool (the global pool outside any pool),
/// without waiting; a panic goes to the pool's panic handler.
///
/// ```
/// use std::sync::mpsc::channel;
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
/// let (tx, rx) = channel();
/// pool.spawn_broadcast(move |ctx| tx.send(ctx.index()).unwrap());
/// let mut got: Vec<usize> = rx.iter().take(2).collect();
/// got.sort();
/// assert_eq!(got, [0, 1]);
/// ```
pub fn spawn_broadcast<OP>(op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    crate::runtime::current_registry_ref(|registry| spawn_broadcast_in(registry, op))
}

/// [`spawn_broadcast`] on `registry`.
pub(crate) fn spawn_broadcast_in<OP>(registry: &Arc<Registry>, op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    let op = Arc::new(op);
    let jobs = (0..registry.num_workers()).map(|_| {
        let op = Arc::clone(&op);
        super::scope::static_job(registry, move || op(BroadcastContext::current()))
    });
    registry.inject_broadcast(jobs.collect::<Vec<_>>().into_iter());
}

/// One job per worker of `scope`'s pool, counted by the scope, each running `body` with the
/// scope (`Scope::spawn_broadcast`, `ScopeFifo::spawn_broadcast`); `body` may borrow what
/// outlives the scope.
fn scope_broadcast<S, F>(scope: &S, body: F)
where
    S: ScopeKind,
    F: Fn(&S, BroadcastContext<'_>) + Send + Sync,
{
    let base = scope.base();
    let registry = base.registry();
    let n = registry.num_workers();
    let body = Arc::new(body);
    base.add_jobs(n);
    let jobs: Vec<JobRef> = (0..n)
        .map(|_| {
            let body = Arc::clone(&body);
            let scope_ptr = ScopePtr(scope as *const S);
            let job = HeapJob::new(move || {
                let scope_ptr = scope_ptr;
                // SAFETY: the scope waits for this job (counted above), so it is alive.
                let scope = unsafe { &*scope_ptr.0 };
                let run = || body(scope, BroadcastContext::current());
                if let Err(p) = panic::catch_unwind(AssertUnwindSafe(run)) {
                    scope.base().record_panic(p);
                }
                // The body (and its borrows) is gone before the count goes down.
                drop(body);
                // SAFETY: see above; nothing touches the scope after this.
                unsafe { super::latch::Latch::set(scope.base().latch()) };
            });
            // SAFETY: the job borrows only what outlives the scope, which waits for it.
            unsafe { job.into_job_ref() }
        })
        .collect();
    registry.inject_broadcast(jobs.into_iter());
}

impl<'scope> Scope<'scope> {
    /// Spawns `body` into the scope once on every worker of the scope's pool; the scope
    /// waits for all of them.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let pool = magpie::ThreadPoolBuilder::new().num_workers(3).build().unwrap();
    /// let runs = AtomicUsize::new(0);
    /// pool.scope(|s| s.spawn_broadcast(|_, _| { runs.fetch_add(1, Ordering::Relaxed); }));
    /// assert_eq!(runs.into_inner(), 3);
    /// ```
    pub fn spawn_broadcast<BODY>(&self, body: BODY)
    where
        BODY: Fn(&Scope<'scope>, BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        scope_broadcast(self, body)
    }
}

impl<'scope> ScopeFifo<'scope> {
    /// [`Scope::spawn_broadcast`] for a FIFO scope.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
    /// let runs = AtomicUsize::new(0);
    /// pool.scope_fifo(|s| s.spawn_broadcast(|_, _| { runs.fetch_add(1, Ordering::Relaxed); }));
    /// assert_eq!(runs.into_inner(), 2);
    /// ```
    pub fn spawn_broadcast<BODY>(&self, body: BODY)
    where
        BODY: Fn(&ScopeFifo<'scope>, BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        scope_broadcast(self, body)
    }
}
