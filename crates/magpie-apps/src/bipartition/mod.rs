//! Graph bipartitioning by branch and bound (optimisation): split the vertices of an
//! undirected graph into two halves of sizes `⌊n/2⌋` and `⌈n/2⌉` with the fewest edges
//! between them — the computation-bound benchmark of the Pheet thesis (§3.3: Erdős–Rényi
//! graphs, `n = 35`, `p = 0.9`; "in each step one single node is assigned to one of the
//! sets for each branch").
//!
//! The thesis' graphs are weighted; magpie's are unweighted (every edge weighs 1), so that
//! the DIMACS files of `maxclique` are inputs too ([`crate::maxclique::read_dimacs`]) and
//! generated graphs are [`Graph::random`]'s `G(n, p)`. Up to [`MAX_VERTICES`] vertices (a
//! side is a `u64` mask; an exact bipartition of more is far beyond a branch and bound).
//!
//! The search ([`Instance`], a [`magpie::search::SearchSpace`]): vertices are decided in
//! non-increasing degree order; a node assigns the next vertex to side A or side B, the
//! side to which it adds fewer cut edges first; when a side is full, the rest go to the
//! other side at once. With `n` even the first vertex is put in A (the halves are
//! interchangeable). Bound: the cut so far plus, for every undecided vertex, the smaller
//! of its edge counts to A and to B (those edges are distinct, and each vertex cuts at
//! least that many wherever it goes) — strengthened in two ways ([`Instance::lower_bound`]):
//! the undecided vertices must fill the sides' remaining room exactly (so the cheapest
//! placement with those counts, found by sorting the vertices by the difference of their
//! two costs), and a vertex that joins a side with room `r` keeps at most `r - 1` of its
//! undecided neighbours with it (so at least the rest of those edges are cut; counted
//! from one side, the larger of the two ways). Minimising the cut is maximising its
//! negation.
//!
//! ```
//! use magpie::search::{optimise, Options, Skeleton};
//! use magpie_apps::bipartition::{brute_force_cut, Instance};
//! use magpie_apps::maxclique::Graph;
//!
//! // Two triangles joined by one edge: the halves are the triangles, cut 1.
//! let g = Graph::from_edges(6, &[(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5), (2, 3)]);
//! let inst = Instance::new(&g).unwrap();
//! let (value, node) = optimise(&inst, Skeleton::Sequential, &Options::default()).value.unwrap();
//! assert_eq!(value, -1);
//! let mut a = inst.side_a(&node);
//! a.sort();
//! assert!(a == [0, 1, 2] || a == [3, 4, 5]);
//! assert_eq!(brute_force_cut(&g), Some(1));
//! ```

use serde::{Deserialize, Serialize};

use crate::maxclique::Graph;

mod app;
pub use app::APP;

/// The most vertices of an instance.
pub const MAX_VERTICES: usize = 64;

/// A graph to bipartition, its vertices renumbered in decision order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    /// Decision position → the graph's vertex.
    order: Vec<usize>,
    /// Neighbours of each position, as a mask of positions.
    adj: Vec<u64>,
    /// The size of side A, `⌊n/2⌋`.
    size_a: u32,
    /// The size of side B, `⌈n/2⌉`.
    size_b: u32,
}

/// A node: the positions decided so far (`0..depth`), each in side A or B, and the edges
/// cut between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    /// The positions decided (`0..depth`).
    pub depth: u32,
    /// The positions in side A.
    pub a: u64,
    /// The positions in side B.
    pub b: u64,
    /// Edges between A and B.
    pub cut: u32,
}

