//! `magpie loop`: one loop application of `magpie_apps` (Mandelbrot, Dist, Dist-D,
//! Histogram, SpMV) run for a number of time steps through one [`Loop`] handle (so that adaptive
//! schedules and the selectors learn from step to step) on a magpie pool, its result
//! checked against the application's sequential version, then printed as text or as one
//! JSON object.
//!
//! [`prepare`] validates the arguments and generates the input, [`Prepared::run`] runs the
//! steps on a pool and checks the result: `magpie loop` and the loop applications of
//! `magpie experiment policies` (its `run-one` children) share both.
//!
//! As in `magpie search`, every option arrives as a string and is parsed here, so that a
//! bad value ends as one line `magpie: error: …` with exit code 2.

use std::fmt::Display;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use magpie::loops::{Loop, LoopStats, Schedule};
use magpie::ThreadPool;
use magpie_apps::registry::{self, LoopError, LoopInput, LoopOptions, LoopReport, LOOP_APPS};
use magpie_apps::{dist, dist_d, histogram, mandelbrot, spmv};
use serde::Serialize;
use serde_json::Value;

use crate::config::Config;
use crate::counters::{print_counters, CountersReport};
use crate::error::{number, usage, Failure};
use crate::stop::{Status, Stop};
use magpie_measure::progress::StatusLine;

#[cfg(feature = "mpi")]
pub mod distributed;

/// The loop applications, as named on the command line (those of
/// [`magpie_apps::registry::LOOP_APPS`]).
pub const APPS: [&str; LOOP_APPS.len()] = registry::LOOP_APP_NAMES;

/// The time steps of mandelbrot, histogram and spmv without `--steps`.
pub const DEFAULT_STEPS: usize = registry::DEFAULT_LOOP_STEPS;
/// The schedule without `--schedule`.
pub const DEFAULT_SCHEDULE: &str = "auto";

/// The text after `magpie loop --help`.
pub fn after_help() -> String {
    format!(
        "Applications and their options:\n  \
         mandelbrot  [--width W ({})] [--height H ({})] [--max-iter N ({})] [--png FILE]\n              \
         one iteration per pixel of the Mandelbrot set on [-2,1]x[-1.5,1.5]; --png writes the\n              \
         last image\n  \
         dist        [--dist D ({})] [--iterations N ({})] [--mean-units U ({})]\n              \
         [--seed S]  synthetic loop whose iteration costs follow D:\n              \
         {}\n  \
         dist-d      [--iterations N (per loop)] [--mean-units U (average of the loops' means)]\n              \
         [--seed S]  Dist-D: five loops per time step, one per distribution\n              \
         ({}),\n              \
         each with its own costs, means in the thesis' ratios 2.3:3.5:9.5:3:2;\n              \
         the JSON result has each loop's sum and times\n  \
         histogram   [--size N ({})] [--buckets B ({})] [--skew S ({})] [--seed S]\n              \
         count N seeded keys (a power law for S > 0) into B buckets\n  \
         spmv        [--rows R ({})] [--cols C (= R)] [--min-len L ({})] [--alpha A ({})]\n              \
         [--seed S]  y = A x over a CSR matrix whose row lengths follow a power law\n\
         An option that does not apply to the application is an error. The seed defaults to {}.\n\n\
         Schedules (--schedule NAME[,ARG], default {DEFAULT_SCHEDULE}): {}\n\
         `runtime` takes the schedule from MAGPIE_SCHEDULE (unset: auto; a bad value is an error).\n\
         --steps: time steps through one loop handle (default {} for dist and dist-d, {DEFAULT_STEPS} for the others).\n\n\
         The result is checked against the sequential version of the application, run after the\n\
         timed steps (--no-check skips it): a mismatch exits 1.\n\n\
         Distributed (a build with --features mpi, under mpirun -np R; dist and mandelbrot):\n  \
         --distributed [--mode share|steal (steal)] [--steal-amount N%|fac2|guided (25%)]\n  \
         [--remote-victims coordinator|random (coordinator); also --victims coordinator|random]\n  \
         [--data one-to-one|range|serialize (one-to-one)] [--hot-block R (dist)]; --schedule is\n  \
         the coordinator's schedule in share mode (default fac2), the local one in steal mode.\n\n\
         Examples:\n  \
         magpie loop mandelbrot --schedule fac2 --png mandelbrot.png --workers 2\n  \
         magpie loop dist --dist gamma:k=0.5 --schedule awf-b --steps 20 --json\n  \
         magpie loop dist-d --schedule mfac --iterations 100000 --json\n  \
         magpie loop spmv --rows 100000 --alpha 1.2 --schedule rws,fac2\n  \
         MAGPIE_SCHEDULE=gss,4 magpie loop histogram --schedule runtime\n  \
         mpirun -np 4 magpie loop dist --distributed --steal-amount guided --victims random",
        mandelbrot::DEFAULT_WIDTH,
        mandelbrot::DEFAULT_HEIGHT,
        mandelbrot::DEFAULT_MAX_ITER,
        dist::DEFAULT_DIST,
        dist::DEFAULT_ITERATIONS,
        dist::DEFAULT_MEAN_UNITS,
        dist::Dist::NAMES,
        dist_d::DISTS.join(", "),
        histogram::DEFAULT_KEYS,
        histogram::DEFAULT_BUCKETS,
        histogram::DEFAULT_SKEW,
        spmv::DEFAULT_ROWS,
        spmv::DEFAULT_MIN_LEN,
        spmv::DEFAULT_ALPHA,
        registry::DEFAULT_LOOP_SEED,
        Schedule::names().join(", "),
        dist::DEFAULT_STEPS,
    )
}

