//! Direction-optimizing breadth-first search (PBBS `backForwardBFS`; Beamer, Asanović and
//! Patterson, "Direction-Optimizing Breadth-First Search", SC 2012): top-down steps (the
//! frontier offers itself to its neighbours, as in [`bfs`](super::bfs)) while the frontier
//! is small, bottom-up steps (every unreached vertex looks among its neighbours for one in
//! the frontier) while it is large, where most offers of a top-down step would go to
//! vertices already reached.
//!
//! **When to switch.** Beamer's rule, as in his reference code (the GAP Benchmark Suite's
//! `bfs.cc`, `DOBFS`, defaults α = [`ALPHA`] = 15, β = [`BETA`] = 18):
//! - go bottom-up when the frontier's arcs `m_f` exceed `m_u / α`, where `m_u` starts at
//!   every arc of the graph and loses the arcs of each frontier a top-down step expands;
//! - stay bottom-up while the frontier grows or holds more than `n / β` vertices; then go
//!   back to top-down with `m_f` taken as 1 (GAP's choice: the next step is top-down
//!   unless `m_u < α`).
//!
//! PBBS's own backForwardBFS (`common/ligraLight.h`, `edge_map`) switches on the
//! frontier's *size* instead: dense (bottom-up) when it holds more than `5·n²/(2m)`
//! vertices after a sparse step, `n²/(2m)` after a dense one (`m` the graph's edge count).
//! magpie uses Beamer's published α/β rule, whose two thresholds
//! [`backforward_bfs_with`] takes as parameters; the result does not depend on the rule
//! (below), only the time does.
//!
//! **The same tree as [`bfs::bfs`](super::bfs::bfs).** A top-down step is `bfs`'s own
//! (shared, not copied). In a bottom-up step a vertex takes as parent the *smallest*
//! neighbour in the frontier: the first one found, since a [`Graph`]'s neighbour lists are
//! sorted (an invariant its constructors enforce), which is exactly the parent the
//! top-down `fetch_min` leaves. Each vertex is examined by one task only (the one whose
//! block of vertex ids holds it), and the frontier is "level = the current level", so a
//! vertex reached during the step (given the next level) is never mistaken for a frontier
//! vertex. Parents and levels, hence [`bfs::digest`](super::bfs::digest), are therefore
//! equal to `bfs`'s on every runtime and worker count, whichever directions the steps
//! took.
//!
//! ```
//! use magpie_apps::join::{Magpie, Sequential};
//! use magpie_apps::pbbs::{backforward_bfs, bfs, graph_gen::GraphKind};
//!
//! let g = bfs::input(GraphKind::Rmat, 4096, 1).unwrap();
//! let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
//! let (r, steps) = pool.install(|| {
//!     use backforward_bfs::{backforward_bfs_with, ALPHA, BETA};
//!     backforward_bfs_with(&mut Magpie, &g, 0, ALPHA, BETA)
//! });
//! bfs::check(&g, 0, &r).unwrap();
//! assert_eq!(r, bfs::bfs(&mut Sequential, &g, 0)); // the same tree
//! assert!(steps.bottom_up > 0); // rMat's frontier soon holds most arcs
//! // One step per level, the last one finding nothing.
//! let depth = r.levels.iter().filter(|&&l| l != u32::MAX).max().unwrap();
//! assert_eq!(steps.top_down + steps.bottom_up, depth + 1);
//! ```

use std::sync::atomic::Ordering::Relaxed;

use super::bfs::{Bfs, BfsAlgorithm, BfsKernel, Search, GRAIN};
use super::graph_gen::{Graph, NONE};
use super::par;
use crate::join::Join;

/// Beamer's α, GAP's default: go bottom-up when the frontier's arcs exceed `1/α` of the
/// arcs not yet expanded.
pub const ALPHA: usize = 15;

/// Beamer's β, GAP's default: go back to top-down when the frontier shrinks to at most
/// `n/β` vertices.
pub const BETA: usize = 18;

