//! The branch-and-bound applications with weights, knapsack and TSP, through
//! `magpie::search` on every skeleton × worker count (1, 2, 4, 8) × deque (the configurations
//! and statistics checks of `search_apps.rs`, shared in `common`): optima against dynamic
//! programming, brute force and the published optima of the instance files; node counts per
//! depth against independent counters.
//!
//! `MAGPIE_TEST_DEQUES=chase-lev,lcws-user` restricts the deques (default: all).

mod common;

use common::*;
use magpie::search::{self, Options};
use magpie_apps::{knapsack, testdata, tsp};

// ---------------------------------------------------------------------------------------
// Knapsack

/// A random instance: `n` items with weights in 1..=60, profits uncorrelated (kind 0),
/// correlated (kind 1) or all of the same ratio (kind 2); the capacity is half the weight.
fn random_knapsack(n: usize, kind: u64, seed: u64) -> knapsack::Instance {
    let mut rng = xorshift(seed);
    let items: Vec<(u64, u64)> = (0..n)
        .map(|_| {
            let w = 1 + rng.next_u64() % 60;
            let p = match kind {
                0 => rng.next_u64() % 100,
                1 => w + rng.next_u64() % 10,
                _ => 3 * w,
            };
            (p, w)
        })
        .collect();
    let capacity = items.iter().map(|i| i.1).sum::<u64>() / 2;
    knapsack::Instance::new(capacity, &items).unwrap()
}

/// Nodes per depth of the include/exclude tree (depth = items decided, in heuristic order;
/// the include child exists only when the item fits), by counting feasible subsets of each
/// prefix by weight.
fn knapsack_per_depth(inst: &knapsack::Instance) -> Vec<u64> {
    let cap = inst.capacity() as usize;
    let mut ways = vec![0u64; cap + 1]; // subsets of the decided prefix, by weight
    ways[0] = 1;
    let mut counts = vec![1];
    for &i in inst.order() {
        let w = inst.weights()[i] as usize;
        for c in (w..=cap).rev() {
            ways[c] += ways[c - w];
        }
        counts.push(ways.iter().sum());
    }
    counts
}

/// An optimisation answer: the optimum, a feasible node achieving it.
fn check_knapsack(
    inst: &knapsack::Instance,
    got: &Option<(i64, knapsack::KnapNode)>,
    optimum: u64,
    what: &str,
) {
    let (value, node) = got.as_ref().expect("the empty knapsack is a solution");
    assert_eq!(*value, optimum as i64, "{what}: optimum");
    assert_eq!(node.profit, optimum, "{what}: node profit");
    let items = inst.certificate(node.profit).expect("a certificate").items;
    let (p, w) = inst.evaluate(&items);
    assert_eq!(p, optimum, "{what}: profit of the chosen items {items:?}");
    assert!(w <= inst.capacity(), "{what}: {w} > capacity");
}

