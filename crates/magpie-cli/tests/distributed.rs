//! `magpie search … --distributed` under `mpirun -np 2, 3, 4` (with `--oversubscribe`, and
//! `--allow-run-as-root` when run as root): every answer against its published oracle with
//! every inter-rank victim policy (UTS T1/T3, NS to genus 28, N-Queens 12, ω of brock200_1..4,
//! knapsack and TSP optima), the per-rank statistics adding up, incumbents reaching every
//! rank, a decision search stopping early, and bad input ending the whole job with one
//! error. Built only with the `mpi` feature (the README's test
//! command turns it on).
#![cfg(feature = "mpi")]

mod common;

use common::{assert_failing_rank_ends_job, assert_one_job_error, mpirun, mpirun_report, text};
use serde_json::Value;

/// A distributed search's JSON report, after checking the per-rank statistics.
fn distributed(ranks: usize, args: &[&str]) -> Value {
    let mut all = vec!["search"];
    all.extend_from_slice(args);
    all.extend(["--distributed", "--workers", "1", "--json"]);
    let v = mpirun_report(ranks, &all);
    let per_rank = v["ranks"].as_array().expect("ranks");
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

const VICTIMS: [&str; 3] = ["random", "sticky", "perf"];

/// The per-genus counts of an NS report.
fn ns_counts(v: &Value) -> Vec<u64> {
    v["counts"]
        .as_array()
        .expect("counts")
        .iter()
        .map(|c| c.as_u64().expect("a count"))
        .collect()
}

#[test]
fn uts_t1_and_t3_counts_on_2_3_4_ranks() {
    for ranks in [2, 3, 4] {
        for victims in VICTIMS {
            let v = distributed(ranks, &["uts", "--tree", "T1", "--remote-victims", victims]);
            assert_eq!(v["nodes"], 4_130_071, "T1 on {ranks} ranks, {victims}");
            assert_eq!(v["leaves"], 3_305_118);
            assert_eq!(v["depth"], 10);
            assert_eq!(v["remote_victims"], victims);
            for r in v["ranks"].as_array().unwrap() {
                let refreshes = r["refreshes"].as_u64().unwrap();
                if victims == "perf" {
                    // The first automatic refresh is 1 ms after the start.
                    assert!(refreshes >= 1, "the perf monitor refreshes: {r}");
                } else {
                    assert_eq!(refreshes + r["aux_refreshes"].as_u64().unwrap(), 0);
                }
            }
        }
    }
    for (ranks, victims) in [(3, "random"), (2, "sticky"), (4, "perf")] {
        let args = ["uts", "--tree", "T3", "--spawn-depth", "3"];
        let v = distributed(ranks, &[&args[..], &["--remote-victims", victims]].concat());
        assert_eq!(v["nodes"], 4_112_897, "T3 on {ranks} ranks, {victims}");
        assert_eq!(v["leaves"], 3_599_034);
        assert_eq!(v["depth"], 1572);
    }
}

#[test]
fn ns_genus_28_and_nqueens_12() {
    for (ranks, victims) in [(2, "random"), (4, "sticky"), (3, "perf")] {
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
        let counts = ns_counts(&v);
        // OEIS A007323, genus 0..=28 (genus 28: 2,091,030).
        assert_eq!(counts, magpie_apps::ns::EXPECTED_COUNTS[..=28]);
        assert_eq!(counts[28], 2_091_030);
    }
    for (ranks, victims) in [(2, "random"), (3, "sticky"), (4, "perf")] {
        let args = ["nqueens", "--n", "12", "--spawn-depth", "3"];
        let v = distributed(ranks, &[&args[..], &["--remote-victims", victims]].concat());
        assert_eq!(v["solutions"], 14_200, "{ranks} ranks, {victims}");
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
fn every_worker_of_a_rank_works() {
    // A rank's workers are long-lived tasks of one scope: on the default split deque the
    // ones not yet started must be exposed, or one worker does all the work (it did).
    for (ranks, skeleton) in [(1, "budget"), (2, "budget"), (2, "depth-bounded")] {
        let out = mpirun(
            ranks,
            &[
                "search",
                "uts",
                "--tree",
                "T1",
                "--skeleton",
                skeleton,
                "--distributed",
                "--workers",
                "2",
                "--json",
            ],
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        let v: Value = serde_json::from_str(text(&out.stdout).trim()).expect("JSON");
        assert_eq!(v["nodes"], 4_130_071);
        for r in v["ranks"].as_array().unwrap() {
            let per_worker = r["worker_nodes"].as_array().unwrap();
            assert_eq!(per_worker.len(), 2, "{r}");
            let sum: u64 = per_worker.iter().map(|n| n.as_u64().unwrap()).sum();
            assert_eq!(sum, r["nodes"].as_u64().unwrap(), "{r}");
            for n in per_worker {
                assert!(n.as_u64().unwrap() > 0, "{ranks} ranks, {skeleton}: {r}");
            }
        }
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
            &["uts", "--tree", "T1", "--remote-victims", "perf:speed=2"][..],
            "unknown perf parameter \"speed\"",
        ),
        (
            &["uts", "--tree", "T1", "--remote-victims", "perf:grow=5"][..],
            "unit",
        ),
        (
            &["uts", "--tree", "T1", "--skeleton", "ordered"][..],
            "depth-bounded, budget and stack-stealing",
        ),
        (&["knapsack", "nosuchfile.csv"][..], "nosuchfile.csv"),
        (
            &["nqueens", "--n", "8", "--max-depth", "3"][..],
            "--max-depth",
        ),
    ] {
        let mut all = vec!["search"];
        all.extend_from_slice(args);
        all.push("--distributed");
        let out = mpirun(3, &all);
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "{all:?} must fail");
        assert_one_job_error(&format!("{all:?}"), &stderr, needle);
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

fn instance(relative: &str) -> String {
    magpie_apps::shared::path(&format!("instances/{relative}"))
        .display()
        .to_string()
}

#[test]
fn omega_of_brock200_1_to_4_with_every_victim_policy() {
    for (graph, omega) in [("1", 21), ("2", 12), ("3", 15), ("4", 17)] {
        for (ranks, victims) in [(2, "random"), (3, "sticky"), (4, "perf")] {
            let file = instance(&format!("dimacs/brock200_{graph}.clq"));
            let v = distributed(ranks, &["maxclique", &file, "--remote-victims", victims]);
            assert_eq!(
                v["omega"], omega,
                "brock200_{graph} on {ranks} ranks, {victims}"
            );
            assert_eq!(v["clique"].as_array().unwrap().len(), omega);
        }
    }
}

#[test]
fn a_new_incumbent_reaches_every_rank() {
    // brock200_1 (ω = 21) improves its incumbent many times. The first improvement goes to
    // every other rank: each rank either found an incumbent itself or heard of one.
    let v = distributed(4, &["maxclique", &instance("dimacs/brock200_1.clq")]);
    assert_eq!(v["omega"], 21);
    let ranks = v["ranks"].as_array().unwrap();
    let sent: u64 = ranks
        .iter()
        .map(|r| r["bounds_sent"].as_u64().unwrap())
        .sum();
    assert!(
        sent >= 3,
        "an incumbent goes to each of the 3 other ranks: {sent}"
    );
    for r in ranks {
        let heard = r["bounds_received"].as_u64().unwrap();
        let told = r["bounds_sent"].as_u64().unwrap();
        assert!(heard + told >= 1, "{r}");
    }
}

#[test]
fn omega_of_san200_0_9_2_needs_bound_sharing() {
    // san200_0.9_2 (ω = 60) prunes well once a rank has found a 60-clique, and that clique
    // has to reach the other ranks to prune theirs. Measured on 4 ranks × 1 worker with the
    // broadcast switched off (a scratch build): 449,826–893,794 nodes; with it, under
    // every policy, 32,506–147,596 (sequential: 229,896). The limit sits between the two.
    let file = instance("dimacs/san200_0.9_2.clq");
    for victims in VICTIMS {
        let v = distributed(4, &["maxclique", &file, "--remote-victims", victims]);
        assert_eq!(v["omega"], 60, "{victims}");
        let expanded = v["expanded"].as_u64().unwrap();
        assert!(
            expanded < 300_000,
            "{victims}: {expanded} nodes: incumbents did not reach the other ranks ({v})"
        );
        let heard: u64 = v["ranks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["bounds_received"].as_u64().unwrap())
            .sum();
        assert!(heard >= 3, "{victims}: bounds received {heard}");
    }
}

#[test]
fn decision_stops_early() {
    let file = instance("dimacs/brock200_4.clq");
    let full = distributed(2, &["maxclique", &file, "--target", "18"]);
    assert_eq!(full["found"], false, "ω(brock200_4) = 17");
    let found = distributed(2, &["maxclique", &file, "--target", "15"]);
    assert_eq!(found["found"], true);
    assert_eq!(found["clique"].as_array().unwrap().len(), 15);
    let (a, b) = (
        found["expanded"].as_u64().unwrap(),
        full["expanded"].as_u64().unwrap(),
    );
    assert!(
        a * 4 < b,
        "a found clique stops the search: {a} nodes vs {b} for the full tree"
    );
}

#[test]
fn knapsack_and_tsp_optima() {
    let knapsack = instance("knapsack/large_scale/knapPI_1_100_1000_1");
    for victims in VICTIMS {
        let v = distributed(3, &["knapsack", &knapsack, "--remote-victims", victims]);
        assert_eq!(v["profit"], 9147, "{victims}");
    }
    for (file, length) in [
        ("ulysses16.tsp", 6859),
        ("gr17.tsp", 2085),
        ("fri26.tsp", 937),
    ] {
        for victims in VICTIMS {
            let path = instance(&format!("tsplib/{file}"));
            let v = distributed(2, &["tsp", &path, "--remote-victims", victims]);
            assert_eq!(v["length"], length, "{file}, {victims}");
        }
    }
}

#[test]
fn a_rank_that_fails_ends_the_job() {
    // Rank 1 panics at the start on its main thread (MAGPIE_FAIL_RANK=1), while the others
    // are already waiting for work from rank 0; or a worker thread of rank 1 panics in the
    // middle of the search (MAGPIE_FAIL_RANK=1:worker, at its 100th node), where only the
    // main thread may call MPI. The job must end, not hang: under `timeout` as a guard.
    for (ranks, place, needle) in [
        (
            2,
            "1",
            "rank 1 failed: failure injected by MAGPIE_FAIL_RANK=1",
        ),
        (
            4,
            "1",
            "rank 1 failed: failure injected by MAGPIE_FAIL_RANK=1",
        ),
        (
            2,
            "1:worker",
            "rank 1 failed: failure injected by MAGPIE_FAIL_RANK on a worker",
        ),
        (
            3,
            "1:worker",
            "rank 1 failed: failure injected by MAGPIE_FAIL_RANK on a worker",
        ),
    ] {
        let args = [
            "search",
            "uts",
            "--tree",
            "T1",
            "--distributed",
            "--workers",
            "1",
        ];
        let out = assert_failing_rank_ends_job(ranks, &args, place, needle);
        assert!(text(&out.stdout).lines().all(|l| !l.starts_with("answer")));
    }
}

#[test]
fn budget_skeleton_counts_and_balances() {
    // NS is too lopsided for DepthBounded (one subtree holds most of the tree); Budget spills
    // work as it goes, so every rank gets a share.
    for (ranks, victims) in [(2, "random"), (3, "sticky"), (4, "perf")] {
        let v = distributed(
            ranks,
            &[
                "ns",
                "--genus",
                "28",
                "--skeleton",
                "budget",
                "--budget",
                "1000",
                "--remote-victims",
                victims,
            ],
        );
        let counts = ns_counts(&v);
        assert_eq!(counts, magpie_apps::ns::EXPECTED_COUNTS[..=28]);
        for r in v["ranks"].as_array().unwrap() {
            assert!(r["nodes"].as_u64().unwrap() > 0, "every rank worked: {r}");
        }
    }
    let v = distributed(4, &["uts", "--tree", "T3", "--skeleton", "budget"]);
    assert_eq!(v["nodes"], 4_112_897);
    let v = distributed(
        2,
        &[
            "maxclique",
            &instance("dimacs/brock200_1.clq"),
            "--skeleton",
            "budget",
        ],
    );
    assert_eq!(v["omega"], 21);
}

#[test]
fn stack_stealing_over_ranks() {
    // No tasks exist until someone asks: a thief's request waits on its victim until a busy
    // worker there splits its stack. Every rank must get work that way.
    for (ranks, victims, steal_all) in [
        (2, "random", false),
        (3, "perf", true),
        (3, "sticky", false),
    ] {
        let mut args = vec!["uts", "--tree", "T1", "--skeleton", "stack-stealing"];
        args.extend(["--remote-victims", victims]);
        if steal_all {
            args.push("--steal-all");
        }
        let v = distributed(ranks, &args);
        assert_eq!(v["nodes"], 4_130_071, "T1, {ranks} ranks, {victims}");
        assert_eq!(v["leaves"], 3_305_118);
        for r in v["ranks"].as_array().unwrap() {
            assert!(r["nodes"].as_u64().unwrap() > 0, "every rank worked: {r}");
        }
    }
    let v = distributed(
        2,
        &[
            "ns",
            "--genus",
            "26",
            "--skeleton",
            "stack-stealing",
            "--steal-all",
        ],
    );
    assert_eq!(ns_counts(&v), magpie_apps::ns::EXPECTED_COUNTS[..=26]);
    let file = instance("dimacs/brock200_1.clq");
    let v = distributed(3, &["maxclique", &file, "--skeleton", "stack-stealing"]);
    assert_eq!(v["omega"], 21);
}

/// A job whose ranks together would start more than `MAX_WORKERS` worker threads ends with
/// one error naming ranks, workers and the limit, for the search and the loop alike.
#[test]
fn ranks_times_workers_above_the_limit_is_one_error() {
    for args in [
        &[
            "search",
            "nqueens",
            "--n",
            "8",
            "--distributed",
            "--workers",
            "4000",
        ][..],
        &[
            "loop",
            "dist",
            "--distributed",
            "--workers",
            "3000",
            "--iterations",
            "1000",
        ],
    ] {
        let out = mpirun(2, args);
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}: {}", text(&out.stdout));
        assert_one_job_error(&format!("{args:?}"), &stderr, "2 ranks x ");
        assert!(stderr.contains("at most 4096"), "{stderr}");
    }
}
