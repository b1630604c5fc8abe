//! The `loops` suite: `magpie::loops` schedules on the loop apps of `magpie-apps`
//! (Mandelbrot and the Dist loops), against the same loops under OpenMP (`omp.rs`), rayon's
//! `par_iter` and sequential code, every result checked against the sequential reference.
//!
//! ```text
//! cargo run --release -p magpie-bench -- loops [--runs 5] [--json] [--quick] [--workers 2]
//!     [--apps mandelbrot,exponential,gamma,constant] [--steps 10] [--warmup STEPS]
//!     [--schedules 'static;ss,1;ss,k;gss;…'] [--omp 'static;dynamic,1;dynamic,k;guided']
//!     [--peers seq-rust,seq-c,omp,rayon] [--chunk 64]
//!     [--width 600] [--height 400] [--max-iter 600] [--iterations 100000] [--mean-units 400]
//! ```
//!
//! **Apps.** `mandelbrot` (the image over [-2,1]×[-1.5,1.5], one iteration per pixel, written
//! into its own slot) and the Dist loops `constant`, `uniform`, `normal`, `exponential`,
//! `gamma` (a parameter may follow, as in `gamma:k=4`: see `magpie_apps::dist::Dist`), whose
//! iteration `i` of step `s` runs `work(costs[i], iteration_seed(s, i))` in a wrapping-sum
//! reduction. Every app runs as `--steps` time steps (default 10) of the same loop.
//!
//! **Rows** (per app; all but the sequential ones at each `--workers` count, default 2):
//! `sequential-rust` (the apps' `render_seq` / the plain Rust loop) and `sequential-c` (the
//! C body without OpenMP); `magpie` with each of `--schedules` (`;`-separated, `k` stands for
//! the app's chunk `--chunk`, default 64); `openmp` with each of `--omp` (`static`,
//! `dynamic[,c]`, `guided[,c]`, team size = workers); `rayon` (`par_iter_mut().enumerate()`
//! writing each pixel / `.map(work).reduce(wrapping_add)`, default splitting, on a rayon
//! pool of that many threads). `--peers` picks the non-magpie rows (`none` for none).
//!
//! **Runs.** One run of a configuration is all the time steps, through ONE fresh
//! `magpie::loops::Loop` for magpie (so adaptive schedules and the selectors learn across
//! the steps, as in LB4OMP). It records the total time (the sum of the steps' times), the
//! post-warm-up time (the steps after the first `--warmup`, default half of them), the
//! chunks and steals summed over the steps (magpie), and the mean over the steps of the
//! c.o.v. of the workers' busy times (magpie's `LoopStats::cov`; for OpenMP each thread's
//! time in the loop, which has `nowait`). After one untimed warm-up round, `--runs` rounds
//! (default 5) each run every configuration once, so that a drift in machine load hits all
//! alike. Every run's result (warm-up included) is compared with the sequential reference
//! (Mandelbrot: the sum of all counts over the steps and the checksum of the last image;
//! Dist: the wrapping sum over the steps); a mismatch aborts with an error naming the
//! configuration. A configuration that panics is dropped and reported at the end.
//!
//! **Report.** Per app and worker count a table: median total time, median post-warm-up
//! time, min and max total, the median's ratio to the best OpenMP row and to the best
//! fixed magpie schedule (every magpie schedule except the `*-sel` selectors), c.o.v.,
//! chunks and steals (medians over the runs). Then: the best fixed magpie schedule vs the
//! best OpenMP row, and for each selector its post-warm-up median vs the best fixed
//! schedule's post-warm-up median. `--json` prints the rows as a JSON array on stdout (the
//! tables go to stderr). `--quick`: tiny sizes and 4 steps, for a smoke test.

use std::fmt::Write as _;
use std::panic::{self, AssertUnwindSafe};
use std::time::{Duration, Instant};

use magpie::loops::{Loop, LoopStats, Schedule};
use magpie_apps::registry::{LoopApp, LoopInput, LoopOptions, LoopOutput};
use magpie_apps::{dist, mandelbrot};
use rayon::prelude::*;
use serde::Serialize;

use crate::omp::{self, OmpSchedule};
use magpie_measure::progress::RunsBar;
use magpie_measure::report;
use magpie_measure::rounds;
use magpie_measure::stats::{median_min_max, median_of};
// Messages on stderr go above the progress bar while it is shown.
use magpie_measure::{eprint_above as eprint, eprintln_above as eprintln};

