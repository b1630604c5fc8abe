//! Knapsack: optima of the repository's instances (`tests/data/knapsack`; values from its
//! README / optimum files / the Pisinger `z` column, never from our own runs), generated
//! Pisinger-style instances of 2,000–5,000 items and random small ones against the DP
//! oracle, malformed input.

use magpie_apps::knapsack::{
    parse_pisinger, parse_plain, read, solve, solve_dp, Instance, KnapNode, Solution,
};
use magpie_apps::rng::XorShift64Star;
use magpie_apps::testdata;
use std::time::Instant;

fn check_solution(inst: &Instance, sol: &Solution, optimum: u64, what: &str) {
    assert_eq!(sol.profit, optimum, "{what}: profit");
    assert!(
        sol.items.windows(2).all(|w| w[0] < w[1]),
        "{what}: items sorted"
    );
    let (p, w) = inst.evaluate(&sol.items);
    assert_eq!(p, optimum, "{what}: profit of the chosen items");
    assert!(w <= inst.capacity(), "{what}: weight {w} > capacity");
    assert!(
        inst.upper_bound() >= optimum,
        "{what}: Dantzig bound below optimum"
    );
}

fn check_stated_selection(inst: &Instance, optimum: u64, what: &str) {
    let sel = inst.stated_selection().expect("selection");
    let items: Vec<usize> = (0..sel.len()).filter(|&i| sel[i]).collect();
    let (p, w) = inst.evaluate(&items);
    assert_eq!(p, optimum, "{what}: stated selection's profit");
    assert!(w <= inst.capacity(), "{what}: stated selection infeasible");
}

/// Optimum from the README table (section 3a); kept here so a damaged optimum file is noticed.
const README_OPTIMA: &[(&str, u64)] = &[
    ("f1_l-d_kp_10_269", 295),
    ("f2_l-d_kp_20_878", 1024),
    ("f3_l-d_kp_4_20", 35),
    ("f4_l-d_kp_4_11", 23),
    ("f6_l-d_kp_10_60", 52),
    ("f7_l-d_kp_7_50", 107),
    ("f8_l-d_kp_23_10000", 9767),
    ("f9_l-d_kp_5_80", 130),
    ("f10_l-d_kp_20_879", 1025),
    ("knapPI_1_100_1000_1", 9147),
    ("knapPI_1_200_1000_1", 11238),
    ("knapPI_1_500_1000_1", 28857),
    ("knapPI_1_1000_1000_1", 54503),
    ("knapPI_2_100_1000_1", 1514),
    ("knapPI_2_200_1000_1", 1634),
    ("knapPI_2_500_1000_1", 4566),
    ("knapPI_2_1000_1000_1", 9052),
    ("knapPI_3_100_1000_1", 2397),
    ("knapPI_3_200_1000_1", 2697),
    ("knapPI_3_500_1000_1", 7117),
];

fn folder_instance(dir: &str, name: &str) -> (Instance, u64) {
    let p = testdata::path(&format!("knapsack/{dir}/{name}"));
    let o = testdata::path(&format!("knapsack/{dir}-optimum/{name}"));
    let opt_text = std::fs::read_to_string(&o).unwrap();
    let opt: u64 = opt_text.trim().parse().unwrap();
    let readme = README_OPTIMA.iter().find(|x| x.0 == name).unwrap().1;
    assert_eq!(opt, readme, "{name}: optimum file vs README");
    let mut v = read(&p).unwrap();
    assert_eq!(v.len(), 1);
    (v.pop().unwrap(), opt)
}

#[test]
fn low_dimensional_and_large_scale_optima() {
    for &(name, _) in README_OPTIMA {
        let dir = if name.starts_with('f') {
            "low-dimensional"
        } else {
            "large_scale"
        };
        let (inst, opt) = folder_instance(dir, name);
        assert_eq!(inst.name(), name);
        let t = Instant::now();
        let sol = solve(&inst);
        eprintln!("{name}: n {} solved in {:?}", inst.len(), t.elapsed());
        check_solution(&inst, &sol, opt, name);
        // The certificate made on demand for the optimum, and none for one more.
        let cert = inst.certificate(opt).expect("a certificate of the optimum");
        check_solution(&inst, &cert, opt, &format!("{name}: certificate"));
        assert_eq!(inst.certificate(opt + 1), None, "{name}: optimum + 1");
        if dir == "large_scale" {
            check_stated_selection(&inst, opt, name);
        }
        if inst.len() <= 200 {
            assert_eq!(solve_dp(&inst).profit, opt, "{name}: DP");
        }
    }
}

