//! PBBS-style 2-D point inputs, seeded and deterministic: uniform in a square (PBBS's
//! `2DinCube`), uniform in a disk (`2DinSphere`), on a circle (`2DonSphere`, the worst case
//! for a convex hull: almost every point is on it) and Kuzmin's distribution (`2Dkuzmin`,
//! strongly concentrated at the centre, with a long tail).
//!
//! **Coordinates are integers** ([`Point`] holds two `i32`s), where PBBS uses doubles:
//! orientation tests and squared distances are then exact (computed in `i128`/`u128` by
//! [`Point::cross`] and [`Point::dist2`]), so a parallel kernel and its sequential checker
//! decide every near-collinear or equidistant case the same way, and results can be
//! compared exactly. The generators place points in `[-2^30, 2^30)²`.
//!
//! ```
//! use magpie_apps::pbbs::point_gen::{generate, PointKind, RADIUS};
//! let pts = generate(PointKind::Circle, 1000, 1).unwrap();
//! assert_eq!(pts.len(), 1000);
//! let r2 = (RADIUS as f64) * (RADIUS as f64);
//! assert!(pts.iter().all(|p| ((p.x as f64).powi(2) + (p.y as f64).powi(2) - r2).abs() < 4.0 * RADIUS as f64));
//! assert_eq!(pts, generate(PointKind::Circle, 1000, 1).unwrap());
//! ```

use crate::input::InputError;
use crate::rng::SplitMix64;

/// A point of the plane with integer coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Point {
    /// Abscissa.
    pub x: i32,
    /// Ordinate.
    pub y: i32,
}

impl Point {
    /// The point `(x, y)`.
    pub const fn new(x: i32, y: i32) -> Point {
        Point { x, y }
    }

    /// Twice the signed area of the triangle `a, b, c`, exactly: positive when `c` is to
    /// the left of the directed line `a → b` (a counter-clockwise turn), negative to the
    /// right, zero when the three are collinear.
    ///
    /// ```
    /// use magpie_apps::pbbs::point_gen::Point;
    /// let (a, b) = (Point::new(0, 0), Point::new(10, 0));
    /// assert_eq!(Point::cross(a, b, Point::new(3, 2)), 20);
    /// assert!(Point::cross(a, b, Point::new(3, -1)) < 0);
    /// assert_eq!(Point::cross(a, b, Point::new(-7, 0)), 0);
    /// ```
    #[inline]
    pub fn cross(a: Point, b: Point, c: Point) -> i128 {
        let (bx, by) = (
            i64::from(b.x) - i64::from(a.x),
            i64::from(b.y) - i64::from(a.y),
        );
        let (cx, cy) = (
            i64::from(c.x) - i64::from(a.x),
            i64::from(c.y) - i64::from(a.y),
        );
        i128::from(bx) * i128::from(cy) - i128::from(by) * i128::from(cx)
    }

    /// The squared Euclidean distance to `q`, exactly.
    ///
    /// ```
    /// use magpie_apps::pbbs::point_gen::Point;
    /// assert_eq!(Point::new(1, 1).dist2(Point::new(4, 5)), 25);
    /// assert_eq!(Point::new(i32::MIN, i32::MIN).dist2(Point::new(i32::MAX, i32::MAX)), 2 * (u32::MAX as u128).pow(2));
    /// ```
    #[inline]
    pub fn dist2(self, q: Point) -> u128 {
        let dx = u128::from((i64::from(self.x) - i64::from(q.x)).unsigned_abs());
        let dy = u128::from((i64::from(self.y) - i64::from(q.y)).unsigned_abs());
        dx * dx + dy * dy
    }

    /// The coordinate on axis `dim` (0: x, 1: y).
    #[inline]
    pub fn coord(self, dim: usize) -> i32 {
        if dim == 0 {
            self.x
        } else {
            self.y
        }
    }
}

/// The radius of the disk and circle, and half the side of the square the generators
/// draw in: 2^30.
pub const RADIUS: i32 = 1 << 30;

/// The distributions of [`generate`], by their command-line names.
///
/// ```
/// use magpie_apps::pbbs::point_gen::PointKind;
/// assert_eq!("kuzmin".parse::<PointKind>(), Ok(PointKind::Kuzmin));
/// assert_eq!(PointKind::ALL.len(), 4);
/// assert!("cube".parse::<PointKind>().unwrap_err().contains("square"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PointKind {
    /// `square`: uniform in `[-RADIUS, RADIUS)²`.
    Square,
    /// `disk`: uniform in the disk of radius [`RADIUS`] (by rejection from the square).
    Disk,
    /// `circle`: on the circle of radius [`RADIUS`] (uniform angle, rounded to the nearest
    /// integer point).
    Circle,
    /// `kuzmin`: Kuzmin's disk (surface density ∝ (1 + r²)^(-3/2), uniform angle), with
    /// unit length `RADIUS / 256`; the 0.4 % of draws beyond [`RADIUS`] are redrawn.
    Kuzmin,
}

