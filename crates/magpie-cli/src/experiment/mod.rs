//! `magpie experiment policies`: measure every combination of deques, victim policies, idle
//! policies and worker counts on one or more applications, run by run in alternation, each
//! run in fresh processes (optionally several at once, beside a background load), and
//! report the times with their statistics, the pools' counters, Welch t-tests against the
//! first configuration, and the "aggregated result" of the Pheet thesis.
//!
//! Layout: [`matrix`] resolves the configuration lists, [`apps`] parses an application and
//! runs it once (the hidden `experiment run-one`, the child process), [`runner`] starts the
//! children and their barrier, [`report`] summarises and prints; the statistics, rounds,
//! barrier, background load and tables are the measurement harness of `magpie_measure`.

mod apps;
mod matrix;
mod report;
mod runner;

use clap::{ArgAction, ArgMatches, Args, Subcommand};

use crate::config::{Config, Flags};
use crate::error::{usage, Failure};

/// `magpie experiment`'s subcommands.
#[derive(Debug, Args)]
pub struct ExperimentArgs {
    #[command(subcommand)]
    pub command: ExperimentCommand,
}

/// The experiments.
#[derive(Debug, Subcommand)]
pub enum ExperimentCommand {
    /// Compare scheduling policies: time every combination of --deque, --victims, --idle
    /// and --workers (comma-separated lists) on one or more applications
    #[command(long_about = POLICIES_ABOUT, after_help = policies_after())]
    Policies(Box<PoliciesArgs>),
    /// One measured run, in a child process of `policies` (internal)
    #[command(hide = true)]
    RunOne(RunOneArgs),
}

const POLICIES_ABOUT: &str = "\
Compare scheduling policies: time every combination of --deque, --victims, --idle and
--workers on one or more applications, alternating the configurations run by run (run 1 of
every configuration, then run 2 of every configuration, ...), and report per application
and configuration the median, mean, 95% confidence interval (Student t), min and max of the
run times, the pool's steals, failed steals (attempts - steals), timed sleeps and parks,
a Welch t-test against the first configuration of the same application and worker count,
and the aggregated result of the Pheet thesis (per application and worker count, each
configuration's mean time divided by the mean over configurations, averaged over the
applications; below 1 is faster than average).

Every run starts --instances fresh processes of this binary (one by default), each of which
prepares its input and builds its pool, then waits at a barrier; when all are ready they
are released together and time only the solve. A run's time is the mean over its
instances. Every answer is checked, and all runs of an application must give the same
answer: a failed check exits 1.";

/// `policies`' help after the options: [`POLICIES_AFTER`] with the searches' synopses of
/// the registry.
fn policies_after() -> String {
    let synopses: Vec<&str> = magpie_apps::registry::SEARCH_APPS
        .iter()
        .map(|a| a.synopsis)
        .collect();
    POLICIES_AFTER.replace("{SEARCHES}", &crate::search::wrap(&synopses, "  ", 90))
}

/// `policies`' help after the options, where `{SEARCHES}` stands for the synopses of the
/// search applications.
const POLICIES_AFTER: &str = "\
Lists: the global options --workers, --deque, --victims and --idle take comma-separated
lists here (or their MAGPIE_* variables do). A policy's own parameters also use commas: an
element of the form key=value continues the policy before it, so
  --idle park,linear:min=10us,step=50us,dynamic-quanta
is three idle policies. Every element is checked before anything runs.