/// The default magpie schedules (`k` = the app's chunk).
const DEFAULT_SCHEDULES: &str = "static;ss,1;ss,k;gss;tss;fac2;fac;awf-b;awf-c;af;static-steal;\
                                 rws;rws,fac2;laws;auto;random-sel;exhaustive-sel;binary-sel;\
                                 expert-sel";
/// The default OpenMP schedules (`k` = the app's chunk).
const DEFAULT_OMP: &str = "static;dynamic,1;dynamic,k;guided";
/// The automatic selectors: not "fixed" schedules.
const SELECTORS: [&str; 4] = ["random-sel", "exhaustive-sel", "binary-sel", "expert-sel"];

/// The seed of the Dist cost arrays.
const COST_SEED: u64 = 42;

/// Options of the `loops` suite.
#[derive(Debug, clap::Args)]
pub struct LoopsArgs {
    /// Print only a JSON array of result rows on stdout (the tables go to stderr).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub progress: magpie_measure::progress::ProgressArgs,
    /// Timed rounds (after one untimed warm-up round); each runs every configuration once.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// Worker counts (magpie workers, OpenMP team size, rayon threads).
    #[arg(long, value_delimiter = ',', default_values_t = [2])]
    pub workers: Vec<usize>,
    /// Apps: `mandelbrot` and the Dist loops constant, uniform, normal, exponential, gamma
    /// (optionally with a parameter, e.g. `gamma:k=4`).
    #[arg(long, value_delimiter = ',',
          default_values_t = ["mandelbrot", "exponential", "gamma", "constant"].map(String::from))]
    pub apps: Vec<String>,
    /// magpie schedules, `;`-separated (`name[,arg]`; `k` as the argument = `--chunk`).
    #[arg(long, value_delimiter = ';', default_value = DEFAULT_SCHEDULES)]
    pub schedules: Vec<String>,
    /// OpenMP schedules, `;`-separated: `static`, `dynamic`, `guided`, each with an optional
    /// chunk (`k` = `--chunk`); `none` for no OpenMP rows.
    #[arg(long, value_delimiter = ';', default_value = DEFAULT_OMP)]
    pub omp: Vec<String>,
    /// The non-magpie rows: seq-rust, seq-c, omp, rayon (`none` for none).
    #[arg(long, value_delimiter = ',', default_values_t = ["seq-rust", "seq-c", "omp", "rayon"].map(String::from))]
    pub peers: Vec<String>,
    /// The chunk `k` of `ss,k` and `dynamic,k`.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..))]
    pub chunk: u64,
    /// Time steps per run (default 10; 4 with --quick).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub steps: Option<u64>,
    /// Steps left out of the post-warm-up time (default: half the steps).
    #[arg(long)]
    pub warmup: Option<u64>,
    /// Mandelbrot image width (default 600; 48 with --quick).
    #[arg(long)]
    pub width: Option<usize>,
    /// Mandelbrot image height (default 400; 32 with --quick).
    #[arg(long)]
    pub height: Option<usize>,
    /// Mandelbrot iteration limit (default 600; 100 with --quick).
    #[arg(long)]
    pub max_iter: Option<u32>,
    /// Dist iterations per loop (default 100000; 2000 with --quick).
    #[arg(long)]
    pub iterations: Option<usize>,
    /// Dist mean cost of an iteration, in work units (default 400; 10 with --quick).
    #[arg(long)]
    pub mean_units: Option<u64>,
    /// Tiny sizes and 4 steps, for a smoke test.
    #[arg(long)]
    pub quick: bool,
    /// After the report, write its pictures into DIR: runtimes.png (box plots of the total
    /// times) and, with several worker counts, speedup.png
    #[arg(long, value_name = "DIR")]
    pub plot: Option<std::path::PathBuf>,
}

/// An app with its sizes and its sequential reference result.
struct App {
    name: String,
    describe: String,
    /// Mandelbrot or Dist, built by the registry: the C peers (`omp.rs`) have only those.
    input: Box<dyn LoopInput>,
    steps: usize,
    /// The sequential version's output for `steps` steps ([`LoopInput::reference`]), which
    /// every run is checked against ([`LoopInput::check_with`]).
    reference: LoopOutput,
}

/// How a configuration runs a step.
#[derive(Clone)]
enum Runner {
    SeqRust,
    SeqC,
    Magpie(Schedule),
    Omp(OmpSchedule, usize),
    Rayon,
}

