//! `--trace FILE` of `magpie loop` and `magpie search`: the file is one Chrome trace-event
//! JSON object with the fields of the format (docs/observability.md): metadata naming rank 0
//! and every worker, complete spans and thread-scoped instants with pid 0 and a worker's tid,
//! `otherData` with the command, workers and ranks; a loop's chunk spans cover every
//! iteration once per time step; a bad path is one error line (exit 2) before any work.
//! Nothing here depends on timing: the properties hold for every schedule of the workers.

use std::path::PathBuf;

use serde_json::Value;

mod common;
use common::{assert_one_line_error, magpie, text};

/// A fresh path in the target's temporary directory.
fn temp_file(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    dir.join(format!("{name}-{}.json", std::process::id()))
}

/// Runs `magpie ARGS --trace FILE` (exit 0 expected) and returns the parsed file, checked
/// for the fields every trace has.
fn traced(args: &[&str], name: &str, workers: u64) -> Value {
    let path = temp_file(name);
    let mut all = args.to_vec();
    let p = path.to_str().unwrap().to_string();
    all.extend_from_slice(&["--trace", &p]);
    let out = magpie(&all, &[]);
    assert!(
        out.status.success(),
        "{all:?}: {:?}\nstderr: {}",
        out.status,
        text(&out.stderr)
    );
    let bytes = std::fs::read(&path).expect("the trace file");
    std::fs::remove_file(&path).ok();
    let v: Value =
        serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{all:?}: {e}: {}", text(&bytes)));
    assert_eq!(v["displayTimeUnit"], "ms");
    let other = &v["otherData"];
    assert_eq!(other["magpie_trace"], 1, "{other}");
    assert_eq!(other["workers"], workers, "{other}");
    assert_eq!(other["ranks"], 1, "{other}");
    let command = other["command"].as_str().expect("command");
    assert!(
        command.contains(args[0]) && command.contains("--trace"),
        "{command}"
    );
    let events = v["traceEvents"].as_array().expect("traceEvents");
    let mut threads = Vec::new();
    let mut processes = 0;
    for e in events {
        assert_eq!(e["pid"], 0, "{e}");
        let ph = e["ph"].as_str().expect("ph");
        match ph {
            "M" => match e["name"].as_str() {
                Some("process_name") => {
                    assert_eq!(e["args"]["name"], "rank 0", "{e}");
                    processes += 1;
                }
                Some("thread_name") => {
                    let tid = e["tid"].as_u64().expect("tid");
                    assert_eq!(e["args"]["name"], format!("worker {tid}"), "{e}");
                    threads.push(tid);
                }
                _ => panic!("unknown metadata {e}"),
            },
            "X" | "i" => {
                assert!(e["tid"].as_u64().expect("tid") < workers, "{e}");
                assert!(e["ts"].as_f64().expect("ts") >= 0.0, "{e}");
                assert!(e["cat"].is_string() && e["name"].is_string(), "{e}");
                if ph == "X" {
                    assert!(e["dur"].as_f64().expect("dur") >= 0.0, "{e}");
                } else {
                    assert_eq!(e["s"], "t", "{e}");
                    assert!(e["args"].is_object(), "{e}");
                }
            }
            _ => panic!("unknown phase {e}"),
        }
    }
    assert_eq!(processes, 1);
    assert_eq!(threads, (0..workers).collect::<Vec<_>>());
    v
}

/// The `(cat, name)` events of `v`.
fn of<'a>(v: &'a Value, cat: &str, name: &str) -> Vec<&'a Value> {
    v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["cat"] == cat && e["name"] == name)
        .collect()
}

#[test]
fn loop_chunks_cover_every_iteration_once_per_step() {
    const N: usize = 3000;
    for (schedule, steps) in [
        ("static", 1),
        ("ss,7", 2),
        ("gss", 1),
        ("rws", 2),
        ("auto", 3),
    ] {
        let (n, s) = (N.to_string(), steps.to_string());
        let args = [
            "loop",
            "dist",
            "--iterations",
            &n,
            "--mean-units",
            "10",
            "--steps",
            &s,
            "--schedule",
            schedule,
            "--workers",
            "2",
            "--json",
        ];
        let v = traced(&args, &format!("loop-{schedule}"), 2);
        let chunks = of(&v, "chunk", "chunk");
        assert!(!chunks.is_empty(), "{schedule}: no chunk");
        // +1 at each chunk's start, -1 at its end: the running sum is the coverage.
        let mut delta = vec![0i64; N + 1];
        for c in chunks {
            assert_eq!(c["ph"], "X", "{c}");
            let a = &c["args"];
            let (start, end, size) = (
                a["start"].as_u64().unwrap() as usize,
                a["end"].as_u64().unwrap() as usize,
                a["size"].as_u64().unwrap() as usize,
            );
            assert!(start < end && end <= N, "{schedule}: {c}");
            assert_eq!(size, end - start, "{c}");
            delta[start] += 1;
            delta[end] -= 1;
        }
        let mut cover = 0;
        for (i, d) in delta[..N].iter().enumerate() {
            cover += d;
            assert_eq!(
                cover, steps,
                "{schedule}: iteration {i} covered {cover} times"
            );
        }
        // The steps ran inside one job sent to the pool.
        assert!(
            !of(&v, "task", "task").is_empty(),
            "{schedule}: no task span"
        );
    }
}

#[test]
fn search_trace_has_task_spans() {
    let args = ["search", "nqueens", "--n", "8", "--workers", "2", "--json"];
    let v = traced(&args, "search-nqueens", 2);
    let tasks = of(&v, "task", "task");
    // depth-bounded with spawn depth 2: the root's 8 children and their children are tasks.
    assert!(tasks.len() > 8, "{} task spans", tasks.len());
    for steal in of(&v, "steal", "steal") {
        let victim = steal["args"]["victim"].as_u64().expect("victim");
        assert!(victim < 2 && steal["tid"] != victim, "{steal}");
    }
    for run in of(&v, "steal", "steal attempts") {
        assert!(
            run["args"]["attempts"].as_u64().expect("attempts") > 0,
            "{run}"
        );
    }
}

#[test]
fn a_bad_trace_path_is_a_usage_error() {
    let bad = "/nonexistent-magpie-dir/t.json";
    for args in [
        &["loop", "dist", "--iterations", "100", "--trace", bad][..],
        &["search", "nqueens", "--n", "6", "--trace", bad][..],
    ] {
        let out = magpie(args, &[]);
        assert_one_line_error(
            &format!("{args:?}"),
            &out,
            &["--trace /nonexistent-magpie-dir/t.json: cannot create the file"],
        );
    }
}
