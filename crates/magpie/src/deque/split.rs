//! The LCWS split deque (Custódio, Paulino, Rito, SPAA'23, Listings 1–3 and §4.1).
//!
//! Three logical indices, which only ever move forward (wrapping at `isize::MAX`), over a
//! power-of-two circular array of slots (index `i` lives in slot `i & (cap - 1)`):
//!
//! - `top`: the oldest task; thieves advance it by CAS;
//! - `public_bot`: the split point; the public part is `[top, public_bot)`, the private part
//!   `[public_bot, bot)`;
//! - `bot`: the owner's next free slot.
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
//! every owner operation is written (and model-checked, `tests/loom_split.rs` beside it) against a
//! handler firing at each point. The handler only ever raises `public_bot` towards `bot`.
//! `pop_bottom` uses the paper's race-fixed form ("A Subtlety"): it lowers `bot` before
//! comparing with `public_bot`, so a handler can no longer expose the task being popped. The
//! conservative variant keeps the original form, because its handler never exposes the last
//! private task (see `Inner::pop_bottom`).
//!
//! # Memory: a circular array, no index reset
//!
//! The paper's deque uses absolute indices reset to 0 when the deque empties, with a tag
//! beside `top` against ABA; a deque that never empties while thieves steal from its top
//! would then grow without bound. Here, as in Chase-Lev (`deque::chase_lev`), indices are
//! never reset: `top` never returns to a value it had (it wraps only after 2^64 steals on a
//! 64-bit target), so a CAS from `t` to `t + 1` succeeds only if nobody took task `t`, and no
//! tag is needed. The last public task is raced for by CASing `top` forward (owner and thief
//! alike), after which the owner sets `public_bot = bot = top`. Indices are compared by their
//! wrapping difference (`a.wrapping_sub(b) > 0` for "a after b"), which is exact while fewer
//! than 2^63 tasks are live; a test-only start index (`Worker::with_start_index`) lets the
//! loom models and stress tests cross the wrap.
//!
//! The array holds the live range `[top, bot)` only: the owner writes slot `b & (cap - 1)`
//! when `b - top < cap`, so the index `b - cap` that last used the slot is below `top`,
//! taken. The owner checks this against a private copy of `top` (`top_seen`, never newer
//! than `top`, so the check is conservative) and reloads `top` (Acquire) only when the copy
//! says the array is full; then it doubles the array if `top` really is `cap` behind. The
//! Acquire load synchronises with the CAS that took index `b - cap` (every write of `top` is
//! a CAS, so release sequences are never broken), which orders that thief's read of the slot
//! before the owner's rewrite. The push fast path is unchanged: no fence, no RMW, no load of
//! a line thieves write.
//!
//! Growth copies `[top, bot)` (a stale `top` only copies more) into an array twice as large,
//! then publishes it (Release); a thief that acquires `public_bot` then loads the array sees
//! the copy, or reads the old array, which still holds every index it can win. Retired
//! arrays are kept until the deque drops (a thief may still read them). An array grows only
//! when `cap` tasks are live, so the current array has at most `max(initial, 2 × peak live)`
//! slots, and the retired ones, halving each time, less than that again: the deque's memory
//! is below `2 × max(initial, 2 × peak live)` slots, however many tasks pass through it
//! (`Worker::allocated_slots`; the `split_memory_is_bounded_*` stress tests assert it over
//! 10^8 push/steal cycles per variant; `MAGPIE_MEMORY_CYCLES` sets another count).
//!
//! Thieves read a slot before the CAS that claims it (as in crossbeam-deque): if another
//! thread took that index meanwhile, the owner may be rewriting the slot with index
//! `t + cap`; the thief's CAS then fails (`top` moved) and the copy is discarded without being
//! dropped. That read is a data race in the Rust memory model that the algorithm tolerates;
//! loom reports it, so the loom models never let the owner rewrite a slot that a thief which
//! did not take its task may still be reading.

use super::signal::{self, SignalError, Target};
use super::{DequeOwner, DequeStealer, Exposure, Steal};
use crate::stats::WorkerCounters;
use crate::sync::atomic::{
    fence, AtomicBool, AtomicI32, AtomicIsize, AtomicPtr, AtomicUsize, Ordering,
};
use crate::sync::{Arc, UnsafeCell};
use crossbeam_utils::CachePadded;
use std::cell::Cell;
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::os::raw::c_int;
use std::ptr;
use std::sync::atomic::compiler_fence;

