//! TSP: optima of small TSPLIB instances (values from the shared README, never our own runs),
//! the shipped optimal tours, brute force on random small instances, malformed input.

use magpie_apps::rng::XorShift64Star;
use magpie_apps::testdata;
use magpie_apps::tsp::{parse, read, read_tour, solve, tour_length, Instance, TspNode};
use std::time::Instant;

fn inst(name: &str) -> Instance {
    read(testdata::path(&format!("tsplib/{name}.tsp"))).unwrap()
}

/// (file, n, optimum) from the README's TSPLIB table.
const OPTIMA: &[(&str, usize, i64)] = &[
    ("burma14", 14, 3323),
    ("ulysses16", 16, 6859),
    ("gr17", 17, 2085),
    ("gr24", 24, 1272),
    ("fri26", 26, 937),
    ("bayg29", 29, 1610),
    ("dantzig42", 42, 699),
    ("swiss42", 42, 1273),
    ("att48", 48, 10628),
    ("gr48", 48, 5046),
    ("eil51", 51, 426),
    ("berlin52", 52, 7542),
    ("st70", 70, 675),
    ("eil76", 76, 538),
];

fn optimum(name: &str) -> i64 {
    OPTIMA.iter().find(|x| x.0 == name).unwrap().2
}

#[test]
fn every_file_reads_and_root_bound_is_sound() {
    for &(name, n, opt) in OPTIMA {
        let i = inst(name);
        assert_eq!(i.len(), n, "{name}");
        assert!(i.name().starts_with(name), "{name}: NAME {}", i.name());
        let lb = TspNode::root(&i).lower_bound(&i);
        assert!(lb <= opt, "{name}: root bound {lb} > optimum {opt}");
        for a in 0..n {
            for b in 0..n {
                assert_eq!(i.dist(a, b), i.dist(b, a), "{name}: symmetric");
            }
        }
    }
}

#[test]
fn opt_tours_have_the_stated_length() {
    // Covers GEO (ulysses16), LOWER_DIAG_ROW (gr24, fri26, gr48), UPPER_ROW (bayg29),
    // ATT (att48) and EUC_2D (eil51, berlin52, st70, eil76).
    for name in [
        "ulysses16",
        "gr24",
        "fri26",
        "bayg29",
        "att48",
        "gr48",
        "eil51",
        "berlin52",
        "st70",
        "eil76",
    ] {
        let i = inst(name);
        let t = read_tour(testdata::path(&format!("tsplib/{name}.opt.tour"))).unwrap();
        let mut sorted = t.clone();
        sorted.sort_unstable();
        assert_eq!(
            sorted,
            (1..=i.len()).collect::<Vec<_>>(),
            "{name}: permutation"
        );
        assert_eq!(tour_length(&i, &t), optimum(name), "{name}");
    }
}

#[test]
fn solve_small_instances() {
    // Measured once in release on the shared 2-core machine: burma14 .. bayg29 take under
    // 10 ms, dantzig42 31 ms, swiss42 13 ms, att48 0.4 s, berlin52 2 ms, eil51 3.6 s. Not
    // solved here (too slow for this test): gr48 (10 s), st70 (61 s), eil76 (not finished).
    for name in [
        "burma14",
        "ulysses16",
        "gr17",
        "gr24",
        "fri26",
        "bayg29",
        "dantzig42",
        "swiss42",
        "att48",
        "eil51",
        "berlin52",
    ] {
        let i = inst(name);
        let t0 = Instant::now();
        let t = solve(&i);
        eprintln!("{name}: {:?}", t0.elapsed());
        assert_eq!(t.length, optimum(name), "{name}");
        assert_eq!(tour_length(&i, &t.cities), t.length, "{name}");
        assert_eq!(t.cities[0], 1);
        let mut s = t.cities.clone();
        s.sort_unstable();
        assert_eq!(s, (1..=i.len()).collect::<Vec<_>>());
    }
}

