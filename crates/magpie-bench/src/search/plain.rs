//! Plain recursive solvers over the apps' own node generators: the baselines the `Sequential`
//! skeleton is compared with. They visit exactly the nodes the skeleton visits and count
//! them the same way (`SearchStats::expanded`), with none of its machinery (no task
//! wrapper, no stop flag, no shared counters, no atomic incumbent).

use magpie::search::{Enumerate, Objective, SearchSpace};
use magpie_apps::maxclique::{CliqueNode, Graph};

/// Folds `fold` over every node of `space` depth-first; returns the fold and the node count.
pub fn enumerate<S, E>(space: &S, fold: &E) -> (E::Acc, u64)
where
    S: SearchSpace,
    E: Enumerate<S>,
{
    fn walk<S: SearchSpace, E: Enumerate<S>>(
        space: &S,
        fold: &E,
        node: &S::Node,
        depth: usize,
        acc: &mut E::Acc,
        nodes: &mut u64,
    ) {
        fold.visit(acc, node, depth);
        *nodes += 1;
        for child in space.children(node) {
            walk(space, fold, &child, depth + 1, acc, nodes);
        }
    }
    let mut acc = fold.empty();
    let mut nodes = 0;
    walk(space, fold, &space.root(), 0, &mut acc, &mut nodes);
    (acc, nodes)
}

/// Depth-first branch and bound with the same rules as `magpie::search::optimise` on the
/// `Sequential` skeleton: a node whose bound does not beat the incumbent is pruned (with its
/// later siblings under `prune_level`); otherwise it is expanded and replaces the incumbent
/// if its objective is strictly better. Returns the best node found (if any beat `initial`)
/// and the number of expanded nodes.
pub fn optimise<S>(
    space: &S,
    prune_level: bool,
    initial: Option<i64>,
) -> (Option<(i64, S::Node)>, u64)
where
    S: Objective,
    S::Node: Clone,
{
    struct State<N> {
        best: i64,
        node: Option<(i64, N)>,
        expanded: u64,
        prune_level: bool,
    }
    fn visit<S: Objective>(space: &S, st: &mut State<S::Node>, node: &S::Node) -> bool
    where
        S::Node: Clone,
    {
        if space.bound(node) <= st.best {
            return false;
        }
        st.expanded += 1;
        let v = space.objective(node);
        if v > st.best {
            st.best = v;
            st.node = Some((v, node.clone()));
        }
        true
    }
    fn walk<S: Objective>(space: &S, st: &mut State<S::Node>, node: &S::Node)
    where
        S::Node: Clone,
    {
        for child in space.children(node) {
            if visit(space, st, &child) {
                walk(space, st, &child);
            } else if st.prune_level {
                break;
            }
        }
    }
    let mut st = State {
        best: initial.unwrap_or(i64::MIN),
        node: None,
        expanded: 0,
        prune_level,
    };
    let root = space.root();
    if visit(space, &mut st, &root) {
        walk(space, &mut st, &root);
    }
    (st.node, st.expanded)
}

