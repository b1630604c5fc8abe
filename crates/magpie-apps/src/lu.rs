//! Blocked LU decomposition without pivoting, fork-join over [`Join`]: the memory-bound
//! benchmark of the Pheet thesis (§3.4, "LU decomposition": 1024 × 1024 doubles in
//! `[-1, 1)`, an algorithm-by-blocks), behind its finding that the original backoff makes
//! LU several times slower (§4.1).
//!
//! Choices where the thesis leaves a detail open or where magpie differs, and why:
//!
//! - **No pivoting**, on a generated *strictly diagonally dominant* matrix ([`generate`]:
//!   off-diagonal entries uniform in `[-1, 1)` as in the thesis, the diagonal `n + 1 + u`),
//!   for which Gaussian elimination without pivoting is stable and never meets a zero pivot.
//!   Pheet's benchmark pivots by rows (with LAPACK); pivoting adds a sequential search per
//!   column but does not change the task structure, the memory traffic or the flop count.
//! - **Right-looking, one step per block column** `k`: factor the diagonal block, then in
//!   parallel (a fork-join tree over the blocks) the row panel `A[k][j] ← L[k][k]⁻¹ A[k][j]`
//!   and the column panel `A[i][k] ← A[i][k] U[k][k]⁻¹`, then in parallel the trailing
//!   update `A[i][j] -= A[i][k] · A[k][j]` for every `i, j > k`. Each block is updated by
//!   the same operations in the same order whatever the runtime or the number of workers,
//!   so [`lu`] on any [`Join`] gives **bit for bit** the result of
//!   `lu(&mut Sequential, …)`, the sequential blocked LU (the tests and `magpie experiment`
//!   check this). It is not bit for bit an *unblocked* LU (the sums are associated
//!   differently); that one agrees within the tolerance of [`check`].
//! - **Storage by blocks** (each `b × b` block contiguous, row-major inside), so a task
//!   touches one contiguous block; an `n` that is not a multiple of the block size is
//!   padded with an identity, which leaves the factors of the original matrix unchanged
//!   (every operation on the padding adds exact zeros).
//!
//! ```
//! use magpie_apps::join::{Magpie, Sequential};
//! use magpie_apps::lu::{self, Blocked};
//!
//! let a = lu::generate(100, 7);
//! let mut m = Blocked::from_rows(100, 16, &a);
//! let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
//! pool.install(|| lu::lu(&mut Magpie, &mut m));
//! let r = lu::check(&a, &m.to_rows(), 100).unwrap();
//! assert!(r.residual <= r.tolerance);
//! let mut s = Blocked::from_rows(100, 16, &a);
//! lu::lu(&mut Sequential, &mut s);
//! assert_eq!(m, s); // bit for bit
//! ```

use crate::join::Join;
use crate::rng::SplitMix64;

/// The matrix order of `magpie experiment`'s `lu` without `--n` (the thesis' 1024).
pub const DEFAULT_N: usize = 1024;
/// The block size of `lu` without `--block`.
pub const DEFAULT_BLOCK: usize = 64;

/// A square matrix stored by blocks, factored in place by [`lu`]: afterwards the strict
/// lower triangle holds `L` (whose diagonal is 1, not stored) and the upper triangle `U`.
#[derive(Debug, Clone, PartialEq)]
pub struct Blocked {
    /// The order of the matrix (without padding).
    n: usize,
    /// The block size.
    block: usize,
    /// Blocks per row and column: `ceil(n / block)`.
    nb: usize,
    /// Block `(i, j)` at `(i * nb + j) * block²`, row-major inside.
    data: Vec<f64>,
}

impl Blocked {
    /// The `n × n` matrix `rows` (row-major) in blocks of `block × block`, padded with an
    /// identity up to a multiple of `block`.
    ///
    /// # Panics
    /// If `block` is 0 or `rows` does not have `n * n` elements.
    ///
    /// ```
    /// use magpie_apps::lu::Blocked;
    /// let m = Blocked::from_rows(3, 2, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    /// assert_eq!(m.get(2, 1), 8.0);
    /// assert_eq!(m.to_rows(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    /// ```
    pub fn from_rows(n: usize, block: usize, rows: &[f64]) -> Blocked {
        assert!(block > 0, "the block size must be at least 1");
        assert_eq!(rows.len(), n * n, "an n × n matrix has n² elements");
        let nb = n.div_ceil(block);
        let mut m = Blocked {
            n,
            block,
            nb,
            data: vec![0.0; nb * nb * block * block],
        };
        for i in n..nb * block {
            let at = m.index(i, i);
            m.data[at] = 1.0;
        }
        for r in 0..n {
            for c in 0..n {
                let at = m.index(r, c);
                m.data[at] = rows[r * n + c];
            }
        }
        m
    }

