//! Fork-join kernels for magpie, shared by the `magpie demo` command and the benchmarks.
//!
//! Every kernel forks with [`magpie::join`], so it runs on whatever pool it is called from:
//! inside [`magpie::ThreadPool::install`] it uses that pool, elsewhere magpie's global pool.
//!
//! ```
//! let pool = magpie::ThreadPoolBuilder::new().num_workers(2).deque("chase-lev").build().unwrap();
//! assert_eq!(pool.install(|| magpie_apps::fib(20)), 6765);
//! assert_eq!(pool.install(|| magpie_apps::nqueens(8)), 92);
//! ```
#![warn(missing_docs)]

pub mod dist;
pub mod histogram;
pub mod input;
pub mod knapsack;
pub mod mandelbrot;
pub mod maxclique;
pub mod nqueens;
pub mod ns;
pub mod output;
pub mod pool;
pub mod rng;
pub mod shared;
pub mod spmv;
pub mod stats;
pub mod tsp;
pub mod uts;

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

/// Fibonacci by naive doubly recursive fork-join with **no** sequential cutoff: every call
/// above the leaves forks. It does almost no work per task, so it measures the cost of
/// `join` itself (push, pop, and steals when they happen).
///
/// ```
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).deque("chase-lev").build().unwrap();
/// assert_eq!(pool.install(|| magpie_apps::fib(25)), 75_025);
/// ```
pub fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = magpie::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

/// Sequential Fibonacci by the same recursion as [`fib`] (the baseline for its overhead).
///
/// ```
/// assert_eq!(magpie_apps::fib_seq(30), 832_040);
/// ```
pub fn fib_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_seq(n - 1) + fib_seq(n - 2)
}

/// Number of solutions of the N-Queens problem for `n = 0, 1, …, 16` (OEIS A000170), to
/// check [`nqueens()`] against.
pub const NQUEENS_SOLUTIONS: [u64; 17] = [
    1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14_200, 73_712, 365_596, 2_279_184, 14_772_512,
];

/// The largest board [`nqueens()`] accepts.
pub const NQUEENS_MAX: u32 = 32;

/// Counts the ways to place `n` non-attacking queens on an `n × n` board, forking with
/// [`magpie::join`] over the free columns of every row (the candidate set is split in halves
/// recursively, so each node of the search tree becomes a small binary tree of joins). No
/// sequential cutoff: like [`fib`], it is a fine-grained, irregular workload.
///
/// # Panics
///
/// If `n > NQUEENS_MAX` (32).
///
/// ```
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).deque("chase-lev").build().unwrap();
/// assert_eq!(pool.install(|| magpie_apps::nqueens(10)), 724);
/// ```
pub fn nqueens(n: u32) -> u64 {
    assert!(
        n <= NQUEENS_MAX,
        "nqueens({n}): boards larger than {NQUEENS_MAX} are not supported"
    );
    let all = full_mask(n);
    queens_row(all, 0, 0, 0)
}

fn full_mask(n: u32) -> u64 {
    if n == 0 {
        0
    } else {
        u64::MAX >> (64 - n)
    }
}

/// One row: `cols`, `left`, `right` are the columns attacked vertically and diagonally.
fn queens_row(all: u64, cols: u64, left: u64, right: u64) -> u64 {
    if cols == all {
        return 1;
    }
    let free = all & !(cols | left | right);
    queens_candidates(all, free, cols, left, right)
}

/// Tries every column in `free` for the current row, splitting `free` in halves via `join`.
fn queens_candidates(all: u64, free: u64, cols: u64, left: u64, right: u64) -> u64 {
    match free.count_ones() {
        0 => 0,
        1 => queens_row(
            all,
            cols | free,
            ((left | free) << 1) & all,
            (right | free) >> 1,
        ),
        k => {
            // The lowest k/2 candidate bits go left, the rest right.
            let mut low = 0;
            let mut rest = free;
            for _ in 0..k / 2 {
                let bit = rest & rest.wrapping_neg();
                low |= bit;
                rest ^= bit;
            }
            let (a, b) = magpie::join(
                || queens_candidates(all, low, cols, left, right),
                || queens_candidates(all, rest, cols, left, right),
            );
            a + b
        }
    }
}

/// Below this length [`quicksort`] sorts sequentially (`sort_unstable`).
pub const QUICKSORT_CUTOFF: usize = 4096;