Applications (--app, repeatable; an application's options follow its --app):
{SEARCHES}
                     the searches of `magpie search`, with its skeleton options
                     (--skeleton, --spawn-depth, --budget, --steal-all, --order,
                     --max-depth); timed by the search's own clock
  quicksort [--size N --data uniform|gaussian]
                     sort N seeded keys (default 10000000): random u64s (default) or
                     standard normal doubles (Pheet's input); checked sorted and against
                     the input's checksum
  prefix-sum [--size N --data ones|uniform]
                     inclusive prefix sum of N ones (default; Pheet's input, the sums are
                     1..=N) or seeded random u64s; every element checked
  fib [--n N]        naive fork-join Fibonacci, no cutoff (default 30); checked exactly
  lu [--n N --block B --seed S]
                     blocked LU without pivoting of a seeded diagonally dominant N x N
                     matrix (default 1024, blocks of 64); checked ||A - LU||_F <=
                     2 N eps ||L||_F ||U||_F and bit for bit against the sequential
                     blocked LU
  sssp [--graph random|grid --size N --seed S --priorities on|off]
                     single-source shortest paths from vertex 0 of a seeded graph of N
                     vertices (default 100000; random G(n, 8n) or a grid, weights
                     1..1000), one task per improved vertex at priority -distance
                     (Pheet's; off: all at 0); checked against Dijkstra; magpie only
  mandelbrot [--width W --height H --max-iter N], dist [--dist D --iterations N
  --mean-units U --seed S], histogram [--size N --buckets B --skew S --seed S],
  spmv [--rows R --cols C --min-len L --alpha A --seed S], each with [--steps T]
                     the loop applications of `magpie loop` (same defaults), each run for
                     its time steps through one loop handle and checked against its
                     sequential version; timed over all steps; the rows add the loop's
                     chunks, loop steals and last-step c.o.v. of busy times

Loop schedules (--schedule LIST): one more axis of the configurations, like --deque or
--idle: the loop applications run once per schedule in every configuration, so rel,
Welch's test and the aggregated result compare the schedules with each other. The other
applications take no schedule: they run once per configuration of the other settings
(not once per schedule), their rows show schedule `-` (none in CSV and JSON, whose
schedule_apps lists the applications that take one), and their rel and Welch's test compare those configurations only (rel = mean / mean of their rows
of the same worker count; the baseline is the first configuration). In the aggregated
result of a configuration with a schedule, such an application counts with its row of the
same other settings, alike for every schedule: the schedules' differences come from the
loop applications alone. A schedule's argument follows a comma too, so an element that
starts with a digit, or `fac2` right after rws or laws, is the argument of the schedule
before it:
  --schedule ss,4,gss,rws,fac2,static is ss,4 / gss / rws,fac2 / static.
Without --schedule, auto; giving it without a loop application is an error.

Peers (--peers rayon): one more row per worker count, the same application on a rayon pool
of that many threads (rayon's own idle behaviour): fork-join kernels by rayon::join, uts,
ns and nqueens by a rayon enumeration whose nodes above the spawn depth (--spawn-depth,
default 2) fork with rayon. maxclique, knapsack and tsp have no rayon version.

Examples:
  magpie experiment policies --app uts --tree T1 --victims random,sticky,perf \\
      --idle linear,dynamic-quanta --workers 1,2 --runs 10
  magpie experiment policies --app fib --n 32 --app quicksort --size 1000000 \\
      --app ns --genus 28 --skeleton budget --idle park,yield --workers 4 \\
      --instances 2 --peers rayon --format csv
  magpie experiment policies --app nqueens --n 13 --idle park,linear:max=1ms \\
      --background 'yes > /dev/null' --runs 20 --format json
  magpie experiment policies --app mandelbrot --width 400 --height 300 \\
      --app dist --dist gamma:k=0.5 --steps 10 --schedule ss,16,gss,rws,fac2,af \\
      --workers 2 --runs 5 --format json";

/// `magpie experiment policies`' arguments. The application options may be repeated: each
/// belongs to the `--app` before it (see [`apps::from_matches`]).
#[derive(Debug, Args)]
pub struct PoliciesArgs {
    /// An application and, for maxclique, knapsack, tsp and bipartition, its input file (for
    /// sip, its two: pattern and target); repeat for several applications, each followed by
    /// its own options
    #[arg(long = "app", value_name = "APP [FILE]", num_args = 1..=3, action = ArgAction::Append,
          required = true, help_heading = "Applications")]
    pub app: Vec<String>,

    /// Search skeleton of the preceding --app (as in `magpie search`)
    #[arg(long, value_name = "NAME", action = ArgAction::Append, help_heading = "Applications")]
    pub skeleton: Vec<String>,
    /// depth-bounded, ordered (and the rayon peer): depth of the task nodes [default: 2]
    #[arg(long, value_name = "D", action = ArgAction::Append, allow_hyphen_values = true,
          help_heading = "Applications")]
    pub spawn_depth: Vec<String>,
    /// budget: backtracks between two spawns [default: 10000]
    #[arg(long, value_name = "B", action = ArgAction::Append, allow_hyphen_values = true,
          help_heading = "Applications")]
    pub budget: Vec<String>,
    /// stack-stealing: hand a thief every unexplored sibling of the shallowest level
    #[arg(long, num_args = 0, default_missing_value = "true", action = ArgAction::Append,
          help_heading = "Applications")]
    pub steal_all: Vec<String>,
    /// ordered: sequential or discrepancy
    #[arg(long, value_name = "ORDER", action = ArgAction::Append, help_heading = "Applications")]
    pub order: Vec<String>,
    /// The search applications' own options (`--target`, `--n`, …), declared in the registry
    #[command(flatten)]
    pub app_flags: AppFlagLists,
    #[arg(long, value_name = "D", action = ArgAction::Append, allow_hyphen_values = true,
          help_heading = "Applications", help = crate::search::args::max_depth_help())]
    pub max_depth: Vec<String>,
    /// quicksort, prefix-sum: the number of elements; histogram: the number of keys; sssp:
    /// the number of vertices
    #[arg(long, value_name = "N", action = ArgAction::Append, allow_hyphen_values = true,
          help_heading = "Applications")]
    pub size: Vec<String>,
    /// quicksort: uniform or gaussian keys; prefix-sum: ones or uniform
    #[arg(long, value_name = "D", action = ArgAction::Append, help_heading = "Applications")]
    pub data: Vec<String>,
    /// lu: the block size [default: 64]
    #[arg(long, value_name = "B", action = ArgAction::Append, allow_hyphen_values = true,
          help_heading = "Applications")]
    pub block: Vec<String>,
    /// sssp: the generated graph, random or grid [default: random]
    #[arg(long, value_name = "G", action = ArgAction::Append, help_heading = "Applications")]
    pub graph: Vec<String>,
    /// sssp: on (priority -distance, default) or off (every task at priority 0)
    #[arg(long, value_name = "on|off", action = ArgAction::Append,
          help_heading = "Applications")]
    pub priorities: Vec<String>,
    /// Loop applications: time steps through one loop handle (as in `magpie loop`)
    #[arg(long, value_name = "T", action = ArgAction::Append, allow_hyphen_values = true,
          help_heading = "Loop applications")]
    pub steps: Vec<String>,
    /// mandelbrot: pixels per row
    #[arg(long, value_name = "W", action = ArgAction::Append, allow_hyphen_values = true,
          help_heading = "Loop applications")]
    pub width: Vec<String>,
    /// mandelbrot: rows
    #[arg(long, value_name = "H", action = ArgAction::Append, allow_hyphen_values = true,
          help_heading = "Loop applications")]
    pub height: Vec<String>,
    /// mandelbrot: iteration limit per pixel
    #[arg(long, value_name = "N", action = ArgAction::Append, allow_hyphen_values = true,
          help_heading = "Loop applications")]
    pub max_iter: Vec<String>,
    /// dist: the distribution of the iteration costs
    #[arg(long, value_name = "D", action = ArgAction::Append, help_heading = "Loop applications")]
    pub dist: Vec<String>,
    /// dist: iterations per loop
    #[arg(long, value_name = "N", action = ArgAction::Append, allow_hyphen_values = true,
          help_heading = "Loop applications")]
    pub iterations: Vec<String>,
    /// dist: mean iteration cost in work units
    #[arg(long, value_name = "U", action = ArgAction::Append, allow_hyphen_values = true,
          help_heading = "Loop applications")]
    pub mean_units: Vec<String>,
    /// histogram: the number of buckets
    #[arg(long, value_name = "B", action = ArgAction::Append, allow_hyphen_values = true,
          help_heading = "Loop applications")]
    pub buckets: Vec<String>,
    /// histogram: skew of the keys
    #[arg(long, value_name = "S", action = ArgAction::Append, allow_hyphen_values = true,
          help_heading = "Loop applications")]
    pub skew: Vec<String>,
    /// spmv: rows of the matrix
    #[arg(long, value_name = "R", action = ArgAction::Append, allow_hyphen_values = true,
          help_heading = "Loop applications")]
    pub rows: Vec<String>,
    /// spmv: columns of the matrix
    #[arg(long, value_name = "C", action = ArgAction::Append, allow_hyphen_values = true,
          help_heading = "Loop applications")]
    pub cols: Vec<String>,
    /// spmv: the shortest row length
    #[arg(long, value_name = "L", action = ArgAction::Append, allow_hyphen_values = true,
          help_heading = "Loop applications")]
    pub min_len: Vec<String>,
    /// spmv: power-law exponent of the row lengths
    #[arg(long, value_name = "A", action = ArgAction::Append, allow_hyphen_values = true,
          help_heading = "Loop applications")]
    pub alpha: Vec<String>,
    /// Loop schedules, one more axis of the configurations, given to the loop applications
    /// (e.g. ss,4,gss,rws,fac2,static: an element that is an argument continues the
    /// schedule before it; the other applications run once for all schedules, see below)
    /// [default: auto]
    #[arg(long, value_name = "LIST", help_heading = "Loop applications")]
    pub schedule: Option<String>,

    /// Measured runs of every configuration, at least 1 [default: 10]
    #[arg(
        long,
        value_name = "R",
        allow_hyphen_values = true,
        help_heading = "Experiment"
    )]
    pub runs: Option<String>,
    /// Processes started together for every run (multiprogrammed runs) [default: 1]
    #[arg(
        long,
        value_name = "K",
        allow_hyphen_values = true,
        help_heading = "Experiment"
    )]
    pub instances: Option<String>,
    /// Other runtimes to add as rows: rayon
    #[arg(long, value_name = "LIST", help_heading = "Experiment")]
    pub peers: Option<String>,
    /// A command run by `sh -c` beside the whole experiment (started before the first run,
    /// its process group killed after the last; its output is discarded)
    #[arg(
        long,
        value_name = "CMD",
        allow_hyphen_values = true,
        help_heading = "Experiment"
    )]
    pub background: Option<String>,
    /// Output: table, csv or json [default: table]
    #[arg(long, value_name = "FORMAT", help_heading = "Experiment")]
    pub format: Option<String>,
    // --progress, --quiet: the runs done on stderr (by default on a terminal and not with
    // --format json).
    #[command(flatten, next_help_heading = "Experiment")]
    pub progress: magpie_measure::progress::ProgressArgs,
    /// After the report, write its pictures into DIR: runtimes.png (box plots of the run
    /// times) and, with several worker counts, speedup.png (see `magpie plot`)
    #[arg(long, value_name = "DIR", help_heading = "Experiment")]
    pub plot: Option<std::path::PathBuf>,
    /// Stop after this long (500ms, 30s, 5m, 1.5h), between two runs, and report what was
    /// measured (status time-limit, exit code 3). Ctrl-C (SIGINT) or SIGTERM does the same
    /// (status interrupted); a second one exits at once
    #[arg(long, value_name = "DURATION", help_heading = "Experiment")]
    pub time_limit: Option<String>,
}

