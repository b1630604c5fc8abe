//! The LCWS split deque (Custódio, Paulino, Rito, SPAA'23, Listings 1–3 and §4.1).
//!
//! One array of slots indexed by absolute (non-circular) signed indices and three indices:
//!
//! - `bot`: the owner's next free slot;
//! - `public_bot`: the split point; the public part is `[top, public_bot)`, the private part
//!   `[public_bot, bot)`;
//! - `age = {tag, top}`, one `AtomicU64`; `tag` defeats ABA when indices are reset to 0.
//!
//! The owner pushes and pops the private part with no fence and no read-modify-write
//! operation: `bot` and `public_bot` are atomics only so that thieves may read them, and the
//! owner accesses them with relaxed loads and stores. Thieves steal from the top of the public
//! part with one fence and one CAS. When a thief finds the public part empty but private work
//! behind it, [`Stealer::steal`] returns [`Steal::Private`] after asking the owner to expose
//! work, in the way the deque's [`Exposure`] prescribes:
//!
//! | exposure | request (by the thief) | exposure (by the owner) |
//! |---|---|---|
//! | `User` | sets the victim's targeted flag | at its next push/pop: one task |
//! | `Signal` | flag, then `pthread_kill` if it was clear | handler: one task |
//! | `Conservative` | as `Signal`, only if the victim has ≥ 2 private tasks | handler: one task, never the last private one |
//! | `Half` | as `Signal` | handler: `(r + 1) / 2` of `r ≥ 3` private tasks, else at most one |
//!
//! For the signal variants the handler can run between any two steps of the owner's code, so
//! every owner operation is written (and model-checked, `tests/loom_split.rs`) against a
//! handler firing at each point. `pop_bottom` uses the paper's race-fixed form ("A
//! Subtlety"): it lowers `bot` before comparing with `public_bot`, so a handler can no longer
//! expose the task being popped. The conservative variant keeps the original form, because
//! its handler never exposes the last private task (see `Inner::pop_bottom`).
//!
//! Thieves read a slot before the CAS that claims it (as in crossbeam-deque): after an index
//! reset the owner may be rewriting that slot, the thief's CAS then fails (the tag changed)
//! and the copy is discarded without being dropped. That read is a data race in the Rust
//! memory model that the algorithm tolerates; loom reports it, so the loom models do not
//! push again after a reset while a thief is active.
//!
//! Memory: a full array grows to twice its size; retired arrays are kept until the deque is
//! dropped (thieves may still read them), so memory stays below twice the largest array.
//! Indices return to 0 whenever the deque empties; a deque that never empties while thieves
//! keep stealing from its top keeps growing (its indices only increase).

use super::signal::{self, SignalError, Target};
use super::{DequeOwner, DequeStealer, Exposure, Steal};
use crate::stats::WorkerCounters;
use crate::sync::atomic::{
    fence, AtomicBool, AtomicI32, AtomicIsize, AtomicPtr, AtomicU64, AtomicUsize, Ordering,
};
use crate::sync::{Arc, UnsafeCell};
use crossbeam_utils::CachePadded;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::os::raw::c_int;
use std::ptr;
use std::sync::atomic::compiler_fence;

/// Initial number of slots.
const DEFAULT_CAPACITY: usize = 64;
/// Largest array: indices must fit the 32-bit `top` of `age`. (The other half of `age` is a
/// 32-bit tag bumped at every index reset: an ABA needs 2^32 resets while one thief stays
/// stalled between its read of `age` and its CAS — theoretical.)
const MAX_CAPACITY: usize = 1 << 31;

#[inline(always)]
fn pack(tag: u32, top: u32) -> u64 {
    ((tag as u64) << 32) | top as u64
}

#[inline(always)]
fn unpack(age: u64) -> (u32, u32) {
    ((age >> 32) as u32, age as u32)
}

/// Keeps the compiler from moving the owner's steps across this point, so that a signal
/// handler running on the owner's thread sees them in program order. Emits no instruction.
#[inline(always)]
fn signal_fence() {
    compiler_fence(Ordering::SeqCst);
}

/// One array of slots.
struct Buffer<T> {
    slots: Box<[UnsafeCell<MaybeUninit<T>>]>,
}

impl<T> Buffer<T> {
    fn alloc(cap: usize) -> *mut Buffer<T> {
        let slots = (0..cap)
            .map(|_| UnsafeCell::new(MaybeUninit::uninit()))
            .collect();
        Box::into_raw(Box::new(Buffer { slots }))
    }

    fn cap(&self) -> isize {
        self.slots.len() as isize
    }

    /// Slot `i`, which every caller has already checked to be in `0..cap`: the owner against
    /// `cap` before writing; a thief reads `top < pb` where `pb` was Release-published after
    /// any buffer at least `pb` long, and loads the buffer after its Acquire of `pb`, so
    /// `top < pb <= cap`. The hot path skips the second bounds check. Checked under
    /// loom and in debug builds.
    #[inline(always)]
    fn slot(&self, i: isize) -> &UnsafeCell<MaybeUninit<T>> {
        debug_assert!(
            (0..self.cap()).contains(&i),
            "slot {i} out of 0..{}",
            self.cap()
        );
        #[cfg(loom)]
        return &self.slots[i as usize];
        // SAFETY: see above: `0 <= i < cap` holds at every call site.
        #[cfg(not(loom))]
        unsafe {
            self.slots.get_unchecked(i as usize)
        }
    }

    /// Writes slot `i`.
    ///
    /// # Safety
    /// Only the owner writes, and only a slot that no other thread may read as a task it
    /// could obtain (racy reads whose value is discarded are tolerated).
    unsafe fn write(&self, i: isize, task: T) {
        self.slot(i).with_mut(|p| {
            // SAFETY: `p` points into a live slot; the caller guarantees exclusivity.
            unsafe { p.write(MaybeUninit::new(task)) }
        })
    }

