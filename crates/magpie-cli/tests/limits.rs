//! Absurd settings fail fast, and outputs neither crash nor lie: worker counts and input sizes
//! above the documented limits end within a second with one `magpie: error:` line (exit 2);
//! a closed stdout ends every subcommand quietly; clap's errors are one line; an
//! astronomically large UTS tree stops on SIGTERM/SIGINT; options that cannot apply are
//! errors; a depth-limited or sequential run says what it did.

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{assert_one_line_error, command, line_starting, magpie, text, words};

/// `args` fails with one `magpie: error:` line containing every needle, within a second.
fn fails_fast(args: &[&str], needles: &[&str]) -> Output {
    let start = Instant::now();
    let out = magpie(args, &[]);
    let took = start.elapsed();
    assert_one_line_error(&format!("{args:?}"), &out, needles);
    assert!(took < Duration::from_secs(1), "{args:?} took {took:?}");
    out
}

#[test]
fn worker_counts_above_the_limit_fail_fast() {
    let limit = magpie::MAX_WORKERS.to_string();
    for n in ["4097", "100000", "1000000000000"] {
        fails_fast(
            &["search", "uts", "--tree", "T1", "--workers", n],
            &[&format!("--workers {n}"), &limit],
        );
    }
    let out = magpie(&["info"], &[("MAGPIE_NUM_WORKERS", "100000")]);
    assert_one_line_error("env", &out, &["MAGPIE_NUM_WORKERS 100000", &limit]);
    // The limit itself is a count the CLI accepts (info builds no pool).
    let out = magpie(&["info", "--workers", &limit], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}

#[test]
fn generated_inputs_above_the_memory_limit_fail_before_allocating() {
    fails_fast(
        &words("loop mandelbrot --width 100000 --height 100000"),
        &[
            "--width/--height",
            "100000 x 100000 image",
            "74.5 GiB",
            "8 GiB",
        ],
    );
    fails_fast(
        &["loop", "dist", "--iterations", "1000000000000"],
        &["--iterations", "1000000000000 iterations", "8 GiB"],
    );
    fails_fast(
        &["loop", "histogram", "--size", "1000000000000"],
        &["--size", "1000000000000 keys"],
    );
    fails_fast(
        &["loop", "histogram", "--buckets", "1000000000000"],
        &["--buckets", "1000000000000 buckets"],
    );
    fails_fast(
        &["loop", "spmv", "--rows", "1000000000000"],
        &["--rows/--cols/--min-len", "8 GiB"],
    );
    fails_fast(
        &words("loop spmv --rows 1000 --min-len 1000000000000"),
        &["--rows/--cols/--min-len", "at least 1000000000000 entries"],
    );
}

/// Spawns `args` with its stdout a pipe whose reading end is closed at once, and checks that
/// the process ends quietly: no panic, not exit 101, and either success or death by SIGPIPE.
fn quiet_on_closed_pipe(args: &[&str]) {
    let mut child = command(args, &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs magpie");
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("piped")
        .read_to_string(&mut stderr)
        .expect("reads stderr");
    let status = child.wait().expect("waits");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
        "{args:?}: {stderr}"
    );
    assert_ne!(status.code(), Some(101), "{args:?}: {stderr}");
    assert!(
        status.success() || status.signal() == Some(libc::SIGPIPE),
        "{args:?}: {status:?}: {stderr}"
    );
}

#[test]
fn a_closed_stdout_ends_every_subcommand_quietly() {
    for args in [
        &["info"][..],
        &["--help"],
        &["--version"],
        &["search", "--help"],
        &["demo", "--quick", "--workers", "2"],
        &["search", "nqueens", "--n", "8", "--workers", "2"],
        &["search", "nqueens", "--n", "8", "--workers", "2", "--json"],
        &words("loop mandelbrot --width 64 --height 48 --steps 1"),
        &words("loop dist --iterations 1000 --steps 1 --json"),
        &words("experiment policies --app fib --n 15 --runs 1 --workers 1"),
    ] {
        quiet_on_closed_pipe(args);
    }
}

#[test]
fn parser_errors_are_one_line_with_the_tip() {
    let out = magpie(&["search", "nqueens", "--n", "8", "--sklton", "seq"], &[]);
    assert_one_line_error(
        "misspelled flag",
        &out,
        &["'--sklton'", "tip: a similar argument exists: '--skeleton'"],
    );
    let out = magpie(&["serch"], &[]);
    assert_one_line_error(
        "misspelled subcommand",
        &out,
        &["'serch'", "similar subcommand exists: 'search'"],
    );
    let out = magpie(&["search"], &[]);
    assert_one_line_error("missing application", &out, &["required", "<APP>"]);
    let out = magpie(&["loop", "dist", "--steps"], &[]);
    assert_one_line_error("missing value", &out, &["--steps"]);
    // Help and version still print in full, exit 0.
    for (args, needle) in [
        (&["--help"][..], "Usage: magpie"),
        (&["search", "--help"], "Skeletons"),
        (&["--version"], "magpie "),
    ] {
        let out = magpie(args, &[]);
        assert!(out.status.success(), "{args:?}");
        assert!(text(&out.stdout).contains(needle), "{args:?}");
    }
}

/// Waits for `child` at most `guard` (generous: the property is that it ends, not how fast).
fn wait_with_guard(child: &mut std::process::Child, guard: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status;
        }
        if start.elapsed() > guard {
            let _ = child.kill();
            panic!("still running {guard:?} after the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn an_astronomically_large_uts_tree_stops_on_sigterm_and_sigint() {
    for sig in [libc::SIGTERM, libc::SIGINT] {
        let mut child = command(
            &[
                "search",
                "uts",
                "--flags",
                "-t 1 -a 3 -d 100 -b 4 -r 19",
                "--workers",
                "2",
            ],
            &[],
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("runs magpie");
        // Let the search start (a signal before it would prove little).
        std::thread::sleep(Duration::from_millis(300));
        assert!(child.try_wait().expect("try_wait").is_none(), "ended early");
        // SAFETY: kill with a valid signal on the pid of our own child, not yet reaped.
        let r = unsafe { libc::kill(child.id() as libc::pid_t, sig) };
        assert_eq!(r, 0);
        let status = wait_with_guard(&mut child, Duration::from_secs(30));
        // The search stops and reports the nodes it counted (`--time-limit`'s exit code:
        // tests/stop.rs checks the report itself).
        assert_eq!(status.code(), Some(3), "{status:?}");
    }
}

#[test]
fn options_that_cannot_apply_are_errors() {
    fails_fast(
        &["search", "nqueens", "--n", "8", "--remote-victims", "bogus"],
        &["--remote-victims applies to --distributed only"],
    );
    fails_fast(
        &words("search nqueens --n 8 --skeleton seq --workers 4"),
        &["--workers 4", "seq", "one worker"],
    );
    let steal = words("loop dist --distributed --victims random --remote-victims coordinator");
    fails_fast(
        &steal,
        &["--victims random", "--remote-victims coordinator"],
    );
}

#[test]
fn seq_reports_the_one_worker_it_runs_on() {
    for env in [&[][..], &[("MAGPIE_NUM_WORKERS", "4")]] {
        let out = magpie(&words("search nqueens --n 8 --skeleton seq --json"), env);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(v["workers"], 1, "{v}");
        assert_eq!(v["solutions"], 92, "{v}");
        assert_eq!(v["stats"]["per_worker"].as_array().map(Vec::len), Some(1));
    }
}

#[test]
fn a_depth_limited_count_says_what_it_counted() {
    let out = magpie(&["search", "nqueens", "--n", "8", "--max-depth", "3"], &[]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let line = |key: &str| line_starting(&stdout, key);
    assert!(
        !stdout.contains("0 solutions of 8-Queens"),
        "the false claim is back: {stdout}"
    );
    assert!(line("answer").contains("--max-depth 3"), "{stdout}");
    assert!(line("answer").contains("not the number of 8-Queens solutions"));
    assert!(line("check").contains("not checked") && !line("check").contains("ok"));
    // The full search is still checked against the known count.
    let out = magpie(&["search", "nqueens", "--n", "8", "--max-depth", "8"], &[]);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("92 solutions of 8-Queens"), "{stdout}");
    assert!(stdout.contains("ok: the known count"), "{stdout}");
    let out = magpie(&["search", "uts", "--tree", "T1", "--max-depth", "3"], &[]);
    assert!(
        text(&out.stdout)
            .contains("254 nodes, 54 leaves, depth 3 (of the tree cut at --max-depth 3)"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn an_ordered_spawn_depth_on_a_wide_tree_is_refused_before_collecting() {
    // Before: N-Queens 28 at spawn depth 12 collected tasks until a 4 GiB allocation failed.
    // In discrepancy order the pool may still hold most of them: refused.
    let args =
        words("search nqueens --n 28 --skeleton ordered --spawn-depth 12 --order discrepancy");
    let start = Instant::now();
    let out = magpie(&args, &[]);
    assert_one_line_error(
        "ordered",
        &out,
        &["--spawn-depth 12", "more than 4194304 nodes"],
    );
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
    // A spawn depth the tree can afford still runs and is checked.
    let out = magpie(
        &words("search nqueens --n 8 --skeleton ordered --spawn-depth 8"),
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("92 solutions of 8-Queens"));
    // In sequential order the frontier is generated as tasks start, one path's siblings at
    // a time: every one of 13-Queens' 4,674,890 nodes may be a task (more than the cap).
    let out = magpie(
        &words("search nqueens --n 13 --skeleton ordered --spawn-depth 13"),
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("73712 solutions of 13-Queens"));
}