/// `magpie loop`'s arguments. Values are strings, parsed in [`prepare`] (see the module doc).
#[derive(Debug, Clone, Args)]
pub struct LoopArgs {
    /// Application: mandelbrot, dist, dist-d, histogram, spmv
    #[arg(value_name = "APP")]
    pub app: String,

    /// Loop schedule, NAME[,ARG] (ss,4, gss, rws,fac2, static, expert-sel, runtime, ...)
    /// [default: auto]
    #[arg(long, value_name = "NAME[,ARG]", help_heading = "Loop")]
    pub schedule: Option<String>,

    /// Time steps, each one run of the loop through the same handle [default: 20 for dist
    /// and dist-d, 5 for the others]
    #[arg(
        long,
        value_name = "T",
        allow_hyphen_values = true,
        help_heading = "Loop"
    )]
    pub steps: Option<String>,

    /// mandelbrot: pixels per row [default: 800]
    #[arg(
        long,
        value_name = "W",
        allow_hyphen_values = true,
        help_heading = "Application"
    )]
    pub width: Option<String>,

    /// mandelbrot: rows [default: 600]
    #[arg(
        long,
        value_name = "H",
        allow_hyphen_values = true,
        help_heading = "Application"
    )]
    pub height: Option<String>,

    /// mandelbrot: iteration limit per pixel [default: 1000]
    #[arg(
        long,
        value_name = "N",
        allow_hyphen_values = true,
        help_heading = "Application"
    )]
    pub max_iter: Option<String>,

    /// mandelbrot: write the last image to FILE as a PNG
    #[arg(long, value_name = "FILE", help_heading = "Application")]
    pub png: Option<PathBuf>,

    /// dist: the distribution of the iteration costs (constant, uniform[:spread=S],
    /// normal[:cv=C], exponential, gamma[:k=K]) [default: exponential]
    #[arg(long, value_name = "D", help_heading = "Application")]
    pub dist: Option<String>,

    /// dist, dist-d: iterations per loop [default: 400000]
    #[arg(
        long,
        value_name = "N",
        allow_hyphen_values = true,
        help_heading = "Application"
    )]
    pub iterations: Option<String>,

    /// dist, dist-d: mean iteration cost in work units [default: 100]
    #[arg(
        long,
        value_name = "U",
        allow_hyphen_values = true,
        help_heading = "Application"
    )]
    pub mean_units: Option<String>,

    /// dist, dist-d, histogram, spmv: seed of the generated input [default: 2026]
    #[arg(
        long,
        value_name = "S",
        allow_hyphen_values = true,
        help_heading = "Application"
    )]
    pub seed: Option<String>,

    /// histogram: the number of keys [default: 10000000]
    #[arg(
        long,
        value_name = "N",
        allow_hyphen_values = true,
        help_heading = "Application"
    )]
    pub size: Option<String>,

    /// histogram: the number of buckets [default: 1024]
    #[arg(
        long,
        value_name = "B",
        allow_hyphen_values = true,
        help_heading = "Application"
    )]
    pub buckets: Option<String>,

    /// histogram: skew of the keys towards the small buckets, 0 for uniform [default: 1]
    #[arg(
        long,
        value_name = "S",
        allow_hyphen_values = true,
        help_heading = "Application"
    )]
    pub skew: Option<String>,

    /// spmv: rows of the matrix [default: 200000]
    #[arg(
        long,
        value_name = "R",
        allow_hyphen_values = true,
        help_heading = "Application"
    )]
    pub rows: Option<String>,

    /// spmv: columns of the matrix [default: the rows]
    #[arg(
        long,
        value_name = "C",
        allow_hyphen_values = true,
        help_heading = "Application"
    )]
    pub cols: Option<String>,

    /// spmv: the shortest row length [default: 4]
    #[arg(
        long,
        value_name = "L",
        allow_hyphen_values = true,
        help_heading = "Application"
    )]
    pub min_len: Option<String>,

    /// spmv: power-law exponent of the row lengths (smaller: heavier tail) [default: 1.5]
    #[arg(
        long,
        value_name = "A",
        allow_hyphen_values = true,
        help_heading = "Application"
    )]
    pub alpha: Option<String>,

    /// Run over every rank of an MPI job (`mpirun -np R magpie loop dist|mandelbrot …
    /// --distributed`): LB4MPI work sharing or LB4MPI-WS work stealing. Needs a build with
    /// the `mpi` feature
    #[arg(long, help_heading = "Distributed")]
    pub distributed: bool,

    /// --distributed: share (a coordinator hands out chunks by --schedule, data replicated)
    /// or steal (each rank owns a block and its data; idle ranks steal) [default: steal]
    #[arg(long, value_name = "MODE", help_heading = "Distributed")]
    pub mode: Option<String>,

    /// --distributed steal: the share of a victim's R remaining iterations a thief takes,
    /// N% (1..=100), fac2 (half: R/2) or guided (R/ranks) [default: 25%]
    #[arg(
        long,
        value_name = "N%|fac2|guided",
        allow_hyphen_values = true,
        help_heading = "Distributed"
    )]
    pub steal_amount: Option<String>,

    /// --distributed steal: how a thief finds a victim, coordinator (rank 0 relays to a
    /// random eligible victim) or random (ask a random rank directly) [default: coordinator]
    #[arg(long, value_name = "NAME", help_heading = "Distributed")]
    pub remote_victims: Option<String>,

    /// --distributed steal: how stolen iterations' data travels, one-to-one (serde, one
    /// element per iteration), range (a function of the range to bytes and back) or
    /// serialize (a user serializer) [default: one-to-one]
    #[arg(long, value_name = "NAME", help_heading = "Distributed")]
    pub data: Option<String>,

    /// dist --distributed: make rank R's block of iterations 8 times as costly (a built-in
    /// load imbalance, for tests and demonstrations of stealing)
    #[arg(
        long,
        value_name = "R",
        allow_hyphen_values = true,
        help_heading = "Distributed"
    )]
    pub hot_block: Option<String>,

    /// Skip the check against the sequential version
    #[arg(long, help_heading = "Output")]
    pub no_check: bool,

    /// Print one JSON object (with per-step times and statistics) instead of text
    #[arg(long, help_heading = "Output")]
    pub json: bool,

    /// Text output: also print the pool's counters (pushes, pops, steals, exposure requests,
    /// signals, fences, CAS, ...) per worker and in total
    #[arg(long, help_heading = "Output")]
    pub stats: bool,

    /// Stop after this long (500ms, 30s, 5m, 1.5h), between two time steps (at least one
    /// step runs), and report the steps done, checked, with status time-limit and exit
    /// code 3. Ctrl-C (SIGINT) or SIGTERM does the same with status interrupted; a second
    /// one exits at once
    #[arg(long, value_name = "DURATION", help_heading = "Run")]
    pub time_limit: Option<String>,

    /// The live progress line on stderr (steps done, schedule, elapsed time)
    #[command(flatten, next_help_heading = "Output")]
    pub progress: magpie_measure::progress::ProgressArgs,
    /// Write what every worker did during the time steps (loop chunks with their iterations,
    /// tasks, steals, idle and parked time) to FILE as a Chrome trace-event file (open it in
    /// ui.perfetto.dev); with --distributed, one process per rank and the messages
    /// between ranks
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub trace: Option<PathBuf>,
}

