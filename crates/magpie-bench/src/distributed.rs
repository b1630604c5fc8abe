//! The `distributed` suite: the MPI build of the `magpie` CLI, run as child processes under
//! `mpirun`, each run's time taken from the one JSON object rank 0 prints.
//!
//! ```text
//! cargo build --release -p magpie-cli --features mpi      # the binary measured
//! cargo run --release -p magpie-bench -- distributed [--runs 5] [--json] [--quick]
//!     [--experiments overhead,policies,loops] [--policies random,sticky,perf] [--candidate perf]
//!     [--overhead-apps uts-T1,ns-34,brock400_1] [--policy-apps ns-34,brock200_1]
//!     [--policy-ranks 4] [--loads isolated,contended] [--background other]
//!     [--background-policy random] [--loop-ranks 2,4] [--loop-dist exponential]
//!     [--budget B] [--spawn-depth 2] [--warmup 1] [--timeout 1800] [--mpirun mpirun]
//! ```
//!
//! **The binary.** `MAGPIE_BIN`, else `magpie` beside this executable (both are in
//! `target/release` after the build above). Every child is
//! `mpirun --oversubscribe --bind-to none [--allow-run-as-root, when run as root] -np R magpie … --workers W
//! --json`, with every inherited `MAGPIE_*` variable removed (the runtime's
//! `magpie::ThreadPoolBuilder::ENV_VARS` and the CLI's fault injection), so each run is configured by
//! its command line alone. A first tiny job checks that the binary exists and was built with
//! MPI; if not, the suite stops with one error naming the build command.
//!
//! **Apps** (`--overhead-apps`, `--policy-apps`): `uts-NAME` (a named UTS tree, e.g.
//! `uts-T1`), `uts-dD` (T1's shape cut at depth D), `ns-G` (numerical semigroups up to genus
//! G) — both with `--skeleton budget` (and `--budget B` if given) — and a DIMACS graph name
//! (`brock400_1`, or `maxclique-brock400_1`), read from `dimacs/` of the instance directory
//! (`magpie_apps::instances`: `--instances DIR`, `MAGPIE_INSTANCES`, else
//! `../shared/instances`), with `--skeleton depth-bounded --spawn-depth D` (default 2).
//!
//! **Runs.** Each comparison runs its contenders in interleaved rounds (one run of each per
//! round, so that a drift in machine load hits all alike): `--warmup` untimed rounds
//! (default one) then `--runs` timed ones (default 5); medians, min and max are reported.
//! The time of a run is the one the CLI reports (`seconds` of a search, `time_s` of a loop: the
//! computation, without MPI's start-up). A child that fails (non-zero exit, no JSON, a
//! missing field, past `--timeout` seconds) gives an error row naming its command; the
//! contender is dropped from later rounds, and the suite exits with an error at the end.
//!
//! Experiments:
//!
//! 1. **overhead** — 2 ranks × 1 worker vs 1 rank × 2 workers, both `--distributed` with the
//!    same skeleton, on each of `--overhead-apps` (default `uts-T1,ns-34,brock400_1`;
//!    brock400_1 takes minutes per run). Ratio median(2×1) / median(1×2), target ≤ 1.15.
//!    `--overhead-shapes 4x4,1x16` compares other shapes (ranks × workers per rank, the
//!    first over the second), as `scripts/scale.sh` does on 16 cores.
//! 2. **policies** — each of `--policies` (`--remote-victims`, passed as strings; default
//!    `random,sticky,perf`) at `--policy-ranks` (4) ranks × 1 worker on each of
//!    `--policy-apps` (default `ns-34` with Budget, `brock200_1` with DepthBounded d = 2),
//!    under each of `--loads`: `isolated`, and `contended` — while the contended rounds of
//!    an app run, a background job runs in a loop: `--background other` (default: the
//!    other app of `--policy-apps`, or the same one if there is only one), `none`, or an
//!    app spec, at `--background-ranks` (default: the policy ranks) × 1 worker with the fixed
//!    `--background-policy` (default random, so that every contender meets the same load);
//!    it is stopped (SIGTERM to its `mpirun`, then SIGKILL after 10 s) when the rounds end.
//!    For `--candidate` (default `perf`; the last policy if it is not among `--policies`) vs
//!    each other policy: the reduction (T_other − T_cand) / T_other of the medians, as a
//!    percentage (positive: the candidate is faster; the definition of the thesis' quoted
//!    figures), and Welch's t-test on the runs' times (t < 0: the candidate is faster;
//!    two-sided p). The thesis' figures are printed for comparison.
//! 3. **loops** — the distributed Dist loop (`--loop-dist`, default `exponential`) at each
//!    of `--loop-ranks` (2,4) ranks × 1 worker: LB4MPI-style work stealing (`--mode steal
//!    --victims coordinator`) vs work sharing (`--mode share`). Median time, ratio
//!    steal/share, and the medians of the c.o.v. of the ranks' finishing times (`cov`) and of
//!    the successful steals (the sum of the ranks' `steals_ok`).
//!
//! `--quick`: tiny instances (uts-d7, ns-20, brock200_4, a 20000-iteration loop), 2 runs
//! and no warm-up, for a smoke test of a few seconds per experiment. `--json` prints every
//! row (times, ratios, tests, errors; field `row` says which) as a JSON array on stdout and
//! the tables on stderr. `--plot DIR` writes `DIR/runtimes.png` (box plots of the `time`
//! rows' runs, a panel per experiment, app and load) and, where a contender ran at several
//! rank counts (the loops), `DIR/speedup.png` (relative to its fewest ranks when there is
//! no 1-rank run); `magpie plot` draws the same from the `--json` output.

