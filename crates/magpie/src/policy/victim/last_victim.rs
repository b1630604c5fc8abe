//! The `LastVictim` policy; its documentation is on [`LastVictim`].

use super::{PoolView, Probe, ProbeOutcome, RandomOther, VictimPolicy, VictimSelector};
use crate::policy::params::{PolicySpec, SpecError};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The value of a last-victim slot that holds no victim.
pub const NONE: usize = usize::MAX;

/// `last-victim` victim selection: retry the last victim, follow failed victims' last
/// victims, else draw at random: Pheet's rule (Haselsteiner 2015, §2.2).
///
/// Each worker remembers the last victim it stole from successfully, in a table shared by the
/// pool (one `AtomicUsize` per worker, `usize::MAX` for none). A round:
///
/// 1. retries the thief's own last victim first (if it has one);
/// 2. after each failed probe of a victim `v`, tries `v`'s own last victim next — where `v`
///    found work is a good guess for where work still is — and so on along the chain;
/// 3. when there is nothing to follow, draws the next victim uniformly at random among the
///    other workers ([`RandomOther`]), `workers − 1` draws per round in all.
///
/// A chain is followed only to workers not yet probed in this round, and never to the thief
/// itself, so it cannot loop: a round makes at most `1 + (workers − 1) + (workers − 1)`
/// probes. Victims are handed to the runtime one at a time (the next is appended to the round
/// in [`on_probe`](VictimSelector::on_probe)), so that a chained victim is probed right after
/// the failure that led to it. A failed retry keeps the last victim (it is "the last one this
/// thief stole from successfully", and the chains of other thieves use it).
///
/// No parameters.
///
/// ```
/// use magpie::policy::victim::{LastVictim, PoolView, Probe, ProbeOutcome, VictimPolicy};
/// struct Four;
/// impl PoolView for Four {
///     fn num_workers(&self) -> usize { 4 }
///     fn queue_len(&self, _: usize) -> usize { 0 }
/// }
/// let mut sel = LastVictim.selectors(4);
/// let mut round = Vec::new();
/// // Worker 1 steals from worker 3.
/// sel[1].next_round(&Four, &mut round);
/// sel[1].on_probe(&Four, Probe { victim: 3, outcome: ProbeOutcome::Stolen, latency_ns: 0 }, &mut round);
/// // Worker 1 retries 3 first in its next round.
/// round.clear();
/// sel[1].next_round(&Four, &mut round);
/// assert_eq!(round, [3]);
/// // Worker 0 probes worker 1 and fails: it tries 1's last victim, 3, next.
/// round = vec![1];
/// sel[0].on_probe(&Four, Probe { victim: 1, outcome: ProbeOutcome::Empty, latency_ns: 0 }, &mut round);
/// assert_eq!(round, [1, 3]);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct LastVictim;

impl LastVictim {
    /// The policy with the parameters of `spec` (it has none).
    pub fn from_spec(_spec: &mut PolicySpec) -> Result<Self, SpecError> {
        Ok(LastVictim)
    }

    /// A pool's table of last victims: one slot per worker, all empty.
    pub fn table(num_workers: usize) -> Arc<[AtomicUsize]> {
        (0..num_workers).map(|_| AtomicUsize::new(NONE)).collect()
    }
}

impl VictimPolicy for LastVictim {
    fn name(&self) -> &str {
        "last-victim"
    }

    fn selectors(&self, num_workers: usize) -> Vec<Box<dyn VictimSelector>> {
        let last = LastVictim::table(num_workers);
        (0..num_workers)
            .map(|t| {
                Box::new(LastVictimSelector::new(t, num_workers, last.clone()))
                    as Box<dyn VictimSelector>
            })
            .collect()
    }
}

/// The per-worker state of [`LastVictim`].
#[derive(Debug, Clone)]
pub struct LastVictimSelector {
    thief: usize,
    others: usize,
    random: RandomOther,
    last: Arc<[AtomicUsize]>,
    /// Random draws left in this round.
    draws_left: usize,
    /// `probed[v] == round` iff `v` was probed in this round.
    probed: Vec<u64>,
    round: u64,
}

