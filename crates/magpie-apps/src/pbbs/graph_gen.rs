//! PBBS-style graph inputs: a symmetric CSR [`Graph`] (u32 vertex ids) with a checked
//! constructor, and seeded, deterministic generators: [`rmat`] (PBBS's rMat, a = 0.5,
//! b = c = 0.1, d = 0.3), [`grid2d`] and [`grid3d`] (PBBS's 2-D and 3-D grids, on a torus),
//! and [`random_local`] (PBBS's random local graphs: each vertex's edges go mostly to
//! vertices near it in id order). [`generate`] builds one from a [`GraphKind`], a size and
//! a seed, as a benchmark does.
//!
//! Every generated graph is simple (no self-loops, no parallel edges) and symmetric: each
//! generated edge `{u, v}` appears as `v` in `u`'s list and `u` in `v`'s, each list sorted.
//! The generators run sequentially (they build untimed inputs) and depend only on their
//! arguments.
//!
//! ```
//! use magpie_apps::pbbs::graph_gen::{self, Graph, GraphKind};
//!
//! let g = graph_gen::grid2d(4); // a 4 × 4 torus: every vertex has 4 neighbours
//! assert_eq!((g.num_vertices(), g.num_edges()), (16, 32));
//! assert_eq!(g.neighbours(0), &[1, 3, 4, 12]);
//! let r = graph_gen::generate(GraphKind::Rmat, 1000, 7).unwrap();
//! assert_eq!(r.num_vertices(), 1024); // rMat rounds up to a power of two
//! assert_eq!(r, graph_gen::generate(GraphKind::Rmat, 1000, 7).unwrap()); // deterministic
//! assert!(Graph::from_csr(vec![0, 1, 1], vec![1]).is_err()); // not symmetric
//! ```

use crate::input::InputError;
use crate::rng::SplitMix64;

/// "No vertex" in the kernels' u32 arrays (a parent, a mate, a neighbour): never a vertex
/// id, since a [`Graph`] has fewer than `u32::MAX` vertices.
pub const NONE: u32 = u32::MAX;

/// The average number of edges per vertex the generators of [`generate`] draw for rMat and
/// random local graphs (PBBS's `rMatGraph_J_5_…` and `randLocalGraph_J_5_…`): 5, before
/// duplicates and self-loops are dropped.
pub const DEFAULT_DEGREE: usize = 5;

/// A symmetric graph in compressed sparse row form: the neighbours of `v` are
/// `targets[offsets[v]..offsets[v + 1]]`, sorted, without duplicates or `v` itself, and
/// `u` is a neighbour of `v` exactly when `v` is a neighbour of `u`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graph {
    offsets: Vec<usize>,
    targets: Vec<u32>,
}

/// Why [`Graph::from_csr`] or [`Graph::from_edges`] refused its arguments.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    /// `offsets` is empty, does not start at 0, decreases, or does not end at
    /// `targets.len()`.
    #[error("bad CSR offsets: {0}")]
    Offsets(String),
    /// Too many vertices for u32 ids (`u32::MAX` is reserved for "none").
    #[error("{0} vertices: at most {max} are supported", max = u32::MAX - 1)]
    TooManyVertices(usize),
    /// An edge endpoint or a target is not below the number of vertices.
    #[error("vertex {vertex} out of range 0..{n}")]
    OutOfRange {
        /// The bad id.
        vertex: u32,
        /// The number of vertices.
        n: usize,
    },
    /// A vertex's list is not strictly increasing, or holds the vertex itself.
    #[error("the neighbours of vertex {0} are not sorted, or repeat, or include itself")]
    Unsorted(u32),
    /// `v` is in `u`'s list but `u` is not in `v`'s.
    #[error("edge {0} -> {1} has no reverse edge")]
    NotSymmetric(u32, u32),
}

