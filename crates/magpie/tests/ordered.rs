//! `Skeleton::Ordered`, the priority-ordered skeleton: what is replicable about it, checked
//! exactly on every worker count and deque.
//!
//! - Tasks start in priority order (depth-first or discrepancy order), each exactly once,
//!   whatever the number of workers: recorded by a space that logs, under the pool's lock,
//!   each task's start.
//! - Enumerations: the value and every counter (expanded, backtracks, tasks) are those of
//!   Sequential on every run and worker count.
//! - Optimisation: the optimum on every run and worker count; a task whose bound an
//!   incumbent found since beats is skipped when it starts; on one worker the node counts
//!   are fixed.
#![cfg(not(loom))]

mod common;

use magpie::search::{
    self, CompleteTree, CompleteTreeChildren, CountPerDepth, NodeCount, Objective, Options,
    SearchSpace, SearchStats, Skeleton, TaskOrder,
};
use magpie::ThreadPoolBuilder;
use std::sync::Mutex;

/// The complete ternary tree of depth 5 (364 nodes); a node is `(depth, path)` with the
/// path's child indices as base-3 digits, the first move most significant, so that numeric
/// order is depth-first order. Every `bound` call on a node at depth [`TASK_DEPTH`] is
/// logged.
struct Ternary(Mutex<Vec<u32>>);

const TASK_DEPTH: u32 = 3;

/// The tree itself.
const TREE: CompleteTree = CompleteTree::new(3, 5);

impl SearchSpace for Ternary {
    type Node = (u32, u32);
    type Children<'a> = CompleteTreeChildren;
    fn root(&self) -> (u32, u32) {
        TREE.root()
    }
    fn children(&self, node: &(u32, u32)) -> CompleteTreeChildren {
        TREE.children(node)
    }
}

impl Objective for Ternary {
    fn objective(&self, _: &(u32, u32)) -> i64 {
        0
    }
    /// No pruning; logs the task nodes. The optimisation calls it once when a node is
    /// visited and, for a task, once more when the task starts (is it still worth it?).
    fn bound(&self, &(depth, path): &(u32, u32)) -> i64 {
        if depth == TASK_DEPTH {
            self.0.lock().unwrap().push(path);
        }
        i64::MAX
    }
}

/// The base-3 digits of a path at `depth` that are not 0: its discrepancies.
fn discrepancies(path: u32, depth: u32) -> u32 {
    (0..depth)
        .filter(|&i| (path / 3u32.pow(i)) % 3 != 0)
        .count() as u32
}

/// The tasks (depth-3 nodes) in priority order: depth-first, or fewest discrepancies first
/// with ties depth-first.
fn priority_order(order: TaskOrder) -> Vec<u32> {
    let mut tasks: Vec<u32> = (0..27).collect();
    if order == TaskOrder::Discrepancy {
        tasks.sort_by_key(|&p| (discrepancies(p, TASK_DEPTH), p));
    }
    tasks
}

#[test]
fn the_discrepancy_order_is_the_expected_one() {
    let d = priority_order(TaskOrder::Discrepancy);
    // 000, then one discrepancy (001 002 010 020 100 200), then two, then three.
    assert_eq!(&d[..7], &[0, 1, 2, 3, 6, 9, 18]);
    assert_eq!(&d[7..9], &[4, 5]);
    assert_eq!(d[26], 26);
}

#[test]
fn tasks_start_in_priority_order_each_once_on_every_worker_count() {
    for deque in common::deques() {
        for workers in [1, 2, 3] {
            let pool = common::pool(deque, workers);
            for order in [TaskOrder::Sequential, TaskOrder::Discrepancy] {
                for _ in 0..5 {
                    let space = Ternary(Mutex::new(Vec::new()));
                    let skeleton = Skeleton::Ordered {
                        spawn_depth: TASK_DEPTH as usize,
                        order,
                    };
                    let out =
                        pool.install(|| search::optimise(&space, skeleton, &Options::default()));
                    assert_eq!(out.value.map(|(v, _)| v), Some(0));
                    assert_eq!(out.stats.expanded, 364);
                    assert_eq!(out.stats.tasks, 27);
                    // Each task's first logged bound is its visit, its second its start.
                    let log = space.0.into_inner().unwrap();
                    let mut seen = [0u8; 27];
                    let mut starts = Vec::new();
                    for p in log {
                        seen[p as usize] += 1;
                        if seen[p as usize] == 2 {
                            starts.push(p);
                        }
                    }
                    assert_eq!(seen, [2; 27], "{deque:?}, {workers} workers, {order:?}");
                    assert_eq!(
                        starts,
                        priority_order(order),
                        "{deque:?}, {workers} workers, {order:?}"
                    );
                }
            }
        }
    }
}