impl LastVictimSelector {
    /// The selector of worker `thief` in a pool of `num_workers` whose last victims are kept
    /// in `last` (shared by the pool's selectors; see [`LastVictim::table`]).
    pub fn new(thief: usize, num_workers: usize, last: Arc<[AtomicUsize]>) -> Self {
        LastVictimSelector {
            thief,
            others: num_workers.saturating_sub(1),
            random: RandomOther::new(thief, num_workers),
            last,
            draws_left: 0,
            probed: vec![0; num_workers],
            // Above every stamp in `probed`, so that no worker counts as probed yet.
            round: 1,
        }
    }

    /// The last victim this thief stole from successfully.
    pub fn last_victim(&self) -> Option<usize> {
        self.last_of(self.thief)
    }

    /// Worker `w`'s last victim, if it has one that this thief may probe.
    fn last_of(&self, w: usize) -> Option<usize> {
        let v = self.last.get(w)?.load(Ordering::Relaxed);
        (v != NONE && v != self.thief && v < self.probed.len()).then_some(v)
    }

    fn push_draw(&mut self, victims: &mut Vec<usize>) {
        if self.draws_left > 0 {
            self.draws_left -= 1;
            victims.extend(self.random.draw());
        }
    }
}

impl VictimSelector for LastVictimSelector {
    fn next_round(&mut self, _pool: &dyn PoolView, victims: &mut Vec<usize>) {
        self.round += 1;
        self.draws_left = self.others;
        match self.last_victim() {
            Some(v) => victims.push(v),
            None => self.push_draw(victims),
        }
    }

