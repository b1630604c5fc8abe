//! The `peers` experiment's rayon versions, written as a rayon user would: below a spawn
//! depth the search is the plain sequential code; above it, each child is a rayon task
//! (`par_iter` over the collected children, i.e. `rayon::join` under the hood).

use super::instances::Clique;
use super::jobs::{self, UtsTree};
use super::measure::{Job, Sample};
use magpie::search::SearchSpace;
use magpie_apps::maxclique::{self, CliqueNode};
use magpie_apps::nqueens::{Board, Placement};
use magpie_apps::ns::{self, Semigroup};
use magpie_apps::uts::{self, Counts, Node, Params};
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

fn uts_rec(p: &Params, node: &Node, spawn_depth: u32) -> Counts {
    if node.height >= spawn_depth {
        return uts::count_from(p, node);
    }
    let kids: Vec<Node> = p.children(node).collect();
    let me = Counts::node(node.height, kids.len() as u32);
    kids.par_iter()
        .map(|k| uts_rec(p, k, spawn_depth))
        .reduce(Counts::default, Counts::merge)
        .merge(me)
}

/// UTS on `pool`: the children of nodes above height `spawn_depth` are rayon tasks; the
/// subtrees at that height are counted by `uts::count_from`.
pub fn uts<'a>(tree: &'a UtsTree, pool: &'a rayon::ThreadPool, spawn_depth: u32) -> Job<'a> {
    Box::new(move || {
        let p = &tree.params;
        let t = Instant::now();
        let c = pool.install(|| uts_rec(p, &p.root(), spawn_depth));
        let time = t.elapsed();
        if c != tree.expected {
            return Err(format!(
                "uts {}: {c:?}, expected {:?}",
                tree.label, tree.expected
            ));
        }
        Ok(Sample::new(time, Some(c.nodes)))
    })
}

fn queens_rec(board: &Board, p: &Placement, row: usize, spawn_depth: usize) -> u64 {
    if row >= spawn_depth || p.free() == 0 {
        return board.count_from(p);
    }
    let mut free = p.free();
    let mut bits = Vec::with_capacity(free.count_ones() as usize);
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        bits.push(bit);
    }
    bits.par_iter()
        .map(|&bit| queens_rec(board, &board.child(p, bit), row + 1, spawn_depth))
        .sum()
}

/// N-Queens on `pool`: the placements of rows above `spawn_depth` are rayon tasks; below,
/// the bitmask recursion of `nqueens::count` (`Board::count_from`).
pub fn nqueens(n: u32, pool: &rayon::ThreadPool, spawn_depth: usize) -> Job<'_> {
    Box::new(move || {
        let board = Board::new(u64::from(n)).map_err(|e| e.to_string())?;
        let t = Instant::now();
        let count = pool.install(|| queens_rec(&board, &board.root(), 0, spawn_depth));
        let time = t.elapsed();
        jobs::check_queens(n, count).map_err(|e| format!("{e} (rayon)"))?;
        Ok(Sample::new(time, None))
    })
}

fn ns_rec(s: &Semigroup, max_genus: usize, spawn_depth: usize) -> Vec<u64> {
    let g = s.genus();
    if g >= spawn_depth || g >= max_genus {
        return ns::count_from(s, max_genus);
    }
    let kids: Vec<Semigroup> = s.children().collect();
    let mut counts = kids
        .par_iter()
        .map(|k| ns_rec(k, max_genus, spawn_depth))
        .reduce(
            || vec![0; max_genus + 1],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            },
        );
    counts[g] += 1;
    counts
}

/// NS down to `tree.max_genus()` on `pool`: the children of semigroups of genus below
/// `spawn_depth` are rayon tasks; the subtrees at that genus are counted by
/// `ns::count_from` (the walk of `ns::count_by_genus`).
pub fn ns<'a>(tree: &'a ns::Tree, pool: &'a rayon::ThreadPool, spawn_depth: usize) -> Job<'a> {
    Box::new(move || {
        let g = tree.max_genus();
        let t = Instant::now();
        let counts = pool.install(|| ns_rec(&Semigroup::root(), g, spawn_depth));
        let time = t.elapsed();
        let total = jobs::check_ns(g, &counts)?;
        Ok(Sample::new(time, Some(total)))
    })
}

