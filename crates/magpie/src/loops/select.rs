//! Automatic schedule selection across the calls (time steps) of one [`super::Loop`], after
//! LB4OMP's selection methods. Every method draws from the same portfolio, ordered from the
//! least scheduling overhead to the most balancing:
//! `static, static-steal, fac2, gss, tss, awf-b, af, ss`.
//!
//! The rules implemented:
//! - **random-sel**: each call runs a portfolio member drawn uniformly at random (seeded per
//!   loop, so a run is reproducible).
//! - **exhaustive-sel**: the first calls try every member once, in portfolio order; after
//!   that the fastest one runs. When a call of the chosen member takes more than 1.5× its trial
//!   time (the loop's behaviour changed), the trials start again.
//! - **binary-sel**: a binary search over the ordered portfolio: with the candidates
//!   `lo..=hi`, the calls time `mid` and `mid + 1` (`mid = (lo + hi) / 2`), then keep the
//!   half of the faster one (`hi = mid` if `mid` was not slower, else `lo = mid + 1`); when
//!   one candidate is left it runs from then on.
//! - **expert-sel**: starts with `static` and moves by the load imbalance it measures (the
//!   c.o.v. of the workers' busy times): above 0.10 one step towards the balancing end, below
//!   0.02 one step back towards the cheap end unless that member was slower the last time it
//!   ran, otherwise it stays.

use std::time::Duration;

use super::{LoopStats, Schedule};
use crate::policy::XorShift64Star;

/// The portfolio, cheapest first.
pub(crate) fn portfolio() -> Vec<Schedule> {
    [
        "static",
        "static-steal",
        "fac2",
        "gss",
        "tss",
        "awf-b",
        "af",
        "ss",
    ]
    .iter()
    .map(|s| s.parse().expect("portfolio names parse"))
    .collect()
}

/// Selection state of one loop.
#[derive(Debug)]
pub(crate) struct Selector {
    method: Schedule,
    members: Vec<Schedule>,
    /// The last time each member ran.
    times: Vec<Option<Duration>>,
    /// Trial times of exhaustive-sel.
    trials: Vec<Option<Duration>>,
    rng: XorShift64Star,
    /// binary-sel's range and the member timed in this call.
    lo: usize,
    hi: usize,
    /// The member the next call runs.
    current: usize,
}

impl Selector {
    pub(crate) fn new(method: Schedule) -> Self {
        let members = portfolio();
        let k = members.len();
        Selector {
            method,
            times: vec![None; k],
            trials: vec![None; k],
            members,
            rng: XorShift64Star::new(0x73656c),
            lo: 0,
            hi: k - 1,
            current: 0,
        }
    }

    /// The member the next call runs (its index and schedule).
    pub(crate) fn choose(&mut self) -> (usize, Schedule) {
        let k = self.members.len();
        let i = match self.method {
            Schedule::RandomSel => self.rng.below(k),
            Schedule::ExhaustiveSel => match self.trials.iter().position(Option::is_none) {
                Some(untried) => untried,
                None => self.fastest_trial(),
            },
            Schedule::BinarySel => {
                if self.lo >= self.hi {
                    self.lo
                } else {
                    let mid = (self.lo + self.hi) / 2;
                    if self.times[mid].is_none() {
                        mid
                    } else {
                        mid + 1
                    }
                }
            }
            _ => self.current,
        };
        self.current = i;
        (i, self.members[i].clone())
    }

    fn fastest_trial(&self) -> usize {
        (0..self.trials.len())
            .min_by_key(|&i| self.trials[i].unwrap_or(Duration::MAX))
            .unwrap_or(0)
    }

