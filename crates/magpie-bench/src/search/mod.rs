//! The `search` suite: `magpie::search` (YewPar-style skeletons) on the search applications
//! of `magpie-apps`' registry, against plain recursive solvers, the apps' hand-written
//! references, and rayon. Nothing here names an application: each declares its instances
//! per experiment (`SearchApp::bench`, with their known answers) and, on its instances, its
//! hand-written solver and rayon peer where it has them (`Instance::hand_written`,
//! `Instance::rayon_peer`); the plain solver is its own `solve` on `Engine::Plain`
//! (`search/cases.rs` turns them into jobs). The `--*-apps` flags take any of the registry's
//! applications (default: those that declare cases for the experiment, in the registry's
//! order); an experiment with no case for a named one records a row saying it was skipped
//! and why. Every run's answer is checked (by the application, and by its key against the
//! case's known answer or the application-checked one) and every ratio is computed from
//! medians measured in the same invocation.
//!
//! ```text
//! cargo run --release -p magpie-bench -- search [--runs N] [--json] [--quick]
//!     [--experiments overhead,speedup,peers,sequential,cpeer,replicable] [--workers 2]
//!     [--deque NAME]
//!     [--overhead-apps APP,...] [--speedup-apps APP,...] [--items APP:NAME,...]
//!     [--skeletons dbs:1,dbs:2,dbs:3,budget:10000,ss] [--long-skeletons dbs:2]
//!     [--peers-apps APP,...] [--rayon-depths 2,4,6]
//!     [--sequential-items clique:brock400_1,ns:36,...] [--sequential-solver reference]
//!     [--timeout 1800] [--cpeer-items knapPI_3_200_1000_1,knapPI_3_500_1000_1,...]
//!     [--replicable-windows 2,8]
//! ```
//!
//! Experiments (each measures `--runs` timed runs, default 5, after one untimed warm-up run
//! unless that run took over 20 s, in which case it is kept as the first timed run; the
//! contenders of one comparison run alternately, one run each per round):
//!
//! 1. **overhead** — the `Sequential` skeleton on a 1-worker magpie pool vs a plain
//!    recursive solver over the same node generator (`magpie_apps::registry::plain`: same
//!    nodes, same counting, none of the skeleton's machinery). Ratio skeleton/plain, target ≤ 1.10.
//!    The app's own reference solver is a third, informational contender. Apps and instances
//!    (`--quick` in brackets): uts T1 (T1 at depth 7), ns genus 28 (22), nqueens 13 (11),
//!    maxclique brock200_1 (brock200_4; the informational row is the hand-tuned
//!    `max_clique_counted`, whose node count must equal the skeleton's `expanded`), knapsack
//!    all 100 instances of `pisinger/smallcoeff_pisinger/knapPI_9_50_1000.csv` (the file
//!    solves in about 0.3 s; `knapPI_11_20_1000.csv`), tsp att48 (bayg29) with the heuristic
//!    tour as the initial bound, sip the embeddings of johnson8-2-4 into itself (counted),
//!    bipartition G(32, 0.9) (G(30, 0.9)), which have no hand-written solver. The plain
//!    solver's node count must equal the skeleton's `expanded`. About 1 min in all.
//! 2. **speedup** — the best skeleton at `--workers` (2) workers vs the same skeleton at 1,
//!    and vs the app's hand-written sequential solver (`uts::count`, `ns::count_by_genus`,
//!    `nqueens::count`, `max_clique_counted`): the `--skeletons` candidates are first
//!    screened at 2 workers (each measured), the fastest is "best", then it runs alternately
//!    at 1 and 2 workers with the hand-written solver; two ratio rows: speedup = median(1) /
//!    median(2) (kept from before) and median(hand-written) / median(2) (target ≥ 1.85 on
//!    every app). A fourth contender, `… xW at once`, runs W copies of the hand-written
//!    solver at once, one a thread, each timed; the informational `ceiling` row is the
//!    hand-written solver's median over one solve at the copies' summed rate: the speedup a
//!    perfectly balanced W-worker search could reach on this machine during this run (not
//!    measured for max clique, whose solves are long). uts T1 (targets ≥ 1.85), ns genus 34 (≥ 1.85), nqueens n = 15
//!    (≥ 1.85), max clique on brock400_1 and brock400_3 (1w / 2w ≥ 1.7), long solves, with
//!    `--long-skeletons` (dbs:2 only, so no screening); `--items` names others
//!    (`ns:30,maxclique:brock400_3`). For max clique, one 1-worker run
//!    is made first and its time and the item's expected duration are printed; brock400_1
//!    takes many minutes per sequential run (460 s for `max_clique_counted`, 198,359,839
//!    nodes, on the loaded development VM; the skeleton is slower), so the item takes over
//!    an hour there: limit it with `--items maxclique:NAME`. Every 2-worker skeleton row carries
//!    `worker_shares`: the share of the nodes each worker visited (`SearchStats::
//!    per_worker`) in the median run, printed in the note column. `--quick`: a small UTS
//!    tree, genus 26, n = 12, brock200_1.
//! 3. **peers** — magpie's best skeleton (screened as above) vs the same search written on
//!    rayon (each app's `rayon_peer.rs`: children are `par_iter` tasks above a spawn depth,
//!    plain sequential code below; the depths in `--rayon-depths` are screened too and the
//!    fastest is used), both at 2 workers. UTS T1, N-Queens 14, NS genus 34 (rayon: the
//!    children of semigroups below the spawn genus are tasks, `ns::count_from` below; depths
//!    8,12,16,20) and max clique on brock200_1..4 (rayon: the children of cliques smaller
//!    than the spawn depth are tasks, pruned against a shared `AtomicUsize` incumbent when
//!    they start, `maxclique::max_clique_from` below, which re-reads it before each
//!    branch; depths 1,2,3) (`--quick`: small tree, N-Queens 11, genus 26, brock200_4).
//!    Ratio magpie/rayon, target ≤ 0.95. Both are checked against the same counts or ω.
//! 4. **sequential** — sequential solves of big instances, with node counts and nodes/s:
//!    `--sequential-items` (default `clique:brock400_1, clique:brock800_2, ns:36, uts:T1L,
//!    knapsack:knapPI_3_500_1000_1, tsp:eil51`; item syntax `clique:GRAPH`, `ns:GENUS`,
//!    `uts:TREE` (a named tree), `knapsack:NAME|FILE|FILE#NAME`, `tsp:NAME`: `APP:NAME`
//!    with a registry name, `clique:` an alias of `maxclique:`; without the option, every
//!    application's own sequential cases). Each item runs
//!    in a child process (this binary again) that is killed after `--timeout` seconds
//!    without finishing a run, reported as "did not finish". `--sequential-solver`:
//!    `reference` (default: `max_clique_counted`, `ns::count_by_genus`, `uts::count`; for
//!    knapsack and tsp, whose references count no nodes, the plain branch and bound, which
//!    visits the same tree as `knapsack::solve` / `tsp::solve`), `plain`, or `skeleton` (the
//!    `Sequential` skeleton on a 1-worker pool). `--runs` applies here too (a first run over
//!    20 s is kept as a timed run, so long items make no warm-up); the big items take
//!    minutes per run, so run this experiment on its own with `--runs 1` (or 3) and pick
//!    items with `--sequential-items`. `--quick`: brock200_4, genus 24, UTS T3,
//!    knapPI_3_200_1000_1, bayg29. Measured on the development VM (loaded, one run): eil51
//!    about 5 s, st70 about 75 s (`tsp:st70`); eil76 not measured.
//! 5. **cpeer** — knapsack: the `Sequential` skeleton on a 1-worker pool vs a minimal C
//!    depth-first branch and bound with the same Dantzig bound (`csrc/knapsack_bb.c`, built by
//!    `build.rs` with `-O3`; wrapper `knapsack_c.rs`), one instance per comparison,
//!    alternately. Both must reach the known optimum and count the same nodes (same tree and
//!    pruning; the C program returns no selection, the skeleton's certificate is checked).
//!    Ratio Sequential/C, target <= 2.0; `knapsack::solve` (same tree, on the calling
//!    thread as the C program, no pool hand-off) is informational. `--cpeer-items` (knapsack specs as in
//!    `sequential`; default `knapPI_3_200_1000_1, knapPI_3_500_1000_1, knapPI_2_1000_1000_1,
//!    knapPI_1_2000_1000_1`: the shared files have no 1000-item knapPI_3 instance, and
//!    knapPI_3_2000 runs for minutes in both solvers). `--quick`: knapPI_3_100, knapPI_3_200.
//!    A few seconds in all.
//! 6. **replicable** — what replicable node counts cost: `Skeleton::Ordered` optimisations
//!    at `--workers` workers with the shared incumbent (counts vary from run to run) vs the
//!    same with `Options::replicable_window` for each of `--replicable-windows` (default
//!    2,8), each also on one worker; single solves, so every run's count is seen. Every
//!    replicable run of one window, on 1 and on `--workers` workers, must expand the same
//!    nodes (an ERROR row otherwise). Ratio rows (no target): time and median nodes of each
//!    window against the shared incumbent. brock200_1 and brock200_4 (spawn depth 2,
//!    prune-level), knapPI_3_200_1000_1 (spawn depth 8), bayg29 (spawn depth 2, heuristic
//!    tour as the initial bound); `--quick`: brock200_4, knapPI_3_100_1000_1, ulysses16.
//!
//! Skeleton names: `seq`, `dbs:D` (DepthBounded), `budget:B`, `ss` / `ss-all`
//! (StackStealing, one / all siblings), `ordered:D` / `ordered-disc:D`: the spec strings of
//! `magpie::search::Skeleton`'s `FromStr`.
//!
//! Output: per experiment a table (stdout, or stderr with `--json`) with median/min/max,
//! nodes and nodes/s per contender, then ratio rows with their target and PASS/MISS; with
//! `--json`, a JSON array of all rows on stdout (a contender's row carries every timed run
//! in `times_s`). Wrong answers are reported as ERROR rows and make the command fail after
//! the other items ran. `--plot DIR` writes `DIR/runtimes.png` (box plots of the run times,
//! a panel per experiment, app and instance) and, where a configuration ran at several
//! worker counts, `DIR/speedup.png` (against the hand-written solver in `speedup`, whose
//! row has `baseline: true`; else against the configuration's 1-worker run); `magpie plot`
//! draws the same from the `--json` output.

