//! 2-D convex hull (PBBS `convexHull`) by parallel quickhull: the leftmost and rightmost
//! points split the points into those below and above the line through them; on each side
//! the point farthest from the line (of ties, the one farthest along it) is on the hull,
//! and the points outside the two new edges recurse, both sides in a `join`. Each filter and farthest-point search is a
//! parallel reduction over the candidates. Exact integer arithmetic ([`Point::cross`])
//! makes every decision the same as the sequential checker's.
//!
//! The hull is given as point indices in counter-clockwise order, starting from the
//! lowest of the leftmost points, with no three consecutive vertices collinear; of several
//! points at the same position, the one with the smallest index stands for them. This is
//! exactly what [`monotone_chain`] (Andrew's algorithm, sequential) returns, which is the
//! check.
//!
//! The benchmark's three parts: [`input`] (untimed), [`convex_hull`] (timed), [`digest`].
//!
//! ```
//! use magpie_apps::join::Magpie;
//! use magpie_apps::pbbs::{hull, point_gen::PointKind};
//!
//! let pts = hull::input(PointKind::Disk, 20_000, 3).unwrap();
//! let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
//! let h = pool.install(|| hull::convex_hull(&mut Magpie, &pts));
//! assert_eq!(h, hull::monotone_chain(&pts));
//! assert!(h.len() > 10 && h.len() < 200);
//! ```

use super::par;
use super::point_gen::{self, Point, PointKind};
use crate::input::InputError;
use crate::join::Join;
use crate::registry::Kernel;

/// The candidate points one sequential piece handles.
pub const GRAIN: usize = 2048;

/// The distribution a benchmark uses unless told otherwise: uniform in a disk, the first
/// input of PBBS's convex hull (`2DinSphere_10M`); [`PointKind::Circle`] is the worst case.
pub const DEFAULT_INPUT: PointKind = PointKind::Disk;

/// The benchmark's input: [`point_gen::generate`]`(kind, size, seed)`.
pub fn input(kind: PointKind, size: usize, seed: u64) -> Result<Vec<Point>, InputError> {
    point_gen::generate(kind, size, seed)
}

/// The order that picks the leftmost (then lowest, then smallest-index) point as the
/// least: `(x, y, index)`.
#[inline]
fn key(pts: &[Point], i: u32) -> (i32, i32, u32) {
    let p = pts[i as usize];
    (p.x, p.y, i)
}

/// The convex hull of `pts` by parallel quickhull (see the [module](self) docs): empty for
/// no points, one index when all points coincide, two when they are collinear.
///
/// # Panics
/// If `pts` has `u32::MAX` points or more.
///
/// ```
/// use magpie_apps::join::Sequential;
/// use magpie_apps::pbbs::{hull::convex_hull, point_gen::Point};
/// let square = [(0, 0), (2, 2), (1, 1), (2, 0), (0, 2), (1, 0), (2, 0)].map(|(x, y)| Point::new(x, y));
/// assert_eq!(convex_hull(&mut Sequential, &square), [0, 3, 1, 4]);
/// ```
pub fn convex_hull<J: Join>(j: &mut J, pts: &[Point]) -> Vec<u32> {
    assert!(
        pts.len() < u32::MAX as usize,
        "convex_hull: too many points"
    );
    if pts.is_empty() {
        return Vec::new();
    }
    let all: Vec<u32> = (0..pts.len() as u32).collect();
    // The least and greatest by (x, y), each with its smallest index.
    let (l, r) = par::reduce(
        j,
        &all,
        GRAIN * 8,
        &|piece: &[u32]| {
            let mut lr = (piece.first().copied(), piece.first().copied());
            for &i in piece {
                lr = extremes(pts, lr, (Some(i), Some(i)));
            }
            lr
        },
        &|a, b| extremes(pts, a, b),
    );
    let (l, r) = (l.expect("not empty"), r.expect("not empty"));
    if pts[l as usize] == pts[r as usize] {
        return vec![l];
    }
    let (lower, upper) = split(j, pts, &all, (l, r), (r, l));
    drop(all);
    let (lower, upper) = j.join(
        |j| chain(j, pts, (l, r), lower),
        |j| chain(j, pts, (r, l), upper),
    );
    let mut hull = Vec::with_capacity(2 + lower.len() + upper.len());
    hull.push(l);
    hull.extend(lower);
    hull.push(r);
    hull.extend(upper);
    hull
}

