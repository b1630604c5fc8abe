//! Subgraph isomorphism (YewPar's `sip`, after the Glasgow Subgraph Solver): is there an
//! injective map `f` from the vertices of a *pattern* graph P into those of a *target*
//! graph T such that every edge `{u, v}` of P is mapped to an edge `{f(u), f(v)}` of T (the
//! non-induced problem: non-edges of P may map to edges of T), and how many are there?
//!
//! Both graphs are undirected and simple: a loop is an input error (see [`parse_lad`]).
//!
//! The search space ([`SipSpace`]) assigns the pattern vertices in one static order, most
//! constrained first: the vertex of highest degree, then repeatedly the vertex with the most
//! neighbours already placed (ties: higher degree, then lower number), so that adjacency
//! propagation cuts the domains as early as possible. Each pattern vertex has a *domain*, the
//! bitset of target vertices it may still take:
//! - at the root, *degree filtering* (`deg_T(t) >= deg_P(v)`) and *neighbourhood degree
//!   sequence filtering* (the neighbours' degrees of `v`, sorted decreasing, are dominated
//!   one by one by those of `t`);
//! - after each assignment `f(v) = t`, *adjacency propagation* (every unassigned neighbour of
//!   `v` must map into `N_T(t)`) and removal of `t` from every other domain;
//! - everywhere, *all-different propagation*: a singleton domain's value is removed from the
//!   others (to a fixpoint), an empty domain fails, and so does a set of `k` variables, taken
//!   by increasing domain size, whose domains' union has fewer than `k` values (a cheap Hall
//!   check, as in Glasgow's).
//!
//! Propagation only removes values that no embedding extending the node can use, so the
//! complete nodes (every pattern vertex assigned) are exactly the embeddings, each once: a
//! decision search for depth `|P|` ([`Objective::objective`] is the number of assigned
//! vertices) finds one, and an enumeration with [`Embeddings`] counts them, on every
//! skeleton.
//!
//! ```
//! use magpie::search::{self, Options, Skeleton};
//! use magpie_apps::maxclique::Graph;
//! use magpie_apps::sip::{Embeddings, SipSpace};
//!
//! // The triangle into K4: 4 · 3 · 2 = 24 embeddings.
//! let k3 = Graph::from_edges(3, &[(0, 1), (1, 2), (0, 2)]);
//! let k4 = Graph::from_edges(4, &[(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]);
//! let space = SipSpace::new(k3, k4).unwrap();
//! let out = search::enumerate(&space, &Embeddings(&space), Skeleton::Sequential, &Options::default());
//! assert_eq!(out.value.found, 24);
//! assert_eq!(out.value.invalid, 0);
//! let found = search::decide(&space, space.goal(), Skeleton::Sequential, &Options::default());
//! let f = space.embedding(&found.value.unwrap());
//! assert!(magpie_apps::sip::check_embedding(space.pattern(), space.target(), &f).is_ok());
//! ```

use std::path::Path;

use magpie::search::{Enumerate, Objective, SearchSpace};
use serde::{Deserialize, Serialize};

use crate::input::InputError;
use crate::maxclique::{parse_dimacs, Graph, MAX_VERTICES};

mod app;
pub use app::APP;

/// The most bytes the root's domains (`|P|` bitsets over the target's vertices) may take:
/// 1 GiB. A larger pair of graphs is refused with an error naming both sizes, instead of
/// failing to allocate (each search node holds the domains of its unassigned vertices).
pub const MAX_DOMAIN_BYTES: u128 = 1 << 30;

// ---------------------------------------------------------------------------------------------
// Input
// ---------------------------------------------------------------------------------------------

/// The format of a graph file, told from its first non-blank character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The LAD format ([`parse_lad`]): vertices numbered from 0.
    Lad,
    /// DIMACS (`p edge N M` / `p col N M`, [`parse_dimacs`]): vertices numbered from 1.
    Dimacs,
}

impl Format {
    /// The number of the first vertex in files of this format (0 for LAD, 1 for DIMACS).
    pub fn first_vertex(self) -> usize {
        match self {
            Format::Lad => 0,
            Format::Dimacs => 1,
        }
    }

    /// `LAD` or `DIMACS`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Lad => "LAD",
            Format::Dimacs => "DIMACS",
        }
    }
}

