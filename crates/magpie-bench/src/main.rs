//! `magpie-bench`: side-by-side fork-join benchmarks of magpie (with each of its deques),
//! rayon, chili and a sequential baseline, every kernel written once over [`join::Join`];
//! the `search` suite of `magpie::search` on the apps of `magpie-apps` (see the `search`
//! module for its experiments and targets); and the `loops` suite of `magpie::loops` on the
//! loop apps (Mandelbrot, the Dist loops) against OpenMP, rayon and sequential code, as
//! time-stepped runs in interleaved rounds (see the `loops` module).
//!
//! ```text
//! cargo run --release -p magpie-bench -- forkjoin [--json] [--runs N] [--workers 1,2]
//!     [--kernels fib,tree,...] [--runtimes sequential,magpie,rayon,chili] [--deques ...] [--quick]
//!     [--trace FILE]   (the last timed run of each magpie configuration, per kernel)
//!
//! cargo run --release -p magpie-bench -- search [--runs N] [--json] [--quick]
//!     [--experiments overhead,speedup,peers,sequential]
//!     [--cliques brock400_1,brock400_3] [--sequential-items clique:brock400_1,ns:36,...]
//!     [--timeout SECS]   (`search --help` lists the rest)
//!
//! cargo run --release -p magpie-bench -- loops [--runs N] [--json] [--quick] [--workers 2]
//!     [--apps mandelbrot,exponential,gamma,constant] [--steps 10] [--warmup STEPS]
//!     [--schedules 'static;ss,1;ss,k;…'] [--omp 'static;dynamic,1;dynamic,k;guided']
//!     [--peers seq-rust,seq-c,omp,rayon] [--chunk 64]   (`loops --help` lists the rest)
//!
//! cargo run --release -p magpie-bench -- reproduce lcws|pheet|yewpar|lb4omp [--quick] [--json]
//!     [--runs N] [--plot DIR]   (see the `reproduce` module)
//!
//! cargo run --release -p magpie-bench -- scale-summary DIR --part NAME --status ok
//!     (scripts/scale.sh's bookkeeping: see the `scale` module)
//!
//! cargo build --release -p magpie-cli --features mpi   # the binary the next suite runs
//! cargo run --release -p magpie-bench -- distributed [--runs N] [--json] [--quick]
//!     [--experiments overhead,policies,loops] [--policies random,sticky,perf]
//!     [--overhead-apps uts-T1,ns-34,brock400_1] [--policy-apps ns-34,brock200_1]
//!     [--loads isolated,contended] [--background other|none|APP] [--loop-ranks 2,4]
//!     [--timeout SECS]   (`distributed --help` lists the rest)
//! ```
//!
//! The `distributed` suite (see the `distributed` module) runs the MPI build of the `magpie`
//! CLI under `mpirun` as child processes: ranks × workers overhead, the inter-rank victim
//! policies (isolated and under a background job, with Welch's t-test), and distributed
//! loops (work stealing vs work sharing).
//!
//! magpie pools start from `ThreadPoolBuilder::from_env()`, so the `MAGPIE_*` variables
//! apply (the worker count and deque are the benchmark's): `MAGPIE_JOIN_LIMIT=eager`
//! measures the classic work-first join that pushes every `b`.

#![warn(missing_docs)]

#[cfg(all(feature = "counted", feature = "uncounted"))]
compile_error!(
    "features `counted` (a default) and `uncounted` exclude each other: \
     build the uncounted variant with `--no-default-features --features uncounted`"
);

mod counting;
mod distributed;
mod harness;
mod join;
mod kernels;
mod knapsack_c;
mod loops;
mod omp;
mod omp_program;
mod rayon_compat;
mod reproduce;
mod scale;
mod search;

use clap::{CommandFactory, Parser, Subcommand};
use harness::{Pool, ProfileReport, Row, RuntimeKind};
use kernels::{Inputs, KernelId, Sizes};
use magpie::deque::DequeKind;
use magpie::WorkerStats;
use magpie_measure::progress::{ProgressArgs, RunsBar};
use magpie_measure::rounds::{rounds, Round};
// Messages on stderr go above the progress bar while it is shown.
use magpie_measure::trace::{Meta, Process, TraceFile};
use magpie_measure::{eprint_above as eprint, eprintln_above as eprintln};
use std::collections::HashMap;
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;
use std::time::Duration;

