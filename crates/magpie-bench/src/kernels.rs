//! The benchmark kernels, each written once and generic over [`Join`].
//!
//! A kernel has an untimed `prepare` step (building inputs, restoring unsorted data), a
//! timed `run` step, and returns a `u64` digest of its result, which the harness compares
//! with the sequential runtime's digest.

use crate::join::Join;
use clap::ValueEnum;

/// The kernels, in table order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, ValueEnum)]
pub enum KernelId {
    /// fib(32) with no cutoff: every call joins.
    Fib,
    /// Sum of a balanced binary tree of boxed nodes, joining at every node (chili's shape).
    Tree,
    /// Parallel quicksort of 10M random `u64`.
    Quicksort,
    /// Parallel mergesort of 10M random `u64` with a scratch buffer.
    Mergesort,
    /// Divide-and-conquer sum over 100M `u64`.
    Reduce,
    /// N-Queens(12), counting all solutions.
    Nqueens,
}

impl KernelId {
    /// Every kernel, in table order.
    pub const ALL: [KernelId; 6] = [
        KernelId::Fib,
        KernelId::Tree,
        KernelId::Quicksort,
        KernelId::Mergesort,
        KernelId::Reduce,
        KernelId::Nqueens,
    ];

    /// The kernel's name, as used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            KernelId::Fib => "fib",
            KernelId::Tree => "tree",
            KernelId::Quicksort => "quicksort",
            KernelId::Mergesort => "mergesort",
            KernelId::Reduce => "reduce",
            KernelId::Nqueens => "nqueens",
        }
    }
}

/// Problem sizes. `--quick` shrinks them for smoke tests.
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    /// `n` for fib.
    pub fib_n: u32,
    /// Tree depth (layers); the tree has `2^depth - 1` nodes.
    pub tree_depth: u32,
    /// Elements to sort.
    pub sort_len: usize,
    /// Elements to sum.
    pub reduce_len: usize,
    /// Board size for N-Queens.
    pub queens_n: u32,
}

impl Sizes {
    /// The sizes the benchmark reports.
    pub const FULL: Sizes = Sizes {
        fib_n: 32,
        tree_depth: 24,
        sort_len: 10_000_000,
        reduce_len: 100_000_000,
        queens_n: 12,
    };

    /// Small sizes for a smoke test.
    pub const QUICK: Sizes = Sizes {
        fib_n: 24,
        tree_depth: 16,
        sort_len: 200_000,
        reduce_len: 2_000_000,
        queens_n: 9,
    };

    /// A one-line description of `kernel` at these sizes.
    pub fn describe(&self, kernel: KernelId) -> String {
        match kernel {
            KernelId::Fib => format!("fib({}), no cutoff", self.fib_n),
            KernelId::Tree => format!(
                "sum of a binary tree of depth {} ({} boxed nodes), join at every node",
                self.tree_depth,
                (1u64 << self.tree_depth) - 1
            ),
            KernelId::Quicksort => format!(
                "quicksort of {} random u64, sort_unstable below {SORT_CUTOFF}",
                self.sort_len
            ),
            KernelId::Mergesort => format!(
                "mergesort of {} random u64, sort_unstable below {SORT_CUTOFF}",
                self.sort_len
            ),
            KernelId::Reduce => format!(
                "divide-and-conquer sum of {} u64, sequential below {REDUCE_GRAIN}",
                self.reduce_len
            ),
            KernelId::Nqueens => format!(
                "N-Queens({}), binary split of each row's candidates",
                self.queens_n
            ),
        }
    }
}

/// Below this many elements, both sorts call `sort_unstable` (all runtimes alike).
pub const SORT_CUTOFF: usize = 4096;
/// Below this many elements, `reduce` sums sequentially (all runtimes alike).
pub const REDUCE_GRAIN: usize = 16 * 1024;
const SEED: u64 = 0x9E37_79B9_7F4A_7C15;

/// splitmix64: a tiny, fixed-seed generator for the inputs.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator starting at `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next value.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// An order-sensitive digest of a slice (to compare sorted outputs cheaply).
pub fn digest(v: &[u64]) -> u64 {
    v.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
        (h ^ x).wrapping_mul(0x0100_0000_01b3).rotate_left(17)
    })
}

