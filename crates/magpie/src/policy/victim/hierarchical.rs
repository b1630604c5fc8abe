//! The `HierarchicalVictims` policy; its documentation is on [`HierarchicalVictims`].

use super::{PoolView, Probe, ProbeOutcome, VictimPolicy, VictimSelector};
use crate::policy::params::{PolicySpec, SpecError};
use crate::policy::topology::{Placement, Topology};
use crate::policy::XorShift64Star;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// No last victim yet.
const NONE: usize = usize::MAX;

/// `hierarchical` victim selection: random victims at growing topological distance, with
/// Pheet's last-victim rules: Pheet's distance-based choice over the machine's topology
/// (Haselsteiner 2015, §2.2).
///
/// The workers are pinned to CPUs in compact order ([`Topology::worker_cpus`]), and each
/// thief sorts the other workers by the [distance](Topology::distance) between their CPUs and
/// its own. A round of stealing then goes:
///
/// 1. First the thief's last victim (the worker it last stole from), if it has one.
/// 2. Then one worker drawn at random among those at distance `d`, with `d` starting at the
///    nearest distance at which there are workers (1 unless no worker shares anything closer)
///    and moving to the next distance with workers after each failed probe the policy chose;
///    distances with no workers are skipped.
/// 3. When a victim drawn in step 2 fails, the thief tries that victim's own last victim next
///    (if it has one that is neither the thief nor already probed this round), then goes on
///    with step 2. The last victims are shared by the pool's selectors through one array of
///    atomics.
/// 4. The round ends when the largest distance has been probed (and its victim's last victim
///    tried): that is when the idle policy runs, Pheet's "hierarchy exhausted". A successful
///    steal ends the round too and records the victim as the thief's last; the next round
///    starts again from step 1 with `d` back at the nearest distance.
///
/// The round is built one probe at a time: [`VictimSelector::next_round`] puts the first
/// probe, and [`VictimSelector::on_probe`] appends the next one after each failure, so a
/// round holds at most `2 × distances + 1` probes. A victim already probed in the round is not
/// drawn again while its distance has others left, and a distance whose workers were all
/// probed already (by steps 1 and 3) is skipped. When there are more workers than CPUs, the
/// workers sharing the thief's CPU are nearest of all: distance 0, probed before distance 1.
///
/// Parameters: `sysfs=PATH` reads the topology from another directory laid out like
/// `/sys/devices/system` instead of this machine's; `pin=false` leaves the workers unpinned
/// (distances are then those of the CPUs they would have had).
///
/// ```
/// use magpie::policy::Topology;
/// use magpie::policy::victim::{
///     HierarchicalVictims, PoolView, Probe, ProbeOutcome, VictimPolicy,
/// };
/// use std::path::Path;
///
/// struct Idle(usize);
/// impl PoolView for Idle {
///     fn num_workers(&self) -> usize { self.0 }
///     fn queue_len(&self, _: usize) -> usize { 0 }
/// }
///
/// // 2 sockets × 4 cores × 2 SMT threads.
/// let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sysfs/two-socket-numa");
/// let t = Topology::from_sysfs(&root).unwrap();
/// let policy = HierarchicalVictims::with_topology(t.clone());
/// let cpus = policy.placement(16).unwrap();
/// assert_eq!(&cpus[..4], &[0, 8, 1, 9]);
///
/// // Worker 0 finds nothing anywhere: one probe per distance, nearest first.
/// let mut s = policy.selectors(16).remove(0);
/// let (pool, mut round) = (Idle(16), Vec::new());
/// s.next_round(&pool, &mut round);
/// let mut i = 0;
/// while let Some(&victim) = round.get(i) {
///     i += 1;
///     let probe = Probe { victim, outcome: ProbeOutcome::Empty, latency_ns: 0 };
///     s.on_probe(&pool, probe, &mut round);
/// }
/// let distances: Vec<usize> = round.iter().map(|&v| t.distance(cpus[0], cpus[v])).collect();
/// assert_eq!(distances, vec![1, 2, 3]);
/// assert_eq!(round[0], 1); // the SMT sibling
/// ```
#[derive(Debug, Clone)]
pub struct HierarchicalVictims {
    placement: Placement,
}

super::placed::placed_victim_policy!(HierarchicalVictims);

impl VictimPolicy for HierarchicalVictims {
    fn name(&self) -> &str {
        "hierarchical"
    }