/// Combines two (least, greatest) pairs by [`key`]; the greatest by (x, y) keeps the
/// smallest index among equal points.
fn extremes(
    pts: &[Point],
    a: (Option<u32>, Option<u32>),
    b: (Option<u32>, Option<u32>),
) -> (Option<u32>, Option<u32>) {
    let lo = match (a.0, b.0) {
        (Some(x), Some(y)) => Some(if key(pts, y) < key(pts, x) { y } else { x }),
        (x, y) => x.or(y),
    };
    let hi = match (a.1, b.1) {
        (Some(x), Some(y)) => {
            let (kx, ky) = (key(pts, x), key(pts, y));
            let greater =
                (ky.0, ky.1) > (kx.0, kx.1) || ((ky.0, ky.1) == (kx.0, kx.1) && ky.2 < kx.2);
            Some(if greater { y } else { x })
        }
        (x, y) => x.or(y),
    };
    (lo, hi)
}

/// The farthest candidate outside an edge `a → b`: `(distance, progress, index)`, with
/// the distance as the cross product's magnitude and the progress as the dot product of
/// `c - a` with `b - a`. Of several points at the greatest distance (on a line parallel to
/// the edge) the one with the greatest progress is a hull vertex (the others may lie
/// between two vertices); of several points at that very position, the smallest index.
type Far = (i128, i128, u32);

/// Candidates strictly outside (to the right of) an edge, with the farthest of them.
type Outside = (Vec<u32>, Option<Far>);

/// [`Outside`] before its pieces are concatenated.
type OutsidePieces = (par::Pieces<u32>, Option<Far>);

/// The farther of two candidates (see [`Far`]).
fn farther(a: Option<Far>, b: Option<Far>) -> Option<Far> {
    match (a, b) {
        (Some(x), Some(y)) => Some(
            if (y.0, y.1) > (x.0, x.1) || ((y.0, y.1) == (x.0, x.1) && y.2 < x.2) {
                y
            } else {
                x
            },
        ),
        (x, y) => x.or(y),
    }
}

/// The dot product of `c - a` with `b - a`, exactly.
#[inline]
fn progress(a: Point, b: Point, c: Point) -> i128 {
    let d = |p: Point, q: Point| {
        (
            i128::from(q.x) - i128::from(p.x),
            i128::from(q.y) - i128::from(p.y),
        )
    };
    let ((bx, by), (cx, cy)) = (d(a, b), d(a, c));
    bx * cx + by * cy
}

/// Splits `cand` into the points strictly right of edge `e1` and those strictly right of
/// edge `e2` (a point right of both goes with `e1`; in quickhull none is), each with its
/// farthest point, in one parallel pass that keeps the candidates' order.
fn split<J: Join>(
    j: &mut J,
    pts: &[Point],
    cand: &[u32],
    e1: (u32, u32),
    e2: (u32, u32),
) -> (Outside, Outside) {
    let [a1, b1, a2, b2] = [e1.0, e1.1, e2.0, e2.1].map(|i| pts[i as usize]);
    let (s1, s2): (OutsidePieces, OutsidePieces) = par::reduce(
        j,
        cand,
        GRAIN,
        &|piece: &[u32]| {
            let (mut v1, mut f1, mut v2, mut f2) = (Vec::new(), None, Vec::new(), None);
            for &i in piece {
                let c = pts[i as usize];
                let d1 = Point::cross(a1, b1, c);
                if d1 < 0 {
                    v1.push(i);
                    f1 = farther(f1, Some((-d1, progress(a1, b1, c), i)));
                    continue;
                }
                let d2 = Point::cross(a2, b2, c);
                if d2 < 0 {
                    v2.push(i);
                    f2 = farther(f2, Some((-d2, progress(a2, b2, c), i)));
                }
            }
            ((vec![v1], f1), (vec![v2], f2))
        },
        &|(l1, l2), (r1, r2)| {
            (
                (par::join_pieces(l1.0, r1.0), farther(l1.1, r1.1)),
                (par::join_pieces(l2.0, r2.0), farther(l2.1, r2.1)),
            )
        },
    );
    let (v1, v2) = j.join(|j| par::concat(j, s1.0), |j| par::concat(j, s2.0));
    ((v1, s1.1), (v2, s2.1))
}

/// The hull vertices strictly between `a` and `b` of edge `(a, b)`, in counter-clockwise
/// order, from the candidates `outside` (all strictly right of `a → b`).
fn chain<J: Join>(j: &mut J, pts: &[Point], (a, b): (u32, u32), outside: Outside) -> Vec<u32> {
    let (cand, far) = outside;
    let Some((_, _, p)) = far else {
        return Vec::new();
    };
    let (s1, s2) = split(j, pts, &cand, (a, p), (p, b));
    drop(cand);
    let (mut left, right) = j.join(|j| chain(j, pts, (a, p), s1), |j| chain(j, pts, (p, b), s2));
    left.push(p);
    left.extend(right);
    left
}

