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
//! so that a slow drift of the machine spreads over all configurations alike. An
//! application runs only on the setups of [`Plan::runs_on`]: not on a peer without a
//! version of it, and, if it takes no schedule, once per configuration of the other axes.

use std::path::PathBuf;
use std::process::{Command, ExitStatus};

use magpie_measure::background::{Background, Repeat};
use magpie_measure::process::{self, BarrierChild};
use magpie_measure::progress::{Mode, RunsBar};

use crate::stop::{Status, Stop};
use magpie_measure::rounds::rounds;

use super::apps::{App, Measurement};
use super::matrix::Setup;
use crate::error::Failure;

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
    /// Whether the runtime of setup `setup` has a version of application `app` (not a peer
    /// that lacks it).
    pub fn has_version(&self, app: usize, setup: usize) -> bool {
        let name = self.setups[setup].runtime_name();
        !self.left_out.iter().any(|l| l.app == app && l.peer == name)
    }

    /// The setup whose runs stand for `setup` in application `app`'s results: `setup`
    /// itself, unless `app` takes no schedule (a search, a kernel); then the first setup of
    /// the same configuration of the other axes ([`Setup::config`]), since the schedule
    /// does not change what such an application runs.
    pub fn row_setup(&self, app: usize, setup: usize) -> usize {
        if self.apps[app].is_loop() {
            return setup;
        }
        let config = self.setups[setup].config;
        self.setups
            .iter()
            .position(|s| s.config == config)
            .unwrap_or(setup)
    }

    /// Whether application `app` runs on setup `setup`: its runtime has a version of it,
    /// and `setup` is its [`row_setup`](Plan::row_setup) (an application that takes no
    /// schedule runs once per configuration of the other axes, not once per schedule).
    pub fn runs_on(&self, app: usize, setup: usize) -> bool {
        self.has_version(app, setup) && self.row_setup(app, setup) == setup
    }
}

/// What the runs measured.
pub struct Results {
    /// `measured[app][setup][run][instance]`.
    pub measured: Vec<Vec<Vec<Vec<Measurement>>>>,
    /// Whether the background command was still running when the last run ended (`None`
    /// without one).
    pub background_ran_throughout: Option<bool>,
    /// `complete`, or why the experiment stopped early (between two runs: `measured` has
    /// the runs finished before, so configurations may have one run fewer than others).
    pub status: Status,
    /// Runs finished (`measured`'s, over every application and configuration).
    pub runs_done: usize,
}

/// Starts one child process of a run: this program again, `experiment run-one`, behind the
/// barrier.
fn start(plan: &Plan, app: &App, setup: &Setup) -> Result<BarrierChild, Failure> {
    BarrierChild::start(
        Command::new(&plan.exe)
            .args(&setup.global_flags)
            .args([
                "experiment",
                "run-one",
                "--runtime",
                setup.runtime_name(),
                "--",
            ])
            .args(&app.tokens)
            .args(setup.app_flags(app)),
    )
    .map_err(|e| Failure::Run(format!("cannot start {}: {e}", plan.exe.display())))
}

/// The error for a child that did not do what it should (`what`), from its exit status
/// and the last line of its stderr.
fn failed(inst: &mut BarrierChild, context: &str, what: &str) -> Failure {
    let (status, stderr) = inst.finish();
    failure(context, what, status, &stderr)
}

/// The error for a child that did not do what it should (`what`): a check failure if it
/// exited 1, a usage error if 2, a failed run otherwise, with the last line of its stderr.
fn failure(context: &str, what: &str, status: Option<ExitStatus>, stderr: &str) -> Failure {
    let last = stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let message = last.strip_prefix("magpie: error: ").unwrap_or(last);
    let code = status.and_then(|s| s.code());
    match code {
        Some(1) => Failure::Check(format!(
            "{context}: {}",
            message
                .strip_prefix("result check failed (a bug): ")
                .unwrap_or(message)
        )),
        Some(2) => Failure::Usage(format!("{context}: {message}")),
        _ => {
            let how = match status {
                Some(s) => process::describe(s),
                None => "could not be waited for".to_string(),
            };
            let detail = if message.is_empty() {
                String::new()
            } else {
                format!(": {message}")
            };
            Failure::Run(format!("{context}: {what}; the process {how}{detail}"))
        }
    }
}