/// Reads a graph file, LAD or DIMACS ([`parse_graph`]); errors name the file and line.
pub fn read_graph(path: impl AsRef<Path>) -> Result<(Graph, Format), InputError> {
    let path = path.as_ref();
    let text = InputError::read_to_string(path)?;
    parse_graph(&text, path)
}

/// Parses a graph as LAD if its first non-blank character is a digit (LAD begins with the
/// vertex count), else as DIMACS (which begins with `c` or `p`); `name` is the file named in
/// errors.
///
/// ```
/// use magpie_apps::sip::{parse_graph, Format};
/// let (g, f) = parse_graph("3\n1 1\n1 2\n0\n", "p.lad").unwrap();
/// assert_eq!((f, g.n(), g.edge_count()), (Format::Lad, 3, 2));
/// let (g, f) = parse_graph("c a path\np edge 3 2\ne 1 2\ne 2 3\n", "p.clq").unwrap();
/// assert_eq!((f, g.n(), g.edge_count()), (Format::Dimacs, 3, 2));
/// ```
pub fn parse_graph(text: &str, name: impl AsRef<Path>) -> Result<(Graph, Format), InputError> {
    let first = text.chars().find(|c| !c.is_whitespace());
    if first.is_some_and(|c| c.is_ascii_digit()) {
        Ok((parse_lad(text, name)?, Format::Lad))
    } else {
        Ok((parse_dimacs(text, name)?, Format::Dimacs))
    }
}

/// Parses the LAD format: the first non-blank line is the vertex count `N`, then one line per
/// vertex `0..N`, in order: its degree `d` followed by `d` neighbour numbers in `0..N`. An
/// edge may be listed on one end or both (the graph is undirected); duplicates are harmless.
/// Blank lines are skipped. A loop (a vertex listed among its own neighbours) is an error:
/// the search is for simple graphs.
///
/// The vertex lines are counted before anything is allocated: a header announcing more
/// vertices than the file has lines is an error naming the header's line, and `N` is at most
/// [`MAX_VERTICES`] (the bitset adjacency matrix takes `N²/8` bytes).
///
/// ```
/// use magpie_apps::sip::parse_lad;
/// // A triangle, each edge listed once.
/// let g = parse_lad("3\n2 1 2\n1 2\n0\n", "t.lad").unwrap();
/// assert_eq!(g.edge_count(), 3);
/// let e = parse_lad("3\n2 1 2\n1 3\n0\n", "t.lad").unwrap_err();
/// assert_eq!(e.to_string(), "t.lad:3: vertex 3 out of range 0..=2");
/// let e = parse_lad("1000000\n0\n", "t.lad").unwrap_err();
/// assert_eq!(e.to_string(), "t.lad:1: the header says 1000000 vertices, but the file has 1 vertex line");
/// ```
pub fn parse_lad(text: &str, name: impl AsRef<Path>) -> Result<Graph, InputError> {
    let name = name.as_ref();
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty());
    let Some((header_no, header)) = lines.next() else {
        return Err(InputError::at(
            name,
            text.lines().count().max(1),
            "empty file: expected the vertex count (LAD)",
        ));
    };
    let n: usize = header.parse().map_err(|_| {
        InputError::at(
            name,
            header_no,
            format!("expected the vertex count, found `{header}`"),
        )
    })?;
    let vertex_lines: Vec<(usize, &str)> = lines.collect();
    if vertex_lines.len() < n {
        let k = vertex_lines.len();
        return Err(InputError::at(
            name,
            header_no,
            format!(
                "the header says {n} vertices, but the file has {k} vertex line{}",
                if k == 1 { "" } else { "s" }
            ),
        ));
    }
    if n > MAX_VERTICES {
        return Err(InputError::at(
            name,
            header_no,
            format!(
                "{n} vertices: the limit is {MAX_VERTICES} (the adjacency matrix takes N²/8 bytes)"
            ),
        ));
    }
    if let Some(&(extra, _)) = vertex_lines.get(n) {
        return Err(InputError::at(
            name,
            extra,
            format!("a line after the {n} vertex lines the header announces"),
        ));
    }
    let mut g = Graph::new(n);
    for (v, &(line_no, line)) in vertex_lines.iter().enumerate() {
        let err = |m: String| InputError::at(name, line_no, m);
        let mut tokens = line.split_whitespace();
        let number = |t: &str, what: &str| -> Result<usize, InputError> {
            t.parse::<usize>()
                .map_err(|_| err(format!("malformed {what} `{t}`")))
        };
        let d = number(tokens.next().expect("a non-blank line"), "degree")?;
        let mut listed = 0usize;
        for t in tokens {
            let w = number(t, "vertex number")?;
            if w >= n {
                return Err(err(format!("vertex {w} out of range 0..={}", n - 1)));
            }
            if w == v {
                return Err(err(format!(
                    "loop on vertex {v}: loops are not supported (simple graphs only)"
                )));
            }
            g.add_edge(v, w);
            listed += 1;
        }
        if listed != d {
            return Err(err(format!(
                "vertex {v} has degree {d} but {listed} neighbour{} listed",
                if listed == 1 { " is" } else { "s are" }
            )));
        }
    }
    Ok(g)
}

