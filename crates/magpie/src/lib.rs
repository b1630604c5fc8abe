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
//! `MAGPIE_JOIN_LIMIT`; the list is [`ThreadPoolBuilder::ENV_VARS`]).
//!
//! ## The API
//!
//! At the crate root, as in rayon-core:
//!
//! - the pool: [`ThreadPool`], built by [`ThreadPoolBuilder`] (which fails with a
//!   [`BuildError`]); its settings' limits and defaults [`MAX_WORKERS`] and
//!   [`DEFAULT_STACK_SIZE`]; the values the environment and the `magpie` binary give as
//!   strings, [`Signal`] and [`JoinLimit`] (parsed with `FromStr`, failing with a
//!   [`ParseSettingError`]), and a deque by name or by kind ([`IntoDequeKind`]);
//! - fork-join on the current pool (the global pool outside any pool): [`join`] and
//!   [`join_context`] (with [`FnContext`]), [`scope`] and [`in_place_scope`] (with
//!   [`Scope`]), their FIFO twins [`scope_fifo`] and [`in_place_scope_fifo`] (with
//!   [`ScopeFifo`]), [`spawn`], [`spawn_fifo`] and [`spawn_with_priority`], [`broadcast`] and
//!   [`spawn_broadcast`] (with [`BroadcastContext`]), [`yield_now`] and [`yield_local`] (with
//!   [`Yield`]), [`expose_work`], [`current_worker_index`], [`current_num_workers`],
//!   [`current_thread_has_pending_tasks`];
//! - worker threads started by a spawn handler of your own: [`ThreadBuilder`]
//!   ([`ThreadPoolBuilder::build_with_spawn_handler`], [`ThreadPoolBuilder::build_scoped`]);
//! - the pool's counters: [`PoolStats`] (from [`ThreadPool::stats`], or
//!   [`current_pool_stats`] for the current or global pool) and one
//!   [`WorkerStats`] per worker;
//! - the pool's traces: [`Trace`] (from [`ThreadPool::take_trace`]), what each worker did
//!   and when, with its events in [`trace`].
//!
//! And four sub-APIs, each its own module:
//!
//! - [`deque`]: which deque a pool uses ([`deque::DequeKind`]);
//! - [`policy`]: victim and idle policies, chosen by spec string
//!   ([`policy::PolicySpec`]) or passed as values of their traits
//!   ([`policy::VictimPolicy`], [`policy::IdlePolicy`]);
//! - [`loops`]: parallel loops and their schedules ([`loops::Loop`], [`loops::Schedule`],
//!   [`loops::LoopStats`]);
//! - [`search`]: the search skeletons over a [`search::SearchSpace`].
//!
//! ## Helpers: which are public, and why
//!
//! A helper is public only where a user of the crate needs it:
//!
//! - [`policy::XorShift64Star`], the PRNG: a [`policy::VictimSelector`] of your own draws
//!   with it ([`policy::victim::RandomOther::rng`] hands it out), and its streams are
//!   pinned, so seeded inputs stay reproducible (`magpie_apps::rng` re-exports it);
//! - [`loops::central_rule`], [`loops::ChunkRule`] and [`loops::LoopShape`]: the chunk
//!   rules of the central-queue schedules, for a loop executor of your own (magpie-mpi's
//!   distributed loops are one);
//! - [`loops::LoopHistory`] and [`loops::TimeStats`]: what an adaptive loop learned, as
//!   [`loops::Loop::history`] returns it and a rule of your executor keeps it;
//! - [`loops::StealAmount`]: how much a stealing schedule takes, a setting of
//!   [`loops::Schedule`].
//!
//! Internal (crate-private, or public but hidden from these docs for the workspace's own
//! crates only): mFAC's chunk plan (`Batches`) and the chunk sequence of a schedule
//! (`chunk_sequence`, now a unit-test helper); the perf policy's formulas (`work_rate`,
//! `smoothed_delay`, `score`, `next_interval`, hidden: magpie-mpi's inter-rank policy uses
//! the same ones); and the duration parser of the spec strings (`parse_duration`, hidden: a
//! policy of your own reads its durations with [`policy::PolicySpec::duration`]).
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks)]
// Under loom only the concurrent structures and their models are built, not the runtime
// that uses them, so much of what they offer is unused there.
#![cfg_attr(loom, allow(dead_code))]

pub mod deque;
#[cfg(not(loom))]
pub mod loops;
pub mod policy;
mod runtime;
/// Teams: parallel regions run by several workers at once, with barriers, worksharing
/// state and OpenMP's tasks (the runtime under `libmagpie_omp`, the OpenMP layer).
///
/// A team's members are workers of the current pool; a member waiting at a [`team::barrier`],
/// a [`team::taskwait`] or a [`team::taskgroup_end`] runs the team's tasks meanwhile. The design note
/// is in `runtime/team.rs` and `runtime/task.rs`.
#[cfg(not(loom))]
pub mod team {
    pub use crate::runtime::task::{
        in_final, run_task_now, spawn_task, taskgroup_end, taskgroup_start, taskwait, taskyield,
        DepKind, TaskOptions,
    };
    pub use crate::runtime::team::{
        ancestor, barrier, info, parallel, single, workshare, TeamInfo,
    };
}
#[cfg(not(loom))]
pub mod search;
/// Under loom only the search engine's ledger is built, for its model
/// (`search/engine/tests/loom_ledger.rs`): the rest of `search` needs the runtime, which is
/// not built under loom.
#[cfg(all(loom, test))]
mod search {
    pub(crate) mod engine {
        pub(crate) mod ledger;
        mod tests {
            mod loom_ledger;
        }
    }
}
mod stats;
mod sync;
#[cfg(not(loom))]
pub mod trace;

// The crate's API, flat, in the style of rayon-core: the pool and its builder, the
// fork-join functions, the pool's statistics and the builder's limits and defaults. The
// public modules are the sub-APIs: `deque` (which deque a pool uses), `policy` (victim and
// idle policies, by trait or by spec string), `loops` (parallel loops and their schedules)
// and `search` (the search skeletons).
#[cfg(not(loom))]
pub use runtime::{
    broadcast, current_num_workers, current_pool_stats, current_thread_has_pending_tasks,
    current_worker_index, expose_work, in_place_scope, in_place_scope_fifo, join, join_context,
    scope, scope_fifo, spawn, spawn_broadcast, spawn_fifo, spawn_with_priority, yield_local,
    yield_now, BroadcastContext, BuildError, FnContext, IntoDequeKind, JoinLimit,
    ParseSettingError, PoolStats, Scope, ScopeFifo, Signal, ThreadBuilder, ThreadPool,
    ThreadPoolBuilder, Yield, DEFAULT_STACK_SIZE, MAX_WORKERS,
};
pub use stats::WorkerStats;
#[cfg(not(loom))]
pub use trace::Trace;

/// The README's code examples, compiled and run as doc tests so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

/// The user guide's code examples (docs/guide.md), run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/guide.md")]
pub struct GuideDoctests;