/// The best clique (in the sorted graph's numbering) of the subtree of `node`, at `depth`
/// (= its clique's size), if one beats `incumbent` when found, and the nodes branched to
/// below `node`.
fn clique_rec(
    g: &maxclique::Graph,
    node: &CliqueNode,
    incumbent: &AtomicUsize,
    spawn_depth: usize,
) -> (Option<Vec<usize>>, u64) {
    if node.size() >= spawn_depth || node.is_leaf() {
        return maxclique::max_clique_from(g, node, incumbent);
    }
    // The children in the colour order (non-increasing bounds), built up front.
    let kids: Vec<(usize, CliqueNode)> = node.children(g).collect();
    kids.par_iter()
        .map(|(bound, child)| {
            if *bound <= incumbent.load(Ordering::Relaxed) {
                return (None, 0);
            }
            let (best, nodes) = clique_rec(g, child, incumbent, spawn_depth);
            (best, nodes + 1)
        })
        .reduce(
            || (None, 0),
            |(a, na), (b, nb)| {
                let best = match (a, b) {
                    (Some(a), Some(b)) => Some(if b.len() > a.len() { b } else { a }),
                    (a, b) => a.or(b),
                };
                (best, na + nb)
            },
        )
}

/// Max clique on `pool`: the children of nodes whose clique has fewer than `spawn_depth`
/// vertices are rayon tasks, pruned against a shared incumbent (an `AtomicUsize`) when they
/// start; below, the hand-written branch and bound of `max_clique_counted`
/// (`maxclique::max_clique_from`, re-reading the incumbent before each branch). Nodes
/// counted as `max_clique_counted` does (the root and every clique branched to); they vary
/// from run to run with the order the incumbent improves.
pub fn maxclique<'a>(clq: &'a Clique, pool: &'a rayon::ThreadPool, spawn_depth: usize) -> Job<'a> {
    Box::new(move || {
        let g = &clq.sorted;
        let t = Instant::now();
        let (best, nodes) = pool.install(|| {
            let incumbent = AtomicUsize::new(0);
            clique_rec(g, &CliqueNode::root(g), &incumbent, spawn_depth)
        });
        let time = t.elapsed();
        clq.check_sorted(&best.unwrap_or_default())?;
        Ok(Sample::new(time, Some(nodes + 1)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use magpie_apps::maxclique::Graph;

    fn pool() -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap()
    }

    #[test]
    fn ns_counts_every_genus_at_every_spawn_depth() {
        let pool = pool();
        let tree = ns::Tree::new(16).unwrap();
        let want: u64 = ns::EXPECTED_COUNTS[..=16].iter().sum();
        for d in [0, 1, 5, 15, 16, 30] {
            // The job checks every genus's count against the oracle.
            let s = ns(&tree, &pool, d)().unwrap();
            assert_eq!(s.nodes, Some(want), "spawn depth {d}");
        }
    }

    #[test]
    fn maxclique_finds_omega_at_every_spawn_depth() {
        let pool = pool();
        for seed in 1..4 {
            let graph = Graph::random(70, 0.6, seed);
            let (want, want_nodes) = maxclique::max_clique_counted(&graph);
            let (sorted, order) = graph.sorted_by_degree();
            let clq = Clique {
                name: format!("random {seed}"),
                graph,
                sorted,
                order,
                omega: want.len(),
            };
            for d in [0, 1, 2, 3, 100] {
                // The job checks the clique's size against omega and that it is a clique.
                let s = maxclique(&clq, &pool, d)().unwrap();
                if d == 0 {
                    // No task: max_clique_counted's search, node for node.
                    assert_eq!(s.nodes, Some(want_nodes), "seed {seed}");
                }
            }
        }
    }
}