/// Pisinger's uncorrelated (type 1) and weakly correlated (type 2) instances as his
/// generator makes them (weights in 1..=1000; profits in 1..=1000, or the weight ± 100 and
/// at least 1), with the large_scale files' capacity of about 5 per item: the sizes of the
/// 2,000–10,000-item files, which are not shipped. The optimum is the DP's.
#[test]
fn generated_large_instances_match_dp() {
    let mut rng = XorShift64Star::new(0x5eed_4b4a);
    let mut next = |m: u64| rng.next_u64() % m;
    for (n, what) in [
        (2000, "uncorrelated"),
        (2000, "weakly correlated"),
        (5000, "uncorrelated"),
        (5000, "weakly correlated"),
    ] {
        let items: Vec<(u64, u64)> = (0..n)
            .map(|_| {
                let w = 1 + next(1000);
                let p = if what == "weakly correlated" {
                    (w + next(201)).saturating_sub(100).max(1)
                } else {
                    1 + next(1000)
                };
                (p, w)
            })
            .collect();
        let inst = Instance::new(5 * n, &items).unwrap();
        let what = format!("n {n}, {what}");
        let t = Instant::now();
        let sol = solve(&inst);
        eprintln!("{what}: solved in {:?}", t.elapsed());
        let opt = solve_dp(&inst).profit;
        check_solution(&inst, &sol, opt, &what);
    }
}

#[test]
fn real_valued_f5() {
    // README: optimum 481.0694 (real-valued data, rounded to 4 decimals).
    let name = "f5_l-d_kp_15_375";
    let p = testdata::path(&format!("knapsack/low-dimensional/{name}"));
    let o = testdata::path(&format!("knapsack/low-dimensional-optimum/{name}"));
    assert_eq!(std::fs::read_to_string(o).unwrap().trim(), "481.0694");
    let inst = read(&p).unwrap().pop().unwrap();
    assert_eq!(inst.decimals(), 6);
    assert_eq!(inst.capacity(), 375_000_000);
    let sol = solve(&inst);
    let (pr, w) = inst.evaluate(&sol.items);
    assert_eq!(pr, sol.profit);
    assert!(w <= inst.capacity());
    let value = sol.profit as f64 / 1e6;
    assert!((value - 481.0694).abs() < 5e-5, "f5: {value}");
}

#[test]
fn pisinger_optima() {
    for f in [
        "hardinstances_pisinger/knapPI_11_20_1000.csv",
        "smallcoeff_pisinger/knapPI_1_50_1000.csv",
        "smallcoeff_pisinger/knapPI_9_50_1000.csv",
        "largecoeff_pisinger/knapPI_1_50_100000.csv",
        "largecoeff_pisinger/knapPI_1_100_100000.csv",
    ] {
        let p = testdata::path(&format!("knapsack/pisinger/{f}"));
        let v = read(&p).unwrap();
        assert_eq!(v.len(), 100, "{f}");
        let t = Instant::now();
        for inst in &v {
            let z = inst.stated_optimum().unwrap();
            let what = format!("{f} {}", inst.name());
            check_stated_selection(inst, z, &what);
            check_solution(inst, &solve(inst), z, &what);
        }
        eprintln!("{f}: 100 instances solved in {:?}", t.elapsed());
    }
    // The README's noted data problem: the first name lacks its leading `k`.
    let p = testdata::path("knapsack/pisinger/hardinstances_pisinger/knapPI_11_20_1000.csv");
    let v = read(p).unwrap();
    assert_eq!(v[0].name(), "napPI_11_20_1000_1");
    assert_eq!(v[1].name(), "knapPI_11_20_1000_2");
}

#[test]
fn random_instances_match_dp() {
    let mut rng = XorShift64Star::from_state(0x9e37_79b9_7f4a_7c15);
    for case in 0..3000 {
        let n = (rng.next_u64() % 25) as usize;
        let maxw = 1 + rng.next_u64() % 60;
        let items: Vec<(u64, u64)> = (0..n)
            .map(|_| {
                let w = 1 + rng.next_u64() % maxw;
                // Some correlated, some equal-ratio items, some zero profits.
                let p = match case % 3 {
                    0 => rng.next_u64() % 100,
                    1 => w + rng.next_u64() % 10,
                    _ => 2 * w,
                };
                (p, w)
            })
            .collect();
        let total: u64 = items.iter().map(|x| x.1).sum();
        let cap = rng.next_u64() % (total + 2);
        let inst = Instance::new(cap, &items).unwrap();
        let dp = solve_dp(&inst);
        let bb = solve(&inst);
        let what = format!("case {case}: cap {cap} items {items:?}");
        check_solution(&inst, &bb, dp.profit, &what);
        check_solution(&inst, &dp, dp.profit, &what);
        // The bound of every node on the path to the optimum is at least the optimum.
        assert!(KnapNode::root(&inst).bound(&inst) >= dp.profit, "{what}");
        if n <= 12 {
            certificates_match_brute_force(&inst, &what);
        }
    }
}

