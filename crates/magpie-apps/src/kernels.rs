//! The fork-join kernels, each written once, generic over [`Join`] (re-exported at the
//! crate root): `magpie experiment` and every runtime of `magpie-bench forkjoin` run this
//! code.

use crate::join::Join;
use crate::rng::XorShift64Star;

/// Fibonacci by naive doubly recursive fork-join with **no** sequential cutoff: every call
/// above the leaves forks. It does almost no work per task, so it measures the cost of
/// `join` itself (push, pop, and steals when they happen). (`n` is a `u32`: fib(93) is the
/// largest Fibonacci number in a `u64`, and the sequential row of `magpie-bench forkjoin`
/// compiles to faster code with it than with a `u64`.)
///
/// ```
/// use magpie_apps::join::{Magpie, Sequential};
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).deque("chase-lev").build().unwrap();
/// assert_eq!(pool.install(|| magpie_apps::fib(&mut Magpie, 25)), 75_025);
/// assert_eq!(magpie_apps::fib(&mut Sequential, 30), 832_040);
/// ```
pub fn fib<J: Join>(j: &mut J, n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    let (a, b) = j.join(|j| fib(j, n - 1), |j| fib(j, n - 2));
    a + b
}

/// Number of solutions of the N-Queens problem for `n = 0, 1, …, 16` (OEIS A000170), to
/// check [`nqueens()`] against.
pub const NQUEENS_SOLUTIONS: [u64; 17] = [
    1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14_200, 73_712, 365_596, 2_279_184, 14_772_512,
];

/// The largest board [`nqueens()`] accepts.
pub const NQUEENS_MAX: u32 = 32;

/// Counts the ways to place `n` non-attacking queens on an `n × n` board, forking over the
/// free columns of every row (the candidate set is split in halves by count, the lowest
/// half first, so each node of the search tree becomes a small binary tree of joins). No
/// sequential cutoff: like [`fib`], it is a fine-grained, irregular workload.
///
/// # Panics
///
/// If `n > NQUEENS_MAX` (32).
///
/// ```
/// use magpie_apps::join::Magpie;
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).deque("chase-lev").build().unwrap();
/// assert_eq!(pool.install(|| magpie_apps::nqueens(&mut Magpie, 10)), 724);
/// ```
pub fn nqueens<J: Join>(j: &mut J, n: u32) -> u64 {
    assert!(
        n <= NQUEENS_MAX,
        "nqueens({n}): boards larger than {NQUEENS_MAX} are not supported"
    );
    if n == 0 {
        return 1; // the empty placement
    }
    let all = u32::MAX >> (32 - n);
    queens(j, all, 0, 0, 0, all)
}

/// Counts completions given the occupied columns and diagonals of the rows placed so far
/// (`cols`, `ld`, `rd`: bits above `all` are ignored), over the candidate columns `cand` of
/// the current row: one candidate is placed and recursed into; several are split into two
/// halves by count (the lowest half first) that run in a `join`.
fn queens<J: Join>(j: &mut J, all: u32, cols: u32, ld: u32, rd: u32, cand: u32) -> u64 {
    match cand.count_ones() {
        0 => 0,
        1 => {
            let (cols, ld, rd) = (cols | cand, (ld | cand) << 1, (rd | cand) >> 1);
            if cols == all {
                return 1;
            }
            let next = all & !(cols | ld | rd);
            queens(j, all, cols, ld, rd, next)
        }
        c => {
            // The lowest c/2 candidates go left, the rest right.
            let mut low = 0u32;
            let mut rest = cand;
            for _ in 0..c / 2 {
                let bit = rest & rest.wrapping_neg();
                low |= bit;
                rest &= !bit;
            }
            let (a, b) = j.join(
                |j| queens(j, all, cols, ld, rd, low),
                |j| queens(j, all, cols, ld, rd, rest),
            );
            a + b
        }
    }
}

/// Below this length [`quicksort`] sorts sequentially (`sort_unstable`).
pub const QUICKSORT_CUTOFF: usize = 4096;

