//! `magpie-bench omp-program`: the same `gcc -fopenmp` binaries on three OpenMP runtimes.
//!
//! `bench/omp/*.c` are plain OpenMP programs (construct overheads, loop applications under
//! `schedule(runtime)`, task programs; `bench/omp/README.md` lists them). `scripts/omp-bench.sh`
//! builds them once with `gcc -O2 -fopenmp` into `target/omp-bench/`, builds
//! `libmagpie_omp.so` (`crates/magpie-omp`), and runs this subcommand, which runs every binary
//! unchanged as a child process under each runtime:
//!
//! | runtime | how |
//! |---|---|
//! | `libgomp` | as linked: GCC's runtime |
//! | `libomp` | `LD_PRELOAD` of LLVM's `libomp.so` (Debian `libomp-dev`; its GOMP compatibility layer answers the `GOMP_*` calls) |
//! | `magpie` | `LD_PRELOAD` of `libmagpie_omp.so` |
//!
//! ```text
//! magpie-bench omp-program [--bin-dir target/omp-bench] [--magpie-lib PATH]
//!     [--libomp PATH|auto|none] [--runtimes libgomp,libomp,magpie] [--threads 1,2]
//!     [--rounds 5] [--schedules 'static;dynamic;dynamic,64;guided;fac2;…'] [--programs …]
//!     [--constructs …] [--set PROGRAM:key=value …] [--quick] [--json OUT] [--summary OUT.md]
//!     [--timeout SECS]
//! ```
//!
//! **Runtimes.** `--libomp auto` looks for `libomp.so` under `/usr/lib/llvm-*/lib` and the
//! multiarch directories; not found (or `--libomp none`), the libomp runs are skipped and the
//! reason recorded (`runtimes` in the JSON, the summary's first lines); so are magpie's when
//! `--magpie-lib` (default `target/release/libmagpie_omp.so`) does not exist. Every program
//! reports the shared object that `GOMP_parallel` resolves to in its process (`omp_lib`): a
//! run whose library is not the one its runtime preloads (libgomp for `libgomp`) fails, so a
//! preload that did not take effect cannot pass for a measurement.
//!
//! **Runs.** `--rounds` interleaved rounds (`magpie_measure::rounds`); each round runs every
//! (program, parameters, schedule) at every `--threads` count once on each runtime, the
//! runtimes in an order that rotates from round to round. A child gets `OMP_NUM_THREADS`, the
//! loop applications `OMP_SCHEDULE` (the task programs and overheads none: an inherited one
//! is removed, and so is an inherited `LD_PRELOAD`); other `OMP_*`, `GOMP_*`, `KMP_*` and
//! `MAGPIE_*` variables are inherited and recorded (`env`). Each program prints one JSON line
//! (`bench/omp/common.h`) with the kernel's wall time `seconds` and its `check`, and exits
//! non-zero on a wrong answer; every check of the same program and parameters (all runtimes,
//! schedules, thread counts, rounds) must be equal. A child that fails, times out, prints no
//! JSON line, reports the wrong library or a different check is recorded with its command
//! and stderr (`failures`), and its (program, parameters, schedule, threads, runtime) is not
//! run again; the others go on, and the subcommand exits 1 at the end, after writing its
//! outputs.
//!
//! **Schedules.** Only the loop applications take `--schedules` (`;`- or `,`-separated; a
//! number after a name is its chunk: `static,dynamic,64,fac2` is static, dynamic with chunk
//! 64, fac2). The standard kinds (`static`, `dynamic`, `guided`, `auto`) run on every runtime;
//! magpie's (`ss`, `gss`, `tss`, `fac`, `fac2`, …) only on magpie. The other runtimes do not
//! reject them: libgomp 12 prints `libgomp: Unknown value for environment variable
//! OMP_SCHEDULE` and runs `dynamic,1`; libomp 14 prints `OMP: Warning #42: OMP_SCHEDULE:
//! "fac2" is an invalid value; ignored.` and runs `static`; both exit 0, so a row of them
//! would silently measure another schedule. (libgomp stays loaded under either preload, as
//! the binaries link it, so its warning shows in the magpie runs' stderr too.) Each row
//! records the schedule the program read back with `omp_get_schedule` (`schedule_reported`).
//!
//! **Report.** The figure of merit of a run is its `seconds` (the kernel's wall time), and
//! for `overheads` its `overhead_us` (microseconds per construct, EPCC style). The JSON
//! (`--json`) is one object:
//!
//! | field | meaning |
//! |---|---|
//! | `quick`, `rounds`, `threads`, `timeout_s` | the options |
//! | `env` | the `OMP_*`/`GOMP_*`/`KMP_*`/`MAGPIE_*` variables the children inherited (`NAME=value`, space-separated) |
//! | `runtimes` | one object per selected runtime: `runtime`, `available`, `lib` (the preloaded library, null for libgomp), `reason` (why it was skipped, else null) |
//! | `rows` | one per (program, params, schedule, threads, runtime) that ran without failure, below |
//! | `ratios` | one per (program, params, schedule, threads) and peer both magpie and the peer ran, below |
//! | `best` | loop applications: each runtime's fastest schedule per (program, params, threads) |
//! | `best_ratios` | loop applications: magpie's best against the best of libgomp's and libomp's, below |
//! | `failures` | every failed child, below |
//!
//! A row: `program`, `params` (the `key=value` arguments given, space-separated; `""` for
//! the defaults), `schedule` (the `OMP_SCHEDULE` given, null for no loop application),
//! `threads`, `runtime`, `metric` (`seconds` or `overhead_us`) and `unit` (`s` or `us`),
//! `runs`, `median`, `min`, `max`, `mean`, `mean_ci95` (`[low, high]`, the t interval of the
//! mean; null for one run), `values` (every run's, in round order), `rounds_of_values` (their
//! rounds), `seconds_median` (the kernel's median wall time), `check`, `omp_lib`,
//! `schedule_reported`, `program_params` (the parameters the program printed, sizes
//! included) and `stderr` (the distinct stderr texts of its runs, cut at 2,000 characters).
//!
//! A ratio: `program`, `params`, `schedule`, `threads`, `metric`, `ratio_of`
//! (`magpie/libgomp` or `magpie/libomp`), `magpie_median`, `peer_median`, `ratio` (of the
//! medians; below 1: magpie is faster or cheaper; null unless both medians are positive, as
//! an overhead lost in the noise can be negative), `ratio_ci95` (the 95% CI of the geometric
//! mean of the per-round ratios, paired by round as in `rayon-program`; rounds where either
//! value is not positive are left out; null for fewer than two), `welch_p` (Welch's
//! two-sided p on the two runtimes' values; null where undefined), `rounds` (paired rounds).
//!
//! A best: `program`, `params`, `threads`, `runtime`, `schedule`, `median`, `schedules`
//! (how many it was chosen from). A best ratio: `program`, `params`, `threads`,
//! `magpie_schedule`, `magpie_median`, `peer_runtime`, `peer_schedule`, `peer_median`,
//! `ratio_of` (`magpie-best/peer-best`), `ratio`, `ratio_ci95`, `welch_p`, `rounds` (as a
//! ratio's, between the two chosen rows; the choice of the best by its median favours the
//! side with more schedules a little).
//!
//! A failure: `program`, `params`, `schedule`, `threads`, `runtime`, `round`, `command` (the
//! environment and command line), `error`, `stderr`.
//!
//! `--summary FILE` writes the same as markdown tables (also printed on stdout).

