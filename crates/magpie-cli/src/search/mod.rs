//! `magpie search`: one exact search (an application of `magpie::search`) on a magpie
//! pool, with the skeleton chosen on the command line, its answer checked, then printed as
//! text or as one JSON object.
//!
//! Every option arrives as a string and is parsed here rather than by clap, so that a bad
//! value, an unknown application or skeleton, and an option that does not apply all end as
//! one line `magpie: error: …` with exit code 2, like the pool configuration errors
//! (clap's own errors are several lines long).
//!
//! The layers, one module each: [`args`] (the options and their validation), [`load`] (the
//! input), [`check`] (each application's answer checked), [`report`] (JSON and text); this
//! module runs a search through them.

pub(crate) mod app_flags;
pub(crate) mod args;
#[cfg(feature = "mpi")]
pub mod distributed;
pub(crate) mod report;

use magpie::search::{Monitor, Options, SearchStats, Skeleton, TaskOrder};
use magpie::ThreadPool;
use magpie_apps::registry::{self, AppArgs, Engine, Goal, Instance, Run};

pub(crate) use args::wrap;
pub use args::{after_help, SearchArgs, DEFAULT_SPAWN_DEPTH};
use args::{app_names, check_app_options, skeleton, unknown, SkeletonChoice};
use report::{print_text, Report, StatsReport};

use crate::config::{Config, Source};
use crate::error::{number, usage, Failure};
use crate::incumbents::IncumbentLog;
use crate::stop::{Status, Stop};
use magpie_measure::progress::{rate, si, StatusLine};

/// The most nodes the ordered skeleton may find down to `--spawn-depth` in discrepancy
/// order or with `--distributed` (where the pool may hold most of the nodes at that depth as
/// tasks at once; in sequential order a local pool holds one path's siblings, and no cap
/// applies): 2^22, a fraction of a second to visit and at most a few hundred MiB of tasks.
/// A deeper spawn depth on a wide tree (N-Queens 28 at depth 12 ran out of 4 GiB) is a usage
/// error, checked by counting the unpruned tree first.
pub const MAX_ORDERED_NODES: u64 = 1 << 22;

/// A search ready to run: its options validated and its input loaded. `magpie search`
/// prepares one and solves it once; `magpie experiment` solves it on many pools.
pub struct Prepared {
    instance: Box<dyn Instance>,
    choice: SkeletonChoice,
    max_depth: Option<usize>,
}

/// The application's own arguments of `args`: its files and the application flags given.
fn app_args(args: &SearchArgs) -> AppArgs {
    let files = AppArgs::new(args.input.clone()).with_file(args.input2.clone());
    args.app_flags.onto(files)
}

/// Validates `args` (application, its options, the skeleton) and loads the input: every
/// usage or input error of `magpie search` that does not need a pool.
pub fn prepare(args: &SearchArgs) -> Result<Prepared, Failure> {
    let app = args.app.trim();
    let Some(app) = registry::find(app) else {
        return Err(unknown("unknown application", app, &app_names()));
    };
    let own = app_args(args);
    check_app_options(app, &own, args)?;
    if !args.distributed && args.remote_victims.is_some() {
        return usage("--remote-victims applies to --distributed only");
    }
    if args.replicable.is_some() && args.app_flags.get("--target").is_some() {
        return usage(
            "--replicable applies to optimisation only; --target makes maxclique a decision, \
             whose search stops at the first clique found",
        );
    }
    if args.replicable.is_some() && args.distributed {
        return usage(
            "--replicable applies to one process only: over MPI the ordered skeleton shares \
             every incumbent as soon as it is found",
        );
    }
    if args.incumbents.is_some()
        && (app.goal != Goal::Optimise || args.app_flags.get("--target").is_some())
    {
        return usage(format!(
            "--incumbents applies to an optimisation (maxclique without --target, knapsack, \
             tsp); {} {}has no incumbent",
            app.name,
            if args.app_flags.get("--target").is_some() {
                "with --target "
            } else {
                ""
            }
        ));
    }
    let choice = skeleton(args)?;
    let max_depth = match &args.max_depth {
        Some(v) => Some(number("--max-depth", v, 0usize, "a depth")?),
        None => None,
    };
    let instance = (app.load)(&own)?;
    // Locally in sequential order the priority pool holds only the unexpanded siblings along
    // one path (the frontier is generated as tasks start); in discrepancy order, and over
    // MPI (rank 0 collects every task first), it may hold most of the frontier.
    if let Skeleton::Ordered { spawn_depth, order } = choice.skeleton {
        let materialised = args.distributed || order == TaskOrder::Discrepancy;
        if materialised
            && instance
                .nodes_down_to(spawn_depth, MAX_ORDERED_NODES)
                .is_none()
        {
            return usage(format!(
                "--spawn-depth {spawn_depth}: the ordered skeleton would visit more than \
                 {MAX_ORDERED_NODES} nodes down to that depth and could keep most of the \
                 deepest in memory as tasks (in discrepancy order or --distributed); give a \
                 smaller --spawn-depth, or --order sequential on one process"
            ));
        }
    }
    Ok(Prepared {
        instance,
        choice,
        max_depth,
    })
}