mod cases;
mod cpeer;
mod instances;
mod jobs;
mod measure;
mod overhead;
mod replicable;
mod scaling;
mod sequential;
mod speedup;

use magpie::search::Skeleton;
use serde::Serialize;
use std::fmt::{self, Write as _};

/// The experiments, in their default order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Experiment {
    Overhead,
    Speedup,
    Peers,
    Sequential,
    Cpeer,
    Replicable,
    Scaling,
}

impl Experiment {
    /// The default experiments (`scaling` is asked for by name: it is sized for many cores).
    const ALL: [Experiment; 6] = [
        Experiment::Overhead,
        Experiment::Speedup,
        Experiment::Peers,
        Experiment::Sequential,
        Experiment::Cpeer,
        Experiment::Replicable,
    ];

    fn name(self) -> &'static str {
        match self {
            Experiment::Overhead => "overhead",
            Experiment::Speedup => "speedup",
            Experiment::Peers => "peers",
            Experiment::Sequential => "sequential",
            Experiment::Cpeer => "cpeer",
            Experiment::Replicable => "replicable",
            Experiment::Scaling => "scaling",
        }
    }
}

impl fmt::Display for Experiment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// A search application of the registry (`magpie_apps::registry::SEARCH_APPS`), as the
/// `--*-apps` flags name it. The bench's app lists are the registry's: an application added
/// there is accepted by every flag, and an experiment that has no job for it records a
/// skipped row saying why ([`Report::skip`]) instead of leaving it out silently.
#[derive(Debug, Clone, Copy)]
pub struct App(&'static magpie_apps::registry::SearchApp);

impl App {
    /// Every application of the registry, in its order.
    fn all() -> Vec<App> {
        magpie_apps::registry::SEARCH_APPS
            .iter()
            .map(|&a| App(a))
            .collect()
    }

    /// The applications an experiment runs: those its `--*-apps` flag named (`named`),
    /// else every application of the registry that declares cases for `query`'s experiment
    /// (one whose declaration fails, an instance file missing say, is kept: the experiment
    /// reports the error).
    fn chosen(named: &Option<Vec<App>>, query: &magpie_apps::registry::BenchQuery<'_>) -> Vec<App> {
        match named {
            Some(apps) => apps
                .iter()
                .enumerate()
                .filter(|&(i, a)| !apps[..i].contains(a))
                .map(|(_, &a)| a)
                .collect(),
            None => App::all()
                .into_iter()
                .filter(|&app| !matches!(cases::Loaded::cases(app, query), Ok(c) if c.is_empty()))
                .collect(),
        }
    }

    fn find(name: &str) -> Option<App> {
        magpie_apps::registry::find(name).map(App)
    }

    /// The parser of an `--*-apps` value: one of the registry's names (listed by `--help`).
    fn parser() -> impl clap::builder::TypedValueParser<Value = App> {
        use clap::builder::TypedValueParser;
        clap::builder::PossibleValuesParser::new(magpie_apps::registry::names(|_| true))
            .map(|name: String| App::find(&name).expect("a possible value is a registry name"))
    }

    fn name(self) -> &'static str {
        self.0.name
    }
}

