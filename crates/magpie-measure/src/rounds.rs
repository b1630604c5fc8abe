//! Interleaved rounds: every round runs every configuration once, so that a slow drift of
//! the machine (its load, its clock, the other tenants of a VM) spreads over all of them
//! alike. Untimed warm-up rounds come first.
//!
//! ```
//! use magpie_measure::rounds::{rounds, Round};
//! let mut times = vec![Vec::new(); 2];
//! for round in rounds(1, 3) {
//!     for (c, t) in times.iter_mut().enumerate() {
//!         let seconds = 1.0 + c as f64; // measure configuration c here
//!         if round.is_timed() {
//!             t.push(seconds);
//!         }
//!     }
//! }
//! assert_eq!(times[1], [2.0, 2.0, 2.0]);
//! assert_eq!(rounds(1, 2).map(|r| r.to_string()).collect::<Vec<_>>(),
//!            ["warm-up", "round 1", "round 2"]);
//! ```

use std::fmt;

/// One round of an interleaved measurement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Round {
    /// An untimed warm-up round (numbered from 1).
    Warmup(u32),
    /// A timed round (numbered from 1).
    Timed(u32),
}

impl Round {
    /// Whether the round is timed (its results count).
    pub fn is_timed(self) -> bool {
        matches!(self, Round::Timed(_))
    }

    /// The round's number among those of its kind, from 1.
    pub fn number(self) -> u32 {
        match self {
            Round::Warmup(n) | Round::Timed(n) => n,
        }
    }
}

impl fmt::Display for Round {
    /// `warm-up` (every warm-up round) or `round N`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Round::Warmup(_) => f.write_str("warm-up"),
            Round::Timed(n) => write!(f, "round {n}"),
        }
    }
}

/// `warmup` warm-up rounds, then `timed` timed rounds.
pub fn rounds(warmup: u32, timed: u32) -> impl Iterator<Item = Round> {
    (1..=warmup)
        .map(Round::Warmup)
        .chain((1..=timed).map(Round::Timed))
}
