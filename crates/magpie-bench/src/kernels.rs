//! The benchmark's kernels: `magpie_apps`' list of fork-join kernels
//! ([`magpie_apps::registry::KernelId`], each written once, generic over [`Join`]), at which
//! sizes, on which inputs.
//!
//! A kernel has an untimed `prepare` step (restoring unsorted data), a timed `run` step,
//! and returns a `u64` digest of its result, which the harness compares with the
//! sequential runtime's digest.

use crate::join::Join;
pub use magpie_apps::registry::KernelId;
use magpie_apps::registry::{parse_number, KernelInput};

/// The seed of every kernel's generated input (the sorts' stream; `reduce` uses
/// `SEED ^ 1`).
const SEED: u64 = 0x9E37_79B9_7F4A_7C15;

/// Which size each kernel runs at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sizes {
    /// Each kernel's full size (the sizes the benchmark reports).
    Full,
    /// Each kernel's `--quick` size, for smoke tests.
    Quick,
    /// `--size N`: every kernel at `N` (its meaning is the kernel's).
    Given(usize),
}

impl Sizes {
    /// The size of `kernel`.
    pub fn of(self, kernel: KernelId) -> usize {
        match self {
            Sizes::Full => kernel.full_size(),
            Sizes::Quick => kernel.quick_size(),
            Sizes::Given(n) => n,
        }
    }
}

/// clap's parser of `--kernels`: the registry's names, listed (with each kernel's line of
/// help) in `--help` and in the error for an unknown name.
pub fn kernel_parser() -> impl clap::builder::TypedValueParser<Value = KernelId> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(
        KernelId::ALL
            .iter()
            .map(|k| PossibleValue::new(k.name()).help(k.about())),
    )
    .map(|name| KernelId::from_name(&name).expect("a listed kernel name"))
}

/// clap's parser of `--size`: a whole number.
pub fn parse_size(value: &str) -> Result<usize, String> {
    parse_number("--size", value, 0usize, "a size")
}

/// Inputs shared by every runtime, built once (untimed).
pub struct Inputs {
    kernels: Vec<KernelInput>,
}

impl Inputs {
    /// Builds the inputs that `kernels` need at `sizes`; an error (one line) if a size is
    /// out of a kernel's range.
    pub fn new(sizes: Sizes, kernels: &[KernelId]) -> Result<Self, String> {
        let kernels = kernels
            .iter()
            .map(|&k| {
                k.build(sizes.of(k), SEED)
                    .map_err(|e| format!("{}: {e}", k.name()))
            })
            .collect::<Result<_, _>>()?;
        Ok(Inputs { kernels })
    }

    fn get(&mut self, kernel: KernelId) -> &mut KernelInput {
        self.kernels
            .iter_mut()
            .find(|k| k.id() == kernel)
            .expect("the kernel's input was built")
    }

    /// A one-line description of `kernel` at its size.
    pub fn describe(&mut self, kernel: KernelId) -> String {
        self.get(kernel).describe()
    }

    /// Untimed preparation before `kernel` runs (restores an unsorted input).
    pub fn prepare(&mut self, kernel: KernelId) {
        self.get(kernel).prepare();
    }

    /// The timed part: runs `kernel` on `j` and returns a cheap result (the sorts return 0;
    /// see [`Inputs::digest`]).
    pub fn run<J: Join>(&mut self, kernel: KernelId, j: &mut J) -> u64 {
        self.get(kernel).run(j)
    }

    /// The untimed digest of a run's result (`ret` is what [`Inputs::run`] returned); for
    /// the sorts, an order-sensitive digest of the output, or an error if it is unsorted.
    pub fn digest(&mut self, kernel: KernelId, ret: u64) -> Result<u64, String> {
        self.get(kernel).digest(ret)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::join::Sequential;

    #[test]
    fn every_kernel_runs_and_checks() {
        let mut inputs = Inputs::new(Sizes::Quick, KernelId::ALL).unwrap();
        for &k in KernelId::ALL {
            inputs.prepare(k);
            let ret = inputs.run(k, &mut Sequential);
            inputs.digest(k, ret).unwrap();
        }
    }

    /// The six original kernels keep their names, sizes and descriptions.
    #[test]
    fn the_original_kernels_are_unchanged() {
        let names: Vec<&str> = KernelId::DEFAULT.iter().map(|k| k.name()).collect();
        assert_eq!(
            names,
            ["fib", "tree", "quicksort", "mergesort", "reduce", "nqueens"]
        );
        let mut full = Inputs::new(Sizes::Full, &[KernelId::Fib, KernelId::Nqueens]).unwrap();
        assert_eq!(full.describe(KernelId::Fib), "fib(32), no cutoff");
        assert_eq!(
            full.describe(KernelId::Nqueens),
            "N-Queens(12), binary split of each row's candidates"
        );
        let mut quick = Inputs::new(Sizes::Quick, KernelId::DEFAULT).unwrap();
        let described: Vec<String> = KernelId::DEFAULT
            .iter()
            .map(|&k| quick.describe(k))
            .collect();
        assert_eq!(
            described,
            [
                "fib(24), no cutoff",
                "sum of a binary tree of depth 16 (65535 boxed nodes), join at every node",
                "quicksort of 200000 random u64, sort_unstable below 4096",
                "mergesort of 200000 random u64, sort_unstable below 4096",
                "divide-and-conquer sum of 2000000 u64, sequential below 16384",
                "N-Queens(9), binary split of each row's candidates",
            ]
        );
        assert_eq!(
            [KernelId::Tree, KernelId::Quicksort, KernelId::Reduce].map(|k| k.full_size()),
            [24, 10_000_000, 100_000_000]
        );
    }

    #[test]
    fn a_size_out_of_range_is_one_line() {
        let e = Inputs::new(Sizes::Given(99), &[KernelId::Nqueens])
            .err()
            .unwrap();
        assert_eq!(
            e,
            "nqueens: --size: the board's side must be in 0..=32, not 99"
        );
        let e = Inputs::new(Sizes::Given(1 << 40), &[KernelId::IntegerSort])
            .err()
            .unwrap();
        assert!(
            e.starts_with("integer-sort: --size:") && !e.contains('\n'),
            "{e}"
        );
    }
}