impl Instance {
    /// The instance of `g`: an error if it has more than [`MAX_VERTICES`] vertices.
    ///
    /// ```
    /// use magpie_apps::{bipartition::Instance, maxclique::Graph};
    /// assert_eq!(Instance::new(&Graph::new(5)).unwrap().n(), 5);
    /// assert!(Instance::new(&Graph::new(65)).is_err());
    /// ```
    pub fn new(g: &Graph) -> Result<Instance, String> {
        let n = g.n();
        if n > MAX_VERTICES {
            return Err(format!(
                "the graph has {n} vertices; bipartition takes at most {MAX_VERTICES}"
            ));
        }
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&v| (std::cmp::Reverse(g.degree(v)), v));
        let mut position = vec![0; n];
        for (p, &v) in order.iter().enumerate() {
            position[v] = p;
        }
        let adj = order
            .iter()
            .map(|&v| {
                g.neighbours(v)
                    .iter()
                    .fold(0u64, |m, u| m | 1 << position[u])
            })
            .collect();
        Ok(Instance {
            order,
            adj,
            size_a: (n / 2) as u32,
            size_b: n.div_ceil(2) as u32,
        })
    }

    /// The number of vertices.
    pub fn n(&self) -> usize {
        self.order.len()
    }

    /// The graph's vertices (0-based) in side A of `node`, ascending.
    pub fn side_a(&self, node: &Node) -> Vec<usize> {
        let mut v: Vec<usize> = (0..self.n())
            .filter(|&p| node.a >> p & 1 == 1)
            .map(|p| self.order[p])
            .collect();
        v.sort_unstable();
        v
    }

    /// A lower bound on the edges any completion of `node` cuts (see the module doc): its
    /// cut, plus the cheapest way to place the undecided vertices with the sides' remaining
    /// room, each vertex costing its edges to the other side's decided vertices and, on the
    /// side counted, the edges to undecided vertices that cannot all join it. Never below
    /// the cut plus, per undecided vertex, the smaller of its edge counts to A and to B.
    ///
    /// ```
    /// use magpie::search::SearchSpace;
    /// use magpie_apps::{bipartition::Instance, maxclique::Graph};
    /// // K4: every balanced split cuts 2 · 2 = 4 edges, and the root's bound says so.
    /// let inst = Instance::new(&Graph::random(4, 1.0, 1)).unwrap();
    /// assert_eq!(inst.lower_bound(&inst.root()), 4);
    /// ```
    pub fn lower_bound(&self, node: &Node) -> u32 {
        let n = self.n();
        let first = node.depth as usize;
        let k = n - first;
        if k == 0 {
            return node.cut;
        }
        let room_a = self.size_a - node.a.count_ones();
        let room_b = self.size_b - node.b.count_ones();
        let undecided = !(node.a | node.b) & (u64::MAX >> (64 - n));
        // Edges among the undecided vertices, counted from side A (`from_a`) or from B: a
        // vertex joining a side of `room` undecided vertices has at most `room - 1` of its
        // undecided neighbours with it, so at least the rest across.
        let cheapest = |from_a: bool| {
            let mut base = 0u32;
            let mut diffs = [0i32; MAX_VERTICES];
            for (i, p) in (first..n).enumerate() {
                let m = self.adj[p];
                let (to_a, to_b) = ((m & node.b).count_ones(), (m & node.a).count_ones());
                let across = |room: u32| {
                    (m & undecided)
                        .count_ones()
                        .saturating_sub(room.saturating_sub(1))
                };
                let (cost_a, cost_b) = if from_a {
                    (to_a + across(room_a), to_b)
                } else {
                    (to_a, to_b + across(room_b))
                };
                base += cost_b;
                diffs[i] = cost_a as i32 - cost_b as i32;
            }
            let diffs = &mut diffs[..k];
            diffs.sort_unstable();
            // The `room_a` vertices cheapest to move from B to A go to A.
            (base as i32 + diffs[..room_a as usize].iter().sum::<i32>()) as u32
        };
        node.cut + cheapest(true).max(cheapest(false))
    }

    /// `node` with position `node.depth` in side A (`to_a`) or B; then, if that side is
    /// full, every undecided position in the other side.
    fn assign(&self, node: &Node, to_a: bool) -> Node {
        let p = node.depth as usize;
        let mut c = *node;
        let m = self.adj[p];
        if to_a {
            c.a |= 1 << p;
            c.cut += (m & node.b).count_ones();
        } else {
            c.b |= 1 << p;
            c.cut += (m & node.a).count_ones();
        }
        c.depth += 1;
        let full_a = c.a.count_ones() == self.size_a;
        let full_b = c.b.count_ones() == self.size_b;
        if (full_a || full_b) && (c.depth as usize) < self.n() {
            for q in c.depth as usize..self.n() {
                let m = self.adj[q];
                if full_a {
                    c.b |= 1 << q;
                    c.cut += (m & c.a).count_ones();
                } else {
                    c.a |= 1 << q;
                    c.cut += (m & c.b).count_ones();
                }
            }
            c.depth = self.n() as u32;
        }
        c
    }

    /// The children of `node`: the next position in the side where it cuts fewer edges
    /// first (A on a tie); only A for the first position when the halves are equal.
    fn kids(&self, node: &Node) -> [Option<Node>; 2] {
        let p = node.depth as usize;
        if p >= self.n() {
            return [None, None];
        }
        if p == 0 && self.size_a == self.size_b {
            return [Some(self.assign(node, true)), None];
        }
        let m = self.adj[p];
        let a_first = (m & node.b).count_ones() <= (m & node.a).count_ones();
        [
            Some(self.assign(node, a_first)),
            Some(self.assign(node, !a_first)),
        ]
    }
}

/// The children of a [`Node`].
pub type Children = std::iter::Flatten<std::array::IntoIter<Option<Node>, 2>>;