/// The vertices of one piece of a bottom-up step (a block of consecutive ids).
pub const BOTTOM_UP_BLOCK: usize = 4 * GRAIN;

/// How many steps of each direction a search took (one step per level, the last one
/// finding no vertex).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Steps {
    /// Steps from the frontier out to unreached neighbours.
    pub top_down: u32,
    /// Steps from every unreached vertex back to the frontier.
    pub bottom_up: u32,
}

/// [`backforward_bfs_with`] with Beamer's thresholds [`ALPHA`] and [`BETA`]: the same
/// tree as [`bfs::bfs`](super::bfs::bfs).
///
/// ```
/// use magpie_apps::join::Sequential;
/// use magpie_apps::pbbs::{backforward_bfs::backforward_bfs, bfs, graph_gen::grid2d};
/// let g = grid2d(30);
/// assert_eq!(backforward_bfs(&mut Sequential, &g, 0), bfs::bfs(&mut Sequential, &g, 0));
/// ```
///
/// # Panics
/// If `source` is not a vertex of `g`.
pub fn backforward_bfs<J: Join>(j: &mut J, g: &Graph, source: u32) -> Bfs {
    backforward_bfs_with(j, g, source, ALPHA, BETA).0
}

/// Direction-optimizing BFS of `g` from `source` with thresholds `alpha` and `beta` (see
/// the [module](self) docs), and the steps it took in each direction. `alpha = 1` never
/// goes bottom-up; `alpha = beta = usize::MAX` goes bottom-up from the first step whose
/// frontier has an arc and stays there. The tree is the same whatever the thresholds.
///
/// ```
/// use magpie_apps::join::Sequential;
/// use magpie_apps::pbbs::backforward_bfs::{backforward_bfs_with, Steps};
/// use magpie_apps::pbbs::graph_gen::Graph;
/// // A star: centre 0, leaves 1..=20.
/// let star = Graph::from_edges(21, &(1..=20).map(|v| (0, v)).collect::<Vec<_>>()).unwrap();
/// let (r, steps) = backforward_bfs_with(&mut Sequential, &star, 1, 15, 18);
/// // From leaf 1: top-down to the centre, whose 20 arcs exceed the 39 left / 15, so
/// // bottom-up: the other leaves, then nothing.
/// assert_eq!(steps, Steps { top_down: 1, bottom_up: 2 });
/// assert_eq!(&r.levels[..4], [1, 0, 2, 2]);
/// assert_eq!(&r.parents[..4], [1, 1, 0, 0]);
/// let (_, steps) = backforward_bfs_with(&mut Sequential, &star, 1, 1, 18);
/// assert_eq!(steps, Steps { top_down: 3, bottom_up: 0 });
/// ```
///
/// # Panics
/// If `source` is not a vertex of `g`, or `alpha` or `beta` is 0.
pub fn backforward_bfs_with<J: Join>(
    j: &mut J,
    g: &Graph,
    source: u32,
    alpha: usize,
    beta: usize,
) -> (Bfs, Steps) {
    assert!(
        alpha > 0 && beta > 0,
        "backforward_bfs: alpha ({alpha}) and beta ({beta}) must be at least 1"
    );
    let search = Search::new(g, source);
    let n = g.num_vertices();
    // The bottom-up steps' pieces: block b is the vertices b·BOTTOM_UP_BLOCK.. (at most
    // n / 1024 + 1 block ids, so that the steps can use par's slice helpers).
    let blocks: Vec<u32> = (0..n.div_ceil(BOTTOM_UP_BLOCK) as u32).collect();
    let mut steps = Steps::default();
    // Beamer's m_u (GAP's edges_to_check) and m_f (scout_count).
    let mut unexpanded_arcs = 2 * g.num_edges();
    let mut frontier_arcs = g.degree(source);
    let mut frontier = vec![source];
    let mut level = 0u32;
    while !frontier.is_empty() {
        if frontier_arcs > unexpanded_arcs / alpha {
            let mut awake = frontier.len();
            loop {
                let before = awake;
                frontier = bottom_up_step(j, g, &search, &blocks, level);
                level += 1;
                steps.bottom_up += 1;
                awake = frontier.len();
                if awake == 0 || (awake < before && awake <= n / beta) {
                    break;
                }
            }
            frontier_arcs = 1;
        } else {
            // frontier_arcs ≤ unexpanded_arcs / alpha ≤ unexpanded_arcs: no underflow.
            unexpanded_arcs -= frontier_arcs;
            frontier = search.top_down_step(j, g, &frontier, level);
            level += 1;
            steps.top_down += 1;
            frontier_arcs = par::reduce(
                j,
                &frontier,
                GRAIN * 16,
                &|piece: &[u32]| piece.iter().map(|&v| g.degree(v)).sum::<usize>(),
                &|a: usize, b: usize| a + b,
            );
        }
    }
    (search.finish(), steps)
}