/// One run: `plan.instances` children of `app` on `setup`, released together.
fn one_run(plan: &Plan, app: &App, setup: &Setup, run: usize) -> Result<Vec<Measurement>, Failure> {
    let context = |i: usize| {
        format!(
            "{} on {}, run {}, instance {}",
            app.label,
            setup.describe_for(app),
            run + 1,
            i + 1
        )
    };
    let mut instances = Vec::with_capacity(plan.instances);
    for _ in 0..plan.instances {
        instances.push(start(plan, app, setup)?);
    }
    for (i, inst) in instances.iter_mut().enumerate() {
        match inst.ready() {
            Ok(()) => {}
            Err(Some(l)) => {
                return Err(failed(
                    inst,
                    &context(i),
                    &format!("it printed {l:?} instead of ready"),
                ))
            }
            Err(None) => return Err(failed(inst, &context(i), "it ended before it was ready")),
        }
    }
    // Release: one short write per child.
    for (i, inst) in instances.iter_mut().enumerate() {
        if inst.release().is_err() {
            return Err(failed(inst, &context(i), "it could not be released"));
        }
    }
    let mut out = Vec::with_capacity(plan.instances);
    for (i, inst) in instances.iter_mut().enumerate() {
        let line = inst.read_line();
        let Some(line) = line else {
            return Err(failed(inst, &context(i), "it ended without a result"));
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
        let m: Measurement = serde_json::from_str(&line).map_err(|e| {
            Failure::Run(format!("{}: unreadable result {line:?}: {e}", context(i)))
        })?;
        out.push(m);
    }
    Ok(out)
}

/// Runs the whole plan, with the runs done on stderr when `progress` is on, until `stop`
/// says to stop (checked before each run; a run that fails once the stop has come — its
/// children killed by the same Ctrl-C — counts as not run).
pub fn execute(plan: &Plan, progress: Mode, stop: &Stop) -> Result<Results, Failure> {
    let background =
        match &plan.background {
            Some(c) => {
                let mut sh = Command::new("sh");
                sh.arg("-c").arg(c);
                Some(Background::start(sh, Repeat::Once).map_err(|e| {
                    Failure::Run(format!("--background: cannot start `sh -c`: {e}"))
                })?)
            }
            None => None,
        };
    let pairs = (0..plan.apps.len())
        .map(|a| {
            (0..plan.setups.len())
                .filter(|&s| plan.runs_on(a, s))
                .count()
        })
        .sum::<usize>();
    let total = plan.runs * pairs;
    let bar = RunsBar::new(progress, "magpie experiment", total as u64);
    let mut measured: Vec<Vec<Vec<Vec<Measurement>>>> =
        vec![vec![Vec::with_capacity(plan.runs); plan.setups.len()]; plan.apps.len()];
    // The first answer of each application: every later one must be the same.
    let mut answers: Vec<Option<(String, String)>> = vec![None; plan.apps.len()];
    let mut runs_done = 0;
    'runs: for round in rounds(0, plan.runs as u32) {
        let run = round.number() as usize - 1;
        for (a, app) in plan.apps.iter().enumerate() {
            for (s, setup) in plan.setups.iter().enumerate() {
                if !plan.runs_on(a, s) {
                    continue;
                }
                bar.set_message(format!(
                    "run {}/{}: {} on {}",
                    run + 1,
                    plan.runs,
                    app.label,
                    setup.describe_for(app)
                ));
                if stop.check() != Status::Complete {
                    break 'runs;
                }
                let ms = match one_run(plan, app, setup, run) {
                    Ok(ms) => ms,
                    Err(_) if stop.check() != Status::Complete => break 'runs,
                    Err(e) => return Err(e),
                };
                for m in &ms {
                    match &answers[a] {
                        None => answers[a] = Some((m.answer.clone(), setup.describe_for(app))),
                        Some((first, by)) if *first != m.answer => {
                            return Err(Failure::Check(format!(
                                "{}: {} answered {:?} in run {}, but {by} answered {first:?}",
                                app.label,
                                setup.describe_for(app),
                                m.answer,
                                run + 1
                            )))
                        }
                        Some(_) => {}
                    }
                }
                measured[a][s].push(ms);
                runs_done += 1;
                bar.inc();
            }
        }
    }
    drop(bar);
    let background_ran_throughout = background.map(|b| b.stop().running_at_stop);
    Ok(Results {
        measured,
        background_ran_throughout,
        status: stop.reason(),
        runs_done,
    })
}