/// `certificate(p)` finds a selection worth exactly `p` for every profit `p` some feasible
/// subset reaches (checked by enumerating all subsets), and `None` for every other `p` up to
/// one above the optimum.
fn certificates_match_brute_force(inst: &Instance, what: &str) {
    let n = inst.len();
    let mut reachable = std::collections::BTreeSet::new();
    for mask in 0u32..1 << n {
        let items: Vec<usize> = (0..n).filter(|&i| mask >> i & 1 == 1).collect();
        let (p, w) = inst.evaluate(&items);
        if w <= inst.capacity() {
            reachable.insert(p);
        }
    }
    let top = *reachable.last().expect("the empty set is feasible");
    for p in 0..=top + 1 {
        match inst.certificate(p) {
            Some(sol) => {
                assert!(
                    reachable.contains(&p),
                    "{what}: certificate for unreachable {p}"
                );
                assert_eq!(sol.profit, p, "{what}");
                let (sp, sw) = inst.evaluate(&sol.items);
                assert_eq!(sp, p, "{what}: certificate of {p} is worth {sp}");
                assert!(
                    sw <= inst.capacity(),
                    "{what}: certificate of {p} weighs {sw}"
                );
                assert!(sol.items.windows(2).all(|w| w[0] < w[1]), "{what}: sorted");
            }
            None => assert!(!reachable.contains(&p), "{what}: no certificate for {p}"),
        }
    }
}

#[test]
fn node_children_are_lazy_and_ordered() {
    // Heuristic order: item 1 (ratio 5) then item 0 (ratio 2).
    let inst = Instance::new(4, &[(6, 3), (10, 2)]).unwrap();
    assert_eq!(inst.order(), &[1, 0]);
    let root = KnapNode::root(&inst);
    let mut kids = root.children(&inst);
    let inc = kids.next().unwrap();
    assert_eq!((inc.next_item, inc.profit, inc.weight), (1, 10, 2));
    assert_eq!(inst.certificate(inc.profit).unwrap().items, vec![1]);
    // Including item 0 (weight 3) no longer fits: only the exclude child.
    let grand: Vec<KnapNode> = inc.children(&inst).collect();
    assert_eq!(grand.len(), 1);
    assert_eq!(grand[0].profit, 10);
    assert!(grand[0].is_leaf(&inst));
    assert_eq!(grand[0].children(&inst).count(), 0);
    let exc = kids.next().unwrap();
    assert_eq!((exc.profit, exc.weight), (0, 0));
    assert_eq!(exc.bound(&inst), 6);
    assert!(kids.next().is_none());
    assert_eq!(inst.upper_bound(), 10 + 4); // 10 + 2/3 of 6
}

#[test]
fn edge_cases() {
    let empty = Instance::new(10, &[]).unwrap();
    assert_eq!(
        solve(&empty),
        Solution {
            profit: 0,
            items: vec![]
        }
    );
    assert_eq!(solve_dp(&empty).profit, 0);
    let none_fit = Instance::new(3, &[(5, 4), (7, 9)]).unwrap();
    assert_eq!(solve(&none_fit).profit, 0);
    assert_eq!(none_fit.upper_bound(), 3); // 3/4 of 5, rounded down
    let zero_cap = Instance::new(0, &[(5, 1)]).unwrap();
    assert_eq!(solve(&zero_cap).profit, 0);
    assert_eq!(zero_cap.upper_bound(), 0);
}

fn plain_err(text: &str) -> String {
    parse_plain("bad.txt", text).unwrap_err().to_string()
}

fn pis_err(text: &str) -> String {
    parse_pisinger("bad.csv", text).unwrap_err().to_string()
}

