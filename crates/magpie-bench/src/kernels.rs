//! The benchmark's kernels: which of `magpie_apps`' fork-join kernels (each written once,
//! generic over [`Join`]) it runs, at which sizes, on which inputs.
//!
//! A kernel has an untimed `prepare` step (building inputs, restoring unsorted data), a
//! timed `run` step, and returns a `u64` digest of its result, which the harness compares
//! with the sequential runtime's digest.

use crate::join::Join;
use clap::ValueEnum;
use magpie_apps::rng::SplitMix64;
use magpie_apps::{
    fib, mergesort, nqueens, quicksort, sum_with_cutoff, tree_sum, Tree, MERGESORT_CUTOFF,
    QUICKSORT_CUTOFF,
};

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
                "quicksort of {} random u64, sort_unstable below {QUICKSORT_CUTOFF}",
                self.sort_len
            ),
            KernelId::Mergesort => format!(
                "mergesort of {} random u64, sort_unstable below {MERGESORT_CUTOFF}",
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

/// Below this many elements, `reduce` sums sequentially (all runtimes alike).
pub const REDUCE_GRAIN: usize = 16 * 1024;
const SEED: u64 = 0x9E37_79B9_7F4A_7C15;

/// An order-sensitive digest of a slice (to compare sorted outputs cheaply).
pub fn digest(v: &[u64]) -> u64 {
    v.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
        (h ^ x).wrapping_mul(0x0100_0000_01b3).rotate_left(17)
    })
}

// ---------------------------------------------------------------------------------------
// inputs and one measured execution

/// Inputs shared by every runtime, built once (untimed).
#[derive(Debug)]
pub struct Inputs {
    sizes: Sizes,
    tree: Option<Tree>,
    unsorted: Vec<u64>,
    work: Vec<u64>,
    scratch: Vec<u64>,
    numbers: Vec<u64>,
}

impl Inputs {
    /// Builds the inputs that `kernels` need at `sizes`.
    pub fn new(sizes: Sizes, kernels: &[KernelId]) -> Self {
        let has = |k| kernels.contains(&k);
        let tree = has(KernelId::Tree).then(|| Tree::balanced(sizes.tree_depth));
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
            KernelId::Reduce => sum_with_cutoff(j, &self.numbers, REDUCE_GRAIN),
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
    fn every_kernel_runs_and_checks() {
        let mut inputs = Inputs::new(Sizes::QUICK, &KernelId::ALL);
        for k in KernelId::ALL {
            inputs.prepare(k);
            let ret = inputs.run(k, &mut Sequential);
            inputs.digest(k, ret).unwrap();
        }
    }
}
