//! Runs the built `magpie experiment` on tiny matrices: the structure of the JSON, CSV and
//! table reports and every value that does not depend on timing (row and run counts,
//! checked answers, counter identities, relative times and aggregated results that average
//! to 1), the run-one child protocol, the background command, and the usage errors (exit
//! 2, one line naming the problem). Timings themselves are never asserted.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

mod common;
use common::experiment::{assert_usage_error, close, csv_line, f, policies, policies_json, u};
use common::{command, magpie, text};

#[test]
fn json_matrix_has_every_row_run_and_checked_answer() {
    let v = policies_json(
        &common::words("--app fib --n 20 --app nqueens --n 8 --skeleton budget --budget 100 --victims random,sticky --idle park,park:spin=0,yield=0 --workers 1,2 --deque chase-lev --runs 2 --instances 2"),
        &[],
    );
    assert_eq!(v["experiment"], "policies");
    assert_eq!(v["runs"], 2);
    assert_eq!(v["instances"], 2);
    assert_eq!(v["order"], "alternating");
    assert_eq!(
        v["apps"],
        serde_json::json!(["fib --n 20", "nqueens --n 8 --skeleton budget --budget 100"])
    );
    assert_eq!(v["workers"], serde_json::json!([1, 2]));
    assert_eq!(v["victims"], serde_json::json!(["random", "sticky"]));
    assert_eq!(
        v["idle"],
        serde_json::json!(["park", "park:spin=0,yield=0"])
    );
    assert_eq!(v["background"], Value::Null);

    let rows = v["rows"].as_array().expect("rows");
    // 2 apps × 2 worker counts × 2 victims × 2 idle, app by app, then by worker count, in
    // the order given.
    assert_eq!(rows.len(), 16);
    let mut i = 0;
    for (app, answer) in [
        ("fib --n 20", "fib(20) = 6765"),
        (
            "nqueens --n 8 --skeleton budget --budget 100",
            "92 solutions",
        ),
    ] {
        for workers in [1, 2] {
            for victims in ["random", "sticky"] {
                for idle in ["park", "park:spin=0,yield=0"] {
                    let r = &rows[i];
                    i += 1;
                    assert_eq!(r["app"], app, "{r}");
                    assert_eq!(r["workers"], workers, "{r}");
                    assert_eq!(r["runtime"], "magpie");
                    assert_eq!(r["deque"], "chase-lev");
                    assert_eq!(r["victims"], victims);
                    assert_eq!(r["idle"], idle);
                    assert_eq!(r["answer"], answer, "{r}");
                    assert_eq!(r["baseline"], victims == "random" && idle == "park");
                }
            }
        }
    }

    for r in rows {
        assert_eq!(r["runs"], 2);
        assert_eq!(r["instances"], 2);
        assert_eq!(r["solves"], 4);
        let times: Vec<f64> = r["times"].as_array().unwrap().iter().map(f).collect();
        let per_instance = r["instance_times"].as_array().unwrap();
        assert_eq!(times.len(), 2);
        assert_eq!(per_instance.len(), 2);
        for (t, inst) in times.iter().zip(per_instance) {
            let inst: Vec<f64> = inst.as_array().unwrap().iter().map(f).collect();
            assert_eq!(inst.len(), 2);
            assert!(inst.iter().all(|&x| x > 0.0), "{r}");
            // A run's time is the mean over its instances.
            assert!(close(*t, (inst[0] + inst[1]) / 2.0), "{r}");
        }
        let (min, max) = (f(&r["min"]), f(&r["max"]));
        assert!(close(min, times[0].min(times[1])), "{r}");
        assert!(close(max, times[0].max(times[1])), "{r}");
        assert!(close(f(&r["mean"]), (times[0] + times[1]) / 2.0), "{r}");
        // Two values: the median is their mean too.
        assert!(close(f(&r["median"]), f(&r["mean"])), "{r}");
        let ci = &r["ci95"];
        assert!(close(
            f(&ci["high"]) - f(&ci["low"]),
            2.0 * f(&ci["half_width"])
        ));
        // t(0.975, 1) · sd / sqrt(2).
        let want = 12.706_204_736 * f(&r["sd"]) / 2f64.sqrt();
        assert!(
            (f(&ci["half_width"]) - want).abs() <= 1e-6 * want.max(1e-12),
            "{r}"
        );

        let c = &r["counters"];
        let (steals, attempts) = (u(&c["steals"]), u(&c["steal_attempts"]));
        assert!(steals <= attempts, "{r}");
        assert_eq!(u(&c["failed_steals"]), attempts - steals, "{r}");
        if r["workers"] == 1 {
            // Nobody to steal from.
            assert_eq!((steals, attempts), (0, 0), "{r}");
        }
        // The totals are the sums over every solve.
        let each: Vec<&Value> = r["instance_counters"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|run| run.as_array().unwrap())
            .collect();
        assert_eq!(each.len(), 4);
        for key in [
            "steals",
            "steal_attempts",
            "sleeps",
            "sleep_ns",
            "parks",
            "parked_ns",
            "idle_ns",
        ] {
            assert_eq!(each.iter().map(|e| u(&e[key])).sum::<u64>(), u(&c[key]));
        }

        if r["baseline"] == true {
            assert_eq!(r["welch"], Value::Null, "{r}");
        } else if !r["welch"].is_null() {
            let w = &r["welch"];
            assert!(f(&w["df"]) > 0.0 && f(&w["t"]).is_finite(), "{r}");
            let p = f(&w["p"]);
            assert!((0.0..=1.0).contains(&p), "{r}");
            assert_eq!(w["significant"], p < 0.05);
        }
    }

    // Relative times average to 1 within each (app, worker count); the aggregated result is
    // their mean over the apps, and averages to 1 over each worker count's configurations.
    for group in rows.chunks(4) {
        let mean = group.iter().map(|r| f(&r["relative"])).sum::<f64>() / 4.0;
        assert!(close(mean, 1.0), "{mean}");
    }
    let agg = v["aggregated"].as_array().expect("aggregated");
    assert_eq!(agg.len(), 8);
    for (k, a) in agg.iter().enumerate() {
        let want = (f(&rows[k]["relative"]) + f(&rows[8 + k]["relative"])) / 2.0;
        assert!(close(f(&a["aggregated"]), want), "{a}");
        assert_eq!(a["workers"], rows[k]["workers"]);
        assert_eq!(a["idle"], rows[k]["idle"]);
        assert!(close(f(&rows[k]["aggregated"]), want));
    }
    for group in agg.chunks(4) {
        let mean = group.iter().map(|a| f(&a["aggregated"])).sum::<f64>() / 4.0;
        assert!(close(mean, 1.0), "{mean}");
    }
}

