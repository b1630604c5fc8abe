//! All nearest neighbours in 2-D (PBBS `nearestNeighbors` with k = 1): a kd-tree is built
//! in parallel (each node splits its points at the median of one axis, alternating x and
//! y, with a selection; the two halves build in a `join`), then every point queries it in
//! parallel. A point's neighbour is the **closest other point, ties to the smallest
//! index** (exact integer distances, [`Point::dist2`]), so the answer is unique and the
//! same on every runtime.
//!
//! The benchmark's three parts: [`input`] (untimed), [`all_nearest`] (timed), [`digest`].
//! [`brute_force`] is the checker for small inputs; for large ones, [`all_nearest`] on
//! [`Sequential`](crate::join::Sequential) and brute force on a sample of points.
//!
//! ```
//! use magpie_apps::join::Magpie;
//! use magpie_apps::pbbs::{neighbours, point_gen::PointKind};
//!
//! let pts = neighbours::input(PointKind::Kuzmin, 2_000, 5).unwrap();
//! let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
//! let nn = pool.install(|| neighbours::all_nearest(&mut Magpie, &pts));
//! assert_eq!(nn, neighbours::brute_force(&pts));
//! ```

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use super::graph_gen::NONE;
use super::par;
use super::point_gen::{self, Point, PointKind};
use crate::input::InputError;
use crate::join::Join;
use crate::registry::Kernel;

/// The most points a kd-tree leaf holds.
pub const LEAF: usize = 16;

/// The points one sequential piece of the build (below this many, no more `join`s) or of
/// the queries handles.
pub const GRAIN: usize = 1024;

/// The distribution a benchmark uses unless told otherwise: uniform in a square, the first
/// input of PBBS's nearest neighbours (`2DinCube_10M`).
pub const DEFAULT_INPUT: PointKind = PointKind::Square;

/// The benchmark's input: [`point_gen::generate`]`(kind, size, seed)`.
pub fn input(kind: PointKind, size: usize, seed: u64) -> Result<Vec<Point>, InputError> {
    point_gen::generate(kind, size, seed)
}

/// A kd-tree over a point set, implicit in a permutation of its indices: a node is a
/// range of `perm` (the root all of it); a node of more than [`LEAF`] points at depth `d`
/// is split at its middle position `m`, after a selection on axis `d mod 2` by
/// (coordinate, index): the pivot `perm[m]` stays there, and the points before it (at
/// most its coordinate) and after it (at least its coordinate) are its two children.
///
/// ```
/// use magpie_apps::join::Sequential;
/// use magpie_apps::pbbs::{neighbours::KdTree, point_gen::Point};
/// let pts: Vec<Point> = (0..100).map(|i| Point::new(i * 10, 0)).collect();
/// let tree = KdTree::build(&mut Sequential, &pts);
/// assert_eq!(tree.nearest(&pts, Point::new(501, 70), None), Some(50));
/// assert_eq!(tree.nearest(&pts, pts[50], Some(50)), Some(49)); // 49 and 51 tie: the smaller
/// assert_eq!(KdTree::build(&mut Sequential, &[]).nearest(&[], Point::new(0, 0), None), None);
/// ```
#[derive(Debug, Clone)]
pub struct KdTree {
    perm: Vec<u32>,
}

impl KdTree {
    /// Builds the tree over `pts` in parallel.
    ///
    /// # Panics
    /// If `pts` has `u32::MAX` points or more.
    pub fn build<J: Join>(j: &mut J, pts: &[Point]) -> KdTree {
        assert!(pts.len() < NONE as usize, "KdTree: too many points");
        let mut perm: Vec<u32> = (0..pts.len() as u32).collect();
        build(j, pts, &mut perm, 0);
        KdTree { perm }
    }

    /// The point of the tree closest to `q` other than `skip` (ties to the smallest index),
    /// or `None` when there is none.
    pub fn nearest(&self, pts: &[Point], q: Point, skip: Option<u32>) -> Option<u32> {
        let mut best = (u128::MAX, NONE);
        search(pts, &self.perm, 0, q, skip.unwrap_or(NONE), &mut best);
        (best.1 != NONE).then_some(best.1)
    }
}

fn build<J: Join>(j: &mut J, pts: &[Point], node: &mut [u32], depth: usize) {
    if node.len() <= LEAF {
        return;
    }
    let (dim, mid) = (depth % 2, node.len() / 2);
    node.select_nth_unstable_by_key(mid, |&i| (pts[i as usize].coord(dim), i));
    // The pivot stays at `mid`, outside both children, so that their builds cannot move
    // it.
    let (lo, rest) = node.split_at_mut(mid);
    let hi = &mut rest[1..];
    if mid * 2 <= GRAIN {
        build(j, pts, lo, depth + 1);
        build(j, pts, hi, depth + 1);
    } else {
        j.join(
            |j| build(j, pts, lo, depth + 1),
            |j| build(j, pts, hi, depth + 1),
        );
    }
}