    /// Copies a slot's bits into slot `i` (growth).
    ///
    /// # Safety
    /// As for [`Buffer::write`].
    unsafe fn write_raw(&self, i: isize, bits: MaybeUninit<T>) {
        self.slots[i as usize].with_mut(|p| {
            // SAFETY: `p` points into a live slot; the caller guarantees exclusivity.
            unsafe { p.write(bits) }
        })
    }

    /// Reads slot `i` bitwise. The result is a task only if the caller then owns it (CAS won
    /// or private slot); otherwise it must be discarded undropped.
    ///
    /// # Safety
    /// `i < cap`; the read is a plain copy of possibly uninitialised bytes into a
    /// `MaybeUninit`, which is always allowed for a live buffer.
    unsafe fn read(&self, i: isize) -> MaybeUninit<T> {
        self.slot(i).with(|p| {
            // SAFETY: `p` points into a live slot; copying a `MaybeUninit` is always valid. A
            // volatile read, because a stale thief's copy may race an owner rewrite after an
            // index reset (then its CAS fails and the copy is discarded), as in chase_lev.
            unsafe { ptr::read_volatile(p) }
        })
    }
}

/// The shared state of one split deque.
pub(crate) struct Inner<T> {
    /// The owner's next free slot. Written by the owner only.
    bot: CachePadded<AtomicIsize>,
    /// The split point. Written by the owner (and its signal handler) only.
    public_bot: CachePadded<AtomicIsize>,
    /// `{tag, top}`: thieves CAS it; the owner resets it.
    age: CachePadded<AtomicU64>,
    /// The current array. Written by the owner (growth), read by thieves.
    buffer: CachePadded<AtomicPtr<Buffer<T>>>,
    /// Set by a thief that asked for exposure.
    targeted: CachePadded<AtomicBool>,
    /// The bound owner thread's `pthread_t` (0 = unbound) and its signal.
    owner_thread: CachePadded<AtomicUsize>,
    signal: AtomicI32,
    /// Thieves between reading `owner_thread` and returning from `pthread_kill`.
    in_flight: CachePadded<AtomicUsize>,
    /// Arrays replaced by growth; freed on drop. Owner only.
    retired: UnsafeCell<Vec<*mut Buffer<T>>>,
    exposure: Exposure,
}

impl<T> Inner<T> {
    fn new(exposure: Exposure, cap: usize) -> Self {
        let cap = cap.clamp(1, MAX_CAPACITY);
        Inner {
            bot: CachePadded::new(AtomicIsize::new(0)),
            public_bot: CachePadded::new(AtomicIsize::new(0)),
            age: CachePadded::new(AtomicU64::new(0)),
            buffer: CachePadded::new(AtomicPtr::new(Buffer::alloc(cap))),
            targeted: CachePadded::new(AtomicBool::new(false)),
            owner_thread: CachePadded::new(AtomicUsize::new(0)),
            signal: AtomicI32::new(signal::DEFAULT_SIGNAL),
            in_flight: CachePadded::new(AtomicUsize::new(0)),
            retired: UnsafeCell::new(Vec::new()),
            exposure,
        }
    }

    /// An interleaving point for the signal handler; compiles to nothing outside loom.
    #[inline(always)]
    fn handler_point(&self, _c: &WorkerCounters) {
        #[cfg(loom)]
        if loom_hook::tick() {
            self.update_public_bottom(_c);
        }
    }

    /// The owner's view of the current array.
    #[inline(always)]
    fn owner_buffer(&self) -> &Buffer<T> {
        // SAFETY: the pointer always refers to a live array (arrays are freed only on drop),
        // and the owner is its only writer, so a relaxed load sees the latest one.
        unsafe { &*self.buffer.load(Ordering::Relaxed) }
    }

    /// `push_bottom`: `deq[bot++] = task`, growing a full array. Owner only.
    fn push_bottom(&self, task: T, c: &WorkerCounters) {
        let b = self.bot.load(Ordering::Relaxed);
        signal_fence();
        self.handler_point(c);
        let mut buf = self.owner_buffer();
        if b >= buf.cap() {
            buf = self.grow(b, c);
        }
        // SAFETY: slot `b` is at or above `bot`, so it holds no task; only stale thieves whose
        // CAS must fail (the tag changed since they read `top`) may read it concurrently.
        unsafe { buf.write(b, task) };
        signal_fence();
        self.handler_point(c);
        self.bot.store(b + 1, Ordering::Relaxed);
        signal_fence();
        self.handler_point(c);
    }

    /// Doubles the array; returns the new one. Owner only.
    #[cold]
    fn grow(&self, b: isize, c: &WorkerCounters) -> &Buffer<T> {
        let old_ptr = self.buffer.load(Ordering::Relaxed);
        // SAFETY: see `owner_buffer`.
        let old = unsafe { &*old_ptr };
        let cap = old.slots.len();
        assert!(
            cap < MAX_CAPACITY,
            "split deque overflow: more than 2^31 slots"
        );
        let new_ptr = Buffer::<T>::alloc(cap * 2);
        // SAFETY: freshly allocated, not yet shared.
        let new = unsafe { &*new_ptr };
        // Slots below `top` are dead; a stale `top` only copies more.
        let (_, top) = unpack(self.age.load(Ordering::Relaxed));
        for i in (top as isize).min(b)..b {
            // SAFETY: `i < b <= cap` in both arrays; the new array is private to us, and the
            // copy is bitwise, never assumed initialised (the old copy is never dropped).
            unsafe { new.write_raw(i, old.read(i)) };
        }
        self.handler_point(c);
        // Publish: a thief that acquires `public_bot` then loads the buffer sees the copy.
        self.buffer.store(new_ptr, Ordering::Release);
        // SAFETY: `retired` is touched by the owner only (never by the handler).
        self.retired.with_mut(|r| unsafe { (*r).push(old_ptr) });
        new
    }

