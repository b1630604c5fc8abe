//! Jobs: type-erased pointers to work, living on a stack (`join`, `install`) or the heap
//! (`spawn`). A [`JobRef`] is two words and `Copy`, so deques move it without allocation.

use std::any::Any;
use std::cell::UnsafeCell;
use std::mem;
use std::panic::{self, AssertUnwindSafe};

use super::latch::Latch;

/// A type-erased reference to a job: a data pointer and the function that runs it.
///
/// Whoever holds a `JobRef` may execute it at most once; the deques guarantee each pushed
/// `JobRef` is taken exactly once.
#[derive(Clone, Copy, Debug)]
pub struct JobRef {
    pointer: *const (),
    execute_fn: unsafe fn(*const ()),
}

/// Two refs are the same job if they point at the same data (a live job has one address).
impl PartialEq for JobRef {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.pointer, other.pointer)
    }
}

impl Eq for JobRef {}

// SAFETY: a JobRef is only created from jobs whose closures and results are `Send`
// (enforced by the constructors' bounds below), so running it on another thread is sound.
unsafe impl Send for JobRef {}
// SAFETY: JobRef is an immutable pair of pointers; sharing it shares nothing mutable.
unsafe impl Sync for JobRef {}

impl JobRef {
    /// # Safety
    /// `data` must stay valid until the job has executed, and `J::execute` must be sound to
    /// call (once) from any thread.
    pub(crate) unsafe fn new<J: Job>(data: *const J) -> JobRef {
        JobRef {
            pointer: data.cast(),
            execute_fn: |p| {
                // SAFETY: `p` was created from a `*const J` in `new`, whose caller promised
                // it stays valid until executed.
                unsafe { J::execute(p.cast()) }
            },
        }
    }

    /// Runs the job.
    ///
    /// # Safety
    /// Must be called at most once per job, while the job's data is alive.
    #[inline]
    pub(crate) unsafe fn execute(self) {
        // SAFETY: forwarded from the caller.
        unsafe { (self.execute_fn)(self.pointer) }
    }
}

/// Something a [`JobRef`] can point to.
pub(crate) trait Job {
    /// # Safety
    /// `this` is valid and the job has not run yet.
    unsafe fn execute(this: *const Self);
}

/// The outcome of a job: not yet run, a value, or a panic payload.
pub(crate) enum JobResult<T> {
    None,
    Ok(T),
    Panic(Box<dyn Any + Send>),
}

impl<T> JobResult<T> {
    fn call(f: impl FnOnce() -> T) -> Self {
        match panic::catch_unwind(AssertUnwindSafe(f)) {
            Ok(v) => JobResult::Ok(v),
            Err(p) => JobResult::Panic(p),
        }
    }

    /// The value, or resumes the panic.
    pub(crate) fn into_return_value(self) -> T {
        match self {
            JobResult::Ok(v) => v,
            JobResult::Panic(p) => panic::resume_unwind(p),
            JobResult::None => unreachable!("job result read before the job ran"),
        }
    }
}

/// A job on the stack of the thread that waits for it (the `b` of `join`, `install`).
pub(crate) struct StackJob<L, F, R> {
    pub(crate) latch: L,
    func: UnsafeCell<Option<F>>,
    result: UnsafeCell<JobResult<R>>,
}

impl<L: Latch, F: FnOnce(bool) -> R + Send, R: Send> StackJob<L, F, R> {
    pub(crate) fn new(func: F, latch: L) -> Self {
        StackJob {
            latch,
            func: UnsafeCell::new(Some(func)),
            result: UnsafeCell::new(JobResult::None),
        }
    }

    /// # Safety
    /// The job must not move or die until it has executed (its latch is set) or been run
    /// inline with [`StackJob::run_inline`].
    pub(crate) unsafe fn as_job_ref(&self) -> JobRef {
        // SAFETY: forwarded from the caller.
        unsafe { JobRef::new(self) }
    }

    /// Runs the closure on the current thread (the job was popped back by its owner), with
    /// `migrated` as given (a join injected from outside the pool migrated as a whole).
    /// Takes `&self` so the job is not moved (copied) on the hot path.
    #[inline]
    pub(crate) fn run_inline(&self, migrated: bool) -> R {
        // SAFETY: the owner popped the job back, so no other thread executed or will execute
        // it; the owner is the only one touching `func` now.
        let f = unsafe { (*self.func.get()).take() }.expect("job already taken");
        f(migrated)
    }

    /// The result after the latch was set.
    pub(crate) fn into_result(self) -> R {
        self.result.into_inner().into_return_value()
    }
}

impl<L: Latch, F: FnOnce(bool) -> R + Send, R: Send> Job for StackJob<L, F, R> {
    unsafe fn execute(this: *const Self) {
        // SAFETY: the caller guarantees `this` is alive and not yet run; the owner does not
        // touch `func`/`result` until the latch below is set.
        let this = unsafe { &*this };
        // SAFETY: exactly one executor takes the closure (the deque hands it out once).
        let func = unsafe { (*this.func.get()).take() }.expect("job executed twice");
        let result = JobResult::call(|| func(true));
        // SAFETY: as above, the owner reads `result` only after the latch is set.
        unsafe { *this.result.get() = result };
        // SAFETY: `this` stays alive until `set` returns (the owner waits for the latch).
        unsafe { Latch::set(&this.latch) };
    }
}

/// A boxed job that owns its closure (`spawn`, `Scope::spawn`).
pub(crate) struct HeapJob<F> {
    func: F,
}

impl<F: FnOnce() + Send> HeapJob<F> {
    pub(crate) fn new(func: F) -> Box<Self> {
        Box::new(HeapJob { func })
    }

    /// Leaks the box into a `JobRef`; executing it frees the box.
    ///
    /// # Safety
    /// Whatever the closure borrows must outlive the job's execution.
    pub(crate) unsafe fn into_job_ref(self: Box<Self>) -> JobRef {
        // SAFETY: the box is leaked here and reclaimed exactly once in `execute`.
        unsafe { JobRef::new(Box::into_raw(self)) }
    }
}

impl<F: FnOnce() + Send> Job for HeapJob<F> {
    unsafe fn execute(this: *const Self) {
        // SAFETY: `this` came from `Box::into_raw` in `into_job_ref` and runs once.
        let this = unsafe { Box::from_raw(this as *mut Self) };
        (this.func)();
    }
}

/// Aborts the process if dropped, i.e. if unwinding passes through a region where it would
/// be unsound (a job's bookkeeping); `disarm` it on the normal path.
pub(crate) struct AbortOnUnwind;

impl Drop for AbortOnUnwind {
    fn drop(&mut self) {
        eprintln!("magpie: a job's bookkeeping panicked; aborting to avoid unsoundness");
        std::process::abort();
    }
}

impl AbortOnUnwind {
    pub(crate) fn disarm(self) {
        mem::forget(self)
    }
}
