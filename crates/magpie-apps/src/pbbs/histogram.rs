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

/// Keys per task (at least; with per-task arrays and many buckets, 4 keys per bucket so
/// that adding up the arrays stays cheap next to counting).
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
    if buckets <= LOCAL_COUNTS_MAX {
        reduce(
            j,
            keys,
            HISTOGRAM_GRAIN.max(4 * buckets),
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
        // No arrays to add up: HISTOGRAM_GRAIN keys per task, whatever the buckets.
        for_pieces(j, keys, HISTOGRAM_GRAIN, &|block: &[u32]| {
            for &k in block {
                counts[k as usize].fetch_add(1, Ordering::Relaxed);
            }
        });
        counts.into_iter().map(AtomicU64::into_inner).collect()
    }
}

/// The buckets of one histogram kernel, with its name: one type per registered kernel,
/// so that [`Histogram`]'s input, run and check are written once.
pub trait KernelBuckets: Send + 'static {
    /// The kernel's name ([`Kernel::NAME`]).
    const NAME: &'static str;
    /// The kernel's help ([`Kernel::ABOUT`]).
    const ABOUT: &'static str;
    /// The buckets: the keys are uniform below this.
    const BUCKETS: u32;
}

/// [`KERNEL_BUCKETS`] (256) buckets, one count array per task: the `histogram` kernel
/// (PBBS `randomSeq_…_256_int`).
#[derive(Debug)]
pub struct Buckets256;

impl KernelBuckets for Buckets256 {
    const NAME: &'static str = "histogram";
    const ABOUT: &'static str = "PBBS histogram: counts of uniform u32 keys into 256 buckets";
    const BUCKETS: u32 = KERNEL_BUCKETS;
}

/// 100,000 buckets, one shared array of atomic counters (more than
/// [`LOCAL_COUNTS_MAX`]): the `histogram-100k` kernel (PBBS `randomSeq_…_100K_int`).
#[derive(Debug)]
pub struct Buckets100K;

impl KernelBuckets for Buckets100K {
    const NAME: &'static str = "histogram-100k";
    const ABOUT: &'static str =
        "PBBS histogram: counts of uniform u32 keys into 100,000 buckets (atomic counters)";
    const BUCKETS: u32 = 100_000;
}

/// A histogram kernel: [`histogram`] of `size` keys uniform below `B::BUCKETS` (PBBS
/// `randomSeq -r B`) into as many buckets; by default [`Buckets256`], the `histogram`
/// kernel. The digest is that of the counts, checked to add up to `size`.
///
/// ```
/// use magpie_apps::join::Sequential;
/// use magpie_apps::pbbs::histogram::{Histogram, Histogram100K};
/// use magpie_apps::registry::Kernel;
/// let mut k = Histogram100K::build(1000, 1).unwrap();
/// assert!(k.describe().contains("into 100000 buckets"));
/// let ret = k.run(&mut Sequential);
/// assert!(k.digest(ret).is_ok());
/// assert_eq!(<Histogram>::NAME, "histogram");
/// ```
#[derive(Debug)]
pub struct Histogram<B: KernelBuckets = Buckets256> {
    keys: Vec<u32>,
    counts: Vec<u64>,
    buckets: std::marker::PhantomData<fn() -> B>,
}

/// The `histogram-100k` kernel: 100,000 buckets ([`Buckets100K`]).
pub type Histogram100K = Histogram<Buckets100K>;

impl<B: KernelBuckets> Kernel for Histogram<B> {
    const NAME: &'static str = B::NAME;
    const ABOUT: &'static str = B::ABOUT;
    const FULL: usize = 10_000_000;
    const QUICK: usize = 200_000;

    fn build(size: usize, seed: u64) -> Result<Self, String> {
        fits(&format!("{size} u32 keys to count"), size, 4)?;
        Ok(Histogram {
            keys: gen::uniform_u32(size, B::BUCKETS, seed),
            counts: Vec::new(),
            buckets: std::marker::PhantomData,
        })
    }

    fn describe(&self) -> String {
        let how = if B::BUCKETS as usize <= LOCAL_COUNTS_MAX {
            format!("one count array per {HISTOGRAM_GRAIN} keys")
        } else {
            format!("one array of atomic counters, {HISTOGRAM_GRAIN} keys per task")
        };
        format!(
            "histogram of {} u32 keys into {} buckets, {how}",
            self.keys.len(),
            B::BUCKETS
        )
    }

    fn run<J: Join>(&mut self, j: &mut J) -> u64 {
        self.counts = histogram(j, &self.keys, B::BUCKETS as usize);
        0
    }

    fn digest(&self, _ret: u64) -> Result<u64, String> {
        let total: u64 = self.counts.iter().sum();
        if total != self.keys.len() as u64 {
            return Err(format!(
                "{} counted {total} keys of {}",
                B::NAME,
                self.keys.len()
            ));
        }
        Ok(digest(self.counts.iter().copied()))
    }
}
