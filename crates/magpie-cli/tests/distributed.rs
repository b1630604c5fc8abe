//! `magpie search … --distributed` under `mpirun -np 2, 3, 4` (with `--oversubscribe`, and
//! `--allow-run-as-root` when run as root): every answer against its published oracle with
//! every inter-rank victim policy (UTS T1/T3, NS to genus 28, N-Queens 12, ω of brock200_1..4,
//! knapsack and TSP optima), the per-rank statistics adding up, incumbents reaching every
//! rank, a decision search stopping early, and bad input ending the whole job with one
//! error. Built only with the `mpi` feature (the README's test
//! command turns it on).
#![cfg(feature = "mpi")]

mod common;

use common::{
    assert_distributed_usage_error, assert_failing_rank_ends_job, assert_killed_rank_ends_job,
    assert_one_job_error, mpirun, mpirun_job, mpirun_report, text, words,
};
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
    assert_workers_add_up(&v, 1);
    v
}

/// The per-worker statistics of a distributed JSON report with `workers` workers per rank:
/// one entry per worker of each rank, in order, each rank's adding up to its `nodes` and
/// all of them to `stats` (expanded, pruned, backtracks), and the rank-level figures equal
/// to what `stats` keeps of them. Returns the entries.
fn assert_workers_add_up(v: &Value, workers: usize) -> Vec<Value> {
    let ranks = v["ranks"].as_array().expect("ranks");
    let entries = v["worker_stats"].as_array().expect("worker_stats").clone();
    assert_eq!(entries.len(), ranks.len() * workers, "ranks × workers: {v}");
    for (i, w) in entries.iter().enumerate() {
        assert_eq!(
            (w["rank"].as_u64(), w["worker"].as_u64()),
            (Some((i / workers) as u64), Some((i % workers) as u64)),
            "{w}"
        );
    }
    let sum = |key: &str| -> u64 { entries.iter().map(|w| w[key].as_u64().unwrap()).sum() };
    for key in ["expanded", "pruned", "backtracks"] {
        assert_eq!(
            sum(key),
            v["stats"][key].as_u64().unwrap(),
            "{key}: sum over workers"
        );
    }
    assert_eq!(sum("expanded"), v["expanded"].as_u64().unwrap());
    for r in ranks {
        let rank = r["rank"].as_u64().unwrap();
        let mine: u64 = entries
            .iter()
            .filter(|w| w["rank"] == rank)
            .map(|w| w["expanded"].as_u64().unwrap())
            .sum();
        assert_eq!(mine, r["nodes"].as_u64().unwrap(), "rank {rank}");
    }
    let inter = |key: &str| -> u64 { ranks.iter().map(|r| r[key].as_u64().unwrap()).sum() };
    assert_eq!(v["inter_rank_tasks"], inter("tasks_sent"));
    assert_eq!(v["inter_rank_steals"], inter("steals_ok"));
    assert_eq!(
        v["stats"]["tasks"], v["inter_rank_tasks"],
        "stats.tasks is rank-level"
    );
    assert_eq!(
        v["stats"]["steals"], v["inter_rank_steals"],
        "stats.steals is rank-level"
    );
    entries
}

/// A field of each worker entry.
fn each(entries: &[Value], key: &str) -> Vec<u64> {
    entries.iter().map(|w| w[key].as_u64().unwrap()).collect()
}

/// A local (not distributed) search's JSON report.
fn local(args: &[&str]) -> Value {
    let mut all = vec!["search"];
    all.extend_from_slice(args);
    all.extend(["--workers", "1", "--json"]);
    let out = common::magpie(&all, &[]);
    assert!(out.status.success(), "{all:?}: {}", text(&out.stderr));
    serde_json::from_str(text(&out.stdout).trim()).expect("JSON")
}