/// A loop application's error as a usage error (exit 2).
fn usage_of(e: LoopError) -> Failure {
    Failure::Usage(e.to_string())
}

/// Parses a schedule given to `flag` (`--schedule`, or an element of the experiment's
/// list); `runtime` must find a valid `MAGPIE_SCHEDULE` now rather than fall back to `auto`
/// with a warning while the loop runs.
pub fn parse_schedule(flag: &str, text: &str) -> Result<Schedule, Failure> {
    let s: Schedule = text
        .parse()
        .map_err(|e| Failure::Usage(format!("{flag}: {e}")))?;
    if s == Schedule::Runtime {
        Schedule::from_env().map_err(|e| Failure::Usage(format!("{flag} runtime: {e}")))?;
    }
    Ok(s)
}

/// A loop application ready to run: its options validated and its input generated.
/// `magpie loop` runs it once; `magpie experiment` once per child process.
pub struct Prepared {
    input: Box<dyn LoopInput>,
    /// The application's parameters, for the report.
    params: Value,
    schedule: Schedule,
    steps: usize,
    check: bool,
    png: Option<PathBuf>,
}

/// One time step's loop statistics.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    /// The step's wall-clock time in seconds (the loop call alone).
    pub seconds: f64,
    /// The schedule that ran (after resolving `runtime` and the selectors).
    pub ran: String,
    /// Chunks handed out.
    pub chunks: u64,
    /// Successful loop steals.
    pub steals: u64,
    /// The c.o.v. of the workers' busy times.
    pub cov: f64,
    /// Each worker's busy time in seconds.
    pub busy: Vec<f64>,
}

