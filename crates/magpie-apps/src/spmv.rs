//! Sparse matrix–vector product `y = A·x` over a CSR matrix, parallel over rows: one loop
//! iteration per row, so a matrix with power-law row lengths gives the irregular loop that
//! the adaptive schedules are for. Every row is summed left to right in both versions, so
//! the parallel result equals the sequential one bit for bit.
//!
//! ```
//! use magpie::loops::{Loop, Schedule};
//! use magpie_apps::spmv::{power_law, spmv, spmv_seq, vector};
//! let a = power_law(2000, 2000, 2, 1.5, 9).unwrap();
//! let x = vector(2000, 10);
//! let step = Loop::new("af".parse::<Schedule>().unwrap());
//! let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
//! assert_eq!(pool.install(|| spmv(&a, &x, &step)), spmv_seq(&a, &x));
//! ```

use magpie::loops::Loop;
use serde_json::{json, Value};

use crate::input::InputError;
use crate::output::map_indexed;
use crate::registry::{LoopApp, LoopError, LoopInput, LoopOptions, LoopOutput, LoopReport};
use crate::rng::SplitMix64;

/// The description of `spmv` in [`crate::registry::LOOP_APPS`].
pub static APP: LoopApp = LoopApp {
    name: "spmv",
    options: &["--rows", "--cols", "--min-len", "--alpha", "--seed"],
    default_steps: crate::registry::DEFAULT_LOOP_STEPS,
    input: Input::build,
};

/// The rows without `--rows` (and the columns without `--cols`).
pub const DEFAULT_ROWS: usize = 200_000;
/// The shortest row without `--min-len`.
pub const DEFAULT_MIN_LEN: usize = 4;
/// The power-law exponent of the row lengths without `--alpha`.
pub const DEFAULT_ALPHA: f64 = 1.5;

/// SpMV's input in [`crate::registry`]: the matrix and the vector, and how they were drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    /// The matrix `A` ([`power_law`]).
    pub a: Csr,
    /// The vector `x` ([`vector`]), one entry per column.
    pub x: Vec<f64>,
    /// The shortest row.
    pub min_len: usize,
    /// The power-law exponent of the row lengths.
    pub alpha: f64,
    /// The seed `A` was drawn from (`x`'s is `seed ^ 0x5eed`).
    pub seed: u64,
}

impl Input {
    /// From `--seed` ([`crate::registry::DEFAULT_LOOP_SEED`]), `--rows`
    /// ([`DEFAULT_ROWS`]), `--cols` (the rows), `--min-len` ([`DEFAULT_MIN_LEN`]) and
    /// `--alpha` ([`DEFAULT_ALPHA`]).
    pub fn build(o: &LoopOptions) -> Result<Box<dyn LoopInput>, LoopError> {
        let seed = o.seed()?;
        let rows = o.number("--rows", DEFAULT_ROWS, 1, "the number of rows")?;
        let cols = o.number("--cols", rows, 1, "the number of columns")?;
        let min_len = o.number("--min-len", DEFAULT_MIN_LEN, 1, "the shortest row")?;
        let alpha = o.real("--alpha", DEFAULT_ALPHA)?;
        // At least min_len entries (u32 column, f64 value) per row, the row pointers and y
        // (8 bytes a row), and x (8 bytes a column).
        let per_row = (min_len as u64).saturating_mul(12).saturating_add(16);
        let cols_as_rows = (cols as u64).div_ceil(per_row);
        crate::check_generated_size(
            "--rows/--cols/--min-len",
            &format!("a {rows} x {cols} matrix with rows of at least {min_len} entries"),
            (rows as u64).saturating_add(cols_as_rows),
            per_row,
        )?;
        Ok(Box::new(Input {
            a: power_law(rows, cols, min_len, alpha, seed)?,
            x: vector(cols, seed ^ 0x5eed),
            min_len,
            alpha,
            seed,
        }))
    }
}

