//! Runs the built `magpie experiment` on tiny matrices of applications: schedules as
//! configurations, applications without a schedule, loop applications, peers without an
//! application, the time limit, and the Pheet thesis' applications (lu, quicksort,
//! prefix-sum, bipartition, SSSP). Timings themselves are never asserted; the reports'
//! structure is checked in `experiment.rs`.

use serde_json::Value;

mod common;
use common::experiment::{assert_usage_error, close, csv_line, f, policies, policies_json, u};
use common::{magpie, text};

#[test]
fn schedules_are_configurations_compared_with_each_other() {
    let v = policies_json(
        &common::words("--app mandelbrot --width 30 --height 20 --max-iter 50 --steps 2 --app dist --dist gamma --iterations 500 --mean-units 10 --seed 3 --schedule ss,4,rws,fac2 --workers 2 --runs 2"),
        &[],
    );
    let mandelbrot = "mandelbrot --width 30 --height 20 --max-iter 50 --steps 2";
    let dist = "dist --dist gamma --iterations 500 --mean-units 10 --seed 3";
    // The applications are the two loops; the schedules are configurations.
    assert_eq!(v["apps"], serde_json::json!([mandelbrot, dist]));
    assert_eq!(v["schedules"], serde_json::json!(["ss,4", "rws,fac2"]));
    let rows = v["rows"].as_array().expect("rows");
    let got: Vec<(&str, &str, bool, bool)> = rows
        .iter()
        .map(|r| {
            (
                r["app"].as_str().unwrap(),
                r["schedule"].as_str().unwrap(),
                r["baseline"].as_bool().unwrap(),
                r["welch"].is_object(),
            )
        })
        .collect();
    // App by app, each under every schedule; the first schedule is the baseline of Welch's
    // test, and the second is tested against it.
    assert_eq!(
        got,
        [
            (mandelbrot, "ss,4", true, false),
            (mandelbrot, "rws,fac2", false, true),
            (dist, "ss,4", true, false),
            (dist, "rws,fac2", false, true),
        ]
    );
    // `relative` compares the schedules of one application: each pair averages to 1.
    for pair in rows.chunks(2) {
        let mean = (f(&pair[0]["relative"]) + f(&pair[1]["relative"])) / 2.0;
        assert!((mean - 1.0).abs() < 1e-9, "{pair:?}");
        let (rel, means) = (
            f(&pair[0]["relative"]) / f(&pair[1]["relative"]),
            f(&pair[0]["mean"]) / f(&pair[1]["mean"]),
        );
        // The same ratio, up to the rounding of two divisions.
        assert!((rel - means).abs() <= 1e-12 * means, "{rel} vs {means}");
    }
    // The aggregated result: one entry per schedule, averaging to 1.
    let agg = v["aggregated"].as_array().expect("aggregated");
    let schedules: Vec<&str> = agg
        .iter()
        .map(|a| a["schedule"].as_str().unwrap())
        .collect();
    assert_eq!(schedules, ["ss,4", "rws,fac2"]);
    let mean = agg.iter().map(|a| f(&a["aggregated"])).sum::<f64>() / 2.0;
    assert!((mean - 1.0).abs() < 1e-9, "{agg:?}");
    let p = magpie_apps::mandelbrot::Params::new(30, 20, 50, 2).unwrap();
    let m = magpie_apps::mandelbrot::run_seq(&p);
    let costs = magpie_apps::dist::costs(&"gamma".parse().unwrap(), 500, 10, 3);
    let sum = magpie_apps::dist::run_seq(&costs, magpie_apps::dist::DEFAULT_STEPS);
    for r in rows {
        assert_eq!(r["workers"], 2);
        assert_eq!(r["solves"], 2);
        let l = &r["loop_stats"];
        assert!(u(&l["chunks"]) >= 1, "{r}");
        assert!(l["steals"].as_u64().is_some(), "{r}");
        assert!(f(&l["cov"]) >= 0.0, "{r}");
        let answer = r["answer"].as_str().unwrap();
        if r["app_name"] == "mandelbrot" {
            assert_eq!(
                answer,
                format!("iterations {}, checksum {:#018x}", m.iterations, m.checksum)
            );
        } else {
            assert_eq!(answer, format!("sum {sum:#018x}"));
        }
    }
    // Without --schedule, a loop application runs with its own (auto) and the report has
    // no schedule axis.
    let v = policies_json(
        &["--app", "dist", "--iterations", "200", "--runs", "1"],
        &[],
    );
    assert_eq!(v["schedules"], serde_json::json!([]));
    assert_eq!(v["rows"][0]["schedule"], "auto");
    assert!(v["aggregated"][0].get("schedule").is_none());
    // Search and kernel rows have neither.
    let v = policies_json(&["--app", "fib", "--n", "10", "--runs", "1"], &[]);
    assert!(v["rows"][0].get("schedule").is_none());
    assert!(v["rows"][0].get("loop_stats").is_none());
}

