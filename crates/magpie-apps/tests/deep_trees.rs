//! Deep trees without giant stacks: the engine walks a tree with an explicit stack below a
//! bounded recursion, so UTS T3 (4,112,897 nodes, 1,572 levels deep) runs on every skeleton
//! with worker stacks of 256 KiB — a walk that recursed once per tree level needs well over
//! that (a few hundred bytes a level) and would overflow, which aborts the test binary.
//!
//! Also: the internal iteration (`SearchSpace::for_each_child`) that N-Queens, NS, UTS and
//! max clique override yields exactly what their `children` iterators yield, in the same order;
//! the leaf hint (`SearchSpace::is_leaf`) of N-Queens and UTS is exact, and the leaves it
//! lets the walks skip still count as finished subtrees.

use std::ops::ControlFlow;

use magpie::search::{self, Options, SearchSpace, Skeleton, TaskOrder};
use magpie::ThreadPoolBuilder;
use magpie_apps::{knapsack, maxclique, nqueens, ns, uts};

const SMALL_STACK: usize = 256 << 10;

fn every_skeleton() -> Vec<Skeleton> {
    vec![
        Skeleton::Sequential,
        Skeleton::DepthBounded { spawn_depth: 3 },
        Skeleton::Budget { backtracks: 1000 },
        Skeleton::StackStealing { steal_all: false },
        Skeleton::StackStealing { steal_all: true },
        Skeleton::Ordered {
            spawn_depth: 2,
            order: TaskOrder::Discrepancy,
        },
    ]
}

#[test]
fn uts_t3_on_every_skeleton_with_small_worker_stacks() {
    let named = uts::NamedTree::find("T3").unwrap();
    assert_eq!(named.max_depth, Some(1572));
    let params = named.params();
    for workers in [1, 2] {
        let pool = ThreadPoolBuilder::new()
            .num_workers(workers)
            .stack_size(SMALL_STACK)
            .build()
            .unwrap();
        for skeleton in every_skeleton() {
            let got = pool.install(|| {
                search::enumerate(&params, &uts::Tally(&params), skeleton, &Options::default())
            });
            let what = format!("T3 {skeleton:?} on {workers} workers");
            assert_eq!(got.value.nodes, named.nodes, "{what}: nodes");
            assert_eq!(u64::from(got.value.max_depth), 1572, "{what}: depth");
            assert_eq!(got.stats.expanded, named.nodes, "{what}: expanded");
        }
    }
}

/// The children of `node` by both forms.
fn both<S: SearchSpace>(space: &S, node: &S::Node) -> (Vec<S::Node>, Vec<S::Node>)
where
    S::Node: Clone,
{
    let mut lent = Vec::new();
    let flow = space.for_each_child(node, |c| {
        lent.push(c.clone());
        ControlFlow::Continue(())
    });
    assert_eq!(flow, ControlFlow::Continue(()));
    (space.children(node).collect(), lent)
}

/// Walks every node of `space` down to `depth` and compares the two forms at each; also
/// checks that a `Break` stops the internal iteration at once. Returns the nodes compared.
fn compare_forms<S: SearchSpace>(space: &S, node: &S::Node, depth: usize) -> u64
where
    S::Node: Clone + PartialEq + std::fmt::Debug,
{
    let (owned, lent) = both(space, node);
    assert_eq!(owned, lent, "children of {node:?}");
    // The leaf hint is never wrong (the default, false, is never wrong).
    assert!(!space.is_leaf(node) || owned.is_empty(), "{node:?}");
    if !owned.is_empty() {
        let mut calls = 0;
        let flow = space.for_each_child(node, |_| {
            calls += 1;
            ControlFlow::Break(())
        });
        assert_eq!((flow, calls), (ControlFlow::Break(()), 1), "{node:?}");
    }
    let mut n = 1;
    if depth > 0 {
        for c in &owned {
            n += compare_forms(space, c, depth - 1);
        }
    }
    n
}

#[test]
fn nqueens_internal_iteration_matches_the_iterator() {
    let board = nqueens::Board::new(8).unwrap();
    // Every node of the 8-Queens tree (2,057 nodes, solutions at depth 8).
    assert_eq!(compare_forms(&board, &board.root(), 8), 2057);
}

#[test]
fn uts_internal_iteration_matches_the_iterator() {
    // T1 down to depth 4: for_each_child hashes siblings in batches of 16.
    let params = uts::Params::named("T1").unwrap();
    let root = magpie::search::SearchSpace::root(&params);
    let n = compare_forms(&params, &root, 4);
    assert!(n > 100, "{n} nodes compared");
    // With a compute granularity of 3 (each spawn hashed three times): the same children.
    let g3 = uts::Params::from_flags("-t 1 -a 3 -d 4 -b 4 -r 19 -g 3").unwrap();
    let root = magpie::search::SearchSpace::root(&g3);
    let n = compare_forms(&g3, &root, 4);
    assert!(n > 100, "{n} nodes compared");
    // A binomial tree whose root has 2000 children: many full batches.
    let t3 = uts::Params::named("T3").unwrap();
    let root = magpie::search::SearchSpace::root(&t3);
    assert_eq!(compare_forms(&t3, &root, 1), 2001);
}

