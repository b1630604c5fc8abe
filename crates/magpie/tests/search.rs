//! The search kinds and skeletons against exact oracles, and every skeleton × worker count ×
//! deque against the Sequential answer.
#![cfg(not(loom))]

mod common;

use magpie::search::{
    self, CompleteTree, CompleteTreeChildren, CountPerDepth, Enumerate, NodeCount, Objective,
    Options, SearchSpace, Skeleton, TaskOrder,
};
use magpie::ThreadPoolBuilder;
use std::sync::Mutex;

/// N-Queens: a node holds the queens' columns of the filled rows (as bitmasks for speed).
struct Queens(u32);

#[derive(Clone)]
struct Board {
    row: u32,
    cols: u32,
    diag1: u32,
    diag2: u32,
}

impl SearchSpace for Queens {
    type Node = Board;
    type Children<'a> = Box<dyn Iterator<Item = Board> + 'a>;
    fn root(&self) -> Board {
        Board {
            row: 0,
            cols: 0,
            diag1: 0,
            diag2: 0,
        }
    }
    fn children<'a>(&'a self, b: &Board) -> Self::Children<'a> {
        let n = self.0;
        let b = b.clone();
        if b.row == n {
            return Box::new(std::iter::empty());
        }
        let full = (1u32 << n) - 1;
        let free = full & !(b.cols | b.diag1 | b.diag2);
        Box::new((0..n).filter(move |c| free & (1 << c) != 0).map(move |c| {
            let bit = 1u32 << c;
            Board {
                row: b.row + 1,
                cols: b.cols | bit,
                diag1: ((b.diag1 | bit) << 1) & full,
                diag2: (b.diag2 | bit) >> 1,
            }
        }))
    }
}

/// 0/1 knapsack with items in profit/weight order; the bound is Dantzig's.
struct Knapsack {
    items: Vec<(i64, i64)>, // (profit, weight), sorted by profit/weight descending
    capacity: i64,
}

#[derive(Clone, Debug)]
struct Pack {
    next: usize,
    profit: i64,
    weight: i64,
}

impl Knapsack {
    fn random(n: usize, seed: u64) -> Self {
        let mut x = seed | 1;
        let mut rnd = |m: i64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            1 + (x % m as u64) as i64
        };
        let mut items: Vec<(i64, i64)> = (0..n).map(|_| (rnd(100), rnd(60))).collect();
        items.sort_by(|a, b| (b.0 * a.1).cmp(&(a.0 * b.1)));
        let capacity = items.iter().map(|i| i.1).sum::<i64>() / 2;
        Knapsack { items, capacity }
    }

    /// The dynamic-programming optimum (the oracle).
    fn dp(&self) -> i64 {
        let mut best = vec![0i64; self.capacity as usize + 1];
        for &(p, w) in &self.items {
            for c in (w as usize..=self.capacity as usize).rev() {
                best[c] = best[c].max(best[c - w as usize] + p);
            }
        }
        best[self.capacity as usize]
    }
}

impl SearchSpace for Knapsack {
    type Node = Pack;
    type Children<'a> = std::vec::IntoIter<Pack>;
    fn root(&self) -> Pack {
        Pack {
            next: 0,
            profit: 0,
            weight: 0,
        }
    }
    fn children<'a>(&'a self, p: &Pack) -> Self::Children<'a> {
        let mut out = Vec::with_capacity(2);
        if p.next < self.items.len() {
            let (ip, iw) = self.items[p.next];
            if p.weight + iw <= self.capacity {
                out.push(Pack {
                    next: p.next + 1,
                    profit: p.profit + ip,
                    weight: p.weight + iw,
                });
            }
            out.push(Pack {
                next: p.next + 1,
                ..p.clone()
            });
        }
        out.into_iter()
    }
}