/// Improves `best` (squared distance, index) with the points of `node` other than `skip`.
fn search(pts: &[Point], node: &[u32], depth: usize, q: Point, skip: u32, best: &mut (u128, u32)) {
    if node.len() <= LEAF {
        for &i in node {
            if i != skip {
                let cand = (q.dist2(pts[i as usize]), i);
                if cand < *best {
                    *best = cand;
                }
            }
        }
        return;
    }
    let (dim, mid) = (depth % 2, node.len() / 2);
    let pivot = node[mid];
    if pivot != skip {
        let cand = (q.dist2(pts[pivot as usize]), pivot);
        if cand < *best {
            *best = cand;
        }
    }
    let split = i64::from(pts[pivot as usize].coord(dim));
    let diff = i64::from(q.coord(dim)) - split;
    let (near, far) = if diff < 0 {
        (&node[..mid], &node[mid + 1..])
    } else {
        (&node[mid + 1..], &node[..mid])
    };
    search(pts, near, depth + 1, q, skip, best);
    // Every point of `far` is at least |diff| away along this axis; at exactly that
    // distance it may still win a tie by index.
    let bound = u128::from(diff.unsigned_abs()).pow(2);
    if bound <= best.0 {
        search(pts, far, depth + 1, q, skip, best);
    }
}

/// Each point's nearest other point (see the [module](self) docs), [`NONE`] for a lone
/// point: a kd-tree built in parallel, then the queries in parallel, in the tree's order
/// (so that consecutive queries walk nearly the same paths).
pub fn all_nearest<J: Join>(j: &mut J, pts: &[Point]) -> Vec<u32> {
    let tree = KdTree::build(j, pts);
    let out: Vec<AtomicU32> = (0..pts.len()).map(|_| AtomicU32::new(NONE)).collect();
    par::for_pieces(j, &tree.perm, GRAIN, &|piece: &[u32]| {
        for &i in piece {
            let nn = tree.nearest(pts, pts[i as usize], Some(i)).unwrap_or(NONE);
            out[i as usize].store(nn, Relaxed);
        }
    });
    // The pool's join publishes every store to this thread.
    out.into_iter().map(AtomicU32::into_inner).collect()
}

/// The nearest neighbour of point `i` by scanning every point (ties to the smallest index;
/// [`NONE`] for a lone point).
///
/// ```
/// use magpie_apps::pbbs::{neighbours::nearest_by_scan, point_gen::Point};
/// let pts = [(0, 0), (3, 4), (-3, -4), (1, 1)].map(|(x, y)| Point::new(x, y));
/// assert_eq!(nearest_by_scan(&pts, 0), 3);
/// assert_eq!(nearest_by_scan(&pts, 3), 0);
/// ```
pub fn nearest_by_scan(pts: &[Point], i: usize) -> u32 {
    (0..pts.len())
        .filter(|&k| k != i)
        .map(|k| (pts[i].dist2(pts[k]), k as u32))
        .min()
        .map_or(NONE, |b| b.1)
}

/// Every point's nearest neighbour by brute force (O(n²)): the checker for small inputs.
pub fn brute_force(pts: &[Point]) -> Vec<u32> {
    (0..pts.len()).map(|i| nearest_by_scan(pts, i)).collect()
}

/// A digest of the neighbours, equal across runtimes.
pub fn digest(nn: &[u32]) -> u64 {
    crate::output::fnv64(nn.iter().map(|&i| u64::from(i)))
}

/// The `nearest-neighbours` kernel: [`all_nearest`] of `size` points uniform in a square
/// ([`DEFAULT_INPUT`]); each result is checked on its face (every point's neighbour is
/// another point) before its [`digest`], the harness comparing the digests with the
/// sequential run's ([`brute_force`] is the tests' full check).
///
/// ```
/// use magpie_apps::join::Sequential;
/// use magpie_apps::pbbs::neighbours::NearestNeighbours;
/// use magpie_apps::registry::Kernel;
/// let mut k = NearestNeighbours::build(3000, 1).unwrap();
/// let ret = k.run(&mut Sequential);
/// assert!(k.digest(ret).is_ok());
/// assert!(NearestNeighbours::build(0, 1).unwrap_err().starts_with("--size"));
/// ```
#[derive(Debug)]
pub struct NearestNeighbours {
    pts: Vec<Point>,
    result: Option<Vec<u32>>,
}

impl Kernel for NearestNeighbours {
    const NAME: &'static str = "nearest-neighbours";
    const ABOUT: &'static str =
        "PBBS nearestNeighbours: each point's nearest other point by a parallel kd-tree, points uniform in a square (size: points)";
    const FULL: usize = 1_000_000;
    const QUICK: usize = 20_000;

    fn build(size: usize, seed: u64) -> Result<Self, String> {
        let pts = input(DEFAULT_INPUT, size, seed).map_err(|e| e.to_string())?;
        Ok(NearestNeighbours { pts, result: None })
    }

    fn describe(&self) -> String {
        format!(
            "nearest neighbour of each of {} points uniform in a square, kd-tree leaves of {LEAF}",
            self.pts.len()
        )
    }

    fn prepare(&mut self) {
        self.result = None;
    }

    fn run<J: Join>(&mut self, j: &mut J) -> u64 {
        self.result = Some(all_nearest(j, &self.pts));
        0
    }

    fn digest(&self, _ret: u64) -> Result<u64, String> {
        let nn = self
            .result
            .as_ref()
            .ok_or("nearest-neighbours: digest before a run")?;
        let n = self.pts.len();
        let lone = n == 1;
        if let Some((i, &k)) = nn.iter().enumerate().find(|&(i, &k)| {
            if lone {
                k != NONE
            } else {
                k as usize >= n || k as usize == i
            }
        }) {
            return Err(format!("nearest-neighbours: point {i} has neighbour {k}"));
        }
        Ok(digest(nn))
    }
}