    fn selectors(&self, num_workers: usize) -> Vec<Box<dyn VictimSelector>> {
        let cpus = self.worker_cpus(num_workers);
        let last: Arc<[AtomicUsize]> = (0..num_workers).map(|_| AtomicUsize::new(NONE)).collect();
        (0..num_workers)
            .map(|thief| {
                Box::new(HierarchicalSelector {
                    thief,
                    rings: rings(self.topology(), &cpus, thief),
                    last: Arc::clone(&last),
                    rng: XorShift64Star::new(thief as u64 ^ 0x4869_6572_6172),
                    next_ring: 0,
                    in_flight: Kind::Other,
                }) as Box<dyn VictimSelector>
            })
            .collect()
    }

    fn placement(&self, num_workers: usize) -> Option<Vec<usize>> {
        self.placement.placement(num_workers)
    }
}

/// The workers other than `thief`, grouped by the distance of their CPU from the thief's,
/// nearest first; distances without workers are left out.
pub(crate) fn rings(topology: &Topology, cpus: &[usize], thief: usize) -> Vec<Vec<usize>> {
    let mut by_distance: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (worker, &cpu) in cpus.iter().enumerate() {
        if worker != thief {
            let d = topology.distance(cpus[thief], cpu);
            by_distance.entry(d).or_default().push(worker);
        }
    }
    by_distance.into_values().collect()
}

/// Why the probe in flight was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Drawn at the current distance.
    Drawn,
    /// The thief's last victim, or the last victim of a drawn victim that failed.
    Other,
}

/// One worker's state.
#[derive(Debug)]
struct HierarchicalSelector {
    thief: usize,
    /// The other workers by distance, nearest first.
    rings: Vec<Vec<usize>>,
    /// Each worker's last victim (`NONE` if none yet), shared by the pool's selectors.
    last: Arc<[AtomicUsize]>,
    rng: XorShift64Star,
    /// The ring the next drawn probe comes from.
    next_ring: usize,
    /// Why the probe in flight (the last one pushed) was chosen.
    in_flight: Kind,
}

impl HierarchicalSelector {
    /// `worker`'s last victim, if it has one other than the thief.
    fn last_of(&self, worker: usize) -> Option<usize> {
        let v = self.last.get(worker)?.load(Ordering::Relaxed);
        (v < self.last.len() && v != self.thief).then_some(v)
    }

    /// Pushes a victim drawn at the next distance whose workers were not all probed this
    /// round; `false` (the round ends) when no distance is left.
    fn draw(&mut self, victims: &mut Vec<usize>) -> bool {
        while let Some(ring) = self.rings.get(self.next_ring) {
            self.next_ring += 1;
            let fresh = ring.iter().filter(|v| !victims.contains(v)).count();
            if fresh == 0 {
                continue;
            }
            let k = self.rng.below(fresh);
            let victim = ring
                .iter()
                .copied()
                .filter(|v| !victims.contains(v))
                .nth(k)
                .expect("k < fresh");
            victims.push(victim);
            self.in_flight = Kind::Drawn;
            return true;
        }
        false
    }
}

impl VictimSelector for HierarchicalSelector {
    fn next_round(&mut self, _pool: &dyn PoolView, victims: &mut Vec<usize>) {
        self.next_ring = 0;
        if self.rings.is_empty() {
            return;
        }
        match self.last_of(self.thief) {
            Some(v) => {
                victims.push(v);
                self.in_flight = Kind::Other;
            }
            None => {
                self.draw(victims);
            }
        }
    }