impl PartialEq for App {
    fn eq(&self, other: &App) -> bool {
        self.name() == other.name()
    }
}

impl Eq for App {}

impl fmt::Display for App {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// The sequential experiment's solver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SeqSolver {
    /// The apps' reference solvers (knapsack, tsp: the plain B&B, which counts nodes).
    Reference,
    /// The plain recursive solvers over the apps' node generators.
    Plain,
    /// The `Sequential` skeleton on a 1-worker magpie pool.
    Skeleton,
}

impl SeqSolver {
    fn name(self) -> &'static str {
        match self {
            SeqSolver::Reference => "reference",
            SeqSolver::Plain => "plain",
            SeqSolver::Skeleton => "skeleton",
        }
    }
}

impl fmt::Display for SeqSolver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// The default skeleton candidates for `speedup` and `peers`.
const DEFAULT_SKELETONS: &str = "dbs:1,dbs:2,dbs:3,budget:10000,ss";

/// Arguments of `magpie-bench search`.
#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// Print only a JSON array of result rows on stdout (the tables go to stderr).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub progress: magpie_measure::progress::ProgressArgs,
    /// Timed runs per contender (median reported), after one warm-up run where that run
    /// takes under 20 s.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// Experiments to run, in this order.
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = Experiment::ALL)]
    pub experiments: Vec<Experiment>,
    /// Small instances everywhere, for a smoke test (a minute or two in all).
    #[arg(long)]
    pub quick: bool,
    /// The parallel worker count of speedup and peers (compared with 1).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(2..))]
    pub workers: u64,
    /// magpie's deque (default: MAGPIE_DEQUE, else magpie's default); other MAGPIE_*
    /// variables apply too.
    #[arg(long)]
    pub deque: Option<String>,
    /// overhead: the apps [default: every application that declares overhead cases].
    #[arg(long, value_parser = App::parser(), value_delimiter = ',')]
    pub overhead_apps: Option<Vec<App>>,
    /// speedup: the apps [default: every application that declares speedup cases].
    #[arg(long, value_parser = App::parser(), value_delimiter = ',')]
    pub speedup_apps: Option<Vec<App>>,
    /// speedup and scaling: instances by name, APP:NAME as for --sequential-items, in place
    /// of the named applications' own (each application documents the names it reads)
    #[arg(long, value_delimiter = ',', value_parser = cases::Item::parse)]
    pub items: Vec<cases::Item>,
    /// speedup and peers: the skeletons screened at --workers workers (the fastest is
    /// "best").
    #[arg(long, value_delimiter = ',', default_value = DEFAULT_SKELETONS)]
    pub skeletons: Vec<Skeleton>,
    /// speedup and scaling: the skeletons of the cases an application marks as long solves
    /// (screened likewise when more than one).
    #[arg(
        long,
        alias = "clique-skeletons",
        value_delimiter = ',',
        default_value = "dbs:2"
    )]
    pub long_skeletons: Vec<Skeleton>,
    /// peers: the apps [default: every application that declares peers cases, those with a
    /// rayon peer].
    #[arg(long, value_parser = App::parser(), value_delimiter = ',')]
    pub peers_apps: Option<Vec<App>>,
    /// peers: rayon spawn depths screened (children of nodes above this depth are rayon
    /// tasks) [default: each case's own].
    #[arg(long, value_delimiter = ',')]
    pub rayon_depths: Option<Vec<usize>>,
    /// sequential: the items, APP:NAME (maxclique:GRAPH, ns:GENUS, uts:TREE, knapsack:SPEC,
    /// tsp:NAME, as each application documents them) [default: every application's own].
    #[arg(long, value_delimiter = ',')]
    pub sequential_items: Option<Vec<String>>,
    /// sequential: the solver.
    #[arg(long, value_enum, default_value_t = SeqSolver::Reference)]
    pub sequential_solver: SeqSolver,
    /// sequential: seconds each run may take before its process is killed.
    #[arg(long, default_value_t = 1800, value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
    /// cpeer: the knapsack instances (specs as for `sequential`'s `knapsack:` items).
    #[arg(long, value_delimiter = ',')]
    pub cpeer_items: Option<Vec<String>>,
    /// replicable: the replicable windows compared with the shared incumbent.
    #[arg(long, value_delimiter = ',', default_value = "2,8")]
    pub replicable_windows: Vec<std::num::NonZeroUsize>,
    /// scaling: the worker counts [default: 1, 2, 4, … up to the cores, and the cores].
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub scaling_workers: Option<Vec<u64>>,
    /// scaling: the apps [default: every application that declares scaling cases].
    #[arg(long, value_parser = App::parser(), value_delimiter = ',')]
    pub scaling_apps: Option<Vec<App>>,
    /// After the report, write its pictures into DIR: runtimes.png (box plots of the run
    /// times, one panel per experiment, app and instance) and, where a configuration ran at
    /// several worker counts (speedup, replicable), speedup.png
    #[arg(long, value_name = "DIR")]
    pub plot: Option<std::path::PathBuf>,
    /// Internal: run one sequential item in this process and report on stdout.
    #[arg(long, hide = true)]
    pub child_item: Option<String>,
}

