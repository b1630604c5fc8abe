//! `join`: run two closures, potentially in parallel.

use std::mem;

use super::job::{AbortOnUnwind, JobRef, StackJob};
use super::latch::SpinLatch;
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
        crate::runtime::global_registry().in_worker(|wt, _| join_on_worker(wt, a, b))
    } else {
        // SAFETY: a non-null TLS pointer is this thread's live WorkerThread.
        join_on_worker(unsafe { &*wt }, a, b)
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
        job_b_ref,
        latch: &job_b.latch,
    };
    let ra = a();
    mem::forget(guard);

    while !job_b.latch.probe() {
        match wt.pop() {
            Some(job) if job == job_b_ref => {
                let rb = job_b.run_inline();
                return (ra, rb);
            }
            // Work left on our deque above `b` (e.g. `spawn`ed by `a`): run it first.
            Some(job) => wt.execute(job),
            None => {
                wt.wait_until(job_b.latch.core());
                break;
            }
        }
    }
    (ra, job_b.into_result())
}

/// Waits for `b` when `a` unwinds, so `b`'s stack job is never freed while in use.
struct JoinGuard<'a> {
    wt: &'a WorkerThread,
    job_b_ref: JobRef,
    latch: &'a SpinLatch<'a>,
}

impl Drop for JoinGuard<'_> {
    #[cold]
    fn drop(&mut self) {
        // A panic in here would be a double panic: make that an explicit abort.
        let abort = AbortOnUnwind;
        while !self.latch.probe() {
            match self.wt.pop() {
                Some(job) if job == self.job_b_ref => {
                    // Run `b` as if stolen: its result (or panic) lands in the job and is
                    // dropped with it; `a`'s panic is the one that propagates.
                    self.wt.execute(job);
                }
                Some(job) => self.wt.execute(job),
                None => {
                    self.wt.wait_until(self.latch.core());
                    break;
                }
            }
        }
        abort.disarm();
    }
}
