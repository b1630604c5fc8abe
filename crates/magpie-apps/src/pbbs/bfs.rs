//! Breadth-first search (PBBS `BFS`), top-down and frontier by frontier: every vertex of
//! the current frontier, in parallel, offers itself as parent to its unvisited neighbours
//! with an atomic `fetch_min`; a neighbour whose parent changes from [`NONE`] joins the
//! next frontier (exactly once: only one offer sees `NONE`). Each vertex ends with the
//! **smallest** neighbour of the previous level as its parent, so the result — parents
//! and levels — is the same on every runtime and worker count, and its [`digest`] can be
//! compared between runtimes.
//!
//! The benchmark's three parts: [`input`] (untimed), [`bfs`] from vertex 0 (timed),
//! [`digest`]. [`check`] compares a result with [`sequential_levels`].
//!
//! ```
//! use magpie_apps::join::{Magpie, Sequential};
//! use magpie_apps::pbbs::{bfs, graph_gen::GraphKind};
//!
//! let g = bfs::input(GraphKind::Grid2d, 10_000, 1).unwrap(); // a 100 × 100 torus
//! let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
//! let r = pool.install(|| bfs::bfs(&mut Magpie, &g, 0));
//! assert_eq!(r.levels.iter().max(), Some(&100)); // the far corner, 50 + 50 steps away
//! bfs::check(&g, 0, &r).unwrap();
//! assert_eq!(bfs::digest(&r), bfs::digest(&bfs::bfs(&mut Sequential, &g, 0)));
//! ```

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use super::graph_gen::{self, Graph, GraphKind, NONE};
use super::par;
use crate::input::InputError;
use crate::join::Join;
use crate::registry::Kernel;

/// The frontier vertices one sequential piece handles.
pub const GRAIN: usize = 256;

/// A breadth-first search tree: for each vertex, its parent (the source's is itself,
/// an unreached vertex's [`NONE`]) and its level (the number of edges from the source;
/// [`NONE`] when unreached).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bfs {
    /// The smallest neighbour one level closer to the source.
    pub parents: Vec<u32>,
    /// The distance from the source in edges.
    pub levels: Vec<u32>,
}

/// The generator a benchmark uses unless told otherwise: rMat, the first input of PBBS's
/// BFS (`rMatGraph_J_5_10000000`).
pub const DEFAULT_INPUT: GraphKind = GraphKind::Rmat;

/// The benchmark's input: [`graph_gen::generate`]`(kind, size, seed)`.
pub fn input(kind: GraphKind, size: usize, seed: u64) -> Result<Graph, InputError> {
    graph_gen::generate(kind, size, seed)
}

/// Breadth-first search of `g` from `source` (see the [module](self) docs).
///
/// # Panics
/// If `source` is not a vertex of `g`.
pub fn bfs<J: Join>(j: &mut J, g: &Graph, source: u32) -> Bfs {
    let search = Search::new(g, source);
    let mut frontier = vec![source];
    let mut level = 0u32;
    while !frontier.is_empty() {
        frontier = search.top_down_step(j, g, &frontier, level);
        level += 1;
    }
    search.finish()
}

/// A search in progress, shared by [`bfs`] and
/// [`backforward_bfs`](super::backforward_bfs): each vertex's parent and level so far
/// ([`NONE`] until it is reached), atomics so that a step's tasks can offer parents and
/// read levels concurrently.
pub(crate) struct Search {
    /// The parent of each vertex (the source's is itself), [`NONE`] while unreached.
    pub(crate) parents: Vec<AtomicU32>,
    /// The level of each vertex, [`NONE`] while unreached.
    pub(crate) levels: Vec<AtomicU32>,
}

