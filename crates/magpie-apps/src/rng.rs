//! The seeded pseudo-random generators of the applications, the benchmarks and their tests:
//! one type per algorithm, each small, fast and deterministic on every platform (the
//! generated instances, inputs and cost arrays are part of recorded results, so their
//! streams never change).
//!
//! - [`SplitMix64`]: Steele, Lea and Flood's generator (a Weyl sequence through a 64-bit
//!   mixer). Any seed is fine, zero included. The inputs of the fork-join kernels, the cost
//!   arrays of `dist`, the keys of `histogram`, the matrices of `spmv`.
//! - [`XorShift64Star`]: Marsaglia's xorshift with a multiplicative output (Vigna's
//!   xorshift64*). Random graphs (`maxclique::Graph::random`), [`crate::random_u64s`], and
//!   the random instances of the tests.
//!
//! Neither is cryptographic, and neither should be used where statistical quality matters
//! more than speed and reproducibility. xorshift64* is the runtime's own generator (its
//! victim policies draw with it), re-exported: one definition.
//!
//! ```
//! use magpie_apps::rng::{SplitMix64, XorShift64Star};
//! let mut a = SplitMix64::new(42);
//! let mut b = SplitMix64::new(42);
//! assert_eq!(a.next_u64(), b.next_u64()); // the same seed gives the same stream
//! let mut x = XorShift64Star::new(7);
//! assert!(x.below(10) < 10);
//! ```

/// The golden-ratio increment of SplitMix64 (and the seed scrambler of
/// [`XorShift64Star::new`]).
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The output function of SplitMix64: a bijective 64-bit mixer (Stafford's variant 13).
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// SplitMix64: the state advances by a fixed odd constant and each output is the state
/// through a 64-bit mixer. Period 2^64; every seed, zero included, gives a good stream.
///
/// ```
/// use magpie_apps::rng::SplitMix64;
/// let mut r = SplitMix64::new(0);
/// assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF); // the reference implementation's first value
/// let u = r.next_f64();
/// assert!((0.0..1.0).contains(&u));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator whose state starts at `seed`.
    pub const fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GOLDEN);
        mix(self.0)
    }

    /// A uniform value in `[0, 1)` from the top 53 bits of [`next_u64`](Self::next_u64).
    ///
    /// ```
    /// let mut r = magpie_apps::rng::SplitMix64::new(3);
    /// assert!((0..1000).map(|_| r.next_f64()).all(|u| (0.0..1.0).contains(&u)));
    /// ```
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// xorshift64*, defined once in the runtime (which draws its victims with it) and
/// re-exported here; the tests below pin its stream.
pub use magpie::policy::XorShift64Star;

#[cfg(test)]
mod tests {
    use super::*;

    /// The first outputs of the reference C implementations (splitmix64.c with seed 0;
    /// xorshift64* with state 1).
    #[test]
    fn reference_values() {
        let mut s = SplitMix64::new(0);
        assert_eq!(
            [s.next_u64(), s.next_u64(), s.next_u64()],
            [
                0xE220_A839_7B1D_CDAF,
                0x6E78_9E6A_A1B9_65F4,
                0x06C4_5D18_8009_454F
            ]
        );
        let mut x = XorShift64Star::from_state(1);
        assert_eq!(x.next_u64(), 0x47E4_CE4B_896C_DD1D);
    }

    /// `new` is SplitMix64's first output from the seed, made odd.
    #[test]
    fn xorshift_seeding_is_splitmix() {
        for seed in [0, 1, 42, u64::MAX] {
            let first = SplitMix64::new(seed).next_u64() | 1;
            assert_eq!(XorShift64Star::new(seed), XorShift64Star::from_state(first));
        }
    }
}