impl Objective for Knapsack {
    fn objective(&self, p: &Pack) -> i64 {
        p.profit
    }
    fn bound(&self, p: &Pack) -> i64 {
        let (mut profit, mut room) = (p.profit, self.capacity - p.weight);
        for &(ip, iw) in &self.items[p.next..] {
            if iw <= room {
                profit += ip;
                room -= iw;
            } else {
                return profit + ip * room / iw;
            }
        }
        profit
    }
}

const QUEENS_SOLUTIONS: [u64; 11] = [1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724];

fn skeletons() -> Vec<Skeleton> {
    vec![
        Skeleton::Sequential,
        Skeleton::DepthBounded { spawn_depth: 1 },
        Skeleton::DepthBounded { spawn_depth: 3 },
        Skeleton::Budget { backtracks: 1 },
        Skeleton::Budget { backtracks: 100 },
        Skeleton::StackStealing { steal_all: false },
        Skeleton::StackStealing { steal_all: true },
        Skeleton::Ordered {
            spawn_depth: 0,
            order: TaskOrder::Sequential,
        },
        Skeleton::Ordered {
            spawn_depth: 2,
            order: TaskOrder::Sequential,
        },
        Skeleton::Ordered {
            spawn_depth: 3,
            order: TaskOrder::Discrepancy,
        },
    ]
}

#[test]
fn enumeration_counts_queens_solutions_on_every_skeleton_pool_and_deque() {
    let reference: Vec<Vec<u64>> = (1..=10u32)
        .map(|n| {
            search::enumerate(
                &Queens(n),
                &CountPerDepth,
                Skeleton::Sequential,
                &Options::default(),
            )
            .value
        })
        .collect();
    for n in 1..=10usize {
        assert_eq!(
            reference[n - 1].get(n).copied().unwrap_or(0),
            QUEENS_SOLUTIONS[n],
            "n = {n}"
        );
    }
    for deque in common::deques() {
        for workers in [1, 2, 4, 8] {
            let pool = common::pool(deque, workers);
            for skeleton in skeletons() {
                let got = pool.install(|| {
                    search::enumerate(&Queens(9), &CountPerDepth, skeleton, &Options::default())
                });
                assert_eq!(got.value, reference[8], "{deque} w={workers} {skeleton:?}");
                assert_eq!(got.stats.expanded, reference[8].iter().sum::<u64>());
                assert_eq!(got.stats.per_worker.iter().sum::<u64>(), got.stats.expanded);
                // Every node's child generator runs to its end exactly once.
                assert_eq!(got.stats.backtracks, got.stats.expanded, "{skeleton:?}");
            }
        }
    }
}

#[test]
fn max_depth_stops_the_expansion() {
    let opts = Options {
        max_depth: Some(3),
        ..Options::default()
    };
    let full = search::enumerate(
        &Queens(8),
        &CountPerDepth,
        Skeleton::Sequential,
        &Options::default(),
    )
    .value;
    for skeleton in skeletons() {
        let cut = search::enumerate(&Queens(8), &CountPerDepth, skeleton, &opts).value;
        assert_eq!(cut, full[..=3].to_vec(), "{skeleton:?}");
    }
}

#[test]
fn optimisation_finds_the_dp_optimum_everywhere() {
    for seed in 1..=6u64 {
        let k = Knapsack::random(28, seed);
        let optimum = k.dp();
        for deque in common::deques() {
            let pool = common::pool(deque, 2);
            for skeleton in skeletons() {
                for prune_level in [false, true] {
                    let opts = Options {
                        prune_level,
                        ..Options::default()
                    };
                    let got = pool.install(|| search::optimise(&k, skeleton, &opts));
                    let (value, node) = got.value.expect("a solution exists");
                    assert_eq!(
                        value, optimum,
                        "seed {seed} {deque} {skeleton:?} prune_level {prune_level}"
                    );
                    assert_eq!(node.profit, optimum);
                    assert!(node.weight <= k.capacity);
                    assert!(got.stats.pruned > 0, "the bound prunes something");
                }
            }
        }
    }
}

