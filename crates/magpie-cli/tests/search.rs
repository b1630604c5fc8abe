//! Runs the built `magpie search` binary: known answers for every application and skeleton,
//! the JSON report, the text report, and the errors (exit 2, one line, no panic).
//!
//! Parallel runs use `--deque chase-lev` (or lcws-signal): under the default lcws-user deque
//! a worker exposes tasks only when it uses its deque, which the engine's depth-first loops
//! never do, so stack-stealing and ordered (whose tasks are all spawned up front) would run
//! on one worker and leave the parallel paths untested.

use std::process::Output;

use magpie_apps::{knapsack, maxclique, testdata, tsp};
use serde_json::Value;

/// Every skeleton, with its options, as command-line arguments.
const SKELETONS: &[&[&str]] = &[
    &["--skeleton", "seq"],
    &["--skeleton", "depth-bounded"],
    &["--skeleton", "depth-bounded", "--spawn-depth", "4"],
    &["--skeleton", "budget", "--budget", "1"],
    &["--skeleton", "budget"],
    &["--skeleton", "stack-stealing"],
    &["--skeleton", "stack-stealing", "--steal-all"],
    &["--skeleton", "ordered"],
    &[
        "--skeleton",
        "ordered",
        "--order",
        "discrepancy",
        "--spawn-depth",
        "3",
    ],
    &[], // the default
];

mod common;
use common::text;

/// The binary with a clean environment (no inherited `MAGPIE_*` variable).
fn magpie(args: &[&str]) -> Output {
    common::magpie(args, &[])
}

/// `magpie search ARGS --json --workers 2` (plus `extra`; the seq skeleton, which runs on
/// one worker, without `--workers`): exit 0, exactly one JSON object on stdout, nothing on
/// stderr; returns the object after checking the fields every report has.
fn search_json(args: &[&str], extra: &[&str]) -> Value {
    let mut all = vec!["search"];
    all.extend_from_slice(args);
    all.extend_from_slice(extra);
    let seq = all
        .windows(2)
        .any(|w| w[0] == "--skeleton" && ["seq", "sequential"].contains(&w[1]));
    let workers = if seq { 1 } else { 2 };
    all.push("--json");
    if !seq {
        all.extend_from_slice(&["--workers", "2"]);
    }
    let v = common::one_json_line(&format!("{all:?}"), &magpie(&all));
    assert_eq!(v["workers"], workers, "{v}");
    let stats = &v["stats"];
    let per_worker: Vec<u64> = stats["per_worker"]
        .as_array()
        .expect("per_worker array")
        .iter()
        .map(|x| x.as_u64().expect("count"))
        .collect();
    assert_eq!(per_worker.len(), workers, "{v}");
    assert_eq!(
        per_worker.iter().sum::<u64>(),
        v["expanded"].as_u64().unwrap()
    );
    assert_eq!(stats["expanded"], v["expanded"]);
    assert_eq!(stats["seconds"], v["seconds"]);
    for key in ["pruned", "backtracks", "tasks", "steals"] {
        assert!(stats[key].is_u64(), "stats.{key}: {v}");
    }
    assert!(v["seconds"].as_f64().is_some_and(|s| s >= 0.0), "{v}");
    assert!(v["check"].as_str().is_some_and(|s| !s.is_empty()), "{v}");
    v
}

fn ids(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_u64().expect("an id") as usize)
        .collect()
}

/// Exits 2 with one line `magpie: error: …` on stderr containing every needle, nothing on
/// stdout and no panic.
fn assert_usage_error(args: &[&str], needles: &[&str]) {
    common::assert_one_line_error(&format!("{args:?}"), &magpie(args), needles);
}

// ---------------------------------------------------------------------------------------
// Enumeration

#[test]
fn nqueens_8_has_92_solutions_with_every_skeleton() {
    for sk in SKELETONS {
        let v = search_json(&["nqueens", "--n", "8", "--deque", "chase-lev"], sk);
        assert_eq!(v["app"], "nqueens");
        assert_eq!(v["n"], 8);
        assert_eq!(v["solutions"], 92, "{sk:?}: {v}");
        // 1 + 8 + 42 + 140 + 344 + 568 + 550 + 312 + 92 placements.
        assert_eq!(v["expanded"], 2057, "{sk:?}: {v}");
        assert_eq!(v["deque"], "chase-lev");
    }
}