#[test]
fn knapsack_on_every_skeleton_pool_and_deque() {
    let instances: Vec<(knapsack::Instance, u64, Vec<u64>)> =
        [(22, 0, 1), (24, 1, 2), (20, 2, 3), (0, 0, 4), (1, 0, 5)]
            .into_iter()
            .map(|(n, kind, seed)| {
                let inst = random_knapsack(n, kind, seed);
                let dp = knapsack::solve_dp(&inst).profit;
                let per_depth = knapsack_per_depth(&inst);
                (inst, dp, per_depth)
            })
            .collect();
    let small = random_knapsack(12, 0, 6);
    let small_per_depth = knapsack_per_depth(&small);
    every_config(|c| {
        for (k, (inst, optimum, per_depth)) in instances.iter().enumerate() {
            let what = format!("random knapsack {k} {}", c.label);
            let got = c.run(|sk| search::optimise(inst, sk, &Options::default()));
            check_knapsack(inst, &got.value, *optimum, &what);
            check_stats(&got.stats, c, &what);
            let total: u64 = per_depth.iter().sum();
            assert!(
                got.stats.expanded + got.stats.pruned <= total,
                "{what}: {} + {} > {total} nodes",
                got.stats.expanded,
                got.stats.pruned
            );
            // Decision: the optimum is reachable, one more is not.
            let hit = c.run(|sk| search::decide(inst, *optimum as i64, sk, &Options::default()));
            let node = hit.value.expect("the optimum is reachable");
            assert_eq!(node.profit, *optimum, "{what}: decision");
            let cert = inst.certificate(node.profit).expect("a certificate");
            let (p, w) = inst.evaluate(&cert.items);
            assert!(p == *optimum && w <= inst.capacity(), "{what}: decision");
            check_stats(&hit.stats, c, &what);
            let miss =
                c.run(|sk| search::decide(inst, *optimum as i64 + 1, sk, &Options::default()));
            assert!(miss.value.is_none(), "{what}: optimum + 1");
            // An initial bound at the optimum leaves nothing better.
            let opts = Options {
                initial_bound: Some(*optimum as i64),
                ..Options::default()
            };
            let none = c.run(|sk| search::optimise(inst, sk, &opts));
            assert!(none.value.is_none(), "{what}: initial bound = optimum");
        }
        check_per_depth(c, &small, &small_per_depth, "knapsack tree");
    });
}

/// Optimum from the README table (section 3a), to be checked against the optimum files.
const KNAPSACK_FILES: &[(&str, &str, u64)] = &[
    ("low-dimensional", "f1_l-d_kp_10_269", 295),
    ("low-dimensional", "f2_l-d_kp_20_878", 1024),
    ("low-dimensional", "f3_l-d_kp_4_20", 35),
    ("low-dimensional", "f4_l-d_kp_4_11", 23),
    ("low-dimensional", "f6_l-d_kp_10_60", 52),
    ("low-dimensional", "f7_l-d_kp_7_50", 107),
    ("low-dimensional", "f8_l-d_kp_23_10000", 9767),
    ("low-dimensional", "f9_l-d_kp_5_80", 130),
    ("low-dimensional", "f10_l-d_kp_20_879", 1025),
    ("large_scale", "knapPI_1_100_1000_1", 9147),
    ("large_scale", "knapPI_2_100_1000_1", 1514),
    ("large_scale", "knapPI_3_100_1000_1", 2397),
    ("large_scale", "knapPI_1_200_1000_1", 11238),
];

