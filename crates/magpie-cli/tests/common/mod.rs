//! What the `magpie` binary tests share: running the binary in a clean environment and the
//! check of a usage error. (Each test file uses a part of it.)
#![allow(dead_code)]

use std::process::{Command, Output};

/// The binary with a clean environment (no inherited `MAGPIE_*` variable, `MAGPIE_SCHEDULE`
/// included), plus `env`.
pub fn command(args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_magpie"));
    for var in magpie::runtime::ENV_VARS {
        cmd.env_remove(var);
    }
    cmd.env_remove(magpie::loops::schedule::SCHEDULE_ENV);
    cmd.args(args).envs(env.iter().copied());
    cmd
}

/// Runs the binary (see [`command`]) to completion.
pub fn magpie(args: &[&str], env: &[(&str, &str)]) -> Output {
    command(args, env).output().expect("runs the magpie binary")
}

/// Output bytes as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
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

/// `mpirun -np ranks magpie ARGS` with a clean environment, run by `program` (with `prefix`
/// arguments before `mpirun`, e.g. `timeout 120`).
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
    for var in magpie::runtime::ENV_VARS {
        cmd.env_remove(var);
    }
    cmd
}

/// `mpirun -np ranks magpie ARGS` with a clean environment.
pub fn mpirun(ranks: usize, args: &[&str]) -> Output {
    mpirun_command(&[], ranks, args)
        .output()
        .expect("runs mpirun (Debian: apt-get install openmpi-bin libopenmpi-dev)")
}

/// `mpirun -np ranks magpie ARGS` for a command whose rank 0 prints one JSON object with
/// one entry per rank in `ranks` and `ranks_count`: checks that and returns the object.
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

/// Runs `mpirun -np ranks magpie ARGS` with `MAGPIE_FAIL_RANK=fail` under `timeout 120` and
/// checks that the job ended (not hung) with a non-zero code and exactly one
/// `magpie: error:` line, containing `needle`; returns the output.
pub fn assert_failing_rank_ends_job(
    ranks: usize,
    args: &[&str],
    fail: &str,
    needle: &str,
) -> Output {
    let out = mpirun_command(&["timeout", "120"], ranks, args)
        .env("MAGPIE_FAIL_RANK", fail)
        .output()
        .expect("runs timeout and mpirun");
    let stderr = text(&out.stderr);
    assert_ne!(out.status.code(), Some(124), "the job hung: {stderr}");
    assert!(!out.status.success(), "{stderr}");
    assert_one_job_error(&format!("{args:?}"), &stderr, needle);
    out
}

/// An MPI job's stderr has exactly one `magpie: error:` line (whatever `mpirun` adds around
/// it), containing `needle`. `what` names the case in the messages.
pub fn assert_one_job_error(what: &str, stderr: &str, needle: &str) {
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("magpie: error:"))
        .collect();
    assert_eq!(errors.len(), 1, "{what}: one error for the job: {stderr}");
    assert!(errors[0].contains(needle), "{what}: {stderr}");
}