impl Step {
    fn new(seconds: f64, s: &LoopStats) -> Step {
        Step {
            seconds,
            ran: s.schedule.clone(),
            chunks: s.chunks,
            steals: s.steals,
            cov: s.cov(),
            busy: s.busy.iter().map(Duration::as_secs_f64).collect(),
        }
    }
}

/// What [`Prepared::run`] measured and computed.
pub struct Outcome {
    /// Per time step.
    pub steps: Vec<Step>,
    /// The time of all steps, in seconds (their sum).
    pub seconds: f64,
    /// The result (per application: checksum, sum, counts, …), as in the JSON report.
    pub result: Value,
    /// The result in a short canonical form that every correct run gives.
    pub answer: String,
    /// What was checked (`None` with `--no-check`).
    pub check: Option<String>,
}

impl Outcome {
    /// Chunks summed over the steps.
    pub fn chunks(&self) -> u64 {
        self.steps.iter().map(|s| s.chunks).sum()
    }

    /// Loop steals summed over the steps.
    pub fn steals(&self) -> u64 {
        self.steps.iter().map(|s| s.steals).sum()
    }

    /// The last step's c.o.v. of busy times.
    pub fn last_cov(&self) -> f64 {
        self.steps.last().map_or(0.0, |s| s.cov)
    }
}

/// The application options of `args` that were given, by flag, in the order of
/// `magpie loop --help` (the first that does not apply to the application is the one its
/// error names).
fn app_options(a: &LoopArgs) -> LoopOptions {
    let png = a.png.as_ref().map(|p| p.to_string_lossy().into_owned());
    let mut options = LoopOptions::new(1);
    for (flag, value) in [
        ("--width", &a.width),
        ("--height", &a.height),
        ("--max-iter", &a.max_iter),
        ("--png", &png),
        ("--dist", &a.dist),
        ("--iterations", &a.iterations),
        ("--mean-units", &a.mean_units),
        ("--seed", &a.seed),
        ("--size", &a.size),
        ("--buckets", &a.buckets),
        ("--skew", &a.skew),
        ("--rows", &a.rows),
        ("--cols", &a.cols),
        ("--min-len", &a.min_len),
        ("--alpha", &a.alpha),
    ] {
        if let Some(v) = value {
            options.set(flag, v);
        }
    }
    options
}

