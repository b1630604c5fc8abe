//! Running a command with its stderr on a pseudo-terminal, to see what it draws there:
//! `script -qec 'CMD > FILE' /dev/null` (util-linux). `script` runs the command with a new
//! pseudo-terminal as its terminal, so the command's stderr is a terminal and everything
//! written there comes back on `script`'s stdout; the command's stdout goes to a file and
//! comes back separately, untouched by the terminal. Shared by the progress tests of
//! `magpie` and `magpie-bench` (included with `#[path]`).
#![allow(dead_code)]

use std::process::{Command, ExitStatus, Stdio};

/// What a command run under a pseudo-terminal did.
pub struct PtyRun {
    /// `script`'s exit status (the command's, with `-e`).
    pub status: ExitStatus,
    /// Everything the command wrote to the terminal (its stderr), as text; the terminal
    /// turns each `\n` into `\r\n`.
    pub terminal: String,
    /// The command's stdout, byte for byte.
    pub stdout: Vec<u8>,
}

/// `s` quoted for `sh`.
fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Runs `cmd` (its program, arguments and environment changes) under a pseudo-terminal of
/// 200 columns; see the module docs.
pub fn run_under_pty(cmd: &Command) -> PtyRun {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let file = std::env::temp_dir().join(format!(
        "magpie-pty-{}-{}.out",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    ));
    // A wide terminal, so that the progress line is not cut (a pseudo-terminal starts 0
    // columns wide, which the drawing takes as 80).
    let mut line = format!(
        "stty cols 200 rows 50 2>/dev/null; exec {}",
        quoted(&cmd.get_program().to_string_lossy())
    );
    for a in cmd.get_args() {
        line.push(' ');
        line.push_str(&quoted(&a.to_string_lossy()));
    }
    line.push_str(" > ");
    line.push_str(&quoted(&file.to_string_lossy()));
    let mut script = Command::new("script");
    script.args(["-qec", &line, "/dev/null"]);
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => script.env(k, v),
            None => script.env_remove(k),
        };
    }
    let out = script
        .stdin(Stdio::null())
        .output()
        .expect("runs `script` (util-linux; Debian: apt-get install util-linux)");
    let stdout = std::fs::read(&file).unwrap_or_default();
    let _ = std::fs::remove_file(&file);
    PtyRun {
        status: out.status,
        terminal: String::from_utf8_lossy(&out.stdout).into_owned(),
        stdout,
    }
}

/// Whether `text` shows a runs bar of `name` (`NAME: done/total runs [`) with `total`
/// runs.
pub fn shows_runs_bar(text: &str, name: &str, total: usize) -> bool {
    (0..=total).any(|done| text.contains(&format!("{name}: {done}/{total} runs [")))
}

/// Checks that `run` (under a terminal) succeeded and shows a runs bar of `name` with `total`
/// runs and `running`, the configuration the bar says is running. `what` names the case.
pub fn assert_shows_progress(what: &str, run: &PtyRun, name: &str, total: usize, running: &str) {
    assert!(run.status.success(), "{what}: {}", run.terminal);
    assert!(
        shows_runs_bar(&run.terminal, name, total),
        "{what}: no runs bar:\n{:?}",
        run.terminal
    );
    assert!(
        run.terminal.contains(running),
        "{what}: the configuration running:\n{:?}",
        run.terminal
    );
}

/// Checks that `text` (stderr, or a terminal's output) holds no progress display: no runs
/// bar, no carriage return and no escape sequence (what drawing a bar writes).
pub fn assert_no_progress(what: &str, text: &str) {
    assert!(!text.contains(" runs ["), "{what}: a runs bar:\n{text}");
    assert!(
        !text.contains('\x1b'),
        "{what}: an escape sequence:\n{text:?}"
    );
    assert!(
        !text.replace("\r\n", "\n").contains('\r'),
        "{what}: a carriage return:\n{text:?}"
    );
}