#[test]
fn knapsack_instance_files_on_every_skeleton() {
    let mut cases: Vec<(String, knapsack::Instance, u64)> = Vec::new();
    for &(dir, name, optimum) in KNAPSACK_FILES {
        let file = testdata::path(&format!("knapsack/{dir}-optimum/{name}"));
        let stated: u64 = std::fs::read_to_string(file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert_eq!(stated, optimum, "{name}: optimum file vs README");
        let inst = knapsack::read(testdata::path(&format!("knapsack/{dir}/{name}")))
            .unwrap()
            .pop()
            .unwrap();
        cases.push((name.to_string(), inst, optimum));
    }
    for file in [
        "hardinstances_pisinger/knapPI_11_20_1000.csv",
        "smallcoeff_pisinger/knapPI_1_50_1000.csv",
        "largecoeff_pisinger/knapPI_1_50_100000.csv",
        "largecoeff_pisinger/knapPI_1_100_100000.csv",
    ] {
        let all = knapsack::read(testdata::path(&format!("knapsack/pisinger/{file}"))).unwrap();
        for inst in all.into_iter().take(8) {
            let z = inst.stated_optimum().expect("Pisinger files state z");
            cases.push((format!("{file} {}", inst.name()), inst, z));
        }
    }
    configs(&["chase-lev"], &[2], |c| {
        for (name, inst, optimum) in &cases {
            let got = c.run(|sk| search::optimise(inst, sk, &Options::default()));
            let what = format!("{name} {}", c.label);
            check_knapsack(inst, &got.value, *optimum, &what);
            check_stats(&got.stats, c, &what);
        }
    });
    // The real-valued f5 (README: 481.0694, data scaled by 10^6): every skeleton agrees with
    // the plain solver, whose value rounds to the stated optimum.
    let f5 = knapsack::read(testdata::path("knapsack/low-dimensional/f5_l-d_kp_15_375"))
        .unwrap()
        .pop()
        .unwrap();
    let reference = knapsack::solve(&f5).profit;
    assert!((reference as f64 / 1e6 - 481.0694).abs() < 5e-5);
    configs(&deques(), &[2], |c| {
        let got = c.run(|sk| search::optimise(&f5, sk, &Options::default()));
        check_knapsack(&f5, &got.value, reference, &format!("f5 {}", c.label));
    });
}

// ---------------------------------------------------------------------------------------
// TSP

/// A random symmetric instance on `n` cities with distances in 1..=100.
fn random_tsp(n: usize, seed: u64) -> tsp::Instance {
    let mut rng = xorshift(seed);
    let mut m = vec![0i64; n * n];
    for i in 0..n {
        for j in i + 1..n {
            let d = 1 + (rng.next_u64() % 100) as i64;
            m[i * n + j] = d;
            m[j * n + i] = d;
        }
    }
    tsp::Instance::from_matrix(n, m)
}

/// The shortest tour by trying every permutation of the cities after city 0.
fn brute_force_tsp(inst: &tsp::Instance) -> i64 {
    fn go(inst: &tsp::Instance, last: usize, used: &mut [bool], len: i64, left: usize) -> i64 {
        if left == 0 {
            return len + inst.dist(last, 0);
        }
        let mut best = i64::MAX;
        for c in 1..inst.len() {
            if !used[c] {
                used[c] = true;
                best = best.min(go(inst, c, used, len + inst.dist(last, c), left - 1));
                used[c] = false;
            }
        }
        best
    }
    let n = inst.len();
    go(inst, 0, &mut vec![false; n], 0, n - 1)
}

/// Nodes per depth of the tour tree: paths from city 0 through `d` more distinct cities,
/// `(n-1)! / (n-1-d)!` of them.
fn tsp_per_depth(n: usize) -> Vec<u64> {
    let mut v = vec![1u64];
    for d in 1..n {
        v.push(v[d - 1] * (n - d) as u64);
    }
    v
}

/// An optimisation answer: a complete tour through every city once, of the optimal length.
fn check_tour(inst: &tsp::Instance, value: i64, node: &tsp::TspNode, optimum: i64, what: &str) {
    assert_eq!(value, -optimum, "{what}: optimum");
    let tour = node.tour(inst);
    assert_eq!(tour.length, optimum, "{what}: node's tour");
    let mut cities = tour.cities.clone();
    assert_eq!(cities.first(), Some(&1), "{what}");
    cities.sort_unstable();
    assert_eq!(
        cities,
        (1..=inst.len()).collect::<Vec<_>>(),
        "{what}: a permutation"
    );
    assert_eq!(tsp::tour_length(inst, &tour.cities), optimum, "{what}");
}

#[test]
fn tsp_on_every_skeleton_pool_and_deque() {
    let instances: Vec<(tsp::Instance, i64, i64)> = [(8, 1), (7, 2), (8, 3)]
        .into_iter()
        .map(|(n, seed)| {
            let inst = random_tsp(n, seed);
            let opt = brute_force_tsp(&inst);
            let heuristic = tsp::heuristic_tour(&inst).length;
            assert!(heuristic >= opt);
            (inst, opt, heuristic)
        })
        .collect();
    let small = random_tsp(6, 4);
    let small_per_depth = tsp_per_depth(6);
    assert_eq!(small_per_depth.iter().sum::<u64>(), 326);
    every_config(|c| {
        for (k, (inst, opt, heuristic)) in instances.iter().enumerate() {
            let total: u64 = tsp_per_depth(inst.len()).iter().sum();
            for bound in [None, Some(-heuristic), Some(-heuristic - 1)] {
                let opts = Options {
                    initial_bound: bound,
                    ..Options::default()
                };
                let what = format!("random tsp {k} bound {bound:?} {}", c.label);
                let got = c.run(|sk| search::optimise(inst, sk, &opts));
                check_stats(&got.stats, c, &what);
                assert!(got.stats.expanded + got.stats.pruned <= total, "{what}");
                match &got.value {
                    Some((value, node)) => check_tour(inst, *value, node, *opt, &what),
                    // Only a bound at an optimal heuristic tour leaves nothing better.
                    None => assert!(bound == Some(-heuristic) && heuristic == opt, "{what}"),
                }
            }
            let what = format!("random tsp {k} decision {}", c.label);
            let hit = c.run(|sk| search::decide(inst, -opt, sk, &Options::default()));
            let node = hit.value.expect("an optimal tour exists");
            check_tour(inst, -opt, &node, *opt, &what);
            let miss = c.run(|sk| search::decide(inst, -opt + 1, sk, &Options::default()));
            assert!(miss.value.is_none(), "{what}: shorter than optimal");
        }
        check_per_depth(c, &small, &small_per_depth, "tsp tree");
    });
}

#[test]
fn tsp_random_small_instances_match_brute_force() {
    let p2 = pool("chase-lev", 2);
    let skeletons = skeletons();
    for seed in 0..40u64 {
        let n = 1 + (seed % 8) as usize;
        let inst = random_tsp(n, 100 + seed);
        let opt = brute_force_tsp(&inst);
        let sk = skeletons[seed as usize % skeletons.len()];
        let got = p2.install(|| search::optimise(&inst, sk, &Options::default()));
        let (value, node) = got.value.expect("a tour exists");
        check_tour(
            &inst,
            value,
            &node,
            opt,
            &format!("n={n} seed {seed} {sk:?}"),
        );
    }
}

/// The optimal tour length of `name` in the TSPLIB table of `tests/data/README.md`
/// (`| name.tsp | n | type | optimum | source |`), the collection's published optima.
fn readme_optimum(name: &str) -> i64 {
    let readme = std::fs::read_to_string(testdata::path("README.md")).unwrap();
    let row = format!("| {name}.tsp |");
    let line = readme
        .lines()
        .find(|l| l.starts_with(&row))
        .unwrap_or_else(|| panic!("tests/data/README.md has no row for {name}.tsp"));
    let optimum = line.split('|').nth(4).map(str::trim).unwrap_or_default();
    optimum
        .parse()
        .unwrap_or_else(|e| panic!("{name}'s optimum {optimum:?} in the README: {e}"))
}

#[test]
fn tsplib_instances_on_every_skeleton() {
    for name in ["burma14", "ulysses16", "gr17", "gr24", "fri26", "bayg29"] {
        let opt = readme_optimum(name);
        let inst = tsp::read(testdata::path(&format!("tsplib/{name}.tsp"))).unwrap();
        let heuristic = tsp::heuristic_tour(&inst).length;
        assert!(heuristic >= opt, "{name}");
        configs(&["chase-lev"], &[2], |c| {
            // Without a bound only for the smaller files (bayg29 takes 10k nodes without).
            let bounds = if inst.len() <= 17 {
                vec![None, Some(-heuristic)]
            } else {
                vec![Some(-heuristic), Some(-heuristic - 1)]
            };
            for bound in bounds {
                let opts = Options {
                    initial_bound: bound,
                    ..Options::default()
                };
                let what = format!("{name} bound {bound:?} {}", c.label);
                let got = c.run(|sk| search::optimise(&inst, sk, &opts));
                check_stats(&got.stats, c, &what);
                match &got.value {
                    Some((value, node)) => check_tour(&inst, *value, node, opt, &what),
                    None => assert!(bound == Some(-heuristic) && heuristic == opt, "{what}"),
                }
            }
        });
    }
}
