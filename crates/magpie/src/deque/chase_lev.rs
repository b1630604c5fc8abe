//! The Chase-Lev deque: the LCWS paper's "WS" baseline.
//!
//! This is the dynamic circular work-stealing deque of Chase and Lev (SPAA 2005) in the C11
//! form proven correct by Lê, Pop, Cohen and Zappa Nardelli ("Correct and Efficient
//! Work-Stealing for Weak Memory Models", PPoPP 2013). One owner pushes and pops at the
//! *bottom*; any number of thieves steal at the *top*.
//!
//! # Protocol
//!
//! * `push`: write the slot at `bottom`, a release fence, then a relaxed store of `bottom + 1`.
//!   The fence (rather than a release store of `bottom`) makes *every* later store to
//!   `bottom` by the owner, including the relaxed ones in `pop`, carry the slot writes to a
//!   thief that reads it with acquire.
//! * `pop`: store `bottom - 1`, a `SeqCst` fence, read `top`. More than one element left: the
//!   bottom one is the owner's without any atomic read-modify-write. Exactly one left: the
//!   owner races the thieves for it with a CAS on `top`.
//! * `steal`: acquire `top`, a `SeqCst` fence, acquire `bottom`, read the slot at `top`, then
//!   CAS `top` to `top + 1`. The slot is read *before* the CAS (after the CAS the owner may
//!   already be overwriting it), so the read may race with the owner writing a newer element
//!   into the same physical slot; it is read into a [`MaybeUninit`] and only treated as a `T`
//!   when the CAS proves that the value read was the element at `top` and nobody else took it.
//!
//! # Growth and memory reclamation
//!
//! The buffer is a power-of-two ring. When it is full the owner allocates one twice as
//! large, copies the live elements (bitwise moves) and publishes it with a release store.
//! A thief may still be reading the old buffer, so the old buffer is *retired*, not freed:
//! retired buffers sit in an owner-side list and are freed only when the deque itself is
//! dropped (when the last [`Worker`] or [`Stealer`] handle goes). Since capacities double,
//! all retired buffers together are smaller than the current one, so memory stays below
//! twice the largest buffer. This avoids any epoch or hazard-pointer scheme; the price is
//! that a deque never shrinks, which suits per-worker deques that live as long as the pool.

use super::{DequeOwner, DequeStealer, Steal};
use crate::stats::WorkerCounters;
use crate::sync::atomic::{fence, AtomicIsize, AtomicPtr, Ordering};
use crate::sync::{Arc, UnsafeCell};
use crossbeam_utils::CachePadded;
use std::cell::Cell;
use std::fmt;
use std::mem::MaybeUninit;
use std::ptr;

/// The initial capacity of [`Worker::new`].
pub const DEFAULT_CAPACITY: usize = 64;

/// A ring of slots whose length is a power of two.
struct Buffer<T> {
    slots: Box<[UnsafeCell<MaybeUninit<T>>]>,
    mask: usize,
    /// Under loom only: a raw pointer to each slot's contents, taken once at allocation, so
    /// that the thieves' intentionally racy read (see [`Buffer::read_racy`]) is not tracked.
    #[cfg(loom)]
    untracked: Box<[*mut MaybeUninit<T>]>,
}

impl<T> Buffer<T> {
    /// Allocates a buffer of `cap` uninitialised slots (`cap` is a power of two).
    fn alloc(cap: usize) -> Box<Buffer<T>> {
        debug_assert!(cap.is_power_of_two());
        let slots: Box<[UnsafeCell<MaybeUninit<T>>]> = (0..cap)
            .map(|_| UnsafeCell::new(MaybeUninit::uninit()))
            .collect();
        #[cfg(loom)]
        let untracked = slots.iter().map(|s| s.with_mut(|p| p)).collect();
        Box::new(Buffer {
            slots,
            mask: cap - 1,
            #[cfg(loom)]
            untracked,
        })
    }

    #[inline(always)]
    fn cap(&self) -> usize {
        self.mask + 1
    }

    #[inline(always)]
    fn slot(&self, index: isize) -> &UnsafeCell<MaybeUninit<T>> {
        let i = index as usize & self.mask;
        debug_assert!(i < self.slots.len());
        // SAFETY: `mask == slots.len() - 1` with a power-of-two length, so `i` is in bounds.
        unsafe { self.slots.get_unchecked(i) }
    }