    /// `pop_bottom`: takes the bottom-most private task, or `None` when the private part is
    /// empty, in which case `bot` may be left one below `public_bot` and the caller must run
    /// [`Inner::pop_public_bottom`] next, which repairs it. Owner only.
    ///
    /// Race-fixed form ("A Subtlety"): `b = --bot; if b < public_bot { None }`. Once `bot` is
    /// lowered, a handler no longer sees slot `b` as private, so it cannot expose it.
    ///
    /// The conservative variant keeps the paper's original `bot == public_bot ? None :
    /// deq[--bot]`: its handler exposes only if `public_bot + 1 < bot`, so the slot below
    /// `bot` is never exposed, whenever the handler runs. It saves the decrement on an empty
    /// private part and leaves `bot` consistent.
    fn pop_bottom(&self, c: &WorkerCounters) -> Option<T> {
        if self.exposure == Exposure::Conservative {
            let b = self.bot.load(Ordering::Relaxed);
            signal_fence();
            self.handler_point(c);
            if b == self.public_bot.load(Ordering::Relaxed) {
                return None;
            }
            signal_fence();
            self.handler_point(c);
            let b = b - 1;
            self.bot.store(b, Ordering::Relaxed);
            signal_fence();
            self.handler_point(c);
            // SAFETY: `public_bot <= b` (a conservative handler keeps at least one private
            // task), so slot `b` is private: no thief can take it.
            return Some(unsafe { self.owner_buffer().read(b).assume_init() });
        }
        let b = self.bot.load(Ordering::Relaxed) - 1;
        signal_fence();
        self.handler_point(c);
        self.bot.store(b, Ordering::Relaxed);
        signal_fence();
        self.handler_point(c);
        if b < self.public_bot.load(Ordering::Relaxed) {
            return None;
        }
        signal_fence();
        self.handler_point(c);
        // SAFETY: `b >= public_bot` after `bot` was lowered to `b`: the slot is private, and a
        // handler (which exposes only below `bot`) can no longer expose it.
        Some(unsafe { self.owner_buffer().read(b).assume_init() })
    }

    /// `pop_public_bottom` (Listing 2 with the paper's modification): takes the bottom-most
    /// public task, racing with thieves only for the last one. Owner only; called when
    /// `pop_bottom` returned `None`.
    fn pop_public_bottom(&self, c: &WorkerCounters) -> Option<T> {
        let pb = self.public_bot.load(Ordering::Relaxed);
        signal_fence();
        self.handler_point(c);
        if pb == 0 {
            // Nothing public; undo a race-fixed `pop_bottom`'s decrement (bot = -1).
            self.bot.store(0, Ordering::Relaxed);
            signal_fence();
            self.handler_point(c);
            return None;
        }
        let p = pb - 1;
        // `bot <= public_bot` here, so a handler exposes nothing from now on until the end.
        self.public_bot.store(p, Ordering::Release);
        signal_fence();
        self.handler_point(c);
        fence(Ordering::SeqCst);
        c.fences.bump();
        let age = self.age.load(Ordering::Relaxed);
        self.handler_point(c);
        let (tag, top) = unpack(age);
        if p > top as isize {
            // More than one public task was left: slot `p` is ours without a CAS.
            self.bot.store(p, Ordering::Relaxed);
            signal_fence();
            self.handler_point(c);
            // SAFETY: thieves take only `top < p` (the fence orders our lowered `public_bot`
            // against their reads of it), so slot `p` is exclusively ours.
            let task = unsafe { self.owner_buffer().read(p).assume_init() };
            self.task_left_public();
            return Some(task);
        }
        // At most one public task left (index `p == top`): empty the deque, racing for it.
        // Lower `bot` before `public_bot`: a handler in between sees no private task.
        self.bot.store(0, Ordering::Relaxed);
        signal_fence();
        self.handler_point(c);
        self.public_bot.store(0, Ordering::Release);
        signal_fence();
        self.handler_point(c);
        let new_age = pack(tag.wrapping_add(1), 0);
        let mut won = false;
        if p == top as isize {
            c.cas.bump();
            won = self
                .age
                .compare_exchange(age, new_age, Ordering::SeqCst, Ordering::Relaxed)
                .is_ok();
        }
        if !won {
            // A thief took it (or it was already gone): reset anyway. Release, so that a thief
            // that reads the new age also reads `public_bot == 0` (or later).
            self.age.store(new_age, Ordering::Release);
        }
        self.handler_point(c);
        fence(Ordering::SeqCst);
        c.fences.bump();
        signal_fence();
        self.handler_point(c);
        if won {
            // SAFETY: the CAS moved `top` past `p`, so no thief can take slot `p`; and the
            // owner rewrites it only on a later push.
            let task = unsafe { self.owner_buffer().read(p).assume_init() };
            self.task_left_public();
            Some(task)
        } else {
            None
        }
    }

    /// A task left the public part through the owner: signal variants clear the flag.
    #[inline(always)]
    fn task_left_public(&self) {
        if self.exposure.uses_signal() && self.targeted.load(Ordering::Relaxed) {
            self.targeted.store(false, Ordering::Relaxed);
        }
    }

    /// `update_public_bottom`: exposes private tasks per the exposure rule. Run by the owner
    /// (user variant) or by the signal handler on the owner's thread (signal variants).
    /// Async-signal-safe: relaxed/release atomics and counters only; cannot panic.
    pub(crate) fn update_public_bottom(&self, c: &WorkerCounters) {
        let pb = self.public_bot.load(Ordering::Relaxed);
        let b = self.bot.load(Ordering::Relaxed);
        let r = b.wrapping_sub(pb);
        let k = exposure_count(self.exposure, r);
        c.exposures_served.bump();
        if k > 0 {
            // Release: a thief that acquires the new split point sees the exposed slots.
            self.public_bot.store(pb.wrapping_add(k), Ordering::Release);
            c.tasks_exposed.add(k as u64);
        }
    }