/// The counters that are fixed for an enumeration (time, steals and the per-worker split
/// are not).
fn fixed(s: &SearchStats) -> (u64, u64, u64, u64) {
    (s.expanded, s.pruned, s.backtracks, s.tasks)
}

#[test]
fn enumerations_count_exactly_what_sequential_counts() {
    let space = Ternary(Mutex::new(Vec::new()));
    let full = vec![1, 3, 9, 27, 81, 243];
    for (max_depth, per_depth, backtracks) in [
        (None, full.clone(), 364),
        // The spawn depth below the deepest expanded level: no tasks.
        (Some(2), full[..3].to_vec(), 4),
    ] {
        let opts = Options {
            max_depth,
            ..Options::default()
        };
        let seq = search::enumerate(&space, &CountPerDepth, Skeleton::Sequential, &opts);
        assert_eq!(seq.value, per_depth);
        assert_eq!(seq.stats.backtracks, backtracks);
        for deque in common::deques() {
            for workers in [1, 2, 3] {
                let pool = common::pool(deque, workers);
                for spawn_depth in 0..=5usize {
                    for order in [TaskOrder::Sequential, TaskOrder::Discrepancy] {
                        let skeleton = Skeleton::Ordered { spawn_depth, order };
                        let tasks = match max_depth {
                            Some(m) if m < spawn_depth => 0,
                            _ => 3u64.pow(spawn_depth as u32),
                        };
                        for _ in 0..3 {
                            let out = pool.install(|| {
                                search::enumerate(&space, &CountPerDepth, skeleton, &opts)
                            });
                            let what = format!(
                                "{deque:?}, {workers} workers, {skeleton:?}, {max_depth:?}"
                            );
                            assert_eq!(out.value, per_depth, "{what}");
                            assert_eq!(
                                fixed(&out.stats),
                                (seq.stats.expanded, 0, backtracks, tasks),
                                "{what}"
                            );
                            assert_eq!(
                                out.stats.per_worker.iter().sum::<u64>(),
                                seq.stats.expanded
                            );
                        }
                    }
                }
            }
        }
    }
    assert!(
        space.0.into_inner().unwrap().is_empty(),
        "enumeration needs no bound"
    );
}

/// A binary tree of depth 4 whose only valuable node is the leftmost leaf (value 10). The
/// right child of the root has the admissible bound 10 but nothing below it worth having.
struct LeftmostLeaf;

impl SearchSpace for LeftmostLeaf {
    type Node = (u32, u32);
    type Children<'a> = std::vec::IntoIter<(u32, u32)>;
    fn root(&self) -> (u32, u32) {
        (0, 0)
    }
    fn children<'a>(&'a self, &(depth, path): &(u32, u32)) -> Self::Children<'a> {
        if depth == 4 {
            return Vec::new().into_iter();
        }
        vec![(depth + 1, path << 1), (depth + 1, (path << 1) | 1)].into_iter()
    }
}

impl Objective for LeftmostLeaf {
    fn objective(&self, &(depth, path): &(u32, u32)) -> i64 {
        if depth == 4 && path == 0 {
            10
        } else {
            0
        }
    }
    fn bound(&self, &(depth, path): &(u32, u32)) -> i64 {
        match (depth, path) {
            (_, 0) | (1, 1) => 10,
            _ => 0,
        }
    }
}