#[test]
fn an_initial_bound_at_the_optimum_finds_nothing_better() {
    let k = Knapsack::random(24, 9);
    let optimum = k.dp();
    let opts = Options {
        initial_bound: Some(optimum),
        ..Options::default()
    };
    assert!(search::optimise(&k, Skeleton::Sequential, &opts)
        .value
        .is_none());
    let opts = Options {
        initial_bound: Some(optimum - 1),
        ..Options::default()
    };
    assert_eq!(
        search::optimise(&k, Skeleton::Sequential, &opts)
            .value
            .unwrap()
            .0,
        optimum
    );
}

#[test]
fn decision_finds_a_target_and_stops_early() {
    let k = Knapsack::random(18, 4);
    let optimum = k.dp();
    let full = search::enumerate(&k, &NodeCount, Skeleton::Sequential, &Options::default()).value;
    for deque in common::deques() {
        for workers in [1, 2, 4] {
            let pool = common::pool(deque, workers);
            for skeleton in skeletons() {
                let hit =
                    pool.install(|| search::decide(&k, optimum - 5, skeleton, &Options::default()));
                let node = hit.value.expect("a node reaching optimum - 5 exists");
                assert!(node.profit >= optimum - 5 && node.weight <= k.capacity);
                assert!(
                    hit.stats.expanded < full,
                    "stopped early: {} of {full}",
                    hit.stats.expanded
                );
                let miss =
                    pool.install(|| search::decide(&k, optimum + 1, skeleton, &Options::default()));
                assert!(miss.value.is_none(), "{deque} w={workers} {skeleton:?}");
            }
        }
    }
}

/// A space whose generator panics at one node.
struct Exploding;

impl SearchSpace for Exploding {
    type Node = u32;
    type Children<'a> = std::vec::IntoIter<u32>;
    fn root(&self) -> u32 {
        0
    }
    fn children<'a>(&'a self, n: &u32) -> Self::Children<'a> {
        if *n == 77 {
            panic!("boom at 77");
        }
        if *n >= 400 {
            return Vec::new().into_iter();
        }
        vec![2 * n + 1, 2 * n + 2].into_iter()
    }
}

#[test]
fn a_panic_in_user_code_reaches_the_caller_and_the_pool_survives() {
    for deque in common::deques() {
        let pool = common::pool(deque, 2);
        for skeleton in skeletons() {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.install(|| {
                    search::enumerate(&Exploding, &NodeCount, skeleton, &Options::default())
                })
            }));
            let payload = r.expect_err("the panic propagates");
            assert_eq!(
                payload.downcast_ref::<&str>(),
                Some(&"boom at 77"),
                "{deque} {skeleton:?}"
            );
        }
        let n = pool.install(|| {
            search::enumerate(
                &Queens(6),
                &NodeCount,
                Skeleton::DepthBounded { spawn_depth: 2 },
                &Options::default(),
            )
            .value
        });
        assert_eq!(
            n,
            search::enumerate(
                &Queens(6),
                &NodeCount,
                Skeleton::Sequential,
                &Options::default()
            )
            .value
        );
    }
}

#[test]
fn ordered_tasks_start_once_each_in_sequential_or_discrepancy_order() {
    let pool = ThreadPoolBuilder::new().num_workers(1).build().unwrap();
    for (order, expected) in [
        (
            TaskOrder::Sequential,
            vec![0b000, 0b001, 0b010, 0b011, 0b100, 0b101, 0b110, 0b111],
        ),
        // Fewest right turns first, ties in depth-first order.
        (
            TaskOrder::Discrepancy,
            vec![0b000, 0b001, 0b010, 0b100, 0b011, 0b101, 0b110, 0b111],
        ),
    ] {
        let tree = Binary::logged(6);
        let skeleton = Skeleton::Ordered {
            spawn_depth: 3,
            order,
        };
        let n = pool
            .install(|| search::enumerate(&tree, &NodeCount, skeleton, &Options::default()).value);
        assert_eq!(n, 127);
        let starts: Vec<u32> = tree
            .into_log()
            .into_iter()
            .filter(|&(d, _)| d == 3)
            .map(|(_, p)| p)
            .collect();
        assert_eq!(starts, expected, "{order:?}");
    }
}

