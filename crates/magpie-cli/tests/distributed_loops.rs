//! `magpie loop dist|mandelbrot … --distributed` under `mpirun -np 2, 3, 4` (with
//! `--oversubscribe`, and `--allow-run-as-root` when run as root): both modes (LB4MPI work
//! sharing with the central schedules, LB4MPI-WS work stealing), both victim choices, the
//! three data descriptions, ratio and guided steal amounts, stealing from a rank whose block
//! is made costly, and bad input ending the job with one error. Built only with the `mpi`
//! feature.
//!
//! How "every iteration ran exactly once and its result reached its owner" is established:
//! the library records each result in its owner's slot and panics (ending the job) if one
//! arrives twice or is missing at the end of a step; the ranks' `iterations` (the calls of
//! the body, counted by each rank's driver) must add up to exactly `n × steps` — `n`
//! distinct results each from at least one call, and `n` calls in all, so one call each; and
//! rank 0 gathers every owner's block and compares each iteration's result with the
//! sequential one (`"check"` is set only when they all agree; a mismatch exits 1).
#![cfg(feature = "mpi")]

mod common;

use common::{
    assert_distributed_usage_error, assert_failing_rank_ends_job, assert_killed_rank_ends_job,
    mpirun_report, text, words,
};
use serde_json::Value;

/// A distributed loop's JSON report, after checking what every run must satisfy: `n`
/// iterations per step, each run once, the per-rank statistics adding up, the check passed.
fn dist_loop(ranks: usize, n: u64, steps: u64, args: &[&str]) -> Value {
    let mut all = vec!["loop"];
    all.extend_from_slice(args);
    let steps_text = steps.to_string();
    all.extend(["--steps", &steps_text, "--distributed", "--json"]);
    let v = mpirun_report(ranks, &all);
    let per_rank = v["ranks"].as_array().expect("ranks");
    let sum = |key: &str| -> u64 {
        per_rank
            .iter()
            .map(|r| r[key].as_u64().unwrap_or_else(|| panic!("{key}: {r}")))
            .sum()
    };
    assert_eq!(
        sum("iterations"),
        n * steps,
        "{all:?} on {ranks}: every iteration runs exactly once per step: {v}"
    );
    assert_eq!(v["iterations_run"], n * steps);
    assert_eq!(
        sum("iterations_sent"),
        if v["mode"] == "steal" {
            sum("iterations_received")
        } else {
            0
        },
        "every stolen iteration arrived: {v}"
    );
    for (i, r) in per_rank.iter().enumerate() {
        assert_eq!(r["rank"], i);
        for key in words("steals_ok steals_failed bytes_sent bytes_received iterations_received") {
            assert!(r[key].is_u64(), "{key} in {r}");
        }
        for key in ["busy_s", "idle_s", "finish_s"] {
            assert!(r[key].as_f64().is_some_and(|x| x >= 0.0), "{key} in {r}");
        }
    }
    assert!(v["time_s"].as_f64().is_some_and(|t| t > 0.0), "{v}");
    assert!(v["cov"].as_f64().is_some_and(|c| c >= 0.0), "{v}");
    assert!(
        v["check"]
            .as_str()
            .is_some_and(|c| c.contains("sequential")),
        "the owners' results equal the sequential ones: {v}"
    );
    v
}

const DIST: &str = "dist --iterations 6000 --mean-units 50 --workers";

fn with<'a>(base: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = base.to_vec();
    v.extend_from_slice(extra);
    v
}

#[test]
fn steal_mode_every_victim_choice_data_description_and_amount() {
    let combos: [(&str, &str, &str); 6] = [
        ("coordinator", "one-to-one", "25%"),
        ("coordinator", "range", "guided"),
        ("coordinator", "serialize", "100%"),
        ("random", "one-to-one", "guided"),
        ("random", "range", "1%"),
        ("random", "serialize", "25%"),
    ];
    for ranks in [2, 3, 4] {
        for (i, (victims, data, amount)) in combos.iter().enumerate() {
            // All six on 3 ranks; two each on 2 and 4 (every value still on every size).
            if ranks != 3 && i % 3 != ranks % 3 {
                continue;
            }
            let workers = if i % 2 == 0 { "1" } else { "2" };
            let extra = format!(
                "{workers} --remote-victims {victims} --data {data} --steal-amount {amount} \
                 --hot-block 0"
            );
            let args = with(&words(DIST), &words(&extra));
            let v = dist_loop(ranks, 6000, 2, &args);
            assert_eq!(v["mode"], "steal");
            assert_eq!(v["victims"], *victims);
            assert_eq!(v["data"], *data);
        }
    }
}

#[test]
fn imbalanced_dist_is_stolen_from() {
    // Rank 1's block costs 8× the others': they run dry early and must take some of it.
    for ranks in [2, 3, 4] {
        for victims in ["coordinator", "random"] {
            let args = [
                "dist",
                "--iterations",
                "20000",
                "--mean-units",
                "200",
                "--workers",
                "1",
                "--hot-block",
                "1",
                "--remote-victims",
                victims,
            ];
            let v = dist_loop(ranks, 20000, 2, &args);
            let r = v["ranks"].as_array().unwrap();
            let ok: u64 = r.iter().map(|x| x["steals_ok"].as_u64().unwrap()).sum();
            assert!(ok > 0, "{ranks} ranks, {victims}: no steal: {v}");
            assert!(
                r[1]["iterations_sent"].as_u64().unwrap() > 0,
                "{ranks} ranks, {victims}: the costly rank gave nothing away: {v}"
            );
            let received: u64 = r
                .iter()
                .map(|x| x["bytes_received"].as_u64().unwrap())
                .sum();
            assert!(received > 0, "stolen data and returned results: {v}");
        }
    }
}