/// One row of the table: a way to run the app's loop at a worker count.
struct Config {
    kind: &'static str,
    name: String,
    workers: usize,
    runner: Runner,
    runs: Vec<RunRecord>,
    failed: Option<String>,
}

/// What one run (all the time steps) measured.
#[derive(Debug, Clone, Default)]
struct RunRecord {
    total: Duration,
    post: Duration,
    chunks: Option<u64>,
    steals: Option<u64>,
    cov: Option<f64>,
}

/// What one time step produced.
struct StepOut {
    time: Duration,
    /// The image (Mandelbrot) or the step's sum (Dist).
    out: LoopOutput,
    /// magpie's statistics of the step.
    stats: Option<LoopStats>,
    /// OpenMP's per-thread busy times.
    busy: Option<Vec<Duration>>,
}

/// One row of results.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// The app (`mandelbrot` or a Dist name).
    pub app: String,
    /// `sequential-rust`, `sequential-c`, `magpie`, `openmp` or `rayon`.
    pub kind: &'static str,
    /// The schedule (magpie, OpenMP), else empty.
    pub config: String,
    /// Worker threads (1 for the sequential rows).
    pub workers: usize,
    /// Time steps per run.
    pub steps: usize,
    /// Steps left out of the post-warm-up time.
    pub warmup_steps: usize,
    /// Timed runs.
    pub runs: usize,
    /// Median total time of a run (all steps), in seconds.
    pub median_s: f64,
    /// Median post-warm-up time of a run, in seconds.
    pub post_warmup_median_s: f64,
    /// Fastest run (total), in seconds.
    pub min_s: f64,
    /// Slowest run (total), in seconds.
    pub max_s: f64,
    /// `median_s` / the best OpenMP row's `median_s` (same app and workers).
    pub vs_best_openmp: Option<f64>,
    /// `median_s` / the best fixed magpie schedule's `median_s` (same app and workers).
    pub vs_best_fixed: Option<f64>,
    /// `post_warmup_median_s` / the best fixed magpie schedule's post-warm-up median.
    pub post_vs_best_fixed: Option<f64>,
    /// Median over the runs of the mean per-step c.o.v. of the busy times.
    pub cov: Option<f64>,
    /// Median over the runs of the chunks handed out (all steps).
    pub chunks: Option<f64>,
    /// Median over the runs of the successful steals (all steps).
    pub steals: Option<f64>,
    /// An automatic selector (not a fixed schedule).
    pub selector: bool,
    /// Every run's result equalled the sequential reference.
    pub checked: bool,
    /// Every timed run's total time, in seconds, in run order (the box plots of `--plot`).
    pub times_s: Vec<f64>,
}

/// Runs the suite and prints its report.
pub fn run(args: &LoopsArgs) -> Result<(), String> {
    let (rows, text, failed) = measure(args)?;
    // The pictures of the rows measured, even if some configurations failed.
    let emitted = report::emit(&rows, &text, args.json, &failed);
    crate::plot_pictures(&rows, args.plot.as_deref())?;
    emitted
}

/// The whole suite: (rows, report text, failed configurations).
fn measure(args: &LoopsArgs) -> Result<(Vec<Row>, String, Vec<String>), String> {
    if args.workers.is_empty() || args.workers.contains(&0) {
        return Err("--workers: worker counts must be at least 1".into());
    }
    let steps = args.steps.unwrap_or(if args.quick { 4 } else { 10 }) as usize;
    let warmup = args.warmup.map_or(steps / 2, |w| w as usize);
    if warmup >= steps {
        return Err(format!(
            "--warmup {warmup} leaves no step of {steps} to time after the warm-up"
        ));
    }
    for p in &args.peers {
        if !["seq-rust", "seq-c", "omp", "rayon", "none"].contains(&p.as_str()) {
            return Err(format!(
                "--peers: unknown peer `{p}`; expected seq-rust, seq-c, omp, rayon or none"
            ));
        }
    }
    let peer = |p: &str| args.peers.iter().any(|q| q == p);
    let schedules = magpie_schedules(&args.schedules, args.chunk)?;
    let omp_schedules = if peer("omp") {
        omp_schedules(&args.omp, args.chunk)?
    } else {
        Vec::new()
    };

    eprintln!(
        "magpie-bench loops: {steps} steps per run ({warmup} before the post-warm-up time), \
         {} timed rounds + 1 warm-up round, interleaved",
        args.runs
    );
    let mut apps = Vec::new();
    for name in &args.apps {
        eprintln!("building {name} and its sequential reference…");
        apps.push(build_app(name, args, steps)?);
    }

    let pools = Pools::new(&args.workers)?;

    let mut rows = Vec::new();
    let mut text = String::new();
    let mut failed = Vec::new();
    // Each app runs every configuration once per round (the warm-up and the timed ones).
    let per_app = configurations(args, &schedules, &omp_schedules, &peer).len();
    let total = apps.len() * per_app * (args.runs as usize + 1);
    let bar = RunsBar::new(
        args.progress.mode(args.json),
        "magpie-bench loops",
        total as u64,
    );
    for app in &apps {
        let mut configs = configurations(args, &schedules, &omp_schedules, &peer);
        failed.extend(rounds(app, &mut configs, args.runs, warmup, &pools, &bar)?);
        let app_rows = summarize(app, &configs, warmup);
        text.push_str(&report(app, &app_rows));
        text.push('\n');
        rows.extend(app_rows);
    }
    Ok((rows, text, failed))
}