impl LoopInput for Input {
    fn app(&self) -> &'static LoopApp {
        &APP
    }

    fn parameters(&self) -> Value {
        json!({"rows": self.a.n_rows(), "cols": self.a.n_cols(), "min_len": self.min_len,
               "alpha": self.alpha, "seed": self.seed, "nnz": self.a.nnz()})
    }

    fn step(&self, _: usize, lp: &Loop) -> LoopOutput {
        LoopOutput::Y(spmv(&self.a, &self.x, lp))
    }

    fn step_seq(&self, _: usize) -> LoopOutput {
        LoopOutput::Y(spmv_seq(&self.a, &self.x))
    }

    /// Every step's `y` bit for bit (by the checksum of its bits).
    fn check_with(&self, want: &LoopOutput, outs: &[LoopOutput]) -> Result<&'static str, String> {
        let w = want.checksum();
        match outs.iter().position(|o| o.checksum() != w) {
            None => Ok("every step's y equals the sequential one bit for bit (spmv_seq)"),
            Some(s) => Err(format!(
                "spmv step {}: y's checksum is {:#018x}, the sequential one's {w:#018x}",
                s + 1,
                outs[s].checksum()
            )),
        }
    }

    /// The checksum and the sum of the last step's `y`.
    fn report(&self, outs: &[LoopOutput]) -> LoopReport {
        let checksum = outs.last().map_or(0, LoopOutput::checksum);
        let sum: f64 = match outs.last() {
            Some(LoopOutput::Y(y)) => y.iter().sum(),
            _ => 0.0,
        };
        LoopReport::new(
            json!({"checksum": checksum, "sum": sum}),
            format!("y checksum {checksum:#018x}"),
        )
    }
}

/// A sparse matrix in compressed sparse row form: the entries of row `r` are
/// `values[row_ptr[r]..row_ptr[r + 1]]` in columns `col_idx[row_ptr[r]..row_ptr[r + 1]]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Csr {
    n_rows: usize,
    n_cols: usize,
    row_ptr: Vec<usize>,
    col_idx: Vec<u32>,
    values: Vec<f64>,
}

impl Csr {
    /// A checked CSR matrix: `row_ptr` has `n_rows + 1` non-decreasing entries from 0 to
    /// `values.len() == col_idx.len()`, every column is below `n_cols`, and `n_cols` fits in
    /// `u32` indices.
    ///
    /// ```
    /// use magpie_apps::spmv::{spmv_seq, Csr};
    /// // [[1, 0], [2, 3]]
    /// let a = Csr::new(2, 2, vec![0, 1, 3], vec![0, 0, 1], vec![1.0, 2.0, 3.0]).unwrap();
    /// assert_eq!(spmv_seq(&a, &[1.0, 10.0]), [1.0, 32.0]);
    /// assert!(Csr::new(2, 2, vec![0, 1, 3], vec![0, 0, 2], vec![1.0, 2.0, 3.0]).is_err());
    /// ```
    pub fn new(
        n_rows: usize,
        n_cols: usize,
        row_ptr: Vec<usize>,
        col_idx: Vec<u32>,
        values: Vec<f64>,
    ) -> Result<Csr, InputError> {
        let bad = |m: String| Err(InputError::file("CSR matrix", m));
        if n_cols as u64 > u64::from(u32::MAX) + 1 {
            return bad(format!("{n_cols} columns do not fit u32 column indices"));
        }
        if row_ptr.len() != n_rows + 1 {
            return bad(format!(
                "row_ptr has {} entries, expected n_rows + 1 = {}",
                row_ptr.len(),
                n_rows + 1
            ));
        }
        if col_idx.len() != values.len() {
            return bad(format!(
                "{} column indices but {} values",
                col_idx.len(),
                values.len()
            ));
        }
        if row_ptr[0] != 0 || row_ptr[n_rows] != values.len() {
            return bad(format!(
                "row_ptr must run from 0 to {} (the number of entries)",
                values.len()
            ));
        }
        if let Some(r) = row_ptr.windows(2).position(|w| w[0] > w[1]) {
            return bad(format!("row_ptr decreases at row {r}"));
        }
        if let Some(&c) = col_idx.iter().find(|&&c| c as usize >= n_cols) {
            return bad(format!("column {c} out of range 0..{n_cols}"));
        }
        Ok(Csr {
            n_rows,
            n_cols,
            row_ptr,
            col_idx,
            values,
        })
    }