#[test]
fn share_mode_central_schedules() {
    for (ranks, schedule) in [
        (2, "fac2"),
        (3, "static"),
        (3, "static,5"),
        (3, "ss,16"),
        (3, "gss"),
        (3, "tss"),
        (3, "fac"),
        (3, "wf,1:2:1"),
        (3, "awf-b"),
        (3, "af"),
        (4, "awf-e"),
    ] {
        let args = with(
            &words(DIST),
            &["2", "--mode", "share", "--schedule", schedule],
        );
        let v = dist_loop(ranks, 6000, 2, &args);
        assert_eq!(v["mode"], "share");
        assert_eq!(v["schedule"], schedule);
    }
    // The default coordinator schedule.
    let v = dist_loop(2, 6000, 1, &with(&words(DIST), &["1", "--mode", "share"]));
    assert_eq!(v["schedule"], "fac2");
}

#[test]
fn mandelbrot_both_modes() {
    let image = words("mandelbrot --width 96 --height 64 --max-iter 300 --workers 2");
    let n = 96 * 64;
    for ranks in [2, 3, 4] {
        for extra in [
            &["--remote-victims", "coordinator"][..],
            &["--remote-victims", "random", "--data", "serialize"][..],
            &["--data", "range", "--steal-amount", "guided"][..],
            &["--mode", "share", "--schedule", "gss"][..],
        ] {
            let v = dist_loop(ranks, n, 2, &with(&image, extra));
            assert!(v["result"]["checksum"].is_u64(), "{v}");
        }
    }
}

#[test]
fn victims_flag_names_the_inter_rank_choice() {
    // `--victims coordinator|random` of a distributed loop is the inter-rank choice.
    let v = dist_loop(
        2,
        6000,
        1,
        &with(&words(DIST), &["1", "--victims", "random"]),
    );
    assert_eq!(v["victims"], "random");
}

#[test]
fn bad_input_ends_every_rank_with_one_error() {
    for (args, needle) in [
        (&["dist", "--mode", "push"][..], "share, steal"),
        (
            &["histogram", "--size", "1000"][..],
            "histogram is not distributed",
        ),
        (&["spmv"][..], "spmv is not distributed"),
        (&["dist", "--steal-amount", "0%"][..], "1..=100"),
        (&["dist", "--steal-amount", "lots"][..], "guided"),
        (
            &["dist", "--remote-victims", "nearest"][..],
            "coordinator, random",
        ),
        (
            &["dist", "--data", "xml"][..],
            "one-to-one, range, serialize",
        ),
        (
            &["dist", "--mode", "share", "--schedule", "rws"][..],
            "--mode steal",
        ),
        (
            &["dist", "--mode", "share", "--data", "range"][..],
            "--mode steal only",
        ),
        (&["dist", "--hot-block", "9"][..], "--hot-block 9"),
        (&["mandelbrot", "--width", "0"][..], "--width"),
        (&["dist", "--stats"][..], "--stats applies to a local run"),
    ] {
        let job = assert_distributed_usage_error("loop", args, needle);
        assert!(
            job.out.stdout.is_empty(),
            "{args:?}: {}",
            text(&job.out.stdout)
        );
    }
}

/// The loop the failure tests run, in `mode`: long enough that a rank fails mid-loop.
fn failing_loop_args(mode: &str) -> [&str; 11] {
    [
        "loop",
        "dist",
        "--iterations",
        "20000",
        "--steps",
        "2",
        "--distributed",
        "--mode",
        mode,
        "--workers",
        "2",
    ]
}

#[test]
fn a_rank_whose_worker_panics_ends_the_job() {
    // Rank 1's workers panic in their first iteration (MAGPIE_FAIL_RANK): the rank's MPI
    // thread notices and aborts the job, in both modes. Under `timeout` as a guard.
    for (ranks, mode) in [(2, "steal"), (3, "share")] {
        let args = failing_loop_args(mode);
        let job = assert_failing_rank_ends_job(ranks, &args, "1", "rank 1 failed");
        assert!(job.out.stdout.is_empty(), "{}", text(&job.out.stdout));
    }
}

#[test]
fn a_rank_killed_mid_loop_ends_the_job() {
    // Rank 1 dies of SIGKILL at its 100th iteration (MAGPIE_FAIL_RANK=1:kill), in both
    // modes: the job must end within 10 s, non-zero, with mpirun naming rank 1.
    for (ranks, mode) in [(2, "steal"), (3, "share")] {
        let args = failing_loop_args(mode);
        let job = assert_killed_rank_ends_job(ranks, &args);
        assert!(job.out.stdout.is_empty(), "{}", text(&job.out.stdout));
    }
}

/// `--time-limit` over MPI: rank 0 decides before each step, every rank stops after the
/// same step, and the steps done are checked (every iteration's result equals the
/// sequential one); status time-limit, exit code 3.
#[test]
fn a_time_limit_stops_every_rank_after_the_same_step() {
    let out = common::mpirun(
        2,
        &words(
            "loop dist --iterations 20000 --steps 100000 \
             --workers 1 --distributed --time-limit 500ms --json",
        ),
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(3), "{stdout}\n{stderr}");
    assert!(stderr.contains("magpie: stopped (time-limit)"), "{stderr}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["status"], "time-limit");
    let done = v["steps_done"].as_u64().unwrap();
    assert!((1..100_000).contains(&done), "{v}");
    // Every rank ran the same steps: each iteration once per step done.
    assert_eq!(v["iterations_run"], 20_000 * done, "{v}");
    assert!(v["check"].as_str().unwrap().contains("sequential"), "{v}");
}