/// Initial number of slots.
const DEFAULT_CAPACITY: usize = 64;
/// Largest array: live distances between indices must stay below `isize::MAX` for their
/// wrapping comparisons (an allocation this large fails long before).
const MAX_CAPACITY: usize = 1 << (usize::BITS - 2);

/// Keeps the compiler from moving the owner's steps across this point, so that a signal
/// handler running on the owner's thread sees them in program order. Emits no instruction.
#[inline(always)]
fn signal_fence() {
    compiler_fence(Ordering::SeqCst);
}

/// One circular array of slots: logical index `i` lives in slot `i & mask`.
struct Buffer<T> {
    slots: Box<[UnsafeCell<MaybeUninit<T>>]>,
    /// `cap - 1`, `cap` a power of two.
    mask: usize,
}

impl<T> Buffer<T> {
    fn alloc(cap: usize) -> *mut Buffer<T> {
        debug_assert!(cap.is_power_of_two());
        let slots = (0..cap)
            .map(|_| UnsafeCell::new(MaybeUninit::uninit()))
            .collect();
        Box::into_raw(Box::new(Buffer {
            slots,
            mask: cap - 1,
        }))
    }

    fn cap(&self) -> isize {
        self.slots.len() as isize
    }

    /// The slot of logical index `i` (any index: it is reduced modulo `cap`).
    #[inline(always)]
    fn slot(&self, i: isize) -> &UnsafeCell<MaybeUninit<T>> {
        let k = i as usize & self.mask;
        #[cfg(loom)]
        return &self.slots[k];
        // SAFETY: `k <= mask = slots.len() - 1`.
        #[cfg(not(loom))]
        unsafe {
            self.slots.get_unchecked(k)
        }
    }

    /// Writes the slot of index `i`.
    ///
    /// # Safety
    /// Only the owner writes, and only a slot that no other thread may read as a task it
    /// could obtain (racy reads whose value is discarded are tolerated).
    unsafe fn write(&self, i: isize, bits: MaybeUninit<T>) {
        self.slot(i).with_mut(|p| {
            // SAFETY: `p` points into a live slot; the caller guarantees exclusivity.
            unsafe { p.write(bits) }
        })
    }

    /// Reads the slot of index `i` bitwise. The result is a task only if the caller then
    /// owns it (CAS won or private slot); otherwise it must be discarded undropped.
    ///
    /// # Safety
    /// The buffer is live; the read is a plain copy of possibly uninitialised bytes into a
    /// `MaybeUninit`, which is always allowed.
    unsafe fn read(&self, i: isize) -> MaybeUninit<T> {
        self.slot(i).with(|p| {
            // SAFETY: `p` points into a live slot; copying a `MaybeUninit` is always valid. A
            // volatile read, because a losing thief's copy may race an owner rewrite of the
            // slot with index `i + cap` (then its CAS fails and the copy is discarded), as in
            // chase_lev.
            unsafe { ptr::read_volatile(p) }
        })
    }
}

/// `a - b` as a signed distance between two wrapping indices (exact while `|a - b| < 2^63`).
#[inline(always)]
fn dist(a: isize, b: isize) -> isize {
    a.wrapping_sub(b)
}

/// The shared state of one split deque.
pub(crate) struct Inner<T> {
    /// The owner's next free index. Written by the owner only.
    bot: CachePadded<AtomicIsize>,
    /// The split point. Written by the owner (and its signal handler) only.
    public_bot: CachePadded<AtomicIsize>,
    /// The oldest task's index: advanced by CAS only (thieves, and the owner for the last
    /// public task), never reset.
    top: CachePadded<AtomicIsize>,
    /// The current array. Written by the owner (growth), read by thieves.
    buffer: CachePadded<AtomicPtr<Buffer<T>>>,
    /// Set by a thief that asked for exposure.
    targeted: CachePadded<AtomicBool>,
    /// The bound owner thread's `pthread_t` (0 = unbound) and its signal.
    owner_thread: CachePadded<AtomicUsize>,
    signal: AtomicI32,
    /// Thieves between reading `owner_thread` and returning from `pthread_kill`.
    in_flight: CachePadded<AtomicUsize>,
    /// The owner's last Acquire load of `top` (never ahead of it). Owner only, never touched
    /// by the handler; lives beside `bot` in the owner's cache lines.
    top_seen: Cell<isize>,
    /// Arrays replaced by growth; freed on drop. Owner only.
    retired: UnsafeCell<Vec<*mut Buffer<T>>>,
    exposure: Exposure,
}