/// Sorts `v` in place by parallel quicksort: a sequential [`partition`] (Hoare's, around a
/// median-of-three pivot), then both sides in a `join`; slices of at most
/// [`QUICKSORT_CUTOFF`] elements are sorted with `sort_unstable`. Not stable.
///
/// ```
/// use magpie_apps::join::Magpie;
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).deque("chase-lev").build().unwrap();
/// let mut v: Vec<u64> = (0..100_000u64).map(|i| (i * 7919) % 100_003).collect();
/// pool.install(|| magpie_apps::quicksort(&mut Magpie, &mut v));
/// assert!(v.windows(2).all(|w| w[0] <= w[1]));
/// assert_eq!(v[0], 0);
/// ```
pub fn quicksort<J: Join, T: Ord + Clone + Send>(j: &mut J, v: &mut [T]) {
    quicksort_with_cutoff(j, v, QUICKSORT_CUTOFF)
}

/// [`quicksort`] with a chosen sequential cutoff (at least 2 is used).
///
/// ```
/// use magpie_apps::join::Sequential;
/// let mut v = vec![5u64, 3, 9, 1, 1, 0, 7];
/// magpie_apps::quicksort_with_cutoff(&mut Sequential, &mut v, 2);
/// assert_eq!(v, [0, 1, 1, 3, 5, 7, 9]);
/// ```
pub fn quicksort_with_cutoff<J: Join, T: Ord + Clone + Send>(
    j: &mut J,
    v: &mut [T],
    cutoff: usize,
) {
    if v.len() <= cutoff.max(2) {
        v.sort_unstable();
        return;
    }
    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    j.join(
        |j| quicksort_with_cutoff(j, lo, cutoff),
        |j| quicksort_with_cutoff(j, hi, cutoff),
    );
}

/// Hoare's partition around the median of the first, middle and last elements
/// (`v.len() ≥ 3`): returns `m` with `0 < m < v.len()` and every element of `v[..m]` ≤
/// every element of `v[m..]`. Equal keys are spread over both sides, so a run of equal keys
/// still splits in halves. Public so that peer runtimes' quicksorts (the rayon rows of
/// `magpie experiment`) partition the same way.
///
/// ```
/// let mut v = [5u64, 1, 5, 9, 3, 5, 7];
/// let m = magpie_apps::partition(&mut v);
/// assert!(0 < m && m < v.len());
/// let (lo, hi) = v.split_at(m);
/// assert!(lo.iter().all(|x| hi.iter().all(|y| x <= y)));
/// ```
pub fn partition<T: Ord + Clone>(v: &mut [T]) -> usize {
    let n = v.len();
    let mid = (n - 1) / 2;
    // Median of three, left in place so that v[0] <= v[mid] <= v[n - 1].
    if v[mid] < v[0] {
        v.swap(mid, 0);
    }
    if v[n - 1] < v[mid] {
        v.swap(n - 1, mid);
        if v[mid] < v[0] {
            v.swap(mid, 0);
        }
    }
    // Hoare's scheme with the pivot taken from index (lo + hi) / 2 never returns an
    // empty side.
    let pivot = v[mid].clone();
    let (mut i, mut k) = (0usize, n - 1);
    loop {
        while v[i] < pivot {
            i += 1;
        }
        while v[k] > pivot {
            k -= 1;
        }
        if i >= k {
            // Hoare's scheme guarantees 0 <= k < n - 1 here.
            return k + 1;
        }
        v.swap(i, k);
        i += 1;
        k -= 1;
    }
}

/// Below this length [`mergesort`] sorts sequentially (`sort_unstable`).
pub const MERGESORT_CUTOFF: usize = 4096;

/// Sorts `v` by parallel mergesort with `buf` (as long as `v`) as scratch: the halves in a
/// `join`, merged into `buf` and copied back; slices of at most [`MERGESORT_CUTOFF`]
/// elements are sorted with `sort_unstable`.
///
/// `buf` must be as long as `v` (checked in debug builds; otherwise a slice operation
/// panics).
///
/// ```
/// use magpie_apps::join::Magpie;
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
/// let mut v: Vec<u64> = (0..50_000u64).rev().collect();
/// let mut buf = vec![0; v.len()];
/// pool.install(|| magpie_apps::mergesort(&mut Magpie, &mut v, &mut buf));
/// assert!(v.windows(2).all(|w| w[0] < w[1]));
/// ```
pub fn mergesort<J: Join>(j: &mut J, v: &mut [u64], buf: &mut [u64]) {
    debug_assert_eq!(v.len(), buf.len());
    if v.len() <= MERGESORT_CUTOFF {
        v.sort_unstable();
        return;
    }
    let mid = v.len() / 2;
    {
        let (vl, vr) = v.split_at_mut(mid);
        let (bl, br) = buf.split_at_mut(mid);
        j.join(|j| mergesort(j, vl, bl), |j| mergesort(j, vr, br));
    }
    merge(&v[..mid], &v[mid..], buf);
    v.copy_from_slice(buf);
}

