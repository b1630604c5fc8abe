//! Maximal matching (PBBS `maximalMatching`) by deterministic reservations (Blelloch,
//! Fineman, Gibbons and Shun, "Internally deterministic parallel algorithms can be fast",
//! PPoPP 2012): the edges are taken in a fixed priority order (their index in the edge
//! list); each round, a prefix of the edges not yet decided **reserves** both endpoints
//! (an atomic `fetch_min` of its index, when neither endpoint is matched) and then
//! **commits** where it holds both reservations, matching its endpoints; an edge with a
//! matched endpoint is dropped, the others retry in the next round, ahead of the rest.
//! The matching is exactly the one the sequential greedy algorithm ([`greedy`]) finds in
//! the same order, whatever the runtime and worker count.
//!
//! The benchmark's three parts: [`input`] (untimed: a generated graph's edges in a seeded
//! random order), [`maximal_matching`] (timed), [`digest`]. [`check`] tests the matching
//! property and maximality.
//!
//! ```
//! use magpie_apps::join::{Magpie, Sequential};
//! use magpie_apps::pbbs::{graph_gen::GraphKind, matching};
//!
//! let input = matching::input(GraphKind::RandomLocal, 5_000, 1).unwrap();
//! let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
//! let m = pool.install(|| matching::maximal_matching(&mut Magpie, &input));
//! matching::check(&input, &m).unwrap();
//! assert_eq!(m, matching::greedy(&input));
//! ```

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};

use super::graph_gen::{self, GraphKind, NONE};
use super::par;
use crate::input::InputError;
use crate::join::Join;
use crate::registry::Kernel;
use crate::rng::SplitMix64;

/// The edges one sequential piece handles.
pub const GRAIN: usize = 1024;

/// The smallest prefix of undecided edges a round takes; otherwise a quarter of them.
pub const MIN_PREFIX: usize = 4096;

/// An undirected graph as an edge list: the edge with index `e` is `edges[e]`, and a
/// smaller index means a higher priority.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EdgeList {
    /// The number of vertices (ids `0..n`).
    pub n: usize,
    /// The edges, each `(u, v)` with `u, v < n` and `u != v`.
    pub edges: Vec<(u32, u32)>,
}

/// The generator a benchmark uses unless told otherwise: random local graphs, the first
/// input of PBBS's maximal matching (`randLocalGraph_E_5_10000000`).
pub const DEFAULT_INPUT: GraphKind = GraphKind::RandomLocal;

/// The benchmark's input: the edges of [`graph_gen::generate`]`(kind, size, seed)`, each
/// once, shuffled (Fisher–Yates, from `seed`).
pub fn input(kind: GraphKind, size: usize, seed: u64) -> Result<EdgeList, InputError> {
    let g = graph_gen::generate(kind, size, seed)?;
    let mut edges = g.edges();
    let mut r = SplitMix64::new(seed ^ 0x6D61_7463_6869_6E67);
    for i in (1..edges.len()).rev() {
        let k = (r.next_u64() % (i as u64 + 1)) as usize;
        edges.swap(i, k);
    }
    Ok(EdgeList {
        n: g.num_vertices(),
        edges,
    })
}

/// The indices (ascending) of the edges of the greedy maximal matching of `input` in edge
/// order, by deterministic reservations (see the [module](self) docs).
///
/// # Panics
/// If an endpoint is not below `input.n` or the edge list has `u32::MAX` edges or more.
pub fn maximal_matching<J: Join>(j: &mut J, input: &EdgeList) -> Vec<u32> {
    let (n, edges) = (input.n, &input.edges[..]);
    assert!(
        edges.len() < NONE as usize,
        "maximal_matching: too many edges"
    );
    let reserved: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(NONE)).collect();
    let matched: Vec<AtomicBool> = (0..n).map(|_| AtomicBool::new(false)).collect();
    // The undecided edges in priority order are `pending[start..]`.
    let mut pending: Vec<u32> = (0..edges.len() as u32).collect();
    let mut start = 0;
    let mut chosen = Vec::new();
    while start < pending.len() {
        let len = ((pending.len() - start) / 4)
            .max(MIN_PREFIX)
            .min(pending.len() - start);
        let prefix = &pending[start..start + len];
        // Reserve: matched flags change only in the commit phase, so all edges of the
        // prefix see the state at the end of the previous round.
        par::for_pieces(j, prefix, GRAIN, &|piece: &[u32]| {
            for &e in piece {
                let (u, v) = edges[e as usize];
                if !matched[u as usize].load(Relaxed) && !matched[v as usize].load(Relaxed) {
                    reserved[u as usize].fetch_min(e, Relaxed);
                    reserved[v as usize].fetch_min(e, Relaxed);
                }
            }
        });
        // Commit: an edge holding both endpoints matches them. An edge only ever writes
        // the reservations it holds (which no other edge holds) and sets matched flags
        // of vertices it holds, so the phase's outcome does not depend on timing; an edge
        // that reads a flag another sets in this phase is dropped now or next round.
        let (keep, won) = par::reduce(
            j,
            prefix,
            GRAIN,
            &|piece: &[u32]| {
                let (mut keep, mut won) = (Vec::new(), Vec::new());
                for &e in piece {
                    let (u, v) = edges[e as usize];
                    let (u, v) = (u as usize, v as usize);
                    let (hu, hv) = (
                        reserved[u].load(Relaxed) == e,
                        reserved[v].load(Relaxed) == e,
                    );
                    if hu {
                        reserved[u].store(NONE, Relaxed);
                    }
                    if hv {
                        reserved[v].store(NONE, Relaxed);
                    }
                    if hu && hv {
                        matched[u].store(true, Relaxed);
                        matched[v].store(true, Relaxed);
                        won.push(e);
                    } else if !matched[u].load(Relaxed) && !matched[v].load(Relaxed) {
                        keep.push(e);
                    }
                }
                (vec![keep], vec![won])
            },
            &|(k1, w1), (k2, w2)| (par::join_pieces(k1, k2), par::join_pieces(w1, w2)),
        );
        let (keep, won) = (par::concat(j, keep), par::concat(j, won));
        chosen.extend_from_slice(&won);
        // The retried edges go just before the rest, in order.
        let next = start + len - keep.len();
        pending[next..start + len].copy_from_slice(&keep);
        start = next;
    }
    crate::quicksort(j, &mut chosen);
    chosen
}

