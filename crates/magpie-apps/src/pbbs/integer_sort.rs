//! PBBS integerSort: a parallel least-significant-digit radix sort of `u32` keys, one
//! [`scatter`] (blocked counting, prefix sums, stable scatter) per digit of
//! [`RADIX_BITS`] bits, as many digits as the largest key needs.
//!
//! ```
//! use magpie_apps::join::Sequential;
//! use magpie_apps::pbbs::integer_sort::integer_sort;
//!
//! let mut keys = magpie_apps::pbbs::gen::uniform_u32(100_000, 1 << 20, 1);
//! let mut expected = keys.clone();
//! expected.sort_unstable();
//! let mut tmp = vec![0; keys.len()];
//! integer_sort(&mut Sequential, &mut keys, &mut tmp);
//! assert_eq!(keys, expected);
//! ```

use super::gen;
use super::par::{par_copy, reduce, scatter};
use crate::join::Join;
use crate::registry::{digest, fits, Kernel};

/// Bits per digit: 256 buckets per pass.
pub const RADIX_BITS: u32 = 8;

/// Below this many keys, `sort_unstable` (all runtimes alike).
pub const INTEGER_SORT_CUTOFF: usize = 1 << 14;

/// Keys per task of the maximum's reduction.
const MAX_CHUNK: usize = 1 << 16;

/// Sorts `keys` ascending, using `tmp` (as long as `keys`) as the other buffer of each
/// pass.
///
/// # Panics
///
/// If `tmp.len() != keys.len()`.
pub fn integer_sort<J: Join>(j: &mut J, keys: &mut [u32], tmp: &mut [u32]) {
    assert_eq!(keys.len(), tmp.len(), "integer_sort: scratch length");
    let n = keys.len();
    if n <= INTEGER_SORT_CUTOFF {
        keys.sort_unstable();
        return;
    }
    let max = reduce(
        j,
        keys,
        MAX_CHUNK,
        &|chunk: &[u32]| chunk.iter().copied().max().unwrap_or(0),
        &|a: u32, b: u32| a.max(b),
    );
    let bits = u32::BITS - max.leading_zeros();
    let passes = bits.div_ceil(RADIX_BITS);
    let (mut src, mut dst) = (keys, tmp);
    for pass in 0..passes {
        let shift = pass * RADIX_BITS;
        scatter(j, src, dst, 1 << RADIX_BITS, &|&k: &u32| {
            ((k >> shift) & ((1 << RADIX_BITS) - 1)) as usize
        });
        std::mem::swap(&mut src, &mut dst);
    }
    if passes % 2 == 1 {
        // The sorted keys are in `tmp` (now `src`); `dst` is `keys`.
        par_copy(j, dst, src);
    }
}

/// The `integer-sort` kernel: [`integer_sort`] of `size` keys uniform below `size` (PBBS
/// `randomSeq`'s default range).
#[derive(Debug)]
pub struct IntegerSort {
    unsorted: Vec<u32>,
    work: Vec<u32>,
    tmp: Vec<u32>,
}

impl Kernel for IntegerSort {
    const NAME: &'static str = "integer-sort";
    const ABOUT: &'static str =
        "PBBS integerSort: parallel radix sort of u32 keys uniform below their count";
    const FULL: usize = 10_000_000;
    const QUICK: usize = 200_000;

    fn build(size: usize, seed: u64) -> Result<Self, String> {
        if size > u32::MAX as usize {
            return Err(format!(
                "--size: integer-sort sorts at most 2^32 - 1 keys, not {size}"
            ));
        }
        fits(&format!("{size} u32 keys to sort"), size, 3 * 4)?;
        let unsorted = gen::uniform_u32(size, size.max(1) as u32, seed);
        Ok(IntegerSort {
            work: unsorted.clone(),
            tmp: vec![0; size],
            unsorted,
        })
    }

    fn describe(&self) -> String {
        format!(
            "radix sort of {} u32 keys uniform below {0}, {RADIX_BITS}-bit digits, \
             sort_unstable below {INTEGER_SORT_CUTOFF}",
            self.unsorted.len()
        )
    }

    fn prepare(&mut self) {
        self.work.copy_from_slice(&self.unsorted);
    }

    fn run<J: Join>(&mut self, j: &mut J) -> u64 {
        integer_sort(j, &mut self.work, &mut self.tmp);
        0
    }

    fn digest(&self, _ret: u64) -> Result<u64, String> {
        if !self.work.is_sorted() {
            return Err("integer-sort output is not sorted".into());
        }
        Ok(digest(self.work.iter().map(|&k| k as u64)))
    }
}