    /// The thief's side of a `Private` outcome: asks the owner to expose work.
    fn request_exposure(&self, private: isize, c: &WorkerCounters) {
        match self.exposure {
            Exposure::User => {
                if !self.targeted.load(Ordering::Relaxed)
                    && !self.targeted.swap(true, Ordering::Relaxed)
                {
                    c.exposure_requests.bump();
                }
            }
            Exposure::Conservative if private < 2 => {}
            Exposure::Signal | Exposure::Conservative | Exposure::Half => {
                if self.targeted.load(Ordering::Relaxed)
                    || self.targeted.swap(true, Ordering::Relaxed)
                {
                    return;
                }
                c.exposure_requests.bump();
                self.signal_owner(c);
            }
        }
    }

    /// Sends the exposure signal to the bound owner thread, if any.
    fn signal_owner(&self, c: &WorkerCounters) {
        // Announce ourselves before reading the handle: `BindGuard::drop` clears the handle,
        // then waits for `in_flight == 0`, so the thread cannot exit while we signal it.
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        let handle = self.owner_thread.load(Ordering::SeqCst);
        if handle != 0 {
            let _sig: c_int = self.signal.load(Ordering::Relaxed);
            #[cfg(not(loom))]
            // SAFETY: `handle` is the `pthread_t` of a thread that is bound, hence alive until
            // `in_flight` drops back to zero (see `BindGuard::drop`); its signal has our
            // handler installed (`bind_current_thread` installed it).
            unsafe {
                libc::pthread_kill(handle as libc::pthread_t, _sig);
            }
            c.signals_sent.bump();
        }
        self.in_flight.fetch_sub(1, Ordering::Release);
    }

    /// `pop_top`: the thief's steal.
    fn pop_top(&self, c: &WorkerCounters) -> Steal<T> {
        c.steal_attempts.bump();
        let age = self.age.load(Ordering::Acquire);
        fence(Ordering::SeqCst);
        c.fences.bump();
        let pb = self.public_bot.load(Ordering::Acquire);
        let (tag, top) = unpack(age);
        if (top as isize) < pb {
            // Load the array only now: the one current when `pb` was published, or newer.
            // SAFETY: arrays are freed only when the deque drops, and we hold a reference.
            let buf = unsafe { &*self.buffer.load(Ordering::Acquire) };
            // SAFETY: `top < pb <= cap` of any array current at or after `pb`'s publication.
            // The read may race with an owner rewrite after an index reset; then the tag has
            // changed, our CAS fails, and the copy is discarded undropped.
            let task = unsafe { buf.read(top as isize) };
            c.cas.bump();
            match self.age.compare_exchange(
                age,
                pack(tag, top.wrapping_add(1)),
                Ordering::SeqCst,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    c.steals.bump();
                    if self.exposure.uses_signal() && self.targeted.load(Ordering::Relaxed) {
                        self.targeted.store(false, Ordering::Relaxed);
                    }
                    // SAFETY: the CAS made slot `top` ours, and it held a task published
                    // before the `public_bot` we acquired.
                    Steal::Success(unsafe { task.assume_init() })
                }
                Err(_) => {
                    // Discard the copy without dropping it (a `MaybeUninit` never drops):
                    // the task, if it was one, belongs to whoever won.
                    let _ = task;
                    Steal::Retry
                }
            }
        } else {
            // Erratum fixed: private work exists iff `public_bot < bot` (a racy hint).
            let b = self.bot.load(Ordering::Relaxed);
            if pb < b && !(self.exposure == Exposure::Conservative && b - pb < 2) {
                self.request_exposure(b - pb, c);
                Steal::Private
            } else {
                // Nothing public, and nothing the owner would expose: a conservative owner
                // never exposes its last private task (LCWS §4.1.1). Reporting `Empty`
                // lets an idle thief park instead of spinning on a task it cannot get.
                Steal::Empty
            }
        }
    }

    /// `bot - top`, clamped at 0.
    fn len_estimate(&self) -> usize {
        let b = self.bot.load(Ordering::Relaxed);
        let (_, top) = unpack(self.age.load(Ordering::Relaxed));
        (b - top as isize).max(0) as usize
    }

    /// Racy estimate of the public part (what a thief could take now).
    fn public_len_estimate(&self) -> usize {
        let pb = self.public_bot.load(Ordering::Relaxed);
        let (_, top) = unpack(self.age.load(Ordering::Relaxed));
        (pb - top as isize).max(0) as usize
    }
}

/// How many private tasks `update_public_bottom` exposes out of `r` for a variant.
#[inline(always)]
fn exposure_count(exposure: Exposure, r: isize) -> isize {
    match exposure {
        Exposure::User | Exposure::Signal => (r >= 1) as isize,
        Exposure::Conservative => (r >= 2) as isize,
        Exposure::Half if r >= 3 => (r + 1) / 2,
        Exposure::Half => (r >= 1) as isize,
    }
}

impl<T> Drop for Inner<T> {
    fn drop(&mut self) {
        let b = self.bot.load(Ordering::Relaxed);
        let (_, top) = unpack(self.age.load(Ordering::Relaxed));
        let buf = self.buffer.load(Ordering::Relaxed);
        // SAFETY: we are the last reference; `buf` is the live array, whose slots
        // `[top, bot)` hold the remaining tasks (the owner is not inside a pop, which is the
        // only time `bot` can sit below `public_bot`).
        unsafe {
            for i in top as isize..b {
                drop((*buf).read(i).assume_init());
            }
            drop(Box::from_raw(buf));
        }
        self.retired.with_mut(|r| {
            // SAFETY: exclusive access; every retired array came from `Box::into_raw` and is
            // freed once (their slots are bitwise copies, not dropped).
            for old in unsafe { (*r).drain(..) } {
                // SAFETY: as above: `old` came from `Box::into_raw` and is freed once.
                drop(unsafe { Box::from_raw(old) });
            }
        });
    }
}

/// Monomorphised `update_public_bottom` for the handler's type-erased target.
///
/// # Safety
/// `data` is a live `Inner<T>` owned by the calling thread.
unsafe fn expose_erased<T>(data: *const (), c: &WorkerCounters) {
    // SAFETY: per the contract, `data` points at a live `Inner<T>`.
    unsafe { (*data.cast::<Inner<T>>()).update_public_bottom(c) }
}