#[test]
fn malformed_plain() {
    assert_eq!(plain_err(""), "bad.txt:1: empty file");
    assert_eq!(
        plain_err("3\n1 2\n"),
        "bad.txt:1: expected `n capacity`, found 1 fields"
    );
    assert_eq!(
        plain_err("x 5\n"),
        "bad.txt:1: item count `x` is not a non-negative integer"
    );
    assert_eq!(
        plain_err("1 -5\n1 1\n"),
        "bad.txt:1: capacity: negative number `-5`"
    );
    assert_eq!(
        plain_err("2 5\n1 2\n3\n"),
        "bad.txt:3: expected `profit weight`, found 1 fields"
    );
    assert_eq!(
        plain_err("2 5\n1 2\n3 abc\n"),
        "bad.txt:3: weight: `abc` is not a number"
    );
    assert_eq!(
        plain_err("2 5\n-1 2\n3 4\n"),
        "bad.txt:2: profit: negative number `-1`"
    );
    assert_eq!(
        plain_err("1 5\n1 0\n"),
        "bad.txt:2: weight must be positive"
    );
    assert_eq!(
        plain_err("3 5\n1 2\n\n3 4\n"),
        "bad.txt:4: file ends after 2 of 3 items"
    );
    assert_eq!(
        plain_err("2 5\n1 2\n3 4\n1 0 1\n"),
        "bad.txt:4: after the 2 items only a selection line of 2 0/1 entries may follow"
    );
    assert_eq!(
        plain_err("2 5\n1 2\n3 4\n1 0\n7\n"),
        "bad.txt:5: unexpected data after the selection line"
    );
    // Blank lines and a missing final newline are fine.
    let ok = parse_plain("ok", "\n2 5\n\n1 2\n3 4").unwrap();
    assert_eq!(ok.len(), 2);
    assert_eq!(ok.stated_selection(), None);
}

#[test]
fn malformed_pisinger() {
    let good = "a\nn 2\nc 5\nz 5\ntime 0.00\n1,3,4,0\n2,5,2,1\n-----\n";
    assert_eq!(parse_pisinger("ok.csv", good).unwrap().len(), 1);
    assert_eq!(pis_err(""), "bad.csv:1: no instances");
    assert_eq!(
        pis_err("a\nm 2\n"),
        "bad.csv:2: expected `n VALUE`, found `m 2`"
    );
    assert_eq!(
        pis_err("a\nn two\n"),
        "bad.csv:2: n: `two` is not a non-negative integer"
    );
    assert_eq!(
        pis_err("a\nn 2\nc -5\n"),
        "bad.csv:3: capacity: negative number `-5`"
    );
    assert_eq!(
        pis_err("a\nn 2\nc 5\n"),
        "bad.csv:3: file ends early: expected `z` line"
    );
    assert_eq!(
        pis_err("a\nn 2\nc 5\nz 5\ntime 0\n1,3,4,0\n"),
        "bad.csv:6: file ends early: expected 2 items, found 1"
    );
    assert_eq!(
        pis_err("a\nn 2\nc 5\nz 5\ntime 0\n1,3,4,0\n-----\n"),
        "bad.csv:7: expected `index,profit,weight,x`, found 1 fields (file ends after 1 of 2 items?)"
    );
    assert_eq!(
        pis_err("a\nn 2\nc 5\nz 5\ntime 0\n1,3,4,0\n3,5,2,1\n-----\n"),
        "bad.csv:7: item index 3 should be 2"
    );
    assert_eq!(
        pis_err("a\nn 2\nc 5\nz 5\ntime 0\n1,3,0,0\n2,5,2,1\n-----\n"),
        "bad.csv:6: weight must be positive"
    );
    assert_eq!(
        pis_err("a\nn 2\nc 5\nz 5\ntime 0\n1,3,4,0\n2,x,2,1\n-----\n"),
        "bad.csv:7: profit: `x` is not a non-negative integer"
    );
    assert_eq!(
        pis_err("a\nn 2\nc 5\nz 5\ntime 0\n1,3,4,2\n2,5,2,1\n-----\n"),
        "bad.csv:6: x must be 0 or 1, found `2`"
    );
    assert_eq!(
        pis_err("a\nn 2\nc 5\nz 5\ntime 0\n1,3,4,0\n2,5,2,1\n"),
        "bad.csv:7: file ends early: expected `-----`"
    );
    assert_eq!(
        pis_err("a\nn 1\nc 5\nz 5\ntime 0\n1,3,4,0\n2,5,2,1\n"),
        "bad.csv:7: expected `-----` after 1 items, found `2,5,2,1`"
    );
}

#[test]
fn read_reports_missing_file() {
    let e = read("/nonexistent/knap.txt").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("/nonexistent/knap.txt: cannot read"),
        "{e}"
    );
}
