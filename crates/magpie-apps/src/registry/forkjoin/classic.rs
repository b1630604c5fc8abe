//! The six kernels `magpie-bench forkjoin` has always run (fib, tree, quicksort,
//! mergesort, reduce, nqueens) as [`Kernel`]s: their inputs and sizes; the algorithms are
//! the crate root's.

use super::{digest, fits, in_range, Kernel};
use crate::join::Join;
use crate::rng::SplitMix64;
use crate::{
    fib, mergesort, nqueens, quicksort, sum_with_cutoff, tree_sum, Tree, MERGESORT_CUTOFF,
    NQUEENS_MAX, QUICKSORT_CUTOFF,
};

/// Below this many elements, `reduce` sums sequentially (all runtimes alike).
pub const REDUCE_GRAIN: usize = 16 * 1024;

/// `fib(n)` with no cutoff: every call joins. Size: `n`.
#[derive(Debug)]
pub struct Fib(u32);

impl Kernel for Fib {
    const NAME: &'static str = "fib";
    const ABOUT: &'static str = "fib(n) with no cutoff: every call joins";
    const FULL: usize = 32;
    const QUICK: usize = 24;

    fn build(size: usize, _seed: u64) -> Result<Self, String> {
        // fib(50) makes 4e10 joins already.
        in_range("fib's n", size, 0, 50)?;
        Ok(Fib(size as u32))
    }

    fn describe(&self) -> String {
        format!("fib({}), no cutoff", self.0)
    }

    fn run<J: Join>(&mut self, j: &mut J) -> u64 {
        fib(j, self.0)
    }
}

/// The sum of a balanced binary tree of boxed nodes, joining at every node. Size: depth.
#[derive(Debug)]
pub struct TreeSum {
    depth: u32,
    tree: Tree,
}

impl Kernel for TreeSum {
    const NAME: &'static str = "tree";
    const ABOUT: &'static str =
        "sum of a balanced binary tree of boxed nodes, joining at every node (chili's shape)";
    const FULL: usize = 24;
    const QUICK: usize = 16;

    fn build(size: usize, _seed: u64) -> Result<Self, String> {
        in_range("the tree's depth", size, 1, 40)?;
        fits(
            &format!("a tree of depth {size}"),
            (1usize << size) - 1,
            std::mem::size_of::<Tree>() as u64,
        )?;
        Ok(TreeSum {
            depth: size as u32,
            tree: Tree::balanced(size as u32),
        })
    }

    fn describe(&self) -> String {
        format!(
            "sum of a binary tree of depth {} ({} boxed nodes), join at every node",
            self.depth,
            (1u64 << self.depth) - 1
        )
    }

    fn run<J: Join>(&mut self, j: &mut J) -> u64 {
        tree_sum(j, &self.tree)
    }
}

/// The unsorted input of the sorts, a copy that each run sorts, and scratch space.
#[derive(Debug)]
struct SortInput {
    unsorted: Vec<u64>,
    work: Vec<u64>,
    scratch: Vec<u64>,
}

impl SortInput {
    fn build(len: usize, seed: u64, scratch: bool) -> Result<SortInput, String> {
        fits(&format!("{len} u64 to sort"), len, 8 * (2 + scratch as u64))?;
        let mut rng = SplitMix64::new(seed);
        let unsorted: Vec<u64> = (0..len).map(|_| rng.next_u64()).collect();
        Ok(SortInput {
            work: unsorted.clone(),
            scratch: if scratch { vec![0; len] } else { Vec::new() },
            unsorted,
        })
    }

    fn prepare(&mut self) {
        self.work.copy_from_slice(&self.unsorted);
    }

    fn digest(&self, name: &str) -> Result<u64, String> {
        if !self.work.is_sorted() {
            return Err(format!("{name} output is not sorted"));
        }
        Ok(digest(self.work.iter().copied()))
    }
}

/// Parallel quicksort of random `u64`. Size: elements.
#[derive(Debug)]
pub struct Quicksort(SortInput);