use magpie_measure::report::failures;
use magpie_measure::rounds::rounds;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{self, Write as _};
use std::path::PathBuf;
use std::time::Duration;

mod exec;
mod report;

pub use exec::*;
pub use report::*;

/// The standard schedule kinds (OpenMP's), which every runtime runs.
pub const STANDARD_SCHEDULES: &[&str] = &["static", "dynamic", "guided", "auto"];

/// magpie's schedules, accepted in `OMP_SCHEDULE` by libmagpie_omp only.
pub const MAGPIE_SCHEDULES: &[&str] = &[
    "ss",
    "gss",
    "tss",
    "fac",
    "fac2",
    "fac2a",
    "mfac",
    "wf",
    "awf",
    "awf_b",
    "awf_c",
    "awf_d",
    "awf_e",
    "af",
    "static_steal",
    "rws",
    "laws",
    "random_sel",
    "exhaustive_sel",
    "binary_sel",
    "expert_sel",
];

/// The schedules without `--schedules`: the standard ones, then every magpie schedule.
pub const DEFAULT_SCHEDULES: &str = "static;dynamic;dynamic,64;guided;ss;gss;tss;fac;fac2;\
     fac2a;mfac;wf;awf;awf_b;awf_c;awf_d;awf_e;af;static_steal;rws;laws;random_sel;\
     exhaustive_sel;binary_sel;expert_sel";

