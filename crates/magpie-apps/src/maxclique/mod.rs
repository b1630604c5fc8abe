//! Maximum clique: the domain layer (DIMACS reader, bitset graph, colouring bound, search
//! nodes) and a plain sequential branch-and-bound as the reference solver.
//!
//! The bound is the greedy sequential colouring of McCreesh–Prosser (MCS) and San Segundo
//! (BBMC), computed on bitset colour classes by [`colour_order`]: a branch explores the
//! candidate vertices from the back of the colour order and stops as soon as
//! `|clique| + colours[i]` cannot beat the incumbent.
//!
//! **Vertex numbering.** A [`Graph`] numbers its vertices `0..n` ([`Graph::adjacent`],
//! [`Graph::degree`], [`colour_order`], [`CliqueNode`]). The solver-level functions
//! [`max_clique`], [`max_clique_counted`], [`find_clique_of_size`] and [`is_clique`] speak in
//! the 1-based ids of the DIMACS file (`internal + 1`), sorted ascending.
//!
//! ```
//! use magpie_apps::maxclique::{is_clique, max_clique, parse_dimacs};
//! // The triangle 1-2-3 with a pendant vertex 4 on vertex 3.
//! let g = parse_dimacs("c example\np edge 4 4\ne 1 2\ne 2 3\ne 3 1\ne 3 4\n", "g.clq").unwrap();
//! let c = max_clique(&g);
//! assert_eq!(c, vec![1, 2, 3]);
//! assert!(is_clique(&g, &c));
//! ```

use crate::pool::Words;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicUsize, Ordering};

mod app;
#[cfg(feature = "rayon")]
mod rayon_peer;
pub(crate) use app::VertexSet;
pub use app::APP;

/// The largest `N` [`parse_dimacs`] accepts: the bitset adjacency matrix takes `N²/8` bytes
/// (512 MiB here) however short the file, so the reader checks a `p` line's `N` against this
/// limit before allocating, and a corrupt header cannot make it allocate without bound.
pub const MAX_VERTICES: usize = 1 << 16;

// ---------------------------------------------------------------------------------------------
// Bitset
// ---------------------------------------------------------------------------------------------

/// A fixed-capacity set of `0..capacity` stored as 64-bit words (bit `i % 64` of word `i / 64`).
///
/// ```
/// use magpie_apps::maxclique::Bitset;
/// let mut s = Bitset::new(100);
/// s.insert(3);
/// s.insert(70);
/// assert!(s.contains(70) && !s.contains(4));
/// assert_eq!(s.count(), 2);
/// assert_eq!(s.iter().collect::<Vec<_>>(), vec![3, 70]);
/// s.remove(3);
/// assert_eq!(s.first(), Some(70));
/// assert_eq!(Bitset::full(5).iter().collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Bitset {
    words: Vec<u64>,
    capacity: usize,
}

impl Bitset {
    /// The empty set over `0..capacity`.
    pub fn new(capacity: usize) -> Self {
        Bitset {
            words: vec![0; capacity.div_ceil(64)],
            capacity,
        }
    }

    /// The full set `0..capacity`.
    pub fn full(capacity: usize) -> Self {
        let mut s = Bitset {
            words: vec![u64::MAX; capacity.div_ceil(64)],
            capacity,
        };
        if !capacity.is_multiple_of(64) {
            if let Some(last) = s.words.last_mut() {
                *last = u64::MAX >> (64 - capacity % 64);
            }
        }
        s
    }

    /// The size of the universe `0..capacity` (not the number of members: see [`Bitset::count`]).
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The words, least significant bit first.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Adds `i`. Panics if `i >= capacity`.
    pub fn insert(&mut self, i: usize) {
        assert!(
            i < self.capacity,
            "bit {i} out of range 0..{}",
            self.capacity
        );
        self.words[i / 64] |= 1 << (i % 64);
    }

    /// Removes `i` (no effect if absent or out of range).
    pub fn remove(&mut self, i: usize) {
        if i < self.capacity {
            self.words[i / 64] &= !(1 << (i % 64));
        }
    }

    /// Whether `i` is a member (`false` when out of range).
    pub fn contains(&self, i: usize) -> bool {
        i < self.capacity && self.words[i / 64] >> (i % 64) & 1 == 1
    }