impl Search {
    /// Only `source` reached, at level 0, its own parent.
    ///
    /// # Panics
    /// If `source` is not a vertex of `g`.
    pub(crate) fn new(g: &Graph, source: u32) -> Search {
        let n = g.num_vertices();
        assert!(
            (source as usize) < n,
            "bfs: source {source} is not one of the {n} vertices"
        );
        let parents: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(NONE)).collect();
        let levels: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(NONE)).collect();
        parents[source as usize].store(source, Relaxed);
        levels[source as usize].store(0, Relaxed);
        Search { parents, levels }
    }

    /// One top-down step: every vertex of `frontier` (the vertices at `level`), in
    /// parallel, offers itself as parent to its unreached neighbours with `fetch_min`;
    /// the neighbours reached (each once) get level `level + 1` and are returned, the next
    /// frontier.
    pub(crate) fn top_down_step<J: Join>(
        &self,
        j: &mut J,
        g: &Graph,
        frontier: &[u32],
        level: u32,
    ) -> Vec<u32> {
        let (parents, levels) = (&self.parents, &self.levels);
        // Levels change only after the offers (below), so every read in the step sees the
        // levels of the steps before it: NONE means "not reached before this step".
        let next = par::flat_map(j, frontier, GRAIN, &|piece: &[u32], out: &mut Vec<u32>| {
            for &u in piece {
                for &v in g.neighbours(u) {
                    let v_ = v as usize;
                    if levels[v_].load(Relaxed) == NONE && parents[v_].fetch_min(u, Relaxed) == NONE
                    {
                        out.push(v);
                    }
                }
            }
        });
        par::for_pieces(j, &next, GRAIN * 16, &|piece: &[u32]| {
            for &v in piece {
                levels[v as usize].store(level + 1, Relaxed);
            }
        });
        next
    }

    /// The tree found. The pool's join publishes every write of the steps to this thread.
    pub(crate) fn finish(self) -> Bfs {
        Bfs {
            parents: self
                .parents
                .into_iter()
                .map(AtomicU32::into_inner)
                .collect(),
            levels: self.levels.into_iter().map(AtomicU32::into_inner).collect(),
        }
    }
}

/// The levels of a plain sequential queue-based BFS from `source` ([`NONE`] when
/// unreached): what [`check`] compares with.
///
/// ```
/// use magpie_apps::pbbs::{bfs, graph_gen::Graph};
/// let g = Graph::from_edges(4, &[(0, 1), (1, 2)]).unwrap();
/// assert_eq!(bfs::sequential_levels(&g, 2), [2, 1, 0, u32::MAX]);
/// ```
pub fn sequential_levels(g: &Graph, source: u32) -> Vec<u32> {
    let mut levels = vec![NONE; g.num_vertices()];
    let mut queue = std::collections::VecDeque::from([source]);
    levels[source as usize] = 0;
    while let Some(u) = queue.pop_front() {
        for &v in g.neighbours(u) {
            if levels[v as usize] == NONE {
                levels[v as usize] = levels[u as usize] + 1;
                queue.push_back(v);
            }
        }
    }
    levels
}

/// Checks `r` as a BFS of `g` from `source`: its levels equal [`sequential_levels`]; the
/// source is its own parent; every other reached vertex's parent is a neighbour one level
/// closer, and the smallest such; unreached vertices have no parent. The error names the
/// first vertex that fails.
///
/// ```
/// use magpie_apps::join::Sequential;
/// use magpie_apps::pbbs::{bfs, graph_gen::grid3d};
/// let g = grid3d(5);
/// let mut r = bfs::bfs(&mut Sequential, &g, 0);
/// bfs::check(&g, 0, &r).unwrap();
/// r.parents[7] = 7;
/// assert!(bfs::check(&g, 0, &r).unwrap_err().contains("vertex 7"));
/// ```
pub fn check(g: &Graph, source: u32, r: &Bfs) -> Result<(), String> {
    let want = sequential_levels(g, source);
    let n = g.num_vertices();
    if r.levels.len() != n || r.parents.len() != n {
        return Err(format!(
            "{} levels and {} parents for {n} vertices",
            r.levels.len(),
            r.parents.len()
        ));
    }
    for v in 0..n as u32 {
        let (lv, p) = (r.levels[v as usize], r.parents[v as usize]);
        if lv != want[v as usize] {
            return Err(format!("vertex {v}: level {lv}, want {}", want[v as usize]));
        }
        let best = if v == source {
            source
        } else if lv == NONE {
            NONE
        } else {
            g.neighbours(v)
                .iter()
                .copied()
                .find(|&u| want[u as usize] == lv - 1)
                .unwrap_or(NONE)
        };
        if p != best {
            return Err(format!(
                "vertex {v} (level {lv}): parent {p}, want {best} (its smallest neighbour one level closer)"
            ));
        }
    }
    Ok(())
}