/// Owner side.
pub struct Worker<T> {
    inner: Arc<Inner<T>>,
}

/// Thief side.
pub struct Stealer<T> {
    inner: Arc<Inner<T>>,
}

impl<T> Clone for Stealer<T> {
    fn clone(&self) -> Self {
        Stealer {
            inner: self.inner.clone(),
        }
    }
}

// SAFETY: the owner side moves tasks of type `T` between threads only as a whole (`T: Send`);
// it is not `Sync` (its methods assume a single owner thread).
unsafe impl<T: Send> Send for Worker<T> {}
// SAFETY: thieves only take whole tasks (`T: Send`) through the CAS protocol and touch
// shared state through atomics.
unsafe impl<T: Send> Send for Stealer<T> {}
// SAFETY: as above; every `Stealer` method is safe to call concurrently.
unsafe impl<T: Send> Sync for Stealer<T> {}

impl<T: Send> Worker<T> {
    /// `[bot, public_bot]`: their difference is the number of private tasks (the gauge of
    /// the runtime's join coarsening, which reads it without a match on the deque kind).
    // The runtime, which reads it, is not built under loom.
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn gauge(&self) -> [&AtomicIsize; 2] {
        [&self.inner.bot, &self.inner.public_bot]
    }

    /// The targeted flag thieves set to ask for exposure (polled by `lcws-user` owners).
    // The runtime, which reads it, is not built under loom.
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn targeted_flag(&self) -> &AtomicBool {
        &self.inner.targeted
    }

    /// A new, empty split deque with the given exposure.
    pub fn new(exposure: Exposure) -> Self {
        Self::with_capacity(exposure, DEFAULT_CAPACITY)
    }

    /// A new, empty split deque whose first array has `cap` slots (at least 1).
    pub fn with_capacity(exposure: Exposure, cap: usize) -> Self {
        Worker {
            inner: Arc::new(Inner::new(exposure, cap)),
        }
    }

    /// The exposure variant.
    pub fn exposure(&self) -> Exposure {
        self.inner.exposure
    }

    /// Serves a pending exposure request now (user-space exposure only; the signal variants
    /// are served by their handler): what `push` and `pop` do after their work, for an owner
    /// that runs long without touching its deque. One relaxed load when nobody asked.
    #[inline]
    pub fn serve_exposure(&self, c: &WorkerCounters) {
        let inner = &*self.inner;
        if inner.exposure == Exposure::User && inner.targeted.load(Ordering::Relaxed) {
            inner.targeted.store(false, Ordering::Relaxed);
            inner.update_public_bottom(c);
        }
    }

    /// Makes every private task public now, asked or not (user-space exposure only; a
    /// signal variant does nothing here, its handler is the only other writer of the split
    /// point). For an owner that has just pushed tasks meant for thieves (a parallel loop's
    /// participants) and is about to run long without touching its deque: waiting for a
    /// thief's request would leave those tasks private until the owner's next push or pop.
    #[inline]
    pub fn expose_all(&self, c: &WorkerCounters) {
        let inner = &*self.inner;
        if inner.exposure != Exposure::User {
            return;
        }
        let pb = inner.public_bot.load(Ordering::Relaxed);
        let b = inner.bot.load(Ordering::Relaxed);
        if b > pb {
            inner.targeted.store(false, Ordering::Relaxed);
            // Release, as in `update_public_bottom`: a thief that acquires the new split
            // point sees the exposed slots.
            inner.public_bot.store(b, Ordering::Release);
            c.exposures_served.bump();
            c.tasks_exposed.add((b - pb) as u64);
        }
    }

    /// Whether a thief asked this deque's owner to expose work (its targeted flag is set).
    #[inline]
    pub fn exposure_requested(&self) -> bool {
        self.inner.targeted.load(Ordering::Relaxed)
    }

    /// Number of private tasks (owner's view).
    #[inline]
    pub fn private_len(&self) -> usize {
        let b = self.inner.bot.load(Ordering::Relaxed);
        let pb = self.inner.public_bot.load(Ordering::Relaxed);
        (b - pb).max(0) as usize
    }

    /// Checks the owner-side invariant `public_bot <= bot` between operations (loom
    /// models).
    #[cfg(loom)]
    pub fn assert_invariants(&self) {
        let b = self.inner.bot.load(Ordering::Relaxed);
        let pb = self.inner.public_bot.load(Ordering::Relaxed);
        assert!(
            pb <= b,
            "public_bot {pb} > bot {b} after an owner operation"
        );
    }

    /// Runs `update_public_bottom` as the handler would, on the owner's thread, counting on
    /// `counters` (for the loom models, which cannot deliver signals).
    #[cfg(loom)]
    pub fn simulate_handler(&self, counters: &WorkerCounters) {
        self.inner.update_public_bottom(counters)
    }

    /// Binds the calling thread as this deque's owner for signal delivery (signal variants):
    /// records its pthread handle and points the thread's handler target at this deque and
    /// `counters`. Until bound, thieves of a signal variant only set the targeted flag.
    /// The binding ends when the guard drops (which waits for in-flight signal sends).
    ///
    /// For a signal variant this installs the handler for `signal` first ([`signal::install`],
    /// idempotent), so that a thief can never deliver a signal nobody handles.
    ///
    /// # Errors
    /// [`SignalError`] if `signal` is unusable or owned by a foreign handler.
    ///
    /// # Panics
    /// If the calling thread is already bound to a split deque (one deque per thread).
    ///
    /// # Safety
    /// The guard must be dropped, not leaked (`mem::forget`, a reference cycle): a leaked
    /// guard leaves the thread's signal handler pointing at `counters` and this deque after
    /// they may have been freed, and a later signal would read freed memory.
    pub unsafe fn bind_current_thread<'a>(
        &'a self,
        signal: c_int,
        counters: &'a WorkerCounters,
    ) -> Result<BindGuard<'a>, SignalError> {
        if self.inner.exposure.uses_signal() {
            signal::install(signal)?;
            // Threads inherit their creator's signal mask: an application that blocks the
            // signal (for `sigwait`/`signalfd`) would leave every request pending forever.
            signal::unblock_on_this_thread(signal);
        } else {
            signal::validate(signal)?;
        }
        assert!(
            signal::current_target().is_null(),
            "this thread is already bound to a split deque"
        );
        let target = Box::new(Target {
            data: (&*self.inner as *const Inner<T>).cast::<()>(),
            expose: expose_erased::<T>,
            counters,
        });
        signal::swap_target(&*target);
        self.inner.signal.store(signal, Ordering::Relaxed);
        // SAFETY: `pthread_self` has no preconditions.
        let me = unsafe { libc::pthread_self() } as usize;
        self.inner.owner_thread.store(me, Ordering::SeqCst);
        Ok(BindGuard {
            owner_thread: &self.inner.owner_thread,
            in_flight: &self.inner.in_flight,
            _target: target,
            _not_send: PhantomData,
        })
    }
}

