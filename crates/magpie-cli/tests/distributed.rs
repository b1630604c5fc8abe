//! `magpie search … --distributed` under `mpirun -np 2, 3, 4` (with `--oversubscribe`, and
//! `--allow-run-as-root` when run as root): every answer against its published oracle with
//! every inter-rank victim policy, the per-rank statistics adding up, and bad input ending
//! the whole job with one error. Built only with the `mpi` feature (the README's test
//! command turns it on).
#![cfg(feature = "mpi")]

mod common;

use std::process::{Command, Output};

use common::text;
use serde_json::Value;

/// `mpirun -np ranks magpie ARGS` with a clean environment.
fn mpirun(ranks: usize, args: &[&str]) -> Output {
    let mut cmd = Command::new("mpirun");
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        cmd.arg("--allow-run-as-root");
    }
    cmd.args(["--oversubscribe", "-np", &ranks.to_string()]);
    cmd.arg(env!("CARGO_BIN_EXE_magpie")).args(args);
    for var in magpie::runtime::ENV_VARS {
        cmd.env_remove(var);
    }
    cmd.output()
        .expect("runs mpirun (Debian: apt-get install openmpi-bin libopenmpi-dev)")
}

/// A distributed search's JSON report, after checking the per-rank statistics.
fn distributed(ranks: usize, args: &[&str]) -> Value {
    let mut all = vec!["search"];
    all.extend_from_slice(args);
    all.extend(["--distributed", "--workers", "1", "--json"]);
    let out = mpirun(ranks, &all);
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "{all:?} on {ranks} ranks: {}\n{stdout}",
        text(&out.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "rank 0 prints one object: {stdout}");
    let v: Value = serde_json::from_str(lines[0]).expect("JSON");
    let per_rank = v["ranks"].as_array().expect("ranks");
    assert_eq!(per_rank.len(), ranks);
    assert_eq!(v["ranks_count"], ranks);
    let nodes: u64 = per_rank.iter().map(|r| r["nodes"].as_u64().unwrap()).sum();
    assert_eq!(
        nodes,
        v["expanded"].as_u64().unwrap(),
        "nodes per rank add up"
    );
    let sent: u64 = per_rank
        .iter()
        .map(|r| r["tasks_sent"].as_u64().unwrap())
        .sum();
    let received: u64 = per_rank
        .iter()
        .map(|r| r["tasks_received"].as_u64().unwrap())
        .sum();
    assert_eq!(sent, received, "every task sent was received");
    for (i, r) in per_rank.iter().enumerate() {
        assert_eq!(r["rank"], i);
    }
    v
}

const VICTIMS: [&str; 2] = ["random", "sticky"];

#[test]
fn uts_t1_and_t3_counts_on_2_3_4_ranks() {
    for ranks in [2, 3, 4] {
        for victims in VICTIMS {
            let v = distributed(ranks, &["uts", "--tree", "T1", "--remote-victims", victims]);
            assert_eq!(v["nodes"], 4_130_071, "T1 on {ranks} ranks, {victims}");
            assert_eq!(v["leaves"], 3_305_118);
            assert_eq!(v["depth"], 10);
            assert_eq!(v["remote_victims"], victims);
        }
    }
    let v = distributed(3, &["uts", "--tree", "T3", "--spawn-depth", "3"]);
    assert_eq!(v["nodes"], 4_112_897);
    assert_eq!(v["leaves"], 3_599_034);
    assert_eq!(v["depth"], 1572);
}

#[test]
fn ns_genus_28_and_nqueens_12() {
    for (ranks, victims) in [(2, "random"), (4, "sticky")] {
        let v = distributed(
            ranks,
            &[
                "ns",
                "--genus",
                "28",
                "--spawn-depth",
                "8",
                "--remote-victims",
                victims,
            ],
        );
        let counts: Vec<u64> = v["counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .collect();
        // OEIS A007323, genus 0..=28 (genus 28: 2,091,030).
        assert_eq!(counts, magpie_apps::ns::EXPECTED_COUNTS[..=28]);
        assert_eq!(counts[28], 2_091_030);
    }
    for ranks in [2, 3] {
        let v = distributed(ranks, &["nqueens", "--n", "12", "--spawn-depth", "3"]);
        assert_eq!(v["solutions"], 14_200);
    }
}

#[test]
fn work_moves_between_ranks() {
    // T1 starts on rank 0 alone: every other rank's nodes came by stealing.
    let v = distributed(4, &["uts", "--tree", "T1"]);
    let ranks = v["ranks"].as_array().unwrap();
    for r in &ranks[1..] {
        assert!(r["tasks_received"].as_u64().unwrap() >= 1, "{r}");
        assert!(r["nodes"].as_u64().unwrap() > 0, "{r}");
        assert!(r["bytes_received"].as_u64().unwrap() > 0, "{r}");
    }
}

#[test]
fn bad_input_ends_every_rank_with_one_error() {
    for (args, needle) in [
        (&["ns", "--genus", "x"][..], "--genus"),
        (
            &["uts", "--tree", "T1", "--remote-victims", "nearest"][..],
            "random, sticky",
        ),
        (
            &["uts", "--tree", "T1", "--skeleton", "budget"][..],
            "depth-bounded",
        ),
        (&["knapsack", "nosuchfile.csv"][..], "nosuchfile.csv"),
    ] {
        let mut all = vec!["search"];
        all.extend_from_slice(args);
        all.push("--distributed");
        let out = mpirun(3, &all);
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "{all:?} must fail");
        let errors: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("magpie: error:"))
            .collect();
        assert_eq!(errors.len(), 1, "{all:?}: one error for the job: {stderr}");
        assert!(errors[0].contains(needle), "{all:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}