/// The convex hull of `pts` by Andrew's monotone chain, sequentially: the checker of
/// [`convex_hull`], with the same conventions.
///
/// ```
/// use magpie_apps::pbbs::{hull::monotone_chain, point_gen::Point};
/// let pts = [(5, 5), (0, 0), (5, 5), (10, 0), (5, 1)].map(|(x, y)| Point::new(x, y));
/// assert_eq!(monotone_chain(&pts), [1, 3, 0]);
/// assert_eq!(monotone_chain(&pts[..1]), [0]);
/// assert!(monotone_chain(&[]).is_empty());
/// ```
pub fn monotone_chain(pts: &[Point]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..pts.len() as u32).collect();
    order.sort_unstable_by_key(|&i| key(pts, i));
    order.dedup_by_key(|i| pts[*i as usize]);
    if order.len() <= 2 {
        return order;
    }
    // The lower chain left to right, then the upper chain right to left, each turning
    // strictly left at every vertex.
    let half = |order: &mut dyn Iterator<Item = u32>| {
        let mut h: Vec<u32> = Vec::new();
        for i in order {
            while h.len() >= 2
                && Point::cross(
                    pts[h[h.len() - 2] as usize],
                    pts[h[h.len() - 1] as usize],
                    pts[i as usize],
                ) <= 0
            {
                h.pop();
            }
            h.push(i);
        }
        h.pop(); // the other chain's first point
        h
    };
    let mut hull = half(&mut order.iter().copied());
    hull.extend(half(&mut order.iter().rev().copied()));
    hull
}

/// A digest of the hull (its indices in order), equal across runtimes.
pub fn digest(hull: &[u32]) -> u64 {
    crate::output::fnv64(hull.iter().map(|&i| u64::from(i)))
}

/// The `convex-hull` kernel: [`convex_hull`] of `size` points uniform in a disk
/// ([`DEFAULT_INPUT`]); each result is checked on its face (indices in range, every turn
/// strictly counter-clockwise) before its [`digest`], the harness comparing the digests
/// with the sequential run's ([`monotone_chain`] is the tests' full check).
///
/// ```
/// use magpie_apps::join::Sequential;
/// use magpie_apps::pbbs::hull::ConvexHull;
/// use magpie_apps::registry::Kernel;
/// let mut k = ConvexHull::build(5000, 1).unwrap();
/// let ret = k.run(&mut Sequential);
/// assert!(ret > 3 && ret < 200); // the hull's vertices
/// assert!(k.digest(ret).is_ok());
/// assert!(ConvexHull::build(0, 1).unwrap_err().starts_with("--size"));
/// ```
#[derive(Debug)]
pub struct ConvexHull {
    pts: Vec<Point>,
    result: Option<Vec<u32>>,
}

impl Kernel for ConvexHull {
    const NAME: &'static str = "convex-hull";
    const ABOUT: &'static str =
        "PBBS convexHull: parallel quickhull of points uniform in a disk (size: points)";
    const FULL: usize = 10_000_000;
    const QUICK: usize = 100_000;

    fn build(size: usize, seed: u64) -> Result<Self, String> {
        let pts = input(DEFAULT_INPUT, size, seed).map_err(|e| e.to_string())?;
        Ok(ConvexHull { pts, result: None })
    }

    fn describe(&self) -> String {
        format!(
            "quickhull of {} points uniform in a disk, pieces of {GRAIN}",
            self.pts.len()
        )
    }

    fn prepare(&mut self) {
        self.result = None;
    }

    fn run<J: Join>(&mut self, j: &mut J) -> u64 {
        let h = convex_hull(j, &self.pts);
        let vertices = h.len() as u64;
        self.result = Some(h);
        vertices
    }

    fn digest(&self, ret: u64) -> Result<u64, String> {
        let h = self
            .result
            .as_ref()
            .ok_or("convex-hull: digest before a run")?;
        if let Some(&bad) = h.iter().find(|&&i| i as usize >= self.pts.len()) {
            return Err(format!("convex-hull: vertex {bad} is not a point"));
        }
        if h.len() >= 3 {
            let p = |k: usize| self.pts[h[k % h.len()] as usize];
            if let Some(k) = (0..h.len()).find(|&k| Point::cross(p(k), p(k + 1), p(k + 2)) <= 0) {
                return Err(format!(
                    "convex-hull: no left turn at vertex {} (point {})",
                    k + 1,
                    h[(k + 1) % h.len()]
                ));
            }
        }
        Ok(crate::registry::digest([ret, digest(h)]))
    }
}