/// One result line: a measured contender, or (with `ratio`) a comparison of two.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub experiment: String,
    pub app: String,
    pub instance: String,
    /// The solver or skeleton (`plain`, `Sequential`, `dbs:2`, `rayon d=4`…), or for a
    /// ratio row what is divided by what.
    pub config: String,
    pub workers: usize,
    /// Timed runs behind the median.
    pub runs: usize,
    pub median_s: Option<f64>,
    pub min_s: Option<f64>,
    pub max_s: Option<f64>,
    /// Nodes of a run (expanded nodes for the skeletons; the median when they vary).
    pub nodes: Option<u64>,
    pub nodes_per_s: Option<f64>,
    pub ratio: Option<f64>,
    /// The target, as text (`<= 1.10`, `>= 1.85`).
    pub target: Option<String>,
    /// `PASS` or `MISS` against the target, `ERROR` for a failed item, `DNF` for a
    /// sequential item that did not finish within the timeout.
    pub verdict: Option<String>,
    pub note: String,
    /// For a multi-worker skeleton contender: the share of the nodes each worker visited
    /// (index = worker), in the median run.
    pub worker_shares: Option<Vec<f64>>,
    /// Every timed run's time in seconds, in order (`null` for ratio and error rows).
    pub times_s: Option<Vec<f64>>,
    /// Whether this row is the speedup experiment's hand-written sequential solver, which
    /// its `hand-written / Ww` ratio divides by: the baseline of `--plot`'s speedup curves.
    pub baseline: bool,
    /// For an application the experiment has no job for: why it was skipped (the row has no
    /// times; see [`Report::skip`]).
    pub skipped: Option<String>,
}

