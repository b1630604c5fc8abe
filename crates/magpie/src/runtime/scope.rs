//! `scope`: spawn any number of borrowing jobs; wait for all of them.

use std::any::Any;
use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Arc;

use super::job::{AbortOnUnwind, HeapJob, JobRef};
use super::latch::{CountLatch, Latch};
use super::registry::{Registry, WorkerThread};

/// The variance marker of [`Scope`].
type ScopeBody<'scope> = Box<dyn FnOnce(&Scope<'scope>) + Send + Sync + 'scope>;

/// What every kind of scope (LIFO [`Scope`], [`crate::ScopeFifo`]) shares: the count of its
/// outstanding jobs, its pool, and the first panic.
pub(crate) struct ScopeBase {
    latch: CountLatch,
    registry: Arc<Registry>,
    /// The first panic of a spawned job (a leaked `Box<Box<dyn Any + Send>>`), or null.
    panic: AtomicPtr<Box<dyn Any + Send + 'static>>,
}

/// A scope in which jobs borrowing from the enclosing stack can be spawned; see [`scope`].
pub struct Scope<'scope> {
    base: ScopeBase,
    /// Invariant in `'scope`, like rayon: spawned closures may borrow anything outliving it.
    marker: PhantomData<ScopeBody<'scope>>,
}

/// Creates a scope, runs `op` in it on the current pool (or the global pool), and returns
/// once `op` and every job spawned in the scope have finished.
///
/// A panic in `op` or in any spawned job is propagated to the caller after all jobs
/// finished (the first panic wins; the others are dropped).
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// let hits = AtomicUsize::new(0);
/// let mut data = vec![0u32; 8];
/// magpie::scope(|s| {
///     for (i, slot) in data.iter_mut().enumerate() {
///         let hits = &hits;
///         s.spawn(move |_| {
///             *slot = i as u32 * 2;
///             hits.fetch_add(1, Ordering::Relaxed);
///         });
///     }
/// });
/// assert_eq!(hits.load(Ordering::Relaxed), 8);
/// assert_eq!(data[7], 14);
/// ```
///
/// A spawned job may borrow only what outlives the scope: not a local of `op`, which is
/// dropped when `op` returns, before the scope waits for its jobs.
///
/// ```compile_fail,E0373
/// let mut lens = Vec::new();
/// magpie::scope(|s| {
///     let local = vec![1, 2, 3];
///     s.spawn(|_| lens.push(local.len()));
/// });
/// ```
///
/// Two jobs that may run at once cannot both borrow the same value mutably.
///
/// ```compile_fail,E0499
/// let mut v = vec![1];
/// magpie::scope(|s| {
///     s.spawn(|_| v.push(2));
///     s.spawn(|_| v.push(3));
/// });
/// ```
///
/// And nothing borrowed from the scope escapes it.
///
/// ```compile_fail,E0521
/// let mut leaked = None;
/// magpie::scope(|s| {
///     leaked = Some(s);
/// });
/// ```
pub fn scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    let wt = WorkerThread::current();
    if wt.is_null() {
        crate::runtime::global_registry().in_worker(|wt, _| on_worker(wt, op))
    } else {
        // SAFETY: a non-null TLS pointer is this thread's live WorkerThread.
        on_worker(unsafe { &*wt }, op)
    }
}

/// Like [`scope`], but `op` runs on the calling thread, whatever it is: outside any pool, the
/// spawned jobs go to the global pool and the caller blocks until they are done; on a worker,
/// it is [`scope`].
///
/// ```
/// let mut v = vec![0; 4];
/// magpie::in_place_scope(|s| {
///     for (i, x) in v.iter_mut().enumerate() {
///         s.spawn(move |_| *x = i * i);
///     }
/// });
/// assert_eq!(v, [0, 1, 4, 9]);
/// ```
pub fn in_place_scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    in_place(None, op)
}

/// A kind of scope ([`Scope`], [`crate::ScopeFifo`]): made on a pool for an owner, with a
/// [`ScopeBase`].
pub(crate) trait ScopeKind: Sync {
    /// A scope on `registry` (see [`ScopeBase::new`]) awaited by `owner`.
    fn new(registry: Option<&Arc<Registry>>, owner: Option<&WorkerThread>) -> Self;
    fn base(&self) -> &ScopeBase;
}