#[test]
fn csv_with_rayon_peers_checks_every_kernel_and_enumeration() {
    let stdout = policies(
        &common::words("--app uts --tree default --app ns --genus 12 --app nqueens --n 8 --app quicksort --size 20000 --app prefix-sum --size 20000 --app fib --n 15 --peers rayon --workers 2 --deque chase-lev --runs 1 --format csv"),
        &[],
    );
    let lines: Vec<Vec<String>> = stdout.lines().map(csv_line).collect();
    let header = &lines[0];
    for col in [
        "app",
        "runtime",
        "workers",
        "median_s",
        "mean_s",
        "ci95_low_s",
        "ci95_high_s",
        "min_s",
        "max_s",
        "relative",
        "aggregated",
        "steals",
        "failed_steals",
        "sleeps",
        "sleep_ns",
        "parks",
        "parked_ns",
        "welch_t",
        "welch_df",
        "welch_p",
        "answer",
    ] {
        assert!(header.iter().any(|h| h == col), "{col} missing: {header:?}");
    }
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows = &lines[1..];
    // 6 apps × (magpie + rayon), one worker count.
    assert_eq!(rows.len(), 12, "{stdout}");
    for r in rows {
        assert_eq!(r.len(), header.len(), "{r:?}");
    }
    for pair in rows.chunks(2) {
        let (m, r) = (&pair[0], &pair[1]);
        assert_eq!(m[col("runtime")], "magpie");
        assert_eq!(r[col("runtime")], "rayon");
        assert_eq!(m[col("app")], r[col("app")]);
        // Both runtimes computed the same checked answer.
        assert_eq!(m[col("answer")], r[col("answer")], "{m:?}\n{r:?}");
        assert_eq!(m[col("deque")], "chase-lev");
        for c in ["deque", "victims", "idle", "steals", "parks"] {
            assert_eq!(r[col(c)], "", "rayon has no {c}: {r:?}");
        }
        assert_eq!(m[col("runs")], "1");
        // One run: no spread, no test.
        for c in ["sd_s", "ci95_low_s", "welch_t", "welch_p"] {
            assert_eq!(m[col(c)], "");
            assert_eq!(r[col(c)], "");
        }
        let (a, b): (f64, f64) = (
            m[col("relative")].parse().unwrap(),
            r[col("relative")].parse().unwrap(),
        );
        assert!(close(a + b, 2.0), "{a} + {b}");
    }
    let answers: Vec<&str> = rows
        .iter()
        .step_by(2)
        .map(|r| r[col("answer")].as_str())
        .collect();
    assert_eq!(answers[0], "nodes 1732, leaves 1050, depth 6");
    assert_eq!(answers[1], "counts 1 1 2 4 7 12 23 39 67 118 204 343 592");
    assert_eq!(answers[2], "92 solutions");
    assert!(
        answers[3].starts_with("20000 keys sorted"),
        "{}",
        answers[3]
    );
    assert!(answers[4].starts_with("20000 sums"), "{}", answers[4]);
    assert_eq!(answers[5], "fib(15) = 610");
}