    /// The number of rows.
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }

    /// The number of columns.
    pub fn n_cols(&self) -> usize {
        self.n_cols
    }

    /// The number of stored entries.
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// The number of stored entries of row `r`.
    pub fn row_len(&self, r: usize) -> usize {
        self.row_ptr[r + 1] - self.row_ptr[r]
    }

    /// Row `r`: its column indices and values.
    pub fn row(&self, r: usize) -> (&[u32], &[f64]) {
        let span = self.row_ptr[r]..self.row_ptr[r + 1];
        (&self.col_idx[span.clone()], &self.values[span])
    }

    /// Row `r` times `x`, summed left to right from `0.0`.
    ///
    /// # Panics
    ///
    /// If `x` is shorter than the number of columns used.
    #[inline]
    pub fn row_dot(&self, r: usize, x: &[f64]) -> f64 {
        let (cols, vals) = self.row(r);
        let mut sum = 0.0;
        for (&c, &v) in cols.iter().zip(vals) {
            sum += v * x[c as usize];
        }
        sum
    }
}

/// An `n_rows × n_cols` random matrix with skewed row lengths (seeded SplitMix64): row
/// lengths follow a Pareto law, `⌊min_len · (1 − u)^(−1/alpha)⌋` capped at `n_cols` (the
/// smaller `alpha`, the heavier the tail; mean `min_len · alpha / (alpha − 1)` for
/// `alpha > 1` before the cap), columns uniform and sorted within a row (repeats allowed),
/// values uniform on `[-1, 1)`. Errors for `n_cols` of 0 or beyond `u32`, or `alpha` not
/// a finite number > 0.
///
/// ```
/// let a = magpie_apps::spmv::power_law(1000, 500, 1, 1.2, 4).unwrap();
/// assert_eq!(a.n_rows(), 1000);
/// assert!((0..1000).all(|r| (1..=500).contains(&a.row_len(r))));
/// assert_eq!(a, magpie_apps::spmv::power_law(1000, 500, 1, 1.2, 4).unwrap());
/// ```
pub fn power_law(
    n_rows: usize,
    n_cols: usize,
    min_len: usize,
    alpha: f64,
    seed: u64,
) -> Result<Csr, InputError> {
    if n_cols == 0 || n_cols as u64 > u64::from(u32::MAX) + 1 {
        return Err(InputError::file(
            "--cols",
            format!("the number of columns must be in 1..=2^32 (got {n_cols})"),
        ));
    }
    if !(alpha.is_finite() && alpha > 0.0) {
        return Err(InputError::file(
            "--alpha",
            format!("the power-law exponent must be a finite number > 0 (got {alpha})"),
        ));
    }
    let mut rng = SplitMix64::new(seed);
    let mut row_ptr = Vec::with_capacity(n_rows + 1);
    row_ptr.push(0);
    let mut col_idx = Vec::new();
    let mut values = Vec::new();
    for _ in 0..n_rows {
        let u = 1.0 - rng.next_f64(); // (0, 1]
        let len = (min_len as f64 * u.powf(-1.0 / alpha)).min(n_cols as f64) as usize;
        let start = col_idx.len();
        for _ in 0..len {
            col_idx.push((rng.next_u64() % n_cols as u64) as u32);
        }
        col_idx[start..].sort_unstable();
        for _ in 0..len {
            values.push(2.0 * rng.next_f64() - 1.0);
        }
        row_ptr.push(col_idx.len());
    }
    Csr::new(n_rows, n_cols, row_ptr, col_idx, values)
}

/// A seeded vector of `n` values uniform on `[-1, 1)`.
///
/// ```
/// let x = magpie_apps::spmv::vector(5, 1);
/// assert!(x.iter().all(|v| (-1.0..1.0).contains(v)));
/// ```
pub fn vector(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = SplitMix64::new(seed);
    (0..n).map(|_| 2.0 * rng.next_f64() - 1.0).collect()
}

/// `A·x`, sequentially, row by row with [`Csr::row_dot`].
///
/// # Panics
///
/// If `x.len() != a.n_cols()`.
pub fn spmv_seq(a: &Csr, x: &[f64]) -> Vec<f64> {
    assert_eq!(x.len(), a.n_cols, "x must have one entry per column");
    (0..a.n_rows).map(|r| a.row_dot(r, x)).collect()
}

/// `A·x` in parallel on the current pool: one loop iteration per row, scheduled by `lp`
/// (which keeps its history), each writing its own entry. Bit-for-bit equal to [`spmv_seq`] for every schedule.
///
/// # Panics
///
/// If `x.len() != a.n_cols()`.
pub fn spmv(a: &Csr, x: &[f64], lp: &Loop) -> Vec<f64> {
    assert_eq!(x.len(), a.n_cols, "x must have one entry per column");
    map_indexed(lp, a.n_rows, |r| a.row_dot(r, x))
}
