//! Inter-rank victim selection: which rank an idle rank asks for work.

use std::fmt;
use std::str::FromStr;
use std::time::Instant;

use magpie::policy::XorShift64Star;

use crate::perf::{Monitor, RankPerfParams};
use crate::Error;

/// The inter-rank victim policy.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum RemoteVictims {
    /// A uniformly random other rank for every request.
    #[default]
    Random,
    /// YewPar's original: ask the last rank that gave work again; after a refusal, a random
    /// other rank.
    Sticky,
    /// The Performance-Driven policy ([`crate::perf`]): the rank with the best score of load,
    /// residual tasks and latency, refreshed by a monitor.
    Perf(RankPerfParams),
}

impl RemoteVictims {
    /// The accepted names.
    pub const NAMES: [&'static str; 3] = ["random", "sticky", "perf[:KEY=VALUE,...]"];

    /// A chooser for `rank` of `size` ranks, each with `local_workers` workers.
    pub fn chooser(&self, rank: i32, size: i32, local_workers: usize) -> Chooser {
        Chooser {
            policy: *self,
            rank,
            size,
            rng: XorShift64Star::new(0x9e37_79b9_7f4a_7c15 ^ (rank as u64 + 1)),
            last_good: None,
            monitor: match self {
                RemoteVictims::Perf(p) => Some(Monitor::new(*p, rank, size, local_workers)),
                _ => None,
            },
        }
    }
}

impl fmt::Display for RemoteVictims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RemoteVictims::Random => f.pad("random"),
            RemoteVictims::Sticky => f.pad("sticky"),
            RemoteVictims::Perf(p) if *p == RankPerfParams::default() => f.pad("perf"),
            RemoteVictims::Perf(p) => f.pad(&format!("perf:{p}")),
        }
    }
}

impl FromStr for RemoteVictims {
    type Err = Error;

    /// ```
    /// use magpie_mpi::victims::RemoteVictims;
    /// assert_eq!("sticky".parse::<RemoteVictims>(), Ok(RemoteVictims::Sticky));
    /// let e = "nearest".parse::<RemoteVictims>().unwrap_err();
    /// assert!(e.to_string().contains("random, sticky"));
    /// let perf: RemoteVictims = "perf:refresh-max=1s".parse().unwrap();
    /// assert_eq!(perf.to_string().parse::<RemoteVictims>(), Ok(perf));
    /// ```
    fn from_str(s: &str) -> Result<Self, Error> {
        match s.trim() {
            "random" => Ok(RemoteVictims::Random),
            "sticky" => Ok(RemoteVictims::Sticky),
            "perf" => Ok(RemoteVictims::Perf(RankPerfParams::default())),
            other if other.starts_with("perf:") => Ok(RemoteVictims::Perf(other[5..].parse()?)),
            other => Err(Error::unknown(
                "inter-rank victim policy",
                other,
                &Self::NAMES,
            )),
        }
    }
}

/// One rank's victim choices.
#[derive(Debug)]
pub struct Chooser {
    policy: RemoteVictims,
    rank: i32,
    size: i32,
    rng: XorShift64Star,
    last_good: Option<i32>,
    monitor: Option<Monitor>,
}

impl Chooser {
    /// The rank to ask next (never this rank; needs at least two ranks).
    pub fn next_victim(&mut self) -> i32 {
        if let (RemoteVictims::Sticky, Some(v)) = (self.policy, self.last_good) {
            return v;
        }
        if let Some(v) = self.monitor.as_ref().and_then(Monitor::target) {
            return v;
        }
        let others = (self.size - 1).max(1) as usize;
        let k = self.rng.below(others) as i32;
        if k >= self.rank {
            k + 1
        } else {
            k
        }
    }

    /// What asking `victim` gave: work or not, answered at `now`.
    pub fn outcome(&mut self, victim: i32, got_work: bool, now: Instant) {
        self.last_good = got_work.then_some(victim);
        if let Some(m) = &mut self.monitor {
            m.outcome(victim, got_work, now);
        }
    }

    /// Whether an idle rank may ask for work now (the `perf` policy waits for its auxiliary
    /// refresh and sleeps after a second refusal; the others always may).
    pub fn may_steal(&mut self, now: Instant) -> bool {
        self.monitor.as_mut().is_none_or(|m| m.may_steal(now))
    }

    /// The `perf` policy's monitor.
    pub fn monitor(&mut self) -> Option<&mut Monitor> {
        self.monitor.as_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_never_picks_itself_and_reaches_everyone() {
        for size in 2..6 {
            for rank in 0..size {
                let mut c = RemoteVictims::Random.chooser(rank, size, 1);
                let mut seen = vec![false; size as usize];
                for _ in 0..200 {
                    let v = c.next_victim();
                    assert!(v != rank && (0..size).contains(&v));
                    seen[v as usize] = true;
                }
                assert_eq!(seen.iter().filter(|&&s| s).count(), size as usize - 1);
            }
        }
    }

    #[test]
    fn sticky_keeps_the_last_good_victim_until_it_refuses() {
        let mut c = RemoteVictims::Sticky.chooser(0, 4, 1);
        let first = c.next_victim();
        c.outcome(first, true, Instant::now());
        assert_eq!(c.next_victim(), first);
        assert_eq!(c.next_victim(), first);
        c.outcome(first, false, Instant::now());
        let mut others = 0;
        for _ in 0..50 {
            let v = c.next_victim();
            assert_ne!(v, 0);
            others += usize::from(v != first);
        }
        assert!(others > 0);
    }
}