#[test]
fn nqueens_reports_the_skeleton_and_its_parameters() {
    let v = search_json(&["nqueens", "--n", "6"], &[]);
    assert_eq!(v["solutions"], 4);
    assert_eq!(v["skeleton"], "depth-bounded");
    assert_eq!(v["skeleton_params"], serde_json::json!({"spawn_depth": 2}));
    let v = search_json(
        &["nqueens", "--n", "6", "--skeleton", "stack-stealing"],
        &[],
    );
    assert_eq!(
        v["skeleton_params"],
        serde_json::json!({"steal_all": false})
    );
    assert_eq!(v["deque"], "lcws-user");
    assert_eq!(v["instance"], "6x6 board");
    let v = search_json(
        &common::words("nqueens --n 6 --skeleton budget --budget 7"),
        &[],
    );
    assert_eq!(v["skeleton"], "budget");
    assert_eq!(v["skeleton_params"], serde_json::json!({"budget": 7}));
    let v = search_json(
        &common::words("nqueens --n 6 --skeleton ordered --order discrepancy"),
        &[],
    );
    assert_eq!(
        v["skeleton_params"],
        serde_json::json!({"spawn_depth": 2, "order": "discrepancy"})
    );
    let v = search_json(&["nqueens", "--n", "6", "--skeleton", "sequential"], &[]);
    assert_eq!(v["skeleton"], "seq");
    assert_eq!(v["skeleton_params"], serde_json::json!({}));
    assert_eq!(v["stats"]["tasks"], 0);
}

#[test]
fn nqueens_max_depth_truncates_the_tree() {
    // Depths 0..=3 only: 1 + 8 + 42 + 140 nodes and no complete board.
    let v = search_json(&["nqueens", "--n", "8", "--max-depth", "3"], &[]);
    assert_eq!(v["solutions"], 0);
    assert_eq!(v["expanded"], 191);
    assert_eq!(v["max_depth"], 3);
}

#[test]
fn ns_genus_10_counts_with_every_skeleton() {
    let want = [1, 1, 2, 4, 7, 12, 23, 39, 67, 118, 204];
    for sk in SKELETONS {
        let v = search_json(&["ns", "--genus", "10", "--deque", "lcws-signal"], sk);
        assert_eq!(v["app"], "ns");
        assert_eq!(v["genus"], 10);
        assert_eq!(v["counts"], serde_json::json!(want), "{sk:?}: {v}");
        assert_eq!(v["expanded"], want.iter().sum::<u64>(), "{sk:?}");
    }
}

#[test]
fn ns_genus_30_ends_with_5646773() {
    let v = search_json(&["ns", "--genus", "30", "--deque", "chase-lev"], &[]);
    let counts = v["counts"].as_array().unwrap();
    assert_eq!(counts.len(), 31);
    assert_eq!(counts[30], 5_646_773);
    assert_eq!(v["expanded"], 14_396_338); // every semigroup of genus <= 30
}

#[test]
fn uts_flag_trees_match_the_spec_with_every_skeleton() {
    // Self-computed oracles of the UTS spec (section 8): nodes / depth / leaves.
    let trees = [
        ("-t 1 -a 1 -d 10 -b 4 -r 19", 11_260, 26, 5_712), // EXPDEC
        ("-t 2 -a 0 -d 6 -b 4 -r 0", 2_274, 34, 1_720),    // HYBRID
        ("-t 1 -a 3 -d 2 -b 60 -r 0", 5_225, 2, 5_126),    // the 100-child cap
    ];
    for (flags, nodes, depth, leaves) in trees {
        for sk in SKELETONS {
            let v = search_json(&["uts", "--flags", flags, "--deque", "chase-lev"], sk);
            assert_eq!(v["app"], "uts");
            assert_eq!(v["instance"], flags);
            assert_eq!(
                (&v["nodes"], &v["depth"], &v["leaves"]),
                (
                    &Value::from(nodes),
                    &Value::from(depth),
                    &Value::from(leaves)
                ),
                "{flags} {sk:?}"
            );
            assert_eq!(v["expanded"], nodes);
        }
    }
}

