//! `magpie search --time-limit`, SIGINT/SIGTERM and `--incumbents`: a stopped search reports
//! a checked partial answer with its status and exit code 3, a second signal exits at once,
//! and the incumbent log has one line per improvement, ending at the reported optimum.
//!
//! No assertion depends on timing: the searches stopped here take minutes to finish, so any
//! limit of a second stops them; signals are sent once the search has started (its first
//! incumbent line is written after the handlers are installed), or while the process is
//! stopped (SIGSTOP), so that both are pending when it resumes.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::Duration;

use common::{assert_one_line_error, command, magpie, text, words};
use magpie_apps::{maxclique, testdata};
use serde_json::Value;

/// The exit code of a stopped command (the binary's `stop::EXIT_STOPPED`).
const EXIT_STOPPED: i32 = 3;

/// A fresh file name in the temporary directory.
fn temp(name: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("magpie-stop-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&p);
    p
}

/// The one JSON object on stdout of a stopped run, with its status checked: exit code 3,
/// the stop named on stderr.
fn stopped_report(out: &Output, status: &str) -> Value {
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(EXIT_STOPPED), "{stdout}\n{stderr}");
    assert_eq!(
        stderr.trim(),
        format!("magpie: stopped ({status}): the report is what was done before the stop")
    );
    let v: Value = serde_json::from_str(stdout.trim()).expect("one JSON object");
    assert_eq!(v["status"], status, "{v}");
    v
}

/// A graph whose maximum clique takes minutes to prove on two cores (a seeded G(400, 0.75),
/// as hard as brock400_1): any stop finds it unfinished.
fn hard_graph() -> PathBuf {
    testdata::random_dimacs(400, 0.75, 400)
}

/// The reported clique is a clique of the reported size.
fn assert_partial_clique(v: &Value, graph: &maxclique::Graph) {
    let clique: Vec<usize> = serde_json::from_value(v["clique"].clone()).expect("clique");
    assert_eq!(v["omega"], clique.len(), "{v}");
    assert!(clique.len() >= 2, "{v}");
    assert!(clique.windows(2).all(|w| w[0] < w[1]), "ascending: {v}");
    assert!(maxclique::is_clique(graph, &clique), "not a clique: {v}");
    assert!(
        v["check"].as_str().unwrap().contains("pairwise adjacent"),
        "{v}"
    );
}

#[test]
fn a_time_limit_stops_an_optimisation_with_its_best_clique_checked() {
    let path = hard_graph();
    let graph = maxclique::read_dimacs(&path).unwrap();
    let log = temp("clique.jsonl");
    let out = magpie(
        &[
            "search",
            "maxclique",
            path.to_str().unwrap(),
            "--time-limit",
            "300ms",
            "--incumbents",
            log.to_str().unwrap(),
            "--json",
        ],
        &[],
    );
    let v = stopped_report(&out, "time-limit");
    assert_partial_clique(&v, &graph);
    // The log ends at the reported clique's size, one line per strict improvement.
    let lines = read_log(&log);
    assert_eq!(lines.last().unwrap()["value"], v["omega"]);
    let _ = std::fs::remove_file(&log);
}

#[test]
fn a_time_limit_stops_an_enumeration_whose_partial_count_is_not_checked() {
    // UTS T3L has 111,345,631 nodes: far more than a debug build visits in 300 ms.
    let out = magpie(
        &words("search uts --tree T3L --time-limit 300ms --json"),
        &[],
    );
    let v = stopped_report(&out, "time-limit");
    let nodes = v["nodes"].as_u64().unwrap();
    assert!(nodes > 0 && nodes < 111_345_631, "{v}");
    assert_eq!(v["expanded"], nodes, "the fold and the engine agree: {v}");
    let check = v["check"].as_str().unwrap();
    assert!(
        check.starts_with("not checked: the search was stopped after"),
        "{check}"
    );
    // The text report says the same.
    let out = magpie(
        &["search", "uts", "--tree", "T3L", "--time-limit", "200ms"],
        &[],
    );
    assert_eq!(out.status.code(), Some(EXIT_STOPPED));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("status      time-limit"), "{stdout}");
    assert!(stdout.contains("check       not checked: the search was stopped"));
}

