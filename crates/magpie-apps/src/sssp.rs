//! Single-source shortest paths with task priorities, as in Pheet's SSSP benchmark (thesis
//! 003 §3.7): Dijkstra's priority queue is replaced by the scheduler's.
//!
//! A task relaxes one vertex `v` at the tentative distance `d` it was spawned with: if
//! `dist[v]` has been improved meanwhile the task is stale and returns at once; otherwise it
//! lowers `dist[w]` to `d + weight` for each neighbour `w` it improves (an atomic
//! `fetch_min`) and spawns `w`'s task with priority `-(d + weight)`, so the nearest vertices
//! run first ([`magpie::Scope::spawn_with_priority`]). The algorithm is label-correcting:
//! a vertex relaxed too early (before its distance was final) is relaxed again when it
//! improves, and the result is exact whatever the order. The order only decides the
//! wasted work, which [`Run::relaxations`] counts: with priorities on one worker it is
//! exactly Dijkstra's (one relaxation per reachable vertex); [`Priorities::Off`] spawns
//! every task at priority 0 (LIFO), the comparison Pheet makes. Without priorities the
//! label-correcting search goes depth first and relaxes vertices very many times: on one
//! worker (debug build) 7,925 relaxations instead of 200 for the random graph of 200
//! vertices, 2.2 million instead of 3,000 for 3,000 vertices, 11 million instead of 2,500
//! for the 50 × 50 grid. Keep `Off` runs small.
//!
//! Weights are integers in `1..=`[`MAX_WEIGHT`], so that distances are exact and the
//! checker ([`dijkstra`], a sequential binary-heap Dijkstra) compares them with `==`; the
//! priority is the distance itself (scale 1).
//!
//! ```
//! use magpie_apps::sssp::{self, GraphKind, Priorities};
//! let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
//! let g = sssp::instance(GraphKind::Grid, 400, 7).unwrap();
//! let run = pool.install(|| sssp::sssp(&g, 0, Priorities::On));
//! assert_eq!(run.distances, sssp::dijkstra(&g, 0));
//! assert!(run.relaxations >= 400); // every vertex of a grid is reachable
//! ```

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::input::InputError;
use crate::rng::XorShift64Star;

/// The largest edge weight of the generated graphs (weights are uniform in `1..=MAX_WEIGHT`).
pub const MAX_WEIGHT: u32 = 1000;

/// The distance of a vertex the source cannot reach.
pub const UNREACHABLE: u64 = u64::MAX;

/// Undirected edges per vertex of the random graph: `G(n, m)` with `m = EDGES_PER_VERTEX * n`
/// (average degree 16). Pheet used the dense `G(10000, 0.5)`; a sparse graph keeps the
/// instance's size linear in `--size` and still makes many relaxations race.
pub const EDGES_PER_VERTEX: usize = 8;

/// A weighted undirected graph in compressed sparse row form (each edge stored both ways).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graph {
    /// `offsets[v]..offsets[v + 1]` indexes `v`'s neighbours in `targets` and `weights`.
    offsets: Vec<usize>,
    targets: Vec<u32>,
    weights: Vec<u32>,
}

impl Graph {
    /// Builds a graph on `n` vertices from undirected weighted edges `(u, v, w)`.
    ///
    /// # Panics
    /// If an endpoint is `>= n`, or `n` does not fit in `u32`.
    ///
    /// ```
    /// let g = magpie_apps::sssp::Graph::from_edges(3, &[(0, 1, 5), (1, 2, 1)]);
    /// assert_eq!(g.n(), 3);
    /// assert_eq!(g.neighbours(1).collect::<Vec<_>>(), [(0, 5), (2, 1)]);
    /// assert_eq!(magpie_apps::sssp::dijkstra(&g, 0), [0, 5, 6]);
    /// ```
    pub fn from_edges(n: usize, edges: &[(u32, u32, u32)]) -> Graph {
        assert!(u32::try_from(n).is_ok(), "{n} vertices do not fit in u32");
        let mut degree = vec![0usize; n + 1];
        for &(u, v, _) in edges {
            assert!(
                (u as usize) < n && (v as usize) < n,
                "edge {u}-{v} out of 0..{n}"
            );
            degree[u as usize + 1] += 1;
            degree[v as usize + 1] += 1;
        }
        for i in 1..=n {
            degree[i] += degree[i - 1];
        }
        let offsets = degree;
        let mut fill = offsets.clone();
        let mut targets = vec![0u32; 2 * edges.len()];
        let mut weights = vec![0u32; 2 * edges.len()];
        for &(u, v, w) in edges {
            for (a, b) in [(u, v), (v, u)] {
                let slot = &mut fill[a as usize];
                targets[*slot] = b;
                weights[*slot] = w;
                *slot += 1;
            }
        }
        Graph {
            offsets,
            targets,
            weights,
        }
    }

