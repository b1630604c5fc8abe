//! Locks with libgomp's layouts: `omp_lock_t` is one 32-bit word, `omp_nest_lock_t` a word,
//! a count and an owner (16 bytes); `critical` sections and `atomic` fall-backs use the same
//! word lock. The word is a futex mutex (0 free, 1 held, 2 held with waiters), so a lock
//! costs nothing to keep and a waiter sleeps in the kernel.

use std::ffi::c_int;
use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicU32, Ordering};

/// A futex mutex in a word the caller owns.
pub(crate) struct WordLock<'a>(&'a AtomicU32);

impl<'a> WordLock<'a> {
    /// # Safety
    /// `p` points to a 4-byte aligned word that lives as long as `'a`, used only as a lock.
    pub(crate) unsafe fn at(p: *mut u32) -> Self {
        // SAFETY: forwarded from the caller; AtomicU32 has u32's layout.
        WordLock(unsafe { AtomicU32::from_ptr(p) })
    }

    pub(crate) fn try_lock(&self) -> bool {
        self.0
            .compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    pub(crate) fn lock(&self) {
        if self.try_lock() {
            return;
        }
        // Spin a little, then sleep with the word marked contended.
        for _ in 0..100 {
            std::hint::spin_loop();
            if self.0.load(Ordering::Relaxed) == 0 && self.try_lock() {
                return;
            }
        }
        while self.0.swap(2, Ordering::Acquire) != 0 {
            futex_wait(self.0, 2);
        }
    }

    pub(crate) fn unlock(&self) {
        if self.0.swap(0, Ordering::Release) == 2 {
            futex_wake(self.0);
        }
    }
}

fn futex_wait(word: &AtomicU32, expected: u32) {
    // SAFETY: FUTEX_WAIT on a live, aligned word; a spurious return is handled by the caller.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
            expected,
            std::ptr::null::<libc::timespec>(),
        );
    }
}

fn futex_wake(word: &AtomicU32) {
    // SAFETY: FUTEX_WAKE on a live, aligned word.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
            1,
        );
    }
}

/// The lock of unnamed `critical` sections.
static CRITICAL: AtomicU32 = AtomicU32::new(0);
/// The lock of `atomic` operations the compiler cannot do lock-free.
static ATOMIC: AtomicU32 = AtomicU32::new(0);