/// One magpie pool and one rayon pool per worker count, built once and kept for the whole
/// suite (as the forkjoin suite's interleaved rounds do).
struct Pools {
    workers: Vec<usize>,
    magpie: Vec<magpie::ThreadPool>,
    rayon: Vec<rayon::ThreadPool>,
}

impl Pools {
    fn new(workers: &[usize]) -> Result<Pools, String> {
        let magpie = workers
            .iter()
            .map(|&w| {
                magpie::ThreadPoolBuilder::from_env()
                    .num_workers(w)
                    .build()
                    .map_err(|e| format!("building a magpie pool of {w} workers: {e}"))
            })
            .collect::<Result<_, _>>()?;
        let rayon = workers
            .iter()
            .map(|&w| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(w)
                    .build()
                    .map_err(|e| format!("building a rayon pool of {w} threads: {e}"))
            })
            .collect::<Result<_, _>>()?;
        Ok(Pools {
            workers: workers.to_vec(),
            magpie,
            rayon,
        })
    }

    fn magpie(&self, workers: usize) -> Option<&magpie::ThreadPool> {
        let i = self.workers.iter().position(|&w| w == workers)?;
        self.magpie.get(i)
    }

    fn rayon(&self, workers: usize) -> Option<&rayon::ThreadPool> {
        let i = self.workers.iter().position(|&w| w == workers)?;
        self.rayon.get(i)
    }
}

/// The untimed warm-up round and `runs` timed rounds of `app`, each running every
/// configuration once, every result checked against `app.reference`. A wrong result is an
/// error naming the configuration; a configuration that panics is dropped (returned in the
/// list of failures) and the others go on. `bar` counts the runs (a dropped configuration's
/// too, as skipped).
fn rounds(
    app: &App,
    configs: &mut [Config],
    runs: u32,
    warmup: usize,
    pools: &Pools,
    bar: &RunsBar,
) -> Result<Vec<String>, String> {
    let mut failed = Vec::new();
    for round in rounds::rounds(1, runs) {
        if round.is_timed() {
            eprint!("{:<12} round {:<2} ", app.name, round.number());
        } else {
            eprint!("{:<12} warm-up  ", app.name);
        }
        for c in configs.iter_mut() {
            if c.failed.is_some() {
                bar.inc();
                continue;
            }
            bar.set_message(format!(
                "{} {round}: {} {} ({} worker(s))",
                app.name, c.kind, c.name, c.workers
            ));
            let (magpie_pool, rayon_pool) = (pools.magpie(c.workers), pools.rayon(c.workers));
            let outcome = panic::catch_unwind(AssertUnwindSafe(|| {
                run_once(app, c, magpie_pool, rayon_pool, warmup)
            }));
            bar.inc();
            match outcome {
                Ok((record, outs)) => {
                    if let Err(e) = app.input.check_with(&app.reference, &outs) {
                        eprintln!();
                        return Err(format!(
                            "{} on {} {} ({} worker(s)): wrong result in {}: {e}",
                            app.name,
                            c.kind,
                            c.name,
                            c.workers,
                            if round.is_timed() {
                                round.to_string()
                            } else {
                                "the warm-up round".to_string()
                            },
                        ));
                    }
                    if round.is_timed() {
                        c.runs.push(record);
                    }
                    eprint!(".");
                }
                Err(payload) => {
                    let why = format!(
                        "{} on {} {} ({} worker(s)) panicked: {}",
                        app.name,
                        c.kind,
                        c.name,
                        c.workers,
                        crate::panic_message(&*payload)
                    );
                    eprintln!("\nmagpie-bench: {why}; dropping it");
                    failed.push(why.clone());
                    c.failed = Some(why);
                }
            }
        }
        eprintln!();
    }
    Ok(failed)
}