// ---------------------------------------------------------------------------------------
// fib

/// fib(n) with no cutoff: every call with `n >= 2` joins.
pub fn fib<J: Join>(j: &mut J, n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    let (a, b) = j.join(|j| fib(j, n - 1), |j| fib(j, n - 2));
    a + b
}

// ---------------------------------------------------------------------------------------
// tree

/// A node of chili's benchmark tree.
#[derive(Debug)]
pub struct Node {
    val: u64,
    left: Option<Box<Node>>,
    right: Option<Box<Node>>,
}

impl Node {
    /// A balanced tree with `layers` levels (`2^layers - 1` nodes), values 1..
    pub fn tree(layers: u32) -> Self {
        fn build(layers: u32, next: &mut u64) -> Node {
            let val = *next;
            *next += 1;
            let left = (layers > 1).then(|| Box::new(build(layers - 1, next)));
            let right = (layers > 1).then(|| Box::new(build(layers - 1, next)));
            Node { val, left, right }
        }
        build(layers, &mut 1)
    }
}

/// Sum of the tree's values, joining at every node.
pub fn tree_sum<J: Join>(j: &mut J, node: &Node) -> u64 {
    let (l, r) = j.join(
        |j| node.left.as_deref().map_or(0, |n| tree_sum(j, n)),
        |j| node.right.as_deref().map_or(0, |n| tree_sum(j, n)),
    );
    node.val + l + r
}

// ---------------------------------------------------------------------------------------
// quicksort

/// Parallel quicksort: a sequential Hoare partition around a median-of-three pivot, then
/// the two sides in a `join`; `sort_unstable` below [`SORT_CUTOFF`].
pub fn quicksort<J: Join>(j: &mut J, v: &mut [u64]) {
    if v.len() <= SORT_CUTOFF {
        v.sort_unstable();
        return;
    }
    let mid = partition(v);
    let (lo, hi) = v.split_at_mut(mid);
    j.join(|j| quicksort(j, lo), |j| quicksort(j, hi));
}

