//! rayon-core's public API on magpie's runtime.
//!
//! This crate is named `rayon-core` and versioned as the rayon-core release whose API it
//! implements (1.13.0), so that one section in a program's `Cargo.toml` moves every rayon
//! program, and every crate built on rayon, onto magpie without changing a line:
//!
//! ```toml
//! [patch.crates-io]
//! rayon-core = { path = "path/to/magpie/crates/magpie-rayon-core" }
//! ```
//!
//! It is a thin layer: every function and type translates to magpie's runtime (one
//! scheduler; no queue, thread or latch of its own). The scope and context types and the
//! yields are magpie's own items, re-exported; `join`, the scopes, spawns and broadcasts are
//! magpie's behind one check (outside any pool, the global pool is first built with rayon's
//! defaults); [`ThreadPool`] and [`ThreadPoolBuilder`] wrap magpie's to keep rayon's names and
//! rules. What magpie adds is reachable too:
//! [`MagpieBuilderExt`] sets the deque, victim and idle policies and the join limit of a
//! pool, [`ThreadPool::magpie`] gives its counters, traces and prioritised spawns, and the
//! `MAGPIE_*` variables configure every pool (docs/rayon.md has the whole mapping).
//!
//! ```
//! fn fib(n: u64) -> u64 {
//!     if n < 2 {
//!         return n;
//!     }
//!     let (a, b) = rayon_core::join(|| fib(n - 1), || fib(n - 2));
//!     a + b
//! }
//! let pool = rayon_core::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
//! assert_eq!(pool.install(|| fib(20)), 6765);
//! // The work ran on magpie's workers: their counters moved.
//! assert!(pool.magpie().stats().total().tasks_run > 0);
//! ```
#![deny(missing_docs)]
#![deny(unsafe_code)]

mod builder;
mod global;
mod pool;

#[allow(deprecated)]
pub use builder::{initialize, Configuration};
pub use builder::{
    CustomSpawn, DefaultSpawn, MagpieBuilderExt, ThreadPoolBuildError, ThreadPoolBuilder,
    ThreadSpawn,
};
pub use pool::ThreadPool;

pub use global::{
    broadcast, current_num_threads, in_place_scope, in_place_scope_fifo, join, join_context, scope,
    scope_fifo, spawn, spawn_broadcast, spawn_fifo,
};
pub use magpie::{
    current_thread_has_pending_tasks, yield_local, yield_now, BroadcastContext, FnContext, Scope,
    ScopeFifo, ThreadBuilder, Yield,
};

/// The index of the current thread in its pool (`0..current_num_threads()`), or `None` if
/// it is no pool's worker.
///
/// ```
/// assert_eq!(rayon_core::current_thread_index(), None);
/// let pool = rayon_core::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// assert!(pool.install(rayon_core::current_thread_index).unwrap() < 2);
/// ```
#[inline]
pub fn current_thread_index() -> Option<usize> {
    magpie::current_worker_index()
}

/// The most threads a pool can have; `num_threads` above it is lowered to it, as in
/// rayon-core.
///
/// ```
/// assert_eq!(rayon_core::max_num_threads(), magpie::MAX_WORKERS);
/// ```
#[inline]
pub fn max_num_threads() -> usize {
    magpie::MAX_WORKERS
}
