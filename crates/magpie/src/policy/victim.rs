//! Victim selection: which workers a thief probes, in which order.
//!
//! Contract: [`VictimPolicy::selector`] builds the per-worker state once, on the worker's
//! thread. Each round of stealing calls [`VictimSelector::next_round`], which fills a list of
//! victims to probe in order (never the thief itself; possibly fewer than all workers; the
//! same victim may repeat). After each probe the worker reports the outcome with
//! [`VictimSelector::on_steal`], which adaptive policies (sticky, hierarchical,
//! performance-driven) use to steer the next rounds.

use super::XorShift64Star;
use std::fmt::Debug;

/// What one probe of a victim produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeOutcome {
    /// A task was stolen.
    Stolen,
    /// The victim had nothing.
    Empty,
    /// Lost a race, or the victim only had private work (an exposure was requested).
    Busy,
}

/// A victim-selection policy shared by a pool.
pub trait VictimPolicy: Send + Sync + Debug {
    /// The policy's name (as accepted by `MAGPIE_VICTIMS` / `--victims`).
    fn name(&self) -> &str;
    /// The per-worker selector for worker `thief` of a pool of `num_workers` (≥ 2).
    fn selector(&self, thief: usize, num_workers: usize) -> Box<dyn VictimSelector>;
}

/// Per-worker victim-selection state.
pub trait VictimSelector: Send {
    /// Fills `victims` (cleared by the caller) with the victims to probe this round.
    fn next_round(&mut self, victims: &mut Vec<usize>);
    /// Feedback after probing `victim`.
    fn on_steal(&mut self, _victim: usize, _outcome: ProbeOutcome) {}
}

/// Uniform random victim selection: each round probes `num_workers − 1` victims, each drawn
/// uniformly at random among the other workers.
///
/// ```
/// use magpie::policy::{RandomVictims, VictimPolicy};
/// let mut s = RandomVictims.selector(0, 4);
/// let mut round = Vec::new();
/// s.next_round(&mut round);
/// assert_eq!(round.len(), 3);
/// assert!(round.iter().all(|&v| v != 0 && v < 4));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct RandomVictims;

impl VictimPolicy for RandomVictims {
    fn name(&self) -> &str {
        "random"
    }

    fn selector(&self, thief: usize, num_workers: usize) -> Box<dyn VictimSelector> {
        Box::new(RandomSelector {
            thief,
            others: num_workers.saturating_sub(1),
            rng: XorShift64Star::new(thief as u64 ^ 0x6D61_6770_6965),
        })
    }
}

struct RandomSelector {
    thief: usize,
    others: usize,
    rng: XorShift64Star,
}

impl VictimSelector for RandomSelector {
    fn next_round(&mut self, victims: &mut Vec<usize>) {
        for _ in 0..self.others {
            // Draw among the others, then skip over the thief's own index.
            let v = self.rng.below(self.others);
            victims.push(if v >= self.thief { v + 1 } else { v });
        }
    }
}

/// The victim policies selectable by name.
pub fn by_name(name: &str) -> Option<std::sync::Arc<dyn VictimPolicy>> {
    match name.trim().to_ascii_lowercase().as_str() {
        "random" => Some(std::sync::Arc::new(RandomVictims)),
        _ => None,
    }
}

/// The accepted victim-policy names.
pub const NAMES: &[&str] = &["random"];