impl Prepared {
    /// The application's name (`uts`, …).
    pub fn app(&self) -> &'static str {
        self.instance.app().name
    }

    /// The spawn depth of the skeleton, if it has one (depth-bounded, ordered).
    pub fn spawn_depth(&self) -> Option<usize> {
        self.choice.spawn_depth
    }

    /// The options of the search (`--max-depth`, `--replicable`), watched by `monitor`.
    fn options(&self, monitor: Option<&Monitor>) -> Options {
        Options {
            max_depth: self.max_depth,
            replicable_window: self.choice.replicable_window,
            monitor: monitor.cloned(),
            ..Options::default()
        }
    }

    /// Runs the search once on `engine`, watched by `monitor`, and checks its answer, as
    /// `magpie search` does; `None` on an MPI rank other than 0.
    fn solve_on(
        &self,
        engine: &Engine<'_>,
        monitor: Option<&Monitor>,
    ) -> Result<Option<registry::Solved>, Failure> {
        let opts = self.options(monitor);
        Ok(self
            .instance
            .solve(Run::new(engine, self.choice.skeleton, &opts))?)
    }

    /// Runs the search once on `engine` (a magpie pool, or rayon for an enumeration) and
    /// checks its answer, as `magpie search` does.
    pub fn solve(&self, engine: &Engine<'_>) -> Result<registry::Solved, Failure> {
        self.solve_on(engine, None)?
            .ok_or_else(|| Failure::Run("the search ran on a rank without its result".into()))
    }

    /// The report of a checked solve on `workers` workers with deque `deque`, which ended
    /// with `status`.
    fn report(
        &self,
        solved: registry::Solved,
        status: Status,
        workers: usize,
        deque: &'static str,
    ) -> (Report, SearchStats) {
        let stats = solved.stats;
        let report = Report {
            app: self.app(),
            instance: self.instance.label(),
            answer: solved.answer,
            check: solved.check,
            status: status.name(),
            skeleton: self.choice.name,
            skeleton_params: self.choice.clone(),
            max_depth: self.max_depth,
            workers,
            deque,
            seconds: stats.time.as_secs_f64(),
            expanded: stats.expanded,
            stats: StatsReport::from(&stats),
            counters: None,
        };
        (report, stats)
    }
}

/// The pool a search runs on, from the global options (with its deque and worker count, for
/// the report). Default worker stacks: the engine's walk does not recurse per tree level.
fn build_pool(config: &Config) -> Result<(ThreadPool, magpie::deque::DequeKind, usize), Failure> {
    let deque = config.deque.value;
    let workers = config.workers.value;
    let pool = config.build(deque, workers)?;
    Ok((pool, deque, workers))
}