/// Sorts `v` in place by parallel quicksort: three-way partition around a median-of-three
/// pivot, then sort the smaller and the larger keys with [`magpie::join`]; slices shorter
/// than [`QUICKSORT_CUTOFF`] are sorted sequentially. Not stable.
///
/// ```
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).deque("chase-lev").build().unwrap();
/// let mut v: Vec<u64> = (0..100_000u64).map(|i| (i * 7919) % 100_003).collect();
/// pool.install(|| magpie_apps::quicksort(&mut v));
/// assert!(v.windows(2).all(|w| w[0] <= w[1]));
/// assert_eq!(v[0], 0);
/// ```
pub fn quicksort<T: Ord + Send>(v: &mut [T]) {
    quicksort_with_cutoff(v, QUICKSORT_CUTOFF)
}

/// [`quicksort`] with a chosen sequential cutoff (at least 2 is used).
///
/// ```
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).deque("chase-lev").build().unwrap();
/// let mut v = vec![5u64, 3, 9, 1, 1, 0, 7];
/// pool.install(|| magpie_apps::quicksort_with_cutoff(&mut v, 2));
/// assert_eq!(v, [0, 1, 1, 3, 5, 7, 9]);
/// ```
pub fn quicksort_with_cutoff<T: Ord + Send>(v: &mut [T], cutoff: usize) {
    let cutoff = cutoff.max(2);
    if v.len() <= cutoff {
        v.sort_unstable();
        return;
    }
    let (lt, gt) = partition(v);
    let (left, rest) = v.split_at_mut(lt);
    // `rest[..gt - lt]` equals the pivot and is already in place.
    let right = &mut rest[gt - lt..];
    magpie::join(
        || quicksort_with_cutoff(left, cutoff),
        || quicksort_with_cutoff(right, cutoff),
    );
}

/// Three-way partition around the median of the first, middle and last elements
/// (`v.len() ≥ 3`). Returns `(lt, gt)`: `v[..lt] < pivot`, `v[lt..gt] == pivot`,
/// `v[gt..] > pivot`, so runs of equal keys are never sorted again. Public so that peer
/// runtimes' quicksorts (the rayon rows of `magpie experiment`) partition the same way.
///
/// ```
/// let mut v = [5u64, 1, 5, 9, 3, 5, 7];
/// let (lt, gt) = magpie_apps::partition(&mut v);
/// let pivot = v[lt];
/// assert!(v[..lt].iter().all(|&x| x < pivot) && v[gt..].iter().all(|&x| x > pivot));
/// assert!(v[lt..gt].iter().all(|&x| x == pivot));
/// ```
pub fn partition<T: Ord>(v: &mut [T]) -> (usize, usize) {
    let last = v.len() - 1;
    let mid = v.len() / 2;
    // Median of three into `last`.
    if v[mid] < v[0] {
        v.swap(mid, 0);
    }
    if v[last] < v[0] {
        v.swap(last, 0);
    }
    if v[mid] < v[last] {
        v.swap(mid, last);
    }
    // Pass 1 (Lomuto): smaller elements to the front, then the pivot right after them.
    let mut lt = 0;
    for i in 0..last {
        if v[i] < v[last] {
            v.swap(i, lt);
            lt += 1;
        }
    }
    v.swap(lt, last);
    // Pass 2: elements equal to the pivot (now at `lt`) right after it.
    let mut gt = lt + 1;
    for i in lt + 1..v.len() {
        if v[i] == v[lt] {
            v.swap(i, gt);
            gt += 1;
        }
    }
    (lt, gt)
}

/// Below this length [`sum`] adds sequentially.
pub const SUM_CUTOFF: usize = 1024;

/// Sums `v` by recursive halving with [`magpie::join`], adding slices shorter than
/// [`SUM_CUTOFF`] sequentially. Overflow behaves as for `+` on `u64` (a panic in debug
/// builds).
///
/// ```
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).deque("chase-lev").build().unwrap();
/// let v: Vec<u64> = (1..=1_000_000).collect();
/// assert_eq!(pool.install(|| magpie_apps::sum(&v)), 500_000_500_000);
/// ```
pub fn sum(v: &[u64]) -> u64 {
    sum_with_cutoff(v, SUM_CUTOFF)
}

/// [`sum`] with a chosen sequential cutoff (at least 1 is used).
///
/// ```
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).deque("chase-lev").build().unwrap();
/// assert_eq!(pool.install(|| magpie_apps::sum_with_cutoff(&[1, 2, 3, 4, 5], 1)), 15);
/// ```
pub fn sum_with_cutoff(v: &[u64], cutoff: usize) -> u64 {
    if v.len() <= cutoff.max(1) {
        return v.iter().sum();
    }
    let (a, b) = v.split_at(v.len() / 2);
    let (x, y) = magpie::join(|| sum_with_cutoff(a, cutoff), || sum_with_cutoff(b, cutoff));
    x + y
}