#[test]
fn table_lists_every_configuration_and_the_aggregated_result() {
    let stdout = policies(
        &common::words("--app fib --n 12 --victims random,sticky --workers 1,2 --runs 2"),
        &[],
    );
    assert!(
        stdout.starts_with("magpie experiment policies: 1 application, 2 configurations"),
        "{stdout}"
    );
    assert!(stdout.contains("fib --n 12: fib(12) = 144"), "{stdout}");
    for col in [
        "median", "mean", "±95%", "min", "max", "rel", "steals", "failed", "sleeps", "parks",
        "Welch",
    ] {
        assert!(stdout.contains(col), "{col} missing:\n{stdout}");
    }
    // 4 measured rows and 4 aggregated rows.
    let rows = stdout.lines().filter(|l| l.contains(" magpie ")).count();
    assert_eq!(rows, 8, "{stdout}");
    assert_eq!(stdout.matches("(first)").count(), 2, "{stdout}");
    assert!(stdout.contains("aggregated result"), "{stdout}");
}

#[test]
fn lists_may_come_from_the_environment() {
    let v = policies_json(
        &["--app", "fib", "--n", "10", "--runs", "1"],
        &[
            ("MAGPIE_VICTIMS", "random,sticky"),
            ("MAGPIE_IDLE", "park,park:spin=1,yield=1"),
            ("MAGPIE_NUM_WORKERS", "2"),
        ],
    );
    assert_eq!(v["rows"].as_array().unwrap().len(), 4, "{v}");
    assert_eq!(
        v["idle"],
        serde_json::json!(["park", "park:spin=1,yield=1"])
    );
}

/// The processes whose command line is exactly `words` and that are not zombies.
fn live_processes(words: &[&str]) -> Vec<String> {
    let want: Vec<u8> = words
        .iter()
        .flat_map(|w| [w.as_bytes(), b"\0"].concat())
        .collect();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let dir = entry.path();
        let Ok(cmdline) = std::fs::read(dir.join("cmdline")) else {
            continue;
        };
        if cmdline != want {
            continue;
        }
        let stat = std::fs::read_to_string(dir.join("stat")).unwrap_or_default();
        let state = stat.rsplit(')').next().unwrap_or("").trim().chars().next();
        if !matches!(state, Some('Z') | Some('X') | None) {
            found.push(stat);
        }
    }
    found
}

#[test]
fn background_is_noted_and_its_process_group_killed() {
    // A shell with a child of its own: killing the shell alone would leave the sleep.
    let sleep = ["sleep", "41.2837"];
    let started = Instant::now();
    let v = policies_json(
        &[
            "--app",
            "fib",
            "--n",
            "10",
            "--workers",
            "1",
            "--runs",
            "2",
            "--background",
            "sleep 41.2837 & wait",
        ],
        &[],
    );
    assert!(started.elapsed() < Duration::from_secs(30), "waited for it");
    assert_eq!(v["background"]["command"], "sleep 41.2837 & wait");
    // Killed processes may linger as zombies until their parent reaps them: only a live one
    // is a failure.
    let deadline = Instant::now() + Duration::from_secs(5);
    while !live_processes(&sleep).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(live_processes(&sleep), Vec::<String>::new());

    let table = policies(
        &common::words("--app fib --n 10 --workers 1 --runs 1 --background true"),
        &[],
    );
    assert!(
        table.contains("background: sh -c \"true\"") && table.contains("killed after the last"),
        "{table}"
    );
}