/// The help of the other applications that take a flag of the search applications.
const SHARED_FLAGS: [(&str, &str); 2] = [
    ("--n", "fib: the argument; lu: the matrix order"),
    (
        "--seed",
        "dist, histogram, spmv, lu: seed of the generated input",
    ),
];

/// The search applications' flags in `policies`, each repeatable: one argument per flag of
/// the registry (see [`crate::search`]'s `app_flags`), with the help of the other
/// applications that take it. Their values are read by position ([`apps::from_matches`]).
#[derive(Debug, Clone, Default)]
pub struct AppFlagLists;

impl clap::FromArgMatches for AppFlagLists {
    fn from_arg_matches(_: &ArgMatches) -> Result<Self, clap::Error> {
        Ok(AppFlagLists)
    }

    fn update_from_arg_matches(&mut self, _: &ArgMatches) -> Result<(), clap::Error> {
        Ok(())
    }
}

impl Args for AppFlagLists {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        crate::search::app_flags::augment(cmd, "Applications", true, &SHARED_FLAGS)
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

/// The hidden child of `policies`: prepare, build the pool, print `ready`, wait for a line
/// on stdin, solve once, print one JSON line.
#[derive(Debug, Args)]
pub struct RunOneArgs {
    /// magpie or rayon
    #[arg(long, default_value = "magpie")]
    pub runtime: String,
    /// The application and its options, after `--`
    #[arg(last = true, required = true, num_args = 1.., allow_hyphen_values = true)]
    pub app: Vec<String>,
}

/// The output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Csv,
    Json,
}

