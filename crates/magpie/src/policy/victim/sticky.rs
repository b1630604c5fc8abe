//! The `StickyVictims` policy; its documentation is on [`StickyVictims`].

use super::{PoolView, Probe, ProbeOutcome, RandomOther, VictimPolicy, VictimSelector};
use crate::policy::params::{PolicySpec, SpecError};

/// `sticky` victim selection, YewPar's DepthPool rule ("biased random"): steal from the last
/// successful victim until a steal from it fails, then at random.
///
/// A thief keeps stealing from the last victim that gave it a task until a steal from that
/// victim fails; then it draws victims at random again until one succeeds, which becomes the
/// new sticky victim. A round probes the sticky victim (if any) first, then `workers − 1`
/// victims drawn uniformly at random among the other workers ([`RandomOther`]).
///
/// Parameters (`sticky:key=value`):
///
/// | key | default | meaning |
/// |---|---|---|
/// | `keep-on-busy` | `false` | Keep the sticky victim when a probe of it is [`Busy`](ProbeOutcome::Busy) (a lost race, or only private work whose exposure was requested) rather than [`Empty`](ProbeOutcome::Empty). YewPar unsticks on any failed steal, hence the default. |
///
/// ```
/// use magpie::policy::victim::{
///     PoolView, Probe, ProbeOutcome, StickyVictims, VictimPolicy,
/// };
/// struct Four;
/// impl PoolView for Four {
///     fn num_workers(&self) -> usize { 4 }
///     fn queue_len(&self, _: usize) -> usize { 0 }
/// }
/// let mut s = StickyVictims::default().selectors(4).remove(0);
/// let mut round = Vec::new();
/// s.next_round(&Four, &mut round);
/// assert_eq!(round.len(), 3); // nothing to stick to yet: three random draws
/// let stolen = Probe { victim: 2, outcome: ProbeOutcome::Stolen, latency_ns: 0 };
/// s.on_probe(&Four, stolen, &mut round);
/// round.clear();
/// s.next_round(&Four, &mut round);
/// assert_eq!(round.len(), 4);
/// assert_eq!(round[0], 2); // the sticky victim first
/// ```
#[derive(Debug, Clone, Default)]
pub struct StickyVictims {
    keep_on_busy: bool,
}

impl StickyVictims {
    /// The policy with the parameters of `spec` (see [`StickyVictims`]).
    pub fn from_spec(spec: &mut PolicySpec) -> Result<Self, SpecError> {
        Ok(StickyVictims {
            keep_on_busy: spec.flag("keep-on-busy", false)?,
        })
    }

    /// Whether a [`Busy`](ProbeOutcome::Busy) probe of the sticky victim keeps it.
    pub fn keep_on_busy(&self) -> bool {
        self.keep_on_busy
    }
}

impl VictimPolicy for StickyVictims {
    fn name(&self) -> &str {
        "sticky"
    }

    fn selectors(&self, num_workers: usize) -> Vec<Box<dyn VictimSelector>> {
        (0..num_workers)
            .map(|t| {
                Box::new(StickySelector::new(t, num_workers, self.keep_on_busy))
                    as Box<dyn VictimSelector>
            })
            .collect()
    }
}

/// The per-worker state of [`StickyVictims`].
#[derive(Debug, Clone)]
pub struct StickySelector {
    random: RandomOther,
    others: usize,
    sticky: Option<usize>,
    keep_on_busy: bool,
}

impl StickySelector {
    /// The selector of worker `thief` in a pool of `num_workers`.
    pub fn new(thief: usize, num_workers: usize, keep_on_busy: bool) -> Self {
        StickySelector {
            random: RandomOther::new(thief, num_workers),
            others: num_workers.saturating_sub(1),
            sticky: None,
            keep_on_busy,
        }
    }

    /// The victim this thief sticks to, if any.
    #[cfg(test)]
    pub fn sticky(&self) -> Option<usize> {
        self.sticky
    }
}

impl VictimSelector for StickySelector {
    fn next_round(&mut self, _pool: &dyn PoolView, victims: &mut Vec<usize>) {
        victims.extend(self.sticky);
        for _ in 0..self.others {
            victims.extend(self.random.draw());
        }
    }