    /// Moves `value` into the slot of `index`. Owner only.
    ///
    /// # Safety
    /// The caller is the owner and no thief may read that slot as a live element: `index` is
    /// at or above `bottom` and below `top + cap`.
    #[inline(always)]
    unsafe fn write(&self, index: isize, value: T) {
        self.slot(index).with_mut(|p| {
            // SAFETY: per the contract, only the owner writes slots and no thief can own
            // this one; a thief racing on a stale index only reads it (and discards the
            // value, see `read_racy`). Writing a `MaybeUninit` drops nothing.
            unsafe { p.write(MaybeUninit::new(value)) }
        })
    }

    /// Copies the slot of `index` out bitwise. Owner only.
    ///
    /// # Safety
    /// The caller is the owner; whether the copy is a live `T` is for the caller to decide.
    #[inline(always)]
    unsafe fn read(&self, index: isize) -> MaybeUninit<T> {
        // SAFETY: only the owner writes slots, and the owner is the caller, so nothing
        // writes this slot concurrently. Reading a `MaybeUninit` asserts nothing about it.
        self.slot(index).with(|p| unsafe { ptr::read(p) })
    }

    /// The thief's read of the slot of `index`, which may race with the owner overwriting it.
    ///
    /// The result is only a live `T` if the thief's CAS of `top` from `index` then succeeds:
    /// that CAS proves the slot still held element `index` (the owner only overwrites it
    /// after seeing `top > index`, through its acquire load of `top` in `push`, which
    /// synchronises with the successful CAS that follows this read). When the CAS fails the
    /// value is dropped as a `MaybeUninit`, i.e. forgotten.
    ///
    /// Under loom the read goes through a pointer taken at allocation and is *not* tracked by
    /// loom's `UnsafeCell`: the race is intended (Lê et al. make the slots relaxed atomics,
    /// which a generic `T` cannot be). Loom still checks that the write of every element a
    /// thief *obtains* happens before the steal, through the per-index shadow cells of
    /// [`Inner`]; and loom runs one thread at a time, so the value read is never torn.
    ///
    /// # Safety
    /// `index` must have been observed below `bottom` and at `top` by the calling thief.
    #[inline(always)]
    unsafe fn read_racy(&self, index: isize) -> MaybeUninit<T> {
        #[cfg(not(loom))]
        {
            // SAFETY: the buffer is alive (see `Inner`). The read may race with an owner's
            // write, which is why it is volatile and yields a `MaybeUninit`: no validity is
            // assumed until the CAS succeeds (see above), and a torn value is never used.
            self.slot(index).with(|p| unsafe { ptr::read_volatile(p) })
        }
        #[cfg(loom)]
        {
            let p = self.untracked[index as usize & self.mask];
            // SAFETY: `p` points into `self.slots`, which lives as long as `self`; see above
            // for why the value is only used after a successful CAS.
            unsafe { ptr::read(p) }
        }
    }
}

/// The state shared by the owner and the thieves.
struct Inner<T> {
    /// One past the bottom-most element; written by the owner only.
    bottom: CachePadded<AtomicIsize>,
    /// The top-most element; advanced by thieves (and the owner for the last element) by CAS.
    top: CachePadded<AtomicIsize>,
    /// The current buffer; replaced by the owner only, when it grows.
    buffer: CachePadded<AtomicPtr<Buffer<T>>>,
    /// Buffers replaced by growth, freed when `Inner` drops. Accessed by the owner only.
    retired: UnsafeCell<Vec<*mut Buffer<T>>>,
    /// Under loom only: one cell per logical index, written when an element is pushed at
    /// that index and read when a thief obtains it, so that loom checks that each push
    /// happens before the steal of its element (the physical slot read is untracked).
    #[cfg(loom)]
    shadow: Box<[loom::cell::UnsafeCell<()>]>,
}

/// How many logical indices a loom model may push at most.
#[cfg(loom)]
const LOOM_MAX_INDEX: usize = 16;