    /// The number of members.
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set has no members.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// The smallest member.
    pub fn first(&self) -> Option<usize> {
        self.words
            .iter()
            .enumerate()
            .find(|(_, &w)| w != 0)
            .map(|(k, w)| k * 64 + w.trailing_zeros() as usize)
    }

    /// `self ∩= other` (the sets must have the same capacity).
    pub fn intersect_with(&mut self, other: &Bitset) {
        debug_assert_eq!(self.capacity, other.capacity);
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a &= b;
        }
    }

    /// `self ∖= other` (the sets must have the same capacity).
    pub fn difference_with(&mut self, other: &Bitset) {
        debug_assert_eq!(self.capacity, other.capacity);
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a &= !b;
        }
    }

    /// `self ∩ other` as a new set.
    pub fn intersection(&self, other: &Bitset) -> Bitset {
        let mut s = self.clone();
        s.intersect_with(other);
        s
    }

    /// The members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        bits(&self.words)
    }
}

// ---------------------------------------------------------------------------------------------
// Graph
// ---------------------------------------------------------------------------------------------

/// An undirected simple graph on vertices `0..n`, stored as one adjacency [`Bitset`] per vertex.
///
/// ```
/// use magpie_apps::maxclique::Graph;
/// let g = Graph::from_edges(4, &[(0, 1), (1, 2), (1, 3), (1, 2)]);
/// assert_eq!(g.n(), 4);
/// assert!(g.adjacent(2, 1) && !g.adjacent(0, 2) && !g.adjacent(1, 1));
/// assert_eq!(g.degree(1), 3);
/// assert_eq!(g.edge_count(), 3); // the duplicate edge counts once
/// assert_eq!(g.neighbours(1).iter().collect::<Vec<_>>(), vec![0, 2, 3]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graph {
    rows: Vec<Bitset>,
}

impl Graph {
    /// The graph on `0..n` with no edges.
    pub fn new(n: usize) -> Self {
        Graph {
            rows: vec![Bitset::new(n); n],
        }
    }

    /// The graph on `0..n` with the given edges (duplicates are harmless).
    ///
    /// # Panics
    /// On a self-loop or an endpoint `>= n` (see [`Graph::add_edge`]).
    pub fn from_edges(n: usize, edges: &[(usize, usize)]) -> Self {
        let mut g = Graph::new(n);
        for &(u, v) in edges {
            g.add_edge(u, v);
        }
        g
    }

    /// A random graph G(n, p): each of the `n(n-1)/2` edges present with probability
    /// `density` (clamped to 0..=1), drawn from a seeded generator, so the same arguments
    /// give the same graph on every machine.
    ///
    /// ```
    /// use magpie_apps::maxclique::Graph;
    /// let g = Graph::random(100, 0.5, 7);
    /// assert_eq!(g, Graph::random(100, 0.5, 7));
    /// assert!((2000..2950).contains(&g.edge_count())); // about 4950 / 2
    /// assert_eq!(Graph::random(10, 1.0, 1).edge_count(), 45);
    /// assert_eq!(Graph::random(10, 0.0, 1).edge_count(), 0);
    /// ```
    pub fn random(n: usize, density: f64, seed: u64) -> Self {
        let mut rng = crate::rng::XorShift64Star::new(seed);
        // Compare 53 random bits against the threshold: exact for 0 and 1.
        let threshold = (density.clamp(0.0, 1.0) * (1u64 << 53) as f64) as u64;
        let mut g = Graph::new(n);
        for u in 0..n {
            for v in u + 1..n {
                if (rng.next_u64() >> 11) < threshold {
                    g.add_edge(u, v);
                }
            }
        }
        g
    }

    /// Adds the edge `{u, v}` (no effect if present).
    ///
    /// # Panics
    /// If `u == v` or either endpoint is `>= n`.
    pub fn add_edge(&mut self, u: usize, v: usize) {
        assert!(u != v, "self-loop on vertex {u}");
        self.rows[u].insert(v);
        self.rows[v].insert(u);
    }

    /// The number of vertices.
    pub fn n(&self) -> usize {
        self.rows.len()
    }

    /// Whether `u` and `v` are adjacent (`false` for `u == v` and out-of-range vertices).
    pub fn adjacent(&self, u: usize, v: usize) -> bool {
        u < self.n() && self.rows[u].contains(v)
    }