/// Keeps a thread bound to a split deque for signal delivery; unbinds on drop.
pub struct BindGuard<'a> {
    owner_thread: &'a AtomicUsize,
    in_flight: &'a AtomicUsize,
    _target: Box<Target>,
    /// The binding belongs to the thread that made it.
    _not_send: PhantomData<*const ()>,
}

impl Drop for BindGuard<'_> {
    fn drop(&mut self) {
        // 1. No new sender can read our handle.
        self.owner_thread.store(0, Ordering::SeqCst);
        // 2. Senders that read it have returned from `pthread_kill`.
        while self.in_flight.load(Ordering::SeqCst) != 0 {
            crate::sync::spin_loop();
        }
        // 3. A signal still pending finds no target; then the target box is freed.
        signal::swap_target(ptr::null());
    }
}

impl<T: Send> DequeOwner<T> for Worker<T> {
    type Stealer = Stealer<T>;

    fn push(&self, task: T, c: &WorkerCounters) {
        let inner = &*self.inner;
        inner.push_bottom(task, c);
        c.pushes.bump();
        if inner.targeted.load(Ordering::Relaxed) {
            inner.targeted.store(false, Ordering::Relaxed);
            if inner.exposure == Exposure::User {
                inner.update_public_bottom(c);
            }
        }
    }

    fn pop(&self, c: &WorkerCounters) -> Option<T> {
        let inner = &*self.inner;
        if let Some(task) = inner.pop_bottom(c) {
            c.private_pops.bump();
            if inner.targeted.load(Ordering::Relaxed) && inner.exposure == Exposure::User {
                inner.targeted.store(false, Ordering::Relaxed);
                inner.update_public_bottom(c);
            }
            return Some(task);
        }
        match inner.pop_public_bottom(c) {
            Some(task) => {
                c.public_pops.bump();
                c.exposed_taken_back.bump();
                Some(task)
            }
            None => {
                // Listing 1, line 18: nothing left to expose.
                if inner.exposure == Exposure::User && inner.targeted.load(Ordering::Relaxed) {
                    inner.targeted.store(false, Ordering::Relaxed);
                }
                None
            }
        }
    }

    fn stealer(&self) -> Stealer<T> {
        Stealer {
            inner: self.inner.clone(),
        }
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn len(&self) -> usize {
        self.inner.len_estimate()
    }
}

impl<T: Send> DequeStealer<T> for Stealer<T> {
    fn steal(&self, c: &WorkerCounters) -> Steal<T> {
        self.inner.pop_top(c)
    }

    fn len_hint(&self) -> usize {
        self.inner.len_estimate()
    }

    fn public_len_hint(&self) -> usize {
        self.inner.public_len_estimate()
    }
}

/// The loom stand-in for signal delivery: a per-thread countdown over the owner's
/// interleaving points; the point where it reaches zero runs the handler's exposure.
#[cfg(loom)]
pub mod loom_hook {
    use std::cell::Cell;

    std::thread_local! {
        static COUNTDOWN: Cell<usize> = const { Cell::new(0) };
        static FIRED: Cell<bool> = const { Cell::new(false) };
        static REACHED: Cell<usize> = const { Cell::new(0) };
    }

    /// The `n`-th interleaving point (1-based) this thread reaches fires the handler;
    /// `0` means never.
    pub fn arm(n: usize) {
        COUNTDOWN.with(|c| c.set(n));
        FIRED.with(|f| f.set(false));
        REACHED.with(|r| r.set(0));
    }

    /// Whether the armed point was reached.
    pub fn fired() -> bool {
        FIRED.with(|f| f.get())
    }

    /// How many interleaving points this thread reached since the last [`arm`].
    pub fn reached() -> usize {
        REACHED.with(|r| r.get())
    }