use std::fmt::Write as _;
use std::path::PathBuf;

use magpie_measure::background::{Background, Repeat};
use magpie_measure::progress::{Mode, RunsBar};
use magpie_measure::report;
use magpie_measure::rounds::rounds;
use magpie_measure::stats;
// Messages on stderr go above the progress bar while it is shown.
use magpie_measure::{eprint_above as eprint, eprintln_above as eprintln};
use serde::Serialize;

mod launch;

#[cfg(test)]
use launch::stderr_tail;
use launch::{parse_app, parse_shape};
pub(crate) use launch::{parse_output, Kind, Launcher, Sample};

/// The command that builds the binary this suite measures.
const BUILD_COMMAND: &str = "cargo build --release -p magpie-cli --features mpi";

/// The overhead target: median(2 ranks × 1 worker) / median(1 rank × 2 workers).
const OVERHEAD_TARGET: f64 = 1.15;

/// The experiments, in their default order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Experiment {
    /// 2 ranks × 1 worker vs 1 rank × 2 workers.
    Overhead,
    /// The inter-rank victim policies, isolated and under background load.
    Policies,
    /// Distributed loops: work stealing vs work sharing.
    Loops,
}

impl Experiment {
    const ALL: [Experiment; 3] = [
        Experiment::Overhead,
        Experiment::Policies,
        Experiment::Loops,
    ];
}

impl std::fmt::Display for Experiment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(match self {
            Experiment::Overhead => "overhead",
            Experiment::Policies => "policies",
            Experiment::Loops => "loops",
        })
    }
}

/// The load of the policies experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Load {
    /// Nothing else runs.
    Isolated,
    /// A background job runs in a loop (see `--background`).
    Contended,
}

impl std::fmt::Display for Load {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

impl Load {
    fn name(self) -> &'static str {
        match self {
            Load::Isolated => "isolated",
            Load::Contended => "contended",
        }
    }
}

