//! Child processes: each in a process group of its own, stopped by one policy
//! ([`stop_group`]: SIGTERM to the group, [`STOP_GRACE`] for it to end, then SIGKILL to
//! whatever is left); run to the end under a timeout ([`run_to_end`]); and the
//! inter-process barrier of a measured child ([`BarrierChild`] in the parent,
//! [`wait_for_release`] in the child); the JSON lines it prints ([`JsonLine`]).

use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How long a stopped process group has between SIGTERM and SIGKILL: enough for `mpirun`
/// to forward the signal to its ranks and reap them; a group that ends sooner is not waited
/// for.
pub const STOP_GRACE: Duration = Duration::from_secs(10);

/// How often a waiting parent polls its child.
const POLL: Duration = Duration::from_millis(10);

/// Puts the command's child in a new process group (its own pid), so that
/// [`stop_group`] stops everything it starts.
pub fn in_own_group(command: &mut Command) -> &mut Command {
    command.process_group(0)
}

/// Stops `child`, the leader of its own process group (see [`in_own_group`]): SIGTERM to
/// the group, up to [`STOP_GRACE`] for the leader to exit, then SIGKILL to whatever is left
/// of the group (a leader that ignored SIGTERM, or its children), and reaps the leader.
/// Returns whether the leader was still running when this was called.
pub fn stop_group(child: &mut Child) -> bool {
    let running = matches!(child.try_wait(), Ok(None));
    // The leader is our child and is not reaped before the end of this function, so its
    // process-group id stays valid (not reused) even if it has exited.
    let Ok(group) = libc::pid_t::try_from(child.id()) else {
        let _ = child.kill();
        let _ = child.wait();
        return running;
    };
    let signal = |s| {
        // SAFETY: kill(2) has no memory-safety preconditions; a negative pid signals the
        // process group that `child` leads, made by `in_own_group`.
        unsafe { libc::kill(-group, s) };
    };
    if running {
        signal(libc::SIGTERM);
        let deadline = Instant::now() + STOP_GRACE;
        while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
            thread::sleep(POLL);
        }
    }
    signal(libc::SIGKILL);
    let _ = child.wait();
    running
}

/// `exited with status 3`, `was killed by signal 9`: an exit status for messages.
pub fn describe(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exited with status {c}"),
        (None, Some(s)) => format!("was killed by signal {s}"),
        _ => format!("ended with {status}"),
    }
}

/// Reads `reader` to its end on a thread (so that a chatty child cannot block on a full
/// pipe); the thread returns what it read.
pub fn drain(reader: Option<impl Read + Send + 'static>) -> JoinHandle<String> {
    thread::spawn(move || {
        let mut s = String::new();
        if let Some(mut r) = reader {
            let _ = r.read_to_string(&mut s);
        }
        s
    })
}

/// How a child run by [`run_to_end`] ended.
#[derive(Debug)]
pub struct Finished {
    /// Its exit status; `None` when it was stopped at the timeout.
    pub status: Option<ExitStatus>,
    /// Everything it wrote on stdout.
    pub stdout: String,
    /// Everything it wrote on stderr.
    pub stderr: String,
}

/// Runs `command` (in a process group of its own, stdin empty, stdout and stderr captured)
/// to its end, or stops its group ([`stop_group`]) once it has run for `timeout`.
pub fn run_to_end(command: &mut Command, timeout: Duration) -> io::Result<Finished> {
    let mut child = in_own_group(command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let out = drain(child.stdout.take());
    let err = drain(child.stderr.take());
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() > timeout => {
                stop_group(&mut child);
                break None;
            }
            Ok(None) => thread::sleep(POLL),
            Err(e) => {
                stop_group(&mut child);
                return Err(e);
            }
        }
    };
    Ok(Finished {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    })
}

/// One JSON object a measured child printed on a line of its stdout; its fields are read
/// with errors that quote the line.
///
/// ```
/// use magpie_measure::process::JsonLine;
/// let stdout = "warming up\n{\"seconds\": 0.5, \"check\": \"ok\"}\n";
/// let lines: Vec<JsonLine> = JsonLine::all(stdout).collect::<Result<_, _>>().unwrap();
/// assert_eq!(lines.len(), 1);
/// assert_eq!(lines[0].num("seconds"), Ok(0.5));
/// assert_eq!(lines[0].text("check").as_deref(), Ok("ok"));
/// assert!(lines[0].num("check").unwrap_err().contains("no number `check`"));
/// assert!(JsonLine::all("{oops").next().unwrap().is_err());
/// ```
#[derive(Debug)]
pub struct JsonLine<'a> {
    line: &'a str,
    value: serde_json::Value,
}