/// Parses a count given to `flag`, at least 1.
fn count(flag: &str, value: Option<&str>, default: usize, what: &str) -> Result<usize, Failure> {
    match value {
        Some(v) => magpie_apps::registry::parse_number(flag, v, 1, what).map_err(Failure::Usage),
        None => Ok(default),
    }
}

/// Runs `magpie experiment policies`. `matches` are the subcommand's (for the positions of
/// the application options), `flags` the global options as given (lists).
pub fn policies(args: &PoliciesArgs, matches: &ArgMatches, flags: &Flags) -> Result<(), Failure> {
    let runs = count("--runs", args.runs.as_deref(), 10, "the number of runs")?;
    let instances = count(
        "--instances",
        args.instances.as_deref(),
        1,
        "the number of instances",
    )?;
    let format = match args.format.as_deref().map(str::trim) {
        None | Some("table") => Format::Table,
        Some("csv") => Format::Csv,
        Some("json") => Format::Json,
        Some(other) => {
            return usage(format!(
                "--format: unknown format {other:?}; expected one of: table, csv, json"
            ))
        }
    };
    let background = match args.background.as_deref() {
        Some(c) if c.trim().is_empty() => return usage("--background: the command is empty"),
        other => other.map(str::to_string),
    };
    let schedules = match args.schedule.as_deref() {
        Some(list) => matrix::split_schedules("--schedule", list)?,
        None => Vec::new(),
    };
    let apps = apps::from_matches(matches)?;
    apps::check_schedules(&apps, &schedules)?;
    let peers = matrix::peers(args.peers.as_deref())?;
    // A peer without a version of an application leaves that application's rows out (and
    // the report says so); a peer that can run none of them is an error.
    let mut left_out = Vec::new();
    for peer in &peers {
        let mut first_error = None;
        for (a, app) in apps.iter().enumerate() {
            if let Err(Failure::Usage(reason)) = app.check_peer(*peer) {
                first_error.get_or_insert_with(|| reason.clone());
                left_out.push(runner::LeftOut {
                    app: a,
                    peer: peer.name(),
                    reason,
                });
            }
        }
        if left_out.iter().filter(|l| l.peer == peer.name()).count() == apps.len() {
            return Err(Failure::Usage(first_error.unwrap_or_default()));
        }
    }
    let matrix =
        matrix::Matrix::resolve(flags, &peers, &schedules, &|name| std::env::var(name).ok())?;
    let exe = std::env::current_exe()
        .map_err(|e| Failure::Run(format!("cannot find this program's executable: {e}")))?;
    let plan = runner::Plan {
        exe,
        apps,
        setups: matrix.setups,
        runs,
        instances,
        background,
        left_out,
    };
    let stop = crate::stop::Stop::from_flag(args.time_limit.as_deref(), true)?;
    let results = runner::execute(&plan, args.progress.mode(format == Format::Json), &stop)?;
    let experiment = report::Experiment::new(&plan, &matrix.lists, &results);
    experiment
        .print(format)
        .map_err(|e| Failure::Run(format!("cannot write the report: {e}")))?;
    if let Some(dir) = &args.plot {
        crate::plot::report_pictures(&experiment.json_value(), dir)?;
    }
    results.status.result()
}

/// Runs `magpie experiment run-one` (a child of `policies`) with the pool of `config`.
pub fn run_one(args: &RunOneArgs, config: &Config) -> Result<(), Failure> {
    apps::run_one(args, config)
}