crate::names::named_kinds!(PointKind, "point distribution", [
    Square => "square",
    Disk => "disk",
    Circle => "circle",
    Kuzmin => "kuzmin",
]);

/// The most points [`generate`] makes: 2^31 (indices stay below `u32::MAX`, which the
/// kernels use for "none").
pub const MAX_POINTS: usize = 1 << 31;

/// `n` points of distribution `kind` from `seed` (one generator stream, drawn in order).
/// The error (one line, naming the size) is for `n` = 0, above [`MAX_POINTS`], or above
/// [`crate::MAX_GENERATED_BYTES`].
///
/// ```
/// use magpie_apps::pbbs::point_gen::{generate, PointKind, RADIUS};
/// let pts = generate(PointKind::Disk, 500, 9).unwrap();
/// let r = RADIUS as i64;
/// assert!(pts.iter().all(|p| (p.x as i64).pow(2) + (p.y as i64).pow(2) < r * r));
/// assert!(generate(PointKind::Square, 0, 9).is_err());
/// ```
pub fn generate(kind: PointKind, n: usize, seed: u64) -> Result<Vec<Point>, InputError> {
    if n == 0 || n > MAX_POINTS {
        return Err(InputError::file(
            "--size",
            format!("{n} {kind} points: the size must be in 1..={MAX_POINTS}"),
        ));
    }
    crate::check_generated_size("--size", &format!("{n} {kind} points"), n as u64, 8)?;
    let mut r = SplitMix64::new(seed);
    let r_f = f64::from(RADIUS);
    // A uniform coordinate in [-RADIUS, RADIUS).
    let uniform = |r: &mut SplitMix64| (r.next_u64() >> 33) as i32 - RADIUS;
    let polar = |radius: f64, angle: f64| {
        let clamp =
            |c: f64| (c.round() as i64).clamp(-i64::from(RADIUS), i64::from(RADIUS) - 1) as i32;
        Point::new(clamp(radius * angle.cos()), clamp(radius * angle.sin()))
    };
    let tau = std::f64::consts::TAU;
    Ok((0..n)
        .map(|_| match kind {
            PointKind::Square => Point::new(uniform(&mut r), uniform(&mut r)),
            PointKind::Disk => loop {
                let p = Point::new(uniform(&mut r), uniform(&mut r));
                if Point::default().dist2(p) < (RADIUS as u128).pow(2) {
                    break p;
                }
            },
            PointKind::Circle => polar(r_f, tau * r.next_f64()),
            PointKind::Kuzmin => loop {
                // The mass within radius s is 1 - 1/sqrt(1 + s²): invert it.
                let u = r.next_f64();
                let s = (1.0 / ((1.0 - u) * (1.0 - u)) - 1.0).sqrt();
                let angle = tau * r.next_f64();
                let radius = s * r_f / 256.0;
                if radius < r_f {
                    break polar(radius, angle);
                }
            },
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distributions_have_their_shapes() {
        let n = 20_000;
        let sq = generate(PointKind::Square, n, 1).unwrap();
        // Each quadrant gets about a quarter.
        let q1 = sq.iter().filter(|p| p.x >= 0 && p.y >= 0).count();
        assert!((4_500..5_500).contains(&q1), "{q1}");
        let km = generate(PointKind::Kuzmin, n, 1).unwrap();
        // Half the Kuzmin mass is within s = sqrt(3) units of RADIUS / 256.
        let unit = f64::from(RADIUS) / 256.0;
        let inner = km
            .iter()
            .filter(|p| {
                (f64::from(p.x).powi(2) + f64::from(p.y).powi(2)).sqrt() < 3f64.sqrt() * unit
            })
            .count();
        assert!((9_500..10_500).contains(&inner), "{inner}");
        let c = generate(PointKind::Circle, n, 1).unwrap();
        assert!(c.iter().all(|p| {
            let d = (f64::from(p.x).powi(2) + f64::from(p.y).powi(2)).sqrt();
            (d - f64::from(RADIUS)).abs() <= 1.0
        }));
        for kind in PointKind::ALL {
            assert_ne!(
                generate(kind, 100, 1).unwrap(),
                generate(kind, 100, 2).unwrap()
            );
        }
        assert_eq!(
            generate(PointKind::Disk, 0, 1).unwrap_err().to_string(),
            "--size: 0 disk points: the size must be in 1..=2147483648"
        );
    }
}