// SAFETY: `Inner` hands each `T` to exactly one thread (moved out, never shared), so
// `T: Send` suffices. The raw buffer pointers are owned by `Inner` and freed only on drop;
// `retired` is only touched by the owner (a single thread at a time, `Worker` is not `Sync`)
// or by `drop` (exclusive access).
unsafe impl<T: Send> Send for Inner<T> {}
// SAFETY: see `Send`; all shared mutation goes through atomics or owner-only cells.
unsafe impl<T: Send> Sync for Inner<T> {}

impl<T> Inner<T> {
    #[cfg(loom)]
    #[inline(always)]
    fn shadow_write(&self, index: isize) {
        self.shadow_cell(index).with_mut(|_| ())
    }

    #[cfg(loom)]
    #[inline(always)]
    fn shadow_read(&self, index: isize) {
        self.shadow_cell(index).with(|_| ())
    }

    #[cfg(loom)]
    fn shadow_cell(&self, index: isize) -> &loom::cell::UnsafeCell<()> {
        self.shadow
            .get(index as usize)
            .expect("loom models must push fewer than LOOM_MAX_INDEX elements")
    }

    #[cfg(not(loom))]
    #[inline(always)]
    fn shadow_write(&self, _index: isize) {}

    #[cfg(not(loom))]
    #[inline(always)]
    fn shadow_read(&self, _index: isize) {}
}

impl<T> Drop for Inner<T> {
    fn drop(&mut self) {
        // The last handle is going; `Arc` has synchronised with every other handle's drop,
        // so relaxed loads see the final values.
        let top = self.top.load(Ordering::Relaxed);
        let bottom = self.bottom.load(Ordering::Relaxed);
        let buffer = self.buffer.load(Ordering::Relaxed);
        let mut i = top;
        while i.wrapping_sub(bottom) < 0 {
            // SAFETY: elements `top..bottom` are live and owned by the deque, which nobody
            // else can reach any more; each is read out and dropped exactly once.
            unsafe { (*buffer).read(i).assume_init_drop() };
            i = i.wrapping_add(1);
        }
        // SAFETY: the current buffer came from `Box::into_raw` and is freed only here.
        drop(unsafe { Box::from_raw(buffer) });
        self.retired.with_mut(|retired| {
            // SAFETY: `drop` has exclusive access; each retired buffer came from
            // `Box::into_raw` and appears once in the list. Buffers hold `MaybeUninit`
            // slots, so freeing them drops no element (the live ones were moved to newer
            // buffers and dropped above).
            for &old in unsafe { &*retired } {
                // SAFETY: as above: `old` came from `Box::into_raw` and is freed once.
                drop(unsafe { Box::from_raw(old) });
            }
        });
    }
}

/// The owner's side of a Chase-Lev deque: push and pop at the bottom (LIFO).
///
/// `Send` but not `Sync`: exactly one thread at a time uses it.
pub struct Worker<T> {
    inner: Arc<Inner<T>>,
    /// The owner's cached copy of `inner.buffer` (only the owner replaces it).
    buffer: Cell<*mut Buffer<T>>,
}

// SAFETY: moving the owner handle to another thread moves the right to push and pop with
// it; `buffer` is a cache of a pointer owned by `inner`, valid while `inner` lives.
unsafe impl<T: Send> Send for Worker<T> {}

/// The thieves' side of a Chase-Lev deque: steal at the top (FIFO). Cheap to clone.
pub struct Stealer<T> {
    inner: Arc<Inner<T>>,
}