/// A plain recursive maximum-clique branch and bound over [`CliqueNode::children`] (the
/// generator `CliqueSpace` wraps) on `g`, which must be the degree-sorted graph
/// (`Graph::sorted_by_degree`, as `CliqueSpace` uses): children come in non-increasing bound
/// order, and the first one whose bound does not beat the incumbent ends the node (prune at
/// the first failing bound). Returns a maximum clique (in `g`'s numbering) and the nodes
/// visited, the root included — the count `max_clique_counted` and the `Sequential` skeleton
/// (`expanded`) report.
pub fn max_clique(g: &Graph) -> (Vec<usize>, u64) {
    fn walk(g: &Graph, node: &CliqueNode, best: &mut Vec<usize>, nodes: &mut u64) {
        for (bound, child) in node.children(g) {
            if bound <= best.len() {
                break;
            }
            *nodes += 1;
            if child.size() > best.len() {
                *best = child.clique();
            }
            walk(g, &child, best, nodes);
        }
    }
    let mut best = Vec::new();
    let mut nodes = 1;
    walk(g, &CliqueNode::root(g), &mut best, &mut nodes);
    (best, nodes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use magpie::search::{self as engine, NodeCount, Options, Skeleton};
    use magpie_apps::{knapsack, maxclique, nqueens, tsp, uts};

    fn random_graph(n: usize, seed: u64) -> Graph {
        let r = magpie_apps::random_u64s(n * n, seed, 100);
        let edges: Vec<(usize, usize)> = (0..n)
            .flat_map(|u| (u + 1..n).map(move |v| (u, v)))
            .filter(|&(u, v)| r[u * n + v] < 60)
            .collect();
        Graph::from_edges(n, &edges)
    }

    #[test]
    fn enumerate_matches_the_sequential_skeleton() {
        let board = nqueens::Board::new(8).unwrap();
        let (solutions, nodes) = enumerate(&board, &nqueens::Solutions(8));
        assert_eq!(solutions, 92);
        let out = engine::enumerate(
            &board,
            &NodeCount,
            Skeleton::Sequential,
            &Options::default(),
        );
        assert_eq!((out.value, out.stats.expanded), (nodes, nodes));

        let p = uts::Params::from_flags("-t 1 -a 3 -d 6 -b 4 -r 19").unwrap();
        let (counts, nodes) = enumerate(&p, &uts::Tally(&p));
        assert_eq!(counts, uts::count(&p));
        assert_eq!(nodes, counts.nodes);
    }

    #[test]
    fn optimise_matches_the_sequential_skeleton_on_knapsack_and_tsp() {
        for seed in 0..5 {
            let v = magpie_apps::random_u64s(60, seed, 1000);
            let items: Vec<(u64, u64)> = v.chunks(2).map(|c| (c[0] + 1, c[1] + 1)).collect();
            let inst = knapsack::Instance::new(4000, &items).unwrap();
            let (best, nodes) = optimise(&inst, false, None);
            let out = engine::optimise(&inst, Skeleton::Sequential, &Options::default());
            assert_eq!(
                best.as_ref().unwrap().0,
                knapsack::solve_dp(&inst).profit as i64
            );
            assert_eq!(best.unwrap().0, out.value.unwrap().0);
            assert_eq!(nodes, out.stats.expanded);

            let n = 9;
            let d = magpie_apps::random_u64s(n * n, seed + 10, 100);
            let m: Vec<i64> = (0..n * n)
                .map(|k| {
                    let (i, j) = (k / n, k % n);
                    if i == j {
                        0
                    } else {
                        d[i.min(j) * n + i.max(j)] as i64 + 1
                    }
                })
                .collect();
            let t = tsp::Instance::from_matrix(n, m);
            let h = tsp::heuristic_tour(&t).length;
            let opts = Options {
                initial_bound: Some(-h),
                ..Options::default()
            };
            let (best, nodes) = optimise(&t, false, Some(-h));
            let out = engine::optimise(&t, Skeleton::Sequential, &opts);
            let len = |b: Option<i64>| b.map_or(h, |v| -v);
            let best = len(best.map(|b| b.0));
            assert_eq!(best, tsp::solve(&t).length);
            assert_eq!(best, len(out.value.map(|b| b.0)));
            assert_eq!(nodes, out.stats.expanded);
        }
    }

    #[test]
    fn max_clique_visits_the_nodes_of_the_references() {
        for seed in 0..5 {
            let g = random_graph(45, seed);
            let (sorted, order) = g.sorted_by_degree();
            let (clique, nodes) = max_clique(&sorted);
            let (want, want_nodes) = maxclique::max_clique_counted(&g);
            let mut ids: Vec<usize> = clique.iter().map(|&v| order[v] + 1).collect();
            ids.sort_unstable();
            assert!(maxclique::is_clique(&g, &ids));
            assert_eq!((ids.len(), nodes), (want.len(), want_nodes));
            let space = maxclique::CliqueSpace::new(&g);
            let opts = Options {
                prune_level: true,
                ..Options::default()
            };
            let out = engine::optimise(&space, Skeleton::Sequential, &opts);
            assert_eq!(out.value.unwrap().0, want.len() as i64);
            assert_eq!(out.stats.expanded, nodes);
        }
    }
}