impl Row {
    pub fn new(experiment: &str, app: &str, instance: &str, config: &str, workers: usize) -> Row {
        Row {
            experiment: experiment.to_string(),
            app: app.to_string(),
            instance: instance.to_string(),
            config: config.to_string(),
            workers,
            runs: 0,
            median_s: None,
            min_s: None,
            max_s: None,
            nodes: None,
            nodes_per_s: None,
            ratio: None,
            target: None,
            verdict: None,
            note: String::new(),
            worker_shares: None,
            times_s: None,
            baseline: false,
            skipped: None,
        }
    }

    pub fn add_note(&mut self, note: &str) {
        if note.is_empty() {
            return;
        }
        if !self.note.is_empty() {
            self.note.push_str("; ");
        }
        self.note.push_str(note);
    }
}

/// A target on a ratio.
#[derive(Debug, Clone, Copy)]
pub enum Target {
    AtMost(f64),
    AtLeast(f64),
}

impl Target {
    fn text(self) -> String {
        match self {
            Target::AtMost(x) => format!("<= {x:.2}"),
            Target::AtLeast(x) => format!(">= {x:.2}"),
        }
    }

    fn met(self, ratio: f64) -> bool {
        match self {
            Target::AtMost(x) => ratio <= x,
            Target::AtLeast(x) => ratio >= x,
        }
    }
}