    /// What the call of member `i` measured.
    pub(crate) fn record(&mut self, i: usize, stats: &LoopStats) {
        let t = stats.time;
        let previous = self.times[i].replace(t);
        match self.method {
            Schedule::ExhaustiveSel => {
                if self.trials[i].is_none() {
                    self.trials[i] = Some(t);
                } else if let Some(trial) = self.trials[i] {
                    if t.as_secs_f64() > 1.5 * trial.as_secs_f64() {
                        self.trials.iter_mut().for_each(|x| *x = None);
                    }
                }
            }
            Schedule::BinarySel if self.lo < self.hi => {
                let mid = (self.lo + self.hi) / 2;
                if let (Some(a), Some(b)) = (self.times[mid], self.times[mid + 1]) {
                    if i == mid + 1 {
                        if a <= b {
                            self.hi = mid;
                        } else {
                            self.lo = mid + 1;
                        }
                        // The next round times fresh members.
                        self.times.iter_mut().for_each(|x| *x = None);
                    }
                }
            }
            Schedule::ExpertSel => {
                let cov = stats.cov();
                let k = self.members.len();
                if cov > 0.10 && i + 1 < k {
                    self.current = i + 1;
                } else if cov < 0.02 && i > 0 {
                    let cheaper_was_slower = self.times[i - 1].is_some_and(|c| c > t);
                    if !cheaper_was_slower {
                        self.current = i - 1;
                    }
                }
                let _ = previous;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(ms: u64, busy: &[u64]) -> LoopStats {
        LoopStats {
            schedule: String::new(),
            time: Duration::from_millis(ms),
            busy: busy.iter().map(|&b| Duration::from_millis(b)).collect(),
            chunks: 1,
            steals: 0,
        }
    }

    #[test]
    fn exhaustive_tries_each_member_then_keeps_the_fastest() {
        let mut s = Selector::new(Schedule::ExhaustiveSel);
        let k = portfolio().len();
        for want in 0..k {
            let (i, _) = s.choose();
            assert_eq!(i, want);
            // Member 3 (gss) is the fastest.
            s.record(i, &stats(if i == 3 { 5 } else { 10 + i as u64 }, &[1, 1]));
        }
        for _ in 0..3 {
            let (i, sched) = s.choose();
            assert_eq!((i, sched.to_string()), (3, "gss".to_string()));
            s.record(i, &stats(6, &[1, 1]));
        }
        // Much slower than its trial: the trials start again.
        let (i, _) = s.choose();
        s.record(i, &stats(20, &[1, 1]));
        assert_eq!(s.choose().0, 0);
    }

    #[test]
    fn binary_search_halves_towards_the_faster_member() {
        let mut s = Selector::new(Schedule::BinarySel);
        // Times grow with the distance from member 5: the search must end on 5.
        let cost = |i: usize| 10 + (i as i64 - 5).unsigned_abs();
        let mut visited = Vec::new();
        for _ in 0..12 {
            let (i, _) = s.choose();
            visited.push(i);
            s.record(i, &stats(cost(i), &[1, 1]));
        }
        // Range 0..=7: mid 3 vs 4 → 4 faster → 4..=7; mid 5 vs 6 → 5 → 4..=5; mid 4 vs 5 → 5.
        assert_eq!(&visited[..6], &[3, 4, 5, 6, 4, 5]);
        assert!(visited[6..].iter().all(|&i| i == 5), "{visited:?}");
    }

    #[test]
    fn expert_moves_by_load_imbalance() {
        let mut s = Selector::new(Schedule::ExpertSel);
        let (i, sched) = s.choose();
        assert_eq!((i, sched.to_string()), (0, "static".to_string()));
        // Imbalanced (c.o.v. 0.5): one step towards balancing.
        s.record(0, &stats(10, &[1, 3]));
        assert_eq!(s.choose().0, 1);
        // Balanced, but the cheaper member was slower when it ran (10 ms vs 8 ms): stays.
        s.record(1, &stats(8, &[2, 2]));
        assert_eq!(s.choose().0, 1);
        // Balanced and now slower than the cheaper member was: one step back.
        s.record(1, &stats(12, &[2, 2]));
        assert_eq!(s.choose().0, 0);
    }

    #[test]
    fn random_draws_from_the_whole_portfolio() {
        let mut s = Selector::new(Schedule::RandomSel);
        let mut seen = vec![false; portfolio().len()];
        for _ in 0..500 {
            let (i, _) = s.choose();
            seen[i] = true;
            s.record(i, &stats(1, &[1]));
        }
        assert!(seen.iter().all(|&x| x));
    }
}
