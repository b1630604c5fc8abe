//! PBBS histogram: the number of keys equal to each of `0..buckets`. With few buckets
//! (at most [`LOCAL_COUNTS_MAX`]) every task counts a block of keys into its own array and
//! the arrays are added up the join tree; with more, the tasks count into one array of
//! atomic counters (PBBS switches strategy on the bucket count in the same way).
//!
//! Not the loop application [`crate::histogram`] (a loop over time steps on magpie's
//! loop scheduler): this one is a fork-join kernel over [`Join`].
//!
//! ```
//! use magpie_apps::join::Sequential;
//! use magpie_apps::pbbs::histogram::histogram;
//! assert_eq!(histogram(&mut Sequential, &[0, 2, 2, 3, 2], 4), [1, 0, 3, 1]);
//! ```

use super::gen;
use super::par::{for_pieces, reduce};
use crate::join::Join;
use crate::registry::{digest, fits, Kernel};
use std::sync::atomic::{AtomicU64, Ordering};

/// Keys per task (at least; with many buckets, 4 keys per bucket so that adding up the
/// arrays stays cheap next to counting).
pub const HISTOGRAM_GRAIN: usize = 1 << 14;

/// Above this many buckets, one shared array of atomic counters instead of one array per
/// task.
pub const LOCAL_COUNTS_MAX: usize = 1 << 16;

/// The buckets of the `histogram` kernel.
pub const KERNEL_BUCKETS: u32 = 256;

/// The count of each of `0..buckets` among `keys`.
///
/// # Panics
///
/// If a key is `buckets` or more.
pub fn histogram<J: Join>(j: &mut J, keys: &[u32], buckets: usize) -> Vec<u64> {
    let grain = HISTOGRAM_GRAIN.max(4 * buckets);
    if buckets <= LOCAL_COUNTS_MAX {
        reduce(
            j,
            keys,
            grain,
            &|block: &[u32]| {
                let mut counts = vec![0u64; buckets];
                for &k in block {
                    counts[k as usize] += 1;
                }
                counts
            },
            &|mut a: Vec<u64>, b: Vec<u64>| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        )
    } else {
        let counts: Vec<AtomicU64> = (0..buckets).map(|_| AtomicU64::new(0)).collect();
        for_pieces(j, keys, grain, &|block: &[u32]| {
            for &k in block {
                counts[k as usize].fetch_add(1, Ordering::Relaxed);
            }
        });
        counts.into_iter().map(AtomicU64::into_inner).collect()
    }
}

/// The `histogram` kernel: [`histogram`] of `size` keys uniform below
/// [`KERNEL_BUCKETS`] (PBBS `randomSeq -r 256`) into as many buckets.
#[derive(Debug)]
pub struct Histogram {
    keys: Vec<u32>,
    counts: Vec<u64>,
}

impl Kernel for Histogram {
    const NAME: &'static str = "histogram";
    const ABOUT: &'static str = "PBBS histogram: counts of uniform u32 keys into 256 buckets";
    const FULL: usize = 10_000_000;
    const QUICK: usize = 200_000;

    fn build(size: usize, seed: u64) -> Result<Self, String> {
        fits(&format!("{size} u32 keys to count"), size, 4)?;
        Ok(Histogram {
            keys: gen::uniform_u32(size, KERNEL_BUCKETS, seed),
            counts: Vec::new(),
        })
    }

    fn describe(&self) -> String {
        format!(
            "histogram of {} u32 keys into {KERNEL_BUCKETS} buckets, one count array per \
             {HISTOGRAM_GRAIN} keys",
            self.keys.len()
        )
    }

    fn run<J: Join>(&mut self, j: &mut J) -> u64 {
        self.counts = histogram(j, &self.keys, KERNEL_BUCKETS as usize);
        0
    }

    fn digest(&self, _ret: u64) -> Result<u64, String> {
        let total: u64 = self.counts.iter().sum();
        if total != self.keys.len() as u64 {
            return Err(format!(
                "histogram counted {total} keys of {}",
                self.keys.len()
            ));
        }
        Ok(digest(self.counts.iter().copied()))
    }
}
