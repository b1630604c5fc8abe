//! Helpers shared by the integration tests (`mod common;` in each file).
#![allow(dead_code)]

use magpie::deque::DequeKind;
use magpie::{ThreadPool, ThreadPoolBuilder};

/// The deques every test iterates over: all of [`DequeKind::ALL`] unless
/// `MAGPIE_TEST_DEQUES` is set to a comma-separated list of names (`chase-lev`,
/// `lcws-user`, ...) or `all`. An unknown name is a test failure, not a silent skip.
pub fn deques() -> Vec<DequeKind> {
    match std::env::var("MAGPIE_TEST_DEQUES") {
        Ok(list) if !list.trim().is_empty() && list.trim() != "all" => list
            .split(',')
            .map(|s| {
                s.parse::<DequeKind>()
                    .unwrap_or_else(|e| panic!("MAGPIE_TEST_DEQUES: {e}"))
            })
            .collect(),
        _ => DequeKind::ALL.to_vec(),
    }
}

/// How `join` decides to make a task of its `b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Joins {
    /// The default `join_push_limit`: `b` is pushed only while the worker holds few tasks
    /// (or a thief asked); otherwise `a` and `b` run in sequence.
    Coarsened,
    /// `join_push_limit(usize::MAX)`: every `b` is pushed (the classic work-first join).
    Eager,
}

/// Both join modes.
pub const JOIN_MODES: [Joins; 2] = [Joins::Coarsened, Joins::Eager];

/// A pool with `n` workers on `deque` and the default policies.
pub fn pool(deque: DequeKind, n: usize) -> ThreadPool {
    pool_with(deque, n, Joins::Coarsened)
}

/// A pool with `n` workers on `deque`, the default policies, and the given join mode.
pub fn pool_with(deque: DequeKind, n: usize, joins: Joins) -> ThreadPool {
    let b = ThreadPoolBuilder::new()
        .num_workers(n)
        .deque(deque)
        .victims("random")
        .idle("park");
    let b = match joins {
        Joins::Coarsened => b,
        Joins::Eager => b.join_push_limit(usize::MAX),
    };
    b.build()
        .unwrap_or_else(|e| panic!("building a {n}-worker {deque} pool ({joins:?}): {e}"))
}

/// fib with no cutoff: every call above the leaves is a `magpie::join`.
pub fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = magpie::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

/// Checks that a pool still works: fib(20) through a join tree.
pub fn assert_pool_works(pool: &ThreadPool) {
    assert_eq!(pool.install(|| fib(20)), 6765, "pool {:?} broken", pool);
}

/// True when the runtime counts events (the default `counters` feature).
pub const COUNTERS: bool = cfg!(feature = "counters");