/// Below this length [`prefix_sum`] scans sequentially.
pub const PREFIX_SUM_CUTOFF: usize = 4096;

/// Replaces every element of `v` by the sum of the elements up to and including it (an
/// inclusive scan), with wrapping `u64` addition, in two fork-join passes over the same
/// halving of `v`: the first sums each piece (a tree of partial sums, one node per
/// [`magpie::join`]), the second scans each piece sequentially, starting from the sum of
/// everything to its left. About `2n` additions, as in the prefix-sum benchmark of the Pheet
/// thesis; slices shorter than [`PREFIX_SUM_CUTOFF`] are not split.
///
/// ```
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).deque("chase-lev").build().unwrap();
/// let mut v: Vec<u64> = vec![1; 100_000];
/// pool.install(|| magpie_apps::prefix_sum(&mut v));
/// assert_eq!(v[0], 1);
/// assert_eq!(v[99_999], 100_000);
/// ```
pub fn prefix_sum(v: &mut [u64]) {
    prefix_sum_with_cutoff(v, PREFIX_SUM_CUTOFF)
}

/// [`prefix_sum`] with a chosen sequential cutoff (at least 1 is used).
///
/// ```
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).deque("chase-lev").build().unwrap();
/// let mut v = vec![3u64, 1, 4, 1, 5];
/// pool.install(|| magpie_apps::prefix_sum_with_cutoff(&mut v, 1));
/// assert_eq!(v, [3, 4, 8, 9, 14]);
/// ```
pub fn prefix_sum_with_cutoff(v: &mut [u64], cutoff: usize) {
    let cutoff = cutoff.max(1);
    let sums = piece_sums(v, cutoff);
    scan_pieces(v, &sums, 0);
}

/// The partial sums of [`prefix_sum`]'s first pass: one node per split of the slice.
enum PieceSums {
    /// A piece scanned sequentially, and its sum.
    Leaf(u64),
    /// A split at `len / 2`: the total, the left half's sums and the right half's.
    Split(u64, Box<PieceSums>, Box<PieceSums>),
}

impl PieceSums {
    fn total(&self) -> u64 {
        match self {
            PieceSums::Leaf(t) | PieceSums::Split(t, ..) => *t,
        }
    }
}

fn piece_sums(v: &[u64], cutoff: usize) -> PieceSums {
    if v.len() <= cutoff {
        return PieceSums::Leaf(v.iter().fold(0u64, |a, &x| a.wrapping_add(x)));
    }
    let (a, b) = v.split_at(v.len() / 2);
    let (l, r) = magpie::join(|| piece_sums(a, cutoff), || piece_sums(b, cutoff));
    PieceSums::Split(l.total().wrapping_add(r.total()), Box::new(l), Box::new(r))
}

fn scan_pieces(v: &mut [u64], sums: &PieceSums, offset: u64) {
    match sums {
        PieceSums::Leaf(_) => {
            let mut acc = offset;
            for x in v {
                acc = acc.wrapping_add(*x);
                *x = acc;
            }
        }
        PieceSums::Split(_, l, r) => {
            let mid = v.len() / 2;
            let (a, b) = v.split_at_mut(mid);
            let right_offset = offset.wrapping_add(l.total());
            magpie::join(
                || scan_pieces(a, l, offset),
                || scan_pieces(b, r, right_offset),
            );
        }
    }
}

