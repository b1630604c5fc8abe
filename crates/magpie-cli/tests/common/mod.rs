//! What the `magpie` binary tests share: running the binary in a clean environment and the
//! check of a usage error. (Each test file uses a part of it.)
#![allow(dead_code)]

pub mod experiment;

use std::process::{Command, Output};
#[cfg(feature = "mpi")]
use std::time::{Duration, Instant};

/// The binary with a clean environment (no inherited `MAGPIE_*` variable, `MAGPIE_SCHEDULE`
/// included), plus `env`.
pub fn command(args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_magpie"));
    for var in magpie::ThreadPoolBuilder::ENV_VARS {
        cmd.env_remove(var);
    }
    cmd.env_remove(magpie::loops::SCHEDULE_ENV);
    cmd.args(args).envs(env.iter().copied());
    cmd
}

/// Runs the binary (see [`command`]) to completion.
pub fn magpie(args: &[&str], env: &[(&str, &str)]) -> Output {
    command(args, env).output().expect("runs the magpie binary")
}

/// The words of `line` (split at whitespace) as arguments: `words("search nqueens --n 8")`
/// for `["search", "nqueens", "--n", "8"]`, so that an argument list reads as a command line.
pub fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// Exit 0 and nothing on stderr: stdout. `what` names the run in the messages.
pub fn quiet_stdout(what: &str, out: &Output) -> String {
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    let status = out.status;
    assert!(
        status.success() && stderr.is_empty(),
        "{what}: {status:?}\nstdout: {stdout}\nstderr: {stderr}"
    );
    stdout
}

/// [`quiet_stdout`] of one line, a JSON value: that value.
pub fn one_json_line(what: &str, out: &Output) -> serde_json::Value {
    let stdout = quiet_stdout(what, out);
    let mut lines = stdout.lines();
    let (Some(line), None) = (lines.next(), lines.next()) else {
        panic!("{what}: not one line: {stdout}");
    };
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{what}: {e}: {stdout}"))
}

/// Output bytes as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The first line of `text` that starts with `key` (a report's `key value` line); panics,
/// showing `text`, if there is none.
pub fn line_starting(text: &str, key: &str) -> String {
    text.lines()
        .find(|l| l.starts_with(key))
        .unwrap_or_else(|| panic!("no {key} line:\n{text}"))
        .to_string()
}

/// Exit code 2 with exactly one line on stderr, `magpie: error: …`, containing every
/// `needle`; no panic and nothing on stdout. `what` names the case in the messages.
pub fn assert_one_line_error(what: &str, out: &Output, needles: &[&str]) {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{what}: stderr: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{what}: one line: {stderr}");
    assert!(stderr.starts_with("magpie: error: "), "{what}: {stderr}");
    assert!(
        !stderr.contains("thread '") && !stderr.contains("panicked"),
        "{what}: {stderr}"
    );
    for n in needles {
        assert!(stderr.contains(n), "{what}: {n:?} missing from: {stderr}");
    }
    assert!(
        out.stdout.is_empty(),
        "{what}: stdout: {}",
        text(&out.stdout)
    );
}

/// `mpirun -np ranks magpie ARGS` with a clean environment (no `MAGPIE_*` variable), run by
/// `program` (with `prefix` arguments before `mpirun`, e.g. `timeout 120`).
#[cfg(feature = "mpi")]
fn mpirun_command(prefix: &[&str], ranks: usize, args: &[&str]) -> Command {
    let (program, rest) = prefix.split_first().unwrap_or((&"mpirun", &[]));
    let mut cmd = Command::new(program);
    cmd.args(rest);
    if !prefix.is_empty() {
        cmd.arg("mpirun");
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        cmd.arg("--allow-run-as-root");
    }
    cmd.args(["--oversubscribe", "-np", &ranks.to_string()]);
    cmd.arg(env!("CARGO_BIN_EXE_magpie")).args(args);
    for var in magpie::ThreadPoolBuilder::ENV_VARS {
        cmd.env_remove(var);
    }
    cmd.env_remove(magpie_mpi::ERROR_FILE_ENV);
    cmd.env_remove(FAIL_RANK_ENV);
    cmd.env("OMPI_MCA_orte_tmpdir_base", session_base());
    cmd
}