// ---------------------------------------------------------------------------------------------
// The search space
// ---------------------------------------------------------------------------------------------

/// A node of the search: the target vertices of the first pattern vertices of the static
/// order, and the domains of the others.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Partial {
    /// `mapped[i]` is the target vertex of the pattern vertex at position `i` of the order.
    mapped: Vec<u32>,
    /// The domains of the positions `mapped.len()..|P|`, one after another, each of
    /// `words` 64-bit words (a bitset over the target's vertices).
    domains: Vec<u64>,
}

impl Partial {
    /// The number of pattern vertices assigned.
    pub fn depth(&self) -> usize {
        self.mapped.len()
    }
}

/// Subgraph isomorphism of a pattern graph into a target graph as a search space (see the
/// module documentation).
#[derive(Debug, Clone)]
pub struct SipSpace {
    pattern: Graph,
    target: Graph,
    /// The pattern vertices in the order of assignment.
    order: Vec<usize>,
    /// `position_adj[i]`: for each position `j`, whether the vertices at positions `i` and
    /// `j` are adjacent in the pattern (a bitset over positions).
    position_adj: Vec<Vec<u64>>,
    /// Words of a domain.
    words: usize,
    root: Partial,
}

/// The bit `i` in a word slice.
#[inline]
fn has(words: &[u64], i: usize) -> bool {
    words[i / 64] >> (i % 64) & 1 == 1
}

#[inline]
fn count(words: &[u64]) -> usize {
    words.iter().map(|w| w.count_ones() as usize).sum()
}

#[inline]
fn first(words: &[u64]) -> Option<usize> {
    words
        .iter()
        .position(|&w| w != 0)
        .map(|k| k * 64 + words[k].trailing_zeros() as usize)
}

/// The static order: highest degree first, then the vertex with the most neighbours already
/// placed (ties: higher degree, lower number).
fn static_order(p: &Graph) -> Vec<usize> {
    let n = p.n();
    let mut placed = vec![false; n];
    let mut placed_neighbours = vec![0usize; n];
    let mut order = Vec::with_capacity(n);
    for _ in 0..n {
        let v = (0..n)
            .filter(|&v| !placed[v])
            .max_by_key(|&v| (placed_neighbours[v], p.degree(v), std::cmp::Reverse(v)))
            .expect("an unplaced vertex");
        placed[v] = true;
        for w in p.neighbours(v).iter() {
            placed_neighbours[w] += 1;
        }
        order.push(v);
    }
    order
}

/// The degrees of the neighbours of `v`, in decreasing order.
fn neighbour_degrees(g: &Graph, v: usize) -> Vec<usize> {
    let mut d: Vec<usize> = g.neighbours(v).iter().map(|w| g.degree(w)).collect();
    d.sort_unstable_by(|a, b| b.cmp(a));
    d
}