#[test]
fn a_task_dominated_when_it_starts_is_skipped() {
    let skeleton = Skeleton::Ordered {
        spawn_depth: 1,
        order: TaskOrder::Sequential,
    };
    let one = ThreadPoolBuilder::new().num_workers(1).build().unwrap();
    for _ in 0..10 {
        let out = one.install(|| search::optimise(&LeftmostLeaf, skeleton, &Options::default()));
        assert_eq!(out.value, Some((10, (4, 0))));
        // Root, both tasks (visited when the root is expanded), 00, 000, 0000 expanded;
        // 01, 001, 0001 pruned. Task 1 (bound 10) starts after task 0 found 10: skipped,
        // one backtrack instead of a search below it.
        assert_eq!((out.stats.expanded, out.stats.pruned), (6, 3));
        assert_eq!(out.stats.tasks, 2);
    }
    // Sequential reaches the right child only after the 10: pruned there, not skipped.
    let seq = search::optimise(&LeftmostLeaf, Skeleton::Sequential, &Options::default());
    assert_eq!((seq.stats.expanded, seq.stats.pruned), (5, 4));
    for deque in common::deques() {
        let pool = common::pool(deque, 2);
        for _ in 0..10 {
            let out =
                pool.install(|| search::optimise(&LeftmostLeaf, skeleton, &Options::default()));
            assert_eq!(out.value.map(|(v, _)| v), Some(10), "{deque:?}");
        }
    }
}

#[test]
fn decisions_find_the_target_or_prove_there_is_none() {
    for workers in [1, 2] {
        let pool = ThreadPoolBuilder::new()
            .num_workers(workers)
            .build()
            .unwrap();
        for order in [TaskOrder::Sequential, TaskOrder::Discrepancy] {
            let skeleton = Skeleton::Ordered {
                spawn_depth: 2,
                order,
            };
            for _ in 0..10 {
                let found = pool
                    .install(|| search::decide(&LeftmostLeaf, 10, skeleton, &Options::default()));
                assert_eq!(found.value, Some((4, 0)), "{workers} workers, {order:?}");
                let none = pool
                    .install(|| search::decide(&LeftmostLeaf, 11, skeleton, &Options::default()));
                assert_eq!(none.value, None);
                // Nothing reaches 11: the root's bound 10 already says so.
                assert_eq!((none.stats.expanded, none.stats.pruned), (0, 1));
            }
        }
    }
}

#[test]
fn node_counts_against_sequential_on_a_nontrivial_tree() {
    // A tree whose shape depends on the node: the root has 4 children, a node (d, p) below
    // it (3p + d) % 6, down to depth 9: 8,279 nodes (counted by a separate script).
    struct Skewed;
    impl SearchSpace for Skewed {
        type Node = (u32, u64);
        type Children<'a> = std::vec::IntoIter<(u32, u64)>;
        fn root(&self) -> (u32, u64) {
            (0, 1)
        }
        fn children<'a>(&'a self, &(d, p): &(u32, u64)) -> Self::Children<'a> {
            if d == 9 {
                return Vec::new().into_iter();
            }
            let n = if d == 0 { 4 } else { (p * 3 + d as u64) % 6 };
            (0..n)
                .map(|i| (d + 1, p * 7 + i))
                .collect::<Vec<_>>()
                .into_iter()
        }
    }
    let seq = search::enumerate(
        &Skewed,
        &NodeCount,
        Skeleton::Sequential,
        &Options::default(),
    );
    let pool = ThreadPoolBuilder::new().num_workers(2).build().unwrap();
    for spawn_depth in [1, 3, 5] {
        for order in [TaskOrder::Sequential, TaskOrder::Discrepancy] {
            let skeleton = Skeleton::Ordered { spawn_depth, order };
            let out = pool
                .install(|| search::enumerate(&Skewed, &NodeCount, skeleton, &Options::default()));
            assert_eq!(out.value, seq.value);
            assert_eq!(out.stats.expanded, seq.stats.expanded);
            assert_eq!(out.stats.backtracks, seq.stats.backtracks);
        }
    }
    assert_eq!(seq.value, 8_279);
}

/// A weighted tree for replicable optimisation: a node is `(depth, value, id)`; a node above
/// depth [`PATHS_DEPTH`] has 2–4 children (by a hash of its id), each adding an edge weight
/// below [`PATHS_EDGE`] to the value, heaviest edge first. The objective is the value (every
/// node is a solution), the bound the value plus the heaviest possible edges below it.
struct Paths;

const PATHS_DEPTH: u32 = 20;
const PATHS_EDGE: i64 = 64;