/// The constructs of `overheads` (each its own invocation and row).
pub const CONSTRUCTS: &[&str] = &[
    "parallel",
    "barrier",
    "for-static",
    "for-dynamic-1",
    "for-dynamic-64",
    "for-guided-1",
    "for-guided-64",
    "for-runtime-1",
    "for-runtime-64",
    "reduction",
    "critical",
    "single",
    "task",
];

/// What kind of program a benchmark is, which decides its runs and its summary table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `overheads`: one run per construct, the metric `overhead_us`.
    Overheads,
    /// A loop application under `schedule(runtime)`: one run per schedule.
    Loop,
    /// A task program.
    Tasks,
}

/// One program of `bench/omp`.
#[derive(Debug)]
pub struct Program {
    /// Its name: the source `bench/omp/NAME.c`, the binary `--bin-dir/NAME`.
    pub name: &'static str,
    /// Its kind.
    pub kind: Kind,
}

/// Every program, in the order they run and are reported.
pub const PROGRAMS: &[Program] = &[
    Program {
        name: "overheads",
        kind: Kind::Overheads,
    },
    Program {
        name: "mandelbrot",
        kind: Kind::Loop,
    },
    Program {
        name: "dist",
        kind: Kind::Loop,
    },
    Program {
        name: "spmv",
        kind: Kind::Loop,
    },
    Program {
        name: "nbody",
        kind: Kind::Loop,
    },
    Program {
        name: "fib",
        kind: Kind::Tasks,
    },
    Program {
        name: "treesum",
        kind: Kind::Tasks,
    },
    Program {
        name: "quicksort",
        kind: Kind::Tasks,
    },
    Program {
        name: "mergesort",
        kind: Kind::Tasks,
    },
    Program {
        name: "nqueens",
        kind: Kind::Tasks,
    },
];

/// An OpenMP runtime the binaries run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, clap::ValueEnum)]
pub enum Runtime {
    /// GCC's libgomp, as the binaries are linked.
    Libgomp,
    /// LLVM's libomp, preloaded.
    Libomp,
    /// libmagpie_omp, preloaded.
    Magpie,
}

impl Runtime {
    /// The name in the tables and the JSON.
    pub fn name(self) -> &'static str {
        match self {
            Runtime::Libgomp => "libgomp",
            Runtime::Libomp => "libomp",
            Runtime::Magpie => "magpie",
        }
    }
}

impl fmt::Display for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

/// `omp-program`'s arguments.
#[derive(Debug, clap::Args)]
pub struct OmpProgramArgs {
    /// The directory of the built programs (scripts/omp-bench.sh builds bench/omp/*.c there).
    #[arg(long, value_name = "DIR", default_value = "target/omp-bench")]
    pub bin_dir: PathBuf,
    /// libmagpie_omp.so (cargo build --release -p magpie-omp); missing: magpie is skipped.
    #[arg(
        long,
        value_name = "PATH",
        default_value = "target/release/libmagpie_omp.so"
    )]
    pub magpie_lib: PathBuf,
    /// LLVM's libomp.so to preload: a path, `auto` (look in the usual places) or `none`.
    #[arg(long, value_name = "PATH|auto|none", default_value = "auto")]
    pub libomp: String,
    /// The runtimes to run.
    #[arg(long, value_enum, value_delimiter = ',',
          default_values_t = [Runtime::Libgomp, Runtime::Libomp, Runtime::Magpie])]
    pub runtimes: Vec<Runtime>,
    /// Thread counts (OMP_NUM_THREADS).
    #[arg(long, value_delimiter = ',', default_values_t = [1, 2])]
    pub threads: Vec<usize>,
    /// Timed rounds; each runs every configuration once on each runtime.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub rounds: u32,
    /// The loop applications' schedules (OMP_SCHEDULE), `;`- or `,`-separated, a number after
    /// a name being its chunk; magpie's run only on magpie [default: the standard ones, then
    /// every magpie schedule].
    #[arg(long, value_name = "LIST")]
    pub schedules: Option<String>,
    /// Programs to run, in this order [default: all].
    #[arg(long, value_delimiter = ',')]
    pub programs: Vec<String>,
    /// The constructs of `overheads` [default: all].
    #[arg(long, value_delimiter = ',')]
    pub constructs: Vec<String>,
    /// More arguments for one program, `PROGRAM:key=value[ key=value…]` (repeatable), e.g.
    /// `--set fib:n=30`; they are part of the rows' `params`.
    #[arg(long = "set", value_name = "PROGRAM:ARGS")]
    pub sets: Vec<String>,
    /// The programs' small sizes (a smoke test, not a measurement).
    #[arg(long)]
    pub quick: bool,
    /// Write the report as JSON into FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the markdown summary into FILE (it is printed on stdout too).
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,
    /// Seconds one child may run before it is stopped (and counts as failed).
    #[arg(long, default_value_t = 120)]
    pub timeout: u64,
}