#[test]
fn statistics_of_complete_enumerations_match_the_local_run() {
    // Every node is expanded once and each expanded node's child generator runs to its end
    // on the worker that expanded it: backtracks = expanded, for every worker. One worker
    // per rank: no task moves between workers of a rank.
    let local_t1 = local(&["uts", "--tree", "T1"]);
    assert_eq!(local_t1["stats"]["backtracks"], 4_130_071);
    for ranks in [1, 2, 4] {
        let v = distributed(ranks, &["uts", "--tree", "T1"]);
        assert_eq!(v["expanded"], 4_130_071, "{ranks} ranks");
        assert_eq!(v["stats"]["backtracks"], 4_130_071, "{ranks} ranks");
        assert_eq!(v["stats"]["pruned"], 0);
        let w = assert_workers_add_up(&v, 1);
        assert_eq!(
            each(&w, "backtracks"),
            each(&w, "expanded"),
            "{ranks} ranks"
        );
        assert!(each(&w, "steals").iter().all(|&s| s == 0), "{v}");
        // DepthBounded, spawn depth 2: the tasks are the nodes at depths 1 and 2, each made
        // once by some worker, as the local search makes them.
        let tasks: u64 = each(&w, "tasks").iter().sum();
        assert_eq!(
            tasks,
            local_t1["stats"]["tasks"].as_u64().unwrap(),
            "{ranks} ranks"
        );
    }
    for skeleton in [
        &["--skeleton", "budget", "--budget", "100"][..],
        &["--skeleton", "stack-stealing"],
    ] {
        let v = distributed(2, &[&["uts", "--tree", "T1"][..], skeleton].concat());
        assert_eq!(v["stats"]["backtracks"], 4_130_071, "{skeleton:?}");
        let w = assert_workers_add_up(&v, 1);
        assert_eq!(each(&w, "backtracks"), each(&w, "expanded"), "{skeleton:?}");
        // The second rank's work came from tasks a worker of the first made.
        assert!(
            each(&w, "tasks").iter().sum::<u64>() >= 1,
            "{skeleton:?}: {v}"
        );
    }
    // NS to genus 24: the nodes are the semigroups of genus 0..=24 (OEIS A007323), the
    // tasks those of genus 1..=8 (spawn depth 8).
    let counts = &magpie_apps::ns::EXPECTED_COUNTS;
    let v = distributed(3, &["ns", "--genus", "24", "--spawn-depth", "8"]);
    let nodes: u64 = counts[..=24].iter().sum();
    assert_eq!(v["expanded"], nodes);
    assert_eq!(v["stats"]["backtracks"], nodes);
    let w = assert_workers_add_up(&v, 1);
    assert_eq!(
        each(&w, "tasks").iter().sum::<u64>(),
        counts[1..=8].iter().sum::<u64>()
    );
    // N-Queens 12: the same tree as the local search's.
    let args = ["nqueens", "--n", "12", "--spawn-depth", "3"];
    let expanded = local(&args)["expanded"].as_u64().unwrap();
    let v = distributed(4, &args);
    assert_eq!(v["solutions"], 14_200);
    assert_eq!(v["expanded"], expanded);
    assert_eq!(v["stats"]["backtracks"], expanded);
}

#[test]
fn workers_of_a_rank_steal_from_each_other() {
    // One rank, two workers, both working (see every_worker_of_a_rank_works): the first task
    // of whichever did not start with the root was made by the other, a steal.
    let v = mpirun_report(
        1,
        &words("search uts --tree T1 --skeleton budget --distributed")
            .iter()
            .chain(&["--workers", "2", "--json"])
            .copied()
            .collect::<Vec<_>>(),
    );
    let w = assert_workers_add_up(&v, 2);
    assert!(each(&w, "expanded").iter().all(|&n| n > 0), "{v}");
    assert_eq!(each(&w, "backtracks"), each(&w, "expanded"));
    assert!(each(&w, "steals").iter().sum::<u64>() >= 1, "{v}");
    assert_eq!(
        v["inter_rank_steals"], 0,
        "one rank: nothing moves between ranks"
    );
    assert_eq!(v["expanded"], 4_130_071);
}

#[test]
fn optimisation_prunes_on_every_rank_count() {
    // brock200_2 (ω = 12) prunes about as many nodes as it expands locally. Branch and bound
    // runs to the end: every expanded node's generator ends (run out or cut by prune-level).
    let file = instance("dimacs/brock200_2.clq");
    let l = local(&["maxclique", &file]);
    assert!(l["stats"]["pruned"].as_u64().unwrap() > 1000, "{l}");
    for ranks in [1, 2, 4] {
        let v = distributed(ranks, &["maxclique", &file]);
        assert_eq!(v["omega"], 12);
        let pruned = v["stats"]["pruned"].as_u64().unwrap();
        assert!(pruned > 1000, "{ranks} ranks: pruned {pruned}: {v}");
        assert_eq!(v["stats"]["backtracks"], v["expanded"], "{ranks} ranks");
        let w = assert_workers_add_up(&v, 1);
        assert_eq!(each(&w, "backtracks"), each(&w, "expanded"));
    }
}