fn mix(x: u64) -> u64 {
    let x = (x ^ (x >> 31)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    x ^ (x >> 29)
}

impl SearchSpace for Paths {
    type Node = (u32, i64, u64);
    type Children<'a> = std::vec::IntoIter<(u32, i64, u64)>;
    fn root(&self) -> (u32, i64, u64) {
        (0, 0, 1)
    }
    fn children<'a>(&'a self, &(depth, value, id): &(u32, i64, u64)) -> Self::Children<'a> {
        if depth == PATHS_DEPTH {
            return Vec::new().into_iter();
        }
        weighted_children((depth, value, id), 2 + mix(id) % 3)
    }
}

/// The `n` children of a weighted-tree node `(depth, value, id)`: each adds an edge weight
/// below [`PATHS_EDGE`] (by a hash of the child's id), heaviest edge first.
fn weighted_children(
    (depth, value, id): (u32, i64, u64),
    n: u64,
) -> std::vec::IntoIter<(u32, i64, u64)> {
    let mut kids: Vec<(u32, i64, u64)> = (0..n)
        .map(|i| {
            let child = mix(id.wrapping_mul(8).wrapping_add(i + 1));
            (depth + 1, value + (child % PATHS_EDGE as u64) as i64, child)
        })
        .collect();
    kids.sort_by_key(|&(_, v, id)| (std::cmp::Reverse(v), id));
    kids.into_iter()
}

/// A [`Paths`] node: `(depth, value, id)`.
type PathNode = (u32, i64, u64);

impl Objective for Paths {
    fn objective(&self, &(_, value, _): &(u32, i64, u64)) -> i64 {
        value
    }
    fn bound(&self, &(depth, value, _): &(u32, i64, u64)) -> i64 {
        value + i64::from(PATHS_DEPTH - depth) * (PATHS_EDGE - 1)
    }
}

/// The heaviest path's value below `node`, at least `best`: a hand-written branch and bound
/// (plain recursion, the same bound).
fn heaviest<S: Objective<Node = PathNode>>(space: &S, node: PathNode, best: i64) -> i64 {
    let mut best = best.max(node.1);
    for child in space.children(&node) {
        if space.bound(&child) > best {
            best = heaviest(space, child, best);
        }
    }
    best
}

/// [`Paths`] 200 levels deep: two children a node above depth 11, one below (2,048 chains of
/// 189 nodes), so that tasks run below the walk's recursion limit, on its explicit stack.
struct DeepPaths;

const DEEP_DEPTH: u32 = 200;

impl SearchSpace for DeepPaths {
    type Node = PathNode;
    type Children<'a> = std::vec::IntoIter<PathNode>;
    fn root(&self) -> PathNode {
        Paths.root()
    }
    fn children<'a>(&'a self, &(depth, value, id): &PathNode) -> Self::Children<'a> {
        if depth == DEEP_DEPTH {
            return Vec::new().into_iter();
        }
        weighted_children((depth, value, id), if depth < 11 { 2 } else { 1 })
    }
}

impl Objective for DeepPaths {
    fn objective(&self, &(_, value, _): &PathNode) -> i64 {
        value
    }
    fn bound(&self, &(depth, value, _): &PathNode) -> i64 {
        value + i64::from(DEEP_DEPTH - depth) * (PATHS_EDGE - 1)
    }
}

/// Everything a replicable optimisation fixes: the answer and the counters.
fn replicated(out: &search::Outcome<Option<(i64, PathNode)>>) -> impl PartialEq + std::fmt::Debug {
    (out.value, fixed(&out.stats))
}

/// 2- and 3-worker pools on `deques`, and a 1-worker pool (last).
fn replicable_pools(deques: &[magpie::deque::DequeKind]) -> Vec<magpie::ThreadPool> {
    let mut pools: Vec<magpie::ThreadPool> = deques
        .iter()
        .flat_map(|&d| [common::pool(d, 2), common::pool(d, 3)])
        .collect();
    pools.push(ThreadPoolBuilder::new().num_workers(1).build().unwrap());
    pools
}