#[test]
fn uts_named_trees() {
    let v = search_json(&["uts", "--tree", "T1", "--deque", "chase-lev"], &[]);
    assert_eq!(v["instance"], "T1");
    assert_eq!(v["flags"], "-t 1 -a 3 -d 10 -b 4 -r 19");
    assert_eq!(v["nodes"], 4_130_071);
    assert_eq!(v["leaves"], 3_305_118);
    assert_eq!(v["depth"], 10);
    // Names are case-insensitive; the default tree of the reference.
    let v = search_json(&["uts", "--tree", "DEFAULT", "--skeleton", "seq"], &[]);
    assert_eq!(v["instance"], "default");
    assert_eq!((&v["nodes"], &v["leaves"]), (&1_732.into(), &1_050.into()));
}

// ---------------------------------------------------------------------------------------
// Optimisation and decision

/// The clique of a report: the right size and a clique of the graph.
fn assert_clique(graph: &maxclique::Graph, v: &Value, size: usize) {
    let clique = ids(&v["clique"]);
    assert_eq!(clique.len(), size, "{v}");
    assert!(clique.windows(2).all(|w| w[0] < w[1]), "ascending: {v}");
    assert!(maxclique::is_clique(graph, &clique), "not a clique: {v}");
}

#[test]
fn maxclique_omega_with_every_skeleton() {
    for (file, omega) in [("johnson8-2-4.clq", 4), ("brock200_2.clq", 12)] {
        let path = testdata::path(&format!("dimacs/{file}"));
        let graph = maxclique::read_dimacs(&path).unwrap();
        let p = path.to_str().unwrap();
        for sk in SKELETONS {
            let v = search_json(&["maxclique", p, "--deque", "chase-lev"], sk);
            assert_eq!(v["app"], "maxclique");
            assert_eq!(v["instance"], p);
            assert_eq!(v["omega"], omega, "{file} {sk:?}: {v}");
            assert_eq!(v["vertices"], graph.n());
            assert_clique(&graph, &v, omega);
        }
    }
}

/// `--replicable W`: the ordered optimisation expands, prunes and reports the same on 1 and 2
/// workers, run after run, and the report names the window.
#[test]
fn replicable_ordered_optimisation_reports_the_same_counts_on_any_worker_count() {
    let clq = testdata::path("dimacs/brock200_4.clq");
    let knap = testdata::path("knapsack/large_scale/knapPI_3_200_1000_1");
    let tsp = testdata::path("tsplib/burma14.tsp");
    let fixed = |v: &Value, answer: &str| {
        let stats = &v["stats"];
        (
            v[answer].clone(),
            v["expanded"].clone(),
            stats["pruned"].clone(),
            stats["backtracks"].clone(),
            stats["tasks"].clone(),
        )
    };
    for (args, answer, value) in [
        (vec!["maxclique", clq.to_str().unwrap()], "clique", 17),
        (vec!["knapsack", knap.to_str().unwrap()], "items", 2_697),
        (vec!["tsp", tsp.to_str().unwrap()], "tour", 3_323),
    ] {
        let mut all = args.clone();
        all.extend_from_slice(&["--skeleton", "ordered", "--spawn-depth", "3"]);
        all.extend_from_slice(&["--replicable", "3", "--json"]);
        let run = |workers: &str| {
            let mut a = vec!["search"];
            a.extend_from_slice(&all);
            a.extend_from_slice(&["--workers", workers]);
            let out = magpie(&a);
            assert!(out.status.success(), "{a:?}: {}", text(&out.stderr));
            let v: Value = serde_json::from_str(&text(&out.stdout)).expect("one JSON object");
            assert_eq!(v["skeleton_params"]["replicable_window"], 3, "{v}");
            let size = match answer {
                "clique" => v["omega"].clone(),
                "items" => v["profit"].clone(),
                _ => v["length"].clone(),
            };
            assert_eq!(size, value, "{a:?}: {v}");
            fixed(&v, answer)
        };
        let one = run("1");
        for _ in 0..3 {
            assert_eq!(run("2"), one, "{args:?}");
        }
    }
}

