//! Parking idle workers and waking them when work appears. Design note:
//!
//! A worker that found no work for a while sleeps on its own slot: a mutex-protected state
//! (`Awake`, `Parked` or `Dozing`) and a condvar. It sleeps in one of two ways:
//! - **park** (its idle policy said "park"): until woken by any new work (a local push, an
//!   injected job, a latch set), with [`PARK_TIMEOUT`] as a safety net;
//! - **doze** (a backoff's timed sleep, "sleep for d"): until `d` has passed, or earlier when
//!   work is injected into the pool from outside or its latch is set. Local pushes do not wake
//!   a dozing worker: that would turn every backoff into "park" and make the pusher pay for a
//!   wake-up per push, which is what backoffs exist to avoid.
//!
//! The protocol, numbered:
//! 1. The sleeper locks its slot, moves its latch `UNSET → SLEEPING` (abort if `SET`), sets
//!    its state, increments `parked` or `dozing` (SeqCst), then runs a SeqCst fence.
//! 2. It then re-checks for work (`has_work`, which looks at the injector and every deque) and
//!    for termination. Any work seen: undo and return.
//! 3. It waits on the condvar until a waker sets its state back to `Awake` (or until its
//!    timeout: `d` for a doze, [`PARK_TIMEOUT`] for a park).
//! 4. Wakers: [`Sleep::wake_specific`] locks the slot, and if the worker is asleep (either
//!    way) sets it `Awake`, decrements its counter and notifies. [`Sleep::new_work`] (a local
//!    push) reads `parked` and wakes one parked worker; [`Sleep::new_external_work`] (after
//!    publishing injected work and a SeqCst fence) reads both counters and wakes one sleeper
//!    of either kind.
//!
//! Steps 1–2 against 4 form a Dekker pair: the sleeper writes its counter then reads the
//! queues; the publisher writes a queue then reads the counters; with SeqCst on both sides one
//! of them sees the other, so injected work and latch sets never get lost.
//!
//! The exceptions are the local pushes (an LCWS owner deliberately runs no fence, that is the
//! point of LCWS; a Chase-Lev push runs only a Release fence) and work exposed by a signal
//! handler, which wakes nobody: the pusher reads `parked` with a plain load and may miss a
//! worker that is falling asleep at that very moment. Nothing can deadlock from that (the
//! owner runs its own work), only parallelism is delayed: the timed wait of step 3 bounds
//! the delay to [`PARK_TIMEOUT`] (or the doze's length).

use crate::sync::atomic::{fence, AtomicUsize, Ordering};
use crate::sync::{Condvar, Mutex};
use crossbeam_utils::CachePadded;

use super::latch::CoreLatch;
use std::time::Duration;

/// The longest a parked worker sleeps before it looks for work again by itself.
pub const PARK_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(10);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SlotState {
    Awake,
    Parked,
    Dozing,
}

struct Slot {
    state: Mutex<SlotState>,
    cv: Condvar,
}

/// The sleep state of one pool.
pub struct Sleep {
    /// Workers parked (woken by any new work).
    parked: CachePadded<AtomicUsize>,
    /// Workers dozing (a timed sleep, woken early only by injected work or their latch).
    dozing: CachePadded<AtomicUsize>,
    slots: Vec<CachePadded<Slot>>,
}

/// How a call to [`Sleep::sleep`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wakeup {
    /// The latch was set or work was seen before blocking: did not block.
    DidNotSleep,
    /// Woken by another thread.
    Woken,
    /// Woke up by itself ([`PARK_TIMEOUT`] or the doze's length passed).
    TimedOut,
}

impl Sleep {
    /// Sleep state for `n` workers.
    pub fn new(n: usize) -> Self {
        Sleep {
            parked: CachePadded::new(AtomicUsize::new(0)),
            dozing: CachePadded::new(AtomicUsize::new(0)),
            slots: (0..n)
                .map(|_| {
                    CachePadded::new(Slot {
                        state: Mutex::new(SlotState::Awake),
                        cv: Condvar::new(),
                    })
                })
                .collect(),
        }
    }

    /// Number of workers currently parked (a plain load: a hint for the push hot path).
    #[inline]
    pub fn sleeping_hint(&self) -> usize {
        self.parked.load(Ordering::Relaxed)
    }

    /// Number of workers currently dozing (a plain load).
    #[cfg(all(test, loom))]
    pub fn dozing_hint(&self) -> usize {
        self.dozing.load(Ordering::Relaxed)
    }

    fn counter(&self, state: SlotState) -> &AtomicUsize {
        match state {
            SlotState::Dozing => &self.dozing,
            _ => &self.parked,
        }
    }

    /// Parks worker `index` until woken, unless `latch` is set or `has_work()` sees work
    /// after the sleeper announced itself (protocol steps 1–3).
    pub fn sleep(&self, index: usize, latch: &CoreLatch, has_work: impl Fn() -> bool) -> Wakeup {
        self.block(index, latch, has_work, SlotState::Parked, PARK_TIMEOUT)
    }