/// All tours starting at city 0, by recursion over permutations.
fn brute(i: &Instance) -> i64 {
    fn go(i: &Instance, path: &mut Vec<usize>, used: &mut [bool], len: i64, best: &mut i64) {
        let last = *path.last().unwrap();
        if path.len() == i.len() {
            *best = (*best).min(len + i.dist(last, 0));
            return;
        }
        for c in 0..i.len() {
            if !used[c] {
                used[c] = true;
                path.push(c);
                go(i, path, used, len + i.dist(last, c), best);
                path.pop();
                used[c] = false;
            }
        }
    }
    let mut used = vec![false; i.len()];
    used[0] = true;
    let mut best = i64::MAX;
    go(i, &mut vec![0], &mut used, 0, &mut best);
    best
}

/// Every node's bound is at most the best completion below it (checked on the whole tree).
fn check_bounds(i: &Instance, node: &TspNode) -> i64 {
    if node.is_complete(i) {
        let l = node.tour_length(i);
        assert_eq!(node.lower_bound(i), l);
        return l;
    }
    let best = node.children(i).map(|c| check_bounds(i, &c)).min().unwrap();
    assert!(node.lower_bound(i) <= best, "bound above best completion");
    best
}

#[test]
fn random_small_instances_match_brute_force() {
    let mut rng = XorShift64Star::from_state(0x1234_5678_9abc_def1);
    for case in 0..300 {
        let n = 1 + (rng.next_u64() % 9) as usize;
        let mut m = vec![0i64; n * n];
        let euclid = case % 2 == 0;
        let pts: Vec<(i64, i64)> = (0..n)
            .map(|_| ((rng.next_u64() % 100) as i64, (rng.next_u64() % 100) as i64))
            .collect();
        for a in 0..n {
            for b in a + 1..n {
                let w = if euclid {
                    let (dx, dy) = (pts[a].0 - pts[b].0, pts[a].1 - pts[b].1);
                    (((dx * dx + dy * dy) as f64).sqrt() + 0.5) as i64
                } else {
                    (rng.next_u64() % 50) as i64
                };
                m[a * n + b] = w;
                m[b * n + a] = w;
            }
        }
        let i = Instance::from_matrix(n, m);
        let want = brute(&i);
        let t = solve(&i);
        assert_eq!(t.length, want, "case {case} n {n}");
        assert_eq!(tour_length(&i, &t.cities), want);
        if n <= 8 {
            assert_eq!(check_bounds(&i, &TspNode::root(&i)), want);
        }
    }
}

#[test]
fn distance_rules() {
    // EUC_2D rounds to nearest, CEIL_2D rounds up, ATT rounds up when nint is below.
    let two = |t: &str, a: &str, b: &str| {
        let text =
            format!("DIMENSION: 2\nEDGE_WEIGHT_TYPE: {t}\nNODE_COORD_SECTION\n1 {a}\n2 {b}\nEOF\n");
        parse("t.tsp", &text).unwrap().dist(0, 1)
    };
    assert_eq!(two("EUC_2D", "0 0", "1 1"), 1); // 1.414
    assert_eq!(two("EUC_2D", "0 0", "1.5 2"), 3); // 2.5 -> 3
    assert_eq!(two("CEIL_2D", "0 0", "1 1"), 2);
    assert_eq!(two("CEIL_2D", "0 0", "3 4"), 5);
    assert_eq!(two("ATT", "0 0", "10 0"), 4); // sqrt(10) = 3.16 -> 3 < 3.16 -> 4
    assert_eq!(two("ATT", "0 0", "20 0"), 7); // sqrt(40) = 6.32 -> 7
    assert_eq!(two("ATT", "0 0", "0 30"), 10); // sqrt(90) = 9.49 -> 9 < 9.49 -> 10
                                               // GEO: burma14 cities 1 and 2 (16.47 96.10 / 16.47 94.44); TSPLIB's formula gives 153.
    assert_eq!(two("GEO", "16.47 96.10", "16.47 94.44"), 153);
    // The explicit formats agree on the same 3×3 matrix.
    for (f, w) in [
        ("FULL_MATRIX", "0 1 2 1 0 3 2 3 0"),
        ("UPPER_ROW", "1 2 3"),
        ("LOWER_ROW", "1 2 3"),
        ("UPPER_DIAG_ROW", "0 1 2 0 3 0"),
        ("LOWER_DIAG_ROW", "0 1 0 2 3 0"),
    ] {
        let text = format!(
            "DIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: {f}\nEDGE_WEIGHT_SECTION\n{w}\nEOF\n"
        );
        let i = parse("t.tsp", &text).unwrap();
        assert_eq!((i.dist(0, 1), i.dist(0, 2), i.dist(1, 2)), (1, 2, 3), "{f}");
        assert_eq!(i.dist(2, 1), 3, "{f}");
    }
}

