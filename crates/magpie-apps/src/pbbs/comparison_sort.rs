//! PBBS comparisonSort: a parallel sample sort. A sorted random sample (oversampled
//! [`OVERSAMPLE`] times) gives the pivots of about `n / SAMPLE_SORT_CUTOFF` buckets; a
//! [`scatter`] moves every element into its bucket; the buckets are sorted in parallel.
//!
//! ```
//! use magpie_apps::join::Sequential;
//! use magpie_apps::pbbs::comparison_sort::sample_sort_by;
//!
//! let mut v = magpie_apps::pbbs::gen::exponential_f64(100_000, 1);
//! let mut expected = v.clone();
//! expected.sort_by(f64::total_cmp);
//! let mut tmp = vec![0.0; v.len()];
//! sample_sort_by(&mut Sequential, &mut v, &mut tmp, &f64::total_cmp);
//! assert_eq!(v, expected);
//! ```

use super::gen;
use super::par::{par_copy, par_pieces, scatter};
use crate::join::Join;
use crate::registry::{digest, fits, Kernel};
use crate::rng::SplitMix64;
use std::cmp::Ordering;

/// Below this many elements, `sort_unstable_by` (all runtimes alike); also the target size
/// of a bucket.
pub const SAMPLE_SORT_CUTOFF: usize = 1 << 14;

/// Sample elements per bucket.
pub const OVERSAMPLE: usize = 8;

/// At most this many buckets.
pub const MAX_BUCKETS: usize = 1024;

/// Sorts `v` by `cmp` (a total order), using `tmp` (as long as `v`) for the buckets. Not
/// stable.
///
/// # Panics
///
/// If `tmp.len() != v.len()`.
pub fn sample_sort_by<J, T, C>(j: &mut J, v: &mut [T], tmp: &mut [T], cmp: &C)
where
    J: Join,
    T: Copy + Send + Sync,
    C: Fn(&T, &T) -> Ordering + Sync,
{
    assert_eq!(v.len(), tmp.len(), "sample_sort_by: scratch length");
    let n = v.len();
    if n <= SAMPLE_SORT_CUTOFF {
        v.sort_unstable_by(cmp);
        return;
    }
    let buckets = (n / SAMPLE_SORT_CUTOFF).clamp(2, MAX_BUCKETS);
    // The sample: positions drawn from a stream seeded by n (deterministic).
    let mut rng = SplitMix64::new(n as u64);
    let mut sample: Vec<T> = (0..buckets * OVERSAMPLE)
        .map(|_| v[(rng.next_u64() % n as u64) as usize])
        .collect();
    sample.sort_unstable_by(cmp);
    let pivots: Vec<T> = (1..buckets).map(|b| sample[b * OVERSAMPLE]).collect();
    let starts = scatter(j, v, tmp, buckets, &|x: &T| {
        pivots.partition_point(|p| cmp(p, x) == Ordering::Less)
    });
    par_pieces(j, tmp, &starts, &|_, bucket: &mut [T]| {
        bucket.sort_unstable_by(cmp)
    });
    par_copy(j, v, tmp);
}

/// The `comparison-sort` kernel: [`sample_sort_by`] of `size` `f64` uniform in `[0, 1)`
/// (PBBS `randomSeq -t double`), by [`f64::total_cmp`].
#[derive(Debug)]
pub struct ComparisonSort {
    unsorted: Vec<f64>,
    work: Vec<f64>,
    tmp: Vec<f64>,
}

impl Kernel for ComparisonSort {
    const NAME: &'static str = "comparison-sort";
    const ABOUT: &'static str = "PBBS comparisonSort: parallel sample sort of uniform f64";
    const FULL: usize = 10_000_000;
    const QUICK: usize = 200_000;

    fn build(size: usize, seed: u64) -> Result<Self, String> {
        fits(&format!("{size} f64 to sort"), size, 3 * 8)?;
        let unsorted = gen::uniform_f64(size, seed);
        Ok(ComparisonSort {
            work: unsorted.clone(),
            tmp: vec![0.0; size],
            unsorted,
        })
    }

    fn describe(&self) -> String {
        format!(
            "sample sort of {} uniform f64, buckets of about {SAMPLE_SORT_CUTOFF} \
             (at most {MAX_BUCKETS}), sort_unstable below {SAMPLE_SORT_CUTOFF}",
            self.unsorted.len()
        )
    }

    fn prepare(&mut self) {
        self.work.copy_from_slice(&self.unsorted);
    }

    fn run<J: Join>(&mut self, j: &mut J) -> u64 {
        sample_sort_by(j, &mut self.work, &mut self.tmp, &f64::total_cmp);
        0
    }

    fn digest(&self, _ret: u64) -> Result<u64, String> {
        if !self.work.is_sorted_by(|a, b| a.total_cmp(b).is_le()) {
            return Err("comparison-sort output is not sorted".into());
        }
        Ok(digest(self.work.iter().map(|x| x.to_bits())))
    }
}