/// The search tree (see the module doc); the objective of a complete node is `-cut`, of any
/// other `i64::MIN`, the bound `-`[`Instance::lower_bound`]. Children are not in bound
/// order: do not use prune-level.
impl magpie::search::SearchSpace for Instance {
    type Node = Node;
    type Children<'a> = Children;

    fn root(&self) -> Node {
        Node {
            depth: 0,
            a: 0,
            b: 0,
            cut: 0,
        }
    }

    fn children(&self, node: &Node) -> Children {
        self.kids(node).into_iter().flatten()
    }

    fn is_leaf(&self, node: &Node) -> bool {
        node.depth as usize >= self.n()
    }
}

impl magpie::search::Objective for Instance {
    fn objective(&self, node: &Node) -> i64 {
        if node.depth as usize >= self.n() {
            -i64::from(node.cut)
        } else {
            i64::MIN
        }
    }

    fn bound(&self, node: &Node) -> i64 {
        -i64::from(self.lower_bound(node))
    }
}

/// The edges of `g` between `side_a` (vertices, 0-based) and the other vertices, and
/// whether the sides are balanced (`side_a` has `⌊n/2⌋` distinct vertices of `g`).
///
/// ```
/// use magpie_apps::{bipartition::cut_of, maxclique::Graph};
/// let g = Graph::from_edges(4, &[(0, 1), (1, 2), (2, 3)]);
/// assert_eq!(cut_of(&g, &[0, 1]), (1, true));
/// assert_eq!(cut_of(&g, &[0, 2]), (3, true));
/// assert_eq!(cut_of(&g, &[0]), (1, false));
/// ```
pub fn cut_of(g: &Graph, side_a: &[usize]) -> (usize, bool) {
    let n = g.n();
    let mut in_a = vec![false; n];
    let mut distinct = 0;
    for &v in side_a {
        if v < n && !in_a[v] {
            in_a[v] = true;
            distinct += 1;
        }
    }
    let balanced = distinct == side_a.len() && distinct == n / 2;
    let cut = (0..n)
        .filter(|&v| in_a[v])
        .map(|v| g.neighbours(v).iter().filter(|&u| !in_a[u]).count())
        .sum();
    (cut, balanced)
}

/// The minimum cut over every balanced bipartition, by trying each `⌊n/2⌋`-subset: the
/// oracle of the tests and of `magpie search bipartition` on graphs of at most
/// [`BRUTE_FORCE_MAX`] vertices (`None` above).
pub fn brute_force_cut(g: &Graph) -> Option<usize> {
    let n = g.n();
    if n > BRUTE_FORCE_MAX {
        return None;
    }
    let adj: Vec<u32> = (0..n)
        .map(|v| g.neighbours(v).iter().fold(0u32, |m, u| m | 1 << u))
        .collect();
    let k = n / 2;
    let full: u64 = (1u64 << n) - 1;
    let mut best = usize::MAX;
    // Every k-subset of 0..n in increasing order (Gosper's hack); k = 0 is the empty set.
    let mut s: u64 = (1u64 << k) - 1;
    while s <= full {
        let rest = (!s & full) as u32;
        let cut: u32 = (0..n)
            .filter(|&v| s >> v & 1 == 1)
            .map(|v| (adj[v] & rest).count_ones())
            .sum();
        best = best.min(cut as usize);
        if s == 0 {
            break;
        }
        let c = s & s.wrapping_neg();
        let r = s + c;
        s = (((r ^ s) >> 2) / c) | r;
    }
    Some(best)
}

/// The most vertices [`brute_force_cut`] takes.
pub const BRUTE_FORCE_MAX: usize = 20;

#[cfg(test)]
mod tests {
    use super::*;
    use magpie::search::{optimise, Options, Skeleton, TaskOrder};

    fn optimum(g: &Graph, workers: usize, skeleton: Skeleton) -> (usize, Vec<usize>) {
        let inst = Instance::new(g).unwrap();
        let pool = magpie::ThreadPoolBuilder::new()
            .num_workers(workers)
            .build()
            .unwrap();
        let (v, node) = pool
            .install(|| optimise(&inst, skeleton, &Options::default()))
            .value
            .unwrap();
        assert_eq!(node.depth as usize, g.n());
        ((-v) as usize, inst.side_a(&node))
    }

    #[test]
    fn optima_equal_brute_force_on_random_graphs() {
        let skeletons = [
            Skeleton::Sequential,
            Skeleton::DepthBounded { spawn_depth: 3 },
            Skeleton::Budget { backtracks: 50 },
            Skeleton::StackStealing { steal_all: false },
            Skeleton::Ordered {
                spawn_depth: 2,
                order: TaskOrder::Discrepancy,
            },
        ];
        for (n, p, seed) in [
            (2, 1.0, 1),
            (3, 0.5, 2),
            (9, 0.5, 3),
            (12, 0.3, 4),
            (14, 0.9, 5),
            (16, 0.5, 6),
            (17, 0.7, 7),
            (18, 0.2, 8),
        ] {
            let g = Graph::random(n, p, seed);
            let want = brute_force_cut(&g).unwrap();
            for workers in [1, 2, 4] {
                for sk in skeletons {
                    let (cut, a) = optimum(&g, workers, sk);
                    assert_eq!(cut, want, "n {n} p {p} seed {seed} {sk} on {workers}");
                    assert_eq!(cut_of(&g, &a), (want, true), "n {n} seed {seed}");
                }
            }
        }
    }