    /// The number of neighbours of `v`.
    ///
    /// # Panics
    /// If `v >= n`.
    pub fn degree(&self, v: usize) -> usize {
        self.rows[v].count()
    }

    /// The neighbours of `v` as a bitset over `0..n`.
    ///
    /// # Panics
    /// If `v >= n`.
    pub fn neighbours(&self, v: usize) -> &Bitset {
        &self.rows[v]
    }

    /// The number of (distinct) edges.
    pub fn edge_count(&self) -> usize {
        self.rows.iter().map(Bitset::count).sum::<usize>() / 2
    }

    /// The complement graph (same vertices; adjacent exactly when not adjacent here).
    ///
    /// ```
    /// use magpie_apps::maxclique::Graph;
    /// let g = Graph::from_edges(3, &[(0, 1)]).complement();
    /// assert_eq!(g.edge_count(), 2);
    /// assert!(g.adjacent(0, 2) && g.adjacent(1, 2) && !g.adjacent(0, 1));
    /// ```
    pub fn complement(&self) -> Graph {
        let n = self.n();
        let mut rows = Vec::with_capacity(n);
        for (v, row) in self.rows.iter().enumerate() {
            let mut r = Bitset::full(n);
            r.difference_with(row);
            r.remove(v);
            rows.push(r);
        }
        Graph { rows }
    }

    /// The graph with its vertices renumbered so that new vertex `i` is old vertex
    /// `order[i]`; `order` must be a permutation of `0..n`.
    ///
    /// # Panics
    /// If `order` is not a permutation of `0..n`.
    ///
    /// ```
    /// use magpie_apps::maxclique::Graph;
    /// let g = Graph::from_edges(3, &[(0, 1)]);
    /// let h = g.permuted(&[2, 0, 1]);
    /// assert!(h.adjacent(1, 2) && !h.adjacent(0, 1));
    /// ```
    pub fn permuted(&self, order: &[usize]) -> Graph {
        let n = self.n();
        assert_eq!(order.len(), n, "permutation of the wrong length");
        let mut new_id = vec![usize::MAX; n];
        for (i, &old) in order.iter().enumerate() {
            assert!(
                old < n && new_id[old] == usize::MAX,
                "not a permutation of 0..{n}"
            );
            new_id[old] = i;
        }
        let mut h = Graph::new(n);
        for (i, &old) in order.iter().enumerate() {
            for w in self.rows[old].iter() {
                h.rows[i].insert(new_id[w]);
            }
        }
        h
    }

    /// The order used by McCreesh–Prosser: vertices by non-increasing degree, ties by
    /// increasing id. Returns the renumbered graph and `order` with `order[new] = old`.
    ///
    /// ```
    /// use magpie_apps::maxclique::Graph;
    /// // A star centred on 2, plus the edge 0-1.
    /// let g = Graph::from_edges(4, &[(2, 0), (2, 1), (2, 3), (0, 1)]);
    /// let (h, order) = g.sorted_by_degree();
    /// assert_eq!(order, vec![2, 0, 1, 3]);
    /// assert_eq!((0..4).map(|v| h.degree(v)).collect::<Vec<_>>(), vec![3, 2, 2, 1]);
    /// assert!(h.adjacent(1, 2)); // old 0-1
    /// ```
    pub fn sorted_by_degree(&self) -> (Graph, Vec<usize>) {
        let degrees: Vec<usize> = (0..self.n()).map(|v| self.degree(v)).collect();
        let mut order: Vec<usize> = (0..self.n()).collect();
        order.sort_by_key(|&v| (std::cmp::Reverse(degrees[v]), v));
        (self.permuted(&order), order)
    }
}

mod dimacs;
pub use dimacs::{parse_dimacs, parse_dimacs_with_limit, read_dimacs, to_dimacs};

mod colour;
pub use colour::colour_order;
use colour::{colour_packed, unpack, with_scratch, ColourScratch};

// ---------------------------------------------------------------------------------------------
// Search nodes
// ---------------------------------------------------------------------------------------------