/// A digest of the result (its parents, then its levels), equal across runtimes.
pub fn digest(r: &Bfs) -> u64 {
    crate::output::fnv64(r.parents.iter().chain(&r.levels).map(|&x| u64::from(x)))
}

/// A BFS algorithm as a kernel runs it: its name and help, and the search. One
/// implementation per registered BFS kernel, so that [`BfsKernel`]'s input, description
/// and check are written once: [`TopDown`] here ([`bfs`]), and
/// [`BackForward`](super::backforward_bfs::BackForward).
pub trait BfsAlgorithm: Send + 'static {
    /// The kernel's name ([`Kernel::NAME`]).
    const NAME: &'static str;
    /// The kernel's help ([`Kernel::ABOUT`]).
    const ABOUT: &'static str;
    /// What the description calls the search, e.g. "BFS".
    const WHAT: &'static str;
    /// The search of `g` from `source`: a result [`check`] accepts.
    fn search<J: Join>(j: &mut J, g: &Graph, source: u32) -> Bfs;
}

/// [`bfs`], top-down frontier by frontier: the `bfs` kernel.
#[derive(Debug)]
pub struct TopDown;

impl BfsAlgorithm for TopDown {
    const NAME: &'static str = "bfs";
    const ABOUT: &'static str =
        "PBBS BFS: breadth-first search tree from vertex 0 of an rMat graph (size: vertices)";
    const WHAT: &'static str = "BFS";

    fn search<J: Join>(j: &mut J, g: &Graph, source: u32) -> Bfs {
        bfs(j, g, source)
    }
}

/// A BFS kernel: `A`'s search (by default [`TopDown`], the `bfs` kernel) from vertex 0
/// of a [`DEFAULT_INPUT`] (rMat) graph of `size` vertices (rounded up to a power of
/// two), each result [`check`]ed before its [`digest`].
///
/// ```
/// use magpie_apps::join::Sequential;
/// use magpie_apps::pbbs::bfs::BfsKernel;
/// use magpie_apps::registry::Kernel;
/// let mut k = <BfsKernel>::build(1000, 1).unwrap(); // 1024 vertices
/// let ret = k.run(&mut Sequential);
/// assert!(ret > 1 && ret <= 1024); // the vertices reached
/// assert!(k.digest(ret).is_ok());
/// assert!(<BfsKernel>::build(0, 1).unwrap_err().starts_with("--size"));
/// ```
#[derive(Debug)]
pub struct BfsKernel<A: BfsAlgorithm = TopDown> {
    graph: Graph,
    result: Option<Bfs>,
    algorithm: std::marker::PhantomData<fn() -> A>,
}

impl<A: BfsAlgorithm> Kernel for BfsKernel<A> {
    const NAME: &'static str = A::NAME;
    const ABOUT: &'static str = A::ABOUT;
    const FULL: usize = 1 << 20;
    const QUICK: usize = 1 << 12;

    fn build(size: usize, seed: u64) -> Result<Self, String> {
        let graph = input(DEFAULT_INPUT, size, seed).map_err(|e| e.to_string())?;
        Ok(BfsKernel {
            graph,
            result: None,
            algorithm: std::marker::PhantomData,
        })
    }

    fn describe(&self) -> String {
        format!(
            "{} from vertex 0 of an rMat graph of {} vertices, {} arcs",
            A::WHAT,
            self.graph.num_vertices(),
            self.graph.num_edges()
        )
    }

    fn prepare(&mut self) {
        self.result = None;
    }

    fn run<J: Join>(&mut self, j: &mut J) -> u64 {
        let r = A::search(j, &self.graph, 0);
        let reached = r.levels.iter().filter(|&&l| l != NONE).count() as u64;
        self.result = Some(r);
        reached
    }

    fn digest(&self, ret: u64) -> Result<u64, String> {
        let r = self
            .result
            .as_ref()
            .ok_or_else(|| format!("{}: digest before a run", A::NAME))?;
        check(&self.graph, 0, r)?;
        Ok(crate::registry::digest([ret, digest(r)]))
    }
}
