//! Runs an experiment's measurements: every run of every configuration in fresh child
//! processes (this binary again, `experiment run-one`), K at a time, released together by an
//! inter-process barrier, and an optional background command beside it all.
//!
//! Barrier: each child prepares its input and builds its pool, then prints `ready` and
//! blocks reading its stdin. The parent waits for `ready` from all K children, then writes
//! `go` to each one's stdin (a few microseconds apart) and reads each one's result, one JSON
//! line. A child that fails, in any state, ends the experiment; the others are killed.
//!
//! Order: run 1 of every (application, configuration), then run 2 of every one, and so on,
//! so that a slow drift of the machine spreads over all configurations alike.

use std::io::{BufRead, BufReader, IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::apps::{App, Measurement};
use super::matrix::Setup;
use super::Error;

/// What to run.
pub struct Plan {
    /// This program, re-executed for every instance.
    pub exe: PathBuf,
    /// The applications (the "benchmarks" of the aggregated result).
    pub apps: Vec<App>,
    /// The configurations.
    pub setups: Vec<Setup>,
    /// Runs per (application, configuration).
    pub runs: usize,
    /// Processes started together per run.
    pub instances: usize,
    /// `sh -c` command run beside the measurements.
    pub background: Option<String>,
    /// The (application, peer) pairs not run: the peer has no version of that application.
    pub left_out: Vec<LeftOut>,
}

/// An application a peer runtime cannot run: its rows of that peer are left out.
pub struct LeftOut {
    /// The application's index in [`Plan::apps`].
    pub app: usize,
    /// The peer's name (`rayon`).
    pub peer: &'static str,
    /// Why, as a sentence (`--peers rayon: there is no rayon version of knapsack …`).
    pub reason: String,
}

impl Plan {
    /// Whether application `app` runs on setup `setup` (not a peer that lacks it).
    pub fn runs_on(&self, app: usize, setup: usize) -> bool {
        let name = self.setups[setup].runtime_name();
        !self.left_out.iter().any(|l| l.app == app && l.peer == name)
    }
}

/// What the runs measured.
pub struct Results {
    /// `measured[app][setup][run][instance]`.
    pub measured: Vec<Vec<Vec<Vec<Measurement>>>>,
    /// Whether the background command was still running when the last run ended (`None`
    /// without one).
    pub background_ran_throughout: Option<bool>,
}

/// The background command's process group, killed when this is dropped.
struct Background {
    child: Child,
    stopped: bool,
}

impl Background {
    fn start(command: &str) -> Result<Background, Error> {
        use std::os::unix::process::CommandExt;
        let child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| Error::Run(format!("--background: cannot start `sh -c`: {e}")))?;
        Ok(Background {
            child,
            stopped: false,
        })
    }

    /// Kills the process group (TERM, then KILL after a second) and reaps the shell;
    /// returns whether the shell was still running.
    fn stop(&mut self) -> bool {
        if self.stopped {
            return false;
        }
        self.stopped = true;
        let running = matches!(self.child.try_wait(), Ok(None));
        // The shell is our child and is not reaped before the end of this function, so its
        // process-group id stays valid even if it has exited.
        let group = self.child.id() as libc::pid_t;
        // SAFETY: kill(2) with a negative pid signals that process group: the one this
        // experiment created for the background command (process_group(0) above).
        unsafe { libc::kill(-group, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(1);
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        // Whatever is left of the group (a shell that ignored TERM, or its children).
        // SAFETY: as above.
        unsafe { libc::kill(-group, libc::SIGKILL) };
        let _ = self.child.wait();
        running
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One child process of a run.
struct Instance {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    stderr: Option<JoinHandle<String>>,
    finished: bool,
}

impl Instance {
    fn start(plan: &Plan, app: &App, setup: &Setup) -> Result<Instance, Error> {
        let mut child = Command::new(&plan.exe)
            .args(&setup.global_flags)
            .args([
                "experiment",
                "run-one",
                "--runtime",
                setup.runtime_name(),
                "--",
            ])
            .args(&app.tokens)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Error::Run(format!("cannot start {}: {e}", plan.exe.display())))?;
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        let mut err = child.stderr.take().expect("piped");
        // Drained on a thread so that a chatty child cannot block on a full pipe.
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = err.read_to_string(&mut s);
            s
        });
        Ok(Instance {
            child,
            stdin,
            stdout,
            stderr: Some(stderr),
            finished: false,
        })
    }

    fn read_line(&mut self) -> Option<String> {
        let mut line = String::new();
        match self.stdout.read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim_end().to_string()),
        }
    }

    /// Waits for the child to exit; returns its status and stderr.
    fn finish(&mut self) -> (Option<ExitStatus>, String) {
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

    /// The error for a child that did not do what it should (`what`), from its exit status
    /// and the last line of its stderr.
    fn failure(&mut self, context: &str, what: &str) -> Error {
        let (status, stderr) = self.finish();
        failure(context, what, status, &stderr)
    }
}