/// Parses `--schedules`, with `k` as an argument standing for `chunk`: (the name as given,
/// `k` replaced, so that `ss,1` stays `ss,1` in the table; the schedule).
fn magpie_schedules(list: &[String], chunk: u64) -> Result<Vec<(String, Schedule)>, String> {
    list.iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .map(|s| {
            let name = with_chunk(s, chunk);
            let schedule = name
                .parse::<Schedule>()
                .map_err(|e| format!("--schedules: {e}"))?;
            Ok((name, schedule))
        })
        .collect()
}

/// `name,k` → `name,<chunk>`; anything else unchanged.
fn with_chunk(s: &str, chunk: u64) -> String {
    match s.split_once(',') {
        Some((name, arg)) if arg.trim().eq_ignore_ascii_case("k") => {
            format!("{},{chunk}", name.trim())
        }
        _ => s.to_string(),
    }
}

/// Parses `--omp`: `static|dynamic|guided[,chunk|k]`, or `none`.
fn omp_schedules(list: &[String], chunk: u64) -> Result<Vec<(OmpSchedule, usize)>, String> {
    let mut out = Vec::new();
    for s in list.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        if s.eq_ignore_ascii_case("none") {
            continue;
        }
        let s = with_chunk(s, chunk);
        let (name, arg) = match s.split_once(',') {
            Some((n, a)) => (n.trim().to_ascii_lowercase(), Some(a.trim())),
            None => (s.trim().to_ascii_lowercase(), None),
        };
        let kind = OmpSchedule::ALL
            .into_iter()
            .find(|k| k.name() == name)
            .ok_or_else(|| {
                format!(
                    "--omp: unknown OpenMP schedule `{name}`; expected static, dynamic or guided"
                )
            })?;
        let c = match arg {
            None => 0,
            Some(a) => match a.parse::<usize>() {
                Ok(c) if c >= 1 => c,
                _ => return Err(format!("--omp: `{s}`: the chunk must be a number ≥ 1")),
            },
        };
        out.push((kind, c));
    }
    Ok(out)
}

/// The app `name` with its sizes and sequential reference, built by the registry.
fn build_app(name: &str, args: &LoopsArgs, steps: usize) -> Result<App, String> {
    let q = args.quick;
    let mut options = LoopOptions::new(steps);
    let app: &LoopApp = if name.trim().eq_ignore_ascii_case("mandelbrot") {
        options
            .set("--width", args.width.unwrap_or(if q { 48 } else { 600 }))
            .set("--height", args.height.unwrap_or(if q { 32 } else { 400 }))
            .set(
                "--max-iter",
                args.max_iter.unwrap_or(if q { 100 } else { 600 }),
            );
        &mandelbrot::APP
    } else {
        options
            .set("--dist", name)
            .set(
                "--iterations",
                args.iterations.unwrap_or(if q { 2000 } else { 100_000 }),
            )
            .set(
                "--mean-units",
                args.mean_units.unwrap_or(if q { 10 } else { 400 }),
            )
            .set("--seed", COST_SEED);
        &dist::APP
    };
    let input = app.build(&options).map_err(|e| {
        if app.name == "dist" {
            format!("--apps: `{name}` is neither mandelbrot nor a Dist loop: {e}")
        } else {
            e.to_string()
        }
    })?;
    let (name, describe) = match (
        input.downcast_ref::<mandelbrot::Input>(),
        input.downcast_ref::<dist::Input>(),
    ) {
        (Some(m), _) => (
            "mandelbrot".to_string(),
            format!(
                "{}×{} pixels, max_iter {}, {steps} steps",
                m.params.width, m.params.height, m.params.max_iter
            ),
        ),
        (_, Some(d)) => (
            d.dist.to_string(),
            format!(
                "{} iterations, mean {} work units, {steps} steps",
                d.costs.len(),
                d.mean_units
            ),
        ),
        _ => unreachable!("{ONLY}"),
    };
    Ok(App {
        name,
        describe,
        reference: input.reference(steps),
        input,
        steps,
    })
}