    fn on_probe(&mut self, _pool: &dyn PoolView, probe: Probe, _victims: &mut Vec<usize>) {
        match probe.outcome {
            ProbeOutcome::Stolen => self.sticky = Some(probe.victim),
            ProbeOutcome::Busy if self.keep_on_busy => {}
            ProbeOutcome::Empty | ProbeOutcome::Busy => {
                if self.sticky == Some(probe.victim) {
                    self.sticky = None;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::policy::victim::test_support::{idle, probe};

    /// The next `k` draws of a reference stream identical to the selector's.
    fn draws(reference: &mut RandomOther, k: usize) -> Vec<usize> {
        (0..k).map(|_| reference.draw().unwrap()).collect()
    }

    #[test]
    fn sticks_until_a_steal_from_the_sticky_victim_fails() {
        let pool = idle(5);
        let mut s = StickySelector::new(1, 5, false);
        let mut reference = RandomOther::new(1, 5);
        let mut round = Vec::new();

        // Round 1: nothing to stick to; four random draws. A failure sticks to nothing; a
        // steal makes its victim sticky.
        s.next_round(&pool, &mut round);
        assert_eq!(round, draws(&mut reference, 4));
        assert!(!round.contains(&1));
        s.on_probe(&pool, probe(round[0], ProbeOutcome::Empty), &mut round);
        assert_eq!(s.sticky(), None);
        s.on_probe(&pool, probe(3, ProbeOutcome::Stolen), &mut round);
        assert_eq!(s.sticky(), Some(3));

        // Round 2: 3 first, then four draws; stealing from 3 again keeps it.
        round.clear();
        s.next_round(&pool, &mut round);
        let mut expected = vec![3];
        expected.extend(draws(&mut reference, 4));
        assert_eq!(round, expected);
        s.on_probe(&pool, probe(3, ProbeOutcome::Stolen), &mut round);
        assert_eq!(s.sticky(), Some(3));

        // Round 3: 3 first again; it fails, which unsticks; a failure elsewhere changes
        // nothing; a success elsewhere sticks to the new victim.
        round.clear();
        s.next_round(&pool, &mut round);
        assert_eq!(round[0], 3);
        assert_eq!(round[1..], draws(&mut reference, 4)[..]);
        s.on_probe(&pool, probe(3, ProbeOutcome::Empty), &mut round);
        assert_eq!(s.sticky(), None);
        s.on_probe(&pool, probe(4, ProbeOutcome::Busy), &mut round);
        assert_eq!(s.sticky(), None);

        // Round 4: back to random only.
        round.clear();
        s.next_round(&pool, &mut round);
        assert_eq!(round, draws(&mut reference, 4));
        s.on_probe(&pool, probe(0, ProbeOutcome::Stolen), &mut round);
        assert_eq!(s.sticky(), Some(0));
        round.clear();
        s.next_round(&pool, &mut round);
        assert_eq!(round[0], 0);
        assert_eq!(round.len(), 5);
    }

    #[test]
    fn failure_of_another_victim_keeps_the_sticky_one() {
        let pool = idle(4);
        let mut s = StickySelector::new(0, 4, false);
        let mut round = Vec::new();
        s.on_probe(&pool, probe(2, ProbeOutcome::Stolen), &mut round);
        s.on_probe(&pool, probe(1, ProbeOutcome::Empty), &mut round);
        s.on_probe(&pool, probe(3, ProbeOutcome::Busy), &mut round);
        assert_eq!(s.sticky(), Some(2));
    }

    #[test]
    fn busy_unsticks_unless_asked_to_keep() {
        let pool = idle(4);
        let mut round = Vec::new();
        let mut yewpar = StickySelector::new(0, 4, false);
        yewpar.on_probe(&pool, probe(2, ProbeOutcome::Stolen), &mut round);
        yewpar.on_probe(&pool, probe(2, ProbeOutcome::Busy), &mut round);
        assert_eq!(yewpar.sticky(), None);

        let mut keep = StickySelector::new(0, 4, true);
        keep.on_probe(&pool, probe(2, ProbeOutcome::Stolen), &mut round);
        keep.on_probe(&pool, probe(2, ProbeOutcome::Busy), &mut round);
        assert_eq!(keep.sticky(), Some(2));
        keep.on_probe(&pool, probe(2, ProbeOutcome::Empty), &mut round);
        assert_eq!(keep.sticky(), None);
    }

    #[test]
    fn one_worker_pool_probes_nothing() {
        let mut s = StickySelector::new(0, 1, false);
        let mut round = Vec::new();
        s.next_round(&idle(1), &mut round);
        assert!(round.is_empty());
    }

    #[test]
    fn params() {
        let p = super::super::by_name("sticky").unwrap();
        assert_eq!(p.name(), "sticky");
        let mut spec: PolicySpec = "sticky:keep-on-busy=yes".parse().unwrap();
        assert!(StickyVictims::from_spec(&mut spec).unwrap().keep_on_busy());
        spec.finish().unwrap();
        let err = super::super::by_name("sticky:keep-on-busy=maybe").unwrap_err();
        assert!(err.to_string().contains("keep-on-busy"), "{err}");
        let err = super::super::by_name("sticky:stick=1").unwrap_err();
        assert!(
            err.to_string().contains("unknown parameter \"stick\""),
            "{err}"
        );
    }
}