/// Options of the `distributed` suite (see the module doc).
#[derive(Debug, clap::Args)]
pub struct DistributedArgs {
    /// Print only a JSON array of result rows on stdout (the tables go to stderr).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub progress: magpie_measure::progress::ProgressArgs,
    /// Timed rounds per comparison (default 5; 2 with --quick).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: Option<u32>,
    /// Untimed warm-up rounds before the timed ones (default 1; 0 with --quick).
    #[arg(long)]
    pub warmup: Option<u32>,
    /// Tiny instances, 2 runs, no warm-up: a smoke test.
    #[arg(long)]
    pub quick: bool,
    /// Experiments to run.
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = Experiment::ALL)]
    pub experiments: Vec<Experiment>,
    /// Inter-rank victim policies compared (passed to `--remote-victims` as given).
    #[arg(long, value_delimiter = ',', default_values_t = ["random", "sticky", "perf"].map(String::from))]
    pub policies: Vec<String>,
    /// The policy compared against each other one (the last of --policies if absent).
    #[arg(long, default_value = "perf")]
    pub candidate: String,
    /// Apps of the overhead experiment [default: uts-T1,ns-34,brock400_1; --quick:
    /// uts-d7,ns-20,brock200_4].
    #[arg(long, value_delimiter = ',')]
    pub overhead_apps: Option<Vec<String>>,
    /// The two shapes of the overhead experiment, RANKSxWORKERS each (the workers per
    /// rank); the ratio is the first's median over the second's.
    #[arg(long, value_delimiter = ',', num_args = 1, default_values = ["2x1", "1x2"],
          value_parser = parse_shape)]
    pub overhead_shapes: Vec<(u32, u32)>,
    /// Apps of the policies experiment [default: ns-34,brock200_1; --quick: ns-20,brock200_4].
    #[arg(long, value_delimiter = ',')]
    pub policy_apps: Option<Vec<String>>,
    /// Ranks (× 1 worker) of the policies experiment.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..))]
    pub policy_ranks: u32,
    /// Loads of the policies experiment.
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [Load::Isolated, Load::Contended])]
    pub loads: Vec<Load>,
    /// The background job of the contended runs: `other` (the other policy app), `none`, or
    /// an app spec.
    #[arg(long, default_value = "other")]
    pub background: String,
    /// The background job's --remote-victims (fixed, so every contender meets the same load).
    #[arg(long, default_value = "random")]
    pub background_policy: String,
    /// The background job's ranks (× 1 worker) [default: --policy-ranks].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub background_ranks: Option<u32>,
    /// Ranks (× 1 worker) of the loops experiment.
    #[arg(long, value_delimiter = ',', default_values_t = [2u32, 4])]
    pub loop_ranks: Vec<u32>,
    /// The Dist loop's distribution.
    #[arg(long, default_value = "exponential")]
    pub loop_dist: String,
    /// The loop's `--iterations` [default: the CLI's; 20000 with --quick].
    #[arg(long)]
    pub loop_iterations: Option<u64>,
    /// The loop's `--mean-units` [default: the CLI's; 20 with --quick].
    #[arg(long)]
    pub loop_mean_units: Option<u64>,
    /// `--budget` of the budget skeleton runs [default: the CLI's].
    #[arg(long)]
    pub budget: Option<u64>,
    /// `--spawn-depth` of the depth-bounded (maxclique) runs.
    #[arg(long, default_value_t = 2)]
    pub spawn_depth: u32,
    /// A child still running after this many seconds is killed and reported as failed.
    #[arg(long, default_value_t = 1800, value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
    /// The mpirun program.
    #[arg(long, default_value = "mpirun")]
    pub mpirun: String,
    /// After the report, write its pictures into DIR: runtimes.png (box plots of the run
    /// times, one panel per experiment, app and load) and, where a contender ran at several
    /// rank counts (loops), speedup.png
    #[arg(long, value_name = "DIR")]
    pub plot: Option<PathBuf>,
}

/// One JSON row (`row` names its kind).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "row", rename_all = "snake_case")]
pub enum Row {
    /// One contender's times.
    Time(TimeRow),
    /// A ratio of two medians.
    Ratio(RatioRow),
    /// The candidate policy vs another one.
    Compare(CompareRow),
    /// A child that failed, or an app that could not be set up.
    Error(ErrorRow),
}

