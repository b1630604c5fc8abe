//! Maximum independent set: the largest set of pairwise non-adjacent vertices of a graph
//! (its size is the independence number α).
//!
//! A set is independent in a graph exactly when it is a clique of the graph's complement,
//! so the search is the max-clique search ([`crate::maxclique::CliqueSpace`]: colouring
//! bound, McCreesh–Prosser order) on the complement, and the answer is checked against the
//! graph itself. `magpie search mis FILE` reads a DIMACS graph (`p edge` or `p col`).
//!
//! ```
//! use magpie_apps::maxclique::Graph;
//! use magpie_apps::mis::{is_independent, max_independent_set};
//!
//! // The 5-cycle 0-1-2-3-4-0: two vertices at most, not adjacent.
//! let c5 = Graph::from_edges(5, &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]);
//! let set = max_independent_set(&c5);
//! assert_eq!(set.len(), 2);
//! assert!(is_independent(&c5, &set));
//! assert!(!is_independent(&c5, &[1, 2]));
//! ```

mod app;

pub use app::APP;

use crate::maxclique::{max_clique_counted, CliqueSpace, Graph};

/// The search space of `g`'s independent sets: the cliques of its complement. A node's
/// set ([`CliqueSpace::clique`]) is given as 1-based ids of `g`.
///
/// ```
/// use magpie::search::{optimise, Options, Skeleton};
/// use magpie_apps::maxclique::Graph;
/// use magpie_apps::mis::space;
///
/// // A path of four vertices: {1, 3} or {2, 4} or {1, 4}, never three.
/// let s = space(&Graph::from_edges(4, &[(0, 1), (1, 2), (2, 3)]));
/// let (alpha, _) = optimise(&s, Skeleton::Sequential, &Options::default()).value.unwrap();
/// assert_eq!(alpha, 2);
/// ```
pub fn space(g: &Graph) -> CliqueSpace {
    CliqueSpace::new(&g.complement())
}

/// Whether `vertices` (1-based ids) are distinct, in range and pairwise non-adjacent in
/// `g`. The empty list is independent.
///
/// ```
/// use magpie_apps::maxclique::Graph;
/// use magpie_apps::mis::is_independent;
///
/// let g = Graph::from_edges(3, &[(0, 1)]);
/// assert!(is_independent(&g, &[1, 3]) && is_independent(&g, &[]));
/// assert!(!is_independent(&g, &[1, 2]) && !is_independent(&g, &[3, 3]));
/// assert!(!is_independent(&g, &[0]) && !is_independent(&g, &[4]));
/// ```
pub fn is_independent(g: &Graph, vertices: &[usize]) -> bool {
    vertices.iter().all(|&v| (1..=g.n()).contains(&v))
        && vertices.iter().enumerate().all(|(i, &u)| {
            vertices[i + 1..]
                .iter()
                .all(|&v| u != v && !g.adjacent(u - 1, v - 1))
        })
}

/// A maximum independent set of `g` (1-based ids, ascending) and the nodes the hand-written
/// sequential branch and bound visited ([`max_clique_counted`] on the complement, the same
/// tree as the search space's `Sequential` skeleton).
///
/// ```
/// use magpie_apps::maxclique::Graph;
/// use magpie_apps::mis::max_independent_set_counted;
///
/// let (set, nodes) = max_independent_set_counted(&Graph::new(3));
/// assert_eq!(set, [1, 2, 3]);
/// assert!(nodes >= 4);
/// ```
pub fn max_independent_set_counted(g: &Graph) -> (Vec<usize>, u64) {
    max_clique_counted(&g.complement())
}

/// A maximum independent set of `g`, as [`max_independent_set_counted`].
pub fn max_independent_set(g: &Graph) -> Vec<usize> {
    max_independent_set_counted(g).0
}

#[cfg(test)]
mod tests {
    use super::*;
    use magpie::search::{optimise, Options, Skeleton};