/// The nodes visited, as `(depth, path)`, in any tree of such nodes.
struct Visited;

impl<S: SearchSpace<Node = (u32, u32)>> Enumerate<S> for Visited {
    type Acc = Vec<(u32, u32)>;
    fn empty(&self) -> Self::Acc {
        Vec::new()
    }
    fn visit(&self, acc: &mut Self::Acc, node: &(u32, u32), _depth: usize) {
        acc.push(*node);
    }
    fn merge(&self, mut a: Self::Acc, b: Self::Acc) -> Self::Acc {
        a.extend(b);
        a
    }
}

/// Budget splits the walk: the children a split takes off a level are rebuilt from their
/// parent (`children` again, skipping those the owner has seen), so a parent's children may
/// be generated more than once, but every node is visited exactly once.
#[test]
fn budget_spawns_tasks_and_still_visits_every_node_once() {
    let pool = ThreadPoolBuilder::new().num_workers(2).build().unwrap();
    let all: Vec<(u32, u32)> = (0..=6u32)
        .flat_map(|d| (0..1u32 << d).map(move |p| (d, p)))
        .collect();
    for budget in [1, 2, 5] {
        let tree = Binary::logged(6);
        let got = pool.install(|| {
            search::enumerate(
                &tree,
                &Visited,
                Skeleton::Budget { backtracks: budget },
                &Options::default(),
            )
        });
        let mut visited = got.value;
        visited.sort_unstable();
        assert_eq!(
            visited, all,
            "budget {budget}: every node visited exactly once"
        );
        assert!(
            got.stats.tasks > 0,
            "a budget of {budget} backtracks spawns"
        );
        let mut generated = tree.into_log();
        generated.sort_unstable();
        generated.dedup();
        assert_eq!(
            generated, all,
            "budget {budget}: every node's children generated"
        );
    }
}

/// The complete binary tree of height `height` ([`CompleteTree`]). With a log, its generator
/// logs each node whose children are asked for, so that the start of each task is
/// observable.
struct Binary {
    tree: CompleteTree,
    log: Option<Mutex<Vec<(u32, u32)>>>,
}

impl Binary {
    fn new(height: u32) -> Self {
        Binary {
            tree: CompleteTree::new(2, height),
            log: None,
        }
    }

    fn logged(height: u32) -> Self {
        Binary {
            log: Some(Mutex::new(Vec::new())),
            ..Binary::new(height)
        }
    }

    /// The nodes whose children were asked for (with a log), in order.
    fn into_log(self) -> Vec<(u32, u32)> {
        self.log.map_or_else(Vec::new, |l| l.into_inner().unwrap())
    }
}

impl SearchSpace for Binary {
    type Node = (u32, u32);
    type Children<'a> = CompleteTreeChildren;
    fn root(&self) -> (u32, u32) {
        self.tree.root()
    }
    fn children(&self, node: &(u32, u32)) -> CompleteTreeChildren {
        if let Some(log) = &self.log {
            log.lock().unwrap().push(*node);
        }
        self.tree.children(node)
    }
}