    pub(crate) fn tick() -> bool {
        REACHED.with(|r| r.set(r.get() + 1));
        COUNTDOWN.with(|c| match c.get() {
            0 => false,
            1 => {
                c.set(0);
                FIRED.with(|f| f.set(true));
                true
            }
            n => {
                c.set(n - 1);
                false
            }
        })
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize as StdAtomicUsize;

    fn ctr() -> WorkerCounters {
        WorkerCounters::default()
    }

    const ALL: [Exposure; 4] = [
        Exposure::User,
        Exposure::Signal,
        Exposure::Conservative,
        Exposure::Half,
    ];

    #[test]
    fn lifo_pops_and_counts() {
        for e in ALL {
            let c = ctr();
            let w = Worker::new(e);
            for i in 0..10 {
                w.push(i, &c);
            }
            assert_eq!(w.len(), 10);
            for i in (0..10).rev() {
                assert_eq!(w.pop(&c), Some(i));
            }
            assert_eq!(w.pop(&c), None);
            assert_eq!(w.pop(&c), None);
            assert!(w.is_empty());
            let s = c.snapshot();
            assert_eq!((s.pushes, s.private_pops, s.public_pops), (10, 10, 0));
            assert_eq!((s.fences, s.cas), (0, 0), "{e:?}: empty pops are free");
            // Indices are consistent after empty pops.
            w.push(7, &c);
            assert_eq!(w.pop(&c), Some(7));
        }
    }

    #[test]
    fn exposure_rules_per_variant() {
        // (variant, private tasks r) -> tasks exposed
        let cases = [
            (Exposure::User, 0, 0),
            (Exposure::User, 1, 1),
            (Exposure::User, 5, 1),
            (Exposure::Signal, 1, 1),
            (Exposure::Signal, 4, 1),
            (Exposure::Conservative, 1, 0),
            (Exposure::Conservative, 2, 1),
            (Exposure::Conservative, 5, 1),
            (Exposure::Half, 0, 0),
            (Exposure::Half, 1, 1),
            (Exposure::Half, 2, 1),
            (Exposure::Half, 3, 2),
            (Exposure::Half, 4, 2),
            (Exposure::Half, 5, 3),
            (Exposure::Half, 8, 4),
        ];
        for (e, r, k) in cases {
            let c = ctr();
            let w = Worker::new(e);
            for i in 0..r {
                w.push(i, &c);
            }
            w.inner.update_public_bottom(&c);
            assert_eq!(w.private_len(), (r - k) as usize, "{e:?} r={r}");
            let s = c.snapshot();
            assert_eq!((s.exposures_served, s.tasks_exposed), (1, k as u64));
            // Exposed tasks are the top-most ones: a thief gets 0, 1, ...
            for i in 0..k {
                assert_eq!(w.stealer().steal(&c), Steal::Success(i));
            }
        }
    }

    #[test]
    fn conservative_never_exposes_the_last_private_task() {
        let c = ctr();
        let w = Worker::new(Exposure::Conservative);
        for i in 0..3 {
            w.push(i, &c);
        }
        for _ in 0..10 {
            w.inner.update_public_bottom(&c);
        }
        assert_eq!(w.private_len(), 1);
        assert_eq!(c.snapshot().tasks_exposed, 2);
        // A thief that empties the public part is not told to signal for the last task.
        let s = w.stealer();
        let t = ctr();
        assert_eq!(s.steal(&t), Steal::Success(0));
        assert_eq!(s.steal(&t), Steal::Success(1));
        assert_eq!(
            s.steal(&t),
            Steal::Empty,
            "the last private task is never exposed"
        );
        assert_eq!(t.snapshot().exposure_requests, 0);
        assert!(!w.inner.targeted.load(Ordering::Relaxed));
    }

    #[test]
    fn steal_outcomes_and_user_flag() {
        let c = ctr();
        let t = ctr();
        let w = Worker::new(Exposure::User);
        let s = w.stealer();
        assert_eq!(s.steal(&t), Steal::Empty);
        w.push(1, &c);
        w.push(2, &c);
        // Erratum fixed: public part empty, private work exists -> Private.
        assert_eq!(s.steal(&t), Steal::Private);
        assert_eq!(s.steal(&t), Steal::Private);
        assert_eq!(t.snapshot().exposure_requests, 1, "one request per flag");
        assert!(w.inner.targeted.load(Ordering::Relaxed));
        // The owner serves it at its next scheduling point (after the pop).
        assert_eq!(w.pop(&c), Some(2));
        assert!(!w.inner.targeted.load(Ordering::Relaxed));
        assert_eq!(c.snapshot().tasks_exposed, 1);
        assert_eq!(s.steal(&t), Steal::Success(1));
        assert_eq!(s.steal(&t), Steal::Empty);
        let ts = t.snapshot();
        assert_eq!(
            (ts.steal_attempts, ts.steals, ts.cas, ts.fences),
            (5, 1, 1, 5)
        );
        assert_eq!(w.pop(&c), None);
    }

    #[test]
    fn public_pops_and_the_last_task() {
        for e in [Exposure::User, Exposure::Signal, Exposure::Half] {
            let c = ctr();
            let w = Worker::new(e);
            for i in 0..4 {
                w.push(i, &c);
            }
            for _ in 0..4 {
                w.inner.update_public_bottom(&c);
            }
            assert_eq!(w.private_len(), 0);
            for i in (0..4).rev() {
                assert_eq!(w.pop(&c), Some(i), "{e:?}");
            }
            assert_eq!(w.pop(&c), None);
            let s = c.snapshot();
            assert_eq!((s.public_pops, s.exposed_taken_back), (4, 4));
            // 4 fast fences, then the last task: fence + CAS + fence.
            assert_eq!((s.fences, s.cas), (5, 1), "{e:?}");
            // Reset: indices back at 0 and the tag bumped.
            assert_eq!(w.inner.bot.load(Ordering::Relaxed), 0);
            assert_eq!(unpack(w.inner.age.load(Ordering::Relaxed)), (1, 0));
        }
    }

    #[test]
    fn stale_thief_loses_after_reset() {
        let c = ctr();
        let w = Worker::new(Exposure::Signal);
        w.push(10, &c);
        w.inner.update_public_bottom(&c);
        let stale = w.inner.age.load(Ordering::Relaxed);
        assert_eq!(w.pop(&c), Some(10));
        w.push(20, &c);
        w.inner.update_public_bottom(&c);
        // A thief holding the pre-reset age {0, 0} must fail even though top == 0 again.
        let (tag, top) = unpack(stale);
        assert!(w
            .inner
            .age
            .compare_exchange(
                stale,
                pack(tag, top + 1),
                Ordering::SeqCst,
                Ordering::Relaxed
            )
            .is_err());
        assert_eq!(w.stealer().steal(&c), Steal::Success(20));
    }

    #[test]
    fn growth_keeps_tasks_and_retires_arrays() {
        let c = ctr();
        let w = Worker::with_capacity(Exposure::Half, 2);
        let s = w.stealer();
        for i in 0..100 {
            w.push(i, &c);
            if i % 10 == 0 {
                w.inner.update_public_bottom(&c);
            }
        }
        assert_eq!(w.len(), 100);
        let mut got = Vec::new();
        while let Steal::Success(v) = s.steal(&c) {
            got.push(v);
        }
        while let Some(v) = w.pop(&c) {
            got.push(v);
        }
        got.sort_unstable();
        assert_eq!(got, (0..100).collect::<Vec<_>>());
        // SAFETY: the owner is this thread and no operation is in progress.
        let retired = w.inner.retired.with(|r| unsafe { (*r).len() });
        assert_eq!(retired, 6, "2 -> 4 -> ... -> 128");
    }

    #[test]
    fn drops_remaining_tasks_once() {
        static DROPS: StdAtomicUsize = StdAtomicUsize::new(0);
        struct D;
        impl Drop for D {
            fn drop(&mut self) {
                DROPS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
        let c = ctr();
        {
            let w = Worker::with_capacity(Exposure::Signal, 2);
            let s = w.stealer();
            for _ in 0..20 {
                w.push(D, &c);
            }
            w.inner.update_public_bottom(&c);
            w.inner.update_public_bottom(&c);
            drop(s.steal(&c).success());
            drop(w.pop(&c));
            assert_eq!(DROPS.load(std::sync::atomic::Ordering::Relaxed), 2);
            drop(w);
            // The stealer keeps the deque alive.
            assert_eq!(DROPS.load(std::sync::atomic::Ordering::Relaxed), 2);
        }
        assert_eq!(DROPS.load(std::sync::atomic::Ordering::Relaxed), 20);
    }

    #[test]
    fn signal_variant_exposes_through_the_handler() {
        let c = ctr();
        let t = ctr();
        let w = Worker::new(Exposure::Signal);
        let s = w.stealer();
        for i in 0..3 {
            w.push(i, &c);
        }
        // Unbound: flag only, no signal.
        assert_eq!(s.steal(&t), Steal::Private);
        assert_eq!(t.snapshot().signals_sent, 0);
        assert_eq!(c.snapshot().exposures_served, 0);
        // A push clears the flag.
        w.push(3, &c);
        assert!(!w.inner.targeted.load(Ordering::Relaxed));
        {
            // SAFETY: the guard is dropped at the end of this block.
            let _g = unsafe { w.bind_current_thread(signal::DEFAULT_SIGNAL, &c) }.expect("bind");
            // The thief is this very thread: pthread_kill to self delivers the signal before
            // it returns, so the handler has run when `steal` returns.
            assert_eq!(s.steal(&t), Steal::Private);
            assert_eq!(t.snapshot().signals_sent, 1);
            assert_eq!(c.snapshot().exposures_served, 1);
            assert_eq!(c.snapshot().tasks_exposed, 1);
            assert_eq!(s.steal(&t), Steal::Success(0));
            // The steal cleared the flag; the next request signals again.
            assert_eq!(s.steal(&t), Steal::Private);
            assert_eq!(t.snapshot().signals_sent, 2);
            assert_eq!(s.steal(&t), Steal::Success(1));
        }
        // Unbound again.
        assert_eq!(w.inner.owner_thread.load(Ordering::Relaxed), 0);
        assert!(signal::current_target().is_null());
        assert_eq!(s.steal(&t), Steal::Private);
        assert_eq!(t.snapshot().signals_sent, 2);
        assert_eq!(w.pop(&c), Some(3));
        assert_eq!(w.pop(&c), Some(2));
        assert_eq!(w.pop(&c), None);
    }

    #[test]
    fn signal_exposure_across_threads() {
        use std::sync::atomic::AtomicBool as StdBool;
        use std::sync::Arc as StdArc;
        const N: usize = 20_000;
        for e in [Exposure::Signal, Exposure::Conservative, Exposure::Half] {
            let w = Worker::new(e);
            let s = w.stealer();
            let done = StdArc::new(StdBool::new(false));
            let thieves: Vec<_> = (0..2)
                .map(|_| {
                    let s = s.clone();
                    let done = done.clone();
                    std::thread::spawn(move || {
                        let t = ctr();
                        let mut got = Vec::new();
                        while !done.load(std::sync::atomic::Ordering::Acquire) {
                            if let Steal::Success(v) = s.steal(&t) {
                                got.push(v);
                            }
                        }
                        (got, t.snapshot())
                    })
                })
                .collect();
            let c = ctr();
            let mut got = Vec::new();
            {
                // SAFETY: the guard is dropped at the end of this block.
                let _g = unsafe { w.bind_current_thread(signal::DEFAULT_SIGNAL, &c) }.unwrap();
                for i in 0..N {
                    w.push(i, &c);
                    if i % 4 == 3 {
                        got.extend(w.pop(&c));
                    }
                    // A little work between scheduling points, so that signals land anywhere.
                    std::hint::black_box((0..50).sum::<usize>());
                }
                while let Some(v) = w.pop(&c) {
                    got.push(v);
                }
                done.store(true, std::sync::atomic::Ordering::Release);
                // The guard drops here while thieves may still be signalling.
            }
            let mut signals = 0;
            for t in thieves {
                let (g, st) = t.join().unwrap();
                got.extend(g);
                signals += st.signals_sent;
            }
            got.sort_unstable();
            assert_eq!(got, (0..N).collect::<Vec<_>>(), "{e:?}");
            let cs = c.snapshot();
            assert!(
                cs.exposures_served <= signals,
                "{e:?}: served {cs:?}, sent {signals}"
            );
        }
    }

    #[test]
    fn half_handler_exposes_half() {
        let c = ctr();
        let t = ctr();
        let w = Worker::new(Exposure::Half);
        let s = w.stealer();
        for i in 0..5 {
            w.push(i, &c);
        }
        // SAFETY: the guard is dropped at the end of the test, before `w` and `c`.
        let _g = unsafe { w.bind_current_thread(signal::DEFAULT_SIGNAL, &c) }.unwrap();
        assert_eq!(s.steal(&t), Steal::Private);
        assert_eq!(c.snapshot().tasks_exposed, 3);
        assert_eq!(w.private_len(), 2);
    }
}
