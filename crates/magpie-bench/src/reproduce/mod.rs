//! `magpie-bench reproduce lcws|pheet|yewpar|lb4omp [--quick] [--json] [--runs N]
//! [--plot DIR]`: each seed's headline experiments at this machine's scale (issue 17 item 3).
//!
//! Per claim: the seed's statement and number (document and section cited in the seed's
//! module), magpie's measurement with its spread (median, 95% CI of the mean), the
//! statistical test (Welch's t-test, 95% CIs, or for LCWS the share of configurations where
//! the candidate is faster, with its Wilson interval) and a verdict — `reproduced`,
//! `refuted` or `out of reach here` with the reason ([`claim`] holds the rules). The
//! measurements run magpie's existing machinery as child processes:
//!
//! - `lcws` ([`lcws`]): `magpie-bench forkjoin --json --counters` (this executable), every
//!   kernel of the registry, the classic deque vs the LCWS deques, 1..=P workers;
//! - `pheet` ([`pheet`]): `magpie experiment policies` (the `magpie` CLI beside this
//!   executable, or `MAGPIE_BIN`) with several instances at once (multiprogrammed);
//! - `yewpar` ([`yewpar`]): `magpie-bench distributed --experiments policies` (mpirun);
//! - `lb4omp` ([`lb4omp`]): `magpie loop dist --distributed` under mpirun through the
//!   distributed suite's launcher.
//!
//! `--quick` runs tiny sizes and 2 runs (a smoke test for the tests; every row says so).
//! The exit status is 0 when every claim got a verdict (any of the three); a bad argument is
//! one error line and exit 2 (clap's).

mod claim;
mod lb4omp;
mod lcws;
mod pheet;
mod yewpar;

use claim::Context;

use magpie_measure::process;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The seeds whose claims `reproduce` measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Seed {
    /// Low-Cost Work Stealing (seed 002): split deques vs the classic deque.
    Lcws,
    /// Adaptive work stealing in Pheet (seed 003): backoffs and dynamic quanta.
    Pheet,
    /// YewPar's performance-driven policy (seed 000): inter-rank victim selection.
    Yewpar,
    /// LB4OMP/LB4MPI (seed 004): distributed loops, work stealing vs work sharing.
    Lb4omp,
}

impl Seed {
    /// The name on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Seed::Lcws => "lcws",
            Seed::Pheet => "pheet",
            Seed::Yewpar => "yewpar",
            Seed::Lb4omp => "lb4omp",
        }
    }
}

/// `reproduce`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ReproduceArgs {
    /// The seed whose headline claims to measure.
    #[arg(value_enum)]
    pub seed: Seed,
    /// Tiny sizes and 2 runs: a smoke test (every row says so), not a result.
    #[arg(long)]
    pub quick: bool,
    /// Print a JSON array of claims on stdout (the table goes to stderr).
    #[arg(long)]
    pub json: bool,
    /// Timed runs per configuration [default: 10, as the seeds; 2 with --quick].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: Option<u32>,
    /// A child still running after this many seconds is stopped (its claims are out of
    /// reach).
    #[arg(long, default_value_t = 3600, value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
    /// Also write the box plots of the measurements into DIR (one sub-folder per child
    /// report, from magpie_measure::plot).
    #[arg(long, value_name = "DIR")]
    pub plot: Option<PathBuf>,
    /// Worker counts [default: lcws 1..=P, one per core up to P (2 with --quick); pheet P].
    /// lcws measures every count given; pheet runs at the largest. A subset such as
    /// 1,2,4,8,16 fits a many-core machine's short time (`scripts/scale.sh`).
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub workers: Option<Vec<u64>>,
    /// lcws: the fork-join kernels measured [default: every kernel of the registry].
    #[arg(long, value_delimiter = ',', value_parser = crate::kernels::kernel_parser())]
    pub kernels: Option<Vec<magpie_apps::registry::KernelId>>,
}

impl ReproduceArgs {
    /// Timed runs per configuration.
    pub fn runs(&self) -> u32 {
        self.runs.unwrap_or(if self.quick { 2 } else { 10 })
    }

    /// The worker counts to measure: `--workers`, else 1..=`max` (sorted, no repeats; the
    /// last is the largest, at which pheet runs).
    pub fn worker_counts(&self, max: usize) -> Vec<usize> {
        let mut w: Vec<usize> = match &self.workers {
            Some(w) => w.iter().map(|&w| w as usize).collect(),
            None => (1..=max).collect(),
        };
        w.sort_unstable();
        w.dedup();
        w
    }
}