impl Graph {
    /// A graph from its CSR arrays, checked: `offsets` has one entry per vertex plus one,
    /// starts at 0, never decreases and ends at `targets.len()`; every list is strictly
    /// increasing, in range and without its own vertex; and the graph is symmetric.
    ///
    /// ```
    /// use magpie_apps::pbbs::graph_gen::Graph;
    /// let path = Graph::from_csr(vec![0, 1, 3, 4], vec![1, 0, 2, 1]).unwrap(); // 0 - 1 - 2
    /// assert_eq!(path.neighbours(1), &[0, 2]);
    /// assert!(Graph::from_csr(vec![0, 1, 2], vec![0, 0]).is_err()); // a self-loop
    /// ```
    pub fn from_csr(offsets: Vec<usize>, targets: Vec<u32>) -> Result<Graph, GraphError> {
        let n = match offsets.len() {
            0 => return Err(GraphError::Offsets("no entries (want n + 1)".into())),
            len => len - 1,
        };
        if n >= u32::MAX as usize {
            return Err(GraphError::TooManyVertices(n));
        }
        if offsets[0] != 0 || offsets[n] != targets.len() {
            return Err(GraphError::Offsets(format!(
                "want offsets[0] = 0 and offsets[{n}] = {} (the number of targets), have {} and {}",
                targets.len(),
                offsets[0],
                offsets[n]
            )));
        }
        if let Some(v) = (0..n).find(|&v| offsets[v] > offsets[v + 1]) {
            return Err(GraphError::Offsets(format!(
                "offsets[{v}] > offsets[{}]",
                v + 1
            )));
        }
        let g = Graph { offsets, targets };
        for v in 0..n as u32 {
            let adj = g.neighbours(v);
            if let Some(&w) = adj.iter().find(|&&w| w as usize >= n) {
                return Err(GraphError::OutOfRange { vertex: w, n });
            }
            if adj.windows(2).any(|p| p[0] >= p[1]) || adj.binary_search(&v).is_ok() {
                return Err(GraphError::Unsorted(v));
            }
        }
        for v in 0..n as u32 {
            if let Some(&w) = g
                .neighbours(v)
                .iter()
                .find(|&&w| g.neighbours(w).binary_search(&v).is_err())
            {
                return Err(GraphError::NotSymmetric(v, w));
            }
        }
        Ok(g)
    }

    /// The simple symmetric graph on `n` vertices with an edge `{u, v}` for each `(u, v)` of
    /// `edges` (in either direction; self-loops and repeats are dropped).
    ///
    /// ```
    /// use magpie_apps::pbbs::graph_gen::Graph;
    /// let g = Graph::from_edges(3, &[(0, 1), (1, 0), (2, 2), (2, 1)]).unwrap();
    /// assert_eq!((g.num_edges(), g.neighbours(1)), (2, &[0, 2][..]));
    /// assert!(Graph::from_edges(2, &[(0, 2)]).is_err());
    /// ```
    pub fn from_edges(n: usize, edges: &[(u32, u32)]) -> Result<Graph, GraphError> {
        if n >= u32::MAX as usize {
            return Err(GraphError::TooManyVertices(n));
        }
        let mut arcs = Vec::with_capacity(2 * edges.len());
        for &(u, v) in edges {
            if let Some(bad) = [u, v].into_iter().find(|&x| x as usize >= n) {
                return Err(GraphError::OutOfRange { vertex: bad, n });
            }
            if u != v {
                arcs.push(u64::from(u) << 32 | u64::from(v));
                arcs.push(u64::from(v) << 32 | u64::from(u));
            }
        }
        arcs.sort_unstable();
        arcs.dedup();
        let mut offsets = vec![0usize; n + 1];
        for &a in &arcs {
            offsets[(a >> 32) as usize + 1] += 1;
        }
        for v in 0..n {
            offsets[v + 1] += offsets[v];
        }
        let targets = arcs.into_iter().map(|a| a as u32).collect();
        Ok(Graph { offsets, targets })
    }