/// A fresh directory for one `mpirun`'s session files. Open MPI 4 creates every job's
/// session directory under one shared `$TMPDIR/ompi.HOST.UID`, and two `mpirun`s starting at
/// once race on that `mkdir` ("A call to mkdir was unable to create the desired directory
/// … File exists", then `orte_init failed`): the tests run jobs in parallel, so each job
/// gets a base of its own (`orte_tmpdir_base`).
#[cfg(feature = "mpi")]
fn session_base() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static JOBS: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "magpie-test-ompi-{}/{}",
        std::process::id(),
        JOBS.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("creates a session directory for mpirun");
    dir
}

/// The variable that makes a rank fail on purpose (the binary's `FAIL_RANK_ENV`).
#[cfg(feature = "mpi")]
pub const FAIL_RANK_ENV: &str = "MAGPIE_FAIL_RANK";

/// `mpirun -np ranks magpie ARGS` with a clean environment.
#[cfg(feature = "mpi")]
pub fn mpirun(ranks: usize, args: &[&str]) -> Output {
    mpirun_command(&[], ranks, args)
        .output()
        .expect("runs mpirun (Debian: apt-get install openmpi-bin libopenmpi-dev)")
}

/// `mpirun -np ranks magpie ARGS` for a command whose rank 0 prints one JSON object with
/// one entry per rank in `ranks` and `ranks_count`: checks that and returns the object.
#[cfg(feature = "mpi")]
pub fn mpirun_report(ranks: usize, args: &[&str]) -> serde_json::Value {
    let out = mpirun(ranks, args);
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "{args:?} on {ranks} ranks: {}\n{stdout}",
        text(&out.stderr)
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "rank 0 prints one object: {stdout}");
    let v: serde_json::Value = serde_json::from_str(lines[0]).expect("JSON");
    let per_rank = v["ranks"].as_array().expect("ranks");
    assert_eq!(per_rank.len(), ranks, "{args:?}");
    assert_eq!(v["ranks_count"], ranks);
    v
}

/// A finished MPI job: what [`mpirun_job`] saw.
#[cfg(feature = "mpi")]
pub struct Job {
    /// Its exit status and output.
    pub out: Output,
    /// Its stderr as text: magpie's lines and whatever Open MPI wrote into them.
    pub stderr: String,
    /// The lines of its error report file (`magpie_mpi::ERROR_FILE_ENV`): magpie's reports
    /// only, nothing of MPI's.
    pub reports: Vec<String>,
    /// Its wall-clock time.
    pub elapsed: Duration,
}

