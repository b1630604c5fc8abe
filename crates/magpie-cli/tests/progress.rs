//! `magpie experiment policies`' progress line (issue 16 §2): the runs done on stderr when
//! stderr is a terminal (or with `--progress`), none with `--quiet`, `--format json` or when
//! piped, and stdout the same either way. Run under a pseudo-terminal (`script`).

mod common;
#[path = "common/pty.rs"]
mod pty;

use common::{command, magpie, text, words};
use pty::{assert_no_progress, assert_shows_progress, run_under_pty, shows_runs_bar};

/// A small experiment: fib 15 on 1 worker, 2 runs (2 runs in all).
const SMALL: &str = "experiment policies --app fib --n 15 --workers 1 --runs 2";

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut all = words(SMALL);
    all.extend_from_slice(extra);
    all
}

#[test]
fn a_terminal_shows_the_runs_done_and_progress_forces_them() {
    for extra in [
        &[][..],
        &["--progress"],
        &["--format", "json", "--progress"],
    ] {
        let what = format!("under a terminal with {extra:?}");
        let run = run_under_pty(&command(&args(extra), &[]));
        let running = "fib --n 15 on 1 workers";
        assert_shows_progress(&what, &run, "magpie experiment", 2, running);
        // The report on stdout has nothing of the bar.
        assert_no_progress(&format!("{what}, stdout"), &text(&run.stdout));
    }
}

#[test]
fn progress_draws_on_a_pipe_too() {
    let out = magpie(&args(&["--progress"]), &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        shows_runs_bar(&stderr, "magpie experiment", 2),
        "{stderr:?}"
    );
    assert_no_progress("stdout", &text(&out.stdout));
}

#[test]
fn quiet_json_and_a_pipe_show_nothing() {
    for extra in [&["--quiet"][..], &["--format", "json"]] {
        let what = format!("under a terminal with {extra:?}");
        let run = run_under_pty(&command(&args(extra), &[]));
        assert!(run.status.success(), "{what}: {}", run.terminal);
        assert_no_progress(&what, &run.terminal);
    }
    let out = magpie(&args(&[]), &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_no_progress("piped", &text(&out.stderr));
    assert!(out.stderr.is_empty(), "piped: {}", text(&out.stderr));
}

#[test]
fn stdout_is_the_same_report_with_and_without_the_bar() {
    // The JSON report: same fields and rows (the times differ from run to run).
    let run = run_under_pty(&command(&args(&["--format", "json", "--progress"]), &[]));
    assert!(run.status.success(), "{}", run.terminal);
    assert!(shows_runs_bar(&run.terminal, "magpie experiment", 2));
    let piped = magpie(&args(&["--format", "json"]), &[]);
    assert!(piped.status.success(), "{}", text(&piped.stderr));
    let shown: serde_json::Value = serde_json::from_slice(&run.stdout).expect("JSON on stdout");
    let plain: serde_json::Value = serde_json::from_slice(&piped.stdout).expect("JSON on stdout");
    let keys = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&shown), keys(&plain));
    assert_eq!(shown["rows"].as_array().map(Vec::len), Some(1));
    assert_eq!(plain["rows"].as_array().map(Vec::len), Some(1));
    assert_eq!(keys(&shown["rows"][0]), keys(&plain["rows"][0]));
    assert_eq!(text(&run.stdout).lines().count(), 1, "one JSON line");
    // The table: the same lines but for the measured numbers.
    let run = run_under_pty(&command(&args(&["--progress"]), &[]));
    let piped = magpie(&args(&[]), &[]);
    let shape = |bytes: &[u8]| {
        text(bytes)
            .lines()
            .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(shape(&run.stdout), shape(&piped.stdout));
}

#[test]
fn progress_and_quiet_together_are_a_usage_error() {
    let out = magpie(&args(&["--progress", "--quiet"]), &[]);
    common::assert_one_line_error("--progress --quiet", &out, &["--progress", "--quiet"]);
}

/// `magpie search`'s status line: drawn at the start (elapsed, nodes, nodes/s, tasks,
/// steals) on a terminal or with `--progress`; nothing with `--quiet`, `--json` or a pipe;
/// the report on stdout the same either way.
#[test]
fn a_search_shows_its_status_line_on_a_terminal() {
    let search = ["search", "nqueens", "--n", "8"];
    let plain = magpie(&search, &[]);
    assert!(plain.status.success(), "{}", text(&plain.stderr));
    assert!(plain.stderr.is_empty(), "piped: {}", text(&plain.stderr));
    let report = |stdout: &[u8]| {
        // The report without its timings, which differ from run to run.
        text(stdout)
            .lines()
            .filter(|l| !l.starts_with("seconds"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let run = run_under_pty(&command(&search, &[]));
    assert!(run.status.success(), "{}", run.terminal);
    for needle in [" nodes (", " nodes/s), ", " tasks, ", " steals"] {
        assert!(
            run.terminal.contains(needle),
            "{needle}: {:?}",
            run.terminal
        );
    }
    assert_eq!(report(&run.stdout), report(&plain.stdout));
    let forced = magpie(&["search", "nqueens", "--n", "8", "--progress"], &[]);
    assert!(
        text(&forced.stderr).contains(" nodes/s), "),
        "{}",
        text(&forced.stderr)
    );
    for quiet in [&["--quiet"][..], &["--json"]] {
        let mut args = search.to_vec();
        args.extend_from_slice(quiet);
        let run = run_under_pty(&command(&args, &[]));
        assert!(run.status.success(), "{quiet:?}: {}", run.terminal);
        assert_no_progress(&format!("{quiet:?}"), &run.terminal);
        assert!(
            !run.terminal.contains("nodes/s"),
            "{quiet:?}: {}",
            run.terminal
        );
    }
}

/// `magpie loop`'s status line: the steps done of the total and the schedule, on a terminal
/// only (not with `--quiet`).
#[test]
fn a_loop_shows_its_steps_on_a_terminal() {
    let args = ["loop", "histogram", "--steps", "2", "--schedule", "gss"];
    let run = run_under_pty(&command(&args, &[]));
    assert!(run.status.success(), "{}", run.terminal);
    assert!(
        run.terminal.contains("/2 steps, schedule gss, "),
        "{:?}",
        run.terminal
    );
    let mut quiet = args.to_vec();
    quiet.push("--quiet");
    let run = run_under_pty(&command(&quiet, &[]));
    assert!(run.status.success(), "{}", run.terminal);
    assert_no_progress("--quiet", &run.terminal);
}