/// The configurations of one app, in table order.
fn configurations(
    args: &LoopsArgs,
    schedules: &[(String, Schedule)],
    omp_schedules: &[(OmpSchedule, usize)],
    peer: &dyn Fn(&str) -> bool,
) -> Vec<Config> {
    let config = |kind, name: String, workers, runner| Config {
        kind,
        name,
        workers,
        runner,
        runs: Vec::new(),
        failed: None,
    };
    let mut out = Vec::new();
    if peer("seq-rust") {
        out.push(config("sequential-rust", String::new(), 1, Runner::SeqRust));
    }
    if peer("seq-c") {
        out.push(config("sequential-c", String::new(), 1, Runner::SeqC));
    }
    for &w in &args.workers {
        for (name, s) in schedules {
            out.push(config("magpie", name.clone(), w, Runner::Magpie(s.clone())));
        }
        for &(k, c) in omp_schedules {
            let name = if c == 0 {
                k.name().to_string()
            } else {
                format!("{},{c}", k.name())
            };
            out.push(config("openmp", name, w, Runner::Omp(k, c)));
        }
        if peer("rayon") {
            out.push(config("rayon", "par_iter".into(), w, Runner::Rayon));
        }
    }
    out
}

/// One run of `c` on `app`: every time step, timed one by one; returns the record and the
/// steps' outputs to check.
fn run_once(
    app: &App,
    c: &Config,
    magpie_pool: Option<&magpie::ThreadPool>,
    rayon_pool: Option<&rayon::ThreadPool>,
    warmup: usize,
) -> (RunRecord, Vec<LoopOutput>) {
    let steps = app.steps;
    let outs: Vec<StepOut> = match &c.runner {
        Runner::Magpie(schedule) => {
            let pool = magpie_pool.expect("a magpie pool per worker count");
            let lp = Loop::new(schedule.clone());
            pool.install(|| (0..steps).map(|s| magpie_step(app, &lp, s)).collect())
        }
        Runner::Rayon => {
            let pool = rayon_pool.expect("a rayon pool per worker count");
            pool.install(|| (0..steps).map(|s| rayon_step(app, s)).collect())
        }
        Runner::Omp(kind, chunk) => (0..steps)
            .map(|s| omp_step(app, s, Some((*kind, *chunk, c.workers))))
            .collect(),
        Runner::SeqC => (0..steps).map(|s| omp_step(app, s, None)).collect(),
        Runner::SeqRust => (0..steps).map(|s| seq_rust_step(app, s)).collect(),
    };

    let mut record = RunRecord::default();
    let mut covs = Vec::new();
    let mut results = Vec::with_capacity(outs.len());
    for (s, out) in outs.into_iter().enumerate() {
        record.total += out.time;
        if s >= warmup {
            record.post += out.time;
        }
        if let Some(st) = &out.stats {
            *record.chunks.get_or_insert(0) += st.chunks;
            *record.steals.get_or_insert(0) += st.steals;
            covs.push(st.cov());
        }
        if let Some(busy) = out.busy {
            covs.push(cov_of(busy));
        }
        results.push(out.out);
    }
    if !covs.is_empty() {
        record.cov = Some(covs.iter().sum::<f64>() / covs.len() as f64);
    }
    (record, results)
}

/// The c.o.v. of busy times, by the same formula as `LoopStats::cov`.
fn cov_of(busy: Vec<Duration>) -> f64 {
    LoopStats {
        schedule: String::new(),
        time: Duration::ZERO,
        busy,
        chunks: 0,
        steals: 0,
    }
    .cov()
}

fn step_out(time: Duration, out: LoopOutput) -> StepOut {
    StepOut {
        time,
        out,
        stats: None,
        busy: None,
    }
}

/// Step `s` through the magpie loop `lp` (on the current pool).
fn magpie_step(app: &App, lp: &Loop, s: usize) -> StepOut {
    let start = Instant::now();
    let out = app.input.step(s, lp);
    let mut out = step_out(start.elapsed(), out);
    out.stats = lp.last_stats();
    out
}

/// The C peers and rayon's run Mandelbrot and the Dist loops only (see `build_app`).
const ONLY: &str = "magpie-bench loops builds mandelbrot and the Dist loops only";

/// What the C peers and rayon's read of an app's input.
enum PeerInput<'a> {
    Mandelbrot(mandelbrot::Params),
    Dist(&'a [u64]),
}