/// One contender's timed runs.
#[derive(Debug, Clone, Serialize)]
pub struct TimeRow {
    /// `overhead`, `policies` or `loops`.
    pub experiment: String,
    /// The app spec (or the loop's distribution).
    pub app: String,
    /// `isolated` / `contended` (policies), else empty.
    pub load: String,
    /// `2x1`, a policy name, `steal`, `share`.
    pub contender: String,
    /// MPI ranks.
    pub ranks: u32,
    /// Workers per rank.
    pub workers: u32,
    /// Median time, in seconds.
    pub median_s: f64,
    /// Fastest run.
    pub min_s: f64,
    /// Slowest run.
    pub max_s: f64,
    /// Every timed run, in order.
    pub times_s: Vec<f64>,
    /// Median of the nodes expanded (searches).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expanded: Option<f64>,
    /// Median c.o.v. of nodes per rank (searches) or of the ranks' finishing times (loops).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cov: Option<f64>,
    /// Median of the successful steals summed over the ranks (loops).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steals: Option<f64>,
}

/// A ratio of medians, with its target if it has one.
#[derive(Debug, Clone, Serialize)]
pub struct RatioRow {
    /// The experiment.
    pub experiment: String,
    /// The app.
    pub app: String,
    /// What is divided by what, e.g. `2x1/1x2`.
    pub ratio_of: String,
    /// The ratio.
    pub ratio: f64,
    /// The target (an upper bound), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<f64>,
    /// Whether the target is met.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub met: Option<bool>,
}

/// The candidate policy vs another one.
#[derive(Debug, Clone, Serialize)]
pub struct CompareRow {
    /// The app.
    pub app: String,
    /// The load.
    pub load: String,
    /// The candidate policy.
    pub candidate: String,
    /// The policy it is compared with.
    pub other: String,
    /// (median(other) − median(candidate)) / median(other), in percent.
    pub reduction_pct: f64,
    /// Welch's t of candidate vs other (negative: candidate faster); absent when undefined.
    pub welch_t: Option<f64>,
    /// Welch–Satterthwaite degrees of freedom.
    pub welch_df: Option<f64>,
    /// Two-sided p-value.
    pub welch_p: Option<f64>,
}

/// A failure, naming the command.
#[derive(Debug, Clone, Serialize)]
pub struct ErrorRow {
    /// The experiment.
    pub experiment: String,
    /// The app.
    pub app: String,
    /// The contender (empty if the whole app failed).
    pub contender: String,
    /// The command line that failed (empty if none ran).
    pub command: String,
    /// What went wrong.
    pub error: String,
}

/// One contender of a comparison.
struct Contender {
    name: String,
    ranks: u32,
    workers: u32,
    argv: Vec<String>,
    samples: Vec<Sample>,
    failed: bool,
}

impl Contender {
    fn new(launcher: &Launcher, name: &str, ranks: u32, workers: u32, tail: &[String]) -> Self {
        Contender {
            name: name.to_string(),
            ranks,
            workers,
            argv: launcher.argv(ranks, workers, tail),
            samples: Vec::new(),
            failed: false,
        }
    }

    fn times(&self) -> Vec<f64> {
        self.samples.iter().map(|s| s.time).collect()
    }

    fn median(&self) -> Option<f64> {
        (!self.failed && !self.samples.is_empty()).then(|| stats::median(&self.times()))
    }
}

/// The suite's state: where rows and tables go.
struct Suite<'a> {
    args: &'a DistributedArgs,
    launcher: Launcher,
    runs: u32,
    warmup: u32,
    rows: Vec<Row>,
    failed: Vec<String>,
    text: String,
    /// Whether to show the runs done on stderr.
    progress: Mode,
}