fn global(word: &'static AtomicU32) -> WordLock<'static> {
    WordLock(word)
}

void_entries! {
    /// Enters the unnamed critical section. ABI: `void GOMP_critical_start (void)`.
    GOMP_critical_start => || global(&CRITICAL).lock();
    /// Leaves the unnamed critical section. ABI: `void GOMP_critical_end (void)`.
    GOMP_critical_end => || global(&CRITICAL).unlock();
    /// Enters the atomic fall-back lock. ABI: `void GOMP_atomic_start (void)`.
    GOMP_atomic_start => || global(&ATOMIC).lock();
    /// Leaves the atomic fall-back lock. ABI: `void GOMP_atomic_end (void)`.
    GOMP_atomic_end => || global(&ATOMIC).unlock();
}

/// Enters a named critical section. ABI: `void GOMP_critical_name_start (void **pptr)`:
/// `pptr` is a pointer-sized, zero-initialised variable the compiler made for the name
/// (common to every translation unit); its first word is the lock.
///
/// # Safety
/// `pptr` is that variable.
#[no_mangle]
pub unsafe extern "C" fn GOMP_critical_name_start(pptr: *mut *mut libc::c_void) {
    crate::ffi("GOMP_critical_name_start", || {
        // SAFETY: the name's variable is pointer-sized and aligned, so its first word is.
        unsafe { WordLock::at(pptr.cast()) }.lock()
    })
}

/// Leaves a named critical section. ABI: `void GOMP_critical_name_end (void **pptr)`.
///
/// # Safety
/// As [`GOMP_critical_name_start`].
#[no_mangle]
pub unsafe extern "C" fn GOMP_critical_name_end(pptr: *mut *mut libc::c_void) {
    crate::ffi("GOMP_critical_name_end", || {
        // SAFETY: as in GOMP_critical_name_start.
        unsafe { WordLock::at(pptr.cast()) }.unlock()
    })
}

// ---- omp_lock_t (4 bytes) ----

macro_rules! simple_lock {
    ($init:ident, $destroy:ident, $set:ident, $unset:ident, $test:ident) => {
        /// `void omp_init_lock (omp_lock_t *)` (and the Fortran `omp_init_lock_`, which passes
        /// the same 4-byte word by reference).
        ///
        /// # Safety
        /// `lock` points to an `omp_lock_t`.
        #[no_mangle]
        pub unsafe extern "C" fn $init(lock: *mut u32) {
            // SAFETY: the caller's lock word.
            crate::ffi(stringify!($init), || unsafe { lock.write(0) })
        }

        /// `void omp_destroy_lock (omp_lock_t *)`.
        ///
        /// # Safety
        /// `lock` points to an initialised `omp_lock_t`.
        #[no_mangle]
        pub unsafe extern "C" fn $destroy(_lock: *mut u32) {}

        /// `void omp_set_lock (omp_lock_t *)`: waits until the lock is free and takes it.
        ///
        /// # Safety
        /// `lock` points to an initialised `omp_lock_t`.
        #[no_mangle]
        pub unsafe extern "C" fn $set(lock: *mut u32) {
            // SAFETY: the caller's initialised lock word.
            crate::ffi(stringify!($set), || unsafe { WordLock::at(lock) }.lock())
        }

        /// `void omp_unset_lock (omp_lock_t *)`.
        ///
        /// # Safety
        /// `lock` points to an `omp_lock_t` the caller holds.
        #[no_mangle]
        pub unsafe extern "C" fn $unset(lock: *mut u32) {
            crate::ffi(stringify!($unset), || {
                // SAFETY: the caller's initialised lock word.
                unsafe { WordLock::at(lock) }.unlock()
            })
        }

        /// `int omp_test_lock (omp_lock_t *)`: takes the lock if it is free; 1 if it did.
        ///
        /// # Safety
        /// `lock` points to an initialised `omp_lock_t`.
        #[no_mangle]
        pub unsafe extern "C" fn $test(lock: *mut u32) -> c_int {
            crate::ffi(stringify!($test), || {
                // SAFETY: the caller's initialised lock word.
                let l = unsafe { WordLock::at(lock) };
                c_int::from(l.try_lock())
            })
        }
    };
}

simple_lock!(
    omp_init_lock,
    omp_destroy_lock,
    omp_set_lock,
    omp_unset_lock,
    omp_test_lock
);
simple_lock!(
    omp_init_lock_,
    omp_destroy_lock_,
    omp_set_lock_,
    omp_unset_lock_,
    omp_test_lock_
);

// ---- omp_nest_lock_t (16 bytes: lock word, count, owner) ----

/// libgomp's `omp_nest_lock_t` on Linux.
#[repr(C)]
pub(crate) struct NestLock {
    lock: AtomicU32,
    count: AtomicI32,
    owner: AtomicPtr<u8>,
}

thread_local! {
    static ME: u8 = const { 0 };
}

/// An address unique to the calling thread while it lives (the owner of nested locks).
fn me() -> *mut u8 {
    ME.with(|m| m as *const u8 as *mut u8)
}

impl NestLock {
    fn init(&self) {
        self.lock.store(0, Ordering::Relaxed);
        self.count.store(0, Ordering::Relaxed);
        self.owner.store(std::ptr::null_mut(), Ordering::Relaxed);
    }

    fn word(&self) -> WordLock<'_> {
        WordLock(&self.lock)
    }

    fn set(&self) {
        if self.owner.load(Ordering::Relaxed) != me() {
            self.word().lock();
            self.owner.store(me(), Ordering::Relaxed);
        }
        self.count.fetch_add(1, Ordering::Relaxed);
    }

    fn unset(&self) {
        if self.count.fetch_sub(1, Ordering::Relaxed) == 1 {
            self.owner.store(std::ptr::null_mut(), Ordering::Relaxed);
            self.word().unlock();
        }
    }

    fn test(&self) -> c_int {
        if self.owner.load(Ordering::Relaxed) == me() {
            return self.count.fetch_add(1, Ordering::Relaxed) + 1;
        }
        if self.word().try_lock() {
            self.owner.store(me(), Ordering::Relaxed);
            self.count.store(1, Ordering::Relaxed);
            1
        } else {
            0
        }
    }
}

/// `void omp_init_nest_lock (omp_nest_lock_t *)`.
///
/// # Safety
/// `lock` points to an `omp_nest_lock_t` (16 bytes, pointer-aligned).
#[no_mangle]
pub unsafe extern "C" fn omp_init_nest_lock(lock: *mut NestLock) {
    // SAFETY: the caller's lock, which has NestLock's layout.
    crate::ffi("omp_init_nest_lock", || unsafe { &*lock }.init())
}

/// `void omp_destroy_nest_lock (omp_nest_lock_t *)`.
///
/// # Safety
/// `lock` points to an initialised `omp_nest_lock_t`.
#[no_mangle]
pub unsafe extern "C" fn omp_destroy_nest_lock(_lock: *mut NestLock) {}

/// `void omp_set_nest_lock (omp_nest_lock_t *)`: takes the lock, again if the caller holds it.
///
/// # Safety
/// `lock` points to an initialised `omp_nest_lock_t`.
#[no_mangle]
pub unsafe extern "C" fn omp_set_nest_lock(lock: *mut NestLock) {
    // SAFETY: the caller's initialised lock.
    crate::ffi("omp_set_nest_lock", || unsafe { &*lock }.set())
}

/// `void omp_unset_nest_lock (omp_nest_lock_t *)`: releases one level.
///
/// # Safety
/// `lock` points to an `omp_nest_lock_t` the caller holds.
#[no_mangle]
pub unsafe extern "C" fn omp_unset_nest_lock(lock: *mut NestLock) {
    // SAFETY: the caller's initialised lock.
    crate::ffi("omp_unset_nest_lock", || unsafe { &*lock }.unset())
}