    /// The number of vertices.
    pub fn num_vertices(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The number of (undirected) edges: half the number of adjacency entries.
    pub fn num_edges(&self) -> usize {
        self.targets.len() / 2
    }

    /// The sorted neighbours of `v` (panics if `v` is not a vertex).
    #[inline]
    pub fn neighbours(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.targets[self.offsets[v]..self.offsets[v + 1]]
    }

    /// The number of neighbours of `v`.
    pub fn degree(&self, v: u32) -> usize {
        self.neighbours(v).len()
    }

    /// Every edge once, as `(u, v)` with `u < v`, in increasing order.
    ///
    /// ```
    /// let g = magpie_apps::pbbs::graph_gen::grid2d(3);
    /// let e = g.edges();
    /// assert_eq!((e.len(), e[0]), (18, (0, 1)));
    /// ```
    pub fn edges(&self) -> Vec<(u32, u32)> {
        (0..self.num_vertices() as u32)
            .flat_map(|u| {
                self.neighbours(u)
                    .iter()
                    .filter(move |&&v| u < v)
                    .map(move |&v| (u, v))
            })
            .collect()
    }
}

/// The generators of [`generate`], by their command-line names.
///
/// ```
/// use magpie_apps::pbbs::graph_gen::GraphKind;
/// assert_eq!("grid3d".parse::<GraphKind>(), Ok(GraphKind::Grid3d));
/// assert_eq!(GraphKind::RandomLocal.to_string(), "random-local");
/// assert!("grid4d".parse::<GraphKind>().unwrap_err().contains("random-local"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GraphKind {
    /// `rmat`: [`rmat`] with [`DEFAULT_DEGREE`] edges per vertex.
    Rmat,
    /// `grid2d`: [`grid2d`], the side the square root of the size.
    Grid2d,
    /// `grid3d`: [`grid3d`], the side the cube root of the size.
    Grid3d,
    /// `random-local`: [`random_local`] with [`DEFAULT_DEGREE`] edges per vertex.
    RandomLocal,
}

crate::names::named_kinds!(GraphKind, "graph generator", [
    Rmat => "rmat",
    Grid2d => "grid2d",
    Grid3d => "grid3d",
    RandomLocal => "random-local",
]);

/// The largest size [`generate`] accepts: 2^30 vertices (rMat rounds up to a power of two,
/// so ids stay far below [`NONE`]).
pub const MAX_GRAPH_SIZE: usize = 1 << 30;

/// A graph of about `size` vertices from generator `kind` and `seed`: rMat on the next
/// power of two with [`DEFAULT_DEGREE`] × that many drawn edges, a 2-D torus of side
/// ⌈√size⌉, a 3-D torus of side ⌈∛size⌉, or a random local graph on `size` vertices with
/// [`DEFAULT_DEGREE`] edges drawn per vertex. `seed` matters only to rMat and random local
/// graphs.
///
/// The error (one line, naming the size) is for a size of 0, above [`MAX_GRAPH_SIZE`], or
/// whose edges would take more than [`crate::MAX_GENERATED_BYTES`].
///
/// ```
/// use magpie_apps::pbbs::graph_gen::{generate, GraphKind};
/// assert_eq!(generate(GraphKind::Grid3d, 1000, 0).unwrap().num_vertices(), 1000);
/// assert_eq!(generate(GraphKind::Grid2d, 10, 0).unwrap().num_vertices(), 16);
/// assert!(generate(GraphKind::Rmat, 0, 0).is_err());
/// ```
pub fn generate(kind: GraphKind, size: usize, seed: u64) -> Result<Graph, InputError> {
    let what = format!("a {kind} graph of size {size}");
    if size == 0 || size > MAX_GRAPH_SIZE {
        return Err(InputError::file(
            "--size",
            format!("{what}: the size must be in 1..={MAX_GRAPH_SIZE}"),
        ));
    }
    let (n, arcs) = match kind {
        GraphKind::Rmat => {
            let n = size.next_power_of_two();
            (n, 2 * DEFAULT_DEGREE * n)
        }
        GraphKind::Grid2d => {
            let side = ceil_root(size, 2);
            (side * side, 4 * side * side)
        }
        GraphKind::Grid3d => {
            let side = ceil_root(size, 3);
            (side * side * side, 6 * side * side * side)
        }
        GraphKind::RandomLocal => (size, 2 * DEFAULT_DEGREE * size),
    };
    // Generation holds every arc as a u64 before building the CSR.
    crate::check_generated_size("--size", &what, (arcs + n) as u64, 8)?;
    Ok(match kind {
        GraphKind::Rmat => rmat(n.trailing_zeros(), DEFAULT_DEGREE * n, seed),
        GraphKind::Grid2d => grid2d(ceil_root(size, 2)),
        GraphKind::Grid3d => grid3d(ceil_root(size, 3)),
        GraphKind::RandomLocal => random_local(size, DEFAULT_DEGREE, seed),
    })
}