/// Side-by-side fork-join benchmarks: magpie vs rayon vs chili vs sequential.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// The directory of the benchmark instances (dimacs/, tsplib/, knapsack/), for every
    /// command and the children it runs; it sets MAGPIE_INSTANCES, whose default is
    /// ../shared/instances. The repository's tests/data holds the small ones.
    #[arg(long, global = true, value_name = "DIR")]
    instances: Option<std::path::PathBuf>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Runs every kernel on every runtime and worker count, and reports median/min/max.
    Forkjoin(ForkjoinArgs),
    /// The search suite: magpie::search skeletons on the apps (overhead vs plain recursion,
    /// speedup, rayon peers, big sequential solves), every answer checked.
    Search(search::SearchArgs),
    /// The loops suite: magpie::loops schedules (and selectors) on Mandelbrot and the Dist
    /// loops as time-stepped runs, vs OpenMP, rayon and sequential, every result checked.
    Loops(loops::LoopsArgs),
    /// The distributed suite: the MPI build of the magpie CLI under mpirun (ranks × workers
    /// overhead, inter-rank victim policies with Welch's t-test, distributed loops).
    ///
    /// Runs `mpirun --oversubscribe -np R magpie … --workers W --json` as child processes
    /// (the binary: MAGPIE_BIN, else `magpie` beside this executable; build it with
    /// `cargo build --release -p magpie-cli --features mpi`; inherited MAGPIE_* variables are
    /// removed from the children), in interleaved rounds, with the times the CLI reports.
    ///
    /// overhead: 2 ranks × 1 worker vs 1 rank × 2 workers, same skeleton; ratio of the
    /// medians, target ≤ 1.15. policies: each --policies (--remote-victims) at --policy-ranks
    /// × 1 worker, isolated and while a background job runs in a loop (--background); the
    /// reduction (T_other − T_candidate)/T_other of the medians and Welch's t-test (t, two-sided
    /// p) of --candidate vs each other policy, and the thesis' figures. loops: the Dist loop at
    /// each --loop-ranks × 1 worker, --mode steal --victims coordinator vs --mode share: ratio
    /// steal/share and the c.o.v. of the ranks' finishing times.
    ///
    /// Apps: uts-NAME (a named tree), uts-dD (T1 cut at depth D), ns-G (genus G), with the
    /// budget skeleton (--budget); a DIMACS graph name (brock400_1, from dimacs/ of
    /// --instances DIR) with depth-bounded (--spawn-depth). A failed child is an error row naming its
    /// command; the suite then exits non-zero after the other items ran.
    Distributed(distributed::DistributedArgs),
    /// Each seed's headline claims at this machine's scale: the seed's number, magpie's
    /// with its spread, the test (Welch, 95% CIs, or the share of faster configurations)
    /// and a verdict: reproduced, refuted or out of reach here (with the reason).
    Reproduce(reproduce::ReproduceArgs),
    /// Reads `forkjoin --json` outputs of the counted and uncounted builds and prints, per
    /// configuration, the ratio counted/uncounted of the medians (median over files).
    CountingRatio(CountingArgs),
    /// The bookkeeping of scripts/scale.sh after each part of the scaling run: wraps the
    /// part's raw reports (DIR/raw/PART*.json) with its status into DIR/PART.json, draws
    /// DIR/PART-speedup.png, and rewrites DIR/summary.md from every part so far.
    ScaleSummary(scale::ScaleArgs),
    /// One rayon program (bench/rayon-program) built on rayon's core and on magpie's
    /// (scripts/rayon-bench.sh builds both): both run in interleaved rounds, every result
    /// checked, and per workload and thread count the ratio of the medians magpie/rayon with
    /// its 95% CI, and the CPU time's (see the `rayon_compat` module).
    RayonProgram(rayon_compat::RayonProgramArgs),
    /// The OpenMP programs of bench/omp (scripts/omp-bench.sh builds them) on libgomp, LLVM's
    /// libomp and libmagpie_omp (preloaded), in interleaved rounds, every answer checked: per
    /// program, schedule and thread count the medians and the ratios magpie/libgomp and
    /// magpie/libomp with their 95% CIs (see the `omp_program` module).
    OmpProgram(omp_program::OmpProgramArgs),
}

