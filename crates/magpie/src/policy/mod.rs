//! Scheduling policies that run only when a worker is out of work: which victim to rob
//! ([`victim`]) and what to do between failed rounds of stealing ([`idle`]).
//!
//! Each policy is chosen at run time by name (builder, environment variable, CLI flag) or
//! supplied as a value implementing the trait. A policy object is shared by the pool and
//! creates one small per-worker state object; dynamic dispatch is fine here because it only
//! runs off the hot path.

pub mod idle;
mod params;
mod topology;
pub mod victim;

pub use idle::{IdleAction, IdlePolicy, IdleState, ParkIdle};
pub use params::{parse_duration, PolicyError, PolicySpec, SpecError};
pub use topology::{Level, LevelKind, Topology, TopologyError};
pub use victim::{RandomVictims, VictimPolicy, VictimSelector};

/// xorshift64*: a 64-bit xorshift state (never zero) whose output is multiplied by an odd
/// constant (Vigna). Period 2^64 − 1; tiny and fast. The victim policies draw with it, and so
/// can a [`VictimSelector`] of your own; the applications' seeded inputs use it too
/// (re-exported as `magpie_apps::rng::XorShift64Star`, whose tests pin its stream).
///
/// [`new`](Self::new) scrambles the seed with SplitMix64's first step, so seeds 0, 1, 2, …
/// (worker indices) give unrelated streams; [`from_state`](Self::from_state) takes the state
/// as it is.
///
/// ```
/// use magpie::policy::XorShift64Star;
/// let mut a = XorShift64Star::new(1);
/// let mut b = XorShift64Star::new(2);
/// assert_ne!(a.next_u64(), b.next_u64());
/// assert_eq!(XorShift64Star::from_state(1).next_u64(), 0x47E4_CE4B_896C_DD1D);
/// assert!((0..1000).all(|_| a.below(3) < 3));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XorShift64Star(u64);

impl XorShift64Star {
    /// A generator from `seed` (any value): the state is `seed` through SplitMix64's first
    /// step, with its lowest bit set (so never zero).
    pub fn new(seed: u64) -> Self {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        XorShift64Star((z ^ (z >> 31)) | 1)
    }

    /// A generator whose state is `state` as given.
    ///
    /// # Panics
    ///
    /// If `state` is zero (xorshift's one fixed point).
    ///
    /// ```should_panic
    /// magpie::policy::XorShift64Star::from_state(0);
    /// ```
    pub fn from_state(state: u64) -> Self {
        assert_ne!(state, 0, "xorshift64* needs a nonzero state");
        XorShift64Star(state)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A uniform value in `0..n` (`n > 0`) from the top 32 bits of
    /// [`next_u64`](Self::next_u64) by multiply-shift (no division; `n` below 2^32).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}
