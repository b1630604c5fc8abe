//! Plain recursive searches over an application's own search space: the baseline that
//! `magpie-bench search` compares the `Sequential` skeleton with ([`Engine::Plain`]). They
//! visit exactly the nodes the `Sequential` skeleton visits, with the same pruning rules, and
//! count them the same way (`SearchStats::expanded`), with none of its machinery (no task
//! wrapper, no stop flag, no shared counters, no atomic incumbent).
//!
//! [`Engine::Plain`]: super::Engine::Plain

use std::time::Instant;

use magpie::search::{Enumerate, Objective, Options, Outcome, SearchSpace, SearchStats};

/// The outcome of a search outside magpie's engines (plain, rayon) that took since `start`
/// and expanded `expanded` nodes.
pub(crate) fn outcome<T>(value: T, expanded: u64, start: Instant) -> Outcome<T> {
    Outcome {
        value,
        stats: SearchStats {
            expanded,
            time: start.elapsed(),
            ..SearchStats::default()
        },
    }
}

/// Folds `fold` over every node of `space` depth-first (nodes at `opts.max_depth` are
/// visited, not expanded, as in `magpie::search`).
///
/// ```
/// use magpie::search::{NodeCount, Options};
/// use magpie_apps::{nqueens::Board, registry::plain};
///
/// let out = plain::enumerate(&Board::new(6).unwrap(), &NodeCount, &Options::default());
/// assert_eq!(out.value, out.stats.expanded);
/// ```
pub fn enumerate<S, E>(space: &S, fold: &E, opts: &Options) -> Outcome<E::Acc>
where
    S: SearchSpace + ?Sized,
    E: Enumerate<S>,
{
    struct Walk<'a, S: SearchSpace + ?Sized, E: Enumerate<S>> {
        space: &'a S,
        fold: &'a E,
        max_depth: Option<usize>,
        acc: E::Acc,
        nodes: u64,
    }
    impl<S: SearchSpace + ?Sized, E: Enumerate<S>> Walk<'_, S, E> {
        fn walk(&mut self, node: &S::Node, depth: usize) {
            self.fold.visit(&mut self.acc, node, depth);
            self.nodes += 1;
            if self.max_depth.is_some_and(|m| depth >= m) {
                return;
            }
            for child in self.space.children(node) {
                self.walk(&child, depth + 1);
            }
        }
    }
    let start = Instant::now();
    let mut w = Walk {
        space,
        fold,
        max_depth: opts.max_depth,
        acc: fold.empty(),
        nodes: 0,
    };
    w.walk(&space.root(), 0);
    outcome(w.acc, w.nodes, start)
}

/// Depth-first branch and bound with the rules of `magpie::search::optimise` on the
/// `Sequential` skeleton: a node whose bound does not beat the incumbent (at first
/// `opts.initial_bound`) is pruned, with its later siblings under `opts.prune_level`;
/// otherwise it is expanded and replaces the incumbent if its objective is strictly better.
/// The value is the best node found, if any beat the initial bound.
pub fn optimise<S>(space: &S, opts: &Options) -> Outcome<Option<(i64, S::Node)>>
where
    S: Objective + ?Sized,
    S::Node: Clone,
{
    struct Walk<'a, S: Objective + ?Sized> {
        space: &'a S,
        best: i64,
        node: Option<(i64, S::Node)>,
        expanded: u64,
        prune_level: bool,
    }
    impl<S: Objective + ?Sized> Walk<'_, S>
    where
        S::Node: Clone,
    {
        fn visit(&mut self, node: &S::Node) -> bool {
            if self.space.bound(node) <= self.best {
                return false;
            }
            self.expanded += 1;
            let v = self.space.objective(node);
            if v > self.best {
                self.best = v;
                self.node = Some((v, node.clone()));
            }
            true
        }
        fn walk(&mut self, node: &S::Node) {
            for child in self.space.children(node) {
                if self.visit(&child) {
                    self.walk(&child);
                } else if self.prune_level {
                    break;
                }
            }
        }
    }
    let start = Instant::now();
    let mut w = Walk {
        space,
        best: opts.initial_bound.unwrap_or(i64::MIN),
        node: None,
        expanded: 0,
        prune_level: opts.prune_level,
    };
    let root = space.root();
    if w.visit(&root) {
        w.walk(&root);
    }
    outcome(w.node, w.expanded, start)
}

