//! Every task runs exactly once: binary join trees and scope spawn trees over an index
//! range, on every deque, with 1, 2, 4 and 8 workers (more workers than cores included).
//! Each leaf bumps its own `hits[i]`; at the end every entry must be exactly 1 and the
//! returned / accumulated sums must equal their closed forms. The event counters of a quiet
//! pool are checked against the exact number of jobs the runtime pushed.
#![cfg(not(loom))]

mod common;

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

use common::{deques, pool_with, Joins, COUNTERS, JOIN_MODES};
use magpie::deque::DequeKind;
use magpie::{Scope, ThreadPool};

const WORKERS: [usize; 4] = [1, 2, 4, 8];

/// Leaves of the join tree, per round.
const JOIN_LEAVES: usize = 1 << 20;
/// Join trees per configuration, on the same pool (each start and end of a tree wakes
/// parked workers and lets them park again).
const JOIN_ROUNDS: usize = 3;
/// Leaves of the nested scope spawn tree (2 * leaves - 2 spawned jobs), per configuration.
const SCOPE_TREE_LEAVES: usize = 1 << 18;
/// Jobs spawned directly by one scope body, per configuration.
const SCOPE_FLAT_JOBS: usize = 1 << 17;

/// The configurations of the scope tests: every deque and worker count with coarsened
/// joins (the default), plus 2 and 8 workers with eager joins. Each as (deque, join mode, a
/// fresh pool of that configuration with its statistics reset, and `test` with the
/// configuration, for messages).
fn configs(test: &str) -> impl Iterator<Item = (DequeKind, Joins, ThreadPool, String)> + '_ {
    let mut v = Vec::new();
    for deque in deques() {
        for n in WORKERS {
            v.push((deque, Joins::Coarsened, n));
        }
        for n in [2, 8] {
            v.push((deque, Joins::Eager, n));
        }
    }
    v.into_iter().map(move |(deque, joins, n)| {
        let pool = pool_with(deque, n, joins);
        pool.reset_stats();
        let what = format!("{test}, {deque}, {joins:?}, {n} workers");
        (deque, joins, pool, what)
    })
}

fn hits(n: usize) -> Vec<AtomicU8> {
    (0..n).map(|_| AtomicU8::new(0)).collect()
}

/// Asserts every entry of `hits` is exactly 1, naming the first bad index.
fn assert_all_once(hits: &[AtomicU8], what: &str) {
    if let Some((i, h)) = hits
        .iter()
        .map(|h| h.load(Relaxed))
        .enumerate()
        .find(|&(_, h)| h != 1)
    {
        let bad = hits.iter().filter(|h| h.load(Relaxed) != 1).count();
        panic!(
            "{what}: leaf {i} ran {h} times ({bad} leaves of {} wrong)",
            hits.len()
        );
    }
}

/// Sum of `0..n`.
fn closed_form(n: usize) -> u64 {
    let n = n as u64;
    n * (n - 1) / 2
}

/// Checks the counters of a quiet pool after one `install` whose code asked for `tasks`
/// tasks: `spawn`s plus `join`s. Every spawn pushes; an eager join always pushes its `b`, a
/// coarsened one only sometimes (else it runs `b` in sequence, which makes no task).
fn check_stats(
    pool: &ThreadPool,
    deque: DequeKind,
    joins: Joins,
    spawns: u64,
    join_calls: u64,
    what: &str,
) {
    if !COUNTERS {
        return;
    }
    let stats = pool.stats();
    let t = stats.total();
    let pushed = t.pushes;
    match joins {
        Joins::Eager => assert_eq!(pushed, spawns + join_calls, "{what}: pushes ({t:?})"),
        Joins::Coarsened => assert!(
            (spawns..=spawns + join_calls).contains(&pushed),
            "{what}: pushes {pushed} not in {spawns}..={} ({t:?})",
            spawns + join_calls
        ),
    }
    // The install itself arrives through the injector.
    assert_eq!(t.injected_taken, 1, "{what}: injected_taken ({t:?})");
    // Every pushed job is taken exactly once, by its owner (private or public pop) or by a
    // thief; each of those is counted once (chase-lev: all pops are private; split deques:
    // exposed tasks taken back count as public pops).
    assert_eq!(
        t.private_pops + t.public_pops + t.steals,
        t.pushes,
        "{what}: pops + steals != pushes ({t:?})"
    );
    assert_eq!(t.tasks_run, pushed + 1, "{what}: tasks_run ({t:?})");
    let per_worker: u64 = stats.workers.iter().map(|w| w.tasks_run).sum();
    assert_eq!(per_worker, t.tasks_run, "{what}: total() != sum of workers");
    if deque == DequeKind::ChaseLev {
        assert_eq!(
            t.public_pops, 0,
            "{what}: chase-lev has no public part ({t:?})"
        );
        assert_eq!(
            t.tasks_exposed, 0,
            "{what}: chase-lev exposes nothing ({t:?})"
        );
    }
}

fn join_tree(lo: usize, hi: usize, hits: &[AtomicU8]) -> u64 {
    if hi - lo == 1 {
        hits[lo].fetch_add(1, Relaxed);
        return lo as u64;
    }
    let mid = lo + (hi - lo) / 2;
    let (a, b) = magpie::join(|| join_tree(lo, mid, hits), || join_tree(mid, hi, hits));
    a + b
}