    #[test]
    fn brute_force_on_known_graphs() {
        // A 4-cycle: 2; a complete graph K6: 3 · 3 = 9; a star with 5 leaves: 3 (the centre
        // with two leaves, three leaves apart); no edges: 0.
        let cycle = Graph::from_edges(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]);
        assert_eq!(brute_force_cut(&cycle), Some(2));
        assert_eq!(brute_force_cut(&Graph::random(6, 1.0, 1)), Some(9));
        let star = Graph::from_edges(6, &[(0, 1), (0, 2), (0, 3), (0, 4), (0, 5)]);
        assert_eq!(brute_force_cut(&star), Some(3));
        assert_eq!(brute_force_cut(&Graph::new(7)), Some(0));
        assert_eq!(brute_force_cut(&Graph::new(21)), None);
        for g in [cycle, star] {
            assert_eq!(
                optimum(&g, 2, Skeleton::Sequential).0,
                brute_force_cut(&g).unwrap()
            );
        }
    }

    #[test]
    fn a_dimacs_file_through_the_registry() {
        use crate::registry::{AppArgs, AppError, Engine, Run};
        // Two triangles joined by the edge 3–4 (1-based): the halves are the triangles.
        let path =
            std::env::temp_dir().join(format!("magpie-bipartition-{}.clq", std::process::id()));
        std::fs::write(
            &path,
            "c two triangles\np edge 6 7\ne 1 2\ne 2 3\ne 1 3\ne 4 5\ne 5 6\ne 4 6\ne 3 4\n",
        )
        .unwrap();
        let inst = (APP.load)(&AppArgs::new(Some(path.clone()))).unwrap();
        let pool = magpie::ThreadPoolBuilder::new()
            .num_workers(2)
            .build()
            .unwrap();
        let s = inst
            .solve(Run::new(
                &Engine::Pool(&pool),
                Skeleton::DepthBounded { spawn_depth: 2 },
                &Options::default(),
            ))
            .unwrap()
            .unwrap();
        assert_eq!(s.answer.key, "cut 1");
        assert!(s.check.contains("by trying every split"), "{}", s.check);
        let both = AppArgs::new(Some(path.clone())).with("--n", Some("6"));
        let e = (APP.load)(&both).err().unwrap();
        assert!(
            matches!(&e, AppError::Usage(m) if m.contains("FILE or --n N, not both")),
            "{e}"
        );
        std::fs::remove_file(&path).unwrap();
    }

    /// The smallest cut of a completion of `node`, by walking its whole subtree, checking
    /// on the way that every node's bound is admissible and at least the simple bound.
    fn best_completion(inst: &Instance, node: &Node) -> u32 {
        use magpie::search::SearchSpace;
        let best = if inst.is_leaf(node) {
            node.cut
        } else {
            inst.children(node)
                .map(|c| best_completion(inst, &c))
                .min()
                .unwrap()
        };
        let bound = inst.lower_bound(node);
        let simple = node.cut
            + (node.depth as usize..inst.n())
                .map(|p| {
                    let m = inst.adj[p];
                    (m & node.a).count_ones().min((m & node.b).count_ones())
                })
                .sum::<u32>();
        assert!(
            simple <= bound && bound <= best,
            "{node:?}: {simple} {bound} {best}"
        );
        best
    }

    #[test]
    fn the_bound_is_admissible_at_every_node() {
        for (n, p, seed) in [
            (8, 0.5, 1),
            (11, 0.9, 2),
            (12, 0.5, 9),
            (13, 0.3, 4),
            (12, 1.0, 5),
        ] {
            let g = Graph::random(n, p, seed);
            let inst = Instance::new(&g).unwrap();
            use magpie::search::SearchSpace;
            let best = best_completion(&inst, &inst.root());
            assert_eq!(
                best as usize,
                brute_force_cut(&g).unwrap(),
                "n {n} seed {seed}"
            );
        }
        // K_n: every balanced split cuts ⌊n/2⌋·⌈n/2⌉ edges, and the root's bound is exact.
        let inst = Instance::new(&Graph::random(9, 1.0, 1)).unwrap();
        use magpie::search::SearchSpace;
        assert_eq!(inst.lower_bound(&inst.root()), 20);
    }
}