/// Depth-first decision with the rules of `magpie::search::decide` on the `Sequential`
/// skeleton: the first node whose objective reaches `target` ends the search (it is found,
/// not expanded); a node whose bound is below `target` is pruned (with its later siblings
/// under `opts.prune_level`); the others are expanded. Where no node reaches `target`,
/// the nodes expanded are the skeleton's; after a find, the skeleton counts the siblings it
/// visits before it notices the stop, which this search never visits.
pub fn decide<S>(space: &S, target: i64, opts: &Options) -> Outcome<Option<S::Node>>
where
    S: Objective + ?Sized,
    S::Node: Clone,
{
    struct Walk<'a, S: Objective + ?Sized> {
        space: &'a S,
        target: i64,
        found: Option<S::Node>,
        expanded: u64,
        prune_level: bool,
    }
    /// What a visit decided.
    enum Seen {
        Found,
        Pruned,
        Expand,
    }
    impl<S: Objective + ?Sized> Walk<'_, S>
    where
        S::Node: Clone,
    {
        fn visit(&mut self, node: &S::Node) -> Seen {
            if self.space.objective(node) >= self.target {
                self.found = Some(node.clone());
                return Seen::Found;
            }
            if self.space.bound(node) < self.target {
                return Seen::Pruned;
            }
            self.expanded += 1;
            Seen::Expand
        }
        /// Whether the search is over (a node was found).
        fn walk(&mut self, node: &S::Node) -> bool {
            for child in self.space.children(node) {
                match self.visit(&child) {
                    Seen::Found => return true,
                    Seen::Pruned if self.prune_level => break,
                    Seen::Pruned => {}
                    Seen::Expand => {
                        if self.walk(&child) {
                            return true;
                        }
                    }
                }
            }
            false
        }
    }
    let start = Instant::now();
    let mut w = Walk {
        space,
        target,
        found: None,
        expanded: 0,
        prune_level: opts.prune_level,
    };
    let root = space.root();
    if let Seen::Expand = w.visit(&root) {
        w.walk(&root);
    }
    outcome(w.found, w.expanded, start)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::maxclique::{self, CliqueSpace, Graph};
    use crate::registry::level_pruned;
    use crate::{knapsack, nqueens, tsp, uts};
    use magpie::search::{self as engine, NodeCount, Skeleton};

    /// Five random graphs of `n` vertices (seeds 0..5) and their clique spaces.
    fn clique_spaces(n: usize) -> impl Iterator<Item = (u64, Graph, CliqueSpace)> {
        (0..5).map(move |seed| {
            let g = random_graph(n, seed);
            let space = CliqueSpace::new(&g);
            (seed, g, space)
        })
    }

    fn random_graph(n: usize, seed: u64) -> Graph {
        let r = crate::random_u64s(n * n, seed, 100);
        let edges: Vec<(usize, usize)> = (0..n)
            .flat_map(|u| (u + 1..n).map(move |v| (u, v)))
            .filter(|&(u, v)| r[u * n + v] < 60)
            .collect();
        Graph::from_edges(n, &edges)
    }

    #[test]
    fn enumerate_matches_the_sequential_skeleton() {
        let opts = Options::default();
        let board = nqueens::Board::new(8).unwrap();
        let out = enumerate(&board, &nqueens::Solutions(8), &opts);
        assert_eq!(out.value, 92);
        let nodes = out.stats.expanded;
        let out = engine::enumerate(&board, &NodeCount, Skeleton::Sequential, &opts);
        assert_eq!((out.value, out.stats.expanded), (nodes, nodes));

        let p = uts::Params::from_flags("-t 1 -a 3 -d 6 -b 4 -r 19").unwrap();
        let out = enumerate(&p, &uts::Tally(&p), &opts);
        assert_eq!(out.value, uts::count(&p));
        assert_eq!(out.stats.expanded, out.value.nodes);

        // A depth limit as magpie's: nodes at max_depth are visited, not expanded.
        let cut = Options {
            max_depth: Some(3),
            ..Options::default()
        };
        let want = engine::enumerate(&board, &NodeCount, Skeleton::Sequential, &cut);
        let got = enumerate(&board, &NodeCount, &cut);
        assert_eq!(
            (got.value, got.stats.expanded),
            (want.value, want.stats.expanded)
        );
    }

    #[test]
    fn optimise_matches_the_sequential_skeleton_on_knapsack_and_tsp() {
        for seed in 0..5 {
            let v = crate::random_u64s(60, seed, 1000);
            let items: Vec<(u64, u64)> = v.chunks(2).map(|c| (c[0] + 1, c[1] + 1)).collect();
            let inst = knapsack::Instance::new(4000, &items).unwrap();
            let got = optimise(&inst, &Options::default());
            let out = engine::optimise(&inst, Skeleton::Sequential, &Options::default());
            let best = got.value.as_ref().unwrap().0;
            assert_eq!(best, knapsack::solve_dp(&inst).profit as i64);
            assert_eq!(best, out.value.unwrap().0);
            assert_eq!(got.stats.expanded, out.stats.expanded);

            let n = 9;
            let d = crate::random_u64s(n * n, seed + 10, 100);
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
            let got = optimise(&t, &opts);
            let out = engine::optimise(&t, Skeleton::Sequential, &opts);
            let len = |b: Option<i64>| b.map_or(h, |v| -v);
            let best = len(got.value.map(|b| b.0));
            assert_eq!(best, tsp::solve(&t).length);
            assert_eq!(best, len(out.value.map(|b| b.0)));
            assert_eq!(got.stats.expanded, out.stats.expanded);
        }
    }

    #[test]
    fn max_clique_visits_the_nodes_of_the_hand_written_solver() {
        let opts = level_pruned(&Options::default());
        for (_, g, space) in clique_spaces(45) {
            let got = optimise(&space, &opts);
            let (want, want_nodes) = maxclique::max_clique_counted(&g);
            let clique = space.clique(&got.value.unwrap().1);
            assert!(maxclique::is_clique(&g, &clique));
            assert_eq!((clique.len(), got.stats.expanded), (want.len(), want_nodes));
            let out = engine::optimise(&space, Skeleton::Sequential, &opts);
            assert_eq!(out.stats.expanded, want_nodes);
        }
    }

    #[test]
    fn decide_matches_the_sequential_skeleton() {
        let opts = level_pruned(&Options::default());
        for (seed, g, space) in clique_spaces(40) {
            let omega = maxclique::max_clique_counted(&g).0.len() as i64;
            for target in [omega, omega + 1] {
                let got = decide(&space, target, &opts);
                let out = engine::decide(&space, target, Skeleton::Sequential, &opts);
                assert_eq!(got.value.is_some(), target == omega);
                assert_eq!(out.value.is_some(), target == omega);
                if got.value.is_none() {
                    // The whole tree: the same nodes. (After a find the skeleton visits
                    // some more siblings before it notices the stop: no count to compare.)
                    assert_eq!(got.stats.expanded, out.stats.expanded, "seed {seed}");
                }
            }
        }
    }
}