/// The least `s` with `s^k ≥ n` (k = 2 or 3, n ≤ 2^30).
fn ceil_root(n: usize, k: u32) -> usize {
    let mut s = (n as f64).powf(1.0 / f64::from(k)).round() as usize;
    while s.pow(k) < n {
        s += 1;
    }
    while s > 1 && (s - 1).pow(k) >= n {
        s -= 1;
    }
    s.max(1)
}

/// The random stream of item `i` of a generator seeded with `seed`: independent of the
/// order items are drawn in.
fn stream(seed: u64, i: u64) -> SplitMix64 {
    let mut s = SplitMix64::new(seed ^ 0x5DEE_CE66_D1CE_4E5B);
    let base = s.next_u64();
    SplitMix64::new(base ^ i.wrapping_mul(0xD1B5_4A32_D192_ED03))
}

/// PBBS's rMat graph on 2^`log_n` vertices: each of `m` edges picks its endpoints' bits
/// from the top down, choosing the quadrant (0,0), (0,1), (1,0), (1,1) with probabilities
/// a = 0.5, b = 0.1, c = 0.1, d = 0.3. Self-loops and repeated edges are dropped, so the
/// graph has at most `m` edges. A skewed degree distribution, small diameter.
///
/// # Panics
/// If `log_n > 31`.
///
/// ```
/// let g = magpie_apps::pbbs::graph_gen::rmat(10, 5000, 1);
/// assert_eq!(g.num_vertices(), 1024);
/// assert!(g.num_edges() <= 5000 && g.num_edges() > 3000);
/// ```
pub fn rmat(log_n: u32, m: usize, seed: u64) -> Graph {
    assert!(log_n <= 31, "rmat: 2^{log_n} vertices do not fit u32 ids");
    let (a, ab, abc) = (0.5, 0.6, 0.7);
    let edges: Vec<(u32, u32)> = (0..m as u64)
        .map(|i| {
            let mut r = stream(seed, i);
            let (mut u, mut v) = (0u32, 0u32);
            for _ in 0..log_n {
                let x = r.next_f64();
                let (bu, bv) = if x < a {
                    (0, 0)
                } else if x < ab {
                    (0, 1)
                } else if x < abc {
                    (1, 0)
                } else {
                    (1, 1)
                };
                u = u << 1 | bu;
                v = v << 1 | bv;
            }
            (u, v)
        })
        .collect();
    Graph::from_edges(1 << log_n, &edges).expect("rMat endpoints are below 2^log_n")
}

/// PBBS's 2-D grid: `side × side` vertices (vertex `x + side·y`), each joined to its four
/// neighbours on a torus (the last column and row wrap around to the first). A large
/// diameter (`side`), the hard case for a frontier-by-frontier BFS.
///
/// # Panics
/// If `side²` does not fit u32 ids.
pub fn grid2d(side: usize) -> Graph {
    torus(&[side, side])
}

/// PBBS's 3-D grid: `side³` vertices (vertex `x + side·(y + side·z)`), each joined to its
/// six neighbours on a torus.
///
/// ```
/// let g = magpie_apps::pbbs::graph_gen::grid3d(3);
/// assert_eq!((g.num_vertices(), g.num_edges(), g.degree(13)), (27, 81, 6));
/// ```
///
/// # Panics
/// If `side³` does not fit u32 ids.
pub fn grid3d(side: usize) -> Graph {
    torus(&[side, side, side])
}

/// The torus with the given side lengths (the first dimension varies fastest).
fn torus(sides: &[usize]) -> Graph {
    let n: usize = sides.iter().product();
    assert!(
        n < u32::MAX as usize,
        "a grid of {n} vertices does not fit u32 ids"
    );
    let mut edges = Vec::with_capacity(n * sides.len());
    for v in 0..n {
        let mut stride = 1;
        let mut rest = v;
        for &s in sides {
            let coord = rest % s;
            rest /= s;
            let next = if coord + 1 == s {
                v - coord * stride
            } else {
                v + stride
            };
            edges.push((v as u32, next as u32));
            stride *= s;
        }
    }
    Graph::from_edges(n, &edges).expect("grid endpoints are in range")
}

