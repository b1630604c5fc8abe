//! The std/loom facade (tokio style).
//!
//! Every concurrent structure in magpie imports its atomics, cells, locks and thread
//! primitives from here instead of `std`. A normal build re-exports `std`; a build with
//! `RUSTFLAGS="--cfg loom"` re-exports [`loom`](https://docs.rs/loom), so the very same
//! code is model-checked by the loom models, the crate's unit tests under
//! `cfg(all(test, loom))` (`deque/tests/loom_*.rs`, `runtime/tests/loom_sleep.rs`,
//! `search/engine/tests/loom_ledger.rs`).

#[cfg(not(loom))]
mod imp {
    pub use std::sync::atomic;
    pub use std::sync::{Arc, Condvar, Mutex, MutexGuard};

    /// An `UnsafeCell` with loom's closure-based API, so that loom can track accesses.
    #[derive(Debug, Default)]
    pub struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

    impl<T> UnsafeCell<T> {
        /// Wraps `value`.
        pub const fn new(value: T) -> Self {
            UnsafeCell(std::cell::UnsafeCell::new(value))
        }

        /// Gives `f` a shared raw pointer to the contents.
        #[inline(always)]
        pub fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
            f(self.0.get())
        }

        /// Gives `f` an exclusive raw pointer to the contents.
        #[inline(always)]
        pub fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
            f(self.0.get())
        }
    }

    /// Busy-wait hint (a no-op yield point under loom).
    #[inline(always)]
    pub fn spin_loop() {
        std::hint::spin_loop()
    }
}

#[cfg(loom)]
mod imp {
    pub use loom::cell::UnsafeCell;
    pub use loom::sync::atomic;
    pub use loom::sync::{Arc, Condvar, Mutex, MutexGuard};

    /// Under loom a spin is a yield, so that a spinning thread lets others progress.
    pub fn spin_loop() {
        loom::thread::yield_now()
    }
}

pub use imp::*;

#[cfg(all(test, loom))]
pub(crate) mod loom_common;
