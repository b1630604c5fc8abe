//! Deep recursion on default worker stacks: fib(40) with no cutoff (every call a `join`),
//! and very unbalanced "comb" recursions where one side of every join is a leaf and the
//! other the rest of the comb, so the recursion depth equals the comb's length.
#![cfg(not(loom))]

mod common;

use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

use common::{deques, fib, pool_with, JOIN_MODES};
use magpie::ThreadPoolBuilder;

/// fib(40) in release builds (a few seconds), fib(32) in debug builds.
const BIG_FIB: (u64, u64) = if cfg!(debug_assertions) {
    (32, 2_178_309)
} else {
    (40, 102_334_155)
};

/// The default builder (default worker count and stack size): fib(BIG) on the first deque
/// of the list (chase-lev unless `MAGPIE_TEST_DEQUES` says otherwise), fib(BIG - 6) on the
/// others, so that every deque runs a deep no-cutoff join tree.
#[test]
fn fib_no_cutoff_default_builder() {
    for (k, deque) in deques().into_iter().enumerate() {
        let pool = ThreadPoolBuilder::new().deque(deque).build().unwrap();
        let (n, want) = if k == 0 {
            BIG_FIB
        } else {
            (BIG_FIB.0 - 6, fib_seq(BIG_FIB.0 - 6))
        };
        assert_eq!(pool.install(|| fib(n)), want, "{deque}: fib({n})");
    }
}

/// fib by iteration, for the expected values.
fn fib_seq(n: u64) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        (a, b) = (b, a + b);
    }
    a
}

/// Comb length: must fit the default 8 MiB worker stacks (one join frame per tooth). In a
/// release build a tooth costs about 270-320 bytes of stack (measured with chase-lev), so
/// 20_000 teeth take about 6.4 MiB; 30_000 already overflow.
const COMB: usize = if cfg!(debug_assertions) {
    5_000
} else {
    20_000
};

/// `join(leaf(i), rest)`: the rest of the comb is `b`, pushed and (usually) popped back and
/// run inline on the same stack, or stolen and continued on the thief's stack.
fn comb_rest_in_b(i: usize, hits: &[AtomicU8]) -> u64 {
    if i == hits.len() {
        return 0;
    }
    let (a, b) = magpie::join(
        || {
            hits[i].fetch_add(1, Relaxed);
            i as u64
        },
        || comb_rest_in_b(i + 1, hits),
    );
    a + b
}

/// `join(rest, leaf(i))`: the rest of the comb is `a`, run directly; every leaf is pushed and
/// waits at the bottom of the deque (stealable) while the recursion goes deeper.
fn comb_rest_in_a(i: usize, hits: &[AtomicU8]) -> u64 {
    if i == hits.len() {
        return 0;
    }
    let (a, b) = magpie::join(
        || comb_rest_in_a(i + 1, hits),
        || {
            hits[i].fetch_add(1, Relaxed);
            i as u64
        },
    );
    a + b
}

#[test]
fn unbalanced_comb_recursion() {
    let want = (COMB as u64) * (COMB as u64 - 1) / 2;
    for deque in deques() {
        for (joins, n) in JOIN_MODES
            .iter()
            .flat_map(|&j| [1, 2, 4, 8].map(move |n| (j, n)))
        {
            // Default stack size: `pool_with` does not set one.
            let pool = pool_with(deque, n, joins);
            for (name, comb) in [
                ("rest in b", comb_rest_in_b as fn(usize, &[AtomicU8]) -> u64),
                ("rest in a", comb_rest_in_a),
            ] {
                for round in 0..3 {
                    let hits: Vec<AtomicU8> = (0..COMB).map(|_| AtomicU8::new(0)).collect();
                    let sum = pool.install(|| comb(0, &hits));
                    let what = format!("{deque}, {joins:?}, {n} workers, {name}, round {round}");
                    assert_eq!(sum, want, "{what}");
                    for (i, h) in hits.iter().enumerate() {
                        assert_eq!(h.load(Relaxed), 1, "{what}: tooth {i}");
                    }
                }
            }
        }
    }
}

/// Several combs side by side in one join tree: thieves that steal a comb run it on top of
/// whatever their stack already holds (a worker waiting in `join` runs stolen work).
#[test]
fn parallel_combs() {
    const COMBS: usize = 8;
    const LEN: usize = COMB / 4;
    fn many(lo: usize, hi: usize, hits: &[Vec<AtomicU8>]) -> u64 {
        if hi - lo == 1 {
            return if lo % 2 == 0 {
                comb_rest_in_b(0, &hits[lo])
            } else {
                comb_rest_in_a(0, &hits[lo])
            };
        }
        let mid = (lo + hi) / 2;
        let (a, b) = magpie::join(|| many(lo, mid, hits), || many(mid, hi, hits));
        a + b
    }
    for deque in deques() {
        let pool = ThreadPoolBuilder::new()
            .num_workers(4)
            .deque(deque)
            .build()
            .unwrap();
        let hits: Vec<Vec<AtomicU8>> = (0..COMBS)
            .map(|_| (0..LEN).map(|_| AtomicU8::new(0)).collect())
            .collect();
        let sum = pool.install(|| many(0, COMBS, &hits));
        assert_eq!(
            sum,
            COMBS as u64 * (LEN as u64 * (LEN as u64 - 1) / 2),
            "{deque}"
        );
        assert!(
            hits.iter().flatten().all(|h| h.load(Relaxed) == 1),
            "{deque}: some tooth did not run exactly once"
        );
    }
}