impl SipSpace {
    /// The search for embeddings of `pattern` into `target`, with the root's domains
    /// filtered. Fails (naming both sizes) if the root's domains would take more than
    /// [`MAX_DOMAIN_BYTES`].
    pub fn new(pattern: Graph, target: Graph) -> Result<Self, String> {
        let (np, nt) = (pattern.n(), target.n());
        let words = nt.div_ceil(64);
        let bytes = np as u128 * words as u128 * 8;
        if bytes > MAX_DOMAIN_BYTES {
            return Err(format!(
                "a pattern of {np} vertices and a target of {nt} need {bytes} bytes of domains \
                 at the root; the limit is {MAX_DOMAIN_BYTES}"
            ));
        }
        let order = static_order(&pattern);
        let mut position = vec![0usize; np];
        for (i, &v) in order.iter().enumerate() {
            position[v] = i;
        }
        let pwords = np.div_ceil(64);
        let position_adj = order
            .iter()
            .map(|&v| {
                let mut row = vec![0u64; pwords];
                for w in pattern.neighbours(v).iter() {
                    row[position[w] / 64] |= 1 << (position[w] % 64);
                }
                row
            })
            .collect();
        // Root filtering: degree, then neighbourhood degree sequences.
        let target_nds: Vec<Vec<usize>> = (0..nt).map(|t| neighbour_degrees(&target, t)).collect();
        let mut domains = vec![0u64; np * words];
        for (i, &v) in order.iter().enumerate() {
            let nds = neighbour_degrees(&pattern, v);
            let dom = &mut domains[i * words..(i + 1) * words];
            for (t, tnds) in target_nds.iter().enumerate() {
                let fits = tnds.len() >= nds.len() && nds.iter().zip(tnds).all(|(p, t)| p <= t);
                if fits {
                    dom[t / 64] |= 1 << (t % 64);
                }
            }
        }
        let mut space = SipSpace {
            pattern,
            target,
            order,
            position_adj,
            words,
            root: Partial {
                mapped: Vec::new(),
                domains: Vec::new(),
            },
        };
        if !space.propagate(0, &mut domains) {
            domains.iter_mut().for_each(|w| *w = 0);
        }
        space.root.domains = domains;
        Ok(space)
    }

    /// The pattern graph.
    pub fn pattern(&self) -> &Graph {
        &self.pattern
    }

    /// The target graph.
    pub fn target(&self) -> &Graph {
        &self.target
    }

    /// The objective a node must reach to be an embedding: the number of pattern vertices
    /// (the target of [`magpie::search::decide`]).
    pub fn goal(&self) -> i64 {
        self.pattern.n() as i64
    }

    /// Whether `node` assigns every pattern vertex.
    pub fn is_complete(&self, node: &Partial) -> bool {
        node.mapped.len() == self.pattern.n()
    }

    /// The map of a complete `node`, indexed by pattern vertex: `f[v]` is the target vertex
    /// of `v` (a node that is not complete gives the vertices assigned so far, the others
    /// `usize::MAX`).
    pub fn embedding(&self, node: &Partial) -> Vec<usize> {
        let mut f = vec![usize::MAX; self.pattern.n()];
        for (i, &t) in node.mapped.iter().enumerate() {
            f[self.order[i]] = t as usize;
        }
        f
    }