    /// α by trying every subset (n ≤ 16): the oracle the searches are checked against.
    fn brute_alpha(g: &Graph) -> usize {
        let n = g.n();
        (0u32..1 << n)
            .filter(|&s| {
                (0..n).all(|u| {
                    s & (1 << u) == 0 || (u + 1..n).all(|v| s & (1 << v) == 0 || !g.adjacent(u, v))
                })
            })
            .map(|s| s.count_ones() as usize)
            .max()
            .unwrap_or(0)
    }

    /// The Kneser graph K(n, k): the k-subsets of 0..n, adjacent when disjoint.
    fn kneser(n: u32, k: u32) -> Graph {
        let sets: Vec<u32> = (0u32..1 << n).filter(|s| s.count_ones() == k).collect();
        let mut g = Graph::new(sets.len());
        for (i, a) in sets.iter().enumerate() {
            for (j, b) in sets.iter().enumerate().skip(i + 1) {
                if a & b == 0 {
                    g.add_edge(i, j);
                }
            }
        }
        g
    }

    fn alpha_by_skeletons(g: &Graph) -> usize {
        let s = space(g);
        let pool = magpie::ThreadPoolBuilder::new()
            .num_workers(2)
            .build()
            .unwrap();
        let opts = Options {
            prune_level: true,
            ..Options::default()
        };
        let mut alphas = Vec::new();
        for sk in [
            Skeleton::Sequential,
            Skeleton::DepthBounded { spawn_depth: 2 },
            Skeleton::StackStealing { steal_all: false },
        ] {
            let (alpha, node) = pool.install(|| optimise(&s, sk, &opts)).value.unwrap();
            let set = s.clique(&node);
            assert!(is_independent(g, &set), "{sk:?}: {set:?}");
            assert_eq!(set.len() as i64, alpha);
            alphas.push(set.len());
        }
        assert!(alphas.windows(2).all(|w| w[0] == w[1]), "{alphas:?}");
        alphas[0]
    }

    #[test]
    fn random_graphs_match_brute_force() {
        for seed in 0..12 {
            for density in [0.2, 0.5, 0.8] {
                let g = Graph::random(14, density, seed);
                let alpha = brute_alpha(&g);
                let (set, _) = max_independent_set_counted(&g);
                assert!(is_independent(&g, &set));
                assert_eq!(set.len(), alpha, "seed {seed}, density {density}");
                assert_eq!(
                    alpha_by_skeletons(&g),
                    alpha,
                    "seed {seed}, density {density}"
                );
            }
        }
    }

    #[test]
    fn known_independence_numbers() {
        // Petersen graph = K(5, 2): α = 4; Erdős–Ko–Rado: α(K(n, k)) = C(n-1, k-1).
        assert_eq!(alpha_by_skeletons(&kneser(5, 2)), 4);
        assert_eq!(alpha_by_skeletons(&kneser(7, 3)), 15);
        assert_eq!(alpha_by_skeletons(&kneser(8, 3)), 21);
        // Cycles: ⌊n/2⌋; the empty graph: n; the complete graph: 1.
        for n in 3..12 {
            let edges: Vec<_> = (0..n).map(|i| (i, (i + 1) % n)).collect();
            assert_eq!(alpha_by_skeletons(&Graph::from_edges(n, &edges)), n / 2);
        }
        assert_eq!(alpha_by_skeletons(&Graph::new(9)), 9);
        assert_eq!(alpha_by_skeletons(&Graph::new(9).complement()), 1);
    }

    #[test]
    fn complement_of_a_dimacs_graph_has_its_clique_number() {
        // α(complement of G) = ω(G): brock200_4's ω is 17 (tests/data/README.md).
        let g = crate::maxclique::read_dimacs(crate::testdata::path("dimacs/brock200_4.clq"))
            .unwrap()
            .complement();
        let (set, _) = max_independent_set_counted(&g);
        assert_eq!(set.len(), 17);
        assert!(is_independent(&g, &set));
    }
}