/// The sequential greedy maximal matching: the indices (ascending) of the edges that, in
/// edge order, find both endpoints free.
///
/// ```
/// use magpie_apps::pbbs::matching::{greedy, EdgeList};
/// let path = EdgeList { n: 4, edges: vec![(1, 2), (0, 1), (2, 3)] };
/// assert_eq!(greedy(&path), [0]); // 1-2 first blocks both others
/// ```
pub fn greedy(input: &EdgeList) -> Vec<u32> {
    let mut matched = vec![false; input.n];
    let mut chosen = Vec::new();
    for (e, &(u, v)) in input.edges.iter().enumerate() {
        if !matched[u as usize] && !matched[v as usize] {
            matched[u as usize] = true;
            matched[v as usize] = true;
            chosen.push(e as u32);
        }
    }
    chosen
}

/// Checks that `chosen` (edge indices, ascending) is a maximal matching of `input`: the
/// indices are in range and increasing, no two chosen edges share a vertex, and every edge
/// has a matched endpoint. The error names the first offending edge.
///
/// ```
/// use magpie_apps::pbbs::matching::{check, EdgeList};
/// let path = EdgeList { n: 4, edges: vec![(0, 1), (1, 2), (2, 3)] };
/// assert!(check(&path, &[0, 2]).is_ok());
/// assert!(check(&path, &[0]).unwrap_err().contains("not maximal"));
/// assert!(check(&path, &[0, 1]).unwrap_err().contains("shares"));
/// ```
pub fn check(input: &EdgeList, chosen: &[u32]) -> Result<(), String> {
    let mut mate = vec![NONE; input.n];
    for (k, &e) in chosen.iter().enumerate() {
        if k > 0 && chosen[k - 1] >= e {
            return Err(format!("edge indices not increasing at position {k}"));
        }
        let &(u, v) = input
            .edges
            .get(e as usize)
            .ok_or_else(|| format!("edge {e} out of range 0..{}", input.edges.len()))?;
        for x in [u, v] {
            if mate[x as usize] != NONE {
                return Err(format!(
                    "edge {e} ({u}, {v}) shares vertex {x} with edge {}",
                    mate[x as usize]
                ));
            }
            mate[x as usize] = e;
        }
    }
    match input
        .edges
        .iter()
        .position(|&(u, v)| mate[u as usize] == NONE && mate[v as usize] == NONE)
    {
        Some(e) => Err(format!(
            "not maximal: edge {e} {:?} has both endpoints free",
            input.edges[e]
        )),
        None => Ok(()),
    }
}

/// A digest of the matching (its edge indices), equal across runtimes.
pub fn digest(chosen: &[u32]) -> u64 {
    crate::output::fnv64(chosen.iter().map(|&e| u64::from(e)))
}

/// The `maximal-matching` kernel: [`maximal_matching`] of the shuffled edges of a
/// [`DEFAULT_INPUT`] (random local) graph of `size` vertices, each result [`check`]ed
/// before its [`digest`].
///
/// ```
/// use magpie_apps::join::Sequential;
/// use magpie_apps::pbbs::matching::MaximalMatching;
/// use magpie_apps::registry::Kernel;
/// let mut k = MaximalMatching::build(2000, 1).unwrap();
/// let ret = k.run(&mut Sequential);
/// assert!(ret > 0 && ret <= 1000); // the edges chosen
/// assert!(k.digest(ret).is_ok());
/// assert!(MaximalMatching::build(0, 1).unwrap_err().starts_with("--size"));
/// ```
#[derive(Debug)]
pub struct MaximalMatching {
    edges: EdgeList,
    result: Option<Vec<u32>>,
}

impl Kernel for MaximalMatching {
    const NAME: &'static str = "maximal-matching";
    const ABOUT: &'static str =
        "PBBS maximalMatching: greedy matching of a random local graph by deterministic reservations (size: vertices)";
    const FULL: usize = 4_000_000;
    const QUICK: usize = 20_000;

    fn build(size: usize, seed: u64) -> Result<Self, String> {
        let edges = input(DEFAULT_INPUT, size, seed).map_err(|e| e.to_string())?;
        Ok(MaximalMatching {
            edges,
            result: None,
        })
    }

    fn describe(&self) -> String {
        format!(
            "maximal matching of a random local graph of {} vertices, {} edges",
            self.edges.n,
            self.edges.edges.len()
        )
    }

    fn prepare(&mut self) {
        self.result = None;
    }

    fn run<J: Join>(&mut self, j: &mut J) -> u64 {
        let m = maximal_matching(j, &self.edges);
        let chosen = m.len() as u64;
        self.result = Some(m);
        chosen
    }

    fn digest(&self, ret: u64) -> Result<u64, String> {
        let m = self
            .result
            .as_ref()
            .ok_or("maximal-matching: digest before a run")?;
        check(&self.edges, m)?;
        Ok(crate::registry::digest([ret, digest(m)]))
    }
}