    /// The order of the matrix.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The block size.
    pub fn block(&self) -> usize {
        self.block
    }

    /// Where element `(r, c)` is in `data`.
    fn index(&self, r: usize, c: usize) -> usize {
        let b = self.block;
        ((r / b) * self.nb + c / b) * b * b + (r % b) * b + c % b
    }

    /// Element `(r, c)`.
    ///
    /// # Panics
    /// If `r` or `c` is not below [`n`](Self::n).
    pub fn get(&self, r: usize, c: usize) -> f64 {
        assert!(
            r < self.n && c < self.n,
            "({r}, {c}) is outside {0}×{0}",
            self.n
        );
        self.data[self.index(r, c)]
    }

    /// The matrix, row-major, without the padding.
    pub fn to_rows(&self) -> Vec<f64> {
        let n = self.n;
        (0..n * n)
            .map(|i| self.data[self.index(i / n, i % n)])
            .collect()
    }
}

/// The `n × n` input (row-major): off-diagonal entries uniform in `[-1, 1)`
/// ([`SplitMix64`]`::new(seed)`), the diagonal `n + 1 + u` with `u` uniform in `[-1, 1)`, so
/// that every row is strictly diagonally dominant (`|a_ii| ≥ n > n − 1 ≥ Σ_{j≠i} |a_ij|`).
///
/// ```
/// let a = magpie_apps::lu::generate(50, 3);
/// assert_eq!(a, magpie_apps::lu::generate(50, 3));
/// for i in 0..50 {
///     let off: f64 = (0..50).filter(|&j| j != i).map(|j| a[i * 50 + j].abs()).sum();
///     assert!(a[i * 50 + i] > off);
/// }
/// ```
pub fn generate(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = SplitMix64::new(seed);
    let mut a: Vec<f64> = (0..n * n).map(|_| 2.0 * rng.next_f64() - 1.0).collect();
    for i in 0..n {
        a[i * n + i] += n as f64 + 1.0;
    }
    a
}

/// Factors `m` in place as `L · U` (see [`Blocked`]), forking with `j`: per block column, the
/// diagonal block on the calling task, then the two panels' blocks and then the trailing
/// blocks each as a fork-join tree with one leaf per block. The result is the same bit for
/// bit on every [`Join`] and number of workers (see the module doc).
///
/// ```
/// use magpie_apps::{join::Sequential, lu::{lu, Blocked}};
/// // [[4, 3], [6, 3]] = [[1, 0], [1.5, 1]] · [[4, 3], [0, -1.5]]
/// let mut m = Blocked::from_rows(2, 1, &[4.0, 3.0, 6.0, 3.0]);
/// lu(&mut Sequential, &mut m);
/// assert_eq!(m.to_rows(), [4.0, 3.0, 1.5, -1.5]);
/// ```
pub fn lu<J: Join>(j: &mut J, m: &mut Blocked) {
    let (b, nb) = (m.block, m.nb);
    let bb = b * b;
    for k in 0..nb {
        factor_block(&mut m.data[(k * nb + k) * bb..][..bb], b);
        // The panels: row k right of the diagonal, column k below it.
        let mut diag: &[f64] = &[];
        let mut panels: Vec<(bool, &mut [f64])> = Vec::with_capacity(2 * (nb - k));
        for (idx, blk) in m.data.chunks_mut(bb).enumerate() {
            let (i, c) = (idx / nb, idx % nb);
            if i == k && c == k {
                diag = blk;
            } else if i == k && c > k {
                panels.push((true, blk));
            } else if c == k && i > k {
                panels.push((false, blk));
            }
        }
        for_each(j, &mut panels, &|(row, blk): &mut (bool, &mut [f64])| {
            if *row {
                solve_unit_lower(diag, blk, b);
            } else {
                solve_upper_right(diag, blk, b);
            }
        });
        // The trailing blocks, each minus its row's column-panel block times its column's
        // row-panel block.
        let mut left: Vec<&[f64]> = vec![&[]; nb];
        let mut up: Vec<&[f64]> = vec![&[]; nb];
        let mut trailing: Vec<(usize, usize, &mut [f64])> = Vec::new();
        for (idx, blk) in m.data.chunks_mut(bb).enumerate() {
            let (i, c) = (idx / nb, idx % nb);
            if i > k && c > k {
                trailing.push((i, c, blk));
            } else if c == k && i > k {
                left[i] = blk;
            } else if i == k && c > k {
                up[c] = blk;
            }
        }
        for_each(j, &mut trailing, &|(i, c, blk): &mut (
            usize,
            usize,
            &mut [f64],
        )| {
            subtract_product(blk, left[*i], up[*c], b);
        });
    }
}