/// `row` (made by [`Row::new`], no times) as a ratio row `num / den` (medians), with an
/// optional target.
pub fn ratio_row(mut row: Row, num: f64, den: f64, target: Option<Target>) -> Row {
    let ratio = num / den;
    row.ratio = Some(ratio);
    if let Some(t) = target {
        row.target = Some(t.text());
        row.verdict = Some(if t.met(ratio) { "PASS" } else { "MISS" }.to_string());
    } else {
        row.add_note("informational");
    }
    row
}

/// The rows of a run, printed per experiment as they complete.
pub struct Report {
    rows: Vec<Row>,
    errors: Vec<String>,
    json: bool,
}

impl Report {
    fn new(json: bool) -> Report {
        Report {
            rows: Vec::new(),
            errors: Vec::new(),
            json,
        }
    }

    pub fn push(&mut self, row: Row) {
        self.rows.push(row);
    }

    /// Records a failed item (wrong answer, missing file…): an ERROR row, and a failure of
    /// the whole command at the end.
    /// `r`'s value, or, for an error that stops the whole experiment (a pool that does not
    /// build), its ERROR row and `None`.
    pub fn or_error<T>(&mut self, experiment: &str, r: Result<T, String>) -> Option<T> {
        r.map_err(|e| self.error(experiment, "-", "-", e)).ok()
    }

    pub fn error(&mut self, experiment: &str, app: &str, instance: &str, e: String) {
        eprintln!("magpie-bench search: {experiment} {app} {instance}: ERROR: {e}");
        let mut row = Row::new(experiment, app, instance, "-", 0);
        row.verdict = Some("ERROR".into());
        row.note = e.clone();
        self.rows.push(row);
        self.errors
            .push(format!("{experiment} {app} {instance}: {e}"));
    }

    /// Records that `experiment` has no job for `app`, and why: a row whose `skipped` says
    /// so (and its note), so that every application of the registry shows in the report.
    pub fn skip(&mut self, experiment: &str, app: App, why: &str) {
        eprintln!("magpie-bench search: {experiment} {app}: skipped: {why}");
        let mut row = Row::new(experiment, app.name(), "-", "-", 0);
        row.note = format!("skipped: {why}");
        row.skipped = Some(why.to_string());
        self.rows.push(row);
    }

    fn out(&self, text: &str) {
        if self.json {
            eprint!("{text}");
        } else {
            print!("{text}");
        }
    }

    fn print_experiment(&self, e: Experiment, title: &str) {
        let rows: Vec<&Row> = self
            .rows
            .iter()
            .filter(|r| r.experiment == e.name())
            .collect();
        self.out(&table(&format!("{e} — {title}"), &rows));
    }

    /// Prints the summary (and the JSON), writes the pictures of `--plot DIR` (even when
    /// some items failed), and fails if an item failed.
    fn finish(self, plot: Option<&std::path::Path>) -> Result<(), String> {
        let targeted: Vec<&Row> = self
            .rows
            .iter()
            .filter(|r| r.target.is_some() || matches!(r.verdict.as_deref(), Some("ERROR" | "DNF")))
            .collect();
        if !targeted.is_empty() {
            self.out(&table("summary — targeted rows", &targeted));
        }
        if self.json {
            let json = serde_json::to_string_pretty(&self.rows).map_err(|e| e.to_string())?;
            println!("{json}");
        }
        crate::plot_pictures(&self.rows, plot)?;
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{} item(s) failed:\n  {}",
                self.errors.len(),
                self.errors.join("\n  ")
            ))
        }
    }
}