#[test]
fn text_report_labels_rank_level_figures() {
    let file = instance("dimacs/brock200_2.clq");
    let args = [
        "search",
        "maxclique",
        &file,
        "--distributed",
        "--workers",
        "2",
        "--stats",
    ];
    let out = mpirun(2, &args);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let value = |key: &str| -> String {
        let l = stdout
            .lines()
            .find(|l| l.starts_with(key))
            .unwrap_or_else(|| panic!("{key}: {stdout}"));
        l[12..].to_string()
    };
    let number = |key: &str| -> u64 {
        value(key)
            .parse()
            .unwrap_or_else(|_| panic!("{key}: {stdout}"))
    };
    assert!(number("pruned") > 1000, "{stdout}");
    assert_eq!(number("backtracks"), number("expanded"));
    // Two ranks × two workers; the per-rank nodes on their own, labelled, line.
    let per_worker: Vec<u64> = value("per worker")
        .split(' ')
        .map(|n| n.parse().unwrap())
        .collect();
    let per_rank: Vec<u64> = value("per rank")
        .split(' ')
        .map(|n| n.parse().unwrap())
        .collect();
    assert_eq!(per_worker.len(), 4, "{stdout}");
    assert_eq!(
        per_rank,
        [per_worker[0] + per_worker[1], per_worker[2] + per_worker[3]]
    );
    assert_eq!(per_rank.iter().sum::<u64>(), number("expanded"));
    assert!(
        value("rank level").contains("tasks sent between ranks"),
        "{stdout}"
    );
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
        for (victims, v) in under_each_policy(ranks, &["uts", "--tree", "T1"]) {
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
            &words(&format!(
                "ns --genus 28 --spawn-depth 8 --remote-victims {victims}"
            )),
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
            &words(&format!(
                "search uts --tree T1 --skeleton \
                 {skeleton} --distributed --workers 2 --json"
            )),
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
            &["uts", "--tree", "T1", "--skeleton", "seq"][..],
            "depth-bounded, budget, stack-stealing and ordered skeletons; seq is not distributed",
        ),
        (
            &words("uts --tree T1 --skeleton ordered --remote-victims sticky")[..],
            "--remote-victims does not apply to --skeleton ordered",
        ),
        (
            &words("nqueens --n 28 --skeleton ordered --spawn-depth 12")[..],
            "more than 4194304 nodes",
        ),
        (&["knapsack", "nosuchfile.csv"][..], "nosuchfile.csv"),
        (
            &[
                "maxclique",
                &instance("dimacs/brock200_4.clq"),
                "--skeleton",
                "ordered",
                "--replicable",
                "2",
            ][..],
            "--replicable applies to one process only",
        ),
        (
            &["nqueens", "--n", "8", "--max-depth", "3"][..],
            "--max-depth",
        ),
    ] {
        assert_distributed_usage_error("search", args, needle);
    }
}

