//! `magpie search … --distributed --trace FILE` under `mpirun -np 2, 3`: one file, one process
//! per rank with its workers and its `comm` thread; every flow start (a steal request, work
//! or a refusal sent) has exactly one flow finish with its id on the receiving rank; the
//! steal requests in the trace are the ranks' `requests_sent`; the answer is still right.
//! Built only with the `mpi` feature.
#![cfg(feature = "mpi")]

mod common;

use std::collections::HashMap;

use common::{mpirun, mpirun_report, text, words};
use serde_json::Value;

/// A fresh path for a trace file.
fn trace_path(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("magpie-dtrace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Runs N-Queens 12 over `ranks` ranks (one worker each) with `skeleton` and `--trace`;
/// the JSON report and the trace.
fn traced(ranks: usize, skeleton: &[&str]) -> (Value, Value) {
    let name = format!("nq12-{ranks}-{}.json", skeleton.join("-"));
    run_traced(ranks, &name, &words("search nqueens --n 12"), skeleton)
}

/// Runs `magpie loop dist` (40 000 iterations, 2 steps) over `ranks` ranks with `mode` and `--trace`; the JSON
/// report and the trace.
fn traced_loop(ranks: usize, mode: &[&str]) -> (Value, Value) {
    let name = format!("dist-{ranks}-{}.json", mode.join("-"));
    let command = words("loop dist --iterations 40000 --steps 2");
    run_traced(ranks, &name, &command, mode)
}

/// Runs `command` then `options` over `ranks` ranks (one worker each) with `--json` and
/// `--trace` to the file `name` (removed afterwards); the JSON report and the trace.
fn run_traced(ranks: usize, name: &str, command: &[&str], options: &[&str]) -> (Value, Value) {
    let path = trace_path(name);
    let path_s = path.to_str().unwrap();
    let mut args = command.to_vec();
    args.extend_from_slice(options);
    args.extend(words("--distributed --workers 1 --json --trace"));
    args.push(path_s);
    let report = mpirun_report(ranks, &args);
    let trace: Value = serde_json::from_slice(&std::fs::read(&path).unwrap())
        .unwrap_or_else(|e| panic!("the trace parses: {e}"));
    std::fs::remove_file(&path).unwrap();
    (report, trace)
}

/// The file's shape on `ranks` ranks of one worker each, and its flows: each start has
/// exactly one finish with its id, on another rank, same name; each finish has its start.
/// (Times are not compared: each rank's clock starts at its own recording start.) Returns
/// the events and the flow starts.
fn check_file(ranks: usize, trace: &Value) -> (&Vec<Value>, HashMap<u64, &Value>) {
    assert_eq!(trace["otherData"]["magpie_trace"], 1);
    assert_eq!(trace["otherData"]["ranks"], ranks);
    assert_eq!(trace["otherData"]["workers"], 1);
    let events = trace["traceEvents"].as_array().unwrap();
    // One process per rank, named `rank R`, with worker 0 and the comm thread (tid 1).
    let meta = |name: &str| -> Vec<(u64, Option<u64>, String)> {
        events
            .iter()
            .filter(|e| e["ph"] == "M" && e["name"] == name)
            .map(|e| {
                (
                    e["pid"].as_u64().unwrap(),
                    e["tid"].as_u64(),
                    e["args"]["name"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let processes: Vec<_> = (0..ranks as u64)
        .map(|r| (r, None, format!("rank {r}")))
        .collect();
    assert_eq!(meta("process_name"), processes);
    let threads: Vec<_> = (0..ranks as u64)
        .flat_map(|r| {
            [
                (r, Some(0), "worker 0".to_string()),
                (r, Some(1), "comm".into()),
            ]
        })
        .collect();
    assert_eq!(meta("thread_name"), threads);
    // Every event belongs to a rank; the mpi events to the comm thread.
    for e in events {
        assert!(e["pid"].as_u64().unwrap() < ranks as u64, "{e}");
        if e["cat"] == "mpi" {
            assert_eq!(e["tid"], 1, "{e}");
        }
    }
    // Flows: each start has exactly one finish with its id, on another rank, same name;
    // each finish has its start. (Times are not compared: each rank's clock starts at its
    // own recording start.)
    let mut starts: HashMap<u64, &Value> = HashMap::new();
    let mut finishes: HashMap<u64, &Value> = HashMap::new();
    for e in events {
        let id = || e["id"].as_u64().expect("a whole id");
        if e["ph"] == "s" {
            assert!(starts.insert(id(), e).is_none(), "one start per id: {e}");
        } else if e["ph"] == "f" {
            assert_eq!(e["bp"], "e", "{e}");
            assert!(finishes.insert(id(), e).is_none(), "one finish per id: {e}");
        }
    }
    assert_eq!(
        {
            let mut k: Vec<_> = starts.keys().collect();
            k.sort();
            k
        },
        {
            let mut k: Vec<_> = finishes.keys().collect();
            k.sort();
            k
        },
        "every flow start has its finish and back"
    );
    for (id, s) in &starts {
        let f = finishes[id];
        assert_eq!(s["cat"], "mpi");
        assert_eq!(f["cat"], "mpi");
        assert_eq!(s["name"], f["name"], "id {id}");
        assert_ne!(s["pid"], f["pid"], "a flow goes between ranks: {s} {f}");
    }
    (events, starts)
}

/// The number of `mpi` spans named `name` on rank `pid`.
fn count(events: &[Value], pid: u64, name: &str) -> u64 {
    events
        .iter()
        .filter(|e| e["ph"] == "X" && e["cat"] == "mpi")
        .filter(|e| e["pid"] == pid && e["name"] == name)
        .count() as u64
}

/// The checks of one traced search on `ranks` ranks.
fn check(ranks: usize, report: &Value, trace: &Value) {
    assert_eq!(report["solutions"], 14200, "the answer is still right");
    let (events, starts) = check_file(ranks, trace);
    let count = |pid, name| count(events, pid, name);
    // Each rank's messages against its counters in the report.
    let tasks_received = |pid: u64| -> u64 {
        events
            .iter()
            .filter(|e| e["pid"] == pid && e["name"] == "work received" && e["ph"] == "X")
            .map(|e| e["args"]["tasks"].as_u64().unwrap())
            .sum()
    };
    let mut requests = 0;
    for r in report["ranks"].as_array().unwrap() {
        let pid = r["rank"].as_u64().unwrap();
        let n = |k: &str| r[k].as_u64().unwrap();
        assert_eq!(
            count(pid, "steal request sent"),
            n("requests_sent"),
            "rank {pid}"
        );
        assert_eq!(
            count(pid, "steal request received"),
            n("requests_received"),
            "rank {pid}"
        );
        assert_eq!(count(pid, "work received"), n("steals_ok"), "rank {pid}");
        assert_eq!(
            count(pid, "refusal received"),
            n("steals_failed"),
            "rank {pid}"
        );
        assert_eq!(tasks_received(pid), n("tasks_received"), "rank {pid}");
        requests += n("requests_sent");
    }
    // A request received was sent: each "steal request" flow is one of the requests.
    let request_flows = starts
        .values()
        .filter(|s| s["name"] == "steal request")
        .count() as u64;
    assert!(request_flows <= requests);
    let received: u64 = (0..ranks as u64)
        .map(|p| count(p, "steal request received"))
        .sum();
    assert_eq!(
        request_flows, received,
        "every request received has its arrow"
    );
    // Rank 1 starts with no work and asks at once; rank 0 needs far longer than that.
    assert!(received >= 1, "a steal request reached its victim");
}

#[test]
fn one_process_per_rank_and_paired_flows_on_2_and_3_ranks() {
    for ranks in [2, 3] {
        let (report, trace) = traced(ranks, &[]);
        check(ranks, &report, &trace);
    }
}

#[test]
fn stack_stealing_thieves_that_wait_are_answered_in_the_trace() {
    let (report, trace) = traced(3, &["--skeleton", "stack-stealing"]);
    check(3, &report, &trace);
}

#[test]
fn a_bad_trace_path_is_one_usage_error() {
    let out = mpirun(
        2,
        &words("search nqueens --n 8 --distributed --workers 1 --trace /nonexistent-dir/t.json"),
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("magpie: error:"))
        .collect();
    assert_eq!(
        errors,
        ["magpie: error: --trace /nonexistent-dir/t.json: cannot create the file: No such file or directory (os error 2)"],
        "{stderr}"
    );
}

#[test]
fn distributed_loops_in_share_and_steal_mode() {
    for (ranks, mode) in [
        (2, &["--mode", "share", "--schedule", "gss"][..]),
        (3, &["--mode", "share", "--schedule", "fac2"][..]),
        (3, &["--mode", "steal", "--remote-victims", "random"][..]),
        (
            3,
            &["--mode", "steal", "--remote-victims", "coordinator"][..],
        ),
    ] {
        let (report, trace) = traced_loop(ranks, mode);
        let what = format!("{ranks} ranks {mode:?}");
        assert_eq!(report["status"], "complete", "{what}");
        // The answer is still right: the run checks every iteration (exit 0), and its sum
        // is the untraced run's.
        let mut args = vec!["loop", "dist", "--iterations", "40000", "--steps", "2"];
        args.extend_from_slice(mode);
        args.extend(["--distributed", "--workers", "1", "--json"]);
        let plain = mpirun_report(ranks, &args);
        assert_eq!(report["result"], plain["result"], "{what}");
        let (events, starts) = check_file(ranks, &trace);
        let mut sent = 0;
        for r in report["ranks"].as_array().unwrap() {
            let pid = r["rank"].as_u64().unwrap();
            let requests = r["requests_sent"].as_u64().unwrap();
            assert_eq!(count(events, pid, "steal request sent"), requests, "{what}");
            sent += requests;
        }
        assert!(sent >= 1, "{what}: every rank asks at least once");
        // Share mode: every chunk is a `work sent` of rank 0's (to itself, without an arrow,
        // or to another rank, with one), and every chunk another rank got has its arrow.
        if mode[1] == "share" {
            let others: u64 = (1..ranks as u64)
                .map(|p| count(events, p, "work received"))
                .sum();
            let arrows = starts.values().filter(|s| s["name"] == "work").count() as u64;
            assert_eq!(arrows, others, "{what}");
            assert!(others >= 1, "{what}");
        }
    }
}