/// The error for a child that did not do what it should (`what`): a check failure if it
/// exited 1, a usage error if 2, a failed run otherwise, with the last line of its stderr.
fn failure(context: &str, what: &str, status: Option<ExitStatus>, stderr: &str) -> Error {
    let last = stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let message = last.strip_prefix("magpie: error: ").unwrap_or(last);
    let code = status.and_then(|s| s.code());
    match code {
        Some(1) => Error::Check(format!(
            "{context}: {}",
            message
                .strip_prefix("result check failed (a bug): ")
                .unwrap_or(message)
        )),
        Some(2) => Error::Usage(format!("{context}: {message}")),
        _ => {
            let how = match status {
                Some(s) => describe(s),
                None => "could not be waited for".to_string(),
            };
            let detail = if message.is_empty() {
                String::new()
            } else {
                format!(": {message}")
            };
            Error::Run(format!("{context}: {what}; the process {how}{detail}"))
        }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        if !self.finished {
            // Only on the way out of a failed run: end this child, started by us.
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn describe(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exited with status {c}"),
        (None, Some(s)) => format!("was killed by signal {s}"),
        _ => format!("ended with {status}"),
    }
}

/// One run: `plan.instances` children of `app` on `setup`, released together.
fn one_run(plan: &Plan, app: &App, setup: &Setup, run: usize) -> Result<Vec<Measurement>, Error> {
    let context = |i: usize| {
        format!(
            "{} on {}, run {}, instance {}",
            app.label,
            setup.describe(),
            run + 1,
            i + 1
        )
    };
    let mut instances = Vec::with_capacity(plan.instances);
    for _ in 0..plan.instances {
        instances.push(Instance::start(plan, app, setup)?);
    }
    for (i, inst) in instances.iter_mut().enumerate() {
        match inst.read_line() {
            Some(l) if l == "ready" => {}
            Some(l) => {
                return Err(inst.failure(&context(i), &format!("it printed {l:?} instead of ready")))
            }
            None => return Err(inst.failure(&context(i), "it ended before it was ready")),
        }
    }
    // Release: one short write per child.
    for (i, inst) in instances.iter_mut().enumerate() {
        let sent = inst
            .stdin
            .as_mut()
            .map(|s| s.write_all(b"go\n").and_then(|()| s.flush()));
        if !matches!(sent, Some(Ok(()))) {
            return Err(inst.failure(&context(i), "it could not be released"));
        }
    }
    let mut out = Vec::with_capacity(plan.instances);
    for (i, inst) in instances.iter_mut().enumerate() {
        let line = inst.read_line();
        let Some(line) = line else {
            return Err(inst.failure(&context(i), "it ended without a result"));
        };
        let (status, stderr) = inst.finish();
        if !status.is_some_and(|s| s.success()) {
            return Err(failure(
                &context(i),
                "it failed after its result",
                status,
                &stderr,
            ));
        }
        let m: Measurement = serde_json::from_str(&line)
            .map_err(|e| Error::Run(format!("{}: unreadable result {line:?}: {e}", context(i))))?;
        out.push(m);
    }
    Ok(out)
}

/// Runs the whole plan.
pub fn execute(plan: &Plan) -> Result<Results, Error> {
    let mut background = match &plan.background {
        Some(c) => Some(Background::start(c)?),
        None => None,
    };
    let progress = std::io::stderr().is_terminal();
    let pairs = (0..plan.apps.len())
        .map(|a| {
            (0..plan.setups.len())
                .filter(|&s| plan.runs_on(a, s))
                .count()
        })
        .sum::<usize>();
    let total = plan.runs * pairs;
    let mut done = 0;
    let mut measured: Vec<Vec<Vec<Vec<Measurement>>>> =
        vec![vec![Vec::with_capacity(plan.runs); plan.setups.len()]; plan.apps.len()];
    // The first answer of each application: every later one must be the same.
    let mut answers: Vec<Option<(String, String)>> = vec![None; plan.apps.len()];
    for run in 0..plan.runs {
        for (a, app) in plan.apps.iter().enumerate() {
            for (s, setup) in plan.setups.iter().enumerate() {
                if !plan.runs_on(a, s) {
                    continue;
                }
                if progress {
                    eprint!(
                        "\r\x1b[Kmagpie experiment: run {}/{} ({done}/{total}): {} on {}",
                        run + 1,
                        plan.runs,
                        app.label,
                        setup.describe()
                    );
                }
                let ms = one_run(plan, app, setup, run)?;
                for m in &ms {
                    match &answers[a] {
                        None => answers[a] = Some((m.answer.clone(), setup.describe())),
                        Some((first, by)) if *first != m.answer => {
                            return Err(Error::Check(format!(
                                "{}: {} answered {:?} in run {}, but {by} answered {first:?}",
                                app.label,
                                setup.describe(),
                                m.answer,
                                run + 1
                            )))
                        }
                        Some(_) => {}
                    }
                }
                measured[a][s].push(ms);
                done += 1;
            }
        }
    }
    if progress {
        eprint!("\r\x1b[K");
    }
    let background_ran_throughout = background.as_mut().map(Background::stop);
    Ok(Results {
        measured,
        background_ran_throughout,
    })
}
