//! Maximum clique written on rayon as a rayon user would: the children of nodes whose
//! clique has fewer than a spawn depth of vertices are rayon tasks, pruned against a shared
//! incumbent (an `AtomicUsize`) when they start; below, the hand-written branch and bound of
//! [`max_clique_counted`](super::max_clique_counted) ([`max_clique_from`], re-reading the
//! incumbent before each branch).

use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use super::{max_clique_from, CliqueNode, CliqueSpace, Graph};

/// The best clique (in `g`'s numbering) of the subtree of `node`, if one beats `incumbent`
/// when found, and the nodes branched to below `node`.
fn walk(
    g: &Graph,
    node: &CliqueNode,
    incumbent: &AtomicUsize,
    spawn_depth: usize,
) -> (Option<Vec<usize>>, u64) {
    if node.size() >= spawn_depth || node.is_leaf() {
        return max_clique_from(g, node, incumbent);
    }
    // The children in the colour order (non-increasing bounds), built up front.
    let kids: Vec<(usize, CliqueNode)> = node.children(g).collect();
    kids.par_iter()
        .map(|(bound, child)| {
            if *bound <= incumbent.load(Ordering::Relaxed) {
                return (None, 0);
            }
            let (best, nodes) = walk(g, child, incumbent, spawn_depth);
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

/// A maximum clique of `space`'s graph found on `pool` (ids of the input graph, 1-based,
/// ascending), and the nodes counted as `max_clique_counted` counts them (the root and
/// every clique branched to; they vary from run to run with the order the incumbent
/// improves).
pub(super) fn max_clique(
    space: &CliqueSpace,
    pool: &rayon::ThreadPool,
    spawn_depth: usize,
) -> (Vec<usize>, u64) {
    let g = &space.graph;
    let (best, nodes) = pool.install(|| {
        let incumbent = AtomicUsize::new(0);
        walk(g, &CliqueNode::root(g), &incumbent, spawn_depth)
    });
    let mut ids: Vec<usize> = best
        .unwrap_or_default()
        .into_iter()
        .map(|v| space.order[v] + 1)
        .collect();
    ids.sort_unstable();
    (ids, nodes + 1)
}

#[cfg(test)]
mod tests {
    use super::super::{is_clique, max_clique_counted};
    use super::*;

    #[test]
    fn finds_omega_at_every_spawn_depth() {
        let pool = crate::registry::rayon_pool(2);
        for seed in 1..4 {
            let graph = Graph::random(70, 0.6, seed);
            let (want, want_nodes) = max_clique_counted(&graph);
            let space = CliqueSpace::new(&graph);
            for d in [0, 1, 2, 3, 100] {
                let (clique, nodes) = max_clique(&space, &pool, d);
                assert_eq!(clique.len(), want.len(), "seed {seed} depth {d}");
                assert!(is_clique(&graph, &clique));
                if d == 0 {
                    // No task: max_clique_counted's search, node for node.
                    assert_eq!(nodes, want_nodes, "seed {seed}");
                }
            }
        }
    }
}