#[derive(Debug, clap::Args)]
struct CountingArgs {
    /// JSON outputs of the default build (magpie counters on).
    #[arg(long, value_delimiter = ',', required = true)]
    counted: Vec<std::path::PathBuf>,
    /// JSON outputs of the `--no-default-features --features uncounted` build.
    #[arg(long, value_delimiter = ',', required = true)]
    uncounted: Vec<std::path::PathBuf>,
}

#[derive(Debug, clap::Args)]
struct ForkjoinArgs {
    /// Print only a JSON array of result rows on stdout (the table goes to stderr).
    #[arg(long)]
    json: bool,
    /// Timed runs per configuration (after one untimed warm-up).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    runs: u32,
    /// Worker counts for the parallel runtimes.
    #[arg(long, value_delimiter = ',', default_values_t = [1, 2])]
    workers: Vec<usize>,
    /// Kernels to run (by default the first six; the PBBS kernels are named explicitly).
    #[arg(long, value_delimiter = ',', value_parser = kernels::kernel_parser(),
          default_values_t = KernelId::DEFAULT.to_vec())]
    kernels: Vec<KernelId>,
    /// Runtimes to run (a sequential reference result is always computed for checking).
    #[arg(long, value_enum, value_delimiter = ',',
          default_values_t = [RuntimeKind::Sequential, RuntimeKind::Magpie, RuntimeKind::Rayon, RuntimeKind::Chili, RuntimeKind::RayonOnMagpie])]
    runtimes: Vec<RuntimeKind>,
    /// magpie's deques to run (each is its own magpie row).
    #[arg(long, value_delimiter = ',', default_values_t = DequeKind::ALL)]
    deques: Vec<DequeKind>,
    /// Measure one configuration at a time (only its pool alive), instead of the default
    /// interleaved rounds (every pool built up front; each round runs every configuration
    /// once, so that a drift in machine load hits all configurations alike).
    #[arg(long)]
    blocked: bool,
    /// Small problem sizes, for a smoke test.
    #[arg(long)]
    quick: bool,
    /// Run every selected kernel at size N instead (what N means is the kernel's: fib's n,
    /// the tree's depth, elements to sort or sum, the board's side, keys, words).
    #[arg(long, value_name = "N", value_parser = kernels::parse_size)]
    size: Option<usize>,
    /// Also report magpie's counters per configuration and kernel over the timed runs: the
    /// LCWS profile (pushes, pops, steals, failed steals, exposure requests, signals, tasks
    /// exposed, exposed tasks taken back, fences, CAS) per worker and in total, as a table
    /// after each kernel's and in the JSON rows (`profile`). Needs the default build
    /// (magpie's counters compiled in).
    #[arg(long)]
    counters: bool,
    #[command(flatten)]
    progress: ProgressArgs,
    /// After the report, write its pictures into DIR: runtimes.png (box plots of the run
    /// times) and, with several worker counts, speedup.png
    #[arg(long, value_name = "DIR")]
    plot: Option<std::path::PathBuf>,
    /// Write a Chrome trace-event file (open it in ui.perfetto.dev) of the last timed
    /// run of each magpie configuration on each kernel: one process per (kernel,
    /// configuration), its workers as threads. That run's time includes the cost of tracing.
    #[arg(long, value_name = "FILE")]
    trace: Option<std::path::PathBuf>,
}