/// `int omp_test_nest_lock (omp_nest_lock_t *)`: the new nesting count, or 0 if another
/// thread holds the lock.
///
/// # Safety
/// `lock` points to an initialised `omp_nest_lock_t`.
#[no_mangle]
pub unsafe extern "C" fn omp_test_nest_lock(lock: *mut NestLock) -> c_int {
    // SAFETY: the caller's initialised lock.
    crate::ffi("omp_test_nest_lock", || unsafe { &*lock }.test())
}

// Fortran's omp_nest_lock_kind is 8 bytes, too small for the C lock: as libgomp does, the
// integer holds a pointer to a lock allocated by omp_init_nest_lock_.

/// # Safety
/// `arg` points to the Fortran lock integer (8 bytes) given to `omp_init_nest_lock_`.
unsafe fn fortran_nest(arg: *mut *mut NestLock) -> &'static NestLock {
    // SAFETY: omp_init_nest_lock_ stored a leaked, live lock there.
    unsafe { &**arg }
}

/// Fortran `omp_init_nest_lock(lock)`.
///
/// # Safety
/// `arg` points to an `integer(omp_nest_lock_kind)`.
#[no_mangle]
pub unsafe extern "C" fn omp_init_nest_lock_(arg: *mut *mut NestLock) {
    crate::ffi("omp_init_nest_lock_", || {
        let lock = Box::into_raw(Box::new(NestLock {
            lock: AtomicU32::new(0),
            count: AtomicI32::new(0),
            owner: AtomicPtr::new(std::ptr::null_mut()),
        }));
        // SAFETY: the caller's lock integer.
        unsafe { arg.write(lock) }
    })
}

/// Fortran `omp_destroy_nest_lock(lock)`.
///
/// # Safety
/// `arg` was initialised by `omp_init_nest_lock_` and is not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn omp_destroy_nest_lock_(arg: *mut *mut NestLock) {
    crate::ffi("omp_destroy_nest_lock_", || {
        // SAFETY: the lock was leaked by omp_init_nest_lock_ and is freed once.
        unsafe {
            let p = arg.read();
            if !p.is_null() {
                drop(Box::from_raw(p));
                arg.write(std::ptr::null_mut());
            }
        }
    })
}

/// Fortran `omp_set_nest_lock(lock)`.
///
/// # Safety
/// `arg` was initialised by `omp_init_nest_lock_`.
#[no_mangle]
pub unsafe extern "C" fn omp_set_nest_lock_(arg: *mut *mut NestLock) {
    // SAFETY: forwarded.
    crate::ffi("omp_set_nest_lock_", || unsafe { fortran_nest(arg) }.set())
}

/// Fortran `omp_unset_nest_lock(lock)`.
///
/// # Safety
/// `arg` was initialised by `omp_init_nest_lock_` and is held by the caller.
#[no_mangle]
pub unsafe extern "C" fn omp_unset_nest_lock_(arg: *mut *mut NestLock) {
    crate::ffi("omp_unset_nest_lock_", || {
        // SAFETY: forwarded.
        unsafe { fortran_nest(arg) }.unset()
    })
}

/// Fortran `omp_test_nest_lock(lock)`.
///
/// # Safety
/// `arg` was initialised by `omp_init_nest_lock_`.
#[no_mangle]
pub unsafe extern "C" fn omp_test_nest_lock_(arg: *mut *mut NestLock) -> c_int {
    crate::ffi("omp_test_nest_lock_", || {
        // SAFETY: forwarded.
        unsafe { fortran_nest(arg) }.test()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_lock_excludes() {
        let mut word = 0u32;
        let p = &mut word as *mut u32 as usize;
        let mut counter = 0u64;
        let c = &mut counter as *mut u64 as usize;
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(move || {
                    for _ in 0..20_000 {
                        // SAFETY: the word and counter outlive the scope.
                        let l = unsafe { WordLock::at(p as *mut u32) };
                        l.lock();
                        // SAFETY: under the lock.
                        unsafe { *(c as *mut u64) += 1 };
                        l.unlock();
                    }
                });
            }
        });
        assert_eq!(counter, 80_000);
        assert_eq!(word, 0);
    }

    #[test]
    fn nest_lock_counts() {
        let l = NestLock {
            lock: AtomicU32::new(0),
            count: AtomicI32::new(0),
            owner: AtomicPtr::new(std::ptr::null_mut()),
        };
        assert_eq!(std::mem::size_of::<NestLock>(), 16);
        assert_eq!(l.test(), 1);
        assert_eq!(l.test(), 2);
        l.set();
        assert_eq!(l.count.load(Ordering::Relaxed), 3);
        std::thread::scope(|s| {
            s.spawn(|| assert_eq!(l.test(), 0));
        });
        l.unset();
        l.unset();
        l.unset();
        std::thread::scope(|s| {
            s.spawn(|| assert_eq!(l.test(), 1));
        });
    }
}
