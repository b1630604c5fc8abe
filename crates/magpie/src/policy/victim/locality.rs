//! The `LocalityVictims` policy; its documentation is on [`LocalityVictims`].

use super::{PoolView, Probe, ProbeOutcome, VictimPolicy, VictimSelector};
use crate::policy::params::{PolicySpec, SpecError};
use crate::policy::topology::{Placement, Topology};
use crate::policy::XorShift64Star;

/// `locality` victim selection: own NUMA node first, then own package, then the rest, skipping
/// victims found empty until they show work, after LAWS (locality-aware work stealing).
///
/// The workers are pinned to CPUs in compact order ([`Topology::worker_cpus`]), and each
/// thief splits the other workers into tiers by the CPU they run on: same NUMA node, same
/// package (but another node: only with sub-NUMA clustering), the rest; empty tiers are left
/// out. Each round, filled up front by [`VictimSelector::next_round`], probes every worker of
/// the first tier in a random order, then every worker of the second, then the third.
///
/// A victim found empty gets weight zero: the thief leaves it out of its rounds until the
/// victim's [`queue_len`](PoolView::queue_len) shows work again (checked at the start of each
/// round: a cheap racy read instead of a steal attempt). A lost race or private work
/// ([`ProbeOutcome::Busy`]) does not zero a victim, since it holds work. When every victim is
/// zero and none shows work, the round is empty and the idle policy runs at once.
///
/// Parameters: `sysfs=PATH` reads the topology from another directory laid out like
/// `/sys/devices/system` instead of this machine's; `pin=false` leaves the workers unpinned
/// (tiers are then those of the CPUs they would have had).
///
/// ```
/// use magpie::policy::Topology;
/// use magpie::policy::victim::{LocalityVictims, PoolView, Probe, ProbeOutcome, VictimPolicy};
/// use std::path::Path;
///
/// struct Queues(Vec<usize>);
/// impl PoolView for Queues {
///     fn num_workers(&self) -> usize { self.0.len() }
///     fn queue_len(&self, w: usize) -> usize { self.0[w] }
/// }
///
/// // 2 sockets × 4 cores × 2 SMT threads, one NUMA node per socket: 16 workers fill socket 0
/// // (workers 0-7), then socket 1 (workers 8-15).
/// let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sysfs/two-socket-numa");
/// let policy = LocalityVictims::with_topology(Topology::from_sysfs(&root).unwrap());
/// let mut s = policy.selectors(16).remove(0);
/// let mut pool = Queues(vec![0; 16]);
/// let mut round = Vec::new();
/// s.next_round(&pool, &mut round);
/// let mut first: Vec<usize> = round[..7].to_vec();
/// first.sort();
/// assert_eq!(first, vec![1, 2, 3, 4, 5, 6, 7]); // own node first
///
/// // Worker 5 is found empty: left out until its queue shows work.
/// let probe = Probe { victim: 5, outcome: ProbeOutcome::Empty, latency_ns: 0 };
/// s.on_probe(&pool, probe, &mut round);
/// round.clear();
/// s.next_round(&pool, &mut round);
/// assert!(!round.contains(&5));
/// pool.0[5] = 1;
/// round.clear();
/// s.next_round(&pool, &mut round);
/// assert!(round.contains(&5));
/// ```
#[derive(Debug, Clone)]
pub struct LocalityVictims {
    placement: Placement,
}

super::placed::placed_victim_policy!(LocalityVictims);

impl VictimPolicy for LocalityVictims {
    fn name(&self) -> &str {
        "locality"
    }

    fn selectors(&self, num_workers: usize) -> Vec<Box<dyn VictimSelector>> {
        let cpus = self.worker_cpus(num_workers);
        (0..num_workers)
            .map(|thief| {
                Box::new(LocalitySelector {
                    tiers: tiers(self.topology(), &cpus, thief),
                    zero: vec![false; num_workers],
                    rng: XorShift64Star::new(thief as u64 ^ 0x4C41_5753),
                }) as Box<dyn VictimSelector>
            })
            .collect()
    }