/// An `OMP_SCHEDULE` value: a kind and an optional chunk.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Schedule {
    /// The kind, lower case (`dynamic`, `fac2`).
    pub kind: String,
    /// The chunk, if given.
    pub chunk: Option<u64>,
}

impl Schedule {
    /// Whether every runtime knows it (a standard OpenMP kind).
    pub fn is_standard(&self) -> bool {
        STANDARD_SCHEDULES.contains(&self.kind.as_str())
    }
}

impl fmt::Display for Schedule {
    /// `kind` or `kind,chunk`: the `OMP_SCHEDULE` value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.chunk {
            Some(c) => write!(f, "{},{c}", self.kind),
            None => f.write_str(&self.kind),
        }
    }
}

/// Parses a schedule list: names separated by `;` or `,`, a number after a name being its
/// chunk (`static,dynamic,64;fac2` → static, dynamic,64, fac2). Errors name the bad token and
/// the accepted names.
pub fn parse_schedules(list: &str) -> Result<Vec<Schedule>, String> {
    let mut out: Vec<Schedule> = Vec::new();
    for token in list
        .split([';', ','])
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        if let Ok(chunk) = token.parse::<u64>() {
            match out.last_mut() {
                Some(s) if s.chunk.is_none() && chunk > 0 => s.chunk = Some(chunk),
                Some(s) if s.chunk.is_none() => {
                    return Err(format!(
                        "--schedules: {}: the chunk must be at least 1",
                        s.kind
                    ))
                }
                _ => {
                    return Err(format!(
                        "--schedules: the number {chunk} follows no schedule name"
                    ))
                }
            }
            continue;
        }
        let kind = token.to_ascii_lowercase();
        if !STANDARD_SCHEDULES.contains(&kind.as_str())
            && !MAGPIE_SCHEDULES.contains(&kind.as_str())
        {
            return Err(format!(
                "--schedules: unknown schedule {token} (OpenMP's: {}; magpie's: {})",
                STANDARD_SCHEDULES.join(", "),
                MAGPIE_SCHEDULES.join(", ")
            ));
        }
        out.push(Schedule { kind, chunk: None });
    }
    if out.is_empty() {
        return Err("--schedules: no schedule given".into());
    }
    let mut seen = BTreeSet::new();
    if let Some(dup) = out.iter().find(|s| !seen.insert((*s).clone())) {
        return Err(format!("--schedules: {dup} is given twice"));
    }
    Ok(out)
}

/// One configuration: a program with its arguments and, for a loop application, a schedule.
#[derive(Debug, Clone)]
pub struct Item {
    /// The program.
    pub program: &'static Program,
    /// Its `key=value` arguments (the construct of `overheads`, then `--set`'s).
    pub params: Vec<String>,
    /// The loop application's schedule.
    pub schedule: Option<Schedule>,
}

impl Item {
    /// The arguments as the rows show them, space-separated.
    pub fn params_label(&self) -> String {
        self.params.join(" ")
    }

    /// The runs whose checks must agree: the program with its arguments (any schedule).
    fn check_group(&self) -> String {
        format!("{} {}", self.program.name, self.params_label())
    }

    /// What its rows, ratios and failures at `threads` threads are of.
    pub fn config(&self, threads: usize) -> Config {
        Config {
            program: self.program.name.to_string(),
            params: self.params_label(),
            schedule: self.schedule.as_ref().map(Schedule::to_string),
            threads,
        }
    }

    /// `program [params] [schedule]`, for progress lines and messages.
    fn label(&self) -> String {
        let mut s = self.program.name.to_string();
        for p in &self.params {
            s.push(' ');
            s.push_str(p);
        }
        if let Some(sc) = &self.schedule {
            let _ = write!(s, " OMP_SCHEDULE={sc}");
        }
        s
    }