/// Starts `magpie search maxclique` on [`hard_graph`] with `--incumbents LOG --json` and waits until its
/// search has started (its first incumbent line is there).
fn started_search(log: &Path) -> Child {
    let path = hard_graph();
    let child = command(
        &[
            "search",
            "maxclique",
            path.to_str().unwrap(),
            "--incumbents",
            log.to_str().unwrap(),
            "--json",
        ],
        &[],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .expect("starts magpie");
    while std::fs::read_to_string(log).map_or(true, |s| !s.contains('\n')) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: kill has no memory-safety preconditions; the pid is our own live child.
    let r = unsafe { libc::kill(child.id() as libc::pid_t, sig) };
    assert_eq!(r, 0, "kill {sig}");
}

#[test]
fn sigint_and_sigterm_stop_a_search_with_its_best_answer() {
    let graph = maxclique::read_dimacs(hard_graph()).unwrap();
    for sig in [libc::SIGINT, libc::SIGTERM] {
        let log = temp(&format!("signal-{sig}.jsonl"));
        let child = started_search(&log);
        signal(&child, sig);
        let out = child.wait_with_output().unwrap();
        let v = stopped_report(&out, "interrupted");
        assert_partial_clique(&v, &graph);
        assert_eq!(read_log(&log).last().unwrap()["value"], v["omega"]);
        let _ = std::fs::remove_file(&log);
    }
}

#[test]
fn a_second_signal_exits_at_once_with_130() {
    let log = temp("twice.jsonl");
    let child = started_search(&log);
    // Both signals pending when the process resumes: the first sets the flag, the second
    // finds it set and exits.
    signal(&child, libc::SIGSTOP);
    signal(&child, libc::SIGINT);
    signal(&child, libc::SIGTERM);
    signal(&child, libc::SIGCONT);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty(), "no report: {}", text(&out.stdout));
    let _ = std::fs::remove_file(&log);
}

/// The lines of an incumbent log, each with its fields checked; values strictly
/// increasing, times and node counts not decreasing.
fn read_log(path: &Path) -> Vec<Value> {
    let body = std::fs::read_to_string(path).unwrap();
    let lines: Vec<Value> = body
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert!(!lines.is_empty(), "{body}");
    for l in &lines {
        let keys: Vec<&str> = l.as_object().unwrap().keys().map(String::as_str).collect();
        // (serde_json's map sorts its keys.)
        assert_eq!(keys, ["nodes", "rank", "time_s", "value", "worker"], "{l}");
        assert_eq!(l["rank"], 0);
        assert!(l["worker"].as_u64().is_some_and(|w| w < 2), "{l}");
    }
    for w in lines.windows(2) {
        assert!(w[0]["value"].as_i64() < w[1]["value"].as_i64(), "{body}");
        assert!(w[0]["time_s"].as_f64() <= w[1]["time_s"].as_f64(), "{body}");
        assert!(w[0]["nodes"].as_u64() <= w[1]["nodes"].as_u64(), "{body}");
    }
    lines
}

#[test]
fn the_incumbent_log_of_a_complete_search_ends_at_the_optimum() {
    let knap = testdata::path("knapsack/large_scale/knapPI_3_200_1000_1");
    for skeleton in ["seq", "depth-bounded", "stack-stealing", "ordered"] {
        let log = temp(&format!("knap-{skeleton}.jsonl"));
        let out = magpie(
            &[
                "search",
                "knapsack",
                knap.to_str().unwrap(),
                "--skeleton",
                skeleton,
                "--incumbents",
                log.to_str().unwrap(),
                "--json",
                "--workers",
                if skeleton == "seq" { "1" } else { "2" },
            ],
            &[],
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["status"], "complete");
        assert_eq!(v["profit"], 2_697, "{v}");
        let lines = read_log(&log);
        assert_eq!(lines.last().unwrap()["value"], 2_697, "{skeleton}");
        assert!(
            lines
                .iter()
                .all(|l| l["nodes"].as_u64() <= v["expanded"].as_u64()),
            "{skeleton}"
        );
        let _ = std::fs::remove_file(&log);
    }
}

#[test]
fn bad_time_limits_and_incumbent_logs_are_usage_errors() {
    let knap = testdata::path("knapsack/large_scale/knapPI_3_200_1000_1");
    let k = knap.to_str().unwrap();
    for (args, needles) in [
        (
            vec!["search", "nqueens", "--n", "6", "--time-limit", "0s"],
            vec!["--time-limit \"0s\"", "500ms, 30s, 5m or 1.5h"],
        ),
        (
            vec!["search", "nqueens", "--n", "6", "--time-limit", "soon"],
            vec!["--time-limit \"soon\""],
        ),
        (
            vec!["search", "nqueens", "--n", "6", "--incumbents", "/tmp/x"],
            vec![
                "--incumbents applies to an optimisation",
                "nqueens has no incumbent",
            ],
        ),
        (
            vec![
                "search",
                "knapsack",
                k,
                "--incumbents",
                "/nonexistent/dir/log",
            ],
            vec!["--incumbents /nonexistent/dir/log: cannot create it"],
        ),
    ] {
        let out = magpie(&args, &[]);
        assert_one_line_error(&format!("{args:?}"), &out, &needles);
    }
}