/// Checks that a replicable optimisation of `space` with `opts` (a window set) and
/// `skeleton` finds `optimum` and gives the answer and counters of one worker on each
/// multi-worker pool of `pools` (from [`replicable_pools`]), `runs` times each; with window
/// 1, also those of the shared incumbent on one worker (there, the shared incumbent of task
/// k holds exactly what the frontier and tasks 0..k found).
fn check_replicable<S>(
    space: &S,
    skeleton: Skeleton,
    opts: &Options,
    optimum: i64,
    pools: &[magpie::ThreadPool],
    runs: usize,
) where
    S: Objective<Node = PathNode>,
{
    let (one, pools) = pools.split_last().expect("a 1-worker pool");
    let window = opts.replicable_window.expect("a window");
    let what = format!("{skeleton:?}, {opts:?}");
    let reference = one.install(|| search::optimise(space, skeleton, opts));
    assert_eq!(reference.value.map(|(v, _)| v), Some(optimum), "{what}");
    if window.get() == 1 {
        let shared_opts = Options {
            replicable_window: None,
            ..opts.clone()
        };
        let shared = one.install(|| search::optimise(space, skeleton, &shared_opts));
        assert_eq!(replicated(&reference), replicated(&shared), "{what}");
    }
    for pool in pools {
        for _ in 0..runs {
            let out = pool.install(|| search::optimise(space, skeleton, opts));
            assert_eq!(
                replicated(&out),
                replicated(&reference),
                "{what}, {}, {} workers",
                pool.deque(),
                pool.num_workers()
            );
            assert_eq!(out.stats.per_worker.iter().sum::<u64>(), out.stats.expanded);
        }
    }
}

#[test]
fn replicable_optimisation_counts_the_same_nodes_on_every_run_and_worker_count() {
    let optimum = heaviest(&Paths, Paths.root(), i64::MIN);
    assert_eq!(optimum, 1_050);
    let seq = search::optimise(&Paths, Skeleton::Sequential, &Options::default());
    assert_eq!(seq.value.map(|(v, _)| v), Some(optimum));
    // Children come heaviest edge first, so their bounds do not increase: prune-level is
    // sound. A depth limit changes the optimum (Sequential's is the oracle there).
    let shallow = Options {
        max_depth: Some(15),
        ..Options::default()
    };
    let shallow_optimum = search::optimise(&Paths, Skeleton::Sequential, &shallow)
        .value
        .map(|(v, _)| v)
        .unwrap();
    let variants = [
        (Options::default(), optimum),
        (
            Options {
                initial_bound: Some(1_000),
                ..Options::default()
            },
            optimum,
        ),
        (
            Options {
                prune_level: true,
                ..Options::default()
            },
            optimum,
        ),
        (shallow, shallow_optimum),
    ];
    // Every spawn depth, order and window with the default options; one skeleton and two
    // windows with each of the others.
    let pools = replicable_pools(&common::deques());
    for (k, (base, best)) in variants.into_iter().enumerate() {
        let (depths, orders, windows): (&[usize], &[TaskOrder], &[usize]) = if k == 0 {
            (
                &[0, 1, 3, 5],
                &[TaskOrder::Sequential, TaskOrder::Discrepancy],
                &[1, 2, 5],
            )
        } else {
            (&[3], &[TaskOrder::Sequential], &[1, 3])
        };
        for &spawn_depth in depths {
            for &order in orders {
                let skeleton = Skeleton::Ordered { spawn_depth, order };
                for &window in windows {
                    let opts = Options {
                        replicable_window: std::num::NonZeroUsize::new(window),
                        ..base.clone()
                    };
                    check_replicable(&Paths, skeleton, &opts, best, &pools, 1);
                }
            }
        }
    }
}

/// Tasks 189 levels deep run partly on the walk's explicit stack, where task 0's checkpoint
/// may fall too.
#[test]
fn replicable_optimisation_below_the_recursion_limit() {
    let optimum = heaviest(&DeepPaths, DeepPaths.root(), i64::MIN);
    let seq = search::optimise(&DeepPaths, Skeleton::Sequential, &Options::default());
    assert_eq!(seq.value.map(|(v, _)| v), Some(optimum));
    assert!(seq.stats.expanded > 10_000, "{:?}", seq.stats);
    let pools = replicable_pools(&common::deques()[..1]);
    for window in [1, 2, 8] {
        let opts = Options {
            replicable_window: std::num::NonZeroUsize::new(window),
            ..Options::default()
        };
        let skeleton = Skeleton::Ordered {
            spawn_depth: 6,
            order: TaskOrder::Sequential,
        };
        check_replicable(&DeepPaths, skeleton, &opts, optimum, &pools, 3);
    }
}

