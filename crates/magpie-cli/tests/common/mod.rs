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

/// `mpirun -np ranks magpie ARGS` with a clean environment.
pub fn mpirun(ranks: usize, args: &[&str]) -> Output {
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