#[test]
fn maxclique_decision() {
    let path = testdata::path("dimacs/brock200_2.clq");
    let graph = maxclique::read_dimacs(&path).unwrap();
    let p = path.to_str().unwrap();
    for sk in SKELETONS {
        let v = search_json(
            &["maxclique", p, "--target", "12", "--deque", "chase-lev"],
            sk,
        );
        assert_eq!(v["target"], 12);
        assert_eq!(v["found"], true, "{sk:?}: {v}");
        assert!(v.get("omega").is_none(), "{v}");
        assert_clique(&graph, &v, 12);

        let v = search_json(
            &["maxclique", p, "--target", "13", "--deque", "chase-lev"],
            sk,
        );
        assert_eq!(v["target"], 13);
        assert_eq!(v["found"], false, "{sk:?}: {v}");
        assert!(v["clique"].is_null(), "{v}");
    }
}

/// The items of a report weigh at most the capacity and are worth the reported profit.
fn assert_selection(inst: &knapsack::Instance, v: &Value, profit: u64) {
    let items = ids(&v["items"]);
    assert!(items.windows(2).all(|w| w[0] < w[1]), "ascending: {v}");
    let (p, w) = inst.evaluate(&items);
    assert_eq!(p, profit, "{v}");
    assert!(w <= inst.capacity(), "{v}");
    assert_eq!(v["weight"], w);
    assert_eq!(v["profit"], profit);
}

#[test]
fn knapsack_low_dimensional_with_every_skeleton() {
    let path = testdata::path("knapsack/low-dimensional/f1_l-d_kp_10_269");
    let inst = &knapsack::read(&path).unwrap()[0];
    for sk in SKELETONS {
        let v = search_json(
            &["knapsack", path.to_str().unwrap(), "--deque", "chase-lev"],
            sk,
        );
        assert_eq!(v["app"], "knapsack");
        assert_eq!(v["decimals"], 0);
        assert_eq!(v["capacity"], 269);
        assert_selection(inst, &v, 295);
    }
}

#[test]
fn knapsack_pisinger_instances_by_default_name_and_number() {
    let path = testdata::path("knapsack/pisinger/smallcoeff_pisinger/knapPI_1_50_1000.csv");
    let all = knapsack::read(&path).unwrap();
    let p = path.to_str().unwrap();

    let v = search_json(&["knapsack", p], &[]);
    assert_eq!(v["instance_name"], "knapPI_1_50_1000_1");
    assert_eq!(v["instance_number"], 1);
    assert_selection(&all[0], &v, 8373);

    let by_name = search_json(&["knapsack", p, "--instance", "knapPI_1_50_1000_7"], &[]);
    let by_number = search_json(&["knapsack", p, "--instance", "7"], &[]);
    for v in [&by_name, &by_number] {
        assert_eq!(v["instance_name"], "knapPI_1_50_1000_7");
        assert_eq!(v["instance_number"], 7);
        assert_selection(&all[6], v, 6033);
    }
}