impl Suite<'_> {
    fn error(&mut self, experiment: &str, app: &str, contender: &str, command: &str, e: &str) {
        let what = format!(
            "{experiment} {app}{}{contender}",
            if contender.is_empty() { "" } else { " " }
        );
        let ran = if command.is_empty() {
            String::new()
        } else {
            format!(" (command: {command})")
        };
        eprintln!("\n  ERROR {what}: {e}{ran}");
        self.failed.push(format!("{what}: {e}{ran}"));
        self.rows.push(Row::Error(ErrorRow {
            experiment: experiment.into(),
            app: app.into(),
            contender: contender.into(),
            command: command.into(),
            error: e.into(),
        }));
    }

    /// Runs the contenders in interleaved rounds: warm-up rounds, then the timed ones.
    fn measure(&mut self, experiment: &str, app: &str, kind: Kind, cs: &mut [Contender]) {
        let rounds_total = (self.warmup + self.runs) as usize;
        let bar = RunsBar::new(
            self.progress,
            &format!("{experiment} {app}"),
            (cs.len() * rounds_total) as u64,
        );
        for round in rounds(self.warmup, self.runs) {
            let warm = !round.is_timed();
            if warm {
                eprint!("  {app}: warm-up   ");
            } else {
                eprint!("  {app}: round {:>2}  ", round.number());
            }
            for c in cs.iter_mut() {
                if c.failed {
                    bar.inc();
                    continue;
                }
                bar.set_message(format!("{round}: {}", c.name));
                let result = self
                    .launcher
                    .run(&c.argv)
                    .and_then(|out| parse_output(kind, &out));
                bar.inc();
                match result {
                    Ok(s) => {
                        eprint!("{} {:.3}  ", c.name, s.time);
                        if !warm {
                            c.samples.push(s);
                        }
                    }
                    Err(e) => {
                        c.failed = true;
                        let shown = self.launcher.show(&c.argv);
                        self.error(experiment, app, &c.name, &shown, &e);
                    }
                }
            }
            eprintln!();
        }
    }

    /// The time rows and table lines of measured contenders.
    fn time_rows(&mut self, experiment: &str, app: &str, load: &str, cs: &[Contender]) {
        let _ = writeln!(
            self.text,
            "{:<12} {:>5} {:>3} {:>9} {:>9} {:>9} {:>4} {:>14} {:>7} {:>9}",
            "contender",
            "ranks",
            "w",
            "median_s",
            "min_s",
            "max_s",
            "n",
            "expanded",
            "cov",
            "steals"
        );
        for c in cs {
            let Some(median) = c.median() else {
                let _ = writeln!(
                    self.text,
                    "{:<12} {:>5} {:>3}   FAILED",
                    c.name, c.ranks, c.workers
                );
                continue;
            };
            let times = c.times();
            let (_, min, max) = stats::median_min_max_s(&times);
            let med = |f: fn(&Sample) -> Option<f64>| {
                let v: Option<Vec<f64>> = c.samples.iter().map(f).collect();
                v.map(|v| stats::median(&v))
            };
            let row = TimeRow {
                experiment: experiment.into(),
                app: app.into(),
                load: load.into(),
                contender: c.name.clone(),
                ranks: c.ranks,
                workers: c.workers,
                median_s: median,
                min_s: min,
                max_s: max,
                times_s: times.clone(),
                expanded: med(|s| s.expanded),
                cov: med(|s| s.cov),
                steals: med(|s| s.steals),
            };
            let opt =
                |x: Option<f64>, prec: usize| x.map_or("-".to_string(), |v| format!("{v:.prec$}"));
            let _ = writeln!(
                self.text,
                "{:<12} {:>5} {:>3} {:>9.4} {:>9.4} {:>9.4} {:>4} {:>14} {:>7} {:>9}",
                c.name,
                c.ranks,
                c.workers,
                median,
                min,
                max,
                times.len(),
                opt(row.expanded, 0),
                opt(row.cov, 3),
                opt(row.steals, 0)
            );
            self.rows.push(Row::Time(row));
        }
    }

    fn overhead(&mut self) {
        let apps = self.args.overhead_apps.clone().unwrap_or_else(|| {
            if self.args.quick {
                strings(&["uts-d7", "ns-20", "brock200_4"])
            } else {
                strings(&["uts-T1", "ns-34", "brock400_1"])
            }
        });
        let [(ra, wa), (rb, wb)] = match self.args.overhead_shapes.as_slice() {
            &[a, b] => [a, b],
            _ => {
                self.error(
                    "overhead",
                    "-",
                    "",
                    "",
                    "--overhead-shapes takes exactly two shapes (RANKSxWORKERS,RANKSxWORKERS)",
                );
                return;
            }
        };
        let (shape_a, shape_b) = (format!("{ra}x{wa}"), format!("{rb}x{wb}"));
        let _ = writeln!(
            self.text,
            "== overhead: {ra} ranks x {wa} worker(s) vs {rb} rank(s) x {wb} worker(s) (target \
             ratio <= {OVERHEAD_TARGET})"
        );
        eprintln!("overhead:");
        for spec in &apps {
            let app = match parse_app(
                spec,
                self.args.budget,
                self.args.spawn_depth,
                &magpie_apps::instances::location(),
            ) {
                Ok(a) => a,
                Err(e) => {
                    self.error("overhead", spec, "", "", &e);
                    continue;
                }
            };
            let mut cs = [
                Contender::new(&self.launcher, &shape_a, ra, wa, &app.args),
                Contender::new(&self.launcher, &shape_b, rb, wb, &app.args),
            ];
            self.measure("overhead", spec, Kind::Search, &mut cs);
            let _ = writeln!(self.text, "-- {spec}");
            self.time_rows("overhead", spec, "", &cs);
            if let (Some(a), Some(b)) = (cs[0].median(), cs[1].median()) {
                let ratio = a / b;
                let met = ratio <= OVERHEAD_TARGET;
                let _ = writeln!(
                    self.text,
                    "ratio {shape_a}/{shape_b} = {ratio:.3} (target <= {OVERHEAD_TARGET}: {})",
                    if met { "met" } else { "missed" }
                );
                self.rows.push(Row::Ratio(RatioRow {
                    experiment: "overhead".into(),
                    app: spec.clone(),
                    ratio_of: format!("{shape_a}/{shape_b}"),
                    ratio,
                    target: Some(OVERHEAD_TARGET),
                    met: Some(met),
                }));
            }
        }
        self.text.push('\n');
    }

    fn policies(&mut self) {
        let args = self.args;
        let apps = args.policy_apps.clone().unwrap_or_else(|| {
            if args.quick {
                strings(&["ns-20", "brock200_4"])
            } else {
                strings(&["ns-34", "brock200_1"])
            }
        });
        let candidate = if args.policies.contains(&args.candidate) {
            args.candidate.clone()
        } else {
            args.policies.last().cloned().unwrap_or_default()
        };
        let ranks = args.policy_ranks;
        let _ = writeln!(
            self.text,
            "== policies: --remote-victims {} at {ranks} ranks x 1 worker; candidate {candidate}; \
             reduction = (T_other - T_{candidate}) / T_other of the medians; Welch's t of \
             {candidate} vs other (t < 0: {candidate} faster), two-sided p",
            args.policies.join(",")
        );
        if candidate != args.candidate {
            let _ = writeln!(
                self.text,
                "(--candidate {} is not among --policies: comparing {candidate} instead)",
                args.candidate
            );
        }
        eprintln!("policies:");
        let instance_dir = magpie_apps::instances::location();
        for (i, spec) in apps.iter().enumerate() {
            let app = match parse_app(spec, args.budget, args.spawn_depth, &instance_dir) {
                Ok(a) => a,
                Err(e) => {
                    self.error("policies", spec, "", "", &e);
                    continue;
                }
            };
            for &load in &args.loads {
                let background = if load == Load::Contended {
                    let bg_spec = match args.background.as_str() {
                        "none" => {
                            let _ = writeln!(
                                self.text,
                                "-- {spec}, contended: skipped (--background none)"
                            );
                            continue;
                        }
                        "other" => apps
                            .get(if apps.len() > 1 {
                                (i + 1) % apps.len()
                            } else {
                                i
                            })
                            .cloned()
                            .unwrap_or_default(),
                        s => s.to_string(),
                    };
                    match parse_app(&bg_spec, args.budget, args.spawn_depth, &instance_dir) {
                        Ok(bg) => {
                            let mut tail = bg.args;
                            tail.extend([
                                "--remote-victims".into(),
                                args.background_policy.clone(),
                            ]);
                            let argv = self.launcher.argv(
                                args.background_ranks.unwrap_or(ranks),
                                1,
                                &tail,
                            );
                            let shown = self.launcher.show(&argv);
                            let load =
                                Background::start(self.launcher.command(&argv), Repeat::Loop);
                            match load {
                                Ok(load) => Some((bg_spec, shown, load)),
                                Err(e) => {
                                    let e = format!("cannot start: {e}");
                                    self.error("policies", spec, "background", &shown, &e);
                                    continue;
                                }
                            }
                        }
                        Err(e) => {
                            self.error("policies", spec, "background", "", &e);
                            continue;
                        }
                    }
                } else {
                    None
                };
                let mut cs: Vec<Contender> = args
                    .policies
                    .iter()
                    .map(|p| {
                        let mut tail = app.args.clone();
                        tail.extend(["--remote-victims".into(), p.clone()]);
                        Contender::new(&self.launcher, p, ranks, 1, &tail)
                    })
                    .collect();
                let label = format!("{spec} ({load})");
                self.measure("policies", &label, Kind::Search, &mut cs);
                let _ = writeln!(self.text, "-- {spec}, {load}");
                if let Some((bg_spec, shown, bg)) = background {
                    let report = bg.stop();
                    let _ = writeln!(
                        self.text,
                        "background: {bg_spec} in a loop ({} job(s) completed)",
                        report.completed
                    );
                    if let Some(e) = report.error {
                        self.error("policies", spec, "background", &shown, &e);
                    }
                }
                self.time_rows("policies", spec, load.name(), &cs);
                self.compare(spec, load, &candidate, &cs);
            }
        }
        self.text.push_str(THESIS_TABLE);
        self.text.push('\n');
    }

    fn compare(&mut self, app: &str, load: Load, candidate: &str, cs: &[Contender]) {
        let Some(cand) = cs
            .iter()
            .find(|c| c.name == candidate && c.median().is_some())
        else {
            let _ = writeln!(
                self.text,
                "no comparison: the candidate {candidate} has no times (see its error)"
            );
            return;
        };
        for other in cs.iter().filter(|c| c.name != candidate) {
            let Some(row) = compare_row(app, load, cand, other) else {
                continue;
            };
            let _ = writeln!(
                self.text,
                "{candidate} vs {:<8} reduction {:>+7.2}%  Welch t {}  p {}",
                other.name,
                row.reduction_pct,
                row.welch_t.map_or("-".into(), |t| format!("{t:+.3}")),
                row.welch_p.map_or("- (undefined)".into(), |p| format!(
                    "{p:.4}{}",
                    if p < 0.05 { " (significant at 5%)" } else { "" }
                )),
            );
            self.rows.push(Row::Compare(row));
        }
    }

    fn loops(&mut self) {
        let args = self.args;
        let dist = args.loop_dist.clone();
        let mut tail = vec![
            "loop".to_string(),
            "dist".into(),
            "--dist".into(),
            dist.clone(),
        ];
        let iterations = args.loop_iterations.or(args.quick.then_some(20_000));
        let mean_units = args.loop_mean_units.or(args.quick.then_some(20));
        if let Some(n) = iterations {
            tail.extend(["--iterations".into(), n.to_string()]);
        }
        if let Some(u) = mean_units {
            tail.extend(["--mean-units".into(), u.to_string()]);
        }
        tail.push("--distributed".into());
        let _ = writeln!(
            self.text,
            "== loops: Dist {dist}, work stealing (--mode steal --victims coordinator) vs work \
             sharing (--mode share), ranks x 1 worker; cov = c.o.v. of the ranks' finishing times"
        );
        eprintln!("loops:");
        for &r in &args.loop_ranks {
            let with = |extra: &[&str]| {
                let mut t = tail.clone();
                t.extend(extra.iter().map(|s| s.to_string()));
                t
            };
            let mut cs = [
                Contender::new(
                    &self.launcher,
                    "steal",
                    r,
                    1,
                    &with(&["--mode", "steal", "--victims", "coordinator"]),
                ),
                Contender::new(&self.launcher, "share", r, 1, &with(&["--mode", "share"])),
            ];
            let label = format!("{dist} {r} ranks");
            self.measure("loops", &label, Kind::Loop, &mut cs);
            let _ = writeln!(self.text, "-- {dist}, {r} ranks");
            self.time_rows("loops", &dist, "", &cs);
            if let (Some(a), Some(b)) = (cs[0].median(), cs[1].median()) {
                let _ = writeln!(self.text, "ratio steal/share = {:.3}", a / b);
                self.rows.push(Row::Ratio(RatioRow {
                    experiment: "loops".into(),
                    app: format!("{dist}@{r}"),
                    ratio_of: "steal/share".into(),
                    ratio: a / b,
                    target: None,
                    met: None,
                }));
            }
        }
        self.text.push('\n');
    }
}