fn err(text: &str) -> String {
    parse("bad.tsp", text).unwrap_err().to_string()
}

#[test]
fn malformed_input() {
    assert_eq!(
        err("NAME: x\nEDGE_WEIGHT_TYPE: EUC_2D\n"),
        "bad.tsp:2: missing DIMENSION"
    );
    assert_eq!(
        err("DIMENSION: 2\nEDGE_WEIGHT_TYPE: EUC_3D\n"),
        "bad.tsp:2: unsupported EDGE_WEIGHT_TYPE `EUC_3D`"
    );
    assert_eq!(
        err("DIMENSION: 2\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: UPPER_COL\n"),
        "bad.tsp:3: unsupported EDGE_WEIGHT_FORMAT `UPPER_COL`"
    );
    assert_eq!(
        err("TYPE: ATSP\n"),
        "bad.tsp:1: unsupported TYPE `ATSP` (only TSP)"
    );
    assert_eq!(err("FOO: 1\n"), "bad.tsp:1: unknown keyword `FOO`");
    assert_eq!(err("DIMENSION: -3\n"), "bad.tsp:1: bad DIMENSION `-3`");
    assert_eq!(
        err("EDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\n"),
        "bad.tsp:2: NODE_COORD_SECTION before DIMENSION"
    );
    assert_eq!(
        err("DIMENSION: 3\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 1\n3 0 0\n"),
        "bad.tsp:5: expected 3 fields, found 2"
    );
    assert_eq!(
        err("DIMENSION: 3\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 1 x\n"),
        "bad.tsp:5: `x` is not a number (expected 3 coordinate lines, found 1)"
    );
    assert_eq!(
        err("DIMENSION: 3\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 1 1\n"),
        "bad.tsp:5: file ends early: expected 3 coordinate lines, found 2"
    );
    assert_eq!(
        err("DIMENSION: 2\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\n1 1 1\n"),
        "bad.tsp:5: city 1 given twice"
    );
    assert_eq!(
        err("DIMENSION: 2\nEDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\n3 1 1\n"),
        "bad.tsp:5: city id 3 out of range 1..=2"
    );
    let ex = "DIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: UPPER_ROW\nEDGE_WEIGHT_SECTION\n";
    assert_eq!(
        err(&format!("{ex}1 2\n")),
        "bad.tsp:5: file ends early: expected 3 weights, found 2"
    );
    assert_eq!(
        err(&format!("{ex}1 2\n3 4\n")),
        "bad.tsp:6: too many weights: expected 3, found 4"
    );
    assert_eq!(
        err(&format!("{ex}1 2\n3\n4\nEOF\n")),
        "bad.tsp:7: unexpected data `4` (too many entries in the section above?)"
    );
    assert_eq!(
        err(&format!("{ex}1 -2 3\n")),
        "bad.tsp:5: weight -2 is not a non-negative integer"
    );
    assert_eq!(
        err("DIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_SECTION\n1 2 3\n"),
        "bad.tsp:3: EDGE_WEIGHT_SECTION without EDGE_WEIGHT_FORMAT"
    );
    assert_eq!(
        err("DIMENSION: 3\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: FULL_MATRIX\nEOF\n"),
        "bad.tsp:4: missing EDGE_WEIGHT_SECTION"
    );
    assert_eq!(
        err("DIMENSION: 3\nEDGE_WEIGHT_TYPE: GEO\nEOF\n"),
        "bad.tsp:3: missing NODE_COORD_SECTION"
    );
    assert_eq!(err("DIMENSION: 3\n"), "bad.tsp:1: missing EDGE_WEIGHT_TYPE");
    assert!(read("/nonexistent/x.tsp")
        .unwrap_err()
        .to_string()
        .starts_with("/nonexistent/x.tsp: cannot read"));
    assert_eq!(
        magpie_apps::tsp::parse_tour("t", "TOUR_SECTION\n1 2\n")
            .unwrap_err()
            .to_string(),
        "t:2: file ends before the closing -1"
    );
}