#[test]
fn knapsack_decimal_profits_print_scaled_back() {
    let path = testdata::path("knapsack/low-dimensional/f5_l-d_kp_15_375");
    let inst = &knapsack::read(&path).unwrap()[0];
    let p = path.to_str().unwrap();
    let v = search_json(&["knapsack", p], &[]);
    assert_eq!(v["decimals"], 6);
    assert_selection(inst, &v, 481_069_368); // 481.0694 rounded in the optimum file

    let out = magpie(&["search", "knapsack", p]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(stdout.contains("maximum profit 481.069368 "), "{stdout}");
}

#[test]
fn tsp_shortest_tours_with_every_skeleton() {
    // burma14: the start tour is already optimal; ulysses16 and bayg29: the search improves it.
    for (file, length, start_optimal) in [
        ("burma14.tsp", 3323, true),
        ("ulysses16.tsp", 6859, false),
        ("bayg29.tsp", 1610, false),
    ] {
        let path = testdata::path(&format!("tsplib/{file}"));
        let inst = tsp::read(&path).unwrap();
        for sk in SKELETONS {
            let v = search_json(&["tsp", path.to_str().unwrap(), "--deque", "chase-lev"], sk);
            assert_eq!(v["app"], "tsp");
            assert_eq!(v["length"], length, "{file} {sk:?}: {v}");
            assert_eq!(v["heuristic_optimal"], start_optimal, "{file}: {v}");
            let tour = ids(&v["tour"]);
            assert_eq!(tour[0], 1);
            let mut sorted = tour.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (1..=inst.len()).collect::<Vec<_>>(), "{v}");
            assert_eq!(tsp::tour_length(&inst, &tour), length);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Text output

#[test]
fn text_report_has_the_answer_and_with_stats_the_counters() {
    let path = testdata::path("dimacs/johnson8-2-4.clq");
    let p = path.to_str().unwrap();
    let args = [
        "search",
        "maxclique",
        p,
        "--workers",
        "2",
        "--skeleton",
        "depth-bounded",
    ];
    let out = magpie(&args);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let value = |key: &str| -> Option<String> {
        stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(key))
            .map(|l| l[key.len()..].trim().to_string())
    };
    assert_eq!(value("app").as_deref(), Some("maxclique"));
    assert_eq!(
        value("instance"),
        Some(format!("{p} (28 vertices, 210 edges)"))
    );
    assert_eq!(value("answer").as_deref(), Some("maximum clique size 4"));
    assert_eq!(value("clique").map(|c| c.split(' ').count()), Some(4));
    assert_eq!(
        value("skeleton").as_deref(),
        Some("depth-bounded (spawn depth 2)")
    );
    assert_eq!(value("workers").as_deref(), Some("2 (deque lcws-user)"));
    assert!(value("check").is_some_and(|c| c.starts_with("ok: ")));
    assert!(value("seconds").is_some_and(|s| s.parse::<f64>().is_ok()));
    assert!(value("expanded").is_some_and(|s| s.parse::<u64>().unwrap() > 0));
    assert_eq!(
        value("pruned"),
        None,
        "counters only with --stats:\n{stdout}"
    );

    let mut with_stats = args.to_vec();
    with_stats.push("--stats");
    let out = magpie(&with_stats);
    let stdout = text(&out.stdout);
    assert!(out.status.success());
    for key in ["pruned", "backtracks", "tasks", "steals"] {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(key))
            .unwrap_or_else(|| panic!("no {key} line:\n{stdout}"));
        assert!(line[key.len()..].trim().parse::<u64>().is_ok(), "{line}");
    }
    let per_worker = stdout
        .lines()
        .find(|l| l.starts_with("per worker"))
        .expect("per worker line");
    assert_eq!(
        per_worker["per worker".len()..].split_whitespace().count(),
        2
    );
}

// ---------------------------------------------------------------------------------------
// Errors

#[test]
fn missing_file_is_an_error_naming_it() {
    assert_usage_error(
        &["search", "maxclique", "/no/such/graph.clq"],
        &["/no/such/graph.clq", "cannot read"],
    );
    assert_usage_error(&["search", "tsp", "/no/such.tsp"], &["/no/such.tsp"]);
    assert_usage_error(&["search", "knapsack"], &["knapsack needs an input file"]);
}

#[test]
fn malformed_dimacs_names_the_file_and_line() {
    let path = std::env::temp_dir().join(format!("magpie-search-bad-{}.clq", std::process::id()));
    std::fs::write(
        &path,
        "c a triangle, then a bad edge\np edge 3 3\ne 1 2\ne 2 3\ne 3 4\n",
    )
    .unwrap();
    let p = path.to_str().unwrap().to_string();
    let out_needle = format!("{p}:5: vertex 4 out of range 1..=3");
    assert_usage_error(&["search", "maxclique", &p], &[&out_needle]);
    std::fs::remove_file(&path).ok();
}

#[test]
fn unknown_names_list_the_accepted_ones() {
    assert_usage_error(
        &["search", "sudoku"],
        &[
            "\"sudoku\"",
            "maxclique",
            "knapsack",
            "tsp",
            "uts",
            "ns",
            "nqueens",
        ],
    );
    assert_usage_error(
        &["search", "nqueens", "--n", "8", "--skeleton", "fast"],
        &[
            "--skeleton",
            "\"fast\"",
            "seq",
            "depth-bounded",
            "budget",
            "stack-stealing",
            "ordered",
        ],
    );
    assert_usage_error(
        &common::words("search nqueens --n 8 --skeleton ordered --order random"),
        &["\"random\"", "sequential", "discrepancy"],
    );
    assert_usage_error(&["search", "uts", "--tree", "T9"], &["\"T9\"", "T1"]);
    assert_usage_error(
        &[
            "search",
            "knapsack",
            testdata::path("knapsack/pisinger/smallcoeff_pisinger/knapPI_1_50_1000.csv")
                .to_str()
                .unwrap(),
            "--instance",
            "101",
        ],
        &["\"101\"", "1..=100"],
    );
}

#[test]
fn out_of_range_parameters() {
    assert_usage_error(
        &["search", "ns", "--genus", "65"],
        &["--genus", "65", "0..=64"],
    );
    assert_usage_error(&["search", "ns", "--genus", "-1"], &["--genus", "\"-1\""]);
    assert_usage_error(&["search", "nqueens", "--n", "0"], &["--n", "0", "1..=32"]);
    assert_usage_error(&["search", "nqueens", "--n", "33"], &["--n", "33"]);
    assert_usage_error(
        &common::words("search nqueens --n 8 --skeleton budget --budget 0"),
        &["--budget 0", "at least 1"],
    );
    assert_usage_error(
        &common::words("search nqueens --n 8 --skeleton depth-bounded --spawn-depth two"),
        &["--spawn-depth", "\"two\""],
    );
    assert_usage_error(&["search", "uts", "--flags", "-t 9"], &["-t", "9"]);
}

#[test]
fn bad_pool_configuration_uses_the_config_error() {
    assert_usage_error(
        &["search", "nqueens", "--n", "8", "--workers", "0"],
        &["--workers 0", "at least 1 worker"],
    );
    assert_usage_error(
        &["search", "nqueens", "--n", "8", "--deque", "abp"],
        &["--deque", "\"abp\"", "chase-lev"],
    );
}

#[test]
fn options_that_do_not_apply_are_rejected() {
    let graph = testdata::path("dimacs/johnson8-2-4.clq");
    let g = graph.to_str().unwrap();
    let tsp = testdata::path("tsplib/burma14.tsp");
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["uts", "--tree", "T1", "--target", "3"],
            &["--target", "maxclique", "uts"],
        ),
        (&["nqueens", "--n", "8", "--genus", "3"], &["--genus", "ns"]),
        (&["ns", "30"], &["ns takes no input file", "--genus"]),
        (
            &["maxclique", g, "--instance", "2"],
            &["--instance", "knapsack"],
        ),
        (
            &["maxclique", g, "--max-depth", "2"],
            &["--max-depth", "maxclique"],
        ),
        (
            &["tsp", tsp.to_str().unwrap(), "--max-depth", "3"],
            &["--max-depth", "tsp"],
        ),
        (
            &["nqueens", "--n", "8", "--budget", "5"],
            &["--budget", "depth-bounded, the default"],
        ),
        (
            &["nqueens", "--n", "8", "--skeleton", "seq", "--budget", "5"],
            &["--budget", "seq"],
        ),
        (
            &["nqueens", "--n", "8", "--skeleton", "seq", "--steal-all"],
            &["--steal-all"],
        ),
        (
            &common::words("nqueens --n 8 --skeleton budget --spawn-depth 2"),
            &["--spawn-depth"],
        ),
        (
            &["nqueens", "--n", "8", "--order", "discrepancy"],
            &["--order", "ordered"],
        ),
        (
            &common::words("nqueens --n 8 --skeleton ordered --replicable 2"),
            &["--replicable", "maxclique, knapsack, tsp", "nqueens"],
        ),
        (
            &["maxclique", g, "--replicable", "2"],
            &["--replicable", "ordered", "depth-bounded, the default"],
        ),
        (
            &["maxclique", g, "--skeleton", "ordered", "--replicable", "0"],
            &["--replicable 0", "at least 1"],
        ),
        (
            &[
                "maxclique",
                g,
                "--skeleton",
                "ordered",
                "--replicable",
                "2",
                "--target",
                "3",
            ],
            &["--replicable", "optimisation", "--target"],
        ),
        (&["uts"], &["--tree", "--flags"]),
        (&["uts", "--tree", "T1", "--flags", "-t 1"], &["not both"]),
        (&["ns"], &["--genus"]),
        (&["nqueens"], &["--n"]),
    ];
    for (args, needles) in cases {
        let mut all = vec!["search"];
        all.extend_from_slice(args);
        assert_usage_error(&all, needles);
    }
}