#[test]
fn join_tree_every_leaf_once() {
    for deque in deques() {
        for joins in JOIN_MODES {
            for n in WORKERS {
                let pool = pool_with(deque, n, joins);
                for round in 0..JOIN_ROUNDS {
                    let what = format!("join, {deque}, {joins:?}, {n} workers, round {round}");
                    pool.reset_stats();
                    let hits = hits(JOIN_LEAVES);
                    let sum = pool.install(|| join_tree(0, JOIN_LEAVES, &hits));
                    assert_eq!(sum, closed_form(JOIN_LEAVES), "{what}: sum");
                    assert_all_once(&hits, &what);
                    // A binary tree over N leaves has N - 1 joins.
                    check_stats(&pool, deque, joins, 0, JOIN_LEAVES as u64 - 1, &what);
                }
            }
        }
    }
}

/// `pool.join` from outside the pool, repeatedly, on the same pool (each one a fresh tree).
#[test]
fn pool_join_repeated() {
    const LEAVES: usize = 1 << 12;
    for deque in deques() {
        let pool = pool_with(deque, 3, Joins::Coarsened);
        let hits = hits(2 * LEAVES);
        for round in 0..50 {
            let (a, b) = pool.join(
                || join_tree(0, LEAVES, &hits),
                || join_tree(LEAVES, 2 * LEAVES, &hits),
            );
            assert_eq!(a + b, closed_form(2 * LEAVES), "{deque}: round {round}");
        }
        for (i, h) in hits.iter().enumerate() {
            assert_eq!(h.load(Relaxed), 50, "{deque}: leaf {i}");
        }
    }
}

fn spawn_tree<'s>(s: &Scope<'s>, lo: usize, hi: usize, hits: &'s [AtomicU8], sum: &'s AtomicU64) {
    if hi - lo == 1 {
        hits[lo].fetch_add(1, Relaxed);
        sum.fetch_add(lo as u64, Relaxed);
        return;
    }
    let mid = lo + (hi - lo) / 2;
    s.spawn(move |s| spawn_tree(s, lo, mid, hits, sum));
    s.spawn(move |s| spawn_tree(s, mid, hi, hits, sum));
}

#[test]
fn scope_nested_spawn_tree_every_leaf_once() {
    for (deque, joins, pool, what) in configs("scope tree") {
        let hits = hits(SCOPE_TREE_LEAVES);
        let sum = AtomicU64::new(0);
        let r = pool.scope(|s| {
            spawn_tree(s, 0, SCOPE_TREE_LEAVES, &hits, &sum);
            7u32
        });
        assert_eq!(r, 7, "{what}: scope result");
        assert_eq!(
            sum.load(Relaxed),
            closed_form(SCOPE_TREE_LEAVES),
            "{what}: sum"
        );
        assert_all_once(&hits, &what);
        // Every node of the tree but the root is a spawned job.
        check_stats(
            &pool,
            deque,
            joins,
            2 * SCOPE_TREE_LEAVES as u64 - 2,
            0,
            &what,
        );
    }
}

#[test]
fn scope_flat_spawns_every_job_once() {
    for (deque, joins, pool, what) in configs("scope flat") {
        let hits = hits(SCOPE_FLAT_JOBS);
        let sum = AtomicU64::new(0);
        pool.scope(|s| {
            for i in 0..SCOPE_FLAT_JOBS {
                let (hits, sum) = (&hits, &sum);
                s.spawn(move |_| {
                    hits[i].fetch_add(1, Relaxed);
                    sum.fetch_add(i as u64, Relaxed);
                });
            }
        });
        assert_eq!(
            sum.load(Relaxed),
            closed_form(SCOPE_FLAT_JOBS),
            "{what}: sum"
        );
        assert_all_once(&hits, &what);
        check_stats(&pool, deque, joins, SCOPE_FLAT_JOBS as u64, 0, &what);
    }
}

/// Scopes nested inside join trees nested inside scopes: a join tree whose subtrees of
/// `CHUNK` leaves each open their own scope, spawn one job per leaf, and join again inside
/// every spawned job.
#[test]
fn scopes_inside_joins_inside_scopes() {
    const LEAVES: usize = 1 << 16;
    const CHUNK: usize = 64;

    fn mixed(lo: usize, hi: usize, hits: &[AtomicU8], sum: &AtomicU64) {
        if hi - lo <= CHUNK {
            magpie::scope(|s| {
                for (i, hit) in hits.iter().enumerate().take(hi).skip(lo) {
                    s.spawn(move |_| {
                        // Each leaf is itself a join of two halves of work: leaf i marks
                        // itself in `a` and adds its index in `b`.
                        magpie::join(
                            || {
                                hit.fetch_add(1, Relaxed);
                            },
                            || {
                                sum.fetch_add(i as u64, Relaxed);
                            },
                        );
                    });
                }
            });
            return;
        }
        let mid = lo + (hi - lo) / 2;
        magpie::join(|| mixed(lo, mid, hits, sum), || mixed(mid, hi, hits, sum));
    }

    for deque in deques() {
        for (joins, n) in [
            (Joins::Coarsened, 2),
            (Joins::Eager, 2),
            (Joins::Coarsened, 8),
        ] {
            let what = format!("mixed, {deque}, {joins:?}, {n} workers");
            let pool = pool_with(deque, n, joins);
            pool.reset_stats();
            let hits = hits(LEAVES);
            let sum = AtomicU64::new(0);
            pool.scope(|s| {
                s.spawn(|_| mixed(0, LEAVES / 2, &hits, &sum));
                s.spawn(|_| mixed(LEAVES / 2, LEAVES, &hits, &sum));
            });
            assert_eq!(sum.load(Relaxed), closed_form(LEAVES), "{what}: sum");
            assert_all_once(&hits, &what);
            // 2 outer spawns and one per leaf; per half (chunks / 2 - 1) joins, one per leaf.
            let chunks = (LEAVES / CHUNK) as u64;
            let (spawns, join_calls) = (2 + LEAVES as u64, chunks - 2 + LEAVES as u64);
            check_stats(&pool, deque, joins, spawns, join_calls, &what);
        }
    }
}
