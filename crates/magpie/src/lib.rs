//! # magpie
//!
//! A work-stealing runtime for irregular parallel work: fork-join (`join`, `scope`,
//! `spawn`, `install`) over one scheduler whose deque, victim-selection and idle policies are
//! chosen at run time, so the techniques of the LCWS, Pheet, YewPar and LB4OMP papers can be
//! compared side by side without rewriting code.
//!
//! ```
//! use magpie::ThreadPoolBuilder;
//!
//! fn fib(n: u64) -> u64 {
//!     if n < 2 { return n; }
//!     let (a, b) = magpie::join(|| fib(n - 1), || fib(n - 2));
//!     a + b
//! }
//!
//! for deque in ["chase-lev", "lcws-user", "lcws-signal", "lcws-conservative", "lcws-half"] {
//!     let pool = ThreadPoolBuilder::new().num_workers(2).deque(deque).build().unwrap();
//!     assert_eq!(pool.install(|| fib(20)), 6765);
//!     assert!(pool.stats().total().tasks_run > 0);
//! }
//! ```
//!
//! Outside any pool, the free functions use a global pool configured from the environment
//! (`MAGPIE_NUM_WORKERS`, `MAGPIE_DEQUE`, `MAGPIE_VICTIMS`, `MAGPIE_IDLE`, `MAGPIE_SIGNAL`,
//! `MAGPIE_JOIN_LIMIT`).
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks)]

pub mod deque;
#[cfg(not(loom))]
pub mod loops;
pub mod policy;
pub mod runtime;
#[cfg(not(loom))]
pub mod search;
/// The replicable optimisation's ledger (`search/engine/ledger.rs`), public for the loom
/// models (`tests/loom_ledger.rs`) only: `search` itself is not built under loom.
#[cfg(loom)]
#[doc(hidden)]
#[path = "search/engine/ledger.rs"]
pub mod search_ledger;
pub mod stats;
pub mod sync;

#[cfg(not(loom))]
pub use runtime::{
    current_num_workers, current_worker_index, expose_work, join, scope, spawn, BuildError,
    PoolStats, Scope, ThreadPool, ThreadPoolBuilder,
};
pub use stats::WorkerStats;

/// The README's code examples, compiled and run as doc tests so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