    /// Dozes worker `index` for `d`: a timed sleep that injected work or a set latch end
    /// early, and that does not start if `latch` is set or `has_work()` sees work.
    pub fn doze(
        &self,
        index: usize,
        latch: &CoreLatch,
        has_work: impl Fn() -> bool,
        d: Duration,
    ) -> Wakeup {
        self.block(index, latch, has_work, SlotState::Dozing, d)
    }

    fn block(
        &self,
        index: usize,
        latch: &CoreLatch,
        has_work: impl Fn() -> bool,
        kind: SlotState,
        timeout: Duration,
    ) -> Wakeup {
        let slot = &self.slots[index];
        let mut state = slot.state.lock().unwrap_or_else(|e| e.into_inner());
        if !latch.get_sleepy() {
            return Wakeup::DidNotSleep;
        }
        *state = kind;
        let counter = self.counter(kind);
        counter.fetch_add(1, Ordering::SeqCst);
        // The Dekker pair needs a full fence here: `has_work` reads queues with Acquire or
        // Relaxed loads, which a SeqCst RMW alone does not order (found by loom).
        fence(Ordering::SeqCst);
        if has_work() {
            *state = SlotState::Awake;
            counter.fetch_sub(1, Ordering::SeqCst);
            latch.wake_up();
            return Wakeup::DidNotSleep;
        }
        let deadline = Deadline::after(timeout);
        let mut outcome = Wakeup::Woken;
        while *state != SlotState::Awake {
            let (guard, timed_out) = wait(&slot.cv, state, &deadline);
            state = guard;
            if timed_out && *state != SlotState::Awake {
                *state = SlotState::Awake;
                counter.fetch_sub(1, Ordering::SeqCst);
                outcome = Wakeup::TimedOut;
            }
        }
        drop(state);
        latch.wake_up();
        outcome
    }

    /// Wakes worker `index` if it is parked or dozing; true if it was.
    pub fn wake_specific(&self, index: usize) -> bool {
        let slot = &self.slots[index];
        let mut state = slot.state.lock().unwrap_or_else(|e| e.into_inner());
        match *state {
            SlotState::Awake => false,
            kind => {
                *state = SlotState::Awake;
                self.counter(kind).fetch_sub(1, Ordering::SeqCst);
                slot.cv.notify_one();
                true
            }
        }
    }

    /// Wakes worker `index` if it is parked (not dozing); true if it was.
    fn wake_parked(&self, index: usize) -> bool {
        let slot = &self.slots[index];
        let mut state = slot.state.lock().unwrap_or_else(|e| e.into_inner());
        if *state == SlotState::Parked {
            *state = SlotState::Awake;
            self.parked.fetch_sub(1, Ordering::SeqCst);
            slot.cv.notify_one();
            true
        } else {
            false
        }
    }

    /// A local push published work: wake one parked worker if there is any (dozing workers
    /// keep backing off). Returns whether one was woken.
    pub fn new_work(&self) -> bool {
        if self.parked.load(Ordering::SeqCst) == 0 {
            return false;
        }
        (0..self.slots.len()).any(|i| self.wake_parked(i))
    }

    /// Work was injected from outside the pool (the caller stored it, then ran a SeqCst
    /// fence or RMW): wake one sleeper, parked or dozing. Returns whether one was woken.
    pub fn new_external_work(&self) -> bool {
        if self.parked.load(Ordering::SeqCst) == 0 && self.dozing.load(Ordering::SeqCst) == 0 {
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

/// When a timed wait ends. Under loom there is no time (see `wait`).
struct Deadline(#[cfg(not(loom))] std::time::Instant);

impl Deadline {
    #[cfg(not(loom))]
    fn after(d: Duration) -> Self {
        Deadline(std::time::Instant::now() + d)
    }

    #[cfg(loom)]
    fn after(_d: Duration) -> Self {
        Deadline()
    }
}

#[cfg(not(loom))]
fn wait<'a>(
    cv: &Condvar,
    guard: crate::sync::MutexGuard<'a, SlotState>,
    deadline: &Deadline,
) -> (crate::sync::MutexGuard<'a, SlotState>, bool) {
    let left = deadline
        .0
        .saturating_duration_since(std::time::Instant::now());
    if left.is_zero() {
        return (guard, true);
    }
    let (guard, _) = cv
        .wait_timeout(guard, left)
        .unwrap_or_else(|e| e.into_inner());
    // Spurious wake-ups loop back in `block`; only the deadline counts as a timeout.
    let timed_out = std::time::Instant::now() >= deadline.0;
    (guard, timed_out)
}

/// Under loom there is no time: a wait only ends when notified, so a model with a lost
/// wake-up deadlocks and fails.
#[cfg(loom)]
fn wait<'a>(
    cv: &Condvar,
    guard: crate::sync::MutexGuard<'a, SlotState>,
    _deadline: &Deadline,
) -> (crate::sync::MutexGuard<'a, SlotState>, bool) {
    (cv.wait(guard).unwrap(), false)
}
