//! The applications of magpie: the fork-join kernels (at the crate root), the search
//! applications (UTS, NS, N-Queens, maximum clique, knapsack, TSP, graph bipartitioning,
//! subgraph isomorphism), the loop applications (Mandelbrot, dist, Dist-D, histogram,
//! SpMV), single-source shortest paths on task priorities ([`sssp`]), the PBBS kernels
//! ([`pbbs`]), and what they share (inputs, outputs, statistics, seeded generators in
//! [`rng`]).
//!
//! Every fork-join kernel is written once, generic over [`join::Join`]: with
//! [`join::Magpie`] it forks with [`magpie::join`], so it runs on whatever pool it is called
//! from (inside [`magpie::ThreadPool::install`] that pool, elsewhere magpie's global pool);
//! with [`join::Sequential`] it runs on the calling thread; `magpie-bench` runs the same
//! code on rayon and chili.
//!
//! ```
//! use magpie_apps::join::Magpie;
//! let pool = magpie::ThreadPoolBuilder::new().num_workers(2).deque("chase-lev").build().unwrap();
//! assert_eq!(pool.install(|| magpie_apps::fib(&mut Magpie, 20)), 6765);
//! assert_eq!(pool.install(|| magpie_apps::nqueens(&mut Magpie, 8)), 92);
//! ```
#![warn(missing_docs)]

pub mod bipartition;
pub mod dist;
pub mod dist_d;
pub mod histogram;
pub mod input;
pub mod instances;
pub mod join;
mod kernels;
pub mod knapsack;
pub mod lu;
pub mod mandelbrot;
pub mod maxclique;
pub mod mis;
mod names;
pub mod nqueens;
pub mod ns;
pub mod output;
pub mod pbbs;
pub mod pool;
pub mod registry;
pub mod rng;
pub mod sip;
pub mod spmv;
pub mod sssp;
pub mod testdata;
pub mod tsp;
pub mod uts;

pub use kernels::{
    f64_key, fib, gaussian_u64s, key_f64, mergesort, nqueens, partition, prefix_sum,
    prefix_sum_with_cutoff, quicksort, quicksort_with_cutoff, random_u64s, sum, sum_with_cutoff,
    tree_sum, Tree, MERGESORT_CUTOFF, NQUEENS_MAX, NQUEENS_SOLUTIONS, PREFIX_SUM_CUTOFF,
    QUICKSORT_CUTOFF, SUM_CUTOFF,
};

/// The most memory a generated input of the loop applications may take (Mandelbrot's
/// images, `dist`'s costs, `histogram`'s keys, `spmv`'s matrix and vectors): 8 GiB. A size
/// above it is refused before anything is allocated, with a message naming the options,
/// instead of aborting the process with "memory allocation of … bytes failed" (or swapping
/// for minutes); it is a third of the 24 GiB development machine and far above every size
/// the benchmarks use (an 800 × 600 image is 3.7 MiB).
pub const MAX_GENERATED_BYTES: u64 = 8 << 30;

/// Checks that `count` elements of `bytes_each` bytes (the input named by `what`, sized by
/// `options`) fit in [`MAX_GENERATED_BYTES`]; the error names the options, the size and the
/// limit.
///
/// ```
/// assert!(magpie_apps::check_generated_size("--size", "10 keys", 10, 4).is_ok());
/// let e = magpie_apps::check_generated_size("--size", "10^12 keys", 1_000_000_000_000, 4).unwrap_err();
/// assert!(e.to_string().contains("--size") && e.to_string().contains("8 GiB"), "{e}");
/// ```
pub fn check_generated_size(
    options: &str,
    what: &str,
    count: u64,
    bytes_each: u64,
) -> Result<(), input::InputError> {
    match count.checked_mul(bytes_each) {
        Some(bytes) if bytes <= MAX_GENERATED_BYTES => Ok(()),
        bytes => Err(input::InputError::file(
            options,
            format!(
                "{what} would take {} of memory, more than the limit of {} GiB \
                 (magpie_apps::MAX_GENERATED_BYTES)",
                bytes.map_or("more than 2^64 bytes".to_string(), |b| format!(
                    "{:.1} GiB",
                    b as f64 / (1u64 << 30) as f64
                )),
                MAX_GENERATED_BYTES >> 30
            ),
        )),
    }
}
