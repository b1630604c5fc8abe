//! Running the programs: a child per round under a runtime, its output as a sample, the
//! runtimes' libraries found and checked.

use magpie_measure::process::{describe, run_to_end, JsonLine};
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use super::{Config, Item, Kind, OmpProgramArgs, Program, Runtime};

/// One run, as the program printed it.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The timed round (from 1).
    pub round: u32,
    /// The figure of merit: `overhead_us` for overheads, else `seconds`.
    pub value: f64,
    /// The kernel's wall time.
    pub seconds: f64,
    /// The answer.
    pub check: String,
    /// The library GOMP_parallel resolved to.
    pub omp_lib: String,
    /// What omp_get_schedule said.
    pub schedule_reported: String,
    /// The parameters the program printed.
    pub params: Value,
    /// The child's stderr, trimmed.
    pub stderr: String,
}

/// The one JSON line of a program's stdout, as a sample of `round` (other lines skipped).
pub fn parse_output(stdout: &str, program: &Program, round: u32) -> Result<Sample, String> {
    let lines: Vec<JsonLine> = JsonLine::all(stdout).collect::<Result<_, _>>()?;
    let v = match lines.as_slice() {
        [one] => one,
        [] => return Err("no JSON line on stdout".into()),
        more => return Err(format!("{} JSON lines on stdout, one expected", more.len())),
    };
    let line = v.line();
    if v.text("program")? != program.name {
        return Err(format!("line {line:?}: not {}'s", program.name));
    }
    let seconds = v.num("seconds")?;
    Ok(Sample {
        round,
        value: if program.kind == Kind::Overheads {
            v.num("overhead_us")?
        } else {
            seconds
        },
        seconds,
        check: v.text("check")?,
        omp_lib: v.text("omp_lib")?,
        schedule_reported: v.text("schedule")?,
        params: v.value()["params"].clone(),
        stderr: String::new(),
    })
}

/// Whether a run's `omp_lib` is its runtime's library: libgomp itself, or the preloaded one.
pub fn check_identity(preload: Option<&Path>, omp_lib: &str) -> Result<(), String> {
    match preload {
        None => {
            let name = Path::new(omp_lib)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if name.starts_with("libgomp") {
                Ok(())
            } else {
                Err(format!(
                    "GOMP_parallel resolves to {omp_lib}, not libgomp (an inherited preload?)"
                ))
            }
        }
        Some(lib) => {
            let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
            if real(Path::new(omp_lib)) == real(lib) {
                Ok(())
            } else {
                Err(format!(
                    "LD_PRELOAD={} but GOMP_parallel resolves to {omp_lib}: the preload did \
                     not take effect, or the library does not define GOMP_parallel",
                    lib.display()
                ))
            }
        }
    }
}

/// A runtime's setup: its library to preload, or why it does not run.
#[derive(Debug, Clone, Serialize)]
pub struct RuntimeInfo {
    /// The runtime's name.
    pub runtime: &'static str,
    /// Whether it runs.
    pub available: bool,
    /// The preloaded library (null for libgomp).
    pub lib: Option<String>,
    /// Why it is skipped (null when it runs).
    pub reason: Option<String>,
}

/// `libomp.so` in the usual places of Debian's packages (`/usr/lib/llvm-*/lib`, newest first,
/// then the multiarch directories' `libomp.so` and `libomp.so.5`).
pub fn find_libomp() -> Option<PathBuf> {
    let mut llvm: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let version = name.strip_prefix("llvm-")?.parse::<u32>().ok()?;
            Some((version, e.path().join("lib/libomp.so")))
        })
        .collect();
    llvm.sort_by_key(|v| std::cmp::Reverse(v.0));
    let multiarch = std::fs::read_dir("/usr/lib")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with("-linux-gnu"))
        .flat_map(|e| [e.path().join("libomp.so"), e.path().join("libomp.so.5")]);
    llvm.into_iter()
        .map(|(_, p)| p)
        .chain(multiarch)
        .chain([PathBuf::from("/usr/local/lib/libomp.so")])
        .find(|p| p.is_file())
}