impl<'a> JsonLine<'a> {
    /// The lines of `stdout` that start with `{` (others are the child's chatter), each
    /// parsed; an unreadable one is an error naming it.
    pub fn all(stdout: &'a str) -> impl Iterator<Item = Result<JsonLine<'a>, String>> {
        stdout
            .lines()
            .filter(|l| l.trim_start().starts_with('{'))
            .map(|line| match serde_json::from_str(line) {
                Ok(value) => Ok(JsonLine { line, value }),
                Err(e) => Err(format!("unreadable line {line:?}: {e}")),
            })
    }

    /// The number `key`.
    pub fn num(&self, key: &str) -> Result<f64, String> {
        let line = self.line;
        self.value[key]
            .as_f64()
            .ok_or_else(|| format!("line {line:?}: no number `{key}`"))
    }

    /// The string `key`.
    pub fn text(&self, key: &str) -> Result<String, String> {
        let line = self.line;
        self.value[key]
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("line {line:?}: no string `{key}`"))
    }

    /// The whole object.
    pub fn value(&self) -> &serde_json::Value {
        &self.value
    }

    /// The line as printed.
    pub fn line(&self) -> &'a str {
        self.line
    }
}

/// The line a measured child prints when it is ready to start.
pub const READY: &str = "ready";
/// The line the parent sends to release a ready child.
pub const GO: &str = "go";

/// In a measured child: prints [`READY`] on stdout, then blocks until the parent writes
/// [`GO`] on stdin (see [`BarrierChild`]).
pub fn wait_for_release() -> Result<(), String> {
    let mut out = io::stdout().lock();
    writeln!(out, "{READY}")
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write to stdout: {e}"))?;
    drop(out);
    let mut line = String::new();
    io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    if line.trim() != GO {
        return Err(format!(
            "the barrier was not released (expected a line `{GO}` on stdin)"
        ));
    }
    Ok(())
}

/// A measured child behind the inter-process barrier, in the parent: started with its
/// stdin and stdout piped (stderr drained on a thread), it prepares, prints [`READY`] and
/// waits ([`wait_for_release`]); the parent waits for every child's [`BarrierChild::ready`],
/// releases them together ([`BarrierChild::release`]) and reads each one's result line.
/// Dropped before [`BarrierChild::finish`], the child is killed.
pub struct BarrierChild {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    stderr: Option<JoinHandle<String>>,
    finished: bool,
}

impl BarrierChild {
    /// Starts `command` as a measured child.
    pub fn start(command: &mut Command) -> io::Result<BarrierChild> {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout is piped"));
        let stderr = Some(drain(child.stderr.take()));
        Ok(BarrierChild {
            child,
            stdin,
            stdout,
            stderr,
            finished: false,
        })
    }

    /// The next line of its stdout, without its line break (`None` at its end).
    pub fn read_line(&mut self) -> Option<String> {
        let mut line = String::new();
        match self.stdout.read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim_end().to_string()),
        }
    }

    /// Waits for [`READY`]: `Err` with what came instead (`None`: its stdout ended).
    pub fn ready(&mut self) -> Result<(), Option<String>> {
        match self.read_line() {
            Some(l) if l == READY => Ok(()),
            other => Err(other),
        }
    }

    /// Releases it: one short write of [`GO`].
    pub fn release(&mut self) -> io::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| io::Error::new(io::ErrorKind::BrokenPipe, "stdin is closed"))?;
        stdin.write_all(format!("{GO}\n").as_bytes())?;
        stdin.flush()
    }

    /// Closes its stdin and waits for it to exit: its status and everything it wrote on
    /// stderr.
    pub fn finish(&mut self) -> (Option<ExitStatus>, String) {
        self.stdin.take();
        let status = self.child.wait().ok();
        self.finished = true;
        let stderr = self
            .stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        (status, stderr)
    }
}

impl Drop for BarrierChild {
    fn drop(&mut self) {
        if !self.finished {
            // Only on the way out of a failed run: end this child, started by us.
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_runs_to_its_end_or_to_the_timeout() {
        let f = run_to_end(
            Command::new("sh").args(["-c", "echo out; echo err >&2; exit 3"]),
            Duration::from_secs(30),
        )
        .unwrap();
        assert_eq!((f.stdout.as_str(), f.stderr.as_str()), ("out\n", "err\n"));
        assert_eq!(describe(f.status.unwrap()), "exited with status 3");
        // A group whose shell waits on a child: both are stopped.
        let start = Instant::now();
        let f = run_to_end(
            Command::new("sh").args(["-c", "sleep 30; echo late"]),
            Duration::from_millis(100),
        )
        .unwrap();
        assert!(f.status.is_none() && f.stdout.is_empty(), "{f:?}");
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn the_barrier_releases_a_ready_child() {
        let mut c = BarrierChild::start(Command::new("sh").args([
            "-c",
            "echo ready; read line; echo \"got $line\"; echo bye >&2",
        ]))
        .unwrap();
        assert_eq!(c.ready(), Ok(()));
        c.release().unwrap();
        assert_eq!(c.read_line().as_deref(), Some("got go"));
        let (status, stderr) = c.finish();
        assert!(status.unwrap().success());
        assert_eq!(stderr, "bye\n");
        let mut c = BarrierChild::start(Command::new("sh").args(["-c", "echo nope"])).unwrap();
        assert_eq!(c.ready(), Err(Some("nope".to_string())));
    }
}
