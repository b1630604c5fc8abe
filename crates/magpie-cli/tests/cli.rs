//! Runs the built `magpie` binary: help, demo, info, and configuration errors.

use std::process::Output;

use magpie::deque::DequeKind;

mod common;
use common::{line_starting, magpie, text, words};

/// Exits 2 with exactly one line on stderr, `magpie: error: …`, containing every `needle`.
fn assert_config_error(out: &Output, needles: &[&str]) {
    common::assert_one_line_error("", out, needles);
}

#[test]
fn help_lists_the_deques() {
    let out = magpie(&["--help"], &[]);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    for name in DequeKind::names() {
        assert!(
            stdout.contains(name),
            "{name} missing from --help:\n{stdout}"
        );
    }
    for word in ["demo", "info", "MAGPIE_DEQUE", "random", "park", "SIGUSR1"] {
        assert!(
            stdout.contains(word),
            "{word} missing from --help:\n{stdout}"
        );
    }
}

#[test]
fn quick_demo_on_chase_lev_checks_every_result() {
    let out = magpie(
        &["demo", "--quick", "--deque", "chase-lev", "--workers", "2"],
        &[],
    );
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "stdout:\n{stdout}\nstderr:\n{}",
        text(&out.stderr)
    );
    // The known answers of the quick tour: UTS "default", NS to genus 18, 9-Queens, and
    // the seeded random graph G(60, 0.5).
    for (workload, answer) in [
        ("UTS default", "1732 nodes"),
        ("NS genus 18", "n_18 = 13467"),
        ("N-Queens 9", "352 solutions"),
        ("max clique G(60, 0.5)", "omega = 8"),
    ] {
        let rows: Vec<&str> = stdout.lines().filter(|l| l.starts_with(workload)).collect();
        assert_eq!(rows.len(), 2, "sequential + one parallel row:\n{stdout}");
        for r in rows {
            assert!(r.contains(answer), "{r}");
            assert!(r.trim_end().ends_with("ok"), "{r}");
        }
    }
    let parallel: Vec<&str> = stdout.lines().filter(|l| l.contains("chase-lev")).collect();
    assert_eq!(parallel.len(), 4, "{stdout}");
    for r in &parallel {
        assert!(r.split_whitespace().any(|w| w == "2"), "2 workers: {r}");
    }
    for col in ["skeleton", "speedup", "steals", "nodes"] {
        assert!(stdout.contains(col), "{col} column missing:\n{stdout}");
    }
    assert!(!stdout.contains("WRONG"), "{stdout}");
    assert!(stdout.contains("all 8 results correct"), "{stdout}");
}

#[test]
fn unknown_deque_exits_2_naming_it_and_the_accepted_ones() {
    let out = magpie(&["--deque", "nonsense", "demo"], &[]);
    let mut needles = vec!["nonsense", "--deque"];
    needles.extend(DequeKind::names());
    assert_config_error(&out, &needles);
}

#[test]
fn zero_workers_exits_2() {
    assert_config_error(&magpie(&["--workers", "0", "demo"], &[]), &["--workers 0"]);
    assert_config_error(
        &magpie(&["demo"], &[("MAGPIE_NUM_WORKERS", "0")]),
        &["MAGPIE_NUM_WORKERS 0"],
    );
}

#[test]
fn other_bad_values_exit_2() {
    assert_config_error(
        &magpie(&["--victims", "nearest", "info"], &[]),
        &["nearest", "random"],
    );
    assert_config_error(&magpie(&["--idle", "nap", "info"], &[]), &["nap", "park"]);
    assert_config_error(
        &magpie(&["--signal", "SIGFOO", "info"], &[]),
        &["SIGFOO", "SIGUSR2"],
    );
    assert_config_error(&magpie(&["--workers", "lots", "info"], &[]), &["lots"]);
    assert_config_error(
        &magpie(&["info"], &[("MAGPIE_DEQUE", "abp")]),
        &["MAGPIE_DEQUE", "\"abp\"", "chase-lev"],
    );
}

#[test]
fn info_shows_flags_over_environment() {
    let out = magpie(
        &["info", "--deque", "lcws-half", "--signal", "SIGUSR2"],
        &[("MAGPIE_DEQUE", "nonsense"), ("MAGPIE_NUM_WORKERS", "3")],
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let line = |key: &str| line_starting(&stdout, key);
    assert!(line("workers").contains("3") && line("workers").contains("MAGPIE_NUM_WORKERS"));
    assert!(line("deque").contains("lcws-half") && line("deque").contains("--deque"));
    assert!(line("victims").contains("random") && line("victims").contains("default"));
    assert!(line("idle").contains("park"));
    assert!(line("signal").contains("SIGUSR2"));
    for name in DequeKind::names() {
        assert!(stdout.contains(name), "{stdout}");
    }
}

#[test]
fn no_subcommand_is_a_usage_error() {
    let out = magpie(&[], &[]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn policy_parameters_are_accepted_and_bad_ones_exit_2_naming_the_key() {
    let out = magpie(
        &words(
            "--victims perf:refresh-max=100ms --idle linear:step=25us --workers \
             2 search nqueens --n 8",
        ),
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("92"), "{}", text(&out.stdout));
    let out = magpie(&["--idle", "linear:stp=25us", "info"], &[]);
    assert_config_error(&out, &["--idle", "linear", "unknown parameter \"stp\""]);
    let out = magpie(&["info"], &[("MAGPIE_VICTIMS", "hierarchical:pin=maybe")]);
    assert_config_error(&out, &["MAGPIE_VICTIMS", "pin", "true or false"]);
}