/// The candidate vs `other`: the reduction of the medians and Welch's test on the times.
fn compare_row(app: &str, load: Load, cand: &Contender, other: &Contender) -> Option<CompareRow> {
    let (mc, mo) = (cand.median()?, other.median()?);
    let welch = stats::welch(&cand.times(), &other.times());
    Some(CompareRow {
        app: app.into(),
        load: load.name().into(),
        candidate: cand.name.clone(),
        other: other.name.clone(),
        reduction_pct: reduction_pct(mo, mc),
        welch_t: welch.map(|w| w.t),
        welch_df: welch.map(|w| w.df),
        welch_p: welch.map(|w| w.p),
    })
}

/// (t_other − t_candidate) / t_other in percent: positive when the candidate is faster
/// (the YewPar thesis' quoted figures; `stats::reduction_pct`).
fn reduction_pct(t_other: f64, t_candidate: f64) -> f64 {
    stats::reduction_pct(t_other, t_candidate)
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The thesis' figures (Xie 2023; `shared/notes/yewpar-performance-policy.md`).
const THESIS_TABLE: &str = "\
For comparison, the thesis (Xie 2023, YewPar performance-driven policy vs the original
DepthPool policy, 5-20 nodes x 15 workers, mean of 10 runs, reduction (T_DP - T_PD)/T_DP):
  NS-hivert (Budget 1e6, genus 47)          7.3% (5 nodes) .. 10.1% (20 nodes), significant
  MaxClique brock800_2 (DepthBounded d=2)   0.6% .. 11.4%, not significant (Welch t <= 2)
  under contention (both programs at once): NS 9.4% .. 13.5%, MC 8.0% (20 nodes)