impl ScopeKind for Scope<'_> {
    fn new(registry: Option<&Arc<Registry>>, owner: Option<&WorkerThread>) -> Self {
        Scope {
            base: ScopeBase::new(registry, owner),
            marker: PhantomData,
        }
    }

    fn base(&self) -> &ScopeBase {
        &self.base
    }
}

/// The job of a spawn into `scope`, counted by it: `body` gets the scope back.
///
/// # Safety
/// `body` may borrow only what outlives the scope (the spawn methods' `'scope` bound).
pub(crate) unsafe fn scope_job<S: ScopeKind, F: FnOnce(&S) + Send>(scope: &S, body: F) -> JobRef {
    let ptr = ScopePtr(scope as *const S);
    // SAFETY: the scope does not end before the job ran (it waits on its count), so `ptr` is
    // alive while the job runs; the borrows of `body` are the caller's to vouch for.
    unsafe {
        scope.base().job(move || {
            let ptr = ptr;
            body(&*ptr.0)
        })
    }
}

/// Runs `op` in a new scope on the calling thread, whose jobs go to `registry` (the current
/// pool, else the global pool, when `None`); the caller waits as a worker of its own pool
/// if it is one, else blocks (`in_place_scope`, `in_place_scope_fifo`).
pub(crate) fn in_place<S: ScopeKind, R>(
    registry: Option<&Arc<Registry>>,
    op: impl FnOnce(&S) -> R,
) -> R {
    // SAFETY: a non-null TLS pointer is this thread's live WorkerThread.
    let owner = unsafe { WorkerThread::current().as_ref() };
    let scope = S::new(registry, owner);
    scope.base().complete(owner, || op(&scope))
}

/// Runs `op` in a new scope of worker `wt`'s pool, on `wt` (`scope`, `scope_fifo`).
pub(crate) fn on_worker<S: ScopeKind, R>(wt: &WorkerThread, op: impl FnOnce(&S) -> R) -> R {
    let scope = S::new(None, Some(wt));
    scope.base().complete(Some(wt), || op(&scope))
}

impl ScopeBase {
    /// A scope on `registry` (else the pool of `owner`, else the global pool), awaited by
    /// `owner` (the current worker, if the current thread is one).
    pub(crate) fn new(registry: Option<&Arc<Registry>>, owner: Option<&WorkerThread>) -> Self {
        let registry = match (registry, owner) {
            (Some(r), _) => Arc::clone(r),
            (None, Some(wt)) => Arc::clone(wt.registry()),
            (None, None) => Arc::clone(crate::runtime::global_registry()),
        };
        ScopeBase {
            latch: CountLatch::new(owner),
            registry,
            panic: AtomicPtr::new(ptr::null_mut()),
        }
    }

    pub(crate) fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// Runs the scope's body, then waits for every job, then propagates the first panic (of
    /// the body or of a job) or returns the body's result.
    pub(crate) fn complete<R>(&self, owner: Option<&WorkerThread>, op: impl FnOnce() -> R) -> R {
        let result = panic::catch_unwind(AssertUnwindSafe(op));
        // From here to the end of the wait nothing may unwind: the scope's jobs still use it.
        let abort = AbortOnUnwind;
        let result = match result {
            Ok(r) => Some(r),
            Err(p) => {
                self.record_panic(p);
                None
            }
        };
        // SAFETY: the latch lives in `self`, alive until after the wait below; this drops the
        // count held for the body itself.
        unsafe { Latch::set(&self.latch) };
        self.latch.wait(owner);
        abort.disarm();
        let p = self.panic.swap(ptr::null_mut(), Ordering::Acquire);
        if !p.is_null() {
            // SAFETY: non-null pointers stored in `panic` come from `Box::into_raw` in
            // `record_panic` and are taken out once (the swap).
            let payload = unsafe { Box::from_raw(p) };
            panic::resume_unwind(*payload);
        }
        result.expect("scope body panicked without recording it")
    }