impl std::fmt::Display for RuntimeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(dir) = &cli.instances {
        if !dir.is_dir() {
            eprintln!(
                "magpie-bench: error: --instances {}: not a directory",
                dir.display()
            );
            return ExitCode::from(2);
        }
        // Set before any thread starts, so every part of the run and every child it
        // spawns reads the same directory.
        std::env::set_var(magpie_apps::instances::MAGPIE_INSTANCES, dir);
    }
    if let Command::Forkjoin(args) = &cli.command {
        if let Err(e) = check_counters(args) {
            Cli::command()
                .error(clap::error::ErrorKind::ArgumentConflict, e)
                .exit();
        }
    }
    let result = match cli.command {
        Command::Forkjoin(args) => {
            // A bad trace path is a usage error (exit 2), found before any run.
            let file = match args
                .trace
                .as_deref()
                .map(|p| TraceFile::create("--trace", p))
            {
                Some(Err(e)) => {
                    eprintln!("magpie-bench: error: {e}");
                    return ExitCode::from(2);
                }
                Some(Ok(f)) => Some(f),
                None => None,
            };
            forkjoin(&args, file)
        }
        Command::Search(args) => search::run(&args),
        Command::Loops(args) => loops::run(&args),
        Command::Distributed(args) => distributed::run(&args),
        Command::Reproduce(args) => reproduce::run(&args),
        Command::CountingRatio(args) => {
            counting::report(&args.counted, &args.uncounted).map(|t| print!("{t}"))
        }
        Command::ScaleSummary(args) => scale::run(&args),
        Command::RayonProgram(args) => rayon_compat::run(&args),
        Command::OmpProgram(args) => omp_program::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("magpie-bench: error: {e}");
            // A missing instance is the user's to fix (where to look): a usage error.
            if magpie_apps::instances::is_missing(&e) {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

/// `--counters` needs magpie's counters compiled in and a magpie configuration to count.
fn check_counters(args: &ForkjoinArgs) -> Result<(), String> {
    if !args.counters {
        Ok(())
    } else if !cfg!(feature = "counted") {
        Err(
            "--counters: this magpie-bench was built without magpie's counters (the \
             `uncounted` build), so it has none to report; build it with the default \
             features"
                .into(),
        )
    } else if !args.runtimes.contains(&RuntimeKind::Magpie) {
        Err("--counters: the counters are magpie's, and --runtimes has no magpie".into())
    } else {
        Ok(())
    }
}

/// The configurations to measure, in order: (runtime, deque (magpie only), workers).
fn configurations(args: &ForkjoinArgs) -> Vec<(RuntimeKind, DequeKind, usize)> {
    let mut out = Vec::new();
    if args.runtimes.contains(&RuntimeKind::Sequential) {
        out.push((RuntimeKind::Sequential, DequeKind::default(), 1));
    }
    for &w in &args.workers {
        for rt in [
            RuntimeKind::Rayon,
            RuntimeKind::RayonOnMagpie,
            RuntimeKind::Chili,
            RuntimeKind::Magpie,
        ] {
            if !args.runtimes.contains(&rt) {
                continue;
            }
            if rt == RuntimeKind::Magpie {
                for &d in &args.deques {
                    out.push((rt, d, w));
                }
            } else {
                out.push((rt, DequeKind::default(), w));
            }
        }
    }
    out
}

fn forkjoin(args: &ForkjoinArgs, trace: Option<TraceFile>) -> Result<(), String> {
    if args.workers.contains(&0) {
        return Err("--workers: worker counts must be at least 1".into());
    }
    let sizes = match (args.size, args.quick) {
        (Some(n), _) => Sizes::Given(n),
        (None, true) => Sizes::Quick,
        (None, false) => Sizes::Full,
    };
    let mut kernels = args.kernels.clone();
    kernels.dedup();
    eprintln!(
        "magpie-bench forkjoin: {} timed runs + 1 warm-up per configuration, {}; magpie \
         counters {}",
        args.runs,
        if args.blocked {
            "one configuration at a time"
        } else {
            "in interleaved rounds"
        },
        if cfg!(feature = "counted") {
            "on"
        } else {
            "compiled out"
        }
    );
    eprintln!("building inputs…");
    let mut inputs = Inputs::new(sizes, &kernels)?;

    // Reference results, from the sequential runtime.
    let seq = Pool::Sequential;
    let mut reference: HashMap<KernelId, u64> = HashMap::new();
    for &k in &kernels {
        let (_, digest) = seq.execute(k, &mut inputs)?;
        reference.insert(k, digest);
    }

    let mut configs: Vec<Config> = configurations(args)
        .into_iter()
        .map(|(runtime, deque, workers)| Config::new(runtime, deque, workers, args.counters))
        .collect();
    // Every configuration runs every kernel once per round (the warm-up and the timed ones).
    let total = kernels.len() * configs.len() * (args.runs as usize + 1);
    let bar = RunsBar::new(
        args.progress.mode(args.json),
        "magpie-bench forkjoin",
        total as u64,
    );
    let execute = |c: &mut Config, k: KernelId, round: Round, inputs: &mut Inputs| {
        bar.set_message(format!(
            "{k} {round}: {} {} {} worker(s)",
            c.runtime, c.variant, c.workers
        ));
        let done = c.execute(k, round, inputs, reference[&k]);
        bar.inc();
        done
    };
    // The round whose run is traced: the last timed one.
    let traced_round = trace.as_ref().map(|_| args.runs);
    for c in &mut configs {
        c.traced_round = traced_round;
    }
    if args.blocked {
        for c in &mut configs {
            c.build();
            for &k in &kernels {
                eprint!("{k:<10} {}: ", c.name);
                for round in rounds(1, args.runs) {
                    execute(c, k, round, &mut inputs)?;
                }
                eprintln!();
            }
            c.pool = None; // only this configuration's pool is ever alive
        }
    } else {
        for c in &mut configs {
            c.build();
        }
        for &k in &kernels {
            for round in rounds(1, args.runs) {
                if round.is_timed() {
                    eprint!("{k:<10} {round}: ");
                } else {
                    eprint!("{k:<10} {round} ");
                }
                for c in &mut configs {
                    execute(c, k, round, &mut inputs)?;
                }
                eprintln!();
            }
        }
    }
    drop(bar);

    let mut rows: Vec<Row> = Vec::new();
    for &k in &kernels {
        for c in &configs {
            if c.failed.is_none() {
                if let Some(times) = c.times.get(&k) {
                    let mut row = harness::summarize(k, c.runtime, &c.variant, c.workers, times);
                    row.profile = c
                        .counted
                        .get(&k)
                        .map(|per_worker| ProfileReport::new(times.len(), per_worker));
                    rows.push(row);
                }
            }
        }
    }
    let failed: Vec<String> = configs.iter().filter_map(|c| c.failed.clone()).collect();
    if let Some(file) = trace {
        write_trace(file, &configs, &kernels)?;
    }

    let mut text = String::new();
    for &k in &kernels {
        text.push_str(&harness::table(k, &inputs.describe(k), &rows));
        text.push('\n');
        for r in rows.iter().filter(|r| r.kernel == k.name()) {
            if let Some(p) = &r.profile {
                text.push_str(&format!(
                    "{k} on {} {} {} worker(s): magpie's counters over {} timed run(s)\n",
                    r.runtime, r.variant, r.workers, p.runs
                ));
                text.push_str(&p.table());
                text.push('\n');
            }
        }
    }
    // The pictures of the rows measured, even if some configurations failed.
    let emitted = magpie_measure::report::emit(&rows, &text, args.json, &failed);
    plot_pictures(&rows, args.plot.as_deref())?;
    emitted
}

/// `--plot DIR` of the forkjoin and loops suites: the pictures of their JSON rows, each
/// path printed on stderr.
fn plot_pictures<T: serde::Serialize>(
    rows: &[T],
    dir: Option<&std::path::Path>,
) -> Result<(), String> {
    let Some(dir) = dir else {
        return Ok(());
    };
    for p in magpie_measure::plot::plot_report(rows, dir)? {
        eprintln!("magpie-bench: picture {}", p.display());
    }
    Ok(())
}

/// Writes the traces of `configs`, one process per (kernel, configuration) in the order of
/// `kernels` then `configs`.
fn write_trace(file: TraceFile, configs: &[Config], kernels: &[KernelId]) -> Result<(), String> {
    let mut processes = Vec::new();
    for &k in kernels {
        for c in configs {
            for (_, trace) in c.traces.iter().filter(|(tk, _)| *tk == k) {
                processes.push(Process {
                    pid: processes.len(),
                    name: format!(
                        "{k} {}",
                        c.name.split_whitespace().collect::<Vec<_>>().join(" ")
                    ),
                    trace,
                });
            }
        }
    }
    let meta = Meta {
        command: Meta::command_line(),
        workers: configs.iter().map(|c| c.workers).max().unwrap_or(1),
        ranks: processes.len(),
    };
    file.write(&processes, &meta)
}

/// One (runtime, deque, workers) configuration: its pool and its timed runs per kernel.
struct Config {
    runtime: RuntimeKind,
    deque: DequeKind,
    variant: String,
    workers: usize,
    name: String,
    pool: Option<Pool>,
    times: HashMap<KernelId, Vec<Duration>>,
    /// With `--counters` (magpie only): each worker's counts over the timed runs, by kernel.
    counted: HashMap<KernelId, Vec<WorkerStats>>,
    /// Whether to count (`--counters` on a magpie configuration).
    counting: bool,
    /// Why the configuration was dropped (it panicked), if it was.
    failed: Option<String>,
    /// The timed round whose run is traced (`--trace`; magpie pools only).
    traced_round: Option<u32>,
    /// The traces of that run, per kernel.
    traces: Vec<(KernelId, magpie::Trace)>,
}

impl Config {
    fn new(runtime: RuntimeKind, deque: DequeKind, workers: usize, counters: bool) -> Config {
        let variant = if runtime == RuntimeKind::Magpie {
            deque.name().to_string()
        } else {
            String::new()
        };
        let name = format!("{runtime:<15} {variant:<17} {workers:>2} worker(s)");
        Config {
            runtime,
            deque,
            variant,
            workers,
            name,
            pool: None,
            times: HashMap::new(),
            counted: HashMap::new(),
            counting: counters && runtime == RuntimeKind::Magpie,
            failed: None,
            traced_round: None,
            traces: Vec::new(),
        }
    }

    /// Builds the pool. A panic (say, an unfinished deque) drops the configuration; a build
    /// error is a panic-free failure of the same kind.
    fn build(&mut self) {
        let (runtime, deque, workers) = (self.runtime, self.deque, self.workers);
        match panic::catch_unwind(|| Pool::build(runtime, deque, workers)) {
            Ok(Ok(pool)) => self.pool = Some(pool),
            Ok(Err(e)) => self.fail(e),
            Err(payload) => self.fail(format!("panicked: {}", panic_message(&*payload))),
        }
    }

    fn fail(&mut self, why: String) {
        eprintln!("\nmagpie-bench: {} FAILED ({why}); skipping it", self.name);
        self.failed = Some(format!("{}: {why}", self.name.trim_end()));
        self.pool = None;
    }

    /// One execution of kernel `k` in `round` (timed or warm-up), checked against the
    /// sequential `reference`: a wrong result is an error that aborts the benchmark; a
    /// panic drops this configuration.
    fn execute(
        &mut self,
        k: KernelId,
        round: Round,
        inputs: &mut Inputs,
        reference: u64,
    ) -> Result<(), String> {
        let Some(pool) = &self.pool else {
            return Ok(());
        };
        // The counts of this run: the difference of two snapshots around it (outside the
        // timed part), exact where a reset racing with an idle worker's count might not be.
        let snapshot = || match pool {
            Pool::Magpie(p) if self.counting && round.is_timed() => Some(p.stats().workers),
            _ => None,
        };
        let before = snapshot();
        let traced = match pool {
            Pool::Magpie(p) if round.is_timed() && Some(round.number()) == self.traced_round => {
                p.start_trace();
                Some(p)
            }
            _ => None,
        };
        let result = panic::catch_unwind(AssertUnwindSafe(|| pool.execute(k, inputs)));
        if let Some(p) = traced {
            let trace = p.take_trace();
            self.traces.push((k, trace));
        }
        match result {
            Ok(Ok((t, digest))) => {
                if let (Some(before), Some(after)) = (before, snapshot()) {
                    let sum = self
                        .counted
                        .entry(k)
                        .or_insert_with(|| vec![WorkerStats::default(); after.len()]);
                    for ((s, a), b) in sum.iter_mut().zip(after).zip(before) {
                        *s += a - b;
                    }
                }
                if digest != reference {
                    return Err(format!(
                        "{k} on {}: wrong result on run {} ({}): {digest:#x}, sequential gave \
                         {reference:#x}",
                        self.name.trim_end(),
                        if round.is_timed() { round.number() } else { 0 },
                        if round.is_timed() { "timed" } else { "warm-up" },
                    ));
                }
                if round.is_timed() {
                    self.times.entry(k).or_default().push(t);
                    eprint!("{:.4} ", t.as_secs_f64());
                }
            }
            Ok(Err(e)) => return Err(format!("{k} on {}: {e}", self.name.trim_end())),
            Err(payload) => {
                self.fail(format!("panicked on {k}: {}", panic_message(&*payload)));
            }
        }
        Ok(())
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic".into())
}