";

/// Runs the suite.
pub fn run(args: &DistributedArgs) -> Result<(), String> {
    let launcher = Launcher::new(args)?;
    let runs = args.runs.unwrap_or(if args.quick { 2 } else { 5 });
    let warmup = args.warmup.unwrap_or(if args.quick { 0 } else { 1 });
    eprintln!(
        "magpie-bench distributed: {} under {}; {runs} timed round(s) after {warmup} warm-up \
         round(s), contenders interleaved",
        launcher.bin.display(),
        launcher.mpirun
    );
    launcher.preflight()?;
    let mut suite = Suite {
        args,
        launcher,
        runs,
        warmup,
        rows: Vec::new(),
        failed: Vec::new(),
        text: String::new(),
        progress: args.progress.mode(args.json),
    };
    let mut experiments = args.experiments.clone();
    experiments.dedup();
    for e in experiments {
        match e {
            Experiment::Overhead => suite.overhead(),
            Experiment::Policies => suite.policies(),
            Experiment::Loops => suite.loops(),
        }
    }
    // The pictures of the rows measured, even if some children failed.
    let emitted = report::emit(&suite.rows, &suite.text, args.json, &suite.failed);
    crate::plot_pictures(&suite.rows, args.plot.as_deref())?;
    emitted
}

#[cfg(test)]
mod tests;