    /// The number of vertices.
    pub fn n(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The number of undirected edges.
    pub fn edges(&self) -> usize {
        self.targets.len() / 2
    }

    /// `v`'s neighbours with the weights of the edges to them.
    pub fn neighbours(&self, v: usize) -> impl Iterator<Item = (usize, u64)> + '_ {
        let range = self.offsets[v]..self.offsets[v + 1];
        self.targets[range.clone()]
            .iter()
            .zip(&self.weights[range])
            .map(|(&t, &w)| (t as usize, u64::from(w)))
    }
}

/// The generated graphs, named on the command line (`--graph`).
///
/// ```
/// use magpie_apps::sssp::GraphKind;
/// assert_eq!("grid".parse::<GraphKind>(), Ok(GraphKind::Grid));
/// assert_eq!(GraphKind::NAMES, ["random", "grid"]);
/// let e = "ring".parse::<GraphKind>().unwrap_err();
/// assert_eq!(e, "unknown graph kind \"ring\" (expected one of random, grid)");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphKind {
    /// `G(n, m)`: `m = `[`EDGES_PER_VERTEX`]` · n` edges with uniformly drawn distinct
    /// endpoints (parallel edges possible), uniform weights.
    Random,
    /// A `side × side` 4-neighbour grid, `side = ⌊√size⌋`, uniform random weights.
    Grid,
}

crate::names::named_kinds!(GraphKind, "graph kind", [
    Random => "random",
    Grid => "grid",
]);

/// The largest `size` [`instance`] accepts: 2^26 vertices. A random graph must also fit in
/// [`crate::MAX_GENERATED_BYTES`] (28 bytes per edge while it is built), which limits it to
/// about 2^25 vertices.
pub const MAX_SIZE: usize = 1 << 26;

/// Generates the instance `kind` with about `size` vertices from `seed` (deterministic: the
/// same arguments give the same graph on every platform). The source is vertex 0.
///
/// A `size` below 2 or above [`MAX_SIZE`] is refused with an error naming `--size`.
///
/// ```
/// use magpie_apps::sssp::{instance, GraphKind};
/// let g = instance(GraphKind::Random, 1000, 1).unwrap();
/// assert_eq!((g.n(), g.edges()), (1000, 8000));
/// assert_eq!(g, instance(GraphKind::Random, 1000, 1).unwrap());
/// assert_eq!(instance(GraphKind::Grid, 1000, 1).unwrap().n(), 31 * 31);
/// assert!(instance(GraphKind::Grid, 1, 1).unwrap_err().to_string().starts_with("--size"));
/// ```
pub fn instance(kind: GraphKind, size: usize, seed: u64) -> Result<Graph, InputError> {
    if !(2..=MAX_SIZE).contains(&size) {
        return Err(InputError::file(
            "--size",
            format!("an SSSP graph needs 2 to {MAX_SIZE} vertices (got {size})"),
        ));
    }
    let mut rng = XorShift64Star::new(seed);
    let mut weight = || rng_weight(&mut rng);
    Ok(match kind {
        GraphKind::Random => {
            let m = EDGES_PER_VERTEX * size;
            crate::check_generated_size("--size", &format!("{m} edges"), m as u64, 28)?;
            let mut draw = XorShift64Star::new(seed ^ 0x5353_5350);
            let edges: Vec<_> = (0..m)
                .map(|_| {
                    let u = draw.below(size);
                    let v = (u + 1 + draw.below(size - 1)) % size;
                    (u as u32, v as u32, weight())
                })
                .collect();
            Graph::from_edges(size, &edges)
        }
        GraphKind::Grid => {
            let side = isqrt(size);
            let at = |r: usize, c: usize| (r * side + c) as u32;
            let mut edges = Vec::with_capacity(2 * side * side);
            for r in 0..side {
                for c in 0..side {
                    if c + 1 < side {
                        edges.push((at(r, c), at(r, c + 1), weight()));
                    }
                    if r + 1 < side {
                        edges.push((at(r, c), at(r + 1, c), weight()));
                    }
                }
            }
            Graph::from_edges(side * side, &edges)
        }
    })
}

/// `⌊√n⌋` (`usize::isqrt` is newer than the workspace's minimum Rust).
fn isqrt(n: usize) -> usize {
    let mut r = (n as f64).sqrt() as usize;
    while r * r > n {
        r -= 1;
    }
    while (r + 1) * (r + 1) <= n {
        r += 1;
    }
    r
}

fn rng_weight(rng: &mut XorShift64Star) -> u32 {
    1 + rng.below(MAX_WEIGHT as usize) as u32
}

/// Whether [`sssp`] orders its tasks by distance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Priorities {
    /// Priority `-(tentative distance)`: nearest first.
    On,
    /// Every task at priority 0 (LIFO): the order of plain work stealing.
    Off,
}