/// A node of the clique search tree: a clique and the vertices that extend it (every
/// candidate is adjacent to every clique member). Vertices are the graph's `0..n`.
///
/// Both sets are bitsets over `0..n` in one recycled buffer ([`crate::pool::Words`]), so
/// making a node allocates nothing once the search has reached its depth before: the
/// clique is a fixed-size value (its members are the set bits), not a list.
///
/// ```
/// use magpie_apps::maxclique::{CliqueNode, Graph};
/// let g = Graph::from_edges(4, &[(0, 1), (1, 2), (0, 2), (2, 3)]);
/// let root = CliqueNode::root(&g);
/// assert!(root.size() == 0 && root.candidates().count() == 4);
/// let kids: Vec<(usize, CliqueNode)> = root.children(&g).collect();
/// // Colouring order [0, 3, 1, 2] with colours [1, 1, 2, 3]: vertex 2 first, with bound 3.
/// assert_eq!(kids[0].0, 3);
/// assert_eq!(kids[0].1.clique(), vec![2]);
/// assert_eq!(kids[0].1.candidates().collect::<Vec<_>>(), vec![0, 1, 3]);
/// // Then vertex 1 (vertex 2 no longer a candidate), bound 2.
/// assert_eq!((kids[1].0, kids[1].1.clique()), (2, vec![1]));
/// assert_eq!(kids[1].1.candidates().collect::<Vec<_>>(), vec![0]);
/// assert_eq!(kids.len(), 4);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CliqueNode {
    /// `2w` words (`w = ⌈n/64⌉`): the candidates, then the clique's members.
    words: Words,
    /// The number of clique members.
    size: usize,
}

impl CliqueNode {
    /// The root: the empty clique, every vertex a candidate.
    pub fn root(g: &Graph) -> Self {
        let full = Bitset::full(g.n());
        let mut words = Words::take(2 * full.words.len());
        words.extend_from_slice(&full.words);
        words.resize(2 * full.words.len(), 0);
        CliqueNode { words, size: 0 }
    }

    /// The words of one vertex set (`⌈n/64⌉`).
    fn w(&self) -> usize {
        self.words.len() / 2
    }

    /// The number of vertices in the clique.
    pub fn size(&self) -> usize {
        self.size
    }

    /// The clique's vertices, ascending.
    pub fn clique(&self) -> Vec<usize> {
        bits(&self.words[self.w()..]).collect()
    }

    /// The candidates, ascending.
    pub fn candidates(&self) -> impl Iterator<Item = usize> + '_ {
        bits(&self.words[..self.w()])
    }

    /// The candidates as a bitset (`⌈n/64⌉` words, bit `v % 64` of word `v / 64`).
    pub fn candidate_words(&self) -> &[u64] {
        &self.words[..self.w()]
    }

    /// Whether no vertex can extend the clique (a leaf).
    pub fn is_leaf(&self) -> bool {
        self.words[..self.w()].iter().all(|&x| x == 0)
    }

    /// The children in heuristic order, lazily: the colouring ([`colour_order`]) is computed
    /// once, then each `next()` builds one child, adding the candidate at the back of the
    /// colour order and restricting the candidates to its neighbours among those not yet
    /// branched on. Each item is `(bound, child)`: no clique in the child's subtree has more
    /// than `bound = |clique| + colour` vertices. Bounds are non-increasing along the
    /// iteration, so a search may stop at the first child whose bound does not beat its
    /// incumbent. The generator keeps the colouring and a copy of the node's sets in one
    /// recycled buffer.
    pub fn children<'g>(&self, g: &'g Graph) -> Children<'g> {
        let w = self.w();
        if self.is_leaf() {
            // A leaf (most nodes are): no colouring, no copies.
            return Children {
                graph: g,
                size: self.size,
                w: 0,
                buf: Words::new(),
            };
        }
        let count: usize = self.words[..w]
            .iter()
            .map(|x| x.count_ones() as usize)
            .sum();
        let mut buf = Words::take(2 * w + count);
        buf.extend_from_slice(&self.words);
        with_scratch(|scratch| colour_packed(g, &self.words[..w], scratch, &mut buf));
        Children {
            graph: g,
            size: self.size,
            w,
            buf,
        }
    }
}

/// The members of the bitset `words`, ascending.
fn bits(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(k, &w)| {
        let mut w = w;
        std::iter::from_fn(move || {
            if w == 0 {
                None
            } else {
                let b = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(k * 64 + b)
            }
        })
    })
}