/// An application that takes no schedule (uts) runs once per configuration of the other
/// settings, not once per schedule; a loop application (mandelbrot) under every schedule.
/// Counted from the rows' solves (each is one child process), never from timings.
#[test]
fn an_app_without_a_schedule_runs_once_per_other_configuration() {
    let uts = "uts --flags \"-t 1 -a 0 -d 6 -b 4 -r 0\"";
    let mandelbrot = "mandelbrot --width 30 --height 20 --max-iter 50 --steps 2";
    let mut args = vec![
        "--app",
        "uts",
        "--flags",
        "-t 1 -a 0 -d 6 -b 4 -r 0",
        "--app",
    ];
    args.extend(mandelbrot.split(' '));
    args.extend([
        "--schedule",
        "static,gss",
        "--workers",
        "1",
        "--idle",
        "park,yield",
        "--runs",
        "2",
    ]);
    let v = policies_json(&args, &[]);
    assert_eq!(v["schedules"], serde_json::json!(["static", "gss"]));
    assert_eq!(v["schedule_apps"], serde_json::json!([mandelbrot]));
    let rows = v["rows"].as_array().expect("rows");
    let got: Vec<(&str, &str, Option<&str>, bool)> = rows
        .iter()
        .map(|r| {
            (
                r["app"].as_str().unwrap(),
                r["idle"].as_str().unwrap(),
                r.get("schedule").map(|s| s.as_str().unwrap()),
                r["baseline"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (uts, "park", None, true),
            (uts, "yield", None, false),
            (mandelbrot, "park", Some("static"), true),
            (mandelbrot, "park", Some("gss"), false),
            (mandelbrot, "yield", Some("static"), false),
            (mandelbrot, "yield", Some("gss"), false),
        ]
    );
    // 2 runs of each row, one process each: uts 2 configurations × 2 runs, mandelbrot
    // 2 configurations × 2 schedules × 2 runs.
    for r in rows {
        assert_eq!((u(&r["runs"]), u(&r["solves"])), (2, 2), "{r}");
    }
    let solves = |app: &str| -> u64 {
        rows.iter()
            .filter(|r| r["app"] == app)
            .map(|r| u(&r["solves"]))
            .sum()
    };
    assert_eq!((solves(uts), solves(mandelbrot)), (4, 8));
    // uts' relative times compare its two rows, mandelbrot's its four.
    let rel = |i: usize| f(&rows[i]["relative"]);
    assert!(close(rel(0) + rel(1), 2.0), "{v}");
    assert!(close(rel(2) + rel(3) + rel(4) + rel(5), 4.0), "{v}");
    // The aggregated result per configuration: uts counts with its row of the same idle
    // policy under both schedules; they still average to 1.
    let agg = v["aggregated"].as_array().expect("aggregated");
    let got: Vec<(&str, &str)> = agg
        .iter()
        .map(|a| (a["idle"].as_str().unwrap(), a["schedule"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            ("park", "static"),
            ("park", "gss"),
            ("yield", "static"),
            ("yield", "gss")
        ]
    );
    for (k, a) in agg.iter().enumerate() {
        let want = (rel(k / 2) + rel(2 + k)) / 2.0;
        assert!(close(f(&a["aggregated"]), want), "{k}: {v}");
    }
    let mean = agg.iter().map(|a| f(&a["aggregated"])).sum::<f64>() / 4.0;
    assert!(close(mean, 1.0), "{v}");
    // A uts row's own aggregated value is the mean over the schedules it stands for.
    for (i, r) in rows[..2].iter().enumerate() {
        let want = (f(&agg[2 * i]["aggregated"]) + f(&agg[2 * i + 1]["aggregated"])) / 2.0;
        assert!(close(f(&r["aggregated"]), want), "{v}");
    }
    // The table shows uts' rows without a schedule and says why; the CSV leaves it empty.
    let table = policies(&args, &[]);
    assert!(
        table.contains("(takes no schedule: one row per configuration of the other settings"),
        "{table}"
    );
    args.extend(["--format", "csv"]);
    let csv = policies(&args, &[]);
    let lines: Vec<Vec<String>> = csv.lines().map(csv_line).collect();
    let col = |name: &str| lines[0].iter().position(|c| c == name).unwrap();
    let schedules: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l[col("schedule")].as_str())
        .collect();
    assert_eq!(schedules, ["", "", "static", "gss", "static", "gss"]);
}

#[test]
fn loop_apps_in_the_table_and_csv() {
    let args = [
        "--app",
        "histogram",
        "--size",
        "2000",
        "--app",
        "spmv",
        "--rows",
        "300",
        "--schedule",
        "gss,static",
        "--workers",
        "1",
        "--runs",
        "1",
    ];
    let table = policies(&args, &[]);
    for word in [
        "histogram --size 2000:",
        "spmv --rows 300:",
        "schedules gss static",
        "schedule",
        "chunks",
        "loop steals",
        "c.o.v.",
    ] {
        assert!(table.contains(word), "{word:?} missing:\n{table}");
    }
    let mut csv_args = args.to_vec();
    csv_args.extend(["--format", "csv"]);
    let csv = policies(&csv_args, &[]);
    let lines: Vec<Vec<String>> = csv.lines().map(csv_line).collect();
    let col = |name: &str| lines[0].iter().position(|c| c == name).unwrap();
    assert_eq!(lines.len(), 5);
    let schedules: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l[col("schedule")].as_str())
        .collect();
    assert_eq!(schedules, ["gss", "static", "gss", "static"]);
    for l in &lines[1..] {
        assert!(l[col("loop_chunks")].parse::<u64>().unwrap() >= 1, "{l:?}");
    }
}

#[test]
fn loop_bad_input_exits_2_naming_the_problem() {
    let cases: &[(&str, &[&str])] = &[
        (
            "--app dist --schedule gss,fastest",
            &["--schedule", "\"fastest\"", "expected one of"],
        ),
        (
            "--app dist --schedule ss,0",
            &["--schedule", "ss,0", "at least 1"],
        ),
        (
            "--app dist --schedule ss,4,5",
            &["--schedule", "\"5\" is an argument"],
        ),
        (
            "--app fib --schedule gss",
            &["--schedule applies to the loop applications"],
        ),
        (
            "--app mandelbrot --width 0",
            &["--app mandelbrot --width 0", "--width"],
        ),
        ("--app dist --dist poisson", &["--dist", "poisson"]),
        (
            "--app histogram --width 4",
            &["--width applies to mandelbrot only"],
        ),
        ("--app spmv --peers rayon", &["no rayon version", "spmv"]),
    ];
    for (args, needles) in cases {
        assert_usage_error(&common::words(args), needles);
    }
}

/// `--peers rayon` with an application that has no rayon version leaves that application's
/// rayon row out and says so (table and JSON), instead of failing the whole experiment.
#[test]
fn a_peer_without_an_application_leaves_its_row_out() {
    let knapsack = magpie_apps::testdata::path("knapsack/low-dimensional/f1_l-d_kp_10_269");
    let knapsack = knapsack.to_str().unwrap();
    let args = [
        "--app",
        "fib",
        "--n",
        "15",
        "--app",
        "knapsack",
        knapsack,
        "--peers",
        "rayon",
        "--workers",
        "1",
        "--deque",
        "chase-lev",
        "--runs",
        "1",
    ];
    let v = policies_json(&args, &[]);
    let rows = v["rows"].as_array().expect("rows");
    let runtimes = |app: &str| -> Vec<String> {
        rows.iter()
            .filter(|r| r["app_name"] == app)
            .map(|r| r["runtime"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(runtimes("fib"), ["magpie", "rayon"], "{v}");
    assert_eq!(runtimes("knapsack"), ["magpie"], "{v}");
    let left = v["left_out"].as_array().expect("left_out");
    assert_eq!(left.len(), 1, "{v}");
    assert_eq!(left[0]["runtime"], "rayon");
    assert!(left[0]["app"].as_str().unwrap().starts_with("knapsack"));
    assert!(left[0]["reason"]
        .as_str()
        .unwrap()
        .contains("no rayon version of knapsack"));
    // Every row ran and has a relative time; the rayon setup's aggregate is over fib only.
    assert!(
        rows.iter()
            .all(|r| r["relative"].as_f64().is_some_and(f64::is_finite)),
        "{v}"
    );
    let table = policies(&args, &[]);
    assert!(
        table.contains("(no rayon row: --peers rayon: there is no rayon version of knapsack"),
        "{table}"
    );
}

/// `--time-limit`: the experiment stops between two runs and reports the runs it finished
/// (status time-limit, exit code 3); each row has its own run count, which add up to
/// `runs_done`. 5,000 runs of two configurations take far longer than the limit.
#[test]
fn a_time_limit_stops_an_experiment_between_runs_with_a_partial_report() {
    let out = magpie(
        &common::words("experiment policies --app fib --n 15 --workers 1,2 --runs 5000 --time-limit 1500ms --format json"),
        &[],
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(3), "{stdout}\n{stderr}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["status"], "time-limit");
    let done = u(&v["runs_done"]);
    assert!(done < 10_000, "{v}");
    let rows = v["rows"].as_array().unwrap();
    let per_row: Vec<u64> = rows.iter().map(|r| u(&r["runs"])).collect();
    assert_eq!(per_row.iter().sum::<u64>(), done, "{v}");
    // Runs alternate configurations: their counts differ by at most one.
    if let (Some(max), Some(min)) = (per_row.iter().max(), per_row.iter().min()) {
        assert!(max - min <= 1, "{per_row:?}");
    }
    for r in rows {
        assert_eq!(r["answer"], "fib(15) = 610", "{r}");
    }
}

/// The flags that record one `magpie search` or `magpie loop` run are not an experiment
/// application's options: a usage error rather than silently ignored (`--time-limit`,
/// `--progress` and `--quiet` there are the experiment's own).
#[test]
fn an_applications_run_recording_flags_are_usage_errors() {
    for app in [
        &["--app", "nqueens", "--n", "6", "--trace", "/tmp/t.json"][..],
        &["--app", "histogram", "--trace", "/tmp/t.json"],
        &["--app", "tsp", "burma14.tsp", "--incumbents", "/tmp/i"],
    ] {
        let flag = app[app.len() - 2];
        assert_usage_error(app, &[&format!("unexpected argument '{flag}'")]);
    }
}

/// The Pheet thesis' applications (issue 17): lu, quicksort on Gaussian keys, prefix-sum of
/// ones and bipartition, each run and checked on 1, 2 and 4 workers with tiny sizes.
#[test]
fn pheet_applications_run_checked_on_one_two_and_four_workers() {
    let v = policies_json(
        &common::words("--app lu --n 48 --block 16 --app quicksort --size 20000 --data gaussian --app prefix-sum --size 10000 --app bipartition --n 14 --density 0.5 --seed 3 --workers 1,2,4 --deque chase-lev --runs 1"),
        &[],
    );
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 12, "4 apps × 3 worker counts: {v}");
    let row = |app: &str, workers: u64| {
        rows.iter()
            .find(|r| r["app_name"] == app && u(&r["workers"]) == workers)
            .unwrap_or_else(|| panic!("no {app} row on {workers} workers"))
    };
    let lu = row("lu", 1)["answer"].as_str().unwrap().to_string();
    assert!(lu.starts_with("48x48 LU, block 16, residual "), "{lu}");
    for w in [1, 2, 4] {
        // The factors are bit for bit the sequential blocked LU's, so the residual too.
        assert_eq!(row("lu", w)["answer"], lu.as_str());
        let check = row("lu", w)["check"].as_str().unwrap();
        assert!(check.contains("bit for bit"), "{check}");
        let q = row("quicksort", w)["answer"].as_str().unwrap();
        assert!(q.starts_with("20000 keys sorted"), "{q}");
        assert_eq!(row("prefix-sum", w)["answer"], "10000 sums, total 0x2710");
        let check = row("prefix-sum", w)["check"].as_str().unwrap();
        assert!(check.contains("is i + 1"), "{check}");
        // G(14, 0.5) seed 3: its minimum balanced cut, checked against every split.
        assert_eq!(row("bipartition", w)["answer"], "cut 13");
        let check = row("bipartition", w)["check"].as_str().unwrap();
        assert!(check.contains("by trying every split"), "{check}");
    }
    // The Gaussian keys are not the uniform ones (the same size, another checksum).
    let uniform = policies_json(
        &["--app", "quicksort", "--size", "20000", "--runs", "1"],
        &[],
    );
    assert_ne!(
        uniform["rows"][0]["answer"],
        row("quicksort", 1)["answer"],
        "--data gaussian changed nothing"
    );
}

/// Pheet's SSSP on task priorities (issue 17): with and without priorities, on 1, 2 and 4
/// workers, every run checked against Dijkstra, and every answer the same.
#[test]
fn sssp_runs_checked_with_and_without_priorities() {
    let v = policies_json(
        &common::words("--app sssp --graph grid --size 400 --app sssp --graph grid --size 400 --priorities off --workers 1,2,4 --deque chase-lev --runs 2"),
        &[],
    );
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 6, "2 apps × 3 worker counts: {v}");
    let first = rows[0]["answer"].as_str().unwrap();
    // A 20 × 20 grid is connected: every vertex is reached.
    assert!(
        first.starts_with("400 vertices reached, distances sum "),
        "{first}"
    );
    for r in rows {
        assert_eq!(r["answer"], first, "{r}");
        assert_eq!(r["check"], "every distance equals Dijkstra's", "{r}");
    }
    assert_usage_error(
        &["--app", "sssp", "--priorities", "maybe"],
        &["--priorities \"maybe\": expected on or off"],
    );
    assert_usage_error(
        &["--app", "sssp", "--graph", "ring"],
        &["unknown graph kind \"ring\""],
    );
    assert_usage_error(
        &["--app", "sssp", "--peers", "rayon"],
        &["no rayon version of sssp"],
    );
}

#[test]
fn lu_runs_on_the_rayon_peer_with_the_same_factors() {
    let v = policies_json(
        &common::words("--app lu --n 33 --block 8 --peers rayon --workers 2 --runs 1"),
        &[],
    );
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{v}");
    assert_eq!(rows[0]["answer"], rows[1]["answer"]);
    assert!(rows.iter().any(|r| r["runtime"] == "rayon"), "{v}");
}

#[test]
fn pheet_applications_refuse_bad_options_in_one_line() {
    assert_usage_error(&["--app", "lu", "--block", "0"], &["--block \"0\""]);
    assert_usage_error(&["--app", "lu", "--n", "9000"], &["--n \"9000\"", "8192"]);
    assert_usage_error(
        &["--app", "quicksort", "--data", "ones"],
        &["expected uniform or gaussian"],
    );
    assert_usage_error(
        &["--app", "prefix-sum", "--data", "gaussian"],
        &["expected ones or uniform"],
    );
    assert_usage_error(&["--app", "bipartition"], &["bipartition needs --n N"]);
    assert_usage_error(
        &["--app", "bipartition", "--n", "65"],
        &["at most 64 vertices"],
    );
    assert_usage_error(
        &["--app", "bipartition", "--n", "8", "--density", "1.5"],
        &["--density \"1.5\""],
    );
}