/// Work taken off a running walk (StackStealing's answers, Budget's splits) is never lost
/// and never done twice: on 2 and 3 workers, every node of a 2^17-node tree is visited
/// exactly once, over several runs (the splits fall at different places each time), and a
/// complete search counts one backtrack per node.
#[test]
fn split_walks_visit_every_node_exactly_once() {
    let tree = Binary::new(16);
    let all: Vec<(u32, u32)> = (0..=16u32)
        .flat_map(|d| (0..1u32 << d).map(move |p| (d, p)))
        .collect();
    for workers in [2, 3] {
        let pool = ThreadPoolBuilder::new()
            .num_workers(workers)
            .build()
            .unwrap();
        for skeleton in [
            Skeleton::StackStealing { steal_all: false },
            Skeleton::StackStealing { steal_all: true },
            Skeleton::Budget { backtracks: 1 },
            Skeleton::Budget { backtracks: 64 },
        ] {
            let mut moved = 0;
            for run in 0..5 {
                let got = pool
                    .install(|| search::enumerate(&tree, &Visited, skeleton, &Options::default()));
                let what = format!("{skeleton:?} on {workers} workers, run {run}");
                let mut visited = got.value;
                visited.sort_unstable();
                assert!(visited == all, "{what}: a node visited twice or never");
                assert_eq!(got.stats.expanded, all.len() as u64, "{what}");
                assert_eq!(got.stats.backtracks, all.len() as u64, "{what}");
                moved += got.stats.tasks;
            }
            // Budget splits whether or not a thief is there to take the tasks (StackStealing
            // hands work over only when asked, which depends on timing: not asserted).
            if let Skeleton::Budget { .. } = skeleton {
                assert!(moved > 5, "{skeleton:?} on {workers} workers: never split");
            }
        }
    }
}

#[test]
fn a_monitor_counts_every_expanded_node_and_logs_each_improvement() {
    let k = Knapsack::random(28, 3);
    let optimum = k.dp();
    let queens_nodes = pool_free_queens_nodes(10);
    let pool = ThreadPoolBuilder::new().num_workers(2).build().unwrap();
    for skeleton in skeletons() {
        for replicable in [None, std::num::NonZeroUsize::new(4)] {
            let monitor = search::Monitor::new();
            let opts = Options {
                monitor: Some(monitor.clone()),
                replicable_window: replicable,
                ..Options::default()
            };
            let out = pool.install(|| search::optimise(&k, skeleton, &opts));
            let what = format!("{skeleton:?} replicable {replicable:?}");
            assert_eq!(out.value.map(|v| v.0), Some(optimum), "{what}");
            assert!(!out.stats.stopped, "{what}");
            assert_eq!(monitor.nodes(), out.stats.expanded, "{what}");
            assert_eq!(monitor.tasks(), out.stats.tasks, "{what}");
            let log = monitor.improvements();
            assert_eq!(log.last().map(|i| i.value), Some(optimum), "{what}");
            assert_eq!(monitor.best(), Some(optimum), "{what}");
            for pair in log.windows(2) {
                assert!(pair[0].value < pair[1].value, "{what}: {log:?}");
                assert!(pair[0].time <= pair[1].time, "{what}: {log:?}");
            }
            assert!(log
                .iter()
                .all(|i| i.worker.is_some_and(|w| w < 2) && i.rank == 0));
            assert!(log.iter().all(|i| i.nodes <= out.stats.expanded), "{what}");
        }
        let monitor = search::Monitor::new();
        let opts = Options {
            monitor: Some(monitor.clone()),
            ..Options::default()
        };
        let out = pool.install(|| search::enumerate(&Queens(10), &NodeCount, skeleton, &opts));
        assert_eq!(out.value, queens_nodes, "{skeleton:?}");
        assert_eq!(monitor.nodes(), queens_nodes, "{skeleton:?}");
        assert!(
            monitor.improvements().is_empty(),
            "an enumeration has no incumbent"
        );
    }
}

