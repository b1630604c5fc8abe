//! `join`: run two closures, potentially in parallel.

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
    let wt = WorkerThread::current();
    if wt.is_null() {
        return crate::runtime::global_registry().in_worker(|wt, _| join_on_worker(wt, a, b));
    }
    // SAFETY: a non-null TLS pointer is this thread's live WorkerThread.
    let wt = unsafe { &*wt };
    if wt.join_should_push() {
        join_on_worker(wt, a, b)
    } else {
        join_in_sequence(a, b)
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

#[inline]
pub(crate) fn join_on_worker<A, B, RA, RB>(wt: &WorkerThread, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let job_b = StackJob::new(|_migrated| b(), SpinLatch::new(wt));
    // SAFETY: `job_b` lives on this frame until it was either popped back and run inline, or
    // its latch was set; every exit path below (the guard included) ensures one of them.
    let job_b_ref = unsafe { job_b.as_job_ref() };
    wt.push(job_b_ref);

    // If `a` panics, the guard's drop waits for `b` before the panic continues.
    let guard = JoinGuard {
        wt,
        latch: job_b.latch.core(),
    };
    let ra = a();
    mem::forget(guard);

    // Usually nobody stole `b` and it is the bottom-most job: take it back and run it here.
    loop {
        match wt.pop() {
            Some(job) if job == job_b_ref => {
                let rb = job_b.run_inline();
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