    /// All-different propagation over the domains of positions `from..|P|` (`doms`, one
    /// after another): singleton values removed from the other domains to a fixpoint, then
    /// the Hall check by increasing domain size. `false` if some embedding extending them
    /// cannot exist.
    fn propagate(&self, from: usize, doms: &mut [u64]) -> bool {
        let w = self.words;
        let k = self.pattern.n() - from;
        let mut done = vec![false; k];
        loop {
            let mut changed = false;
            for i in 0..k {
                let c = count(&doms[i * w..(i + 1) * w]);
                if c == 0 {
                    return false;
                }
                if c == 1 && !done[i] {
                    done[i] = true;
                    changed = true;
                    let u = first(&doms[i * w..(i + 1) * w]).expect("one value");
                    for j in (0..k).filter(|&j| j != i) {
                        doms[j * w + u / 64] &= !(1 << (u % 64));
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let mut by_size: Vec<(usize, usize)> = (0..k)
            .map(|i| (count(&doms[i * w..(i + 1) * w]), i))
            .collect();
        by_size.sort_unstable();
        let mut union = vec![0u64; w];
        for (taken, &(_, i)) in by_size.iter().enumerate() {
            for (u, d) in union.iter_mut().zip(&doms[i * w..(i + 1) * w]) {
                *u |= d;
            }
            if count(&union) < taken + 1 {
                return false;
            }
        }
        true
    }

    /// The child of `parent` that maps the pattern vertex at position `parent.depth()` to
    /// target vertex `t` (which must be in its domain), or `None` if propagation fails.
    fn assign(&self, parent: &Partial, t: usize) -> Option<Partial> {
        let w = self.words;
        let pos = parent.mapped.len();
        let adj = &self.position_adj[pos];
        let nt = self.target.neighbours(t).words();
        let mut domains = parent.domains[w..].to_vec();
        for (k, dom) in domains.chunks_exact_mut(w).enumerate() {
            dom[t / 64] &= !(1 << (t % 64));
            if has(adj, pos + 1 + k) {
                for (d, n) in dom.iter_mut().zip(nt) {
                    *d &= n;
                }
            }
        }
        if !self.propagate(pos + 1, &mut domains) {
            return None;
        }
        let mut mapped = Vec::with_capacity(pos + 1);
        mapped.extend_from_slice(&parent.mapped);
        mapped.push(t as u32);
        Some(Partial { mapped, domains })
    }
}

/// The children of a node: one per value of the next pattern vertex's domain that survives
/// propagation, in increasing target-vertex order.
pub struct Children<'a> {
    space: &'a SipSpace,
    parent: Partial,
    /// The next value to try.
    next: usize,
}

impl Iterator for Children<'_> {
    type Item = Partial;

    fn next(&mut self) -> Option<Partial> {
        let w = self.space.words;
        if self.space.is_complete(&self.parent) {
            return None;
        }
        let dom = &self.parent.domains[..w];
        while self.next < self.space.target.n() {
            let k = self.next / 64;
            let word = dom[k] & (u64::MAX << (self.next % 64));
            if word == 0 {
                self.next = (k + 1) * 64;
                continue;
            }
            let t = k * 64 + word.trailing_zeros() as usize;
            self.next = t + 1;
            if let Some(child) = self.space.assign(&self.parent, t) {
                return Some(child);
            }
        }
        None
    }
}

impl SearchSpace for SipSpace {
    type Node = Partial;
    type Children<'a> = Children<'a>;

    fn root(&self) -> Partial {
        self.root.clone()
    }

    fn children<'a>(&'a self, node: &Partial) -> Children<'a> {
        Children {
            space: self,
            parent: node.clone(),
            next: 0,
        }
    }

    fn is_leaf(&self, node: &Partial) -> bool {
        self.is_complete(node)
    }
}

impl Objective for SipSpace {
    /// The number of pattern vertices assigned: [`SipSpace::goal`] for an embedding.
    fn objective(&self, node: &Partial) -> i64 {
        node.mapped.len() as i64
    }

    fn bound(&self, _node: &Partial) -> i64 {
        self.goal()
    }
}

/// What [`Embeddings`] counts: the embeddings found, and how many of them failed the
/// independent check ([`check_embedding`]; always 0 unless the search has a bug).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmbeddingCount {
    /// Complete nodes: embeddings.
    pub found: u64,
    /// Complete nodes whose map is not an embedding.
    pub invalid: u64,
}

/// The count of the embeddings (the complete nodes) of an enumeration, each one checked
/// with [`check_embedding`] as it is counted.
#[derive(Debug, Clone, Copy)]
pub struct Embeddings<'a>(pub &'a SipSpace);

impl Enumerate<SipSpace> for Embeddings<'_> {
    type Acc = EmbeddingCount;

    fn empty(&self) -> EmbeddingCount {
        EmbeddingCount::default()
    }

    fn visit(&self, acc: &mut EmbeddingCount, node: &Partial, _depth: usize) {
        if self.0.is_complete(node) {
            acc.found += 1;
            let f = self.0.embedding(node);
            if check_embedding(&self.0.pattern, &self.0.target, &f).is_err() {
                acc.invalid += 1;
            }
        }
    }

    fn merge(&self, a: EmbeddingCount, b: EmbeddingCount) -> EmbeddingCount {
        EmbeddingCount {
            found: a.found + b.found,
            invalid: a.invalid + b.invalid,
        }
    }
}

