//! `magpie-bench`: side-by-side fork-join benchmarks of magpie (with each of its deques),
//! rayon, chili and a sequential baseline, every kernel written once over [`join::Join`].
//!
//! ```text
//! cargo run --release -p magpie-bench -- forkjoin [--json] [--runs N] [--workers 1,2]
//!     [--kernels fib,tree,...] [--runtimes sequential,magpie,rayon,chili] [--deques ...] [--quick]
//! ```

#[cfg(all(feature = "counted", feature = "uncounted"))]
compile_error!(
    "features `counted` (a default) and `uncounted` exclude each other: \
     build the uncounted variant with `--no-default-features --features uncounted`"
);

mod counting;
mod harness;
mod join;
mod kernels;

use clap::{Parser, Subcommand};
use harness::{Pool, Row, RuntimeKind};
use kernels::{Inputs, KernelId, Sizes};
use std::collections::HashMap;
use std::process::ExitCode;
use std::time::Duration;

/// Side-by-side fork-join benchmarks: magpie vs rayon vs chili vs sequential.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Runs every kernel on every runtime and worker count, and reports median/min/max.
    Forkjoin(ForkjoinArgs),
    /// Reads `forkjoin --json` outputs of the counted and uncounted builds and prints, per
    /// configuration, the ratio counted/uncounted of the medians (median over files).
    CountingRatio(CountingArgs),
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
    /// Kernels to run.
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = KernelId::ALL)]
    kernels: Vec<KernelId>,
    /// Runtimes to run (a sequential reference result is always computed for checking).
    #[arg(long, value_enum, value_delimiter = ',',
          default_values_t = [RuntimeKind::Sequential, RuntimeKind::Magpie, RuntimeKind::Rayon, RuntimeKind::Chili])]
    runtimes: Vec<RuntimeKind>,
    /// Small problem sizes, for a smoke test.
    #[arg(long)]
    quick: bool,
}

impl std::fmt::Display for KernelId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::fmt::Display for RuntimeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Forkjoin(args) => forkjoin(&args),
        Command::CountingRatio(args) => {
            counting::report(&args.counted, &args.uncounted).map(|t| print!("{t}"))
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("magpie-bench: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The configurations to measure, in order: (runtime, variant, workers).
fn configurations(args: &ForkjoinArgs) -> Vec<(RuntimeKind, String, usize)> {
    let mut out = Vec::new();
    if args.runtimes.contains(&RuntimeKind::Sequential) {
        out.push((RuntimeKind::Sequential, String::new(), 1));
    }
    for &w in &args.workers {
        for rt in [RuntimeKind::Rayon, RuntimeKind::Chili, RuntimeKind::Magpie] {
            if !args.runtimes.contains(&rt) {
                continue;
            }
            match rt {
                RuntimeKind::Magpie => {
                    eprintln!("magpie-bench: magpie is not wired in yet; skipping it");
                }
                _ => out.push((rt, String::new(), w)),
            }
        }
    }
    out
}

fn forkjoin(args: &ForkjoinArgs) -> Result<(), String> {
    if args.workers.contains(&0) {
        return Err("--workers: worker counts must be at least 1".into());
    }
    let sizes = if args.quick {
        Sizes::QUICK
    } else {
        Sizes::FULL
    };
    let mut kernels = args.kernels.clone();
    kernels.dedup();
    eprintln!(
        "magpie-bench forkjoin: {} timed runs + 1 warm-up per configuration; magpie counters {}",
        args.runs,
        if cfg!(feature = "counted") {
            "on"
        } else {
            "compiled out"
        }
    );
    eprintln!("building inputs…");
    let mut inputs = Inputs::new(sizes, &kernels);

    // Reference results, from the sequential runtime.
    let seq = Pool::Sequential;
    let mut reference: HashMap<KernelId, u64> = HashMap::new();
    for &k in &kernels {
        let (_, digest) = seq.execute(k, &mut inputs)?;
        reference.insert(k, digest);
    }

    let mut rows: Vec<Row> = Vec::new();
    for (runtime, variant, workers) in configurations(args) {
        let pool = Pool::build(runtime, workers)?;
        for &k in &kernels {
            let label = if variant.is_empty() {
                format!("{k} on {runtime} with {workers} worker(s)")
            } else {
                format!("{k} on {runtime} ({variant}) with {workers} worker(s)")
            };
            eprint!("{label}: ");
            let mut times: Vec<Duration> = Vec::new();
            for run in 0..=args.runs {
                let (t, digest) = pool.execute(k, &mut inputs)?;
                if digest != reference[&k] {
                    return Err(format!(
                        "{label}: wrong result on run {run}: {digest:#x}, sequential gave {:#x}",
                        reference[&k]
                    ));
                }
                if run > 0 {
                    times.push(t);
                    eprint!("{:.4} ", t.as_secs_f64());
                }
            }
            eprintln!();
            rows.push(harness::summarize(k, runtime, &variant, workers, &times));
        }
        drop(pool);
    }

    let mut text = String::new();
    for &k in &kernels {
        text.push_str(&harness::table(k, &sizes.describe(k), &rows));
        text.push('\n');
    }
    if args.json {
        eprint!("{text}");
        let json = serde_json::to_string_pretty(&rows).map_err(|e| e.to_string())?;
        println!("{json}");
    } else {
        print!("{text}");
    }
    Ok(())
}