    fn placement(&self, num_workers: usize) -> Option<Vec<usize>> {
        self.placement.placement(num_workers)
    }
}

/// The workers other than `thief` in tiers: same NUMA node, same package, the rest (empty
/// tiers left out).
fn tiers(topology: &Topology, cpus: &[usize], thief: usize) -> Vec<Vec<usize>> {
    let here = cpus[thief];
    let (node, package) = (topology.node(here), topology.package(here));
    let mut tiers = vec![Vec::new(); 3];
    for (worker, &cpu) in cpus.iter().enumerate() {
        if worker == thief {
            continue;
        }
        let tier = if topology.node(cpu) == node {
            0
        } else if topology.package(cpu) == package {
            1
        } else {
            2
        };
        tiers[tier].push(worker);
    }
    tiers.retain(|t| !t.is_empty());
    tiers
}

/// One worker's state.
#[derive(Debug)]
struct LocalitySelector {
    /// The other workers, nearest tier first.
    tiers: Vec<Vec<usize>>,
    /// Whether each worker was found empty and has not shown work since (weight zero).
    zero: Vec<bool>,
    rng: XorShift64Star,
}

impl VictimSelector for LocalitySelector {
    fn next_round(&mut self, pool: &dyn PoolView, victims: &mut Vec<usize>) {
        for tier in &self.tiers {
            let start = victims.len();
            for &v in tier {
                if self.zero[v] {
                    if pool.queue_len(v) == 0 {
                        continue;
                    }
                    self.zero[v] = false;
                }
                victims.push(v);
            }
            // Fisher–Yates over this tier's victims.
            let tier = &mut victims[start..];
            for i in (1..tier.len()).rev() {
                tier.swap(i, self.rng.below(i + 1));
            }
        }
    }