/// This machine's cores (`std::thread::available_parallelism`, 1 if unknown).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `reproduce`: measures, judges, prints.
pub fn run(args: &ReproduceArgs) -> Result<(), String> {
    let mut command = format!("magpie-bench reproduce {}", args.seed.name());
    if args.quick {
        command.push_str(" --quick");
    }
    if let Some(r) = args.runs {
        command.push_str(&format!(" --runs {r}"));
    }
    if let Some(w) = &args.workers {
        let w: Vec<String> = w.iter().map(u64::to_string).collect();
        command.push_str(&format!(" --workers {}", w.join(",")));
    }
    if let Some(k) = &args.kernels {
        let k: Vec<&str> = k.iter().map(|k| k.name()).collect();
        command.push_str(&format!(" --kernels {}", k.join(",")));
    }
    let ctx = Context {
        quick: args.quick,
        command,
        scale: String::new(),
    };
    // A bad --plot DIR is found before any measurement.
    if let Some(dir) = &args.plot {
        std::fs::create_dir_all(dir).map_err(|e| format!("--plot {}: {e}", dir.display()))?;
    }
    let mut pictures = Pictures::new(args.plot.as_deref());
    let claims = match args.seed {
        Seed::Lcws => lcws::claims(args, ctx, &mut pictures),
        Seed::Pheet => pheet::claims(args, ctx, &mut pictures),
        Seed::Yewpar => yewpar::claims(args, ctx, &mut pictures),
        Seed::Lb4omp => lb4omp::claims(args, ctx, &mut pictures),
    };
    let text = claim::table(&claims);
    if args.json {
        eprint!("{text}");
        let json = serde_json::to_string_pretty(&claims).map_err(|e| e.to_string())?;
        println!("{json}");
    } else {
        print!("{text}");
    }
    pictures.finish()
}

/// `--plot DIR`: the box plots of each child's report, in `DIR/NAME/`.
pub struct Pictures {
    dir: Option<PathBuf>,
    errors: Vec<String>,
}

impl Pictures {
    fn new(dir: Option<&Path>) -> Pictures {
        Pictures {
            dir: dir.map(Path::to_path_buf),
            errors: Vec::new(),
        }
    }

    /// Draws `report` (a child's JSON report) into `DIR/name/`, if `--plot` was given.
    pub fn add(&mut self, name: &str, report: &serde_json::Value) {
        let Some(dir) = &self.dir else {
            return;
        };
        match magpie_measure::plot::plot_report(report, &dir.join(name)) {
            Ok(paths) => {
                for p in paths {
                    eprintln!("magpie-bench: picture {}", p.display());
                }
            }
            Err(e) => self.errors.push(format!("{name}: {e}")),
        }
    }

    fn finish(self) -> Result<(), String> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(format!("--plot: {}", self.errors.join("; ")))
        }
    }
}

/// A child's command line, quoted for a shell where needed (for `measured_by`).
pub fn show(program: &Path, args: &[String]) -> String {
    std::iter::once(program.display().to_string())
        .chain(args.iter().cloned())
        .map(|a| {
            if a.is_empty() || a.contains([' ', '\'', '"', '%', '$', '*']) {
                format!("'{}'", a.replace('\'', r"'\''"))
            } else {
                a
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The `MAGPIE_*` variables a child keeps: where the binaries and the instances are
/// (the others configure pools and faults, and a measurement is configured by its command
/// line alone).
const KEPT_VARS: [&str; 2] = ["MAGPIE_BIN", "MAGPIE_INSTANCES"];

/// Runs `program args` to its end (or `timeout`) with every inherited `MAGPIE_*` variable
/// but [`KEPT_VARS`] removed, and returns its stdout, or an error naming its exit status and the last lines
/// of its stderr. With `accept_failure`, a non-zero exit that printed something on stdout
/// (a suite that exits 1 after printing its rows, some of them errors) is a success.
pub fn run_child(
    program: &Path,
    args: &[String],
    timeout: Duration,
    accept_failure: bool,
) -> Result<String, String> {
    let mut c = Command::new(program);
    c.args(args);
    for (k, _) in std::env::vars_os() {
        let name = k.to_string_lossy();
        if name.starts_with("MAGPIE_") && !KEPT_VARS.contains(&name.as_ref()) {
            c.env_remove(k);
        }
    }
    let finished = process::run_to_end(&mut c, timeout)
        .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
    let tail: Vec<&str> = finished
        .stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let tail = tail[tail.len().saturating_sub(3)..].join(" | ");
    match finished.status {
        None => Err(format!(
            "stopped after the --timeout of {} s",
            timeout.as_secs()
        )),
        Some(s) if s.success() => Ok(finished.stdout),
        Some(_) if accept_failure && !finished.stdout.trim().is_empty() => Ok(finished.stdout),
        Some(s) => Err(format!("{}: {tail}", process::describe(s))),
    }
}

/// This executable (the children of `lcws` and `yewpar`).
pub fn this_exe() -> Result<PathBuf, String> {
    std::env::current_exe().map_err(|e| format!("cannot locate this executable: {e}"))
}

/// The `magpie` CLI: `MAGPIE_BIN`, else `magpie` beside this executable.
pub fn magpie_bin() -> Result<PathBuf, String> {
    let bin = match std::env::var_os("MAGPIE_BIN") {
        Some(b) => PathBuf::from(b),
        None => this_exe()?.with_file_name("magpie"),
    };
    if bin.is_file() {
        Ok(bin)
    } else {
        Err(format!(
            "no magpie binary at {} (set MAGPIE_BIN, or build it with `cargo build -p \
             magpie-cli --features mpi`)",
            bin.display()
        ))
    }
}
