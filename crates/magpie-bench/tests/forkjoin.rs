//! `magpie-bench forkjoin`'s progress line and `--counters` (issue 16 §2, §6): the runs done
//! on stderr under a terminal (a pseudo-terminal, `script`) or with `--progress`, none with
//! `--quiet`, `--json` or when piped, stdout the same either way; and the LCWS profile of
//! magpie's counters per configuration, per worker and in total.

#[path = "../../magpie-cli/tests/common/pty.rs"]
mod pty;

use pty::{assert_no_progress, assert_shows_progress, run_under_pty, shows_runs_bar};
use serde_json::Value;
use std::process::{Command, Output};

/// The benchmark with a clean environment (no inherited `MAGPIE_*` variable) and `args`.
fn bench_command(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_magpie-bench"));
    for var in magpie::ThreadPoolBuilder::ENV_VARS {
        cmd.env_remove(var);
    }
    cmd.args(args);
    cmd
}

fn bench(args: &[&str]) -> Output {
    bench_command(args).output().expect("runs magpie-bench")
}

/// The words of `line` as arguments: `words("forkjoin --runs 1")` for
/// `["forkjoin", "--runs", "1"]`.
fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// `magpie-bench ARGS` (with `--json` among them): exit 0 and the rows of the JSON array on
/// stdout.
fn json_rows(args: &[&str]) -> Vec<Value> {
    let out = bench(args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rows: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    rows.as_array().expect("a JSON array").clone()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// fib, one timed run, on magpie chase-lev with 2 workers: 2 runs (the warm-up and the
/// timed one).
fn fib<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut all = words(
        "forkjoin --kernels fib --runs 1 --quick --workers 2 --runtimes magpie --deques chase-lev",
    );
    all.extend_from_slice(extra);
    all
}

#[test]
fn a_terminal_shows_the_runs_done_and_progress_forces_them() {
    for extra in [&[][..], &["--progress"], &["--json", "--progress"]] {
        let what = format!("under a terminal with {extra:?}");
        let run = run_under_pty(&bench_command(&fib(extra)));
        let running = "fib warm-up: magpie chase-lev 2 worker(s)";
        assert_shows_progress(&what, &run, "magpie-bench forkjoin", 2, running);
        // The suite's own messages are still there, each a whole line above the bar (not
        // cut by a redraw of the bar).
        let at = run
            .terminal
            .find("fib        round 1: ")
            .unwrap_or_else(|| panic!("{what}: no round line: {:?}", run.terminal));
        let line = &run.terminal[at..];
        let line = &line[..line.find("\r\n").expect("a whole line")];
        assert!(!line.contains('\x1b'), "{what}: {line:?}");
        assert!(
            line["fib        round 1: ".len()..]
                .trim_end()
                .parse::<f64>()
                .is_ok_and(|t| t > 0.0),
            "{what}: one time: {line:?}"
        );
        assert_no_progress(&format!("{what}, stdout"), &text(&run.stdout));
    }
    let out = bench(&fib(&["--progress"]));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(shows_runs_bar(
        &text(&out.stderr),
        "magpie-bench forkjoin",
        2
    ));
}

#[test]
fn quiet_json_and_a_pipe_show_nothing() {
    for extra in [&["--quiet"][..], &["--json"]] {
        let what = format!("under a terminal with {extra:?}");
        let run = run_under_pty(&bench_command(&fib(extra)));
        assert!(run.status.success(), "{what}: {}", run.terminal);
        // The terminal's own line ends aside, nothing but the suite's messages.
        assert_no_progress(&what, &run.terminal);
        assert!(run.terminal.contains("fib        round 1: "), "{what}");
    }
    let out = bench(&fib(&[]));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_no_progress("piped", &text(&out.stderr));
}

#[test]
fn stdout_is_the_same_report_with_and_without_the_bar() {
    let run = run_under_pty(&bench_command(&fib(&["--json", "--progress"])));
    assert!(run.status.success(), "{}", run.terminal);
    let piped = bench(&fib(&["--json"]));
    assert!(piped.status.success(), "{}", text(&piped.stderr));
    let shown: Value = serde_json::from_slice(&run.stdout).expect("JSON on stdout");
    let plain: Value = serde_json::from_slice(&piped.stdout).expect("JSON on stdout");
    // serde_json's objects are sorted by key.
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(shown.as_array().map(Vec::len), Some(1));
    assert_eq!(plain.as_array().map(Vec::len), Some(1));
    assert_eq!(keys(&shown[0]), keys(&plain[0]));
    // Without --counters the rows are as before: no profile.
    assert_eq!(
        keys(&plain[0]),
        ["kernel", "max_s", "median_s", "min_s", "runtime", "times_s", "variant", "workers"]
    );
    let run = run_under_pty(&bench_command(&fib(&["--progress"])));
    let piped = bench(&fib(&[]));
    let shape = |bytes: &[u8]| {
        text(bytes)
            .lines()
            .map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
    };
    assert_eq!(shape(&run.stdout), shape(&piped.stdout));
}

/// The profile's columns, in order.
const COLUMNS: [&str; 10] = [
    "pushes", "pops", "steals", "failed", "exp.req", "signals", "exposed", "unstolen", "fences",
    "cas",
];

#[test]
fn counters_give_every_magpie_row_its_profile_per_worker_and_in_total() {
    let rows = json_rows(&words(
        "forkjoin --kernels fib,tree --runs 2 --quick \
                                 --workers 1,2 --runtimes magpie,rayon --counters --json",
    ));
    let deques = magpie::deque::DequeKind::ALL.len();
    // 2 kernels × (rayon + every deque) × 2 worker counts.
    assert_eq!(rows.len(), 2 * (1 + deques) * 2, "{rows:?}");
    for r in rows {
        let what = format!(
            "{} {} {} {}",
            r["kernel"], r["runtime"], r["variant"], r["workers"]
        );
        if r["runtime"] != "magpie" {
            assert!(r.get("profile").is_none(), "{what}: {r}");
            continue;
        }
        let p = &r["profile"];
        assert_eq!(p["runs"], 2, "{what}: {p}");
        let workers = r["workers"].as_u64().unwrap() as usize;
        let per_worker = p["per_worker"].as_array().unwrap();
        assert_eq!(per_worker.len(), workers, "{what}: {p}");
        let total = p["total"].as_object().unwrap();
        let mut columns = COLUMNS;
        columns.sort_unstable(); // serde_json's objects are sorted by key
        assert_eq!(total.keys().collect::<Vec<_>>(), columns, "{what}");
        for (k, t) in total {
            let sum: u64 = per_worker.iter().map(|w| w[k].as_u64().unwrap()).sum();
            assert_eq!(
                t.as_u64(),
                Some(sum),
                "{what}: total.{k} = the workers' sum"
            );
        }
        let n = |k: &str| total[k].as_u64().unwrap();
        // Every pushed task is taken once, by its owner or a thief.
        assert_eq!(n("pushes"), n("pops") + n("steals"), "{what}: {p}");
        assert!(n("pushes") > 0, "{what}: the kernels fork: {p}");
        if workers == 1 {
            assert_eq!(n("steals"), 0, "{what}: no thief: {p}");
        }
    }
}

#[test]
fn counters_print_the_profile_table_after_each_kernel() {
    let out = bench(&fib(&["--counters", "--workers", "2"]));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let heading = format!(
        "{:<12}{}",
        "counters",
        COLUMNS.map(|c| format!("{c:>10}")).concat()
    );
    let lines: Vec<&str> = stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| *l == heading)
        .unwrap_or_else(|| panic!("no profile table:\n{stdout}"));
    assert_eq!(
        lines[at - 1],
        "fib on magpie chase-lev 2 worker(s): magpie's counters over 1 timed run(s)"
    );
    assert!(lines[at + 1].starts_with("  worker 0 "), "{stdout}");
    assert!(lines[at + 2].starts_with("  worker 1 "), "{stdout}");
    assert!(lines[at + 3].starts_with("  total "), "{stdout}");
    // And nothing of it without --counters.
    let out = bench(&fib(&["--workers", "2"]));
    assert!(
        !text(&out.stdout).contains("counters"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn counters_without_a_magpie_runtime_is_a_usage_error() {
    let out = bench(&["forkjoin", "--runtimes", "rayon", "--counters", "--quick"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("error: --counters: ") && stderr.contains("no magpie"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.stdout.is_empty());
}

/// Every kernel of the registry, by name, in table order (names are an interface).
const KERNELS: [&str; 16] = [
    "fib",
    "tree",
    "quicksort",
    "mergesort",
    "reduce",
    "nqueens",
    "integer-sort",
    "comparison-sort",
    "histogram",
    "histogram-100k",
    "word-counts",
    "bfs",
    "backforward-bfs",
    "maximal-matching",
    "convex-hull",
    "nearest-neighbours",
];

#[test]
fn every_kernel_runs_quick_on_every_runtime_and_agrees_with_sequential() {
    let kernels = KERNELS.join(",");
    let out = bench(&[
        "forkjoin",
        "--kernels",
        &kernels,
        "--runs",
        "1",
        "--quick",
        "--workers",
        "2",
        "--deques",
        "chase-lev,lcws-user",
        "--json",
    ]);
    // A digest unlike the sequential one is an error (non-zero exit).
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rows: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let rows = rows.as_array().unwrap();
    // Per kernel: sequential, rayon, rayon's API on magpie, chili, magpie on two deques.
    let expected: Vec<(String, String, String)> = KERNELS
        .iter()
        .flat_map(|k| {
            [
                ("sequential", ""),
                ("rayon", ""),
                ("rayon-on-magpie", ""),
                ("chili", ""),
                ("magpie", "chase-lev"),
                ("magpie", "lcws-user"),
            ]
            .map(|(r, v)| (k.to_string(), r.to_string(), v.to_string()))
        })
        .collect();
    let got: Vec<(String, String, String)> = rows
        .iter()
        .map(|r| {
            let s = |f: &str| r[f].as_str().unwrap().to_string();
            (s("kernel"), s("runtime"), s("variant"))
        })
        .collect();
    assert_eq!(got, expected);
    let stderr = text(&out.stderr);
    for heading in [
        "== integer-sort — radix sort of 200000 u32 keys uniform below 200000",
        "== comparison-sort — sample sort of 200000 uniform f64",
        "== histogram — histogram of 200000 u32 keys into 256 buckets",
        "== histogram-100k — histogram of 200000 u32 keys into 100000 buckets",
        "== word-counts — word counts of a Zipf text of 100000 words",
        "== bfs — BFS from vertex 0 of an rMat graph of 4096 vertices",
        "== backforward-bfs — back-forward BFS from vertex 0 of an rMat graph of 4096 vertices",
        "== maximal-matching — maximal matching of a random local graph of 20000 vertices",
        "== convex-hull — quickhull of 100000 points uniform in a disk",
        "== nearest-neighbours — nearest neighbour of each of 20000 points uniform in a square",
    ] {
        assert!(stderr.contains(heading), "{heading}:\n{stderr}");
    }
}

#[test]
fn the_default_kernels_are_the_first_six() {
    let rows = json_rows(&words(
        "forkjoin --runs 1 --quick --runtimes sequential --json",
    ));
    let kernels: Vec<&str> = rows.iter().map(|r| r["kernel"].as_str().unwrap()).collect();
    assert_eq!(kernels, KERNELS[..6]);
}

#[test]
fn size_overrides_every_kernel_and_a_bad_size_is_one_line() {
    let out = bench(&words(
        "forkjoin --kernels fib,nqueens --size 10 --runs 1 --runtimes sequential",
    ));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("== fib — fib(10), no cutoff"), "{stdout}");
    assert!(
        stdout.contains("== nqueens — N-Queens(10), binary split"),
        "{stdout}"
    );
    let out = bench(&["forkjoin", "--kernels", "nqueens", "--size", "99"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    let last = stderr.lines().last().unwrap_or_default();
    assert_eq!(
        last,
        "magpie-bench: error: nqueens: --size: the board's side must be in 0..=32, not 99"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    for bad in ["-1", "ten"] {
        let out = bench(&["forkjoin", "--size", bad]);
        assert_eq!(out.status.code(), Some(2), "--size {bad}");
        assert!(!text(&out.stderr).contains("panicked"));
    }
    let out = bench(&["forkjoin", "--kernels", "sudoku"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("word-counts"));
}
