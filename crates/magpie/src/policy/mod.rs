//! Scheduling policies that run only when a worker is out of work: which victim to rob
//! ([`victim`]) and what to do between failed rounds of stealing ([`idle`]).
//!
//! Each policy is chosen at run time by name (builder, environment variable, CLI flag) or
//! supplied as a value implementing the trait. A policy object is shared by the pool and
//! creates one small per-worker state object; dynamic dispatch is fine here because it only
//! runs off the hot path.

pub mod idle;
mod params;
pub mod topology;
pub mod victim;

pub use idle::{IdleAction, IdlePolicy, IdleState, ParkIdle};
pub use params::{parse_duration, PolicyError, PolicySpec, SpecError};
pub use victim::{RandomVictims, VictimPolicy, VictimSelector};

/// A tiny, fast pseudo-random generator (xorshift64*) for per-worker decisions.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct XorShift64Star(u64);

impl XorShift64Star {
    /// A generator from `seed` (any value; zero is remapped).
    pub fn new(seed: u64) -> Self {
        // SplitMix64 scrambles the seed so that workers 0, 1, 2… get unrelated streams.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        XorShift64Star((z ^ (z >> 31)) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A uniform value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}