impl<T> Clone for Stealer<T> {
    fn clone(&self) -> Self {
        Stealer {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<T: Send> Worker<T> {
    /// `[bottom, top]`: their difference is the number of tasks (a racy gauge for the
    /// runtime's join coarsening, which reads it without a match on the deque kind).
    // The runtime, which reads it, is not built under loom.
    #[cfg_attr(loom, allow(dead_code))]
    pub(crate) fn gauge(&self) -> [&crate::sync::atomic::AtomicIsize; 2] {
        [&self.inner.bottom, &self.inner.top]
    }

    /// A new, empty deque with [`DEFAULT_CAPACITY`] slots (it grows when full).
    pub fn new() -> Self {
        Self::with_capacity(DEFAULT_CAPACITY)
    }

    /// A new, empty deque with room for at least `capacity` tasks before it first grows
    /// (rounded up to a power of two, at least 1).
    pub fn with_capacity(capacity: usize) -> Self {
        let cap = capacity.max(1).next_power_of_two();
        let buffer = Box::into_raw(Buffer::alloc(cap));
        let inner = Arc::new(Inner {
            bottom: CachePadded::new(AtomicIsize::new(0)),
            top: CachePadded::new(AtomicIsize::new(0)),
            buffer: CachePadded::new(AtomicPtr::new(buffer)),
            retired: UnsafeCell::new(Vec::new()),
            #[cfg(loom)]
            shadow: (0..LOOM_MAX_INDEX)
                .map(|_| loom::cell::UnsafeCell::new(()))
                .collect(),
        });
        Worker {
            inner,
            buffer: Cell::new(buffer),
        }
    }

    /// The current number of slots (a power of two; grows, never shrinks).
    #[cfg(test)]
    pub fn capacity(&self) -> usize {
        // SAFETY: the cached buffer is alive while `inner` is (buffers are freed on drop).
        unsafe { (*self.buffer.get()).cap() }
    }

    /// Replaces the full buffer by one twice as large and returns it. `bottom` and `top`
    /// are the owner's current reads; `top` may be stale (too small), which only copies a
    /// few dead slots too.
    #[cold]
    #[inline(never)]
    fn grow(&self, bottom: isize, top: isize) -> *mut Buffer<T> {
        let old = self.buffer.get();
        // SAFETY: the cached buffer is alive while `inner` is.
        let old_ref = unsafe { &*old };
        let new = Buffer::alloc(old_ref.cap() * 2);
        let mut i = top;
        while i.wrapping_sub(bottom) < 0 {
            // SAFETY: owner-only accesses; the new buffer is not published yet. The copy is
            // a bitwise move: once `new` is published, index `i` is taken from it (by the
            // owner) or, by a thief that read `old` first, from `old` — and the CAS on
            // `top` lets only one of them own it.
            unsafe {
                let value = old_ref.read(i);
                new.slot(i).with_mut(|p| p.write(value));
            }
            i = i.wrapping_add(1);
        }
        let new = Box::into_raw(new);
        self.inner.buffer.store(new, Ordering::Release);
        self.buffer.set(new);
        // Thieves that loaded `old` may still read it: retire it until the deque drops.
        self.inner.retired.with_mut(|retired| {
            // SAFETY: only the owner (this thread) touches `retired` while handles live.
            unsafe { (*retired).push(old) }
        });
        new
    }
}

impl<T: Send> Default for Worker<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Send> DequeOwner<T> for Worker<T> {
    type Stealer = Stealer<T>;

    #[inline]
    fn push(&self, task: T, counters: &WorkerCounters) {
        let inner = &*self.inner;
        let b = inner.bottom.load(Ordering::Relaxed);
        // Acquire: a slot is overwritten only after the thief that took its previous
        // element has read it (its CAS on `top` is ordered after its read).
        let t = inner.top.load(Ordering::Acquire);
        let mut buffer = self.buffer.get();
        // SAFETY: the cached buffer is alive while `inner` is.
        if b.wrapping_sub(t) >= unsafe { (*buffer).cap() } as isize {
            buffer = self.grow(b, t);
        }
        // SAFETY: we are the owner, and `b - t < cap` (with `t` no larger than the real
        // `top`), so slot `b` holds no element that a thief could still obtain.
        unsafe { (*buffer).write(b, task) };
        inner.shadow_write(b);
        fence(Ordering::Release);
        counters.fences.bump();
        inner.bottom.store(b.wrapping_add(1), Ordering::Relaxed);
        counters.pushes.bump();
    }

    #[inline]
    fn pop(&self, counters: &WorkerCounters) -> Option<T> {
        let inner = &*self.inner;
        let b = inner.bottom.load(Ordering::Relaxed);
        // Fast path without a fence: `top` only grows, so a stale read over-estimates the
        // length, and a length ≤ 0 means the deque really is empty.
        let t = inner.top.load(Ordering::Relaxed);
        if b.wrapping_sub(t) <= 0 {
            return None;
        }
        let b = b.wrapping_sub(1);
        inner.bottom.store(b, Ordering::Relaxed);
        // Orders the store of `bottom` before the load of `top` (store-load), against the
        // thieves' fence between their loads of `top` and `bottom`.
        fence(Ordering::SeqCst);
        counters.fences.bump();
        let t = inner.top.load(Ordering::Relaxed);
        let len = b.wrapping_sub(t);
        if len < 0 {
            // A thief took the last element meanwhile.
            inner.bottom.store(b.wrapping_add(1), Ordering::Relaxed);
            return None;
        }
        let buffer = self.buffer.get();
        if len > 0 {
            // At least one more element above ours: thieves cannot reach slot `b`.
            inner.shadow_read(b);
            // SAFETY: the cached buffer is alive; element `b` is live and now ours alone.
            let task = unsafe { (*buffer).read(b).assume_init() };
            counters.private_pops.bump();
            return Some(task);
        }
        // The last element: race the thieves for it.
        counters.cas.bump();
        let won = inner
            .top
            .compare_exchange(t, t.wrapping_add(1), Ordering::SeqCst, Ordering::Relaxed)
            .is_ok();
        let task = if won {
            inner.shadow_read(b);
            counters.private_pops.bump();
            // SAFETY: the CAS gave us element `b`; no thief can take it any more.
            Some(unsafe { (*buffer).read(b).assume_init() })
        } else {
            None
        };
        inner.bottom.store(b.wrapping_add(1), Ordering::Relaxed);
        task
    }

    fn stealer(&self) -> Stealer<T> {
        Stealer {
            inner: Arc::clone(&self.inner),
        }
    }

    #[inline]
    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Exact for the owner, up to steals that happen concurrently.
    #[inline]
    #[cfg(test)]
    fn len(&self) -> usize {
        let b = self.inner.bottom.load(Ordering::Relaxed);
        let t = self.inner.top.load(Ordering::SeqCst);
        b.wrapping_sub(t).max(0) as usize
    }
}

impl<T: Send> DequeStealer<T> for Stealer<T> {
    fn steal(&self, counters: &WorkerCounters) -> Steal<T> {
        counters.steal_attempts.bump();
        let inner = &*self.inner;
        let t = inner.top.load(Ordering::Acquire);
        // Orders the load of `top` before the load of `bottom`, against the owner's fence
        // in `pop`: the owner and a thief cannot both miss each other's claim.
        fence(Ordering::SeqCst);
        counters.fences.bump();
        let b = inner.bottom.load(Ordering::Acquire);
        if b.wrapping_sub(t) <= 0 {
            return Steal::Empty;
        }
        // Loaded after `bottom`: a buffer at least as new as the one holding element `t`.
        let buffer = inner.buffer.load(Ordering::Acquire);
        // SAFETY: buffers live as long as `inner` (retired, not freed); `t` was read at
        // `top` and below `bottom`.
        let task = unsafe { (*buffer).read_racy(t) };
        counters.cas.bump();
        if inner
            .top
            .compare_exchange(t, t.wrapping_add(1), Ordering::SeqCst, Ordering::Relaxed)
            .is_err()
        {
            // Another thief or the owner took element `t`; `task` is forgotten.
            return Steal::Retry;
        }
        inner.shadow_read(t);
        counters.steals.bump();
        // SAFETY: the CAS made element `t` ours, and the slot still held it when we read
        // it (see `Buffer::read_racy`).
        Steal::Success(unsafe { task.assume_init() })
    }

    fn len_hint(&self) -> usize {
        let t = self.inner.top.load(Ordering::Relaxed);
        let b = self.inner.bottom.load(Ordering::Relaxed);
        b.wrapping_sub(t).max(0) as usize
    }
}

impl<T> fmt::Debug for Worker<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("chase_lev::Worker").finish_non_exhaustive()
    }
}

impl<T> fmt::Debug for Stealer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("chase_lev::Stealer").finish_non_exhaustive()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::sync::atomic::AtomicUsize;

