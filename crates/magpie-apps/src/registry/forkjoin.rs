//! The fork-join kernels' one list: [`Kernel`], what a kernel is to the benchmarks (inputs
//! built untimed from a size and a seed, a timed run generic over [`Join`], an untimed
//! digest of the result), and [`KernelId`]/[`KernelInput`], the enum dispatch that
//! `forkjoin_kernels!` generates from the list below.
//!
//! Adding a kernel means one module with a type implementing [`Kernel`] and one line in the
//! list: `magpie-bench forkjoin` (its `--kernels` names, sizes, descriptions, the runs on
//! magpie, rayon, chili and sequential, the check against the sequential digest) reads
//! nothing else.
//!
//! ```
//! use magpie_apps::join::Sequential;
//! use magpie_apps::registry::KernelId;
//!
//! let fib = KernelId::from_name("fib").unwrap();
//! let mut input = fib.build(20, 1).unwrap();
//! input.prepare();
//! let ret = input.run(&mut Sequential);
//! assert_eq!(input.digest(ret), Ok(6765));
//! assert!(KernelId::from_name("integer-sort").is_some());
//! assert!(KernelId::from_name("nearest-neighbours").is_some());
//! assert!(KernelId::from_name("sudoku").is_none());
//! ```

mod classic;

pub use classic::{Fib, Mergesort, Nqueens, Quicksort, Reduce, TreeSum, REDUCE_GRAIN};

use crate::join::Join;

/// A fork-join kernel as the benchmarks run it.
///
/// The type holds the kernel's input (and scratch space), built once by [`Kernel::build`];
/// each execution is [`prepare`](Kernel::prepare) (untimed: restore an input the run
/// overwrites), [`run`](Kernel::run) (timed, on any runtime's [`Join`]), then
/// [`digest`](Kernel::digest) (untimed: check the result and reduce it to a `u64` that the
/// harness compares with the sequential runtime's).
///
/// ```
/// use magpie_apps::join::{Join, Sequential};
/// use magpie_apps::registry::Kernel;
///
/// /// Counts the leaves of a complete binary tree of the given depth.
/// struct Leaves(u32);
///
/// fn leaves<J: Join>(j: &mut J, d: u32) -> u64 {
///     if d == 0 { return 1; }
///     let (a, b) = j.join(|j| leaves(j, d - 1), |j| leaves(j, d - 1));
///     a + b
/// }
///
/// impl Kernel for Leaves {
///     const NAME: &'static str = "leaves";
///     const ABOUT: &'static str = "leaves of a complete binary tree";
///     const FULL: usize = 24;
///     const QUICK: usize = 12;
///     fn build(size: usize, _seed: u64) -> Result<Self, String> {
///         u32::try_from(size).ok().filter(|&d| d < 40).map(Leaves).ok_or_else(|| "depth below 40".into())
///     }
///     fn describe(&self) -> String { format!("leaves of a tree of depth {}", self.0) }
///     fn run<J: Join>(&mut self, j: &mut J) -> u64 { leaves(j, self.0) }
/// }
///
/// let mut k = Leaves::build(Leaves::QUICK, 0).unwrap();
/// let ret = k.run(&mut Sequential);
/// assert_eq!(k.digest(ret), Ok(4096));
/// ```
pub trait Kernel: Sized + Send {
    /// The name on the command line and in the JSON rows.
    const NAME: &'static str;
    /// One line of help: what the kernel computes.
    const ABOUT: &'static str;
    /// The size the benchmark reports (what the size means is the kernel's: `n` of fib,
    /// elements to sort, keys to count…).
    const FULL: usize;
    /// The size of `--quick`, for smoke tests.
    const QUICK: usize;

    /// Builds the kernel's input of `size` from `seed` (untimed); an error names what is
    /// wrong with the size, in one line.
    fn build(size: usize, seed: u64) -> Result<Self, String>;

    /// A one-line description of the kernel at its size (the table's heading).
    fn describe(&self) -> String;