/// The pool configuration of a search with `choice`: the seq skeleton runs on one worker, so
/// its pool has one (and reports one); `--workers N` with N > 1 cannot apply to it and is an
/// error (a `MAGPIE_NUM_WORKERS` default is not).
fn pool_config(config: &Config, choice: &SkeletonChoice) -> Result<Config, Failure> {
    if choice.name != "seq" {
        return Ok(config.clone());
    }
    if matches!(config.workers.source, Source::Flag(_)) && config.workers.value != 1 {
        return usage(format!(
            "--workers {}: the seq skeleton runs on one worker (leave out --workers or give 1)",
            config.workers.value
        ));
    }
    let mut one = config.clone();
    one.workers.value = 1;
    Ok(one)
}

/// Prints `report` as one JSON object.
fn print_json(report: &impl serde::Serialize) -> Result<(), Failure> {
    let text = serde_json::to_string(report)
        .map_err(|e| Failure::Check(format!("cannot write the JSON report: {e}")))?;
    println!("{text}");
    Ok(())
}

/// Runs `magpie search` and prints its report.
pub fn run(args: &SearchArgs, config: &Config) -> Result<(), Failure> {
    let prepared = prepare(args)?;
    let (pool, deque, workers) = build_pool(&pool_config(config, &prepared.choice)?)?;
    let watched = Watched::start(args, true)?;
    // The counters of the search alone: the pool has run nothing else.
    pool.reset_stats();
    let tracing = crate::trace::start(args.trace.as_deref(), &pool)?;
    let watch = watched.stop.watch(&watched.monitor);
    let shown = progress_line(args, &watched.monitor);
    let solved = prepared
        .solve_on(&Engine::Pool(&pool), Some(&watched.monitor))?
        .expect("a local search has its result");
    drop(shown);
    let status = watch.finish(solved.stats.stopped);
    crate::trace::finish(tracing, &pool)?;
    let (mut report, stats) = prepared.report(solved, status, workers, deque.name());
    report.counters = Some(pool.stats().into());
    if args.json {
        print_json(&report)?;
    } else {
        print_text(&report, &prepared.choice, &stats, args.stats);
    }
    watched.finish()?;
    status.result()
}

/// The progress line of a search watched by `monitor` (shown as `args` and stderr say):
/// elapsed time, nodes, nodes/s, incumbent, tasks and steals.
pub(crate) fn progress_line(args: &SearchArgs, monitor: &Monitor) -> StatusLine {
    let m = monitor.clone();
    StatusLine::start(args.progress.mode(args.json), move || {
        let (elapsed, nodes) = (m.elapsed(), m.nodes());
        let best = m
            .best()
            .map_or(String::new(), |b| format!(", incumbent {b}"));
        format!(
            "{:.1} s, {} nodes ({}){best}, {} tasks, {} steals",
            elapsed.as_secs_f64(),
            si(nodes as f64),
            rate(nodes, elapsed, "nodes"),
            m.tasks(),
            m.steals()
        )
    })
}

/// What watches a search of `magpie search`: its monitor, the time limit and signals that
/// stop it, and the incumbent log.
pub(crate) struct Watched {
    pub(crate) monitor: Monitor,
    pub(crate) stop: Stop,
    log: Option<IncumbentLog>,
}

impl Watched {
    /// Installs the stop (signals and, where this process `decides` — one process, or rank
    /// 0 of a distributed search — `--time-limit`) and, where it decides, the incumbent log
    /// (`--incumbents`).
    pub(crate) fn start(args: &SearchArgs, decides: bool) -> Result<Watched, Failure> {
        let stop = Stop::from_flag(args.time_limit.as_deref(), decides)?;
        let monitor = Monitor::new();
        let log = args
            .incumbents
            .as_deref()
            .filter(|_| decides)
            .map(|path| IncumbentLog::create(path, &monitor))
            .transpose()?;
        Ok(Watched { stop, monitor, log })
    }

    /// The incumbent log's first write error, if any.
    pub(crate) fn finish(self) -> Result<(), Failure> {
        self.log.map_or(Ok(()), IncumbentLog::finish)
    }
}