/// Hoare partition; returns `m` with `0 < m < len`, all of `v[..m]` ≤ all of `v[m..]`.
fn partition(v: &mut [u64]) -> usize {
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
    let pivot = v[mid];
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

// ---------------------------------------------------------------------------------------
// mergesort

/// Parallel mergesort using `buf` (same length as `v`) as scratch: sorts the halves in a
/// `join`, merges them into `buf`, copies back; `sort_unstable` below [`SORT_CUTOFF`].
pub fn mergesort<J: Join>(j: &mut J, v: &mut [u64], buf: &mut [u64]) {
    debug_assert_eq!(v.len(), buf.len());
    if v.len() <= SORT_CUTOFF {
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

// ---------------------------------------------------------------------------------------
// reduce

/// Divide-and-conquer wrapping sum; sequential below [`REDUCE_GRAIN`] elements.
pub fn reduce<J: Join>(j: &mut J, v: &[u64]) -> u64 {
    if v.len() <= REDUCE_GRAIN {
        return v.iter().fold(0u64, |s, &x| s.wrapping_add(x));
    }
    let (l, r) = v.split_at(v.len() / 2);
    let (a, b) = j.join(|j| reduce(j, l), |j| reduce(j, r));
    a.wrapping_add(b)
}

// ---------------------------------------------------------------------------------------
// nqueens

/// Number of ways to place `n` non-attacking queens on an `n × n` board.
pub fn nqueens<J: Join>(j: &mut J, n: u32) -> u64 {
    let all = (1u32 << n) - 1;
    queens(j, all, 0, 0, 0, all)
}

/// Counts completions given the occupied columns and diagonals of the rows placed so far,
/// over the candidate columns `cand` of the current row: one candidate is placed and
/// recursed into; several are split into two halves (by count) that run in a `join`.
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

// ---------------------------------------------------------------------------------------
// inputs and one measured execution

/// Inputs shared by every runtime, built once (untimed).
#[derive(Debug)]
pub struct Inputs {
    sizes: Sizes,
    tree: Option<Node>,
    unsorted: Vec<u64>,
    work: Vec<u64>,
    scratch: Vec<u64>,
    numbers: Vec<u64>,
}

impl Inputs {
    /// Builds the inputs that `kernels` need at `sizes`.
    pub fn new(sizes: Sizes, kernels: &[KernelId]) -> Self {
        let has = |k| kernels.contains(&k);
        let tree = has(KernelId::Tree).then(|| Node::tree(sizes.tree_depth));
        let sorts = has(KernelId::Quicksort) || has(KernelId::Mergesort);
        let mut rng = SplitMix64::new(SEED);
        let unsorted: Vec<u64> = if sorts {
            (0..sizes.sort_len).map(|_| rng.next_u64()).collect()
        } else {
            Vec::new()
        };
        let numbers: Vec<u64> = if has(KernelId::Reduce) {
            let mut rng = SplitMix64::new(SEED ^ 1);
            (0..sizes.reduce_len).map(|_| rng.next_u64() >> 8).collect()
        } else {
            Vec::new()
        };
        Inputs {
            sizes,
            tree,
            work: unsorted.clone(),
            scratch: vec![0; unsorted.len()],
            unsorted,
            numbers,
        }
    }

    /// Untimed preparation before `kernel` runs (restores the unsorted input).
    pub fn prepare(&mut self, kernel: KernelId) {
        if matches!(kernel, KernelId::Quicksort | KernelId::Mergesort) {
            self.work.copy_from_slice(&self.unsorted);
        }
    }

    /// The timed part: runs `kernel` on `j` and returns a cheap result (the sorts return 0;
    /// see [`Inputs::digest`]).
    pub fn run<J: Join>(&mut self, kernel: KernelId, j: &mut J) -> u64 {
        let s = self.sizes;
        match kernel {
            KernelId::Fib => fib(j, s.fib_n),
            KernelId::Tree => tree_sum(j, self.tree.as_ref().expect("tree input built")),
            KernelId::Quicksort => {
                quicksort(j, &mut self.work);
                0
            }
            KernelId::Mergesort => {
                mergesort(j, &mut self.work, &mut self.scratch);
                0
            }
            KernelId::Reduce => reduce(j, &self.numbers),
            KernelId::Nqueens => nqueens(j, s.queens_n),
        }
    }

    /// The untimed digest of a run's result (`ret` is what [`Inputs::run`] returned); for
    /// the sorts, an order-sensitive digest of the output, or an error if it is unsorted.
    pub fn digest(&self, kernel: KernelId, ret: u64) -> Result<u64, String> {
        match kernel {
            KernelId::Quicksort | KernelId::Mergesort => {
                if !self.work.is_sorted() {
                    return Err(format!("{} output is not sorted", kernel.name()));
                }
                Ok(digest(&self.work))
            }
            _ => Ok(ret),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::join::Sequential;

    #[test]
    fn known_answers() {
        assert_eq!(fib(&mut Sequential, 20), 6765);
        assert_eq!(nqueens(&mut Sequential, 8), 92);
        assert_eq!(nqueens(&mut Sequential, 6), 4);
        let t = Node::tree(10);
        assert_eq!(tree_sum(&mut Sequential, &t), (1..=1023).sum::<u64>());
    }

    #[test]
    fn sorts_sort() {
        let mut rng = SplitMix64::new(7);
        for len in [0, 1, 2, 100, SORT_CUTOFF + 1, 3 * SORT_CUTOFF + 17, 50_000] {
            let orig: Vec<u64> = (0..len).map(|_| rng.next_u64() % 1000).collect();
            let mut want = orig.clone();
            want.sort_unstable();
            let mut q = orig.clone();
            quicksort(&mut Sequential, &mut q);
            assert_eq!(q, want);
            let mut m = orig.clone();
            let mut buf = vec![0; len];
            mergesort(&mut Sequential, &mut m, &mut buf);
            assert_eq!(m, want);
        }
    }

    #[test]
    fn reduce_sums() {
        let v: Vec<u64> = (0..100_000).collect();
        assert_eq!(reduce(&mut Sequential, &v), v.iter().sum::<u64>());
    }
}