/// The [`distributed`] report of `args` on `ranks` ranks under each remote victim policy of
/// [`VICTIMS`], with the policy.
fn under_each_policy<'a>(
    ranks: usize,
    args: &'a [&'a str],
) -> impl Iterator<Item = (&'static str, Value)> + 'a {
    VICTIMS.into_iter().map(move |victims| {
        let all = [args, &["--remote-victims", victims]].concat();
        (victims, distributed(ranks, &all))
    })
}

fn instance(relative: &str) -> String {
    magpie_apps::testdata::path(relative).display().to_string()
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
    for (victims, v) in under_each_policy(4, &["maxclique", &file]) {
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
    for (victims, v) in under_each_policy(3, &["knapsack", &knapsack]) {
        assert_eq!(v["profit"], 9147, "{victims}");
    }
    for (file, length) in [
        ("ulysses16.tsp", 6859),
        ("gr17.tsp", 2085),
        ("fri26.tsp", 937),
    ] {
        let path = instance(&format!("tsplib/{file}"));
        for (victims, v) in under_each_policy(2, &["tsp", &path]) {
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
        let args = words(FAILING_SEARCH);
        let job = assert_failing_rank_ends_job(ranks, &args, place, needle);
        assert!(text(&job.out.stdout)
            .lines()
            .all(|l| !l.starts_with("answer")));
    }
}

/// The search the failure tests run: long enough that a rank fails mid-search.
const FAILING_SEARCH: &str = "search uts --tree T1 --distributed --workers 1";

#[test]
fn a_rank_killed_mid_search_ends_the_job() {
    // Rank 1 dies of SIGKILL at its 100th node (MAGPIE_FAIL_RANK=1:kill), with the work it
    // stole: the job must end within 10 s, non-zero, with mpirun naming rank 1.
    for ranks in [2, 3] {
        let args = words(FAILING_SEARCH);
        let job = assert_killed_rank_ends_job(ranks, &args);
        assert!(text(&job.out.stdout)
            .lines()
            .all(|l| !l.starts_with("answer")));
    }
}

#[test]
fn budget_skeleton_counts_and_balances() {
    // NS is too lopsided for DepthBounded (one subtree holds most of the tree); Budget spills
    // work as it goes, so every rank gets a share.
    for (ranks, victims) in [(2, "random"), (3, "sticky"), (4, "perf")] {
        let v = distributed(
            ranks,
            &words(&format!(
                "ns --genus 28 --skeleton \
                 budget --budget 1000 --remote-victims {victims}"
            )),
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
        &words("ns --genus 26 --skeleton stack-stealing --steal-all"),
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
        &words("search nqueens --n 8 --distributed --workers 4000")[..],
        &words("loop dist --distributed --workers 3000 --iterations 1000"),
    ] {
        let job = mpirun_job(2, args, &[], 120);
        assert_eq!(job.out.status.code(), Some(2), "{args:?}: {}", job.stderr);
        assert!(
            job.out.stdout.is_empty(),
            "{args:?}: {}",
            text(&job.out.stdout)
        );
        assert_one_job_error(&format!("{args:?}"), &job, "2 ranks x ");
        assert!(job.reports[0].contains("at most 4096"), "{:?}", job.reports);
    }
}

/// The JSON report of a local ordered run of `args` (1 worker).
fn ordered_tasks_locally(args: &[&str]) -> u64 {
    local(&[args, &["--skeleton", "ordered"]].concat())["stats"]["tasks"]
        .as_u64()
        .unwrap()
}

#[test]
fn ordered_over_ranks_gives_the_local_answers_each_task_once() {
    // Every task searched exactly once, whichever rank takes it: the exact counts of T1, NS
    // and N-Queens, and rank 0's worker 0 made as many tasks as a local ordered run has.
    for (ranks, order) in [(2, "sequential"), (3, "discrepancy"), (4, "sequential")] {
        let args = ["uts", "--tree", "T1", "--spawn-depth", "3"];
        let v = distributed(
            ranks,
            &[&args[..], &["--skeleton", "ordered", "--order", order]].concat(),
        );
        assert_eq!(v["nodes"], 4_130_071, "T1 on {ranks} ranks, {order}");
        assert_eq!(v["leaves"], 3_305_118);
        assert_eq!(v["depth"], 10);
        assert_eq!(v["remote_victims"], "rank0");
        let made = v["worker_stats"][0]["tasks"].as_u64().unwrap();
        assert_eq!(made, ordered_tasks_locally(&args), "{ranks} ranks, {order}");
        let ranks_v = v["ranks"].as_array().unwrap();
        for r in &ranks_v[1..] {
            // Every task lives on rank 0 until taken: only rank 0 is asked, and sends.
            assert_eq!(r["tasks_sent"], 0, "{r}");
            assert_eq!(r["requests_received"], 0, "{r}");
        }
        assert_eq!(ranks_v[0]["requests_sent"], 0, "rank 0 never asks");
    }
    let v = distributed(
        3,
        &words("ns --genus 24 --skeleton ordered --spawn-depth 6"),
    );
    assert_eq!(ns_counts(&v), magpie_apps::ns::EXPECTED_COUNTS[..=24]);
    let v = distributed(
        2,
        &words("nqueens --n 12 --skeleton ordered --spawn-depth 3 --order discrepancy"),
    );
    assert_eq!(v["solutions"], 14_200);
    // Two workers per rank: each idle worker gets the next task.
    let all = words(
        "search uts --tree T1 --skeleton ordered --spawn-depth 4 --distributed --workers 2 --json",
    );
    let v = mpirun_report(2, &all);
    assert_eq!(v["nodes"], 4_130_071);
    assert_workers_add_up(&v, 2);
}

#[test]
fn ordered_over_ranks_finds_the_optima() {
    for (graph, omega) in [("1", 21), ("2", 12), ("3", 15), ("4", 17)] {
        for (ranks, order) in [(2, "sequential"), (3, "discrepancy")] {
            let file = instance(&format!("dimacs/brock200_{graph}.clq"));
            let args = [
                "maxclique",
                &file,
                "--skeleton",
                "ordered",
                "--order",
                order,
            ];
            let v = distributed(ranks, &args);
            assert_eq!(
                v["omega"], omega,
                "brock200_{graph}, {ranks} ranks, {order}"
            );
            assert_eq!(v["clique"].as_array().unwrap().len(), omega);
        }
    }
    let knapsack = instance("knapsack/large_scale/knapPI_3_500_1000_1");
    let v = distributed(3, &["knapsack", &knapsack, "--skeleton", "ordered"]);
    assert_eq!(v["profit"], 7117);
    let path = instance("tsplib/gr17.tsp");
    let v = distributed(
        2,
        &[
            "tsp",
            &path,
            "--skeleton",
            "ordered",
            "--order",
            "discrepancy",
        ],
    );
    assert_eq!(v["length"], 2085);
    // A decision: found, or proved absent (ω = 21), on every rank count.
    let file = instance("dimacs/brock200_1.clq");
    for ranks in [2, 3] {
        let v = distributed(
            ranks,
            &[
                "maxclique",
                &file,
                "--skeleton",
                "ordered",
                "--target",
                "20",
            ],
        );
        assert_eq!(v["found"], true);
        assert_eq!(v["clique"].as_array().unwrap().len(), 20, "{v}");
        let v = distributed(
            ranks,
            &[
                "maxclique",
                &file,
                "--skeleton",
                "ordered",
                "--target",
                "22",
            ],
        );
        assert_eq!(v["found"], false, "{v}");
    }
}

/// `--time-limit` over MPI: rank 0 decides, every rank stops and sends what it has, the job
/// ends normally with exit code 3, and rank 0 reports a checked partial answer (ω of
/// a seeded G(400, 0.75) takes minutes to prove; UTS T3L has 111,345,631 nodes).
#[test]
fn a_time_limit_stops_every_rank_and_rank_0_reports_what_was_found() {
    let clq = magpie_apps::testdata::random_dimacs(400, 0.75, 400)
        .display()
        .to_string();
    let graph = magpie_apps::maxclique::read_dimacs(&clq).unwrap();
    let log = std::env::temp_dir().join(format!("magpie-dist-inc-{}.jsonl", std::process::id()));
    let cases: [(Vec<&str>, &str); 2] = [
        (
            vec!["maxclique", &clq, "--incumbents", log.to_str().unwrap()],
            "omega",
        ),
        (vec!["uts", "--tree", "T3L"], "nodes"),
    ];
    for (app, answer) in cases {
        let mut args = vec!["search"];
        args.extend_from_slice(&app);
        args.extend(words("--distributed --workers 1 --time-limit 500ms --json"));
        let out = mpirun(2, &args);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(3), "{stdout}\n{stderr}");
        assert!(
            stderr.contains("magpie: stopped (time-limit): the report is what was done"),
            "{stderr}"
        );
        assert!(!stderr.contains("magpie: error"), "{stderr}");
        let v: Value = serde_json::from_str(stdout.trim()).expect("rank 0's one object");
        assert_eq!(v["status"], "time-limit", "{v}");
        let per_rank = v["ranks"].as_array().expect("ranks");
        assert_eq!(per_rank.len(), 2, "every rank sent its result: {v}");
        let nodes: u64 = per_rank.iter().map(|r| r["nodes"].as_u64().unwrap()).sum();
        assert_eq!(nodes, v["expanded"].as_u64().unwrap(), "{v}");
        if answer == "omega" {
            let clique: Vec<usize> = serde_json::from_value(v["clique"].clone()).unwrap();
            assert_eq!(v["omega"], clique.len());
            assert!(clique.len() >= 2, "{v}");
            assert!(magpie_apps::maxclique::is_clique(&graph, &clique), "{v}");
            // Rank 0 logged every improvement it saw, its own and the other rank's.
            let body = std::fs::read_to_string(&log).unwrap();
            let last: Value = serde_json::from_str(body.lines().last().unwrap()).unwrap();
            assert_eq!(last["value"], v["omega"], "{body}");
            let _ = std::fs::remove_file(&log);
        } else {
            assert!(v["nodes"].as_u64().unwrap() < 111_345_631, "{v}");
            assert!(v["check"]
                .as_str()
                .unwrap()
                .starts_with("not checked: the search was stopped"));
        }
    }
}
