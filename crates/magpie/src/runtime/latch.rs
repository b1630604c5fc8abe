//! Latches: one-shot "done" signals a waiting thread can probe.
//!
//! Protocol of [`CoreLatch`] (the state word every spinning waiter uses):
//! 1. `UNSET` → `SLEEPING`: the waiter, holding its sleep slot's mutex, announces it will
//!    block (`get_sleepy`). If the CAS fails the latch is already `SET`: do not sleep.
//! 2. any → `SET`: the setter swaps. If the old state was `SLEEPING`, the setter must wake the
//!    waiter through [`crate::runtime::sleep::Sleep::wake_specific`], which takes the same
//!    mutex, so the wake cannot slip in between the waiter's check and its wait.
//! 3. `SLEEPING` → `UNSET`: the waiter woke up without the latch being set.
//!
//! After `SET` is visible, the waiter may return and free the latch: a setter must not
//! touch the latch after its swap (it copies what it needs first).

use crate::sync::atomic::{AtomicUsize, Ordering};

const UNSET: usize = 0;
const SLEEPING: usize = 1;
const SET: usize = 2;

/// The state word shared by spinning latches (see the module docs).
#[derive(Debug, Default)]
pub struct CoreLatch {
    state: AtomicUsize,
}

impl CoreLatch {
    /// A new, unset latch.
    pub fn new() -> Self {
        CoreLatch {
            state: AtomicUsize::new(UNSET),
        }
    }

    /// Whether the latch is set (Acquire: the setter's writes are visible afterwards).
    #[inline]
    pub fn probe(&self) -> bool {
        self.state.load(Ordering::Acquire) == SET
    }

    /// Step 1: announce sleep. False if the latch is already set.
    pub fn get_sleepy(&self) -> bool {
        self.state
            .compare_exchange(UNSET, SLEEPING, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    }

    /// Makes a set latch unset again, for reuse by the same waiter (a barrier's next phase,
    /// a second taskwait). Only the waiter may call it, when no setter can be running.
    pub fn reset(&self) {
        self.state.store(UNSET, Ordering::SeqCst);
    }

    /// Step 3: woke up; back to `UNSET` unless it was set meanwhile.
    pub fn wake_up(&self) {
        let _ = self
            .state
            .compare_exchange(SLEEPING, UNSET, Ordering::SeqCst, Ordering::SeqCst);
    }

    /// Step 2: sets the latch; returns true if the waiter was asleep and must be woken.
    ///
    /// # Safety
    /// The latch may be freed by its waiter as soon as this returns; the caller must not
    /// touch it afterwards.
    #[inline]
    pub unsafe fn set(this: *const Self) -> bool {
        // SAFETY: the caller guarantees `this` is alive until the swap completes.
        let old = unsafe { (*this).state.swap(SET, Ordering::AcqRel) };
        old == SLEEPING
    }
}

/// A latch a job can set when it completes.
#[cfg_attr(loom, allow(dead_code))]
pub(crate) trait Latch {
    /// Sets the latch and wakes its waiter if needed.
    ///
    /// # Safety
    /// `this` must be alive on entry; it may be freed as soon as the latch is observed set,
    /// so implementations copy anything they need before publishing.
    unsafe fn set(this: *const Self);
}

#[cfg(not(loom))]
pub(crate) use runtime_latches::*;

#[cfg(not(loom))]
mod runtime_latches {
    use super::{CoreLatch, Latch};
    use crate::runtime::registry::{Registry, WorkerThread};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Condvar, Mutex};