    /// The runtimes among `available` that run it: magpie's schedules on magpie only.
    pub fn runtimes(&self, available: &[Runtime]) -> Vec<Runtime> {
        available
            .iter()
            .copied()
            .filter(|&r| {
                r == Runtime::Magpie || self.schedule.as_ref().is_none_or(Schedule::is_standard)
            })
            .collect()
    }
}

/// What a row, a ratio or a failure is of: a configuration at a thread count. Its fields
/// come first in their JSON objects.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Config {
    /// The program.
    pub program: String,
    /// Its arguments, as in the rows (space-separated).
    pub params: String,
    /// The loop application's schedule.
    pub schedule: Option<String>,
    /// OMP_NUM_THREADS.
    pub threads: usize,
}

impl Config {
    /// Its four cells of a markdown table row (program, params, schedule, threads).
    fn cells(&self) -> String {
        let schedule = self.schedule.as_deref().unwrap_or("");
        format!(
            "{} | {} | {schedule} | {}",
            self.program, self.params, self.threads
        )
    }
}

/// The configurations to run, in order.
pub fn items(
    programs: &[&'static Program],
    constructs: &[String],
    schedules: &[Schedule],
    sets: &BTreeMap<String, Vec<String>>,
) -> Vec<Item> {
    let mut out = Vec::new();
    for &program in programs {
        let extra = sets.get(program.name).cloned().unwrap_or_default();
        match program.kind {
            Kind::Overheads => {
                for c in constructs {
                    let mut params = vec![format!("construct={c}")];
                    params.extend(extra.iter().cloned());
                    out.push(Item {
                        program,
                        params,
                        schedule: None,
                    });
                }
            }
            Kind::Loop => {
                for s in schedules {
                    out.push(Item {
                        program,
                        params: extra.clone(),
                        schedule: Some(s.clone()),
                    });
                }
            }
            Kind::Tasks => out.push(Item {
                program,
                params: extra,
                schedule: None,
            }),
        }
    }
    out
}

/// Runs the subcommand.
pub fn run(args: &OmpProgramArgs) -> Result<(), String> {
    if args.threads.is_empty() || args.threads.contains(&0) {
        return Err("--threads: thread counts must be at least 1".into());
    }
    let programs: Vec<&'static Program> = if args.programs.is_empty() {
        PROGRAMS.iter().collect()
    } else {
        args.programs
            .iter()
            .map(|name| {
                PROGRAMS.iter().find(|p| p.name == name).ok_or_else(|| {
                    format!(
                        "--programs: unknown program {name} (the programs: {})",
                        PROGRAMS
                            .iter()
                            .map(|p| p.name)
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })
            })
            .collect::<Result<_, _>>()?
    };
    let constructs: Vec<String> = if args.constructs.is_empty() {
        CONSTRUCTS.iter().map(|c| c.to_string()).collect()
    } else {
        for c in &args.constructs {
            if !CONSTRUCTS.contains(&c.as_str()) {
                return Err(format!(
                    "--constructs: unknown construct {c} (the constructs: {})",
                    CONSTRUCTS.join(", ")
                ));
            }
        }
        args.constructs.clone()
    };
    let schedules = parse_schedules(args.schedules.as_deref().unwrap_or(DEFAULT_SCHEDULES))?;
    let mut sets: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for s in &args.sets {
        let (name, rest) = s
            .split_once(':')
            .ok_or_else(|| format!("--set {s}: expected PROGRAM:key=value[ key=value…]"))?;
        if !PROGRAMS.iter().any(|p| p.name == name) {
            return Err(format!("--set {s}: unknown program {name}"));
        }
        for kv in rest.split_whitespace() {
            if !kv.contains('=') || kv.starts_with("construct=") {
                return Err(format!(
                    "--set {s}: {kv} is not key=value (the construct is --constructs')"
                ));
            }
            sets.entry(name.to_string())
                .or_default()
                .push(kv.to_string());
        }
    }
    for p in &programs {
        let bin = args.bin_dir.join(p.name);
        if !bin.is_file() {
            return Err(format!(
                "{}: no such program (scripts/omp-bench.sh builds bench/omp/*.c into {})",
                bin.display(),
                args.bin_dir.display()
            ));
        }
    }
    let setups = setup_runtimes(args)?;
    for (_, info) in &setups {
        match &info.reason {
            Some(why) => eprintln!("omp-program: {}: skipped: {why}", info.runtime),
            None => eprintln!(
                "omp-program: {}: {}",
                info.runtime,
                info.lib.as_deref().unwrap_or("as linked (no preload)")
            ),
        }
    }
    let available: Vec<Runtime> = setups
        .iter()
        .filter(|(_, i)| i.available)
        .map(|(r, _)| *r)
        .collect();
    let preload = |rt: Runtime| -> Option<PathBuf> {
        setups
            .iter()
            .find(|(r, _)| *r == rt)
            .and_then(|(_, i)| i.lib.as_ref().map(PathBuf::from))
    };
    let env = runtime_env();
    if !env.is_empty() {
        eprintln!("omp-program: the children inherit {env}");
    }
    let items = items(&programs, &constructs, &schedules, &sets);
    let timeout = Duration::from_secs(args.timeout);

    type Key = (usize, usize, Runtime);
    let mut samples: BTreeMap<Key, Vec<Sample>> = BTreeMap::new();
    let mut failed: BTreeMap<Key, Failure> = BTreeMap::new();
    // check group → (the first check, who gave it).
    let mut checks: BTreeMap<String, (String, String)> = BTreeMap::new();
    for round in rounds(0, args.rounds) {
        let n = round.number();
        for (ii, item) in items.iter().enumerate() {
            let bin = args.bin_dir.join(item.program.name);
            for &threads in &args.threads {
                let mut order = item.runtimes(&available);
                if order.is_empty() {
                    continue;
                }
                let k = order.len();
                order.rotate_left((n as usize - 1) % k);
                eprint!("{round} {} {threads}t:", item.label());
                for rt in order {
                    let key = (ii, threads, rt);
                    if failed.contains_key(&key) {
                        eprint!(" {rt} (failed before)");
                        continue;
                    }
                    let pre = preload(rt);
                    let who = format!("{rt} ({round}, {threads} thread(s))");
                    let got =
                        run_child(item, &bin, threads, pre.as_deref(), args.quick, n, timeout)
                            .and_then(|s| {
                                let (first, by) = checks
                                    .entry(item.check_group())
                                    .or_insert_with(|| (s.check.clone(), who.clone()));
                                if *first == s.check {
                                    Ok(s)
                                } else {
                                    Err((
                                        format!(
                                            "check {} differs from {first}, which {by} gave",
                                            s.check
                                        ),
                                        s.stderr,
                                    ))
                                }
                            });
                    match got {
                        Ok(s) => {
                            eprint!(" {rt} {:.4}", s.value);
                            samples.entry(key).or_default().push(s);
                        }
                        Err((error, stderr)) => {
                            eprint!(" {rt} FAILED");
                            failed.insert(
                                key,
                                Failure {
                                    config: item.config(threads),
                                    runtime: rt.name(),
                                    round: n,
                                    command: command_line(
                                        item,
                                        &bin,
                                        threads,
                                        pre.as_deref(),
                                        args.quick,
                                    ),
                                    error,
                                    stderr,
                                },
                            );
                        }
                    }
                }
                eprintln!();
            }
        }
    }

    let rows: Vec<Row> = samples
        .iter()
        .filter(|(key, _)| !failed.contains_key(key))
        .map(|(&(ii, threads, rt), s)| summarize(&items[ii], threads, rt, s))
        .collect();
    let ratios = ratios(&rows);
    let (best, best_ratios) = best(&rows);
    let report = Report {
        quick: args.quick,
        rounds: args.rounds,
        threads: args.threads.clone(),
        timeout_s: args.timeout,
        env,
        runtimes: setups.into_iter().map(|(_, i)| i).collect(),
        rows,
        ratios,
        best,
        best_ratios,
        failures: failed.into_values().collect(),
    };
    let md = markdown(&report);
    print!("{md}");
    if let Some(path) = &args.summary {
        std::fs::write(path, &md).map_err(|e| format!("--summary {}: {e}", path.display()))?;
        eprintln!("omp-program: summary written to {}", path.display());
    }
    if let Some(path) = &args.json {
        let json = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        std::fs::write(path, json + "\n").map_err(|e| format!("--json {}: {e}", path.display()))?;
        eprintln!("omp-program: report written to {}", path.display());
    }
    let failed: Vec<String> = report
        .failures
        .iter()
        .map(|f| format!("{} (round {}): {}", f.command, f.round, f.error))
        .collect();
    failures("configuration", &failed)
}

#[cfg(test)]
mod tests;