/// Calls `f` on every item, as a fork-join tree that halves `items` down to single items.
fn for_each<J: Join, T: Send, F: Fn(&mut T) + Sync>(j: &mut J, items: &mut [T], f: &F) {
    match items.len() {
        0 => {}
        1 => f(&mut items[0]),
        len => {
            let (a, b) = items.split_at_mut(len / 2);
            j.join(|j| for_each(j, a, f), |j| for_each(j, b, f));
        }
    }
}

/// Unblocked LU of one `b × b` block in place (Doolittle: unit lower `L`).
fn factor_block(a: &mut [f64], b: usize) {
    for p in 0..b {
        let pivot = a[p * b + p];
        for r in p + 1..b {
            let l = a[r * b + p] / pivot;
            a[r * b + p] = l;
            for c in p + 1..b {
                a[r * b + c] -= l * a[p * b + c];
            }
        }
    }
}

/// `x ← L⁻¹ x`, `L` the unit lower triangle of the factored block `lu`.
fn solve_unit_lower(lu: &[f64], x: &mut [f64], b: usize) {
    for p in 0..b {
        for r in p + 1..b {
            let l = lu[r * b + p];
            for c in 0..b {
                x[r * b + c] -= l * x[p * b + c];
            }
        }
    }
}

/// `x ← x U⁻¹`, `U` the upper triangle of the factored block `lu`.
fn solve_upper_right(lu: &[f64], x: &mut [f64], b: usize) {
    for r in 0..b {
        for p in 0..b {
            let mut v = x[r * b + p];
            for q in 0..p {
                v -= x[r * b + q] * lu[q * b + p];
            }
            x[r * b + p] = v / lu[p * b + p];
        }
    }
}

/// `c ← c − a · b` on `n × n` blocks.
fn subtract_product(c: &mut [f64], a: &[f64], bm: &[f64], n: usize) {
    for r in 0..n {
        let crow = &mut c[r * n..(r + 1) * n];
        for t in 0..n {
            let x = a[r * n + t];
            for (cv, bv) in crow.iter_mut().zip(&bm[t * n..(t + 1) * n]) {
                *cv -= x * bv;
            }
        }
    }
}

/// How well factors reproduce their matrix: see [`check`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Residual {
    /// `‖A − L·U‖_F`.
    pub residual: f64,
    /// `‖L‖_F` (with its unit diagonal).
    pub norm_l: f64,
    /// `‖U‖_F`.
    pub norm_u: f64,
    /// `2 · n · ε · ‖L‖_F · ‖U‖_F`, `ε` = [`f64::EPSILON`].
    pub tolerance: f64,
}