#[test]
fn ns_internal_iteration_matches_the_iterator() {
    let tree = ns::Tree::new(12).unwrap();
    // Every semigroup of genus <= 12 (the leaves at genus 12 have no children in the tree).
    let want: u64 = ns::EXPECTED_COUNTS[..=12].iter().sum();
    assert_eq!(compare_forms(&tree, &tree.root(), 12), want);
}

#[test]
fn maxclique_internal_iteration_matches_the_iterator() {
    // 70 vertices: two words per vertex set, so the word arithmetic of the reused child
    // buffer is exercised across a word boundary.
    let g = maxclique::Graph::random(70, 0.5, 7);
    let space = maxclique::CliqueSpace::new(&g);
    // Every clique appears once in the tree (a vertex is no longer a candidate once
    // branched on), so the nodes down to depth 3 are the cliques of at most 3 vertices.
    let n = g.n();
    let edges = g.edge_count() as u64;
    let mut triangles = 0u64;
    for a in 0..n {
        for b in a + 1..n {
            for c in b + 1..n {
                triangles += u64::from(g.adjacent(a, b) && g.adjacent(a, c) && g.adjacent(b, c));
            }
        }
    }
    assert!(
        edges > 1000 && triangles > 1000,
        "{edges} edges, {triangles} triangles"
    );
    assert_eq!(
        compare_forms(&space, &space.root(), 3),
        1 + n as u64 + edges + triangles
    );
}

/// Nodes down to `depth` where `is_leaf` told a leaf, and leaves in all: equal where the
/// hint is exact.
fn leaf_hints<S: SearchSpace>(space: &S, node: &S::Node, depth: usize) -> (u64, u64) {
    let children: Vec<S::Node> = space.children(node).collect();
    let mut counts = (
        u64::from(space.is_leaf(node)),
        u64::from(children.is_empty()),
    );
    if depth > 0 {
        for c in &children {
            let (told, leaves) = leaf_hints(space, c, depth - 1);
            counts = (counts.0 + told, counts.1 + leaves);
        }
    }
    counts
}

#[test]
fn nqueens_and_uts_tell_every_leaf() {
    let board = nqueens::Board::new(8).unwrap();
    // 2,057 nodes, of which 92 solutions and the dead ends are leaves.
    let (told, leaves) = leaf_hints(&board, &board.root(), 8);
    assert_eq!(told, leaves);
    assert!(leaves > 92, "{leaves}");
    let t1 = uts::Params::named("T1").unwrap();
    let (told, leaves) = leaf_hints(&t1, &SearchSpace::root(&t1), 5);
    assert_eq!(told, leaves);
    assert!(leaves > 100, "{leaves}");
}

#[test]
fn skipped_leaves_still_count_as_finished_subtrees() {
    // Every expanded node of a complete enumeration finishes its subtree once, leaves told
    // by the hint included: backtracks = expanded.
    let pool = ThreadPoolBuilder::new().num_workers(2).build().unwrap();
    let board = nqueens::Board::new(9).unwrap();
    let t1 = uts::Params::from_flags("-t 1 -a 3 -d 7 -b 4 -r 19").unwrap();
    for skeleton in every_skeleton() {
        let out = pool.install(|| {
            search::enumerate(
                &board,
                &nqueens::Solutions(9),
                skeleton,
                &Options::default(),
            )
        });
        assert_eq!(out.value, 352, "{skeleton:?}");
        assert_eq!(
            out.stats.expanded,
            nqueens::count_counted(9).1,
            "{skeleton:?}"
        );
        assert_eq!(out.stats.backtracks, out.stats.expanded, "{skeleton:?}");
        let out = pool
            .install(|| search::enumerate(&t1, &search::NodeCount, skeleton, &Options::default()));
        assert_eq!(out.value, uts::count(&t1).nodes, "{skeleton:?}");
        assert_eq!(out.stats.backtracks, out.stats.expanded, "{skeleton:?}");
    }
}

#[test]
fn knapsack_internal_iteration_matches_the_iterator() {
    // 12 items, capacity 60: the include child is missing wherever the item does not fit.
    let items: Vec<(u64, u64)> = (0..12u64).map(|i| (10 + 7 * i % 13, 5 + 3 * i)).collect();
    let inst = knapsack::Instance::new(60, &items).unwrap();
    // The whole include/exclude tree, unpruned: one node per prefix of the heuristic order and
    // subset of that prefix that fits (counted here by brute force over the subsets).
    let order = inst.order();
    let mut want = 0u64;
    for d in 0..=order.len() {
        for subset in 0u32..1 << d {
            let weight: u64 = (0..d)
                .filter(|&j| subset >> j & 1 == 1)
                .map(|j| items[order[j]].1)
                .sum();
            want += u64::from(weight <= 60);
        }
    }
    assert!(want > 500, "{want} nodes");
    let root = SearchSpace::root(&inst);
    assert_eq!(compare_forms(&inst, &root, order.len()), want);
}