    /// Counts one more job of this scope and makes it: `body` runs, its panic is recorded,
    /// and the count goes down.
    ///
    /// # Safety
    /// The returned job must be run exactly once (the scope waits for it), and `body` may
    /// borrow only what outlives the scope.
    pub(crate) unsafe fn job<F: FnOnce() + Send>(&self, body: F) -> JobRef {
        self.latch.increment();
        let base = ScopePtr(self);
        let job = HeapJob::new(move || {
            let base = base;
            // SAFETY: the scope outlives every job it counts: it waits for the count to reach
            // zero, and this job's decrement is its last access.
            let base = unsafe { &*base.0 };
            if let Err(p) = panic::catch_unwind(AssertUnwindSafe(body)) {
                base.record_panic(p);
            }
            // SAFETY: see above; nothing touches `base` after this.
            unsafe { Latch::set(&base.latch) };
        });
        // SAFETY: forwarded from the caller.
        unsafe { job.into_job_ref() }
    }

    /// Counts `n` more jobs (a broadcast's, one per worker).
    pub(crate) fn add_jobs(&self, n: usize) {
        self.latch.add(n)
    }

    /// The count's latch, for a job that counts itself down (`broadcast.rs`).
    pub(crate) fn latch(&self) -> &CountLatch {
        &self.latch
    }

    pub(crate) fn record_panic(&self, payload: Box<dyn Any + Send + 'static>) {
        let boxed = Box::into_raw(Box::new(payload));
        if self
            .panic
            .compare_exchange(ptr::null_mut(), boxed, Ordering::Release, Ordering::Relaxed)
            .is_err()
        {
            // SAFETY: `boxed` was just leaked and never shared.
            drop(unsafe { Box::from_raw(boxed) });
        }
    }
}

impl<'scope> Scope<'scope> {
    /// Spawns a job into the scope. It may run on any worker of the pool; the scope waits
    /// for it. The job gets the scope back so it can spawn more.
    pub fn spawn<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        self.spawn_job(body, Target::Local)
    }

    /// Spawns a job into the scope with priority `priority`: **higher runs first**.
    ///
    /// Each worker keeps its prioritised jobs in a heap of its own, beside its deque. A
    /// worker runs them when its deque is empty, that is, when it would otherwise steal:
    /// the ordinary `join`/[`spawn`](Scope::spawn) work of the task it is running always
    /// comes first (the priority orders the *next* tasks, as Pheet's strategies do; see
    /// `runtime/README.md`). Then it takes its own highest-priority job, the latest spawned
    /// among equal priorities (LIFO); a worker whose own heap is empty takes the
    /// highest-priority job it sees on any worker before it steals ordinary work. So on one
    /// worker the order is exact; on several it is a best effort (each worker is exact
    /// locally, and no job waits while a worker is idle).
    ///
    /// Called from outside the pool (the scope was passed to another thread), the job goes
    /// to the pool's shared priority heap, which every worker scans.
    ///
    /// ```
    /// use std::sync::Mutex;
    /// let pool = magpie::ThreadPoolBuilder::new().num_workers(1).build().unwrap();
    /// let order = Mutex::new(Vec::new());
    /// pool.scope(|s| {
    ///     for p in [3, 1, 2, 3] {
    ///         let order = &order;
    ///         s.spawn_with_priority(p, move |_| order.lock().unwrap().push(p));
    ///     }
    /// });
    /// // One worker: by priority, the later of the two 3s first.
    /// assert_eq!(order.into_inner().unwrap(), [3, 3, 2, 1]);
    /// ```
    pub fn spawn_with_priority<BODY>(&self, priority: i64, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        self.spawn_job(body, Target::Priority(priority))
    }

    /// Like [`Scope::spawn`], but the job goes to the pool's shared queue, where any idle
    /// worker finds it at once, instead of this worker's deque, where a split deque may keep
    /// it private (the conservative exposure never exposes a lone task). For jobs meant to
    /// start on *other* workers, such as the search workers of a skeleton.
    pub(crate) fn spawn_shared<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        self.spawn_job(body, Target::Shared)
    }

    fn spawn_job<BODY>(&self, body: BODY, target: Target)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        // SAFETY: `body` borrows only data outliving 'scope (its bound).
        let job_ref = unsafe { scope_job(self, body) };
        submit(&self.base.registry, job_ref, target);
    }
}