/// Checks that `f` (indexed by pattern vertex) is an embedding of `pattern` into `target`:
/// one target vertex per pattern vertex, injective, every pattern edge onto a target edge.
/// The error says what fails.
///
/// ```
/// use magpie_apps::maxclique::Graph;
/// use magpie_apps::sip::check_embedding;
/// let path = Graph::from_edges(3, &[(0, 1), (1, 2)]);
/// let square = Graph::from_edges(4, &[(0, 1), (1, 2), (2, 3), (3, 0)]);
/// assert!(check_embedding(&path, &square, &[0, 1, 2]).is_ok());
/// assert_eq!(
///     check_embedding(&path, &square, &[0, 2, 1]).unwrap_err(),
///     "pattern edge 0-1 maps to 0-2, not a target edge"
/// );
/// assert!(check_embedding(&path, &square, &[0, 1, 0]).unwrap_err().contains("twice"));
/// ```
pub fn check_embedding(pattern: &Graph, target: &Graph, f: &[usize]) -> Result<(), String> {
    if f.len() != pattern.n() {
        return Err(format!(
            "{} images for {} pattern vertices",
            f.len(),
            pattern.n()
        ));
    }
    if let Some((v, &t)) = f.iter().enumerate().find(|(_, &t)| t >= target.n()) {
        return Err(format!(
            "pattern vertex {v} maps to {t}, not a target vertex"
        ));
    }
    let mut images: Vec<(usize, usize)> = f.iter().enumerate().map(|(v, &t)| (t, v)).collect();
    images.sort_unstable();
    if let Some(pair) = images.windows(2).find(|p| p[0].0 == p[1].0) {
        return Err(format!(
            "target vertex {} is the image of pattern vertices {} and {}: used twice",
            pair[0].0, pair[0].1, pair[1].1
        ));
    }
    for u in 0..pattern.n() {
        for v in pattern.neighbours(u).iter().filter(|&v| v > u) {
            if !target.adjacent(f[u], f[v]) {
                return Err(format!(
                    "pattern edge {u}-{v} maps to {}-{}, not a target edge",
                    f[u], f[v]
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_order_puts_the_highest_degree_first_then_follows_the_edges() {
        // A star on 0 with leaves 1..=3, and the path 3-4-5.
        let g = Graph::from_edges(6, &[(0, 1), (0, 2), (0, 3), (3, 4), (4, 5)]);
        assert_eq!(static_order(&g), [0, 3, 4, 1, 2, 5]);
    }

    #[test]
    fn root_filtering_removes_values_of_too_small_degree_or_neighbourhood() {
        // Pattern: a star K1,2 (centre 0). Target: a path 0-1-2-3: only 1 and 2 have degree 2.
        let p = Graph::from_edges(3, &[(0, 1), (0, 2)]);
        let t = Graph::from_edges(4, &[(0, 1), (1, 2), (2, 3)]);
        let s = SipSpace::new(p, t).unwrap();
        assert_eq!(s.order[0], 0);
        assert_eq!(s.root.domains[0], 0b0110);
        // The star K1,3 cannot fit: no target vertex has degree 3, the root has no child.
        let p = Graph::from_edges(4, &[(0, 1), (0, 2), (0, 3)]);
        let s = SipSpace::new(p, Graph::from_edges(4, &[(0, 1), (1, 2), (2, 3)])).unwrap();
        assert_eq!(s.children(&s.root()).count(), 0);
    }

    #[test]
    fn hall_check_fails_three_vertices_on_two_values() {
        // Three isolated pattern vertices into two target vertices.
        let s = SipSpace::new(Graph::new(3), Graph::new(2)).unwrap();
        assert!(s.root.domains.iter().all(|&w| w == 0));
        assert_eq!(s.children(&s.root()).count(), 0);
    }

    #[test]
    fn lad_errors_name_the_line_and_the_problem() {
        let err = |text: &str| parse_lad(text, "g.lad").unwrap_err().to_string();
        assert_eq!(
            err(""),
            "g.lad:1: empty file: expected the vertex count (LAD)"
        );
        assert_eq!(err("x\n"), "g.lad:1: expected the vertex count, found `x`");
        assert_eq!(
            err("2\n1 1\n0\n0\n"),
            "g.lad:4: a line after the 2 vertex lines the header announces"
        );
        assert_eq!(
            err("2\n1 0\n0\n"),
            "g.lad:2: loop on vertex 0: loops are not supported (simple graphs only)"
        );
        assert_eq!(
            err("2\n2 1\n0\n"),
            "g.lad:2: vertex 0 has degree 2 but 1 neighbour is listed"
        );
        assert_eq!(err("2\n1 -1\n0\n"), "g.lad:2: malformed vertex number `-1`");
        assert_eq!(
            err("70000\n"),
            "g.lad:1: the header says 70000 vertices, but the file has 0 vertex lines"
        );
    }
}
