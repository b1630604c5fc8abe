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
use common::{command, magpie, text};

/// `magpie experiment policies ARGS`: exit 0, nothing on stderr; returns stdout.
fn policies(args: &[&str], env: &[(&str, &str)]) -> String {
    let mut all = vec!["experiment", "policies"];
    all.extend_from_slice(args);
    let out = magpie(&all, env);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(
        out.status.success(),
        "{all:?} failed: {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );
    assert!(stderr.is_empty(), "{all:?}: stderr: {stderr}");
    stdout
}

fn policies_json(args: &[&str], env: &[(&str, &str)]) -> Value {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--format", "json"]);
    let stdout = policies(&all, env);
    assert_eq!(stdout.lines().count(), 1, "one line: {stdout}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// `experiment policies ARGS` exits 2 with one line naming every needle.
fn assert_usage_error(args: &[&str], needles: &[&str]) {
    let mut all = vec!["experiment", "policies"];
    all.extend_from_slice(args);
    let out = magpie(&all, &[]);
    common::assert_one_line_error(&format!("{all:?}"), &out, needles);
}

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

/// Splits one CSV line (RFC 4180 quoting).
fn csv_line(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                fields.last_mut().unwrap().push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(String::new()),
            (c, _) => fields.last_mut().unwrap().push(c),
        }
    }
    fields
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