    #[test]
    fn push_pop_is_lifo() {
        let c = WorkerCounters::default();
        let w = Worker::new();
        crate::deque::tests::smoke::ten_pushes_popped_lifo(&w, &c);
        assert_eq!(c.pushes.get(), 10);
        assert_eq!(c.private_pops.get(), 10);
        assert_eq!(c.cas.get(), 1, "only the last element needs a CAS");
        // 10 release fences in push, 10 SeqCst fences in successful pops; the empty pop
        // takes the fast path.
        assert_eq!(c.fences.get(), 20);
    }

    #[test]
    fn steal_is_fifo() {
        let c = WorkerCounters::default();
        let tc = WorkerCounters::default();
        let w = Worker::new();
        let s = w.stealer();
        for i in 0..10 {
            w.push(i, &c);
        }
        assert_eq!(s.len_hint(), 10);
        for i in 0..10 {
            assert_eq!(s.steal(&tc), Steal::Success(i));
        }
        assert_eq!(s.steal(&tc), Steal::Empty);
        assert_eq!(w.pop(&c), None);
        assert_eq!(tc.steal_attempts.get(), 11);
        assert_eq!(tc.steals.get(), 10);
        assert_eq!(tc.cas.get(), 10);
        assert_eq!(tc.fences.get(), 11);
    }

