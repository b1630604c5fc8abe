//! Parking idle workers and waking them when work appears. Design note:
//!
//! A worker that found no work for a while (its idle policy said "park") sleeps on its own
//! slot: a mutex-protected `asleep` flag and a condvar. The protocol, numbered:
//! 1. The sleeper locks its slot, moves its latch `UNSET → SLEEPING` (abort if `SET`), sets
//!    `asleep`, increments `sleeping` (SeqCst).
//! 2. It then re-checks for work (`has_work`, which looks at the injector and every deque) and
//!    for termination. Any work seen: undo and return.
//! 3. It waits on the condvar until a waker clears `asleep` (or, as a safety net, until a
//!    timeout: see below).
//! 4. Wakers: [`Sleep::wake_specific`] locks the slot, and if `asleep` clears it, decrements
//!    `sleeping` and notifies. [`Sleep::new_work`] (after publishing work and a SeqCst fence)
//!    reads `sleeping` and wakes one sleeper if any.
//!
//! Steps 1–2 against 4 form a Dekker pair: the sleeper writes `sleeping` then reads the
//! queues; the publisher writes a queue then reads `sleeping`; with SeqCst on both sides one
//! of them sees the other, so injected work and latch sets never get lost.
//!
//! The exceptions are the local pushes (an LCWS owner deliberately runs no fence, that is the
//! point of LCWS; a Chase-Lev push runs only a Release fence) and work exposed by a signal
//! handler, which wakes nobody: the pusher reads `sleeping` with a plain load and may miss a
//! worker that is falling asleep at that very moment. Nothing can deadlock from that (the
//! owner runs its own work), only parallelism is delayed: the timed wait of step 3 bounds
//! the delay to [`PARK_TIMEOUT`].

use crate::sync::atomic::{fence, AtomicUsize, Ordering};
use crate::sync::{Condvar, Mutex};
use crossbeam_utils::CachePadded;

use super::latch::CoreLatch;

/// The longest a parked worker sleeps before it looks for work again by itself.
pub const PARK_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(10);

struct Slot {
    asleep: Mutex<bool>,
    cv: Condvar,
}

/// The sleep state of one pool.
pub struct Sleep {
    sleeping: CachePadded<AtomicUsize>,
    slots: Vec<CachePadded<Slot>>,
}

/// How a call to [`Sleep::sleep`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wakeup {
    /// The latch was set or work was seen before blocking: did not block.
    DidNotSleep,
    /// Woken by another thread.
    Woken,
    /// Woke up by itself after [`PARK_TIMEOUT`].
    TimedOut,
}

impl Sleep {
    /// Sleep state for `n` workers.
    pub fn new(n: usize) -> Self {
        Sleep {
            sleeping: CachePadded::new(AtomicUsize::new(0)),
            slots: (0..n)
                .map(|_| {
                    CachePadded::new(Slot {
                        asleep: Mutex::new(false),
                        cv: Condvar::new(),
                    })
                })
                .collect(),
        }
    }

    /// Number of workers currently asleep (a plain load: a hint for hot paths).
    #[inline]
    pub fn sleeping_hint(&self) -> usize {
        self.sleeping.load(Ordering::Relaxed)
    }

    /// Parks worker `index` until woken, unless `latch` is set or `has_work()` sees work
    /// after the sleeper announced itself (protocol steps 1–3).
    pub fn sleep(&self, index: usize, latch: &CoreLatch, has_work: impl Fn() -> bool) -> Wakeup {
        let slot = &self.slots[index];
        let mut asleep = slot.asleep.lock().unwrap_or_else(|e| e.into_inner());
        if !latch.get_sleepy() {
            return Wakeup::DidNotSleep;
        }
        *asleep = true;
        self.sleeping.fetch_add(1, Ordering::SeqCst);
        // The Dekker pair needs a full fence here: `has_work` reads queues with Acquire or
        // Relaxed loads, which a SeqCst RMW alone does not order (found by loom).
        fence(Ordering::SeqCst);
        if has_work() {
            *asleep = false;
            self.sleeping.fetch_sub(1, Ordering::SeqCst);
            latch.wake_up();
            return Wakeup::DidNotSleep;
        }
        let mut outcome = Wakeup::Woken;
        while *asleep {
            let (guard, timed_out) = wait(&slot.cv, asleep);
            asleep = guard;
            if timed_out && *asleep {
                *asleep = false;
                self.sleeping.fetch_sub(1, Ordering::SeqCst);
                outcome = Wakeup::TimedOut;
            }
        }
        drop(asleep);
        latch.wake_up();
        outcome
    }

    /// Wakes worker `index` if it is asleep; true if it was.
    pub fn wake_specific(&self, index: usize) -> bool {
        let slot = &self.slots[index];
        let mut asleep = slot.asleep.lock().unwrap_or_else(|e| e.into_inner());
        if *asleep {
            *asleep = false;
            self.sleeping.fetch_sub(1, Ordering::SeqCst);
            slot.cv.notify_one();
            true
        } else {
            false
        }
    }

    /// Work was published (the caller stored it, then ran a SeqCst fence or RMW): wake one
    /// sleeper if there is any. Returns whether one was woken.
    pub fn new_work(&self) -> bool {
        if self.sleeping.load(Ordering::SeqCst) == 0 {
            return false;
        }
        (0..self.slots.len()).any(|i| self.wake_specific(i))
    }

    /// Wakes every sleeper (termination).
    pub fn wake_all(&self) {
        for i in 0..self.slots.len() {
            self.wake_specific(i);
        }
    }
}

#[cfg(not(loom))]
fn wait<'a>(
    cv: &Condvar,
    guard: crate::sync::MutexGuard<'a, bool>,
) -> (crate::sync::MutexGuard<'a, bool>, bool) {
    let (guard, result) = cv
        .wait_timeout(guard, PARK_TIMEOUT)
        .unwrap_or_else(|e| e.into_inner());
    (guard, result.timed_out())
}

/// Under loom there is no time: a wait only ends when notified, so a model with a lost
/// wake-up deadlocks and fails.
#[cfg(loom)]
fn wait<'a>(
    cv: &Condvar,
    guard: crate::sync::MutexGuard<'a, bool>,
) -> (crate::sync::MutexGuard<'a, bool>, bool) {
    (cv.wait(guard).unwrap(), false)
}