    /// Untimed preparation before each run (restoring an input the last run overwrote).
    fn prepare(&mut self) {}

    /// The timed part: one execution on `j`, returning a cheap result (or 0 when the result
    /// stays in `self`, see [`Kernel::digest`]).
    fn run<J: Join>(&mut self, j: &mut J) -> u64;

    /// The untimed digest of the run whose return value was `ret`: `ret` itself by default;
    /// kernels that leave their result in `self` check it (an error if it is wrong on its
    /// face, e.g. unsorted) and reduce it to an order-sensitive digest.
    fn digest(&self, ret: u64) -> Result<u64, String> {
        Ok(ret)
    }
}

/// An order-sensitive digest of a sequence of `u64` (to compare outputs cheaply).
///
/// ```
/// use magpie_apps::registry::digest;
/// assert_eq!(digest([1, 2]), digest([1, 2]));
/// assert_ne!(digest([1, 2]), digest([2, 1]));
/// ```
pub fn digest(v: impl IntoIterator<Item = u64>) -> u64 {
    v.into_iter().fold(0xcbf2_9ce4_8422_2325u64, |h, x| {
        (h ^ x).wrapping_mul(0x0100_0000_01b3).rotate_left(17)
    })
}

/// Generates [`KernelId`] (one variant per kernel, with its name, help and sizes) and
/// [`KernelInput`] (one variant per kernel holding its built input, dispatching to its
/// [`Kernel`] methods) from one list of `Variant => Type` lines.
macro_rules! forkjoin_kernels {
    ($($(#[$doc:meta])* $variant:ident => $ty:ty,)*) => {
        /// A fork-join kernel of the list, by name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum KernelId {
            $($(#[$doc])* $variant,)*
        }

        impl KernelId {
            /// Every kernel, in table order.
            pub const ALL: &'static [KernelId] = &[$(KernelId::$variant,)*];

            /// The kernel's name ([`Kernel::NAME`]).
            pub fn name(self) -> &'static str {
                match self { $(KernelId::$variant => <$ty as Kernel>::NAME,)* }
            }

            /// The kernel's one line of help ([`Kernel::ABOUT`]).
            pub fn about(self) -> &'static str {
                match self { $(KernelId::$variant => <$ty as Kernel>::ABOUT,)* }
            }

            /// The kernel's full size ([`Kernel::FULL`]).
            pub fn full_size(self) -> usize {
                match self { $(KernelId::$variant => <$ty as Kernel>::FULL,)* }
            }

            /// The kernel's `--quick` size ([`Kernel::QUICK`]).
            pub fn quick_size(self) -> usize {
                match self { $(KernelId::$variant => <$ty as Kernel>::QUICK,)* }
            }

            /// The kernel called `name`, if any.
            pub fn from_name(name: &str) -> Option<KernelId> {
                KernelId::ALL.iter().copied().find(|k| k.name() == name)
            }

            /// Builds the kernel's input of `size` from `seed` ([`Kernel::build`]).
            pub fn build(self, size: usize, seed: u64) -> Result<KernelInput, String> {
                Ok(match self {
                    $(KernelId::$variant => KernelInput::$variant(<$ty as Kernel>::build(size, seed)?),)*
                })
            }
        }

        /// A kernel's built input: [`Kernel`]'s methods, dispatched on the kernel.
        pub enum KernelInput {
            $(#[doc = concat!("`", stringify!($ty), "`'s input.")] $variant($ty),)*
        }

        impl KernelInput {
            /// Which kernel this is.
            pub fn id(&self) -> KernelId {
                match self { $(KernelInput::$variant(_) => KernelId::$variant,)* }
            }

            /// [`Kernel::describe`].
            pub fn describe(&self) -> String {
                match self { $(KernelInput::$variant(k) => k.describe(),)* }
            }

            /// [`Kernel::prepare`].
            pub fn prepare(&mut self) {
                match self { $(KernelInput::$variant(k) => k.prepare(),)* }
            }

            /// [`Kernel::run`].
            pub fn run<J: Join>(&mut self, j: &mut J) -> u64 {
                match self { $(KernelInput::$variant(k) => k.run(j),)* }
            }

            /// [`Kernel::digest`].
            pub fn digest(&self, ret: u64) -> Result<u64, String> {
                match self { $(KernelInput::$variant(k) => k.digest(ret),)* }
            }
        }
    };
}

forkjoin_kernels! {
    /// fib(32) with no cutoff: every call joins.
    Fib => Fib,
    /// Sum of a balanced binary tree of boxed nodes, joining at every node (chili's shape).
    Tree => TreeSum,
    /// Parallel quicksort of 10M random `u64`.
    Quicksort => Quicksort,
    /// Parallel mergesort of 10M random `u64` with a scratch buffer.
    Mergesort => Mergesort,
    /// Divide-and-conquer sum over 100M `u64`.
    Reduce => Reduce,
    /// N-Queens(12), counting all solutions.
    Nqueens => Nqueens,
    /// PBBS integerSort: parallel radix sort of 10M `u32` keys.
    IntegerSort => crate::pbbs::integer_sort::IntegerSort,
    /// PBBS comparisonSort: parallel sample sort of 10M `f64`.
    ComparisonSort => crate::pbbs::comparison_sort::ComparisonSort,
    /// PBBS histogram: counts of 10M `u32` keys into 256 buckets.
    Histogram => crate::pbbs::histogram::Histogram,
    /// PBBS histogram: counts of 10M `u32` keys into 100,000 buckets (atomic counters).
    Histogram100K => crate::pbbs::histogram::Histogram100K,
    /// PBBS wordCounts: occurrences of each word of a generated Zipf-like text.
    WordCounts => crate::pbbs::word_counts::WordCounts,
    /// PBBS BFS: breadth-first search tree from vertex 0 of an rMat graph of 2^20 vertices.
    Bfs => crate::pbbs::bfs::BfsKernel,
    /// PBBS backForwardBFS: direction-optimizing BFS of the same graph, the same tree.
    BackForwardBfs => crate::pbbs::backforward_bfs::BackForwardBfsKernel,
    /// PBBS maximalMatching: greedy maximal matching of a random local graph of 4·10^6
    /// vertices.
    MaximalMatching => crate::pbbs::matching::MaximalMatching,
    /// PBBS convexHull: quickhull of 10^7 points uniform in a disk.
    ConvexHull => crate::pbbs::hull::ConvexHull,
    /// PBBS nearestNeighbours: each of 10^6 points' nearest other point, by a kd-tree.
    NearestNeighbours => crate::pbbs::neighbours::NearestNeighbours,
}

impl KernelId {
    /// The kernels `magpie-bench forkjoin` runs when `--kernels` is not given: the six
    /// it has always run (the PBBS kernels are named explicitly).
    pub const DEFAULT: &'static [KernelId] = &[
        KernelId::Fib,
        KernelId::Tree,
        KernelId::Quicksort,
        KernelId::Mergesort,
        KernelId::Reduce,
        KernelId::Nqueens,
    ];
}

impl std::fmt::Display for KernelId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// Checks that a kernel's input of `count` elements of `bytes_each` bytes (`what`, e.g.
/// "10^12 keys") fits in [`crate::MAX_GENERATED_BYTES`]; the error names `--size`.
pub(crate) fn fits(what: &str, count: usize, bytes_each: u64) -> Result<(), String> {
    crate::check_generated_size("--size", what, count as u64, bytes_each).map_err(|e| e.to_string())
}

/// An error unless `size` is in `lo..=hi` (`what` names the size's meaning, e.g. "fib's n").
pub(crate) fn in_range(what: &str, size: usize, lo: usize, hi: usize) -> Result<(), String> {
    if (lo..=hi).contains(&size) {
        Ok(())
    } else {
        Err(format!("--size: {what} must be in {lo}..={hi}, not {size}"))
    }
}