fn merge(a: &[u64], b: &[u64], out: &mut [u64]) {
    let (mut i, mut k) = (0, 0);
    for o in out.iter_mut() {
        if k >= b.len() || (i < a.len() && a[i] <= b[k]) {
            *o = a[i];
            i += 1;
        } else {
            *o = b[k];
            k += 1;
        }
    }
}

/// Below this length [`sum`] adds sequentially.
pub const SUM_CUTOFF: usize = 1024;

/// Sums `v` (wrapping) by recursive halving, forking at every split and adding slices of at
/// most [`SUM_CUTOFF`] elements sequentially.
///
/// ```
/// use magpie_apps::join::Magpie;
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).deque("chase-lev").build().unwrap();
/// let v: Vec<u64> = (1..=1_000_000).collect();
/// assert_eq!(pool.install(|| magpie_apps::sum(&mut Magpie, &v)), 500_000_500_000);
/// ```
pub fn sum<J: Join>(j: &mut J, v: &[u64]) -> u64 {
    sum_with_cutoff(j, v, SUM_CUTOFF)
}

/// [`sum`] with a chosen sequential cutoff (at least 1 is used).
///
/// ```
/// use magpie_apps::join::Sequential;
/// assert_eq!(magpie_apps::sum_with_cutoff(&mut Sequential, &[1, 2, 3, 4, 5], 1), 15);
/// assert_eq!(magpie_apps::sum_with_cutoff(&mut Sequential, &[u64::MAX, 2], 1), 1);
/// ```
pub fn sum_with_cutoff<J: Join>(j: &mut J, v: &[u64], cutoff: usize) -> u64 {
    if v.len() <= cutoff.max(1) {
        return v.iter().fold(0u64, |s, &x| s.wrapping_add(x));
    }
    let (a, b) = v.split_at(v.len() / 2);
    let (x, y) = j.join(
        |j| sum_with_cutoff(j, a, cutoff),
        |j| sum_with_cutoff(j, b, cutoff),
    );
    x.wrapping_add(y)
}

/// Below this length [`prefix_sum`] scans sequentially.
pub const PREFIX_SUM_CUTOFF: usize = 4096;

/// Replaces every element of `v` by the sum of the elements up to and including it (an
/// inclusive scan), with wrapping `u64` addition, in two fork-join passes over the same
/// halving of `v`: the first sums each piece (a tree of partial sums, one node per
/// `join`), the second scans each piece sequentially, starting from the sum of everything
/// to its left. About `2n` additions, as in the prefix-sum benchmark of the Pheet thesis;
/// slices of at most [`PREFIX_SUM_CUTOFF`] elements are not split.
///
/// ```
/// use magpie_apps::join::Magpie;
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).deque("chase-lev").build().unwrap();
/// let mut v: Vec<u64> = vec![1; 100_000];
/// pool.install(|| magpie_apps::prefix_sum(&mut Magpie, &mut v));
/// assert_eq!(v[0], 1);
/// assert_eq!(v[99_999], 100_000);
/// ```
pub fn prefix_sum<J: Join>(j: &mut J, v: &mut [u64]) {
    prefix_sum_with_cutoff(j, v, PREFIX_SUM_CUTOFF)
}

