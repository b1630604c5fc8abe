//! What the search-application tests (`search_apps.rs`, `search_apps_bnb.rs`) share: the
//! configurations (every deque × worker count × skeleton) and the checks every search's
//! statistics pass.
#![allow(dead_code)]

use magpie::deque::DequeKind;
use magpie::search::{self, CountPerDepth, Options, SearchSpace, SearchStats, Skeleton, TaskOrder};
use magpie::{ThreadPool, ThreadPoolBuilder};
use magpie_apps::rng::XorShift64Star;

// ---------------------------------------------------------------------------------------
// Configurations

pub const WORKERS: [usize; 4] = [1, 2, 4, 8];

/// Every skeleton, with small and large parameters.
pub fn skeletons() -> Vec<Skeleton> {
    let mut v = vec![Skeleton::Sequential];
    v.extend([1, 2, 3].map(|spawn_depth| Skeleton::DepthBounded { spawn_depth }));
    v.extend([1, 10, 1000].map(|backtracks| Skeleton::Budget { backtracks }));
    v.extend([false, true].map(|steal_all| Skeleton::StackStealing { steal_all }));
    for order in [TaskOrder::Sequential, TaskOrder::Discrepancy] {
        for spawn_depth in [1, 2] {
            v.push(Skeleton::Ordered { spawn_depth, order });
        }
    }
    v
}

/// The deques: all of [`DequeKind::names`] unless `MAGPIE_TEST_DEQUES` lists some (an
/// unknown name fails the test rather than being skipped).
pub fn deques() -> Vec<&'static str> {
    let all = DequeKind::names();
    match std::env::var("MAGPIE_TEST_DEQUES") {
        Ok(list) if !list.trim().is_empty() && list.trim() != "all" => list
            .split(',')
            .map(|s| {
                let s = s.trim();
                *all.iter()
                    .find(|n| **n == s)
                    .unwrap_or_else(|| panic!("MAGPIE_TEST_DEQUES: unknown deque {s:?} ({all:?})"))
            })
            .collect(),
        _ => all,
    }
}

pub fn pool(deque: &str, workers: usize) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_workers(workers)
        .deque(deque)
        .build()
        .unwrap_or_else(|e| panic!("building a {workers}-worker {deque} pool: {e}"))
}

/// One configuration: a pool and a skeleton.
pub struct Config<'p> {
    pub label: String,
    pub pool: &'p ThreadPool,
    pub workers: usize,
    pub skeleton: Skeleton,
}

impl Config<'_> {
    /// Runs `op` with this skeleton inside this pool.
    pub fn run<R: Send>(&self, op: impl FnOnce(Skeleton) -> R + Send) -> R {
        let skeleton = self.skeleton;
        self.pool.install(move || op(skeleton))
    }
}

/// Calls `f` for every deque in `deques` × worker count in `workers` × skeleton.
pub fn configs(deques: &[&str], workers: &[usize], mut f: impl FnMut(&Config<'_>)) {
    for &deque in deques {
        for &w in workers {
            let pool = pool(deque, w);
            for skeleton in skeletons() {
                f(&Config {
                    label: format!("{deque} w={w} {skeleton:?}"),
                    pool: &pool,
                    workers: w,
                    skeleton,
                });
            }
        }
    }
}

/// Every deque × worker count × skeleton.
pub fn every_config(f: impl FnMut(&Config<'_>)) {
    configs(&deques(), &WORKERS, f)
}

/// Checks what holds for every search: one per-worker count per pool worker, adding up to
/// `expanded`; no tasks for Sequential.
pub fn check_stats(s: &SearchStats, c: &Config<'_>, what: &str) {
    assert_eq!(s.per_worker.len(), c.workers, "{what}: per_worker length");
    assert_eq!(
        s.per_worker.iter().sum::<u64>(),
        s.expanded,
        "{what}: per_worker adds up to expanded"
    );
    match c.skeleton {
        Skeleton::Sequential => assert_eq!(s.tasks, 0, "{what}: Sequential spawns no task"),
        // One per worker, none when the root is not expanded (pruned, or the decision's
        // target).
        Skeleton::StackStealing { .. } => assert!(
            s.tasks == c.workers as u64 || (s.tasks == 0 && s.expanded <= 1),
            "{what}: {} StackStealing tasks, {} expanded",
            s.tasks,
            s.expanded
        ),
        _ => {}
    }
}

/// Enumeration of a tree with `per_depth[d]` nodes at depth `d` (already truncated to the
/// explored depth): every node explored exactly once, nothing pruned, and the exact task
/// counts of DepthBounded (every node at depths `1..=spawn_depth`), Ordered (every node at
/// `spawn_depth`) and StackStealing (one per worker).
pub fn check_enumeration_stats(s: &SearchStats, c: &Config<'_>, per_depth: &[u64], what: &str) {
    check_stats(s, c, what);
    let nodes: u64 = per_depth.iter().sum();
    assert_eq!(
        s.expanded, nodes,
        "{what}: every node explored exactly once"
    );
    assert_eq!(s.pruned, 0, "{what}: an enumeration prunes nothing");
    let deepest = per_depth.len() - 1;
    match c.skeleton {
        Skeleton::DepthBounded { spawn_depth } => {
            let want: u64 = per_depth[1..=spawn_depth.min(deepest)].iter().sum();
            assert_eq!(s.tasks, want, "{what}: DepthBounded tasks");
        }
        Skeleton::Ordered { spawn_depth, .. } => {
            let want = per_depth.get(spawn_depth).copied().unwrap_or(0);
            assert_eq!(s.tasks, want, "{what}: Ordered tasks");
        }
        Skeleton::StackStealing { .. } => {
            assert_eq!(s.tasks, c.workers as u64, "{what}: one task per worker")
        }
        _ => {}
    }
}

/// Enumerates `space` with `c`'s skeleton, counting the nodes per depth: the counts must be
/// `want` and the statistics those of visiting every node exactly once
/// ([`check_enumeration_stats`]). `what` names the search in the messages.
pub fn check_per_depth<S: SearchSpace>(c: &Config<'_>, space: &S, want: &[u64], what: &str) {
    let what = format!("{what} {}", c.label);
    let got = c.run(|sk| search::enumerate(space, &CountPerDepth, sk, &Options::default()));
    assert_eq!(got.value, want, "{what}");
    check_enumeration_stats(&got.stats, c, want, &what);
}

/// Per-depth counts truncated to `max_depth` (trailing zero depths dropped, as
/// [`CountPerDepth`] gives them).
pub fn truncated(per_depth: &[u64], max_depth: Option<usize>) -> Vec<u64> {
    let mut v = match max_depth {
        Some(m) => per_depth[..=m.min(per_depth.len() - 1)].to_vec(),
        None => per_depth.to_vec(),
    };
    while v.len() > 1 && v.last() == Some(&0) {
        v.pop();
    }
    v
}

/// xorshift64* for reproducible random instances, its state from `seed` by a multiply
/// (the streams these tests were written with).
pub fn xorshift(seed: u64) -> XorShift64Star {
    XorShift64Star::from_state(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
}

pub const SEQ: Skeleton = Skeleton::Sequential;