/// `app`'s input for the C peers and rayon's (see [`ONLY`]).
fn peer_input(app: &App) -> PeerInput<'_> {
    if let Some(m) = app.input.downcast_ref::<mandelbrot::Input>() {
        return PeerInput::Mandelbrot(m.params);
    }
    match app.input.downcast_ref::<dist::Input>() {
        Some(d) => PeerInput::Dist(&d.costs),
        None => unreachable!("{ONLY}"),
    }
}

/// Step `s` with rayon's `par_iter` (on the current rayon pool).
fn rayon_step(app: &App, s: usize) -> StepOut {
    let input = peer_input(app);
    let start = Instant::now();
    let out = match input {
        PeerInput::Mandelbrot(p) => {
            let mut image = vec![0u32; p.pixels()];
            image.par_iter_mut().enumerate().for_each(|(i, px)| {
                let (re, im) = p.point(i);
                *px = mandelbrot::pixel(re, im, p.max_iter);
            });
            LoopOutput::Image(image)
        }
        PeerInput::Dist(costs) => LoopOutput::Sum(
            (0..costs.len())
                .into_par_iter()
                .map(|i| dist::work(costs[i], dist::iteration_seed(s, i)))
                .reduce(|| 0u64, u64::wrapping_add),
        ),
    };
    step_out(start.elapsed(), out)
}

/// Step `s` in C: under OpenMP with (schedule, chunk, team size), or sequentially (`None`).
fn omp_step(app: &App, s: usize, omp: Option<(OmpSchedule, usize, usize)>) -> StepOut {
    let input = peer_input(app);
    let start = Instant::now();
    let (out, busy) = match (input, omp) {
        (PeerInput::Mandelbrot(p), Some((k, c, t))) => {
            let (image, _, busy) = omp::mandelbrot_busy(p.width, p.height, p.max_iter, k, c, t);
            (LoopOutput::Image(image), Some(busy))
        }
        (PeerInput::Mandelbrot(p), None) => {
            let (image, _) = omp::mandelbrot_sequential(p.width, p.height, p.max_iter);
            (LoopOutput::Image(image), None)
        }
        (PeerInput::Dist(costs), Some((k, c, t))) => {
            let (sum, busy) = omp::dist_busy(costs, s, k, c, t);
            (LoopOutput::Sum(sum), Some(busy))
        }
        (PeerInput::Dist(costs), None) => (LoopOutput::Sum(omp::dist_sequential(costs, s)), None),
    };
    let mut out = step_out(start.elapsed(), out);
    out.busy = busy;
    out
}

/// Step `s` in plain sequential Rust (the apps' own sequential code).
fn seq_rust_step(app: &App, s: usize) -> StepOut {
    let start = Instant::now();
    let out = app.input.step_seq(s);
    step_out(start.elapsed(), out)
}

fn is_selector(c: &Config) -> bool {
    c.kind == "magpie" && SELECTORS.contains(&c.name.as_str())
}

/// The rows of one app, with their ratios.
fn summarize(app: &App, configs: &[Config], warmup: usize) -> Vec<Row> {
    let mut rows: Vec<Row> = configs
        .iter()
        .filter(|c| c.failed.is_none() && !c.runs.is_empty())
        .map(|c| {
            let totals: Vec<Duration> = c.runs.iter().map(|r| r.total).collect();
            let (median_s, min_s, max_s) = median_min_max(&totals);
            let posts: Vec<Duration> = c.runs.iter().map(|r| r.post).collect();
            let (post_median, _, _) = median_min_max(&posts);
            let opt_median = |f: &dyn Fn(&RunRecord) -> Option<f64>| {
                median_of(&c.runs.iter().filter_map(f).collect::<Vec<_>>())
            };
            Row {
                app: app.name.clone(),
                kind: c.kind,
                config: c.name.clone(),
                workers: c.workers,
                steps: app.steps,
                warmup_steps: warmup,
                runs: c.runs.len(),
                median_s,
                post_warmup_median_s: post_median,
                min_s,
                max_s,
                vs_best_openmp: None,
                vs_best_fixed: None,
                post_vs_best_fixed: None,
                cov: opt_median(&|r| r.cov),
                chunks: opt_median(&|r| r.chunks.map(|x| x as f64)),
                steals: opt_median(&|r| r.steals.map(|x| x as f64)),
                selector: is_selector(c),
                checked: true,
                times_s: totals.iter().map(Duration::as_secs_f64).collect(),
            }
        })
        .collect();
    let mut workers: Vec<usize> = rows.iter().map(|r| r.workers).collect();
    workers.sort_unstable();
    workers.dedup();
    for w in workers {
        let best_omp = best(&rows, w, |r| r.kind == "openmp", |r| r.median_s);
        let best_fixed = best(&rows, w, is_fixed, |r| r.median_s);
        let best_fixed_post = best(&rows, w, is_fixed, |r| r.post_warmup_median_s);
        for r in rows
            .iter_mut()
            .filter(|r| r.workers == w && r.kind != "sequential-rust" && r.kind != "sequential-c")
        {
            r.vs_best_openmp = ratio(r.median_s, best_omp.map(|b| b.1));
            r.vs_best_fixed = ratio(r.median_s, best_fixed.map(|b| b.1));
            if r.kind == "magpie" {
                r.post_vs_best_fixed = ratio(r.post_warmup_median_s, best_fixed_post.map(|b| b.1));
            }
        }
    }
    rows
}