    fn on_probe(&mut self, _pool: &dyn PoolView, probe: Probe, victims: &mut Vec<usize>) {
        if let Some(p) = self.probed.get_mut(probe.victim) {
            *p = self.round;
        }
        if probe.outcome == ProbeOutcome::Stolen {
            if let Some(slot) = self.last.get(self.thief) {
                slot.store(probe.victim, Ordering::Relaxed);
            }
            return;
        }
        match self.last_of(probe.victim) {
            Some(next) if self.probed[next] != self.round => victims.push(next),
            _ => self.push_draw(victims),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::policy::victim::test_support::{idle, probe};

    /// Runs one round of `s` in which every probe fails (`Empty`) except a probe of
    /// `steal_from` (if any), and returns the victims probed in order.
    fn round(
        s: &mut LastVictimSelector,
        pool: &Vec<usize>,
        steal_from: Option<usize>,
    ) -> Vec<usize> {
        let mut victims = Vec::new();
        s.next_round(pool, &mut victims);
        let mut i = 0;
        while let Some(&v) = victims.get(i) {
            i += 1;
            let stolen = Some(v) == steal_from;
            let outcome = if stolen {
                ProbeOutcome::Stolen
            } else {
                ProbeOutcome::Empty
            };
            s.on_probe(pool, probe(v, outcome), &mut victims);
            if stolen {
                break;
            }
        }
        victims
    }

    fn set(last: &[AtomicUsize], w: usize, v: usize) {
        last[w].store(v, Ordering::Relaxed);
    }

    #[test]
    fn retries_the_last_victim_first() {
        let pool = idle(4);
        let last = LastVictim::table(4);
        let mut s = LastVictimSelector::new(0, 4, last.clone());
        let mut reference = RandomOther::new(0, 4);
        // No last victim: the round is three random draws, handed out one at a time.
        let probed = round(&mut s, &pool, None);
        let expected: Vec<usize> = (0..3).map(|_| reference.draw().unwrap()).collect();
        assert_eq!(probed, expected);
        assert_eq!(s.last_victim(), None);
        // A steal from 2 is recorded in the shared table and retried first next round.
        let mut victims = Vec::new();
        s.next_round(&pool, &mut victims);
        s.on_probe(&pool, probe(2, ProbeOutcome::Stolen), &mut victims);
        assert_eq!(last[0].load(Ordering::Relaxed), 2);
        let mut victims = Vec::new();
        s.next_round(&pool, &mut victims);
        assert_eq!(victims, [2]);
        // A failed retry keeps it.
        s.on_probe(&pool, probe(2, ProbeOutcome::Busy), &mut victims);
        assert_eq!(s.last_victim(), Some(2));
    }

    #[test]
    fn follows_the_chain_of_last_victims_without_looping() {
        let pool = idle(6);
        let last = LastVictim::table(6);
        // 0 → 1 → 3 → 4 → 1 (a loop back to 1); 2 → 5 → 0 (the thief).
        set(&last, 0, 1);
        set(&last, 1, 3);
        set(&last, 3, 4);
        set(&last, 4, 1);
        set(&last, 2, 5);
        set(&last, 5, 0);
        let mut s = LastVictimSelector::new(0, 6, last.clone());
        // Worker 0's random draws are 2, 3, 2, 4, 2, 3, …
        let mut reference = RandomOther::new(0, 6);
        let draws: Vec<usize> = (0..6).map(|_| reference.draw().unwrap()).collect();
        assert_eq!(draws, [2, 3, 2, 4, 2, 3]);
        // Retry 1; it fails: 1's last victim 3; fails: 4; 4's last victim 1 was probed this
        // round: draw 2; fails: 2's last victim 5; 5's is the thief: draw 3 (its last, 4,
        // was probed); draw 2 (5 was probed); draw 4; draw 2: five draws, the round ends.
        // Chain steps do not use up draws.
        assert_eq!(round(&mut s, &pool, None), [1, 3, 4, 2, 5, 3, 2, 4, 2]);
        // The next round starts afresh: the same chain is followed again.
        assert_eq!(round(&mut s, &pool, Some(4)), [1, 3, 4]);
        // Worker 0 stole from 4: 4 is now its last victim, and 4's last victim is 1.
        assert_eq!(last[0].load(Ordering::Relaxed), 4);
        assert_eq!(round(&mut s, &pool, Some(1)), [4, 1]);
    }

    #[test]
    fn never_probes_the_thief_nor_a_missing_worker() {
        let pool = idle(3);
        let last = LastVictim::table(3);
        set(&last, 1, 2);
        set(&last, 2, 99); // out of range: ignored
        let mut s = LastVictimSelector::new(2, 3, last.clone());
        s.next_round(&pool, &mut Vec::new());
        let mut victims = vec![1];
        // 1's last victim is the thief itself: draw instead.
        s.on_probe(&pool, probe(1, ProbeOutcome::Empty), &mut victims);
        assert_eq!(victims.len(), 2);
        assert_ne!(victims[1], 2);
        let mut victims = Vec::new();
        s.next_round(&pool, &mut victims);
        assert_eq!(victims.len(), 1);
        assert_ne!(victims[0], 2);
        // A one-worker pool probes nothing.
        let mut alone = LastVictimSelector::new(0, 1, LastVictim::table(1));
        let mut victims = Vec::new();
        alone.next_round(&idle(1), &mut victims);
        assert!(victims.is_empty());
    }

    #[test]
    fn selectors_of_a_pool_share_the_table() {
        let pool = idle(3);
        let mut sel = LastVictim.selectors(3);
        let mut victims = Vec::new();
        sel[2].next_round(&pool, &mut victims);
        sel[2].on_probe(&pool, probe(0, ProbeOutcome::Stolen), &mut victims);
        // Worker 1 fails on 2 and follows 2's last victim, 0.
        let mut victims = vec![2];
        sel[1].on_probe(&pool, probe(2, ProbeOutcome::Busy), &mut victims);
        assert_eq!(victims, [2, 0]);
        // Another pool has its own table: there, 2 has no last victim (and, outside a
        // round, no draws are left), so nothing follows.
        let mut other = LastVictim.selectors(3);
        let mut victims = vec![2];
        other[1].on_probe(&pool, probe(2, ProbeOutcome::Busy), &mut victims);
        assert_eq!(victims, [2]);
        assert_eq!(
            super::super::by_name("last-victim").unwrap().name(),
            "last-victim"
        );
        assert!(super::super::by_name("last-victim:depth=2").is_err());
    }
}