/// `len` pseudo-random values in `0..bound` ([`rng::XorShift64Star`], deterministic for a given `seed`),
/// as inputs for [`quicksort`], [`sum`] and [`prefix_sum`]. `bound == 0` means the full `u64` range.
///
/// ```
/// let v = magpie_apps::random_u64s(1000, 42, 100);
/// assert_eq!(v.len(), 1000);
/// assert!(v.iter().all(|&x| x < 100));
/// assert_eq!(v, magpie_apps::random_u64s(1000, 42, 100));
/// ```
pub fn random_u64s(len: usize, seed: u64, bound: u64) -> Vec<u64> {
    let mut rng = rng::XorShift64Star::new(seed);
    (0..len)
        .map(|_| {
            let x = rng.next_u64();
            if bound == 0 {
                x
            } else {
                x % bound
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use magpie::{ThreadPool, ThreadPoolBuilder};

    fn pools() -> Vec<ThreadPool> {
        // The lcws-* deques are covered by the runtime's own tests; chase-lev is always there.
        [1, 2, 3]
            .into_iter()
            .map(|n| {
                ThreadPoolBuilder::new()
                    .num_workers(n)
                    .deque("chase-lev")
                    .build()
                    .unwrap()
            })
            .collect()
    }

    #[test]
    fn fib_matches_sequential() {
        for pool in pools() {
            for n in 0..=20 {
                assert_eq!(pool.install(|| fib(n)), fib_seq(n), "fib({n})");
            }
        }
        assert_eq!(fib_seq(30), 832_040);
    }

    #[test]
    fn nqueens_known_counts() {
        for pool in pools() {
            for n in 0..=10 {
                assert_eq!(
                    pool.install(|| nqueens(n)),
                    NQUEENS_SOLUTIONS[n as usize],
                    "nqueens({n})"
                );
            }
        }
    }

    #[test]
    fn nqueens_12() {
        let pool = &pools()[1];
        assert_eq!(pool.install(|| nqueens(12)), 14_200);
    }

    #[test]
    #[should_panic(expected = "not supported")]
    fn nqueens_too_large() {
        nqueens(NQUEENS_MAX + 1);
    }

    #[test]
    fn quicksort_matches_std_sort() {
        for pool in pools() {
            for (len, bound) in [
                (0, 0),
                (1, 0),
                (2, 0),
                (3, 2),
                (10_000, 0),
                (50_000, 3),
                (50_000, 1),
            ] {
                for cutoff in [2, 16, QUICKSORT_CUTOFF] {
                    let mut v = random_u64s(len, len as u64 + 7, bound);
                    let mut want = v.clone();
                    want.sort_unstable();
                    pool.install(|| quicksort_with_cutoff(&mut v, cutoff));
                    assert_eq!(v, want, "len {len} bound {bound} cutoff {cutoff}");
                }
            }
        }
    }

    #[test]
    fn quicksort_sorted_and_reversed_inputs() {
        let pool = &pools()[1];
        let mut asc: Vec<u64> = (0..100_000).collect();
        let mut desc: Vec<u64> = (0..100_000).rev().collect();
        pool.install(|| quicksort(&mut asc));
        pool.install(|| quicksort(&mut desc));
        assert_eq!(asc, desc);
        assert!(asc.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn quicksort_other_types() {
        let mut words = vec!["pear", "apple", "fig", "kiwi", "banana"];
        pools()[1].install(|| quicksort_with_cutoff(&mut words, 2));
        assert_eq!(words, ["apple", "banana", "fig", "kiwi", "pear"]);
    }

    #[test]
    fn sum_matches_sequential() {
        for pool in pools() {
            for len in [0, 1, 2, 1023, 1024, 1025, 100_000] {
                let v = random_u64s(len, 3, 1 << 32);
                let want: u64 = v.iter().sum();
                for cutoff in [1, 7, SUM_CUTOFF] {
                    assert_eq!(pool.install(|| sum_with_cutoff(&v, cutoff)), want);
                }
            }
        }
    }

    #[test]
    fn prefix_sum_matches_sequential() {
        for pool in pools() {
            for len in [0, 1, 2, 3, 1023, 1024, 1025, 4097, 100_000] {
                // Full-range values: the sums wrap, as documented.
                let input = random_u64s(len, len as u64 + 11, 0);
                let mut want = input.clone();
                let mut acc = 0u64;
                for x in &mut want {
                    acc = acc.wrapping_add(*x);
                    *x = acc;
                }
                for cutoff in [1, 2, 7, PREFIX_SUM_CUTOFF] {
                    let mut v = input.clone();
                    pool.install(|| prefix_sum_with_cutoff(&mut v, cutoff));
                    assert_eq!(v, want, "len {len} cutoff {cutoff}");
                }
            }
        }
    }

    #[test]
    fn prefix_sum_forks() {
        let pool = &pools()[1];
        let mut v: Vec<u64> = (1..=50_000).collect();
        pool.reset_stats();
        pool.install(|| prefix_sum_with_cutoff(&mut v, 64));
        assert!(pool.stats().total().pushes > 0);
        assert_eq!(v[49_999], 50_000 * 50_001 / 2);
    }

    #[test]
    fn kernels_fork_and_count() {
        let pool = &pools()[1];
        pool.reset_stats();
        pool.install(|| fib(15));
        assert!(pool.stats().total().pushes > 0);
    }
}