/// The lazy child generator of a [`CliqueNode`] (see [`CliqueNode::children`]).
#[derive(Debug, Clone)]
pub struct Children<'g> {
    graph: &'g Graph,
    /// The parent's clique size.
    size: usize,
    /// Words per vertex set.
    w: usize,
    /// The candidates not yet branched on (`w` words), the parent's clique (`w` words), then
    /// the colouring, [`pack`]ed, taken from the back.
    buf: Words,
}

impl Children<'_> {
    /// The next child written into `child` (its buffer reused, nothing allocated once it is
    /// big enough), and the child's bound; `None` (and `child` untouched) when there is none.
    /// [`CliqueSpace`]'s `for_each_child` builds every child of a node in one buffer this way.
    ///
    /// ```
    /// use magpie_apps::maxclique::{CliqueNode, Graph};
    /// let g = Graph::from_edges(4, &[(0, 1), (1, 2), (0, 2), (2, 3)]);
    /// let root = CliqueNode::root(&g);
    /// let (mut gen, mut child) = (root.children(&g), CliqueNode::root(&g));
    /// for (bound, want) in root.children(&g) {
    ///     assert_eq!(gen.next_into(&mut child), Some(bound));
    ///     assert_eq!(child, want);
    /// }
    /// assert_eq!(gen.next_into(&mut child), None);
    /// ```
    #[inline]
    pub fn next_into(&mut self, child: &mut CliqueNode) -> Option<usize> {
        let w = self.w;
        if self.buf.len() <= 2 * w {
            return None;
        }
        let (v, colour) = unpack(self.buf.pop()?);
        let bit = 1u64 << (v % 64);
        self.buf[v / 64] &= !bit;
        let adj = &self.graph.rows[v].words;
        let words = &mut child.words;
        words.clear();
        words.extend(self.buf[..w].iter().zip(adj).map(|(c, a)| c & a));
        words.extend_from_slice(&self.buf[w..2 * w]);
        words[w + v / 64] |= bit;
        child.size = self.size + 1;
        Some(self.size + colour)
    }
}

impl Iterator for Children<'_> {
    type Item = (usize, CliqueNode);

    fn next(&mut self) -> Option<Self::Item> {
        let mut child = CliqueNode {
            words: Words::take(2 * self.w),
            size: 0,
        };
        let bound = self.next_into(&mut child)?;
        Some((bound, child))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.buf.len().saturating_sub(2 * self.w);
        (left, Some(left))
    }
}

impl ExactSizeIterator for Children<'_> {}

/// The clique search tree for [`magpie::search`], over the graph renumbered by
/// non-increasing degree (McCreesh–Prosser order, as [`max_clique`] uses). Nodes are
/// [`BoundedClique`]s; the objective is the clique's size and the bound the colour bound its
/// parent computed, so children come in non-increasing bound order and prune-level is sound
/// (YewPar uses it for max clique).
///
/// ```
/// use magpie::search::{decide, optimise, Options, Skeleton};
/// use magpie_apps::maxclique::{CliqueSpace, Graph};
/// let g = Graph::from_edges(5, &[(0, 1), (1, 2), (0, 2), (2, 3), (3, 4)]);
/// let space = CliqueSpace::new(&g);
/// let opts = Options { prune_level: true, ..Options::default() };
/// let (omega, node) = optimise(&space, Skeleton::Sequential, &opts).value.unwrap();
/// assert_eq!((omega, space.clique(&node)), (3, vec![1, 2, 3]));
/// let found = decide(&space, 3, Skeleton::Sequential, &opts).value.unwrap();
/// assert_eq!(space.clique(&found), vec![1, 2, 3]);
/// assert!(decide(&space, 4, Skeleton::Sequential, &opts).value.is_none());
/// ```
#[derive(Debug, Clone)]
pub struct CliqueSpace {
    graph: Graph,
    /// Renumbered id -> the input graph's id.
    order: Vec<usize>,
}

/// A [`CliqueNode`] (in [`CliqueSpace`]'s numbering) with the bound its parent's colouring
/// gave it: no clique in its subtree has more than `bound` vertices.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BoundedClique {
    /// Upper bound on the size of every clique in this subtree.
    pub bound: usize,
    /// The clique and its candidates.
    pub node: CliqueNode,
}