/// Runs `mpirun -np ranks magpie ARGS` with `env` and with `MAGPIE_ERROR_FILE` naming a
/// fresh file (read into [`Job::reports`], then removed), under `timeout limit_s` (`timeout`
/// kills `mpirun` and exits 124 if the job is still running then).
#[cfg(feature = "mpi")]
pub fn mpirun_job(ranks: usize, args: &[&str], env: &[(&str, &str)], limit_s: u64) -> Job {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static JOBS: AtomicUsize = AtomicUsize::new(0);
    let file = std::env::temp_dir().join(format!(
        "magpie-test-errors-{}-{}",
        std::process::id(),
        JOBS.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_file(&file);
    let limit = limit_s.to_string();
    let start = Instant::now();
    let out = mpirun_command(&["timeout", &limit], ranks, args)
        .envs(env.iter().copied())
        .env(magpie_mpi::ERROR_FILE_ENV, &file)
        .output()
        .expect("runs timeout and mpirun");
    let elapsed = start.elapsed();
    let reports = std::fs::read_to_string(&file)
        .map(|s| s.lines().map(str::to_string).collect())
        .unwrap_or_default();
    let _ = std::fs::remove_file(&file);
    Job {
        stderr: text(&out.stderr),
        out,
        reports,
        elapsed,
    }
}

/// Runs `mpirun -np ranks magpie ARGS` with `MAGPIE_FAIL_RANK=fail` (see [`mpirun_job`],
/// 120 s limit as a guard) and checks that the job ended (not hung) with a non-zero code and
/// exactly one error report, containing `needle`; returns the job.
#[cfg(feature = "mpi")]
pub fn assert_failing_rank_ends_job(ranks: usize, args: &[&str], fail: &str, needle: &str) -> Job {
    let job = mpirun_job(ranks, args, &[(FAIL_RANK_ENV, fail)], 120);
    assert_ne!(
        job.out.status.code(),
        Some(124),
        "the job hung: {}",
        job.stderr
    );
    assert!(!job.out.status.success(), "{}", job.stderr);
    assert_one_job_error(&format!("{args:?}"), &job, needle);
    job
}

/// An MPI job reported exactly one error, `magpie: error: …` containing `needle`, and no
/// Rust panic message reached its stderr. The report is read from the job's error report
/// file, not from stderr: Open MPI writes its own lines into stderr whenever it likes, even
/// into the middle of magpie's (issue 13), so stderr is only searched for what must not
/// be there. `what` names the case in the messages.
#[cfg(feature = "mpi")]
pub fn assert_one_job_error(what: &str, job: &Job, needle: &str) {
    let stderr = &job.stderr;
    assert_eq!(
        job.reports.len(),
        1,
        "{what}: one error for the job: {:?}; stderr: {stderr}",
        job.reports
    );
    let report = &job.reports[0];
    assert!(report.starts_with("magpie: error: "), "{what}: {report}");
    assert!(
        report.contains(needle),
        "{what}: {needle:?} missing from: {report}"
    );
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
}

/// `mpirun -np 3 magpie COMMAND ARGS --distributed` is a usage error: exit code 2 and one
/// error for the job containing `needle` (see [`assert_one_job_error`]); the job.
#[cfg(feature = "mpi")]
pub fn assert_distributed_usage_error(command: &str, args: &[&str], needle: &str) -> Job {
    let mut all = vec![command];
    all.extend_from_slice(args);
    all.push("--distributed");
    let job = mpirun_job(3, &all, &[], 120);
    assert_eq!(job.out.status.code(), Some(2), "{all:?}: {}", job.stderr);
    assert_one_job_error(&format!("{all:?}"), &job, needle);
    job
}

/// Runs `mpirun -np ranks magpie ARGS` with `MAGPIE_FAIL_RANK=1:kill` (rank 1 kills itself
/// with SIGKILL in the middle of the run) under `timeout 10` and checks the job ended within
/// the 10 s with a non-zero code. A rank killed so says nothing, and magpie's other ranks do
/// not see it (Open MPI's default error handler is fatal: `mpirun` kills them), so no rank
/// reports an error; `mpirun` names the lost rank on stderr (Open MPI 4: `mpirun noticed
/// that process rank 1 with PID … exited on signal 9 (Killed)`), matched with foreign lines
/// tolerated. Returns the job.
#[cfg(feature = "mpi")]
pub fn assert_killed_rank_ends_job(ranks: usize, args: &[&str]) -> Job {
    let job = mpirun_job(ranks, args, &[(FAIL_RANK_ENV, "1:kill")], 10);
    let (stderr, code) = (&job.stderr, job.out.status.code());
    assert_ne!(code, Some(124), "the job outlived 10 s: {stderr}");
    assert!(job.elapsed < Duration::from_secs(10), "{:?}", job.elapsed);
    assert!(!job.out.status.success(), "{stderr}");
    assert!(job.reports.is_empty(), "{:?}", job.reports);
    assert!(
        stderr
            .lines()
            .any(|l| l.contains("rank 1") && l.contains("signal 9")),
        "mpirun names the killed rank: {stderr}"
    );
    job
}

/// Checks the `counters` of a `magpie search` or `magpie loop` JSON report `v` (`what` names
/// the run): one entry per worker (`workers`), a total that is their sum field by field,
/// and every pushed task taken exactly once (pushes = private pops + public pops + steals).
/// Returns the total.
#[allow(dead_code)] // not every test binary that includes this module reports counters
pub fn assert_counters(
    what: &str,
    v: &serde_json::Value,
    workers: usize,
) -> serde_json::Map<String, serde_json::Value> {
    let c = &v["counters"];
    let per_worker = c["per_worker"].as_array().unwrap();
    assert_eq!(per_worker.len(), workers, "{what}: {c}");
    let total = c["total"].as_object().unwrap().clone();
    for (k, t) in &total {
        let sum: u64 = per_worker.iter().map(|w| w[k].as_u64().unwrap()).sum();
        assert_eq!(t.as_u64(), Some(sum), "{what}: total.{k}");
    }
    let n = |k: &str| total[k].as_u64().unwrap();
    assert_eq!(
        n("pushes"),
        n("private_pops") + n("public_pops") + n("steals"),
        "{what}: {c}"
    );
    total
}