/// Where a new job goes.
#[derive(Clone, Copy)]
pub(crate) enum Target {
    /// The current worker's deque (the injector outside the pool).
    Local,
    /// The injector.
    Shared,
    /// The current worker's priority heap (the shared priority heap outside the pool).
    Priority(i64),
}

/// Hands `job_ref` to `registry` as `target` says.
pub(crate) fn submit(registry: &Arc<Registry>, job_ref: JobRef, target: Target) {
    let wt = WorkerThread::current();
    // SAFETY: a non-null TLS pointer is this thread's live WorkerThread.
    let local = unsafe { wt.as_ref() }.filter(|wt| wt.registry().id() == registry.id());
    match (local, target) {
        (Some(wt), Target::Local) => wt.push(job_ref),
        (Some(wt), Target::Priority(p)) => wt.push_prioritized(p, job_ref),
        (None, Target::Priority(p)) => registry.inject_prioritized(p, job_ref),
        (_, Target::Local | Target::Shared) => registry.inject(job_ref),
    }
}

pub(crate) struct ScopePtr<T>(pub(crate) *const T);
// SAFETY: a `Scope` is `Sync` (all shared state is atomic); the pointer is only dereferenced
// while the scope is alive (see `Scope::spawn`).
unsafe impl<T: Sync> Send for ScopePtr<T> {}
// SAFETY: as for `Send`: sharing the pointer shares only a `Sync` referent.
unsafe impl<T: Sync> Sync for ScopePtr<T> {}

/// Spawns a `'static` job on the current pool (or the global pool) and returns at once.
///
/// A panic in the job goes to the pool's panic handler (or is printed to stderr); the pool
/// stays usable.
///
/// ```
/// use std::sync::mpsc::channel;
/// let (tx, rx) = channel();
/// magpie::spawn(move || tx.send(6 * 7).unwrap());
/// assert_eq!(rx.recv().unwrap(), 42);
/// ```
pub fn spawn<F>(f: F)
where
    F: FnOnce() + Send + 'static,
{
    spawn_here(f, None)
}

/// Like [`spawn`], with priority `priority` (higher runs first); see
/// [`Scope::spawn_with_priority`] for the order the pool promises.
///
/// ```
/// use std::sync::mpsc::channel;
/// let (tx, rx) = channel();
/// magpie::spawn_with_priority(7, move || tx.send(6 * 7).unwrap());
/// assert_eq!(rx.recv().unwrap(), 42);
/// ```
pub fn spawn_with_priority<F>(priority: i64, f: F)
where
    F: FnOnce() + Send + 'static,
{
    spawn_here(f, Some(priority))
}

/// Spawns `f` on the current worker's pool, or the global pool outside any pool.
fn spawn_here<F>(f: F, priority: Option<i64>)
where
    F: FnOnce() + Send + 'static,
{
    crate::runtime::current_registry_ref(|registry| spawn_in(registry, f, priority))
}

/// Spawns the `'static` job `f` on `registry`, with `priority` if given.
pub(crate) fn spawn_in<F>(registry: &Arc<Registry>, f: F, priority: Option<i64>)
where
    F: FnOnce() + Send + 'static,
{
    let job_ref = static_job(registry, f);
    let target = priority.map_or(Target::Local, Target::Priority);
    submit(registry, job_ref, target);
}

/// The job of a `'static` spawn on `registry`: its panic goes to the pool's panic handler,
/// and the pool keeps running until it ran (`Registry::hold`).
pub(crate) fn static_job<F>(registry: &Arc<Registry>, f: F) -> JobRef
where
    F: FnOnce() + Send + 'static,
{
    let reg = Arc::clone(registry);
    reg.hold();
    let job = HeapJob::new(move || {
        if let Err(p) = panic::catch_unwind(AssertUnwindSafe(f)) {
            reg.handle_panic(p);
        }
        reg.release();
    });
    // SAFETY: the closure is 'static.
    unsafe { job.into_job_ref() }
}