/// Validates `args` (application, its options, the schedule, the steps) and generates the
/// input through the registry ([`registry::LoopApp::build`]): every usage error of `magpie
/// loop` that does not need a pool.
pub fn prepare(args: &LoopArgs) -> Result<Prepared, Failure> {
    let Some(app) = registry::find_loop(args.app.trim()) else {
        return usage(format!(
            "unknown loop application {:?}; expected one of: {}",
            args.app.trim(),
            APPS.join(", ")
        ));
    };
    let a = args;
    if !a.distributed {
        for (flag, given) in [
            ("--mode", a.mode.is_some()),
            ("--steal-amount", a.steal_amount.is_some()),
            ("--remote-victims", a.remote_victims.is_some()),
            ("--data", a.data.is_some()),
            ("--hot-block", a.hot_block.is_some()),
        ] {
            if given {
                return usage(format!("{flag} applies to --distributed only"));
            }
        }
    }
    let mut options = app_options(a);
    app.check_options(&options).map_err(usage_of)?;
    let schedule = parse_schedule(
        "--schedule",
        a.schedule.as_deref().unwrap_or(DEFAULT_SCHEDULE),
    )?;
    let steps = match &a.steps {
        Some(v) => number("--steps", v, 1, "the number of time steps")?,
        None => app.default_steps,
    };
    options.set_steps(steps);
    let input = app.build(&options).map_err(usage_of)?;
    Ok(Prepared {
        params: input.parameters(),
        input,
        schedule,
        steps,
        check: !a.no_check,
        png: a.png.clone(),
    })
}

/// Runs `step` `steps` times on `pool` through `lp`, timing each call, while `go_on(s)`
/// says step `s` may start (asked before every step but the first); returns the per-step
/// statistics and what each step returned.
fn time_steps<R: Send>(
    pool: &ThreadPool,
    lp: &Loop,
    steps: usize,
    step: impl Fn(usize) -> R + Sync,
    go_on: &(dyn Fn(usize) -> bool + Sync),
) -> (Vec<Step>, Vec<R>) {
    pool.install(|| {
        let mut stats = Vec::with_capacity(steps);
        let mut out = Vec::with_capacity(steps);
        for s in 0..steps {
            if s > 0 && !go_on(s) {
                break;
            }
            let t = Instant::now();
            let r = step(s);
            let seconds = t.elapsed().as_secs_f64();
            let last = lp.last_stats().expect("the loop ran");
            stats.push(Step::new(seconds, &last));
            out.push(r);
        }
        (stats, out)
    })
}

impl Prepared {
    /// Runs the time steps on `pool` through one new [`Loop`], then (unless `--no-check`)
    /// the sequential version, and compares; writes `--png` last.
    pub fn run(&self, pool: &ThreadPool) -> Result<Outcome, Failure> {
        self.run_while(pool, &|_| true, &mut || Ok(()))
    }

    /// [`run`](Prepared::run), stopping before time step `s` (after the first) unless
    /// `go_on(s)`: the outcome then has the steps done, checked against as many sequential
    /// steps. `after_steps` runs between the steps and the check (the end of a trace).
    pub fn run_while(
        &self,
        pool: &ThreadPool,
        go_on: &(dyn Fn(usize) -> bool + Sync),
        after_steps: &mut dyn FnMut() -> Result<(), Failure>,
    ) -> Result<Outcome, Failure> {
        let lp = Loop::new(self.schedule.clone());
        let steps = self.steps;
        let input = &*self.input;
        let (stats, outs) = time_steps(pool, &lp, steps, |s| input.step(s, &lp), go_on);
        after_steps()?;
        let check_text = if self.check {
            Some(input.check(&outs).map_err(Failure::Check)?.to_string())
        } else {
            None
        };
        input.write(&outs).map_err(usage_of)?;
        let LoopReport { result, answer, .. } = input.report(&outs);
        Ok(Outcome {
            seconds: stats.iter().map(|s| s.seconds).sum(),
            steps: stats,
            result,
            answer,
            check: check_text,
        })
    }
}

/// The JSON report of `magpie loop`.
#[derive(Serialize)]
struct Report<'a> {
    app: &'static str,
    params: &'a Value,
    schedule: String,
    steps: usize,
    workers: usize,
    deque: &'static str,
    seconds: f64,
    mean_step_seconds: f64,
    chunks: u64,
    steals: u64,
    last_cov: f64,
    last_busy: &'a [f64],
    result: &'a Value,
    answer: &'a str,
    check: Option<&'a str>,
    /// How the run ended: `complete`, `time-limit` or `interrupted` (between two steps).
    status: &'static str,
    /// The time steps that ran (`steps` unless stopped).
    steps_done: usize,
    per_step: &'a [Step],
    /// The pool's counters during the time steps.
    counters: CountersReport,
}

