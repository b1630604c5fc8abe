//! Victim selection: which workers a thief probes, in which order.
//!
//! Contract: [`VictimPolicy::selectors`] builds one selector per worker when a pool starts
//! (so a policy can share per-pool state, such as the performance monitor of `perf`, between
//! its selectors); each selector then lives on its worker's thread. Each round of stealing
//! calls [`VictimSelector::next_round`], which fills a list of victims to probe in order
//! (never the thief itself; possibly fewer than all workers; the same victim may repeat).
//! After each probe the worker reports a [`Probe`] to [`VictimSelector::on_probe`], which
//! adaptive policies (sticky, last-victim, hierarchical, locality, perf) use to steer the
//! next probes: a selector may also append more victims to the current round there. The idle
//! policy runs when a round ends without work, so a round is what the Pheet thesis calls
//! "the hierarchy is exhausted".
//!
//! A policy that asks for it ([`VictimPolicy::measures`]) also gets each probe's latency and,
//! from its own worker, the idle and work time of each task it runs
//! ([`VictimSelector::on_task_done`]): what the performance-driven policy needs. A policy can
//! ask for its workers to be pinned to CPUs ([`VictimPolicy::placement`]), which the
//! topology-aware policies do so that "near" means something.

use super::params::{PolicyError, PolicySpec};
use super::XorShift64Star;
use std::fmt::Debug;
use std::sync::Arc;

mod hierarchical;
mod last_victim;
mod locality;
mod perf;
mod placed;
mod sticky;

pub use hierarchical::HierarchicalVictims;
pub use last_victim::LastVictim;
pub use locality::LocalityVictims;
// The perf policy's formulas (Eqs. 3.1–3.3, §3.4) are public for magpie-mpi's inter-rank
// policy, which uses the same ones; they are hidden from the documentation, as no user of a
// pool needs them.
#[doc(hidden)]
pub use perf::{next_interval, score, smoothed_delay, work_rate};
pub use perf::{Clock, MonotonicClock, PerfParams, PerfVictims};
pub use sticky::StickyVictims;

/// What one probe of a victim produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProbeOutcome {
    /// A task was stolen.
    Stolen,
    /// The victim had nothing.
    Empty,
    /// Lost a race, or the victim only had private work (an exposure was requested).
    Busy,
}

/// One probe, as reported to [`VictimSelector::on_probe`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    /// The worker probed.
    pub victim: usize,
    /// What it gave.
    pub outcome: ProbeOutcome,
    /// How long the steal attempt took, in nanoseconds (0 unless the policy
    /// [`measures`](VictimPolicy::measures)).
    pub latency_ns: u64,
}

/// The idle and work time of one task cycle, as reported to
/// [`VictimSelector::on_task_done`]: the cycle runs from the end of the worker's previous task
/// (or the start of its search for work) to the end of this task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskCycle {
    /// Nanoseconds between the end of the previous task and the start of this one.
    pub idle_ns: u64,
    /// Nanoseconds the task ran.
    pub work_ns: u64,
}

/// What a selector may look at in the pool, cheaply and racily.
pub trait PoolView {
    /// The pool's number of workers.
    fn num_workers(&self) -> usize;
    /// A racy estimate of the number of tasks worker `worker` holds (public and private: a
    /// split deque's owner exposes private tasks when asked).
    fn queue_len(&self, worker: usize) -> usize;
}

/// Queue lengths as a pool: worker `w` holds `self[w]` tasks (for tests and examples).
///
/// ```
/// use magpie::policy::victim::PoolView;
/// let pool = vec![0, 3, 1];
/// assert_eq!((pool.num_workers(), pool.queue_len(1)), (3, 3));
/// ```
impl PoolView for Vec<usize> {
    fn num_workers(&self) -> usize {
        self.len()
    }

    fn queue_len(&self, worker: usize) -> usize {
        self.get(worker).copied().unwrap_or(0)
    }
}

/// A victim-selection policy shared by a pool.
pub trait VictimPolicy: Send + Sync + Debug {
    /// The policy's name (as accepted by `MAGPIE_VICTIMS` / `--victims`).
    fn name(&self) -> &str;
    /// One selector per worker of a pool of `num_workers` (≥ 1) workers, in worker order.
    fn selectors(&self, num_workers: usize) -> Vec<Box<dyn VictimSelector>>;
    /// Whether the runtime should time each probe and report task cycles (costs two clock
    /// reads per probe and per task found while idle).
    fn measures(&self) -> bool {
        false
    }
    /// The CPU each worker should be pinned to, or `None` to leave placement to the OS.
    fn placement(&self, _num_workers: usize) -> Option<Vec<usize>> {
        None
    }
}