    fn on_probe(&mut self, _pool: &dyn PoolView, probe: Probe, victims: &mut Vec<usize>) {
        let kind = std::mem::replace(&mut self.in_flight, Kind::Other);
        if probe.victim == self.thief || probe.victim >= self.last.len() {
            return;
        }
        if probe.outcome == ProbeOutcome::Stolen {
            self.last[self.thief].store(probe.victim, Ordering::Relaxed);
            return;
        }
        if kind == Kind::Drawn && victims.last() == Some(&probe.victim) {
            if let Some(next) = self.last_of(probe.victim) {
                if !victims.contains(&next) {
                    victims.push(next);
                    return;
                }
            }
        }
        self.draw(victims);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::policy::topology::test_support::{fixture, fixture_root};
    use crate::policy::victim::by_name;

    /// A pool whose queue lengths a test sets.
    pub(crate) struct FakePool(pub(crate) Vec<usize>);

    impl PoolView for FakePool {
        fn num_workers(&self) -> usize {
            self.0.len()
        }
        fn queue_len(&self, worker: usize) -> usize {
            self.0[worker]
        }
    }

    /// One round as the runtime runs it: probes in order until a steal succeeds, reporting
    /// each probe's outcome (decided by `outcome`); returns the victims probed.
    pub(crate) fn run_round(
        s: &mut dyn VictimSelector,
        pool: &dyn PoolView,
        mut outcome: impl FnMut(usize) -> ProbeOutcome,
    ) -> Vec<usize> {
        let mut victims = Vec::new();
        s.next_round(pool, &mut victims);
        let mut i = 0;
        while let Some(&victim) = victims.get(i) {
            i += 1;
            let outcome = outcome(victim);
            let probe = Probe {
                victim,
                outcome,
                latency_ns: 0,
            };
            s.on_probe(pool, probe, &mut victims);
            if outcome == ProbeOutcome::Stolen {
                victims.truncate(i);
                break;
            }
        }
        victims
    }

    fn empty(_: usize) -> ProbeOutcome {
        ProbeOutcome::Empty
    }

    fn two_socket() -> (HierarchicalVictims, Topology) {
        let t = fixture("two-socket-numa");
        (HierarchicalVictims::with_topology(t.clone()), t)
    }

    fn distances(t: &Topology, cpus: &[usize], thief: usize, round: &[usize]) -> Vec<usize> {
        round
            .iter()
            .map(|&v| t.distance(cpus[thief], cpus[v]))
            .collect()
    }

    #[test]
    fn rounds_visit_each_distance_in_order() {
        let (p, t) = two_socket();
        let cpus = p.placement(16).unwrap();
        assert_eq!(
            cpus,
            vec![0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15]
        );
        let pool = FakePool(vec![0; 16]);
        for (thief, s) in p.selectors(16).iter_mut().enumerate() {
            for _ in 0..20 {
                let round = run_round(s.as_mut(), &pool, empty);
                assert_eq!(distances(&t, &cpus, thief, &round), vec![1, 2, 3]);
                assert!(!round.contains(&thief));
                // The only worker at distance 1 is the SMT sibling.
                assert_eq!(round[0], thief ^ 1);
                // Distance 3: the other socket.
                assert_eq!(round[2] / 8, 1 - thief / 8);
            }
        }

        // Four workers fill socket 0's first two cores: nobody at distance 3.
        let cpus = p.worker_cpus(4);
        assert_eq!(cpus, vec![0, 8, 1, 9]);
        let mut s = p.selectors(4).remove(2);
        let round = run_round(s.as_mut(), &FakePool(vec![0; 4]), empty);
        assert_eq!(round[0], 3);
        assert_eq!(distances(&t, &cpus, 2, &round), vec![1, 2]);

        // On CPUs 0, 1 and 4 nobody is at distance 1 from anyone: distance 1 is skipped.
        let p = HierarchicalVictims::with_topology(t.clone()).restricted_to(&[4, 1, 0]);
        assert_eq!(p.worker_cpus(3), vec![0, 1, 4]);
        let mut s = p.selectors(3).remove(0);
        assert_eq!(
            run_round(s.as_mut(), &FakePool(vec![0; 3]), empty),
            vec![1, 2]
        );
    }

    #[test]
    fn success_resets_the_distance_and_the_last_victim_comes_first() {
        let (p, t) = two_socket();
        let cpus = p.worker_cpus(16);
        let pool = FakePool(vec![0; 16]);
        let mut s = p.selectors(16).remove(0);
        // Steal at distance 2 (after a failed probe at distance 1).
        let round = run_round(s.as_mut(), &pool, |v| {
            if t.distance(cpus[0], cpus[v]) == 2 {
                ProbeOutcome::Stolen
            } else {
                ProbeOutcome::Busy
            }
        });
        assert_eq!(round.len(), 2);
        assert_eq!(round[0], 1);
        let victim = round[1];
        assert_eq!(t.distance(cpus[0], cpus[victim]), 2);

        // Next round: the last victim first, then distance 1 again, 2 (another worker), 3.
        let round = run_round(s.as_mut(), &pool, empty);
        assert_eq!(round.len(), 4);
        assert_eq!(round[0], victim);
        assert_eq!(round[1], 1);
        assert_eq!(distances(&t, &cpus, 0, &round[1..]), vec![1, 2, 3]);
        assert_ne!(round[2], victim);

        // The last victim is kept after it fails, and replaced by the next success.
        let round = run_round(s.as_mut(), &pool, |v| {
            if v == 1 {
                ProbeOutcome::Stolen
            } else {
                ProbeOutcome::Empty
            }
        });
        assert_eq!(round, vec![victim, 1]);
        // Distance 1 holds only the last victim, probed first: the draws start at 2.
        let round = run_round(s.as_mut(), &pool, empty);
        assert_eq!(round[0], 1);
        assert_eq!(distances(&t, &cpus, 0, &round), vec![1, 2, 3]);
    }

    #[test]
    fn a_failed_victim_leads_to_its_last_victim() {
        // Three workers on CPUs 0, 8 (SMT siblings) and 1.
        let t = fixture("two-socket-numa");
        let p = HierarchicalVictims::with_topology(t).restricted_to(&[0, 1, 8]);
        assert_eq!(p.worker_cpus(3), vec![0, 8, 1]);
        let pool = FakePool(vec![0; 3]);
        let mut sel = p.selectors(3);
        // Worker 1 finds its sibling 0 empty, then steals from worker 2.
        let round = run_round(sel[1].as_mut(), &pool, |v| {
            if v == 2 {
                ProbeOutcome::Stolen
            } else {
                ProbeOutcome::Empty
            }
        });
        assert_eq!(round, vec![0, 2]);
        // Worker 0 draws its sibling 1, which fails: then 1's last victim, 2. Distance 2
        // holds only worker 2, probed already: the round ends.
        assert_eq!(run_round(sel[0].as_mut(), &pool, empty), vec![1, 2]);
        // A last victim tried first (not drawn) does not lead on to its own last victim.
        let round = run_round(sel[0].as_mut(), &pool, |v| {
            if v == 1 {
                ProbeOutcome::Stolen
            } else {
                ProbeOutcome::Empty
            }
        });
        assert_eq!(round, vec![1]);
        assert_eq!(run_round(sel[0].as_mut(), &pool, empty), vec![1, 2]);
        // Worker 2 (CPU 1) has workers 0 and 1 both at distance 2 and draws one of them. If 0,
        // its failure leads on to 0's last victim, 1; if 1, its last victim is 2, the thief
        // itself, which is skipped, and the round ends.
        let round = run_round(sel[2].as_mut(), &pool, empty);
        assert!(round == vec![0, 1] || round == vec![1], "{round:?}");
    }

    #[test]
    fn the_victims_last_victim_is_not_the_thief() {
        let (p, t) = two_socket();
        let cpus = p.worker_cpus(16);
        let pool = FakePool(vec![0; 16]);
        let mut sel = p.selectors(16);
        // Worker 1 steals from worker 0.
        let round = run_round(sel[1].as_mut(), &pool, |_| ProbeOutcome::Stolen);
        assert_eq!(round, vec![0]);
        // Worker 0 draws 1 at distance 1; 1's last victim is 0 itself: on to distance 2.
        let round = run_round(sel[0].as_mut(), &pool, empty);
        assert_eq!(round[0], 1);
        assert_eq!(distances(&t, &cpus, 0, &round), vec![1, 2, 3]);
    }

    #[test]
    fn small_and_flat_pools() {
        let p = HierarchicalVictims::with_topology(Topology::flat(2));
        let mut one = p.selectors(1);
        assert!(run_round(one[0].as_mut(), &FakePool(vec![0]), empty).is_empty());

        let pool = FakePool(vec![0; 2]);
        let mut two = p.selectors(2);
        assert_eq!(run_round(two[0].as_mut(), &pool, empty), vec![1]);
        let steal = |_| ProbeOutcome::Stolen;
        assert_eq!(run_round(two[1].as_mut(), &pool, steal), vec![0]);
        // The last victim is the only other worker: no second probe of it.
        assert_eq!(run_round(two[1].as_mut(), &pool, empty), vec![0]);

        // More workers than CPUs: the worker sharing the thief's CPU comes first.
        assert_eq!(p.worker_cpus(4), vec![0, 1, 0, 1]);
        let mut four = p.selectors(4);
        let round = run_round(four[0].as_mut(), &FakePool(vec![0; 4]), empty);
        assert_eq!(round.len(), 2);
        assert_eq!(round[0], 2);
        assert!(round[1] == 1 || round[1] == 3);
    }

    #[test]
    fn from_spec() {
        let root = fixture_root("two-socket-numa");
        let spec = format!("hierarchical:sysfs={},pin=false", root.display());
        let p = by_name(&spec).unwrap();
        assert_eq!(p.name(), "hierarchical");
        assert_eq!(p.placement(4), None);
        assert_eq!(p.selectors(4).len(), 4);

        let p = by_name("hierarchical").unwrap();
        let placed = p.placement(3).unwrap();
        assert_eq!(placed.len(), 3);

        let e = by_name("hierarchical:sysfs=/no/such/dir")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(
                "hierarchical: parameter sysfs=\"/no/such/dir\": cannot read /no/such/dir/cpu"
            ),
            "{e}"
        );
        assert!(by_name("hierarchical:pin=maybe").is_err());
        assert!(by_name("hierarchical:pinn=false").is_err());
    }
}