/// Runs `magpie loop` and prints its report.
pub fn run(args: &LoopArgs, config: &Config) -> Result<(), Failure> {
    let prepared = prepare(args)?;
    let stop = Stop::from_flag(args.time_limit.as_deref(), true)?;
    let deque = config.deque.value;
    let workers = config.workers.value;
    let pool = config.build(deque, workers)?;
    // The counters of the time steps alone: the pool has run nothing else, and the check
    // runs on this thread.
    pool.reset_stats();
    let tracing = crate::trace::start(args.trace.as_deref(), &pool)?;
    // The progress line: steps done of the total, the schedule, the time so far.
    let done = Arc::new(AtomicUsize::new(0));
    let shown = {
        let (total, schedule) = (prepared.steps, prepared.schedule.to_string());
        let (start, done) = (Instant::now(), done.clone());
        StatusLine::start(args.progress.mode(args.json), move || {
            format!(
                "{}/{total} steps, schedule {schedule}, {:.1} s",
                done.load(Ordering::Relaxed),
                start.elapsed().as_secs_f64()
            )
        })
    };
    let mut tracing = Some(tracing);
    let out = prepared.run_while(
        &pool,
        &|s| {
            done.store(s, Ordering::Relaxed);
            stop.check() == Status::Complete
        },
        // The trace of the time steps, without the check that follows on this thread.
        &mut || crate::trace::finish(tracing.take().flatten(), &pool),
    );
    drop(shown);
    let out = out?;
    let status = stop.reason();
    let counters = CountersReport::from(pool.stats());
    let last_busy = out.steps.last().map_or(&[][..], |s| &s.busy[..]);
    let report = Report {
        app: prepared.input.app().name,
        params: &prepared.params,
        schedule: prepared.schedule.to_string(),
        steps: prepared.steps,
        workers,
        deque: deque.name(),
        seconds: out.seconds,
        mean_step_seconds: out.seconds / out.steps.len().max(1) as f64,
        chunks: out.chunks(),
        steals: out.steals(),
        last_cov: out.last_cov(),
        last_busy,
        result: &out.result,
        answer: &out.answer,
        check: out.check.as_deref(),
        status: status.name(),
        steps_done: out.steps.len(),
        per_step: &out.steps,
        counters,
    };
    if args.json {
        let text = serde_json::to_string(&report)
            .map_err(|e| Failure::Check(format!("cannot write the JSON report: {e}")))?;
        println!("{text}");
        return status.result();
    }
    let line = |k: &str, v: &dyn Display| println!("{k:<12}{v}");
    let params = describe_params(&prepared.params);
    line("app", &format!("{} ({params})", report.app));
    line("status", &report.status);
    let ran = out.steps.last().map_or("", |s| s.ran.as_str());
    let schedule = report.schedule.clone();
    if ran == schedule {
        line("schedule", &schedule);
    } else {
        line("schedule", &format!("{schedule} (last step ran {ran})"));
    }
    line("workers", &format!("{workers} (deque {})", deque.name()));
    if report.steps_done == prepared.steps {
        line("steps", &prepared.steps);
    } else {
        line(
            "steps",
            &format!("{} of {}", report.steps_done, prepared.steps),
        );
    }
    line("seconds", &format!("{:.3}", out.seconds));
    line("per step", &format!("{:.3}", report.mean_step_seconds));
    line("chunks", &report.chunks);
    line("steals", &report.steals);
    line("last c.o.v.", &format!("{:.3}", report.last_cov));
    let busy: Vec<String> = last_busy.iter().map(|b| format!("{b:.3}")).collect();
    line("last busy", &format!("{} s per worker", busy.join(" ")));
    line("result", &out.answer);
    match &out.check {
        Some(c) => line("check", &format!("ok: {c}")),
        None => line("check", &"skipped (--no-check)"),
    }
    if let Some(p) = &prepared.png {
        line("png", &p.display());
    }
    if args.stats {
        print_counters(&report.counters);
    }
    status.result()
}

/// An application's parameters (a JSON object) as `key value, key value` for the text
/// report.
pub(crate) fn describe_params(params: &Value) -> String {
    match params {
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| match v.as_str() {
                Some(text) => format!("{k} {text}"),
                None => format!("{k} {v}"),
            })
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}
