//! `join`: run two closures, potentially in parallel.

use std::marker::PhantomData;
use std::mem;

use super::job::{AbortOnUnwind, StackJob};
use super::latch::{CoreLatch, SpinLatch};
use super::registry::WorkerThread;

/// Runs `a` and `b`, potentially in parallel, and returns both results.
///
/// On a worker, `b` is pushed on the worker's deque where an idle worker may steal it while
/// this thread runs `a`; then this thread takes `b` back if nobody did. Called outside any
/// pool, it runs on the global pool.
///
/// If either closure panics, the panic is propagated after *both* have finished (the other
/// closure still runs exactly once); if both panic, `a`'s panic wins.
///
/// ```
/// fn fib(n: u64) -> u64 {
///     if n < 2 { return n; }
///     let (a, b) = magpie::join(|| fib(n - 1), || fib(n - 2));
///     a + b
/// }
/// assert_eq!(fib(20), 6765);
/// ```
#[inline]
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    join_context(|_| a(), |_| b())
}

/// Where a closure of [`join_context`] runs: whether it *migrated*, that is, runs on
/// another thread than the one that called `join_context` (its job was stolen, or the call
/// came from outside the pool). rayon's adaptive splitters read it: work that was stolen is
/// split again, work that stayed home is not.
#[derive(Debug)]
pub struct FnContext {
    migrated: bool,
    /// Not `Send`: it describes the thread it was made on.
    _not_send: PhantomData<*mut ()>,
}

impl FnContext {
    fn new(migrated: bool) -> Self {
        FnContext {
            migrated,
            _not_send: PhantomData,
        }
    }

    /// True if the closure runs on another thread than the one that called `join_context`.
    ///
    /// ```
    /// let pool = magpie::ThreadPoolBuilder::new().num_workers(1).build().unwrap();
    /// // One worker: nobody can steal `b`, and `a` runs where the call was made.
    /// let (a, b) = pool.install(|| magpie::join_context(|c| c.migrated(), |c| c.migrated()));
    /// assert_eq!((a, b), (false, false));
    /// // From outside any pool the call is sent to one: both closures migrated.
    /// let (a, _) = magpie::join_context(|c| c.migrated(), |_| ());
    /// assert!(a);
    /// ```
    #[inline]
    pub fn migrated(&self) -> bool {
        self.migrated
    }
}

/// [`join`], telling each closure whether it migrated ([`FnContext::migrated`]): `a` did when
/// the call came from outside the pool, `b` did when it was stolen (or `a` did).
///
/// ```
/// let (x, y) = magpie::join_context(|_| 1 + 1, |ctx| (ctx.migrated(), 2 * 2));
/// assert_eq!(x, 2);
/// assert_eq!(y.1, 4);
/// ```
#[inline]
pub fn join_context<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    let wt = WorkerThread::current();
    if wt.is_null() {
        return crate::runtime::global_registry()
            .in_worker(|wt, injected| join_on_worker(wt, injected, a, b));
    }
    // SAFETY: a non-null TLS pointer is this thread's live WorkerThread.
    let wt = unsafe { &*wt };
    if wt.join_should_push() {
        join_on_worker(wt, false, a, b)
    } else {
        join_in_sequence(|| a(FnContext::new(false)), || b(FnContext::new(false)))
    }
}

/// The coarsened join: the worker already holds enough tasks for thieves, so run `a` then
/// `b` here without making a task (see `ThreadPoolBuilder::join_push_limit`). `b` still runs
/// if `a` panics, and `a`'s panic propagates afterwards, as in the parallel join.
#[inline(always)]
fn join_in_sequence<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA,
    B: FnOnce() -> RB,
{
    let guard = RunOnUnwind(Some(b));
    let ra = a();
    let b = guard.take();
    (ra, b())
}

/// Holds `b` while `a` runs; runs it if `a` unwinds.
struct RunOnUnwind<B: FnOnce() -> RB, RB>(Option<B>);

impl<B: FnOnce() -> RB, RB> RunOnUnwind<B, RB> {
    #[inline(always)]
    fn take(mut self) -> B {
        let b = self.0.take();
        mem::forget(self);
        match b {
            Some(b) => b,
            None => unreachable!("taken once"),
        }
    }
}

impl<B: FnOnce() -> RB, RB> Drop for RunOnUnwind<B, RB> {
    #[cold]
    fn drop(&mut self) {
        if let Some(b) = self.0.take() {
            // `a` is unwinding: run `b` anyway; a second panic from `b` is dropped so that
            // `a`'s panic is the one that propagates.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(b));
        }
    }
}

/// The parallel join on worker `wt`; `injected`: the call came from outside the pool (so `a`
/// migrated too).
#[inline]
pub(crate) fn join_on_worker<A, B, RA, RB>(
    wt: &WorkerThread,
    injected: bool,
    a: A,
    b: B,
) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    let job_b = StackJob::new(|migrated| b(FnContext::new(migrated)), SpinLatch::new(wt));
    // SAFETY: `job_b` lives on this frame until it was either popped back and run inline, or
    // its latch was set; every exit path below (the guard included) ensures one of them.
    let job_b_ref = unsafe { job_b.as_job_ref() };
    wt.push(job_b_ref);

    // If `a` panics, the guard's drop waits for `b` before the panic continues.
    let guard = JoinGuard {
        wt,
        latch: job_b.latch.core(),
    };
    let ra = a(FnContext::new(injected));
    mem::forget(guard);

    // Usually nobody stole `b` and it is the bottom-most job: take it back and run it here.
    loop {
        match wt.pop() {
            Some(job) if job == job_b_ref => {
                let rb = job_b.run_inline(injected);
                return (ra, rb);
            }
            // Work left on our deque above `b` (e.g. `spawn`ed by `a`): run it first.
            Some(job) => wt.execute(job),
            // `b` was stolen: work (and steal) until its thief is done.
            None => {
                wt.wait_until(job_b.latch.core());
                return (ra, job_b.into_result());
            }
        }
        if job_b.latch.probe() {
            return (ra, job_b.into_result());
        }
    }
}

/// Waits for `b` when `a` unwinds, so `b`'s stack job is never freed while in use.
struct JoinGuard<'a> {
    wt: &'a WorkerThread,
    latch: &'a CoreLatch,
}

impl Drop for JoinGuard<'_> {
    #[cold]
    fn drop(&mut self) {
        // A panic in here would be a double panic: make that an explicit abort.
        let abort = AbortOnUnwind;
        while !self.latch.probe() {
            match self.wt.pop() {
                // `b` (or work pushed above it) still on our deque: run it as if stolen. `b`'s
                // result or panic lands in its job and is dropped with it; `a`'s panic is the
                // one that propagates.
                Some(job) => self.wt.execute(job),
                None => {
                    self.wt.wait_until(self.latch);
                    break;
                }
            }
        }
        abort.disarm();
    }
}