/// Checks that the factors `lu` (row-major, `L` strictly below the diagonal with an implied
/// unit diagonal, `U` on and above it) reproduce `a`: `‖A − L·U‖_F ≤ 2 n ε ‖L‖_F ‖U‖_F`.
///
/// The tolerance: LU without pivoting computed in floating point satisfies
/// `|A − L̂Û| ≤ γ_n |L̂||Û|` elementwise, `γ_n = nu/(1 − nu)` with the unit roundoff
/// `u = ε/2` (Higham, *Accuracy and Stability of Numerical Algorithms*, Thm 9.3), so
/// `‖A − L̂Û‖_F ≤ γ_n ‖L̂‖_F ‖Û‖_F ≤ nε ‖L̂‖_F ‖Û‖_F` while `nε < 1`; forming `L̂Û` here
/// rounds by at most as much again, hence the factor 2. A wrong factor is off by far more.
///
/// ```
/// use magpie_apps::lu::check;
/// // [[4, 3], [6, 3]] = [[1, 0], [1.5, 1]] · [[4, 3], [0, -1.5]]
/// let r = check(&[4.0, 3.0, 6.0, 3.0], &[4.0, 3.0, 1.5, -1.5], 2).unwrap();
/// assert_eq!(r.residual, 0.0);
/// assert!(check(&[4.0, 3.0, 6.0, 3.0], &[4.0, 3.0, 1.5, -1.0], 2).is_err());
/// ```
pub fn check(a: &[f64], lu: &[f64], n: usize) -> Result<Residual, String> {
    let mut sq = 0.0;
    let (mut sq_l, mut sq_u) = (n as f64, 0.0);
    let mut row = vec![0.0; n];
    for r in 0..n {
        row.fill(0.0);
        // Row r of L·U: Σ_t L[r][t] · U[t][·], t ≤ r (L[r][r] = 1).
        for t in 0..=r {
            let l = if t == r { 1.0 } else { lu[r * n + t] };
            if t < r {
                sq_l += l * l;
            }
            for c in t..n {
                row[c] += l * lu[t * n + c];
            }
        }
        for c in r..n {
            sq_u += lu[r * n + c] * lu[r * n + c];
        }
        for c in 0..n {
            let d = a[r * n + c] - row[c];
            sq += d * d;
        }
    }
    let (norm_l, norm_u) = (sq_l.sqrt(), sq_u.sqrt());
    let out = Residual {
        residual: sq.sqrt(),
        norm_l,
        norm_u,
        tolerance: 2.0 * n as f64 * f64::EPSILON * norm_l * norm_u,
    };
    // A NaN residual is refused too.
    if out.residual.is_nan() || out.residual > out.tolerance {
        return Err(format!(
            "‖A − L·U‖_F = {:e} exceeds the tolerance 2·n·ε·‖L‖_F·‖U‖_F = {:e}",
            out.residual, out.tolerance
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::join::{Magpie, Sequential};

    /// `a` (`n × n`, row-major) factored by [`lu`] on [`Sequential`] in blocks of `block`.
    fn factor_sequential(n: usize, block: usize, a: &[f64]) -> Blocked {
        let mut m = Blocked::from_rows(n, block, a);
        lu(&mut Sequential, &mut m);
        m
    }

    fn factor_on(workers: usize, n: usize, block: usize, a: &[f64]) -> Blocked {
        let pool = magpie::ThreadPoolBuilder::new()
            .num_workers(workers)
            .build()
            .unwrap();
        let mut m = Blocked::from_rows(n, block, a);
        pool.install(|| lu(&mut Magpie, &mut m));
        m
    }

    #[test]
    fn parallel_is_the_sequential_blocked_lu_bit_for_bit_and_reproduces_a() {
        for (n, block) in [(1, 1), (7, 3), (64, 16), (100, 16), (96, 32), (50, 64)] {
            let a = generate(n, n as u64);
            let want = factor_sequential(n, block, &a);
            check(&a, &want.to_rows(), n).unwrap_or_else(|e| panic!("n {n} b {block}: {e}"));
            for workers in [1, 2, 4] {
                let got = factor_on(workers, n, block, &a);
                assert!(
                    got.data
                        .iter()
                        .zip(&want.data)
                        .all(|(x, y)| x.to_bits() == y.to_bits()),
                    "n {n} block {block} workers {workers}"
                );
            }
        }
    }

    #[test]
    fn blocked_and_unblocked_agree_within_the_tolerance_not_bit_for_bit() {
        let n = 96;
        let a = generate(n, 11);
        let blocked = factor_sequential(n, 16, &a);
        let whole = factor_sequential(n, n, &a);
        let r = check(&a, &whole.to_rows(), n).unwrap();
        assert!(r.residual > 0.0 && r.residual <= r.tolerance, "{r:?}");
        let max_diff = blocked
            .to_rows()
            .iter()
            .zip(whole.to_rows())
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max);
        assert!(max_diff < 1e-12, "{max_diff}");
    }

    #[test]
    fn a_known_factorisation() {
        // [[2, 1, 1], [4, 3, 3], [8, 7, 9]] = [[1,0,0],[2,1,0],[4,3,1]] · [[2,1,1],[0,1,1],[0,0,2]]
        let a = [2.0, 1.0, 1.0, 4.0, 3.0, 3.0, 8.0, 7.0, 9.0];
        let want = [2.0, 1.0, 1.0, 2.0, 1.0, 1.0, 4.0, 3.0, 2.0];
        for block in [1, 2, 3, 4] {
            for workers in [1, 2, 4] {
                assert_eq!(
                    factor_on(workers, 3, block, &a).to_rows(),
                    want,
                    "b {block}"
                );
            }
        }
        assert_eq!(check(&a, &want, 3).unwrap().residual, 0.0);
    }

    #[test]
    fn the_check_refuses_a_wrong_factor() {
        let n = 64;
        let a = generate(n, 5);
        let m = factor_sequential(n, 16, &a);
        let mut rows = m.to_rows();
        rows[40 * n + 3] += 1e-9; // one entry of L, slightly off
        let e = check(&a, &rows, n).unwrap_err();
        assert!(e.contains("exceeds the tolerance"), "{e}");
        rows[40 * n + 3] = f64::NAN;
        assert!(check(&a, &rows, n).is_err());
    }
}