/// The outcome of a parallel SSSP run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The distance of each vertex from the source ([`UNREACHABLE`] if none).
    pub distances: Vec<u64>,
    /// Tasks that relaxed their vertex (were not stale when they ran). Dijkstra makes one
    /// per reachable vertex; more is work done on a distance that was not final yet.
    pub relaxations: u64,
    /// Tasks run in all, stale ones included.
    pub tasks: u64,
}

/// Computes the distances from `source` in parallel on the current pool (inside
/// [`magpie::ThreadPool::install`] that pool, elsewhere the global pool), one task per
/// improved vertex, prioritised as `priorities` says (see the [module](self) docs).
///
/// # Panics
/// If `source >= graph.n()`.
pub fn sssp(graph: &Graph, source: usize, priorities: Priorities) -> Run {
    assert!(
        source < graph.n(),
        "source {source} out of 0..{}",
        graph.n()
    );
    let dist: Vec<AtomicU64> = (0..graph.n())
        .map(|_| AtomicU64::new(UNREACHABLE))
        .collect();
    dist[source].store(0, Relaxed);
    let relaxations = AtomicU64::new(0);
    let tasks = AtomicU64::new(0);
    let ctx = Ctx {
        graph,
        dist: &dist,
        relaxations: &relaxations,
        tasks: &tasks,
        priorities,
    };
    magpie::scope(|s| ctx.spawn(s, source, 0));
    Run {
        distances: dist.into_iter().map(AtomicU64::into_inner).collect(),
        relaxations: relaxations.into_inner(),
        tasks: tasks.into_inner(),
    }
}

/// What every task of one run shares.
#[derive(Clone, Copy)]
struct Ctx<'a> {
    graph: &'a Graph,
    dist: &'a [AtomicU64],
    relaxations: &'a AtomicU64,
    tasks: &'a AtomicU64,
    priorities: Priorities,
}

impl<'a> Ctx<'a> {
    fn spawn(self, s: &magpie::Scope<'a>, v: usize, d: u64) {
        let priority = match self.priorities {
            // Distances are at most MAX_WEIGHT · MAX_SIZE < 2^37: no overflow.
            Priorities::On => -(d as i64),
            Priorities::Off => 0,
        };
        s.spawn_with_priority(priority, move |s| self.relax(s, v, d));
    }

    /// The task of vertex `v` spawned at distance `d`.
    fn relax(self, s: &magpie::Scope<'a>, v: usize, d: u64) {
        self.tasks.fetch_add(1, Relaxed);
        if self.dist[v].load(Relaxed) < d {
            return; // stale: a shorter path to `v` was found and spawned its own task
        }
        self.relaxations.fetch_add(1, Relaxed);
        for (w, weight) in self.graph.neighbours(v) {
            let nd = d + weight;
            if nd < self.dist[w].fetch_min(nd, Relaxed) {
                self.spawn(s, w, nd);
            }
        }
    }
}

/// Sequential Dijkstra with a binary heap: the checker of [`sssp`].
///
/// # Panics
/// If `source >= graph.n()`.
pub fn dijkstra(graph: &Graph, source: usize) -> Vec<u64> {
    assert!(
        source < graph.n(),
        "source {source} out of 0..{}",
        graph.n()
    );
    let mut dist = vec![UNREACHABLE; graph.n()];
    let mut heap = BinaryHeap::new();
    dist[source] = 0;
    heap.push(Reverse((0u64, source)));
    while let Some(Reverse((d, v))) = heap.pop() {
        if d > dist[v] {
            continue;
        }
        for (w, weight) in graph.neighbours(v) {
            let nd = d + weight;
            if nd < dist[w] {
                dist[w] = nd;
                heap.push(Reverse((nd, w)));
            }
        }
    }
    dist
}

/// Checks `run` against [`dijkstra`]: `Err` names the first vertex whose distance differs.
///
/// ```
/// use magpie_apps::sssp::{check, instance, sssp, GraphKind, Priorities};
/// let g = instance(GraphKind::Random, 500, 3).unwrap();
/// let run = sssp(&g, 0, Priorities::Off);
/// assert_eq!(check(&g, 0, &run), Ok(()));
/// ```
pub fn check(graph: &Graph, source: usize, run: &Run) -> Result<(), String> {
    let want = dijkstra(graph, source);
    if run.distances.len() != want.len() {
        return Err(format!(
            "{} distances for {} vertices",
            run.distances.len(),
            want.len()
        ));
    }
    match (0..want.len()).find(|&v| run.distances[v] != want[v]) {
        None => Ok(()),
        Some(v) => Err(format!(
            "vertex {v}: distance {} but Dijkstra says {}",
            run.distances[v], want[v]
        )),
    }
}

/// The number of vertices `distances` reaches (Dijkstra's relaxation count).
///
/// ```
/// use magpie_apps::sssp::{reachable, UNREACHABLE};
/// assert_eq!(reachable(&[0, 4, UNREACHABLE]), 2);
/// ```
pub fn reachable(distances: &[u64]) -> u64 {
    distances.iter().filter(|&&d| d != UNREACHABLE).count() as u64
}