/// One bottom-up step: every unreached vertex, in parallel by blocks of
/// [`BOTTOM_UP_BLOCK`] ids, takes as parent its first (smallest) neighbour at `level`, if
/// any, and level `level + 1`; returns the vertices reached, in increasing order (the
/// next frontier).
fn bottom_up_step<J: Join>(
    j: &mut J,
    g: &Graph,
    search: &Search,
    blocks: &[u32],
    level: u32,
) -> Vec<u32> {
    let (parents, levels) = (&search.parents, &search.levels);
    let n = g.num_vertices();
    par::flat_map(j, blocks, 1, &|piece: &[u32], out: &mut Vec<u32>| {
        for &b in piece {
            let start = b as usize * BOTTOM_UP_BLOCK;
            for v in start..n.min(start + BOTTOM_UP_BLOCK) {
                if levels[v].load(Relaxed) != NONE {
                    continue;
                }
                // Only this task writes v; the levels it reads are `level` exactly for the
                // frontier (set before this step), NONE or `level + 1` for the others.
                let found = g
                    .neighbours(v as u32)
                    .iter()
                    .find(|&&u| levels[u as usize].load(Relaxed) == level);
                if let Some(&u) = found {
                    parents[v].store(u, Relaxed);
                    levels[v].store(level + 1, Relaxed);
                    out.push(v as u32);
                }
            }
        }
    })
}

/// [`backforward_bfs`] as a [`BfsKernel`]'s search: the `backforward-bfs` kernel.
#[derive(Debug)]
pub struct BackForward;

impl BfsAlgorithm for BackForward {
    const NAME: &'static str = "backforward-bfs";
    const ABOUT: &'static str = "PBBS backForwardBFS: direction-optimizing (top-down/bottom-up) \
         BFS tree from vertex 0 of an rMat graph, equal to bfs's (size: vertices)";
    const WHAT: &'static str = "back-forward BFS";

    fn search<J: Join>(j: &mut J, g: &Graph, source: u32) -> Bfs {
        backforward_bfs(j, g, source)
    }
}

/// The `backforward-bfs` kernel: [`backforward_bfs`] from vertex 0 of the `bfs` kernel's
/// input (an rMat graph of `size` vertices, rounded up to a power of two), each result
/// [`bfs::check`](super::bfs::check)ed before its digest, which equals the `bfs` kernel's.
///
/// ```
/// use magpie_apps::join::Sequential;
/// use magpie_apps::pbbs::{backforward_bfs::BackForwardBfsKernel, bfs::BfsKernel};
/// use magpie_apps::registry::Kernel;
/// let mut k = BackForwardBfsKernel::build(1000, 1).unwrap();
/// let mut top_down = <BfsKernel>::build(1000, 1).unwrap();
/// let (a, b) = (k.run(&mut Sequential), top_down.run(&mut Sequential));
/// assert_eq!(k.digest(a), top_down.digest(b));
/// assert!(k.describe().starts_with("back-forward BFS from vertex 0 of an rMat graph of 1024"));
/// ```
pub type BackForwardBfsKernel = BfsKernel<BackForward>;