impl CliqueSpace {
    /// The search space of `g`'s cliques.
    pub fn new(g: &Graph) -> Self {
        let (graph, order) = g.sorted_by_degree();
        CliqueSpace { graph, order }
    }

    /// `node`'s clique as ids of the input graph, 1-based, ascending (as [`max_clique`]).
    pub fn clique(&self, node: &BoundedClique) -> Vec<usize> {
        let mut c: Vec<usize> = node
            .node
            .clique()
            .into_iter()
            .map(|v| self.order[v] + 1)
            .collect();
        c.sort_unstable();
        c
    }
}

/// The lazy child generator of a [`BoundedClique`]: [`CliqueNode::children`] with each
/// child's bound kept in the node.
#[derive(Debug, Clone)]
pub struct BoundedChildren<'g>(Children<'g>);

impl Iterator for BoundedChildren<'_> {
    type Item = BoundedClique;

    fn next(&mut self) -> Option<BoundedClique> {
        self.0
            .next()
            .map(|(bound, node)| BoundedClique { bound, node })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl magpie::search::SearchSpace for CliqueSpace {
    type Node = BoundedClique;
    type Children<'a> = BoundedChildren<'a>;

    fn root(&self) -> BoundedClique {
        BoundedClique {
            bound: self.graph.n(),
            node: CliqueNode::root(&self.graph),
        }
    }

    fn children<'a>(&'a self, node: &BoundedClique) -> BoundedChildren<'a> {
        BoundedChildren(node.node.children(&self.graph))
    }

    /// The same children as [`children`](magpie::search::SearchSpace::children), each built in one buffer that the
    /// next overwrites ([`Children::next_into`]): a child that is pruned at once (under
    /// prune-level, every expanded node's loop ends on one) costs no buffer of its own.
    #[inline]
    fn for_each_child<F>(&self, node: &BoundedClique, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(&BoundedClique) -> ControlFlow<()>,
    {
        let mut children = node.node.children(&self.graph);
        if children.w == 0 {
            return ControlFlow::Continue(());
        }
        let mut child = BoundedClique {
            bound: 0,
            node: CliqueNode {
                words: Words::take(2 * children.w),
                size: 0,
            },
        };
        while let Some(bound) = children.next_into(&mut child.node) {
            child.bound = bound;
            visit(&child)?;
        }
        ControlFlow::Continue(())
    }
}

impl magpie::search::Objective for CliqueSpace {
    fn objective(&self, node: &BoundedClique) -> i64 {
        node.node.size() as i64
    }

    fn bound(&self, node: &BoundedClique) -> i64 {
        node.bound as i64
    }
}

// ---------------------------------------------------------------------------------------------
// Sequential solvers
// ---------------------------------------------------------------------------------------------

/// Whether `vertices` (1-based ids, as returned by [`max_clique`]) are distinct, in range
/// and pairwise adjacent. The empty list is a clique.
///
/// ```
/// use magpie_apps::maxclique::{is_clique, Graph};
/// let g = Graph::from_edges(3, &[(0, 1), (1, 2)]);
/// assert!(is_clique(&g, &[1, 2]) && is_clique(&g, &[]) && is_clique(&g, &[3]));
/// assert!(!is_clique(&g, &[1, 3]) && !is_clique(&g, &[2, 2]) && !is_clique(&g, &[0]));
/// ```
pub fn is_clique(g: &Graph, vertices: &[usize]) -> bool {
    if vertices.iter().any(|&v| v == 0 || v > g.n()) {
        return false;
    }
    vertices
        .iter()
        .enumerate()
        .all(|(i, &u)| vertices[i + 1..].iter().all(|&v| g.adjacent(u - 1, v - 1)))
}

/// A maximum clique by plain sequential recursive branch-and-bound (McCreesh–Prosser MCS
/// order, San Segundo bitset colouring bound), as 1-based ids sorted ascending.
///
/// ```
/// use magpie_apps::maxclique::{max_clique, Graph};
/// let g = Graph::from_edges(5, &[(0, 1), (1, 2), (0, 2), (2, 3), (3, 4)]);
/// assert_eq!(max_clique(&g), vec![1, 2, 3]);
/// assert_eq!(max_clique(&Graph::new(0)), Vec::<usize>::new());
/// ```
pub fn max_clique(g: &Graph) -> Vec<usize> {
    max_clique_counted(g).0
}