fn table(title: &str, rows: &[&Row]) -> String {
    let f = |x: Option<f64>, p: usize| x.map_or("-".to_string(), |v| format!("{v:.p$}"));
    let mut out = String::new();
    let _ = writeln!(out, "== {title}");
    let _ =
        writeln!(
        out,
        "{:<20} {:<26} {:<30} {:>2} {:>4} {:>9} {:>9} {:>9} {:>13} {:>9} {:>6} {:>8} {:<7} note",
        "experiment/app", "instance", "config", "w", "runs", "median_s", "min_s", "max_s",
        "nodes", "Mnodes/s", "ratio", "target", "verdict"
    );
    for r in rows {
        let mut note = r.note.clone();
        if let Some(shares) = &r.worker_shares {
            let shares: Vec<String> = shares.iter().map(|x| format!("{x:.2}")).collect();
            let sep = if note.is_empty() { "" } else { "; " };
            note = format!("{note}{sep}worker shares {}", shares.join("/"));
        }
        let _ = writeln!(
            out,
            "{:<20} {:<26} {:<30} {:>2} {:>4} {:>9} {:>9} {:>9} {:>13} {:>9} {:>6} {:>8} {:<7} {}",
            format!("{}/{}", r.experiment, r.app),
            r.instance,
            r.config,
            r.workers,
            r.runs,
            f(r.median_s, 4),
            f(r.min_s, 4),
            f(r.max_s, 4),
            r.nodes.map_or("-".to_string(), |n| n.to_string()),
            f(r.nodes_per_s.map(|x| x / 1e6), 3),
            f(r.ratio, 3),
            r.target.as_deref().unwrap_or("-"),
            r.verdict.as_deref().unwrap_or("-"),
            note
        );
    }
    out.push('\n');
    out
}

/// A rayon pool of `workers` threads (the rayon peers').
pub fn rayon_pool(workers: usize) -> Result<rayon::ThreadPool, String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .map_err(|e| format!("building a {workers}-thread rayon pool: {e}"))
}

/// A magpie pool of `workers` workers (from the environment, `--deque` overriding).
pub fn pool(args: &SearchArgs, workers: usize) -> Result<magpie::ThreadPool, String> {
    let mut b = magpie::ThreadPoolBuilder::from_env().num_workers(workers);
    if let Some(d) = &args.deque {
        b = b.deque(d.as_str());
    }
    b.build()
        .map_err(|e| format!("building a {workers}-worker magpie pool: {e}"))
}

impl SearchArgs {
    /// Whether to show the runs done on stderr (`--progress`, `--quiet`, `--json`).
    pub fn progress(&self) -> magpie_measure::progress::Mode {
        self.progress.mode(self.json)
    }
}