/// Per-worker victim-selection state.
pub trait VictimSelector: Send {
    /// Fills `victims` (cleared by the caller) with the victims to probe this round.
    fn next_round(&mut self, pool: &dyn PoolView, victims: &mut Vec<usize>);
    /// Feedback after a probe; may push more victims onto this round's `victims`.
    fn on_probe(&mut self, _pool: &dyn PoolView, _probe: Probe, _victims: &mut Vec<usize>) {}
    /// A task this worker found while idle ended (only if the policy
    /// [`measures`](VictimPolicy::measures)).
    fn on_task_done(&mut self, _cycle: TaskCycle) {}
}

/// Uniform random victim selection: each round probes `num_workers − 1` victims, each drawn
/// uniformly at random among the other workers.
///
/// ```
/// use magpie::policy::victim::{PoolView, RandomVictims, VictimPolicy};
/// struct Four;
/// impl PoolView for Four {
///     fn num_workers(&self) -> usize { 4 }
///     fn queue_len(&self, _: usize) -> usize { 0 }
/// }
/// let mut s = RandomVictims.selectors(4).remove(0);
/// let mut round = Vec::new();
/// s.next_round(&Four, &mut round);
/// assert_eq!(round.len(), 3);
/// assert!(round.iter().all(|&v| v != 0 && v < 4));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct RandomVictims;

impl VictimPolicy for RandomVictims {
    fn name(&self) -> &str {
        "random"
    }

    fn selectors(&self, num_workers: usize) -> Vec<Box<dyn VictimSelector>> {
        (0..num_workers)
            .map(|thief| Box::new(RandomOther::new(thief, num_workers)) as Box<dyn VictimSelector>)
            .collect()
    }
}

/// A uniform draw among the workers other than the thief: the fallback of most policies.
#[derive(Debug, Clone)]
pub struct RandomOther {
    thief: usize,
    others: usize,
    rng: XorShift64Star,
}

impl RandomOther {
    /// Draws for worker `thief` of `num_workers`, seeded by the thief's index.
    pub fn new(thief: usize, num_workers: usize) -> Self {
        RandomOther {
            thief,
            others: num_workers.saturating_sub(1),
            rng: XorShift64Star::new(thief as u64 ^ 0x6D61_6770_6965),
        }
    }

    /// A victim other than the thief (`None` in a one-worker pool).
    pub fn draw(&mut self) -> Option<usize> {
        if self.others == 0 {
            return None;
        }
        // Draw among the others, then skip over the thief's own index.
        let v = self.rng.below(self.others);
        Some(if v >= self.thief { v + 1 } else { v })
    }

    /// The generator, for policies that need more random decisions.
    pub fn rng(&mut self) -> &mut XorShift64Star {
        &mut self.rng
    }
}

impl VictimSelector for RandomOther {
    fn next_round(&mut self, _pool: &dyn PoolView, victims: &mut Vec<usize>) {
        for _ in 0..self.others {
            victims.extend(self.draw());
        }
    }
}

/// The victim policies selectable by name, with parameters in the syntax of
/// [`PolicySpec`] (e.g. `perf:refresh-max=100ms`).
///
/// ```
/// let p = magpie::policy::victim::by_name("sticky").unwrap();
/// assert_eq!(p.name(), "sticky");
/// assert!(magpie::policy::victim::by_name("round-robin").is_err());
/// ```
pub fn by_name(spec: &str) -> Result<Arc<dyn VictimPolicy>, PolicyError> {
    let mut spec: PolicySpec = spec.parse()?;
    let policy: Arc<dyn VictimPolicy> = match spec.name() {
        "random" => Arc::new(RandomVictims),
        "sticky" => Arc::new(StickyVictims::from_spec(&mut spec)?),
        "last-victim" => Arc::new(LastVictim::from_spec(&mut spec)?),
        "hierarchical" => Arc::new(HierarchicalVictims::from_spec(&mut spec)?),
        "locality" => Arc::new(LocalityVictims::from_spec(&mut spec)?),
        "perf" => Arc::new(PerfVictims::from_spec(&mut spec)?),
        other => {
            return Err(PolicyError::UnknownName(crate::deque::UnknownName {
                what: "victim policy",
                given: other.to_string(),
                accepted: NAMES.to_vec(),
            }))
        }
    };
    spec.finish()?;
    Ok(policy)
}

/// The accepted victim-policy names.
pub const NAMES: &[&str] = &[
    "random",
    "sticky",
    "last-victim",
    "hierarchical",
    "locality",
    "perf",
];

#[cfg(test)]
pub(crate) mod test_support {
    use super::{Probe, ProbeOutcome};

    /// A pool of `n` workers with empty queues.
    pub(crate) fn idle(n: usize) -> Vec<usize> {
        vec![0; n]
    }

    /// An untimed probe.
    pub(crate) fn probe(victim: usize, outcome: ProbeOutcome) -> Probe {
        Probe {
            victim,
            outcome,
            latency_ns: 0,
        }
    }
}