    /// The latch a worker spins on while it keeps stealing (join's `b`, cross-pool install).
    pub(crate) struct SpinLatch<'r> {
        core: CoreLatch,
        registry: &'r Arc<Registry>,
        target_worker: usize,
        /// The setter may belong to another pool, which may outlive our registry borrow:
        /// then it keeps the registry alive with a clone while it wakes the waiter.
        cross: bool,
    }

    impl<'r> SpinLatch<'r> {
        pub(crate) fn new(owner: &'r WorkerThread) -> Self {
            SpinLatch {
                core: CoreLatch::new(),
                registry: owner.registry(),
                target_worker: owner.index(),
                cross: false,
            }
        }

        pub(crate) fn cross(owner: &'r WorkerThread) -> Self {
            SpinLatch {
                cross: true,
                ..SpinLatch::new(owner)
            }
        }

        #[inline]
        pub(crate) fn core(&self) -> &CoreLatch {
            &self.core
        }

        #[inline]
        pub(crate) fn probe(&self) -> bool {
            self.core.probe()
        }
    }

    impl Latch for SpinLatch<'_> {
        #[inline]
        unsafe fn set(this: *const Self) {
            // SAFETY: `this` is alive on entry (trait contract); we copy what we need
            // before the core latch is set.
            let (registry, target, cross) = unsafe {
                let this = &*this;
                (this.registry, this.target_worker, this.cross)
            };
            // For a cross-pool latch, the waiter may return and its pool may shut down as
            // soon as the latch is set; keep the registry alive until the wake is done.
            let keep_alive = cross.then(|| Arc::clone(registry));
            let registry: &Registry = match &keep_alive {
                Some(r) => r,
                // SAFETY (lifetime): same-pool setters run on a worker of `registry`, which
                // keeps the registry alive while they run.
                None => registry,
            };
            // SAFETY: `this` is alive until the swap inside `set` completes.
            if unsafe { CoreLatch::set(&(*this).core) } {
                registry.sleep().wake_specific(target);
            }
        }
    }

    /// A blocking latch for threads outside the pool (`install` from a plain thread).
    #[derive(Default)]
    pub(crate) struct LockLatch {
        done: Mutex<bool>,
        cv: Condvar,
    }

    impl LockLatch {
        pub(crate) fn new() -> Self {
            Self::default()
        }

        pub(crate) fn wait(&self) {
            let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
            while !*done {
                done = self.cv.wait(done).unwrap_or_else(|e| e.into_inner());
            }
        }
    }

    impl Latch for LockLatch {
        unsafe fn set(this: *const Self) {
            // SAFETY: alive on entry; the waiter cannot return before we unlock the mutex, and
            // we touch nothing after the guard drops (the unlock's wake-up may still pass the
            // mutex's address to the kernel, as a key only, after the waiter freed it; rayon's
            // LockLatch does the same).
            let this = unsafe { &*this };
            let mut done = this.done.lock().unwrap_or_else(|e| e.into_inner());
            *done = true;
            this.cv.notify_all();
        }
    }

    /// Counts outstanding jobs (of a scope, of a broadcast); the last one done releases the
    /// owner. A worker owner keeps working while it waits (a core latch and a targeted
    /// wake-up); a plain thread (`in_place_scope` outside any pool) blocks on a lock.
    pub(crate) struct CountLatch {
        counter: AtomicUsize,
        kind: CountLatchKind,
    }

    enum CountLatchKind {
        Stealing {
            core: CoreLatch,
            registry: Arc<Registry>,
            owner: usize,
        },
        Blocking(LockLatch),
    }

    impl CountLatch {
        /// Starts at one: the scope body itself.
        pub(crate) fn new(owner: Option<&WorkerThread>) -> Self {
            Self::with_count(1, owner)
        }

        /// Starts at `count`; `owner` is the worker that waits, if the waiter is one.
        pub(crate) fn with_count(count: usize, owner: Option<&WorkerThread>) -> Self {
            CountLatch {
                counter: AtomicUsize::new(count),
                kind: match owner {
                    Some(wt) => CountLatchKind::Stealing {
                        core: CoreLatch::new(),
                        registry: Arc::clone(wt.registry()),
                        owner: wt.index(),
                    },
                    None => CountLatchKind::Blocking(LockLatch::new()),
                },
            }
        }

        pub(crate) fn increment(&self) {
            self.add(1)
        }

        pub(crate) fn add(&self, n: usize) {
            let old = self.counter.fetch_add(n, Ordering::Relaxed);
            debug_assert!(old != 0, "count latch incremented after completion");
        }

        /// Waits until the count is zero: `owner` (the worker this latch was made for) runs
        /// other jobs meanwhile; a latch made for a plain thread blocks.
        pub(crate) fn wait(&self, owner: Option<&WorkerThread>) {
            match (&self.kind, owner) {
                (CountLatchKind::Stealing { core, .. }, Some(wt)) => wt.wait_until(core),
                (CountLatchKind::Blocking(lock), _) => lock.wait(),
                (CountLatchKind::Stealing { .. }, None) => {
                    unreachable!("a worker's count latch waited on by a plain thread")
                }
            }
        }
    }

    impl Latch for CountLatch {
        /// Decrements; the last decrement sets the latch and wakes the owner.
        unsafe fn set(this: *const Self) {
            // SAFETY: alive on entry; the owner cannot stop waiting while the count is
            // non-zero.
            let latch = unsafe { &*this };
            if latch.counter.fetch_sub(1, Ordering::AcqRel) != 1 {
                return;
            }
            match &latch.kind {
                CountLatchKind::Stealing {
                    core,
                    registry,
                    owner,
                } => {
                    // Keep the registry alive past the moment the owner may free the latch.
                    let registry = Arc::clone(registry);
                    let owner = *owner;
                    // SAFETY: alive until the swap completes; not touched afterwards.
                    if unsafe { CoreLatch::set(core) } {
                        registry.sleep().wake_specific(owner);
                    }
                }
                // SAFETY: alive on entry; `LockLatch::set` touches nothing after it unlocks.
                CountLatchKind::Blocking(lock) => unsafe { Latch::set(lock) },
            }
        }
    }

    /// A latch by reference (`broadcast`: every job of the broadcast counts down one
    /// `CountLatch`).
    pub(crate) struct LatchRef<'a, L>(pub(crate) &'a L);

    impl<L: Latch> Latch for LatchRef<'_, L> {
        unsafe fn set(this: *const Self) {
            // SAFETY: alive on entry; the reference is read before the inner set, which is
            // the last access.
            let inner: *const L = unsafe { (*this).0 };
            // SAFETY: the referent outlives the referrer (forwarded contract).
            unsafe { L::set(inner) }
        }
    }
}