/// `magpie-bench search`.
pub fn run(args: &SearchArgs) -> Result<(), String> {
    if let Some(item) = &args.child_item {
        return sequential::child(args, item);
    }
    let mut experiments = args.experiments.clone();
    experiments.dedup();
    let probe = pool(args, 1)?;
    eprintln!(
        "magpie-bench search: {} timed runs per contender (after a warm-up where it takes \
         under {} s), {}; deque {}; magpie counters {}",
        args.runs,
        measure::WARMUP_LIMIT.as_secs(),
        if args.quick {
            "quick sizes"
        } else {
            "full sizes"
        },
        probe.deque(),
        if cfg!(feature = "counted") {
            "on"
        } else {
            "compiled out"
        }
    );
    drop(probe);
    let mut report = Report::new(args.json);
    for e in experiments {
        let start = std::time::Instant::now();
        let title = match e {
            Experiment::Overhead => overhead::run(args, &mut report),
            Experiment::Speedup => speedup::run_speedup(args, &mut report),
            Experiment::Peers => speedup::run_peers(args, &mut report),
            Experiment::Sequential => sequential::run(args, &mut report),
            Experiment::Cpeer => cpeer::run(args, &mut report),
            Experiment::Replicable => replicable::run(args, &mut report),
            Experiment::Scaling => scaling::run(args, &mut report),
        };
        eprintln!("{e}: done in {:.1} s\n", start.elapsed().as_secs_f64());
        report.print_experiment(e, &title);
    }
    report.finish(args.plot.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;
    use magpie_apps::registry::{BenchQuery, Experiment as Exp};

    /// The `--*-apps` flags take the registry's names; by default each experiment runs the
    /// applications that declare cases for it (the registry's data, not a list here).
    #[test]
    fn the_apps_are_the_registry_s_search_apps() {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            search: SearchArgs,
        }
        let names = |apps: &[App]| apps.iter().map(|a| a.name()).collect::<Vec<_>>();
        assert_eq!(
            names(&App::all()),
            magpie_apps::registry::names(|_| true),
            "every app, in the registry's order"
        );
        let cli = Cli::try_parse_from(["search"]).unwrap();
        let chosen = |experiment, apps: &Option<Vec<App>>| {
            names(&App::chosen(apps, &BenchQuery::new(experiment, true)))
        };
        let s = &cli.search;
        assert_eq!(
            chosen(Exp::Overhead, &s.overhead_apps),
            names(&App::all()),
            "overhead: every app declares a case"
        );
        for (experiment, apps) in [
            (Exp::Speedup, &s.speedup_apps),
            (Exp::Peers, &s.peers_apps),
            (Exp::Scaling, &s.scaling_apps),
        ] {
            assert_eq!(
                chosen(experiment, apps),
                ["maxclique", "uts", "ns", "nqueens"],
                "{experiment:?}: the apps with a hand-written solver and a rayon peer"
            );
        }
        let cli = Cli::try_parse_from(["search", "--peers-apps", "sip,bipartition,sip"]).unwrap();
        assert_eq!(
            chosen(Exp::Peers, &cli.search.peers_apps),
            ["sip", "bipartition"],
            "named apps run once each, even without a case (each gets a skipped row)"
        );
        assert!(Cli::try_parse_from(["search", "--overhead-apps", "nope"]).is_err());
    }

    /// `--items APP:NAME` replaces the named applications' own cases, each application
    /// reading its own names; the others keep theirs. (Applications without instance
    /// files, so that the test needs no data.)
    #[test]
    fn items_name_instances_the_applications_read() {
        use clap::Parser;
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            search: SearchArgs,
        }
        let items = |list: &[&str]| Cli::try_parse_from(["search", "--items", &list.join(",")]);
        let labels = |items: &[cases::Item], experiment, app: &str| {
            let app = App::find(app).unwrap();
            let q = BenchQuery::new(experiment, false);
            cases::Loaded::cases_named(app, &q, items)
                .map(|c| c.into_iter().map(|c| c.label).collect::<Vec<_>>())
        };
        let cli = items(&[
            "ns:30",
            "clique:brock200_2",
            "nqueens:12",
            "uts:T1L",
            "ns:genus 31",
        ])
        .unwrap();
        let named = &cli.search.items;
        assert_eq!(
            labels(named, Exp::Speedup, "ns").unwrap(),
            ["genus 30", "genus 31"]
        );
        assert_eq!(labels(named, Exp::Scaling, "nqueens").unwrap(), ["n = 12"]);
        assert_eq!(labels(named, Exp::Scaling, "uts").unwrap(), ["T1L"]);
        assert_eq!(
            (named[1].app.name(), named[1].name.as_str()),
            ("maxclique", "brock200_2")
        );
        // An application not named keeps its own cases; one without any gets none.
        assert_eq!(labels(&named[..1], Exp::Speedup, "uts").unwrap(), ["T1"]);
        assert_eq!(labels(&[], Exp::Speedup, "ns").unwrap(), ["genus 34"]);
        assert!(labels(named, Exp::Speedup, "tsp").unwrap().is_empty());
        for bad in ["nope:1", "ns"] {
            assert!(items(&[bad]).is_err(), "{bad}");
        }
        let cli = items(&["nqueens:30", "ns:x"]).unwrap();
        let e = labels(&cli.search.items, Exp::Scaling, "nqueens").unwrap_err();
        assert!(e.contains("nqueens board 30"), "{e}");
        let e = labels(&cli.search.items, Exp::Speedup, "ns").unwrap_err();
        assert!(e.contains("\"x\""), "{e}");
    }

    #[test]
    fn a_skipped_app_is_a_row_that_says_why() {
        let mut report = Report::new(true);
        let sip = App::find("sip").unwrap();
        report.skip("overhead", sip, "no plain solver");
        let row = &report.rows[0];
        assert_eq!(
            (row.app.as_str(), row.skipped.as_deref()),
            ("sip", Some("no plain solver"))
        );
        assert!(row.verdict.is_none() && report.errors.is_empty());
    }

    #[test]
    fn targets() {
        let base = || Row::new("e", "a", "i", "c", 2);
        let r = ratio_row(base(), 1.9, 1.0, Some(Target::AtLeast(1.85)));
        assert_eq!(r.verdict.as_deref(), Some("PASS"));
        let r = ratio_row(base(), 1.2, 1.0, Some(Target::AtMost(1.10)));
        assert_eq!(r.verdict.as_deref(), Some("MISS"));
        assert_eq!(r.target.as_deref(), Some("<= 1.10"));
    }
}
