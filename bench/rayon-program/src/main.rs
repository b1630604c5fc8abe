//! `rayon-program`: rayon workloads, each run checked, one JSON line per timed run. Built
//! twice by `scripts/rayon-bench.sh` (rayon's own core, and magpie's through a
//! `[patch.crates-io]`) and compared by `magpie-bench rayon-program`.
//!
//! ```text
//! rayon-program WORKLOAD [--quick | --size N] [--threads T] [--reps R] [--warmup W]
//! rayon-program list                 # the workloads: name, unit, full and quick sizes, what
//! rayon-program info [--threads T]   # which rayon-core this binary runs on (one JSON line)
//! ```
//!
//! A run builds the input untimed, then a pool with `ThreadPoolBuilder::num_threads(T)`
//! (without `--threads`: rayon's default, `RAYON_NUM_THREADS` or the CPUs), then inside
//! `pool.install` runs W untimed warm-up runs and R timed ones (defaults 1 and 3), resetting
//! the input untimed before each and checking each result untimed. Each timed run prints
//!
//! ```text
//! {"workload":"sort","size":10000000,"threads":2,"run":1,"seconds":0.61,"cpu_seconds":1.2,
//!  "wall_seconds":0.61,"check":"0x…","core":"rayon"}
//! ```
//!
//! `seconds`: the run's wall time (bursts: the bursts alone, without the sleeps);
//! `wall_seconds`: the whole run's; `cpu_seconds`: user + system time of the whole process
//! (every thread) over the run, from `getrusage(RUSAGE_SELF)`; `check`: the check value
//! (hex), which depends on the workload and size only; `core`: `rayon` or `magpie`, as
//! `info` finds it. A wrong result is one line on stderr and exit status 1; a bad
//! command line, exit status 2.
//!
//! `core` is found at run time, from the code that runs: a broadcast to the pool's workers
//! captures each one's backtrace, whose frames name the functions of the worker loop (those
//! of the crate `magpie` with magpie's core; rayon-core's `registry` with rayon's), and the
//! names of rayon-core's types (`magpie::…` where magpie's core re-exports its own).
//! `info` also prints the crates those frames come from (their source directories) and
//! `locked_core`, what Cargo.lock said when this binary was built (`crates.io` or `path`).

mod workloads;

use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use workloads::{Workload, ALL};

/// What Cargo.lock said about rayon-core when this binary was built (see build.rs).
const LOCKED_CORE: &str = env!("RAYON_PROGRAM_LOCKED_CORE");

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(e)) => {
            eprintln!("rayon-program: error: {e}");
            eprintln!(
                "usage: rayon-program WORKLOAD [--quick | --size N] [--threads T] [--reps R] \
                 [--warmup W] | list | info [--threads T]"
            );
            ExitCode::from(2)
        }
        Err(Failure::Wrong(e)) => {
            eprintln!("rayon-program: error: {e}");
            ExitCode::FAILURE
        }
    }
}

enum Failure {
    /// A bad command line.
    Usage(String),
    /// A wrong result.
    Wrong(String),
}

/// The parsed command line.
struct Options {
    command: String,
    quick: bool,
    size: Option<usize>,
    threads: Option<usize>,
    reps: u32,
    warmup: u32,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        command: String::new(),
        quick: false,
        size: None,
        threads: None,
        reps: 3,
        warmup: 1,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| -> Result<u64, String> {
            let v = it.next().ok_or_else(|| format!("{name} needs a value"))?;
            v.parse()
                .map_err(|_| format!("{name} {v}: not a non-negative integer"))
        };
        match a.as_str() {
            "--quick" => o.quick = true,
            "--size" => o.size = Some(value("--size")? as usize),
            "--threads" => o.threads = Some(value("--threads")? as usize),
            "--reps" => o.reps = value("--reps")? as u32,
            "--warmup" => o.warmup = value("--warmup")? as u32,
            s if s.starts_with('-') => return Err(format!("unknown option {s}")),
            s if o.command.is_empty() => o.command = s.to_string(),
            s => return Err(format!("unexpected argument {s}")),
        }
    }
    if o.command.is_empty() {
        return Err("no workload named".into());
    }
    if o.threads == Some(0) {
        return Err("--threads must be at least 1".into());
    }
    if o.reps == 0 {
        return Err("--reps must be at least 1".into());
    }
    Ok(o)
}

fn run(args: &[String]) -> Result<(), Failure> {
    let o = parse(args).map_err(Failure::Usage)?;
    match o.command.as_str() {
        "list" => {
            for w in ALL {
                println!(
                    "{}\t{}\t{}\t{}\t{}",
                    w.name, w.unit, w.full, w.quick, w.what
                );
            }
            Ok(())
        }
        "info" => {
            let pool = pool(o.threads).map_err(Failure::Usage)?;
            let core = Core::find(&pool);
            println!(
                "{{\"core\":{},\"evidence\":{},\"crates\":[{}],\"locked_core\":{},\"threads\":{}}}",
                json_str(core.name),
                json_str(&core.evidence),
                core.crates
                    .iter()
                    .map(|c| json_str(c))
                    .collect::<Vec<_>>()
                    .join(","),
                json_str(LOCKED_CORE),
                pool.current_num_threads()
            );
            Ok(())
        }
        name => {
            let w = workloads::find(name).ok_or_else(|| {
                Failure::Usage(format!(
                    "unknown workload {name} (known: {}, list, info)",
                    ALL.iter().map(|w| w.name).collect::<Vec<_>>().join(", ")
                ))
            })?;
            measure(w, &o)
        }
    }
}

fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool, String> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        b = b.num_threads(t);
    }
    b.build().map_err(|e| format!("building the pool: {e}"))
}

/// The runs of one workload: warm-ups, then the timed runs, one JSON line each.
fn measure(w: &Workload, o: &Options) -> Result<(), Failure> {
    let size = o.size.unwrap_or(if o.quick { w.quick } else { w.full });
    let mut instance = w.make(size, o.quick);
    let pool = pool(o.threads).map_err(Failure::Usage)?;
    let threads = pool.current_num_threads();
    let core = Core::find(&pool).name;
    for run in 0..o.warmup + o.reps {
        instance.reset();
        let (ran, wall, cpu) = pool.install(|| {
            let cpu0 = cpu_time();
            let t0 = Instant::now();
            let ran = instance.run();
            (ran, t0.elapsed(), cpu_time() - cpu0)
        });
        let check = instance.check(ran.result).map_err(|e| {
            Failure::Wrong(format!(
                "{} (size {size}, {threads} threads, {} {}): wrong result: {e}",
                w.name,
                if run < o.warmup { "warm-up" } else { "run" },
                if run < o.warmup {
                    run + 1
                } else {
                    run - o.warmup + 1
                },
            ))
        })?;
        if run >= o.warmup {
            println!(
                "{{\"workload\":{},\"size\":{size},\"threads\":{threads},\"run\":{},\
                 \"seconds\":{:.6},\"cpu_seconds\":{:.6},\"wall_seconds\":{:.6},\
                 \"check\":\"{check:#x}\",\"core\":{}}}",
                json_str(w.name),
                run - o.warmup + 1,
                ran.busy.unwrap_or(wall).as_secs_f64(),
                cpu.as_secs_f64(),
                wall.as_secs_f64(),
                json_str(core),
            );
        }
    }
    Ok(())
}

/// User + system time of the whole process (every thread) so far.
fn cpu_time() -> Duration {
    // SAFETY: getrusage writes a `rusage` into the zeroed struct it is given; RUSAGE_SELF is
    // always valid.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut ru);
        ru
    };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// Which rayon-core runs this program, found from the running code.
struct Core {
    /// `magpie` or `rayon`.
    name: &'static str,
    /// What showed it.
    evidence: String,
    /// The source directories (crate roots) of the frames of the workers' backtraces, other
    /// than the standard library's and this program's.
    crates: Vec<String>,
}

impl Core {
    fn find(pool: &rayon::ThreadPool) -> Core {
        // The type names: magpie's core re-exports magpie's own join context and scopes.
        let types = [
            std::any::type_name::<rayon::FnContext>(),
            std::any::type_name::<rayon::Scope<'static>>(),
            std::any::type_name::<rayon::BroadcastContext<'static>>(),
            std::any::type_name::<rayon::ThreadPool>(),
        ];
        // The frames below a job on each worker: the worker loop that ran it, each with the
        // source file it was compiled from (the binary keeps line tables; `{:#}` prints the
        // full paths, where the plain format shortens those under the working directory).
        let traces: Vec<String> =
            pool.broadcast(|_| format!("{:#}", std::backtrace::Backtrace::force_capture()));
        let mut crates: Vec<String> = traces
            .iter()
            .flat_map(|t| t.lines())
            .filter_map(|l| l.trim().strip_prefix("at "))
            .filter(|path| path.starts_with('/') && !path.starts_with("/rustc/"))
            .filter_map(|path| Some(path[..path.rfind("/src/")?].to_string()))
            .filter(|root| !root.contains("/rustlib/") && *root != env!("CARGO_MANIFEST_DIR"))
            .collect();
        crates.sort();
        crates.dedup();
        let named = |prefix: &str| -> Vec<String> {
            crates
                .iter()
                .filter(|root| {
                    let last = root.rsplit('/').next().unwrap_or_default();
                    last == prefix || last.starts_with(&format!("{prefix}-"))
                })
                .cloned()
                .collect()
        };
        let (magpie_crates, rayon_crates) = (named("magpie"), named("rayon-core"));
        let magpie_types: Vec<&str> = types
            .iter()
            .copied()
            .filter(|t| t.starts_with("magpie::"))
            .collect();
        let (name, evidence) = if !magpie_crates.is_empty() || !magpie_types.is_empty() {
            (
                "magpie",
                format!(
                    "the workers' frames come from [{}]; magpie's types: [{}]",
                    magpie_crates.join(", "),
                    magpie_types.join(", ")
                ),
            )
        } else if !rayon_crates.is_empty() {
            (
                "rayon",
                format!(
                    "the workers' frames come from [{}], none from magpie; types: [{}]",
                    rayon_crates.join(", "),
                    types.join(", ")
                ),
            )
        } else {
            (
                "unknown",
                format!(
                    "the workers' frames name neither magpie nor rayon-core (crates: [{}]); \
                     types: [{}]",
                    crates.join(", "),
                    types.join(", ")
                ),
            )
        };
        Core {
            name,
            evidence,
            crates,
        }
    }
}

/// `s` as a JSON string.
fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