    #[test]
    fn mixed_pop_and_steal() {
        let c = WorkerCounters::default();
        let w = Worker::new();
        let s = w.stealer();
        for i in 0..4 {
            w.push(i, &c);
        }
        assert_eq!(s.steal(&c).success(), Some(0));
        assert_eq!(w.pop(&c), Some(3));
        assert_eq!(s.steal(&c).success(), Some(1));
        assert_eq!(w.pop(&c), Some(2));
        assert_eq!(w.pop(&c), None);
        assert!(s.steal(&c).is_empty());
        w.push(7, &c);
        assert_eq!(w.len(), 1);
        assert_eq!(s.steal(&c).success(), Some(7));
    }

    #[test]
    fn growth_keeps_all_elements() {
        let c = WorkerCounters::default();
        let w = Worker::with_capacity(2);
        let s = w.stealer();
        assert_eq!(w.capacity(), 2);
        for i in 0..1000 {
            w.push(i, &c);
            if i % 7 == 0 {
                // Move `top` so that growth copies a wrapped range.
                assert_eq!(s.steal(&c).success(), Some(i / 7));
            }
        }
        assert!(w.capacity() >= 1000 - 143);
        let mut got: Vec<i32> = (0..143).collect();
        while let Some(v) = w.pop(&c) {
            got.push(v);
        }
        got.sort_unstable();
        assert_eq!(got, (0..1000).collect::<Vec<_>>());
    }

    #[test]
    fn capacity_rounds_up() {
        assert_eq!(Worker::<u8>::with_capacity(0).capacity(), 1);
        assert_eq!(Worker::<u8>::with_capacity(5).capacity(), 8);
        assert_eq!(Worker::<u8>::default().capacity(), DEFAULT_CAPACITY);
    }

    struct Counted<'a>(&'a AtomicUsize);
    impl Drop for Counted<'_> {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn drop_drops_remaining_elements() {
        let drops = AtomicUsize::new(0);
        let c = WorkerCounters::default();
        {
            let w = Worker::with_capacity(4);
            let s = w.stealer();
            for _ in 0..100 {
                w.push(Counted(&drops), &c);
            }
            drop(s.steal(&c).success().unwrap());
            drop(w.pop(&c).unwrap());
            assert_eq!(drops.load(Ordering::Relaxed), 2);
            drop(w);
            // The stealer keeps the elements alive.
            assert_eq!(drops.load(Ordering::Relaxed), 2);
            assert_eq!(s.len_hint(), 98);
            drop(s.steal(&c).success().unwrap());
            assert_eq!(drops.load(Ordering::Relaxed), 3);
        }
        assert_eq!(drops.load(Ordering::Relaxed), 100);
    }

    #[test]
    fn zero_sized_tasks() {
        let c = WorkerCounters::default();
        let w = Worker::with_capacity(1);
        let s = w.stealer();
        for _ in 0..100 {
            w.push((), &c);
        }
        assert_eq!(s.steal(&c), Steal::Success(()));
        assert_eq!(w.len(), 99);
        let mut n = 0;
        while w.pop(&c).is_some() {
            n += 1;
        }
        assert_eq!(n, 99);
    }

    #[test]
    fn handles_are_send_and_sync_as_documented() {
        fn send<X: Send>() {}
        fn sync<X: Sync>() {}
        send::<Worker<Box<i32>>>();
        send::<Stealer<Box<i32>>>();
        sync::<Stealer<Box<i32>>>();
    }
}