/// [`prefix_sum`] with a chosen sequential cutoff (at least 1 is used).
///
/// ```
/// use magpie_apps::join::Sequential;
/// let mut v = vec![3u64, 1, 4, 1, 5];
/// magpie_apps::prefix_sum_with_cutoff(&mut Sequential, &mut v, 1);
/// assert_eq!(v, [3, 4, 8, 9, 14]);
/// ```
pub fn prefix_sum_with_cutoff<J: Join>(j: &mut J, v: &mut [u64], cutoff: usize) {
    let cutoff = cutoff.max(1);
    let sums = piece_sums(j, v, cutoff);
    scan_pieces(j, v, &sums, 0);
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

fn piece_sums<J: Join>(j: &mut J, v: &[u64], cutoff: usize) -> PieceSums {
    if v.len() <= cutoff {
        return PieceSums::Leaf(v.iter().fold(0u64, |a, &x| a.wrapping_add(x)));
    }
    let (a, b) = v.split_at(v.len() / 2);
    let (l, r) = j.join(|j| piece_sums(j, a, cutoff), |j| piece_sums(j, b, cutoff));
    PieceSums::Split(l.total().wrapping_add(r.total()), Box::new(l), Box::new(r))
}

fn scan_pieces<J: Join>(j: &mut J, v: &mut [u64], sums: &PieceSums, offset: u64) {
    match sums {
        PieceSums::Leaf(_) => {
            let mut acc = offset;
            for x in v {
                acc = acc.wrapping_add(*x);
                *x = acc;
            }
        }
        PieceSums::Split(_, l, r) => {
            let (a, b) = v.split_at_mut(v.len() / 2);
            let right_offset = offset.wrapping_add(l.total());
            j.join(
                |j| scan_pieces(j, a, l, offset),
                |j| scan_pieces(j, b, r, right_offset),
            );
        }
    }
}

/// A node of a binary tree of boxed nodes (chili's benchmark shape), summed by
/// [`tree_sum`].
#[derive(Debug)]
pub struct Tree {
    val: u64,
    left: Option<Box<Tree>>,
    right: Option<Box<Tree>>,
}

impl Tree {
    /// A balanced tree with `layers` levels (`2^layers − 1` nodes, `layers ≥ 1`), values
    /// `1, 2, …` in breadth-first order.
    ///
    /// The boxes are allocated in breadth-first order, a layout that is mirror-symmetric for
    /// depth-first walks: a runtime that runs `a` before `b` (sequential, rayon, magpie) and
    /// one that runs `b` first (chili's inline join) meet the same cache behaviour. (Building
    /// recursively allocates in post-order, which makes a right-first walk a sequential
    /// backwards stream and a left-first walk a scatter: a 2x difference measuring memory
    /// layout, not scheduling.)
    ///
    /// # Panics
    ///
    /// If `layers` is 0.
    ///
    /// ```
    /// use magpie_apps::{join::Sequential, tree_sum, Tree};
    /// assert_eq!(tree_sum(&mut Sequential, &Tree::balanced(10)), (1..=1023).sum::<u64>());
    /// ```
    pub fn balanced(layers: u32) -> Self {
        let n = (1usize << layers) - 1;
        let mut boxes: Vec<Option<Box<Tree>>> = (0..n)
            .map(|i| {
                Some(Box::new(Tree {
                    val: i as u64 + 1,
                    left: None,
                    right: None,
                }))
            })
            .collect();
        // Link bottom-up: moving a Box into its parent keeps its heap address.
        for i in (0..n).rev() {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            if r < n {
                let left = boxes[l].take();
                let right = boxes[r].take();
                let node = boxes[i].as_mut().expect("parent not yet linked");
                node.left = left;
                node.right = right;
            }
        }
        *boxes[0].take().expect("a tree has at least one layer")
    }
}

/// The sum of the tree's values, joining at every node (no cutoff).
pub fn tree_sum<J: Join>(j: &mut J, node: &Tree) -> u64 {
    let (l, r) = j.join(
        |j| node.left.as_deref().map_or(0, |n| tree_sum(j, n)),
        |j| node.right.as_deref().map_or(0, |n| tree_sum(j, n)),
    );
    node.val + l + r
}

/// `len` pseudo-random values in `0..bound` ([`XorShift64Star::new`]`(seed)`, deterministic
/// for a given `seed`), as inputs for [`quicksort`], [`sum`] and [`prefix_sum`]. `bound == 0`
/// means the full `u64` range.
///
/// ```
/// let v = magpie_apps::random_u64s(1000, 42, 100);
/// assert_eq!(v.len(), 1000);
/// assert!(v.iter().all(|&x| x < 100));
/// assert_eq!(v, magpie_apps::random_u64s(1000, 42, 100));
/// ```
pub fn random_u64s(len: usize, seed: u64, bound: u64) -> Vec<u64> {
    let mut rng = XorShift64Star::new(seed);
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

/// The order-preserving key of `x`: `a < b` as `f64`s (in [`f64::total_cmp`] order) exactly
/// when `f64_key(a) < f64_key(b)` as `u64`s, and [`key_f64`] inverts it bit for bit. So a
/// kernel that sorts `u64`s sorts doubles: [`gaussian_u64s`] feeds [`quicksort`] this way.
///
/// ```
/// use magpie_apps::{f64_key, key_f64};
/// let xs = [-2.5, -0.0, 0.0, 1e-300, 3.0];
/// assert!(xs.windows(2).all(|w| f64_key(w[0]) < f64_key(w[1])));
/// assert!(xs.iter().all(|&x| key_f64(f64_key(x)).to_bits() == x.to_bits()));
/// ```
pub fn f64_key(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

/// The double whose [`f64_key`] is `k`.
pub fn key_f64(k: u64) -> f64 {
    if k >> 63 == 1 {
        f64::from_bits(k & !(1 << 63))
    } else {
        f64::from_bits(!k)
    }
}

/// `len` standard normal values (mean 0, standard deviation 1; Box–Muller over
/// [`SplitMix64`](crate::rng::SplitMix64)`::new(seed)`, both values of each pair used),
/// as [`f64_key`]s: the input of `magpie experiment`'s `quicksort --data gaussian`, the
/// Gaussian-distributed keys the Pheet thesis sorts (§3.6). Deterministic for a `seed`.
///
/// ```
/// let v = magpie_apps::gaussian_u64s(100_000, 7);
/// let xs: Vec<f64> = v.iter().map(|&k| magpie_apps::key_f64(k)).collect();
/// let mean = xs.iter().sum::<f64>() / xs.len() as f64;
/// let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / xs.len() as f64;
/// assert!(mean.abs() < 0.02 && (var - 1.0).abs() < 0.02, "{mean} {var}");
/// assert_eq!(v, magpie_apps::gaussian_u64s(100_000, 7));
/// ```
pub fn gaussian_u64s(len: usize, seed: u64) -> Vec<u64> {
    let mut rng = crate::rng::SplitMix64::new(seed);
    let mut v = Vec::with_capacity(len);
    while v.len() < len {
        // u1 in (0, 1], so that its logarithm is finite.
        let u1 = 1.0 - rng.next_f64();
        let u2 = rng.next_f64();
        let r = (-2.0 * u1.ln()).sqrt();
        let (s, c) = (std::f64::consts::TAU * u2).sin_cos();
        v.push(f64_key(r * c));
        if v.len() < len {
            v.push(f64_key(r * s));
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::join::{Magpie, Sequential};
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

    /// `kernel(&mut Magpie, n)` on every pool of [`pools`] is `want(n)` for every `n` of `ns`.
    fn agrees_on_every_pool(
        name: &str,
        ns: std::ops::RangeInclusive<u32>,
        kernel: fn(&mut Magpie, u32) -> u64,
        want: impl Fn(u32) -> u64,
    ) {
        for pool in pools() {
            for n in ns.clone() {
                assert_eq!(
                    pool.install(|| kernel(&mut Magpie, n)),
                    want(n),
                    "{name}({n})"
                );
            }
        }
    }

    #[test]
    fn fib_matches_sequential() {
        agrees_on_every_pool("fib", 0..=20, fib, |n| fib(&mut Sequential, n));
        assert_eq!(fib(&mut Sequential, 30), 832_040);
    }

    #[test]
    fn nqueens_known_counts() {
        agrees_on_every_pool("nqueens", 0..=10, nqueens, |n| {
            NQUEENS_SOLUTIONS[n as usize]
        });
    }

    #[test]
    fn nqueens_12() {
        let pool = &pools()[1];
        assert_eq!(pool.install(|| nqueens(&mut Magpie, 12)), 14_200);
    }

    #[test]
    #[should_panic(expected = "not supported")]
    fn nqueens_too_large() {
        nqueens(&mut Sequential, NQUEENS_MAX + 1);
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
                    pool.install(|| quicksort_with_cutoff(&mut Magpie, &mut v, cutoff));
                    assert_eq!(v, want, "len {len} bound {bound} cutoff {cutoff}");
                }
            }
        }
    }

    #[test]
    fn quicksort_of_gaussian_keys_sorts_the_doubles() {
        let keys = gaussian_u64s(30_001, 2026);
        let mut want: Vec<f64> = keys.iter().map(|&k| key_f64(k)).collect();
        want.sort_by(f64::total_cmp);
        for workers in [1, 2, 4] {
            let pool = ThreadPoolBuilder::new()
                .num_workers(workers)
                .build()
                .unwrap();
            let mut v = keys.clone();
            pool.install(|| quicksort(&mut Magpie, &mut v));
            let got: Vec<u64> = v.iter().map(|&k| key_f64(k).to_bits()).collect();
            let want: Vec<u64> = want.iter().map(|x| x.to_bits()).collect();
            assert_eq!(got, want, "{workers} workers");
        }
        // About 68% within one standard deviation.
        let within = want.iter().filter(|x| x.abs() < 1.0).count() as f64 / want.len() as f64;
        assert!((0.66..0.70).contains(&within), "{within}");
    }

    #[test]
    fn quicksort_sorted_and_reversed_inputs() {
        let pool = &pools()[1];
        let mut asc: Vec<u64> = (0..100_000).collect();
        let mut desc: Vec<u64> = (0..100_000).rev().collect();
        pool.install(|| quicksort(&mut Magpie, &mut asc));
        pool.install(|| quicksort(&mut Magpie, &mut desc));
        assert_eq!(asc, desc);
        assert!(asc.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn quicksort_other_types() {
        let mut words = vec!["pear", "apple", "fig", "kiwi", "banana"];
        pools()[1].install(|| quicksort_with_cutoff(&mut Magpie, &mut words, 2));
        assert_eq!(words, ["apple", "banana", "fig", "kiwi", "pear"]);
    }

    #[test]
    fn sum_matches_sequential() {
        for pool in pools() {
            for len in [0, 1, 2, 1023, 1024, 1025, 100_000] {
                let v = random_u64s(len, 3, 1 << 32);
                let want: u64 = v.iter().sum();
                for cutoff in [1, 7, SUM_CUTOFF] {
                    assert_eq!(
                        pool.install(|| sum_with_cutoff(&mut Magpie, &v, cutoff)),
                        want
                    );
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
                    pool.install(|| prefix_sum_with_cutoff(&mut Magpie, &mut v, cutoff));
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
        pool.install(|| prefix_sum_with_cutoff(&mut Magpie, &mut v, 64));
        assert!(pool.stats().total().pushes > 0);
        assert_eq!(v[49_999], 50_000 * 50_001 / 2);
    }

    #[test]
    fn kernels_fork_and_count() {
        let pool = &pools()[1];
        pool.reset_stats();
        pool.install(|| fib(&mut Magpie, 15));
        assert!(pool.stats().total().pushes > 0);
    }

    #[test]
    fn mergesort_matches_std_sort() {
        let pool = &pools()[1];
        for len in [
            0,
            1,
            2,
            100,
            MERGESORT_CUTOFF + 1,
            3 * MERGESORT_CUTOFF + 17,
            50_000,
        ] {
            let mut v = random_u64s(len, 7, 1000);
            let mut want = v.clone();
            want.sort_unstable();
            let mut buf = vec![0; len];
            pool.install(|| mergesort(&mut Magpie, &mut v, &mut buf));
            assert_eq!(v, want, "len {len}");
        }
    }

    #[test]
    fn tree_sums() {
        let t = Tree::balanced(12);
        let want = (1..=4095).sum::<u64>();
        assert_eq!(tree_sum(&mut Sequential, &t), want);
        for pool in pools() {
            assert_eq!(pool.install(|| tree_sum(&mut Magpie, &t)), want);
        }
    }
}