/// [`max_clique`] and the number of search-tree nodes it visited: the root plus every
/// clique it branched to.
///
/// ```
/// use magpie_apps::maxclique::{max_clique_counted, Graph};
/// let (c, nodes) = max_clique_counted(&Graph::from_edges(3, &[(0, 1)]));
/// assert_eq!((c, nodes), (vec![1, 2], 3));
/// ```
pub fn max_clique_counted(g: &Graph) -> (Vec<usize>, u64) {
    let (graph, order) = g.sorted_by_degree();
    let mut s = Search::new(&graph, 0, false, None);
    s.run();
    (s.best_original(&order), s.nodes)
}

/// The branch-and-bound of [`max_clique_counted`] from `node` instead of the root, pruning
/// against a shared incumbent, for parallel searches that split the tree near the root and
/// search the subtrees below sequentially. `g` is the graph `node`'s vertices index (the
/// search does not renumber it: pass a graph sorted by [`Graph::sorted_by_degree`] for
/// [`max_clique_counted`]'s order). `incumbent` is the size of the best clique known
/// anywhere; it is re-read before each branch and raised (`fetch_max`) when this search
/// finds a bigger one.
///
/// Returns the biggest clique found in `node`'s subtree that beat the incumbent when found
/// (`node.clique` first, then the vertices added, in `g`'s numbering), or `None`, and the
/// number of nodes branched to below `node` (`node` itself not counted). `node` is a leaf
/// when it has no candidates: then its clique is compared with the incumbent.
///
/// ```
/// use magpie_apps::maxclique::{max_clique_counted, max_clique_from, CliqueNode, Graph};
/// use std::sync::atomic::AtomicUsize;
/// let g = Graph::from_edges(5, &[(0, 1), (1, 2), (0, 2), (2, 3), (3, 4)]);
/// let (sorted, order) = g.sorted_by_degree();
/// let best = AtomicUsize::new(0);
/// let (clique, nodes) = max_clique_from(&sorted, &CliqueNode::root(&sorted), &best);
/// let mut ids: Vec<usize> = clique.unwrap().iter().map(|&v| order[v] + 1).collect();
/// ids.sort_unstable();
/// assert_eq!(ids, [1, 2, 3]);
/// assert_eq!(best.into_inner(), 3);
/// // From the root, the same tree as max_clique_counted (which counts the root too).
/// assert_eq!(nodes + 1, max_clique_counted(&g).1);
/// // Nothing beats an incumbent of 3.
/// let best = AtomicUsize::new(3);
/// assert_eq!(max_clique_from(&sorted, &CliqueNode::root(&sorted), &best).0, None);
/// ```
pub fn max_clique_from(
    g: &Graph,
    node: &CliqueNode,
    incumbent: &AtomicUsize,
) -> (Option<Vec<usize>>, u64) {
    let target = incumbent.load(Ordering::Relaxed);
    let mut s = Search::new(g, target, false, Some(incumbent));
    s.clique = node.clique();
    if node.is_leaf() {
        if node.size() > target {
            incumbent.fetch_max(node.size(), Ordering::Relaxed);
            return (Some(s.clique), 0);
        }
        return (None, 0);
    }
    s.levels.push(Level {
        candidates: node.candidate_words().to_vec(),
        ..Level::default()
    });
    s.expand(0);
    ((!s.best.is_empty()).then_some(s.best), s.nodes)
}

/// A clique of exactly `k` vertices (1-based ids, ascending), or `None` if there is none; the
/// search stops at the first one found and otherwise prunes with `k` as the target.
///
/// ```
/// use magpie_apps::maxclique::{find_clique_of_size, Graph};
/// let g = Graph::from_edges(4, &[(0, 1), (1, 2), (0, 2), (2, 3)]);
/// assert_eq!(find_clique_of_size(&g, 3), Some(vec![1, 2, 3]));
/// assert_eq!(find_clique_of_size(&g, 4), None);
/// assert_eq!(find_clique_of_size(&g, 0), Some(vec![]));
/// ```
pub fn find_clique_of_size(g: &Graph, k: usize) -> Option<Vec<usize>> {
    if k == 0 {
        return Some(Vec::new());
    }
    if k > g.n() {
        return None;
    }
    let (graph, order) = g.sorted_by_degree();
    let mut s = Search::new(&graph, k - 1, true, None);
    s.run();
    (s.best.len() == k).then(|| s.best_original(&order))
}

