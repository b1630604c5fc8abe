//! FIFO spawns (`spawn_fifo`, `scope_fifo`), as rayon-core orders them: each worker runs
//! the jobs it spawned with `spawn_fifo` oldest first, while its deque stays LIFO.
//!
//! A FIFO spawn puts the job in a [`JobFifo`] (a queue of the spawning worker: the worker's
//! own outside any `scope_fifo`, else the scope's queue for that worker) and pushes an
//! *indirection* on the worker's deque: a job that, whoever runs it, takes the oldest job of
//! that queue and runs it. The deque hands out indirections newest first, and each one runs
//! the oldest job, so the jobs of one queue run in spawn order on their owner, and a thief
//! that steals an indirection also takes the oldest job. Why it is exact: every push adds one
//! job and one indirection, and every indirection takes one job, so an indirection always
//! finds a job (the queue never has more takers than jobs), and the queue is never touched
//! after its last job ran; a scope's queues therefore live as long as the scope, and a
//! worker's queue lives in the registry.

use std::marker::PhantomData;
use std::sync::Arc;

use crossbeam_deque::{Injector, Steal};

use super::job::{Job, JobRef};
use super::registry::{Registry, WorkerThread};
use super::scope::{in_place, on_worker, scope_job, ScopeBase, ScopeKind};

/// A queue of jobs run oldest first through indirections (see the module note).
pub(crate) struct JobFifo {
    jobs: Injector<JobRef>,
}

impl JobFifo {
    pub(crate) fn new() -> Self {
        JobFifo {
            jobs: Injector::new(),
        }
    }

    /// Queues `job` and returns the indirection to push on the spawning worker's deque.
    ///
    /// # Safety
    /// `self` must stay alive until the returned indirection has run; whoever waits for
    /// `job` keeps it so (see the module note).
    pub(crate) unsafe fn push(&self, job: JobRef) -> JobRef {
        self.jobs.push(job);
        // SAFETY: forwarded from the caller.
        unsafe { JobRef::new(self) }
    }
}

impl Job for JobFifo {
    unsafe fn execute(this: *const Self) {
        // SAFETY: the caller guarantees `this` is alive (`push`'s contract).
        let fifo = unsafe { &*this };
        loop {
            match fifo.jobs.steal() {
                // SAFETY: each queued job is taken once, here, and its data lives until it ran.
                Steal::Success(job) => return unsafe { job.execute() },
                Steal::Retry => continue,
                // Impossible by the count argument of the module note; an empty queue would
                // mean a lost job, so fail loudly rather than return.
                Steal::Empty => {
                    eprintln!("magpie: a FIFO indirection found its queue empty; aborting");
                    std::process::abort();
                }
            }
        }
    }
}

/// The variance marker of [`ScopeFifo`].
type ScopeFifoBody<'scope> = Box<dyn FnOnce(&ScopeFifo<'scope>) + Send + Sync + 'scope>;

/// A scope whose jobs each worker runs in the order it spawned them; see [`scope_fifo`].
pub struct ScopeFifo<'scope> {
    base: ScopeBase,
    /// One queue per worker of the scope's pool.
    fifos: Vec<JobFifo>,
    marker: PhantomData<ScopeFifoBody<'scope>>,
}

/// Creates a scope whose spawns run first in, first out: like [`crate::scope`], but
/// each worker runs the jobs it spawned with [`ScopeFifo::spawn_fifo`] in spawn order
/// (thieves, too, take the oldest). `op` runs on a worker of the current pool (the global
/// pool outside any pool).
///
/// ```
/// use std::sync::Mutex;
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(1).build().unwrap();
/// let order = Mutex::new(Vec::new());
/// pool.scope_fifo(|s| {
///     for i in 0..4 {
///         let order = &order;
///         s.spawn_fifo(move |_| order.lock().unwrap().push(i));
///     }
/// });
/// assert_eq!(order.into_inner().unwrap(), [0, 1, 2, 3]);
/// ```
pub fn scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
    R: Send,
{
    crate::runtime::current_registry_ref(|registry| scope_fifo_in(registry, op))
}

/// [`scope_fifo`] on `registry`: `op` runs on one of its workers.
pub(crate) fn scope_fifo_in<'scope, OP, R>(registry: &Arc<Registry>, op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
    R: Send,
{
    registry.in_worker(|wt, _| on_worker(wt, op))
}

/// Like [`scope_fifo`], but `op` runs on the calling thread (see [`crate::in_place_scope`]).
///
/// ```
/// let mut v = vec![0; 3];
/// magpie::in_place_scope_fifo(|s| {
///     for (i, x) in v.iter_mut().enumerate() {
///         s.spawn_fifo(move |_| *x = i + 1);
///     }
/// });
/// assert_eq!(v, [1, 2, 3]);
/// ```
pub fn in_place_scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R,
{
    in_place(None, op)
}

impl ScopeKind for ScopeFifo<'_> {
    fn new(registry: Option<&Arc<Registry>>, owner: Option<&WorkerThread>) -> Self {
        let base = ScopeBase::new(registry, owner);
        let fifos = (0..base.registry().num_workers())
            .map(|_| JobFifo::new())
            .collect();
        ScopeFifo {
            base,
            fifos,
            marker: PhantomData,
        }
    }

    fn base(&self) -> &ScopeBase {
        &self.base
    }
}

impl<'scope> ScopeFifo<'scope> {
    /// Spawns a job into the scope: the spawning worker runs its FIFO jobs oldest first
    /// (from outside the pool, the job goes to the pool's shared queue). The job gets the
    /// scope back so it can spawn more.
    pub fn spawn_fifo<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&ScopeFifo<'scope>) + Send + 'scope,
    {
        // SAFETY: `body` borrows only data outliving 'scope (its bound).
        let job = unsafe { scope_job(self, body) };
        let registry = self.base.registry();
        match current_worker_of(registry) {
            // SAFETY: the scope's queue lives until the scope ends, after its last job ran.
            Some(wt) => wt.push(unsafe { self.fifos[wt.index()].push(job) }),
            None => registry.inject(job),
        }
    }
}

/// The current thread's worker if it belongs to `registry`.
fn current_worker_of(registry: &Registry) -> Option<&WorkerThread> {
    // SAFETY: a non-null TLS pointer is this thread's live WorkerThread.
    unsafe { WorkerThread::current().as_ref() }.filter(|wt| wt.registry().id() == registry.id())
}

/// Spawns a `'static` job on the current pool (the global pool outside any pool) that the
/// spawning worker runs in FIFO order with its other `spawn_fifo` jobs; see [`crate::spawn`]
/// for panics.
///
/// ```
/// use std::sync::mpsc::channel;
/// let (tx, rx) = channel();
/// magpie::spawn_fifo(move || tx.send(6 * 7).unwrap());
/// assert_eq!(rx.recv().unwrap(), 42);
/// ```
pub fn spawn_fifo<F>(f: F)
where
    F: FnOnce() + Send + 'static,
{
    crate::runtime::current_registry_ref(|registry| spawn_fifo_in(registry, f))
}

/// [`spawn_fifo`] on `registry`.
pub(crate) fn spawn_fifo_in<F>(registry: &Arc<Registry>, f: F)
where
    F: FnOnce() + Send + 'static,
{
    let job = super::scope::static_job(registry, f);
    match current_worker_of(registry) {
        // SAFETY: the worker's queue lives in the registry, which outlives its jobs.
        Some(wt) => wt.push(unsafe { wt.fifo().push(job) }),
        None => registry.inject(job),
    }
}