impl<T> Inner<T> {
    fn new(exposure: Exposure, cap: usize, start: isize) -> Self {
        let cap = cap.clamp(1, MAX_CAPACITY).next_power_of_two();
        Inner {
            bot: CachePadded::new(AtomicIsize::new(start)),
            public_bot: CachePadded::new(AtomicIsize::new(start)),
            top: CachePadded::new(AtomicIsize::new(start)),
            buffer: CachePadded::new(AtomicPtr::new(Buffer::alloc(cap))),
            targeted: CachePadded::new(AtomicBool::new(false)),
            owner_thread: CachePadded::new(AtomicUsize::new(0)),
            signal: AtomicI32::new(signal::DEFAULT_SIGNAL),
            in_flight: CachePadded::new(AtomicUsize::new(0)),
            top_seen: Cell::new(start),
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
    #[inline]
    fn push_bottom(&self, task: T, c: &WorkerCounters) {
        let b = self.bot.load(Ordering::Relaxed);
        signal_fence();
        self.handler_point(c);
        let mut buf = self.owner_buffer();
        if dist(b, self.top_seen.get()) >= buf.cap() {
            buf = self.make_room(b, c);
        }
        // SAFETY: `b - top < cap`, so the index that last used slot `b & mask` is below
        // `top`: taken, by a thief whose read of the slot happens before our Acquire load of
        // `top` (`make_room`), or by the owner. Only thieves that lost that index, whose CAS
        // must fail, may still read the slot concurrently.
        unsafe { buf.write(b, MaybeUninit::new(task)) };
        signal_fence();
        self.handler_point(c);
        self.bot.store(b.wrapping_add(1), Ordering::Relaxed);
        signal_fence();
        self.handler_point(c);
    }

    /// The array looked full against `top_seen`: reloads `top` and doubles the array if
    /// `cap` tasks really are live. Returns the array to write index `b` into. Owner only.
    #[cold]
    fn make_room(&self, b: isize, c: &WorkerCounters) -> &Buffer<T> {
        // Acquire: synchronises with the CAS that took the index whose slot we reuse.
        let t = self.top.load(Ordering::Acquire);
        self.top_seen.set(t);
        let old_ptr = self.buffer.load(Ordering::Relaxed);
        // SAFETY: see `owner_buffer`.
        let old = unsafe { &*old_ptr };
        let live = dist(b, t);
        if live < old.cap() {
            return old;
        }
        let cap = old.slots.len();
        assert!(
            cap < MAX_CAPACITY,
            "split deque overflow: more than 2^{} live tasks",
            usize::BITS - 2
        );
        let new_ptr = Buffer::<T>::alloc(cap * 2);
        // SAFETY: freshly allocated, not yet shared.
        let new = unsafe { &*new_ptr };
        // Indices below `t` are taken; `t` may be stale, which only copies more.
        for k in 0..live {
            let i = t.wrapping_add(k);
            // SAFETY: the new array is private to us; the copy is bitwise, never assumed
            // initialised, and the old array's copy is never dropped.
            unsafe { new.write(i, old.read(i)) };
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
    #[inline]
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
            let b = b.wrapping_sub(1);
            self.bot.store(b, Ordering::Relaxed);
            signal_fence();
            self.handler_point(c);
            // SAFETY: `public_bot <= b` (a conservative handler keeps at least one private
            // task), so index `b` is private: no thief can take it.
            return Some(unsafe { self.owner_buffer().read(b).assume_init() });
        }
        let b = self.bot.load(Ordering::Relaxed).wrapping_sub(1);
        signal_fence();
        self.handler_point(c);
        self.bot.store(b, Ordering::Relaxed);
        signal_fence();
        self.handler_point(c);
        if dist(b, self.public_bot.load(Ordering::Relaxed)) < 0 {
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
    /// `pop_bottom` returned `None` (so `bot` is `public_bot` or one below it).
    fn pop_public_bottom(&self, c: &WorkerCounters) -> Option<T> {
        let pb = self.public_bot.load(Ordering::Relaxed);
        signal_fence();
        self.handler_point(c);
        // `top <= public_bot` between owner operations and `top` never moves back: if a
        // (possibly stale) `top` equals `public_bot`, nothing is public. No fence needed.
        if self.top.load(Ordering::Relaxed) == pb {
            // Undo a race-fixed `pop_bottom`'s decrement (a no-op for the conservative form).
            self.bot.store(pb, Ordering::Relaxed);
            signal_fence();
            self.handler_point(c);
            return None;
        }
        let p = pb.wrapping_sub(1);
        // `bot <= public_bot` here, so a handler exposes nothing from now on until the end.
        self.public_bot.store(p, Ordering::Release);
        signal_fence();
        self.handler_point(c);
        fence(Ordering::SeqCst);
        c.fences.bump();
        let t = self.top.load(Ordering::Relaxed);
        self.handler_point(c);
        if dist(p, t) > 0 {
            // More than one public task was left: slot `p` is ours without a CAS.
            self.bot.store(p, Ordering::Relaxed);
            signal_fence();
            self.handler_point(c);
            // SAFETY: thieves take only `top < p` (the fence orders our lowered `public_bot`
            // against their reads of it), so index `p` is exclusively ours.
            let task = unsafe { self.owner_buffer().read(p).assume_init() };
            self.task_left_public();
            return Some(task);
        }
        // At most one public task left (index `p == t`): race for it by moving `top` past
        // it. Either way `top` ends at `p + 1 == pb` (a failed CAS means a thief moved it).
        let mut task = None;
        if p == t {
            c.cas.bump();
            if self
                .top
                .compare_exchange(t, pb, Ordering::SeqCst, Ordering::Relaxed)
                .is_ok()
            {
                // SAFETY: the CAS moved `top` past `p`, so no thief can take index `p`; the
                // owner rewrites its slot only once `cap` more indices are pushed.
                task = Some(unsafe { self.owner_buffer().read(p).assume_init() });
            }
            signal_fence();
            self.handler_point(c);
        }
        // The deque is empty: `public_bot = bot = top`. Raise `public_bot` first: a handler
        // in between sees `bot <= public_bot`, no private task, and a thief sees neither a
        // public task nor (spuriously) a private one.
        self.public_bot.store(pb, Ordering::Release);
        signal_fence();
        self.handler_point(c);
        self.bot.store(pb, Ordering::Relaxed);
        signal_fence();
        self.handler_point(c);
        if task.is_some() {
            self.task_left_public();
        }
        task
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
        let r = dist(b, pb);
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
        let t = self.top.load(Ordering::Acquire);
        fence(Ordering::SeqCst);
        c.fences.bump();
        let pb = self.public_bot.load(Ordering::Acquire);
        if dist(pb, t) > 0 {
            // Load the array only now: the one current when `pb` was published, or newer;
            // either holds index `t` unless `top` has moved past it.
            // SAFETY: arrays are freed only when the deque drops, and we hold a reference.
            let buf = unsafe { &*self.buffer.load(Ordering::Acquire) };
            // SAFETY: the buffer is live. The read may race with an owner rewrite of the slot
            // (index `t + cap`) if another thread took `t`; then our CAS fails, and the copy
            // is discarded undropped.
            let task = unsafe { buf.read(t) };
            c.cas.bump();
            match self.top.compare_exchange(
                t,
                t.wrapping_add(1),
                Ordering::SeqCst,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    c.steals.bump();
                    if self.exposure.uses_signal() && self.targeted.load(Ordering::Relaxed) {
                        self.targeted.store(false, Ordering::Relaxed);
                    }
                    // SAFETY: the CAS made index `t` ours, and it held a task published
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
            let private = dist(self.bot.load(Ordering::Relaxed), pb);
            if private > 0 && !(self.exposure == Exposure::Conservative && private < 2) {
                self.request_exposure(private, c);
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
        dist(b, self.top.load(Ordering::Relaxed)).max(0) as usize
    }

    /// Racy estimate of the public part (what a thief could take now).
    fn public_len_estimate(&self) -> usize {
        let pb = self.public_bot.load(Ordering::Relaxed);
        dist(pb, self.top.load(Ordering::Relaxed)).max(0) as usize
    }

    /// Slots allocated: the current array and the retired ones. Owner only.
    #[cfg(test)]
    fn allocated_slots(&self) -> usize {
        // SAFETY: `retired` is touched by the owner only, and we are the owner; its arrays
        // are live until the deque drops.
        let retired: usize = self
            .retired
            .with(|r| unsafe { (*r).iter().map(|&b| (*b.cast_const()).cap() as usize).sum() });
        retired + self.owner_buffer().slots.len()
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
        let t = self.top.load(Ordering::Relaxed);
        let buf = self.buffer.load(Ordering::Relaxed);
        // SAFETY: we are the last reference; `buf` is the live array, whose slots for
        // `[top, bot)` hold the remaining tasks (the owner is not inside a pop, which is the
        // only time `bot` can sit below `public_bot` or `top`).
        unsafe {
            for k in 0..dist(b, t).max(0) {
                drop((*buf).read(t.wrapping_add(k)).assume_init());
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

    /// A new, empty split deque whose first array has `cap` slots (at least 1, rounded up
    /// to a power of two).
    pub fn with_capacity(exposure: Exposure, cap: usize) -> Self {
        Self::with_start_index(exposure, cap, 0)
    }

    /// As [`Worker::with_capacity`], with every logical index starting at `start` instead
    /// of 0: tests start near `isize::MAX` to cross the indices' wrap-around, which a real
    /// deque reaches only after 2^63 pushes.
    /// (See the unit test `indices_start_anywhere`.)
    pub fn with_start_index(exposure: Exposure, cap: usize, start: isize) -> Self {
        Worker {
            inner: Arc::new(Inner::new(exposure, cap, start)),
        }
    }

    /// Slots allocated by this deque: its current array and the arrays it replaced (kept
    /// until the deque drops). Bounded by `2 × max(initial, 2 × peak live tasks)`, however
    /// many tasks passed through the deque (see the module doc). For tests and diagnostics.
    /// (See the unit test `a_push_pop_loop_keeps_its_array`.)
    #[cfg(test)]
    pub fn allocated_slots(&self) -> usize {
        self.inner.allocated_slots()
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
        let r = dist(b, pb);
        if r > 0 {
            inner.targeted.store(false, Ordering::Relaxed);
            // Release, as in `update_public_bottom`: a thief that acquires the new split
            // point sees the exposed slots.
            inner.public_bot.store(b, Ordering::Release);
            c.exposures_served.bump();
            c.tasks_exposed.add(r as u64);
        }
    }

    /// Number of private tasks (owner's view).
    #[inline]
    #[cfg(test)]
    pub fn private_len(&self) -> usize {
        let b = self.inner.bot.load(Ordering::Relaxed);
        let pb = self.inner.public_bot.load(Ordering::Relaxed);
        dist(b, pb).max(0) as usize
    }

    /// Checks the owner-side invariant `top <= public_bot <= bot` between operations (loom
    /// models), and that no more than the array's capacity is live.
    #[cfg(loom)]
    pub fn assert_invariants(&self) {
        let b = self.inner.bot.load(Ordering::Relaxed);
        let pb = self.inner.public_bot.load(Ordering::Relaxed);
        let t = self.inner.top.load(Ordering::Relaxed);
        assert!(
            dist(b, pb) >= 0 && dist(pb, t) >= 0,
            "not top {t} <= public_bot {pb} <= bot {b} after an owner operation"
        );
        assert!(dist(b, t) <= self.inner.owner_buffer().cap());
    }

    /// Runs `update_public_bottom` as the handler would, on the owner's thread, counting on
    /// `counters` (for the loom models, which cannot deliver signals, and for stress tests
    /// that need more exposures than signals can deliver in their time).
    #[doc(hidden)]
    #[cfg(test)]
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

    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[cfg(test)]
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
mod tests;