/// One depth's buffers: its candidate words and its colouring ([`pack`]ed).
#[derive(Default)]
struct Level {
    candidates: Vec<u64>,
    order: Vec<u64>,
}

/// The recursive branch-and-bound over a graph (degree-sorted by its callers; buffers reused
/// per depth, so a node allocates nothing once its depth has been reached before).
struct Search<'g> {
    graph: &'g Graph,
    clique: Vec<usize>,
    best: Vec<usize>,
    /// The size to beat (`best.len()` or, for the decision variant, `k - 1`).
    target: usize,
    stop_at_first: bool,
    done: bool,
    nodes: u64,
    levels: Vec<Level>,
    scratch: ColourScratch,
    /// The best size known to other searches ([`max_clique_from`]): read before each
    /// branch, raised on each improvement.
    shared: Option<&'g AtomicUsize>,
}

impl<'g> Search<'g> {
    fn new(
        graph: &'g Graph,
        target: usize,
        stop_at_first: bool,
        shared: Option<&'g AtomicUsize>,
    ) -> Self {
        Search {
            graph,
            clique: Vec::new(),
            best: Vec::new(),
            target,
            stop_at_first,
            done: false,
            nodes: 0,
            levels: Vec::new(),
            scratch: ColourScratch::default(),
            shared,
        }
    }

    fn run(&mut self) {
        self.nodes = 1;
        self.levels.push(Level {
            candidates: Bitset::full(self.graph.n()).words,
            ..Level::default()
        });
        self.expand(0);
    }

    /// Expands the node whose candidates are in `levels[depth]`.
    fn expand(&mut self, depth: usize) {
        if self.levels.len() <= depth + 1 {
            self.levels.push(Level::default());
        }
        let mut level = std::mem::take(&mut self.levels[depth]);
        let mut child = std::mem::take(&mut self.levels[depth + 1].candidates);
        level.order.clear();
        colour_packed(
            self.graph,
            &level.candidates,
            &mut self.scratch,
            &mut level.order,
        );
        for i in (0..level.order.len()).rev() {
            let (v, colour) = unpack(level.order[i]);
            if let Some(shared) = self.shared {
                self.target = self.target.max(shared.load(Ordering::Relaxed));
            }
            if self.clique.len() + colour <= self.target {
                break;
            }
            self.clique.push(v);
            self.nodes += 1;
            if self.stop_at_first && self.clique.len() > self.target {
                // The decision variant: a clique of the wanted size, no need to extend it.
                self.best.clone_from(&self.clique);
                self.clique.pop();
                self.done = true;
                break;
            }
            child.clear();
            let adj = &self.graph.rows[v].words;
            child.extend(level.candidates.iter().zip(adj).map(|(c, a)| c & a));
            if child.iter().all(|&w| w == 0) {
                if self.clique.len() > self.target {
                    self.best.clone_from(&self.clique);
                    self.target = self.clique.len();
                    if let Some(shared) = self.shared {
                        shared.fetch_max(self.target, Ordering::Relaxed);
                    }
                    if self.stop_at_first {
                        self.done = true;
                    }
                }
            } else {
                std::mem::swap(&mut self.levels[depth + 1].candidates, &mut child);
                self.expand(depth + 1);
                std::mem::swap(&mut self.levels[depth + 1].candidates, &mut child);
            }
            self.clique.pop();
            if self.done {
                break;
            }
            level.candidates[v / 64] &= !(1 << (v % 64));
        }
        self.levels[depth + 1].candidates = child;
        self.levels[depth] = level;
    }

    /// The best clique as 1-based ids of the graph before sorting (`order[sorted] = id`).
    fn best_original(&self, order: &[usize]) -> Vec<usize> {
        let mut c: Vec<usize> = self.best.iter().map(|&v| order[v] + 1).collect();
        c.sort_unstable();
        c
    }
}

#[cfg(test)]
mod tests;