/// Each selected runtime's setup (in `--runtimes` order).
pub(super) fn setup_runtimes(args: &OmpProgramArgs) -> Result<Vec<(Runtime, RuntimeInfo)>, String> {
    let mut out = Vec::new();
    for &rt in &args.runtimes {
        let (lib, reason) = match rt {
            Runtime::Libgomp => (None, None),
            Runtime::Libomp => match args.libomp.as_str() {
                "none" => (None, Some("--libomp none".to_string())),
                "auto" => match find_libomp() {
                    Some(p) => (Some(p), None),
                    None => (
                        None,
                        Some(
                            "no libomp.so under /usr/lib/llvm-*/lib or /usr/lib/*-linux-gnu \
                             (Debian: apt-get install libomp-dev)"
                                .to_string(),
                        ),
                    ),
                },
                path => {
                    let p = PathBuf::from(path);
                    if !p.is_file() {
                        return Err(format!("--libomp {path}: no such file"));
                    }
                    (Some(p), None)
                }
            },
            Runtime::Magpie => {
                if args.magpie_lib.is_file() {
                    (Some(args.magpie_lib.clone()), None)
                } else {
                    (
                        None,
                        Some(format!(
                            "{} does not exist (cargo build --release -p magpie-omp)",
                            args.magpie_lib.display()
                        )),
                    )
                }
            }
        };
        // An absolute path: LD_PRELOAD is read by the child, whatever its directory.
        let lib = lib.map(|p| std::fs::canonicalize(&p).unwrap_or(p));
        out.push((
            rt,
            RuntimeInfo {
                runtime: rt.name(),
                available: reason.is_none(),
                lib: lib.as_ref().map(|p| p.display().to_string()),
                reason,
            },
        ));
    }
    Ok(out)
}

/// The variables the children inherit that can change a runtime's behaviour.
pub(super) fn runtime_env() -> String {
    let mut vars: Vec<String> = std::env::vars()
        .filter(|(k, _)| {
            ["OMP_", "GOMP_", "KMP_", "MAGPIE_"]
                .iter()
                .any(|p| k.starts_with(p))
                && k != "OMP_NUM_THREADS"
                && k != "OMP_SCHEDULE"
        })
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    vars.sort();
    vars.join(" ")
}

/// A failed child.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    /// The program, its arguments, its schedule and OMP_NUM_THREADS.
    #[serde(flatten)]
    pub config: Config,
    /// The runtime.
    pub runtime: &'static str,
    /// The round it failed in.
    pub round: u32,
    /// The environment it was given and its command line.
    pub command: String,
    /// What went wrong.
    pub error: String,
    /// Its stderr (the last 4,000 characters).
    pub stderr: String,
}

/// The last `max` characters of `s`, trimmed.
pub(super) fn tail(s: &str, max: usize) -> String {
    let s = s.trim();
    let n = s.chars().count();
    if n <= max {
        s.to_string()
    } else {
        let cut: String = s.chars().skip(n - max).collect();
        format!("…{cut}")
    }
}

/// A child's environment (`OMP_NUM_THREADS`, the item's `OMP_SCHEDULE`, the runtime's
/// `LD_PRELOAD`) and arguments (the item's parameters, then `--quick`): what [`run_child`]
/// runs and [`command_line`] reports.
fn child_setup(
    item: &Item,
    threads: usize,
    preload: Option<&Path>,
    quick: bool,
) -> (Vec<(&'static str, String)>, Vec<String>) {
    let mut env = vec![("OMP_NUM_THREADS", threads.to_string())];
    if let Some(s) = &item.schedule {
        env.push(("OMP_SCHEDULE", s.to_string()));
    }
    if let Some(p) = preload {
        env.push(("LD_PRELOAD", p.display().to_string()));
    }
    let mut argv = item.params.clone();
    if quick {
        argv.push("--quick".into());
    }
    (env, argv)
}

/// One child: `bin PARAMS [--quick]` with the runtime's environment; its sample or what went
/// wrong (the error, its stderr).
pub(super) fn run_child(
    item: &Item,
    bin: &Path,
    threads: usize,
    preload: Option<&Path>,
    quick: bool,
    round: u32,
    timeout: Duration,
) -> Result<Sample, (String, String)> {
    let (env, argv) = child_setup(item, threads, preload, quick);
    let mut cmd = Command::new(bin);
    cmd.args(&argv)
        .env_remove("OMP_NUM_THREADS")
        .env_remove("OMP_SCHEDULE")
        .env_remove("LD_PRELOAD")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())));
    let done = run_to_end(&mut cmd, timeout)
        .map_err(|e| (format!("cannot run it: {e}"), String::new()))?;
    let stderr = tail(&done.stderr, 4000);
    match done.status {
        Some(s) if s.success() => {}
        Some(s) => return Err((describe(s), stderr)),
        None => return Err((format!("stopped after {} s", timeout.as_secs()), stderr)),
    }
    let mut sample =
        parse_output(&done.stdout, item.program, round).map_err(|e| (e, stderr.clone()))?;
    check_identity(preload, &sample.omp_lib).map_err(|e| (e, stderr.clone()))?;
    sample.stderr = stderr;
    Ok(sample)
}

/// The command line of a child, with its environment, for failure reports.
pub(super) fn command_line(
    item: &Item,
    bin: &Path,
    threads: usize,
    preload: Option<&Path>,
    quick: bool,
) -> String {
    let (env, argv) = child_setup(item, threads, preload, quick);
    let mut words: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();
    words.push(bin.display().to_string());
    words.extend(argv);
    words.join(" ")
}
