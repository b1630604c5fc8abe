//! Runs the built `magpie loop` binary: every loop application with a few schedules at
//! small sizes on two workers, its JSON report checked against the library's sequential
//! functions for the same parameters, `--png`, `--schedule runtime` with MAGPIE_SCHEDULE,
//! the text report, and the errors (exit 2, one line naming the problem, no panic).
//! Timings are never asserted.

use std::process::Output;

use magpie_apps::{dist, dist_d, histogram, mandelbrot, spmv};
use serde_json::Value;

mod common;
use common::{magpie, one_json_line, text, words};

/// `magpie loop ARGS --json --workers 2`: exit 0, one JSON object, nothing on stderr; checks
/// the fields every report has (steps, per-step entries, chunks).
fn loop_json(args: &[&str], env: &[(&str, &str)], steps: usize) -> Value {
    let mut all = vec!["loop"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--json", "--workers", "2"]);
    let v = one_json_line(&format!("{all:?}"), &magpie(&all, env));
    assert_eq!(v["workers"], 2, "{v}");
    assert_eq!(v["steps"], steps as u64, "{v}");
    let per_step = v["per_step"].as_array().expect("per_step");
    assert_eq!(per_step.len(), steps, "{v}");
    let mut chunks = 0;
    let mut steals = 0;
    for s in per_step {
        for key in ["seconds", "ran", "chunks", "steals", "cov", "busy"] {
            assert!(!s[key].is_null(), "{key} missing in {s}");
        }
        assert!(s["chunks"].as_u64().unwrap() >= 1, "{s}");
        assert_eq!(s["busy"].as_array().unwrap().len(), 2, "{s}");
        chunks += s["chunks"].as_u64().unwrap();
        steals += s["steals"].as_u64().unwrap();
    }
    assert_eq!(v["chunks"].as_u64(), Some(chunks), "{v}");
    assert_eq!(v["steals"].as_u64(), Some(steals), "{v}");
    assert_eq!(v["last_cov"], per_step[steps - 1]["cov"]);
    assert!(v["seconds"].as_f64().unwrap() >= 0.0);
    assert!(v["mean_step_seconds"].as_f64().unwrap() >= 0.0);
    assert!(v["check"].as_str().is_some(), "{v}");
    v
}

const SCHEDULES: [&str; 5] = ["ss,4", "gss", "rws,fac2", "static", "af"];

#[test]
fn mandelbrot_equals_the_sequential_summary() {
    let p = mandelbrot::Params::new(40, 30, 100, 3).unwrap();
    let want = mandelbrot::run_seq(&p);
    for s in SCHEDULES.iter().chain(&["expert-sel"]) {
        let v = loop_json(
            &words(&format!(
                "mandelbrot --width 40 --height 30 \
                 --max-iter 100 --steps 3 --schedule {s}"
            )),
            &[],
            3,
        );
        assert_eq!(v["app"], "mandelbrot");
        assert_eq!(v["schedule"], *s);
        assert_eq!(v["params"]["width"], 40);
        assert_eq!(v["result"]["checksum"].as_u64(), Some(want.checksum), "{s}");
        assert_eq!(
            v["result"]["iterations"].as_u64(),
            Some(want.iterations),
            "{s}"
        );
        assert_eq!(v["result"]["steps"], 3);
    }
}

#[test]
fn dist_equals_the_sequential_sum() {
    for (d, s) in [
        ("exponential", "ss,4"),
        ("gamma:k=0.5", "awf-b"),
        ("uniform", "rws,fac2"),
    ] {
        let c = dist::costs(&d.parse().unwrap(), 3000, 20, 11);
        let want = dist::run_seq(&c, 4);
        let v = loop_json(
            &words(&format!(
                "dist --dist {d} --iterations 3000 --mean-units \
                 20 --seed 11 --steps 4 --schedule {s}"
            )),
            &[],
            4,
        );
        assert_eq!(v["result"]["sum"].as_u64(), Some(want), "{d} {s}");
        assert_eq!(v["params"]["iterations"], 3000);
    }
    // The default number of steps is the thesis'.
    let v = loop_json(
        &["dist", "--iterations", "200", "--mean-units", "1"],
        &[],
        20,
    );
    assert_eq!(v["schedule"], "auto");
    assert_eq!(v["params"]["dist"], "exponential");
    assert_eq!(dist::DEFAULT_STEPS, 20);
}

/// `dist-d`: five loops per step, each loop's sum equal to dist's sequential run of its
/// costs (seed + k), with its times per step in the result; under fac2 (the brief's case),
/// mfac and a selector.
#[test]
fn dist_d_equals_the_sequential_sums_per_loop() {
    let want: Vec<u64> = dist_d::Input::new(2000, 20, 11)
        .parts
        .iter()
        .map(|p| dist::run_seq(&p.costs, 3))
        .collect();
    for s in ["fac2", "mfac", "mfac,8", "tss,40:4", "expert-sel"] {
        let v = loop_json(
            &words(&format!(
                "dist-d --iterations 2000 --mean-units 20 \
                 --seed 11 --steps 3 --schedule {s}"
            )),
            &[],
            3,
        );
        assert_eq!(v["app"], "dist-d");
        assert_eq!(v["schedule"], s);
        assert_eq!(v["params"]["iterations"], 2000);
        let loops = v["result"]["loops"].as_array().expect("loops");
        assert_eq!(loops.len(), 5, "{v}");
        for (k, l) in loops.iter().enumerate() {
            assert_eq!(l["loop"], format!("L{k}"));
            assert_eq!(l["sum"].as_u64(), Some(want[k]), "{s} L{k}");
            assert_eq!(l["step_seconds"].as_array().unwrap().len(), 3, "{l}");
            assert!(l["seconds"].as_f64().unwrap() >= 0.0, "{l}");
            assert!(l["chunks"].as_u64().unwrap() >= 3, "{l}");
        }
        assert_eq!(loops[4]["dist"], "gamma:k=2");
        assert!(v["check"].as_str().unwrap().contains("each loop"), "{v}");
    }
    // dist's own option does not apply: the five distributions are fixed.
    assert_usage_error(
        &magpie(
            &["loop", "dist-d", "--dist", "gamma", "--workers", "2"],
            &[],
        ),
        &["--dist applies to dist only, not to dist-d"],
    );
}

/// mFAC on the other applications, with and without its minimum chunk.
#[test]
fn mfac_runs_every_app() {
    for s in ["mfac", "mfac,16"] {
        let c = dist::costs(&"exponential".parse().unwrap(), 3000, 20, 11);
        let v = loop_json(
            &words(&format!(
                "dist --iterations 3000 --mean-units 20 \
                 --seed 11 --steps 2 --schedule {s}"
            )),
            &[],
            2,
        );
        assert_eq!(
            v["result"]["sum"].as_u64(),
            Some(dist::run_seq(&c, 2)),
            "{s}"
        );
        assert_eq!(v["per_step"][0]["ran"], s);
        let v = loop_json(
            &words(&format!("histogram --size 5000 --buckets 8 --schedule {s}")),
            &[],
            5,
        );
        assert_eq!(v["schedule"], s);
    }
}

#[test]
fn histogram_equals_the_sequential_counts() {
    let keys = histogram::keys(20_000, 16, 2.0, 5).unwrap();
    let want = histogram::histogram_seq(&keys, 16);
    for s in SCHEDULES {
        let v = loop_json(
            &words(&format!(
                "histogram --size 20000 --buckets 16 \
                 --skew 2 --seed 5 --schedule {s}"
            )),
            &[],
            5,
        );
        let counts: Vec<u64> = v["result"]["counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .collect();
        assert_eq!(counts, want, "{s}");
        assert_eq!(v["result"]["total"], 20_000);
    }
}

/// FNV-1a over the bits of `y`, as the report's checksum.
fn bits_checksum(y: &[f64]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for v in y {
        for b in v.to_bits().to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

#[test]
fn spmv_equals_the_sequential_product() {
    let a = spmv::power_law(3000, 2000, 2, 1.2, 8).unwrap();
    let x = spmv::vector(2000, 8 ^ 0x5eed);
    let y = spmv::spmv_seq(&a, &x);
    for s in SCHEDULES.iter().chain(&["static-steal,8", "auto"]) {
        let v = loop_json(
            &words(&format!(
                "spmv --rows 3000 --cols 2000 --min-len 2 \
                 --alpha 1.2 --seed 8 --steps 2 --schedule {s}"
            )),
            &[],
            2,
        );
        assert_eq!(
            v["result"]["checksum"].as_u64(),
            Some(bits_checksum(&y)),
            "{s}"
        );
        assert_eq!(v["params"]["nnz"].as_u64(), Some(a.nnz() as u64));
    }
}

#[test]
fn png_is_decodable_and_of_the_right_size() {
    let dir = std::env::temp_dir().join(format!("magpie-loop-png-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.png");
    let p = path.to_str().unwrap();
    loop_json(
        &[
            &words("mandelbrot --width 33 --height 21 --max-iter 50 --steps 1 --png")[..],
            &[p],
        ]
        .concat(),
        &[],
        1,
    );
    let decoder = png::Decoder::new(std::fs::File::open(&path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (33, 21));
    // The centre pixel (c = -0.5 + 0i) is in the set: black.
    let i = 10 * info.line_size + 3 * 16;
    assert_eq!(&buf[i..i + 3], &[0, 0, 0]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn runtime_reads_magpie_schedule() {
    let args = words("dist --iterations 500 --steps 2 --schedule runtime");
    let v = loop_json(&args, &[("MAGPIE_SCHEDULE", "gss,4")], 2);
    assert_eq!(v["schedule"], "runtime");
    assert_eq!(v["per_step"][0]["ran"], "gss,4");
    // Unset: auto.
    let v = loop_json(&args, &[], 2);
    assert_eq!(v["per_step"][1]["ran"], "auto");
    let mut all = vec!["loop"];
    all.extend_from_slice(&args);
    assert_usage_error(
        &magpie(&all, &[("MAGPIE_SCHEDULE", "fastest")]),
        &["--schedule runtime", "MAGPIE_SCHEDULE", "fastest"],
    );
}

#[test]
fn text_report_names_everything() {
    let out = magpie(
        &words("loop histogram --size 1000 --schedule fac2 --workers 2"),
        &[],
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    for key in [
        "app         histogram (buckets 1024",
        "schedule    fac2",
        "workers     2",
        "steps       5",
        "chunks",
        "steals",
        "last c.o.v.",
        "last busy",
        "result      1000 keys, checksum 0x",
        "check       ok:",
    ] {
        assert!(stdout.contains(key), "{key:?} missing:\n{stdout}");
    }
    let out = magpie(
        &words("loop dist --iterations 10 --no-check --steps 1"),
        &[],
    );
    assert!(text(&out.stdout).contains("check       skipped (--no-check)"));
}

/// Exits 2 with exactly one line on stderr, `magpie: error: …`, containing every `needle`.
fn assert_usage_error(out: &Output, needles: &[&str]) {
    common::assert_one_line_error("", out, needles);
}

#[test]
fn bad_input_exits_2_naming_the_problem() {
    let cases: &[(&str, &[&str])] = &[
        ("bogus", &["unknown loop application", "\"bogus\"", "mandelbrot"]),
        ("dist --schedule fastest", &["--schedule", "fastest", "expected one of"]),
        ("dist --schedule ss,0", &["--schedule", "ss,0", "at least 1"]),
        ("dist --schedule rws,200", &["--schedule", "percentage"]),
        // The expert chunk parameter: a bad value, or one where none applies.
        (
            "dist-d --schedule mfac,0",
            &["--schedule: schedule \"mfac,0\": the minimum chunk must be at least 1"],
        ),
        (
            "dist --schedule static,-1",
            &["schedule \"static,-1\": the chunk must be a whole number of at least 1, not \"-1\""],
        ),
        ("dist --schedule gss,abc", &["schedule \"gss,abc\"", "minimum chunk", "not \"abc\""]),
        ("dist --schedule tss,2:8", &["the first chunk (2) must be at least the last (8)"]),
        ("dist --schedule binary-sel,4", &["`binary-sel` takes no argument"]),
        ("mandelbrot --width 0", &["--width", "at least 1"]),
        ("mandelbrot --height x", &["--height", "\"x\""]),
        ("mandelbrot --max-iter 0", &["--max-iter"]),
        ("dist --dist poisson", &["--dist", "poisson"]),
        ("dist --dist gamma:k=-1", &["--dist", "k must be"]),
        ("dist --steps 0", &["--steps", "at least 1"]),
        (
            "mandelbrot --png /nonexistent-magpie-dir/m.png",
            &["--png", "/nonexistent-magpie-dir/m.png"],
        ),
        ("dist --width 5", &["--width applies to mandelbrot only"]),
        ("spmv --png x.png", &["--png applies to mandelbrot only"]),
        ("histogram --buckets 0", &["--buckets", "at least 1"]),
        ("histogram --skew -1", &["--skew"]),
        ("spmv --alpha 0", &["--alpha"]),
        ("spmv --rows -3", &["--rows", "\"-3\""]),
    ];
    for (args, needles) in cases {
        let mut all = vec!["loop"];
        all.extend(words(args));
        all.extend_from_slice(&["--workers", "2"]);
        assert_usage_error(&magpie(&all, &[]), needles);
    }
    // A bad pool option is a configuration error, as everywhere.
    assert_usage_error(
        &magpie(&["loop", "dist", "--workers", "0"], &[]),
        &["--workers"],
    );
}

#[test]
fn help_lists_apps_and_schedules() {
    let out = magpie(&["loop", "--help"], &[]);
    let stdout = text(&out.stdout);
    assert!(out.status.success());
    for key in words(
        "mandelbrot dist-d mfac histogram spmv --png rws expert-sel MAGPIE_SCHEDULE --no-check",
    ) {
        assert!(stdout.contains(key), "{key:?} missing:\n{stdout}");
    }
}

/// Without the `mpi` feature, `--distributed` is one error naming the feature.
#[cfg(not(feature = "mpi"))]
#[test]
fn distributed_needs_the_mpi_feature() {
    let out = magpie(&["loop", "dist", "--distributed"], &[]);
    common::assert_one_line_error("--distributed", &out, &["--features mpi"]);
}

/// The options of a distributed loop are refused without `--distributed`.
#[test]
fn distributed_options_need_distributed() {
    for (flag, value) in [
        ("--mode", "share"),
        ("--steal-amount", "25%"),
        ("--remote-victims", "random"),
        ("--data", "range"),
        ("--hot-block", "0"),
    ] {
        let out = magpie(&["loop", "dist", flag, value], &[]);
        common::assert_one_line_error(flag, &out, &[flag, "--distributed"]);
    }
}

/// `magpie loop`'s JSON has the pool's counters during the time steps (one entry per worker,
/// a total that is their sum, every pushed task taken once: pushes = pops + steals), on
/// every deque and under a central and a stealing schedule; `--stats` prints them as the
/// LCWS profile table.
#[test]
fn the_json_has_the_pools_counters_and_every_pushed_task_is_taken_once() {
    for deque in words("chase-lev lcws-user lcws-signal lcws-conservative lcws-half") {
        for schedule in ["gss", "rws"] {
            let what = format!("{deque} {schedule}");
            let out = magpie(
                &words(&format!(
                    "loop histogram --size 20000 --steps 2 \
                     --workers 2 --deque {deque} --schedule {schedule} --json"
                )),
                &[],
            );
            assert!(out.status.success(), "{what}: {}", text(&out.stderr));
            let v: Value = serde_json::from_slice(&out.stdout).unwrap();
            let total = common::assert_counters(&what, &v, 2);
            assert!(total["pushes"].as_u64().unwrap() > 0, "{what}: {v}");
        }
    }
    let out = magpie(
        &words("loop histogram --size 20000 --workers 2 --stats"),
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let head = stdout
        .lines()
        .find(|l| l.starts_with("counters"))
        .unwrap_or_else(|| panic!("no counter table:\n{stdout}"));
    for col in [
        "pushes", "pops", "steals", "failed", "exp.req", "signals", "exposed", "unstolen",
        "fences", "cas",
    ] {
        assert!(head.split_whitespace().any(|w| w == col), "{col}: {head}");
    }
    assert!(
        stdout
            .lines()
            .any(|l| l.trim_start().starts_with("worker 1")),
        "{stdout}"
    );
    assert!(
        stdout.lines().any(|l| l.trim_start().starts_with("total")),
        "{stdout}"
    );
}

/// `--time-limit`: the loop stops between two time steps (at least one runs), the steps
/// done are checked against as many sequential ones, the report says how many and why, and
/// the exit code is 3. 10,000 mandelbrot steps take minutes, far more than the limit.
#[test]
fn a_time_limit_stops_a_loop_between_steps_with_the_steps_done_checked() {
    let out = magpie(
        &words(
            "loop mandelbrot --width 64 --height 48 \
             --steps 10000 --time-limit 300ms --json --workers 2",
        ),
        &[],
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(3), "{stdout}\n{stderr}");
    assert!(stderr.contains("magpie: stopped (time-limit)"), "{stderr}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["status"], "time-limit");
    assert_eq!(v["steps"], 10_000);
    let done = v["steps_done"].as_u64().unwrap();
    assert!((1..10_000).contains(&done), "{v}");
    assert_eq!(v["per_step"].as_array().unwrap().len() as u64, done);
    assert!(v["check"].as_str().unwrap().contains("sequential"), "{v}");
    // A complete run says so.
    let v = loop_json(&["histogram", "--steps", "2"], &[], 2);
    assert_eq!(
        (&v["status"], &v["steps_done"]),
        (&"complete".into(), &2.into())
    );
}