#[test]
fn a_stopped_monitor_stops_every_skeleton_with_a_consistent_partial_answer() {
    let full = pool_free_queens_nodes(12);
    let k = Knapsack::random(60, 5);
    for deque in common::deques() {
        let pool = common::pool(deque, 2);
        for skeleton in skeletons() {
            let what = format!("{deque} {skeleton:?}");
            let stopped = || {
                let monitor = search::Monitor::new();
                monitor.stop();
                Options {
                    monitor: Some(monitor),
                    ..Options::default()
                }
            };
            let out =
                pool.install(|| search::enumerate(&Queens(12), &NodeCount, skeleton, &stopped()));
            assert!(out.stats.stopped, "{what}");
            assert_eq!(out.value, out.stats.expanded, "{what}");
            assert!(
                out.value < full / 4,
                "{what}: {} of {full} nodes",
                out.value
            );

            let out = pool.install(|| search::optimise(&k, skeleton, &stopped()));
            assert!(out.stats.stopped, "{what}");
            // The best node found so far is a real packing with the reported value.
            let (value, node) = out.value.expect("the root is an incumbent");
            assert_eq!(node.profit, value, "{what}");
            assert!(node.weight <= k.capacity, "{what}");

            let out = pool.install(|| search::decide(&Queens(12), 1, skeleton, &stopped()));
            assert!(out.stats.stopped, "{what}");
            assert!(
                out.value.is_none() && out.stats.expanded < full / 4,
                "{what}"
            );
        }
    }
}

/// The nodes of N-Queens `n`'s tree, counted by a plain recursion (no pool, no monitor).
fn pool_free_queens_nodes(n: u32) -> u64 {
    fn count(q: &Queens, b: &Board) -> u64 {
        1 + q.children(b).map(|c| count(q, &c)).sum::<u64>()
    }
    let q = Queens(n);
    count(&q, &q.root())
}

impl Objective for Queens {
    /// 0 for a full board, negative above: with target 1 a decision never succeeds and
    /// searches the whole tree (bound 1 everywhere), unless it is stopped.
    fn objective(&self, b: &Board) -> i64 {
        i64::from(b.row) - i64::from(self.0)
    }
    fn bound(&self, _: &Board) -> i64 {
        1
    }
}

/// A traced search marks each improvement of the incumbent (the monitor's log, value for
/// value) and each StackStealing hand-over (as many as the search counts), on the worker
/// that made it.
#[test]
fn a_traced_search_marks_each_incumbent_and_each_handover() {
    use magpie::trace::EventKind;
    let k = Knapsack::random(40, 9);
    let pool = ThreadPoolBuilder::new().num_workers(2).build().unwrap();
    for skeleton in [
        Skeleton::StackStealing { steal_all: false },
        Skeleton::DepthBounded { spawn_depth: 3 },
    ] {
        let monitor = search::Monitor::new();
        let opts = Options {
            monitor: Some(monitor.clone()),
            ..Options::default()
        };
        pool.reset_stats();
        pool.start_trace();
        let out = pool.install(|| search::optimise(&k, skeleton, &opts));
        let trace = pool.take_trace();
        let pool_steals = pool.stats().total().steals;
        let mut incumbents: Vec<(u64, i64)> = Vec::new();
        let mut handovers = 0u64;
        for (_, e) in trace.events() {
            if let EventKind::Mark {
                category: "search",
                name,
                args,
            } = &e.kind
            {
                let arg = |key: &str| args.iter().find(|a| a.0 == key).map(|a| a.1);
                match *name {
                    "incumbent" => incumbents.push((e.start_ns, arg("value").unwrap())),
                    "handover" => {
                        assert!(arg("thief").is_some_and(|t| (0..2).contains(&t)));
                        assert!(arg("nodes").is_some_and(|n| n >= 1));
                        handovers += 1;
                    }
                    other => panic!("unexpected mark {other}"),
                }
            }
        }
        incumbents.sort();
        let marked: Vec<i64> = incumbents.iter().map(|i| i.1).collect();
        let logged: Vec<i64> = monitor.improvements().iter().map(|i| i.value).collect();
        assert_eq!(marked, logged, "{skeleton:?}");
        assert_eq!(marked.last().copied(), Some(k.dp()), "{skeleton:?}");
        assert_eq!(handovers, out.stats.steals - pool_steals, "{skeleton:?}");
    }
}