/// The pool's counters of a search, in the JSON (`counters`): one entry per worker, a total
/// that is their sum, and every task pushed taken exactly once, by its owner or by a thief
/// (pushes = private pops + public pops + steals once the search is over), on every deque;
/// the steals are the engine's own count (`stats.steals`).
#[test]
fn the_json_has_the_pools_counters_and_every_pushed_task_is_taken_once() {
    for deque in [
        "chase-lev",
        "lcws-user",
        "lcws-signal",
        "lcws-conservative",
        "lcws-half",
    ] {
        let out = magpie(&[
            "search",
            "nqueens",
            "--n",
            "9",
            "--workers",
            "2",
            "--deque",
            deque,
            "--json",
        ]);
        assert!(out.status.success(), "{deque}: {}", text(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let total = common::assert_counters(deque, &v, 2);
        let n = |k: &str| total[k].as_u64().unwrap();
        for k in [
            "exposure_requests",
            "signals_sent",
            "tasks_exposed",
            "exposed_taken_back",
            "fences",
            "cas",
        ] {
            assert!(total.contains_key(k), "{deque}: no {k}");
        }
        assert_eq!(
            v["stats"]["steals"].as_u64(),
            Some(n("steals")),
            "{deque}: {v}"
        );
    }
}

/// The application table of `docs/search.md` describes the registry: a row per application
/// and an application per row, each row naming exactly its application's own options.
#[test]
fn the_docs_application_table_matches_the_registry() {
    use magpie_apps::registry::SEARCH_APPS;
    use std::collections::BTreeSet;

    let docs = include_str!("../../../docs/search.md");
    let header = "| app | kind | search space | input |";
    let table = docs
        .split_once(header)
        .expect("docs/search.md has the application table")
        .1;
    let rows: Vec<&str> = table
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with("| `"))
        .collect();
    let flags_of = |row: &str| -> BTreeSet<String> {
        let mut flags = BTreeSet::new();
        let mut rest = row;
        while let Some(at) = rest.find("--") {
            rest = &rest[at + 2..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '-')
                .collect();
            if !name.is_empty() {
                flags.insert(format!("--{name}"));
            }
        }
        flags
    };
    let mut named = Vec::new();
    for row in &rows {
        let name = row[3..].split('`').next().unwrap_or_default();
        let app = magpie_apps::registry::find(name)
            .unwrap_or_else(|| panic!("docs/search.md: {name:?} is not an application"));
        let own: BTreeSet<String> = app.options.iter().map(|o| o.flag.to_string()).collect();
        assert_eq!(flags_of(row), own, "docs/search.md, the row of {name}");
        named.push(name);
    }
    let names: Vec<&str> = SEARCH_APPS.iter().map(|a| a.name).collect();
    assert_eq!(
        named, names,
        "docs/search.md: one row per application, in order"
    );
}