/// [`Paths`], whose bound panics at the first node at depth 12 it is asked about (in the first
/// task's first dive, while the other workers wait for that task).
struct ExplodingPaths;

impl SearchSpace for ExplodingPaths {
    type Node = (u32, i64, u64);
    type Children<'a> = std::vec::IntoIter<(u32, i64, u64)>;
    fn root(&self) -> (u32, i64, u64) {
        Paths.root()
    }
    fn children<'a>(&'a self, node: &(u32, i64, u64)) -> Self::Children<'a> {
        Paths.children(node)
    }
}

impl Objective for ExplodingPaths {
    fn objective(&self, node: &(u32, i64, u64)) -> i64 {
        Paths.objective(node)
    }
    fn bound(&self, node: &(u32, i64, u64)) -> i64 {
        assert!(node.0 != 12, "boom at depth 12");
        Paths.bound(node)
    }
}

#[test]
fn a_panic_in_a_replicable_search_wakes_the_waiting_workers() {
    let opts = Options {
        replicable_window: std::num::NonZeroUsize::new(1),
        ..Options::default()
    };
    for deque in common::deques() {
        let pool = common::pool(deque, 3);
        for spawn_depth in [1, 3] {
            let skeleton = Skeleton::Ordered {
                spawn_depth,
                order: TaskOrder::Sequential,
            };
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.install(|| search::optimise(&ExplodingPaths, skeleton, &opts))
            }));
            let payload = r.expect_err("the panic propagates");
            assert_eq!(
                payload.downcast_ref::<&str>(),
                Some(&"boom at depth 12"),
                "{deque:?}"
            );
            // The pool still works.
            let out = pool.install(|| search::optimise(&Paths, skeleton, &opts));
            assert_eq!(out.value.map(|(v, _)| v), Some(1_050));
        }
    }
}

/// [`Paths`] whose bound forks (`magpie::join`) on the pool the search runs on, so that a
/// worker waiting for its join may pick up another of the search's jobs.
struct ForkingPaths;

impl SearchSpace for ForkingPaths {
    type Node = PathNode;
    type Children<'a> = std::vec::IntoIter<PathNode>;
    fn root(&self) -> PathNode {
        Paths.root()
    }
    fn children<'a>(&'a self, node: &PathNode) -> Self::Children<'a> {
        Paths.children(node)
    }
}

impl Objective for ForkingPaths {
    fn objective(&self, node: &PathNode) -> i64 {
        Paths.objective(node)
    }
    fn bound(&self, node: &PathNode) -> i64 {
        // The second half is long enough for an idle worker to steal it.
        let spin = || (0..500u64).fold(node.2, |h, i| mix(h ^ i));
        let (a, h) = magpie::join(|| Paths.bound(node), spin);
        std::hint::black_box(h);
        a
    }
}

/// A replicable search whose space forks on the same pool: a worker that waits for a fork
/// inside a task may run another of the search's jobs, whose next task may wait for the
/// task suspended below it on the same thread. That job must give up instead of waiting
/// (it used to deadlock); the counts stay those of one worker.
#[test]
fn a_replicable_search_whose_space_forks_on_the_same_pool_finishes() {
    let skeleton = Skeleton::Ordered {
        spawn_depth: 3,
        order: TaskOrder::Sequential,
    };
    let opts = Options {
        replicable_window: std::num::NonZeroUsize::new(2),
        ..Options::default()
    };
    let one = ThreadPoolBuilder::new().num_workers(1).build().unwrap();
    let reference = one.install(|| search::optimise(&ForkingPaths, skeleton, &opts));
    assert_eq!(reference.value.map(|(v, _)| v), Some(1_050));
    for deque in common::deques() {
        for workers in [2, 3] {
            let pool = common::pool(deque, workers);
            for _ in 0..10 {
                let out = pool.install(|| search::optimise(&ForkingPaths, skeleton, &opts));
                assert_eq!(
                    (out.value, fixed(&out.stats)),
                    (reference.value, fixed(&reference.stats)),
                    "{deque:?}, {workers} workers"
                );
            }
        }
    }
}