impl Kernel for Quicksort {
    const NAME: &'static str = "quicksort";
    const ABOUT: &'static str = "parallel quicksort of random u64";
    const FULL: usize = 10_000_000;
    const QUICK: usize = 200_000;

    fn build(size: usize, seed: u64) -> Result<Self, String> {
        SortInput::build(size, seed, false).map(Quicksort)
    }

    fn describe(&self) -> String {
        format!(
            "quicksort of {} random u64, sort_unstable below {QUICKSORT_CUTOFF}",
            self.0.unsorted.len()
        )
    }

    fn prepare(&mut self) {
        self.0.prepare();
    }

    fn run<J: Join>(&mut self, j: &mut J) -> u64 {
        quicksort(j, &mut self.0.work);
        0
    }

    fn digest(&self, _ret: u64) -> Result<u64, String> {
        self.0.digest(Self::NAME)
    }
}

/// Parallel mergesort of random `u64` with a scratch buffer. Size: elements.
#[derive(Debug)]
pub struct Mergesort(SortInput);

impl Kernel for Mergesort {
    const NAME: &'static str = "mergesort";
    const ABOUT: &'static str = "parallel mergesort of random u64 with a scratch buffer";
    const FULL: usize = 10_000_000;
    const QUICK: usize = 200_000;

    fn build(size: usize, seed: u64) -> Result<Self, String> {
        SortInput::build(size, seed, true).map(Mergesort)
    }

    fn describe(&self) -> String {
        format!(
            "mergesort of {} random u64, sort_unstable below {MERGESORT_CUTOFF}",
            self.0.unsorted.len()
        )
    }

    fn prepare(&mut self) {
        self.0.prepare();
    }

    fn run<J: Join>(&mut self, j: &mut J) -> u64 {
        let SortInput { work, scratch, .. } = &mut self.0;
        mergesort(j, work, scratch);
        0
    }

    fn digest(&self, _ret: u64) -> Result<u64, String> {
        self.0.digest(Self::NAME)
    }
}

/// Divide-and-conquer sum of random `u64` below 2^56, sequential below [`REDUCE_GRAIN`].
/// Size: elements. Its stream is `seed ^ 1`'s (the sorts use `seed`'s).
#[derive(Debug)]
pub struct Reduce(Vec<u64>);

impl Kernel for Reduce {
    const NAME: &'static str = "reduce";
    const ABOUT: &'static str = "divide-and-conquer sum of random u64";
    const FULL: usize = 100_000_000;
    const QUICK: usize = 2_000_000;

    fn build(size: usize, seed: u64) -> Result<Self, String> {
        fits(&format!("{size} u64 to sum"), size, 8)?;
        let mut rng = SplitMix64::new(seed ^ 1);
        Ok(Reduce((0..size).map(|_| rng.next_u64() >> 8).collect()))
    }

    fn describe(&self) -> String {
        format!(
            "divide-and-conquer sum of {} u64, sequential below {REDUCE_GRAIN}",
            self.0.len()
        )
    }

    fn run<J: Join>(&mut self, j: &mut J) -> u64 {
        sum_with_cutoff(j, &self.0, REDUCE_GRAIN)
    }
}

/// N-Queens, counting all solutions. Size: the board's side.
#[derive(Debug)]
pub struct Nqueens(u32);

impl Kernel for Nqueens {
    const NAME: &'static str = "nqueens";
    const ABOUT: &'static str = "N-Queens, counting all solutions";
    const FULL: usize = 12;
    const QUICK: usize = 9;

    fn build(size: usize, _seed: u64) -> Result<Self, String> {
        in_range("the board's side", size, 0, NQUEENS_MAX as usize)?;
        Ok(Nqueens(size as u32))
    }

    fn describe(&self) -> String {
        format!(
            "N-Queens({}), binary split of each row's candidates",
            self.0
        )
    }

    fn run<J: Join>(&mut self, j: &mut J) -> u64 {
        nqueens(j, self.0)
    }
}