    fn on_probe(&mut self, _pool: &dyn PoolView, probe: Probe, _victims: &mut Vec<usize>) {
        if let Some(zero) = self.zero.get_mut(probe.victim) {
            *zero = probe.outcome == ProbeOutcome::Empty;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::topology::test_support::{fixture, fixture_root, TempSysfs};
    use crate::policy::victim::by_name;
    use crate::policy::victim::hierarchical::tests::{run_round, FakePool};

    fn sorted(victims: &[usize]) -> Vec<usize> {
        let mut v = victims.to_vec();
        v.sort_unstable();
        v
    }

    fn empty(_: usize) -> ProbeOutcome {
        ProbeOutcome::Empty
    }

    #[test]
    fn own_node_first() {
        let p = LocalityVictims::with_topology(fixture("two-socket-numa"));
        let cpus = p.placement(16).unwrap();
        assert_eq!(
            cpus,
            vec![0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15]
        );
        let pool = FakePool(vec![1; 16]);
        let mut sel = p.selectors(16);
        let mut orders = std::collections::BTreeSet::new();
        for _ in 0..10 {
            let mut round = Vec::new();
            sel[0].next_round(&pool, &mut round);
            assert_eq!(round.len(), 15);
            assert_eq!(sorted(&round[..7]), vec![1, 2, 3, 4, 5, 6, 7]);
            assert_eq!(sorted(&round[7..]), (8..16).collect::<Vec<_>>());
            orders.insert(round);
        }
        // Random order within a tier, drawn afresh each round.
        assert!(orders.len() > 1);

        // Worker 12 runs on CPU 6, on node 1.
        let mut round = Vec::new();
        sel[12].next_round(&pool, &mut round);
        assert_eq!(sorted(&round[..7]), vec![8, 9, 10, 11, 13, 14, 15]);
        assert_eq!(sorted(&round[7..]), (0..8).collect::<Vec<_>>());
    }

    #[test]
    fn own_package_second() {
        // Sub-NUMA clustering: package 0 (CPUs 0-7) holds nodes 0 (0-3) and 1 (4-7);
        // package 1 (CPUs 8-11) is node 2.
        let fs = TempSysfs::new();
        fs.write("cpu/online", "0-11")
            .write("node/node0/cpulist", "0-3")
            .write("node/node1/cpulist", "4-7")
            .write("node/node2/cpulist", "8-11");
        for cpu in 0..12 {
            fs.cpu(cpu, (cpu / 8) as i64, cpu % 8, None, None);
        }
        let p = LocalityVictims::with_topology(fs.topology());
        assert_eq!(p.worker_cpus(12), (0..12).collect::<Vec<_>>());
        let mut s = p.selectors(12).remove(5);
        let round = run_round(s.as_mut(), &FakePool(vec![0; 12]), empty);
        assert_eq!(sorted(&round[..3]), vec![4, 6, 7]);
        assert_eq!(sorted(&round[3..7]), vec![0, 1, 2, 3]);
        assert_eq!(sorted(&round[7..]), vec![8, 9, 10, 11]);
    }

    #[test]
    fn empty_victims_weigh_zero_until_work_reappears() {
        let p = LocalityVictims::with_topology(fixture("single-socket"));
        let mut s = p.selectors(4).remove(0);
        let mut pool = FakePool(vec![0; 4]);
        // Everyone is empty: one full round, then nothing to probe.
        assert_eq!(sorted(&run_round(s.as_mut(), &pool, empty)), vec![1, 2, 3]);
        assert_eq!(run_round(s.as_mut(), &pool, empty), Vec::<usize>::new());
        assert_eq!(run_round(s.as_mut(), &pool, empty), Vec::<usize>::new());
        // Worker 2 shows work again, but loses the race: it stays in the rounds...
        pool.0[2] = 1;
        let busy = |_| ProbeOutcome::Busy;
        assert_eq!(run_round(s.as_mut(), &pool, busy), vec![2]);
        pool.0[2] = 0;
        assert_eq!(run_round(s.as_mut(), &pool, empty), vec![2]);
        // ...until found empty.
        assert_eq!(run_round(s.as_mut(), &pool, empty), Vec::<usize>::new());
        // Workers 1 and 3 show work: both are back; the first probed gives a task.
        pool.0[1] = 3;
        pool.0[3] = 3;
        let round = run_round(s.as_mut(), &pool, |_| ProbeOutcome::Stolen);
        assert_eq!(round.len(), 1);
        assert!(round[0] == 1 || round[0] == 3);
        // Their queues drain: neither was found empty since, so both stay in until probed.
        pool.0[1] = 0;
        pool.0[3] = 0;
        assert_eq!(sorted(&run_round(s.as_mut(), &pool, empty)), vec![1, 3]);
        assert_eq!(run_round(s.as_mut(), &pool, empty), Vec::<usize>::new());
    }

    #[test]
    fn small_and_flat_pools() {
        let p = LocalityVictims::with_topology(Topology::flat(2));
        let mut one = p.selectors(1);
        assert!(run_round(one[0].as_mut(), &FakePool(vec![0]), empty).is_empty());
        let mut two = p.selectors(2);
        assert_eq!(
            run_round(two[1].as_mut(), &FakePool(vec![0; 2]), empty),
            vec![0]
        );
        // More workers than CPUs: all on one node, one tier.
        let mut four = p.selectors(4);
        let round = run_round(four[0].as_mut(), &FakePool(vec![0; 4]), empty);
        assert_eq!(sorted(&round), vec![1, 2, 3]);
    }

    #[test]
    fn from_spec() {
        let root = fixture_root("single-socket");
        let spec = format!("locality:sysfs={},pin=false", root.display());
        let p = by_name(&spec).unwrap();
        assert_eq!(p.name(), "locality");
        assert_eq!(p.placement(4), None);
        assert_eq!(p.selectors(4).len(), 4);
        assert_eq!(by_name("locality").unwrap().placement(3).unwrap().len(), 3);
        let e = by_name("locality:sysfs=/no/such/dir")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("locality: parameter sysfs=\"/no/such/dir\": "),
            "{e}"
        );
        assert!(by_name("locality:weight=1").is_err());
    }
}