/// PBBS-style random local graph on `n` vertices: each vertex `v` draws `degree` edges, to
/// `v ± k (mod n)` with a random sign and a distance `k = ⌊1/u⌋` for `u` uniform in
/// (0, 1] (so P(k ≥ x) ≈ 1/x): most edges join vertices close in id order — good locality,
/// as PBBS's `randLocalGraph` intends — and a few span the graph. Self-loops and repeats are
/// dropped.
///
/// ```
/// let g = magpie_apps::pbbs::graph_gen::random_local(1000, 5, 3);
/// assert_eq!(g.num_vertices(), 1000);
/// assert!(g.num_edges() > 3000 && g.num_edges() <= 5000);
/// ```
///
/// # Panics
/// If `n` does not fit u32 ids.
pub fn random_local(n: usize, degree: usize, seed: u64) -> Graph {
    assert!(n < u32::MAX as usize, "{n} vertices do not fit u32 ids");
    let mut edges = Vec::with_capacity(n * degree);
    for v in 0..n {
        let mut r = stream(seed, v as u64);
        for _ in 0..degree {
            let bits = r.next_u64();
            let u = ((bits >> 11) + 1) as f64 / (1u64 << 53) as f64; // (0, 1]
            let k = ((1.0 / u) as u64 % n as u64) as usize;
            let w = if bits & 1 == 0 {
                (v + k) % n
            } else {
                (v + n - k) % n
            };
            edges.push((v as u32, w as u32));
        }
    }
    Graph::from_edges(n, &edges).expect("random local endpoints are in range")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_graphs_pass_the_checked_constructor() {
        for kind in GraphKind::ALL {
            for (size, seed) in [(1, 0), (2, 1), (30, 2), (1000, 3)] {
                let g = generate(kind, size, seed).unwrap();
                let again = Graph::from_csr(g.offsets.clone(), g.targets.clone()).unwrap();
                assert_eq!(g, again, "{kind} {size}");
                assert!(g.num_vertices() >= size);
            }
        }
    }

    #[test]
    fn grids_have_exact_shapes() {
        let g = grid2d(5);
        assert_eq!((g.num_vertices(), g.num_edges()), (25, 50));
        assert!((0..25).all(|v| g.degree(v) == 4));
        assert_eq!(g.neighbours(24), &[4, 19, 20, 23]);
        let g = grid3d(4);
        assert_eq!((g.num_vertices(), g.num_edges()), (64, 192));
        assert_eq!(g.neighbours(0), &[1, 3, 4, 12, 16, 48]);
        // Sides 1 and 2 collapse: no self-loops, no repeats.
        assert_eq!(grid2d(1).num_edges(), 0);
        assert_eq!(grid2d(2).num_edges(), 4);
    }

    #[test]
    fn rmat_is_skewed_and_seeded() {
        let g = rmat(12, 5 * 4096, 5);
        let max = (0..4096).map(|v| g.degree(v)).max().unwrap();
        // a = 0.5 concentrates edges on vertex 0's quadrant: far above the mean (below 10).
        assert!(
            g.degree(0) > 40 && max == g.degree(0),
            "{max} {}",
            g.degree(0)
        );
        assert_ne!(g, rmat(12, 5 * 4096, 6));
    }

    #[test]
    fn bad_sizes_and_csr_are_refused() {
        for size in [0, MAX_GRAPH_SIZE + 1] {
            let e = generate(GraphKind::Grid2d, size, 0).unwrap_err();
            assert!(e.to_string().starts_with("--size: "), "{e}");
        }
        assert!(matches!(
            Graph::from_csr(vec![], vec![]),
            Err(GraphError::Offsets(_))
        ));
        assert!(matches!(
            Graph::from_csr(vec![1, 1], vec![0]),
            Err(GraphError::Offsets(_))
        ));
        assert!(matches!(
            Graph::from_csr(vec![0, 2, 1], vec![1, 0]),
            Err(GraphError::Offsets(_))
        ));
        assert_eq!(
            Graph::from_csr(vec![0, 1, 2], vec![5, 0]),
            Err(GraphError::OutOfRange { vertex: 5, n: 2 })
        );
        assert_eq!(
            Graph::from_csr(vec![0, 2, 3, 4], vec![2, 1, 0, 0]),
            Err(GraphError::Unsorted(0))
        );
        assert_eq!(
            Graph::from_csr(vec![0, 1, 1], vec![1]),
            Err(GraphError::NotSymmetric(0, 1))
        );
        assert_eq!(Graph::from_csr(vec![0], vec![]).unwrap().num_vertices(), 0);
    }
}