#[test]
fn run_one_waits_at_the_barrier_then_reports_one_json_line() {
    for (runtime, app, answer, counters) in [
        ("magpie", &["fib", "--n", "15"][..], "fib(15) = 610", true),
        ("rayon", &["nqueens", "--n", "6"][..], "4 solutions", false),
    ] {
        let mut args = vec![
            "--workers",
            "2",
            "--deque",
            "chase-lev",
            "experiment",
            "run-one",
            "--runtime",
            runtime,
            "--",
        ];
        args.extend_from_slice(app);
        let mut child = command(&args, &[])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        assert_eq!(line, "ready\n");
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"go\n").unwrap();
        drop(stdin);
        line.clear();
        stdout.read_line(&mut line).unwrap();
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert_eq!(v["answer"], answer);
        assert!(f(&v["seconds"]) > 0.0);
        assert_eq!(v["counters"].is_object(), counters, "{v}");
        assert!(child.wait().unwrap().success());
    }

    // Not released: the child ends with an error instead of solving.
    let out = command(&["experiment", "run-one", "--", "fib", "--n", "5"], &[])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "ready\n");
    assert!(
        text(&out.stderr).contains("barrier"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn bad_input_exits_2_naming_the_problem() {
    assert_usage_error(
        &["--app", "fib", "--victims", "random,nearest"],
        &["--victims", "\"nearest\"", "sticky"],
    );
    assert_usage_error(&["--app", "fib", "--idle", "park,park:nap=1"], &["nap"]);
    assert_usage_error(
        &["--app", "fib", "--idle", "park,spin=3"],
        &["\"spin=3\"", "key=value"],
    );
    assert_usage_error(&["--app", "fib", "--workers", "1,0"], &["--workers 0"]);
    assert_usage_error(&["--app", "fib", "--deque", "chase-lev,abp"], &["\"abp\""]);
    assert_usage_error(&["--app", "fib", "--runs", "0"], &["--runs 0"]);
    assert_usage_error(&["--app", "fib", "--instances", "0"], &["--instances 0"]);
    assert_usage_error(
        &["--app", "fib", "--format", "xml"],
        &["\"xml\"", "table", "csv", "json"],
    );
    assert_usage_error(&["--app", "nosuch"], &["\"nosuch\"", "prefix-sum"]);
    assert_usage_error(&["--tree", "T1", "--app", "uts"], &["--tree", "--app"]);
    assert_usage_error(&["--app", "uts"], &["uts needs a tree"]);
    assert_usage_error(
        &["--app", "uts", "--tree", "T1", "--size", "5"],
        &["--size applies to quicksort"],
    );
    assert_usage_error(&["--app", "fib", "--n", "94"], &["--n \"94\""]);
    assert_usage_error(&["--app", "fib", "--peers", "tbb"], &["\"tbb\""]);
    let knapsack = magpie_apps::testdata::path("knapsack/low-dimensional/f1_l-d_kp_10_269");
    assert_usage_error(
        &[
            "--app",
            "knapsack",
            knapsack.to_str().unwrap(),
            "--peers",
            "rayon",
        ],
        &["no rayon version of knapsack"],
    );
    assert_usage_error(
        &["--app", "maxclique", "/nonexistent/graph.clq"],
        &["/nonexistent/graph.clq"],
    );
}

#[test]
fn help_documents_the_syntax() {
    let out = magpie(&["experiment", "policies", "--help"], &[]);
    assert!(out.status.success());
    let help = text(&out.stdout);
    for word in [
        "Examples:",
        "--app",
        "--instances",
        "--background",
        "--peers",
        "--format",
        "key=value",
        "aggregated result",
        "barrier",
        "prefix-sum",
        "mandelbrot",
        "--schedule",
        "ss,4 / gss / rws,fac2",
        "once per configuration of the other settings",
    ] {
        assert!(help.contains(word), "{word} missing:\n{help}");
    }
    // The child subcommand is internal.
    let out = magpie(&["experiment", "--help"], &[]);
    assert!(!text(&out.stdout).contains("run-one"));
}