fn is_fixed(r: &Row) -> bool {
    r.kind == "magpie" && !r.selector
}

/// The row (index, value) with the smallest `value` among those at `workers` passing `keep`.
fn best(
    rows: &[Row],
    workers: usize,
    keep: impl Fn(&Row) -> bool,
    value: impl Fn(&Row) -> f64,
) -> Option<(usize, f64)> {
    rows.iter()
        .enumerate()
        .filter(|(_, r)| r.workers == workers && keep(r))
        .map(|(i, r)| (i, value(r)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

fn ratio(x: f64, base: Option<f64>) -> Option<f64> {
    match base {
        Some(b) if b > 0.0 => Some(x / b),
        _ => None,
    }
}

fn fmt_opt(x: Option<f64>, decimals: usize) -> String {
    x.map_or_else(|| "-".to_string(), |v| format!("{v:.decimals$}"))
}

/// The table and summary lines of one app.
fn report(app: &App, rows: &[Row]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "== {} — {}", app.name, app.describe);
    let _ = writeln!(
        out,
        "{:<15} {:<15} {:>3} {:>9} {:>9} {:>9} {:>9} {:>6} {:>6} {:>6} {:>10} {:>8}",
        "kind",
        "config",
        "w",
        "median_s",
        "post_s",
        "min_s",
        "max_s",
        "/omp",
        "/fixed",
        "cov",
        "chunks",
        "steals"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:<15} {:<15} {:>3} {:>9.4} {:>9.4} {:>9.4} {:>9.4} {:>6} {:>6} {:>6} {:>10} {:>8}",
            r.kind,
            r.config,
            r.workers,
            r.median_s,
            r.post_warmup_median_s,
            r.min_s,
            r.max_s,
            fmt_opt(r.vs_best_openmp, 2),
            fmt_opt(r.vs_best_fixed, 2),
            fmt_opt(r.cov, 3),
            fmt_opt(r.chunks, 0),
            fmt_opt(r.steals, 0),
        );
    }
    let mut workers: Vec<usize> = rows
        .iter()
        .filter(|r| r.kind != "sequential-rust" && r.kind != "sequential-c")
        .map(|r| r.workers)
        .collect();
    workers.dedup();
    for w in workers {
        let best_omp = best(rows, w, |r| r.kind == "openmp", |r| r.median_s);
        let best_fixed = best(rows, w, is_fixed, |r| r.median_s);
        if let (Some((f, fv)), Some((o, ov))) = (best_fixed, best_omp) {
            let _ = writeln!(
                out,
                "{w} worker(s): best fixed magpie {} {fv:.4} s vs best OpenMP {} {ov:.4} s: \
                 ratio {:.2}",
                rows[f].config,
                rows[o].config,
                fv / ov
            );
        }
        let best_post = best(rows, w, is_fixed, |r| r.post_warmup_median_s);
        for r in rows.iter().filter(|r| r.workers == w && r.selector) {
            if let Some((f, fv)) = best_post {
                let _ = writeln!(
                    out,
                    "{w} worker(s): {} post-warm-up {:.4} s vs best fixed {} {fv:.4} s: \
                     ratio {}",
                    r.config,
                    r.post_warmup_median_s,
                    rows[f].config,
                    fmt_opt(ratio(r.post_warmup_median_s, Some(fv)), 2)
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
