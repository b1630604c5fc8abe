//! `magpie omp [--lib PATH] -- PROG ARGS…`: runs an unchanged OpenMP program (built with
//! `gcc -fopenmp`, `g++` or `gfortran`) on libmagpie_omp, magpie's implementation of the GNU
//! OpenMP runtime ABI (crates/magpie-omp, docs/openmp.md), and the `omp` line of `info`.
//!
//! The library is `--lib PATH`, else `$MAGPIE_OMP_LIB`, else `libmagpie_omp.so` next to the
//! `magpie` executable (both are in `target/<profile>/`). The program runs in one of two
//! forms:
//!
//! - **the libgomp.so.1 form**, when `magpie-omp/libgomp.so.1` lies next to the library
//!   (crates/magpie-omp/build.rs links it): `LD_LIBRARY_PATH` starts with that folder, so
//!   the loader takes it for GCC's `libgomp.so.1`; it defines libgomp's symbol version nodes
//!   and loads the library beside it, which every OpenMP call binds to. GCC's libgomp is not
//!   loaded at all, so nothing of it reads `OMP_SCHEDULE` (no "libgomp: Unknown value" line
//!   for magpie's schedule names);
//! - **the `LD_PRELOAD` form** otherwise: the library is preloaded; the calls bind to it,
//!   but GCC's libgomp is still loaded beside it.
//!
//! `magpie` then replaces itself with the program (`exec`), so the program's exit status,
//! or the signal that ended it, is the command's. The global pool options become the
//! library's variables: `--workers N` sets `OMP_NUM_THREADS`, `--deque`, `--victims`,
//! `--idle`, `--signal` and `--join-limit` set their `MAGPIE_*` variables.

use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use crate::config::{Config, Flags, Source};

/// The library's file name, as cargo builds it.
pub const LIB_NAME: &str = "libmagpie_omp.so";
/// The folder next to the library that holds the libgomp.so.1 form.
pub const SHIM_DIR: &str = "magpie-omp";
/// The libgomp.so.1 form's file name: the name OpenMP binaries ask the loader for.
pub const SHIM_NAME: &str = "libgomp.so.1";
/// The variable naming the library (a file, or a folder holding `libmagpie_omp.so`).
pub const LIB_ENV: &str = "MAGPIE_OMP_LIB";

/// The text after `magpie omp --help`.
pub const AFTER_HELP: &str = "\
Examples:
  cargo build --release -p magpie-omp
  gcc -O2 -fopenmp prog.c -o prog
  OMP_SCHEDULE=fac2 OMP_NUM_THREADS=4 magpie omp -- ./prog ARGS
  magpie --deque lcws-signal omp -v -- ./prog

The libgomp.so.1 form (used when target/<profile>/magpie-omp/libgomp.so.1 exists, as
`cargo build -p magpie-omp` makes it): LD_LIBRARY_PATH=<that folder>, GCC's libgomp is
not loaded. Otherwise: LD_PRELOAD=<the library>. docs/openmp.md has both.

Exit status: the program's own (magpie execs it); 2 when magpie cannot set it up (no
library, bad options), 127 when PROG is not found, 126 when it cannot be run.";

/// `magpie omp`'s options.
#[derive(Debug, clap::Args)]
pub struct OmpArgs {
    /// The library: a libmagpie_omp.so, or a folder holding one [env: MAGPIE_OMP_LIB]
    /// [default: libmagpie_omp.so next to the magpie executable]
    #[arg(long, value_name = "PATH")]
    lib: Option<PathBuf>,

    /// Print the form, the library and the variables set (one line on stderr) before
    /// running PROG
    #[arg(short, long)]
    verbose: bool,

    /// The program and its arguments (after `--`, or from the first word not an option)
    #[arg(
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "PROG ARGS"
    )]
    command: Vec<OsString>,
}

/// How the library was chosen (for messages and `info`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    Flag,
    Env,
    Exe,
}

impl Origin {
    fn describe(self) -> &'static str {
        match self {
            Origin::Flag => "--lib",
            Origin::Env => LIB_ENV,
            Origin::Exe => "next to magpie",
        }
    }
}

/// The library found, and its libgomp.so.1 form if it has one.
#[derive(Debug)]
struct Runtime {
    /// The absolute path of the library.
    lib: PathBuf,
    /// The folder holding `libgomp.so.1` whose `$ORIGIN/..` run path loads `lib`.
    shim_dir: Option<PathBuf>,
    origin: Origin,
}

/// Finds the library: `flag` (`--lib`), else `$MAGPIE_OMP_LIB`, else next to the running
/// executable. The error is the one line to print (after `magpie: error: `).
fn locate(flag: Option<&Path>) -> Result<Runtime, String> {
    let env = std::env::var_os(LIB_ENV).filter(|v| !v.is_empty());
    let (given, origin) = match (flag, env) {
        (Some(p), _) => (p.to_path_buf(), Origin::Flag),
        (None, Some(v)) => (PathBuf::from(v), Origin::Env),
        (None, None) => {
            let exe = std::env::current_exe()
                .map_err(|e| format!("omp: cannot find the magpie executable: {e}"))?;
            let dir = exe.parent().unwrap_or(Path::new("/"));
            let lib = dir.join(LIB_NAME);
            if !lib.is_file() {
                return Err(format!(
                    "omp: {LIB_NAME} is not built: {} does not exist; build it with `{}` (or \
                     name one with --lib or {LIB_ENV})",
                    lib.display(),
                    build_command(dir)
                ));
            }
            (lib, Origin::Exe)
        }
    };
    let lib = if given.is_dir() {
        given.join(LIB_NAME)
    } else {
        given.clone()
    };
    if !lib.is_file() {
        let named = match origin {
            Origin::Flag => format!("--lib {}", given.display()),
            _ => format!("{LIB_ENV}={}", given.display()),
        };
        let what = if given.is_dir() {
            format!("no {LIB_NAME} in it")
        } else {
            "no such file".into()
        };
        return Err(format!(
            "omp: {named}: {what}; build the library with `cargo build --release -p \
             magpie-omp` (target/release/{LIB_NAME})"
        ));
    }
    let lib = std::path::absolute(&lib).map_err(|e| format!("omp: {}: {e}", lib.display()))?;
    Ok(Runtime {
        shim_dir: shim_dir(&lib),
        lib,
        origin,
    })
}

/// The folder of `lib`'s libgomp.so.1 form, if it has one that loads `lib` itself: the shim
/// finds `libmagpie_omp.so` in its parent folder (run path `$ORIGIN/..`), so the library
/// must carry that name; and the folder must be writable into `LD_LIBRARY_PATH` (no `:`).
fn shim_dir(lib: &Path) -> Option<PathBuf> {
    if lib.file_name() != Some(OsStr::new(LIB_NAME)) {
        return None;
    }
    let dir = lib.parent()?.join(SHIM_DIR);
    let usable =
        dir.join(SHIM_NAME).is_file() && !dir.as_os_str().as_encoded_bytes().contains(&b':');
    usable.then_some(dir)
}

/// The cargo command that builds the library for the profile whose output folder is `dir`
/// (`target/release`, `target/debug`, `target/<profile>`); the release build elsewhere.
fn build_command(dir: &Path) -> String {
    let in_target = |d: &Path| d.parent().is_some_and(|t| t.join("CACHEDIR.TAG").is_file());
    let profile = dir
        .file_name()
        .and_then(OsStr::to_str)
        .filter(|_| in_target(dir));
    match profile {
        Some("debug") => "cargo build -p magpie-omp".into(),
        Some(p) if p != "release" => format!("cargo build --profile {p} -p magpie-omp"),
        _ => "cargo build --release -p magpie-omp".into(),
    }
}

/// `value` in front of the list in variable `var` (separated by `sep`), if it has one.
fn prepend(var: &str, value: &OsStr, sep: &str) -> OsString {
    let mut v = value.to_owned();
    if let Some(old) = std::env::var_os(var).filter(|o| !o.is_empty()) {
        v.push(sep);
        v.push(old);
    }
    v
}

/// The library's variables for the global pool options given as flags: the library reads
/// `OMP_NUM_THREADS` and `MAGPIE_*` itself, so options from the environment pass unchanged.
fn pool_env(flags: &Flags, config: &Config) -> Vec<(&'static str, OsString)> {
    let mut env = Vec::new();
    if matches!(config.workers.source, Source::Flag(_)) {
        env.push(("OMP_NUM_THREADS", config.workers.value.to_string().into()));
    }
    for (flag, var) in [
        (&flags.deque, "MAGPIE_DEQUE"),
        (&flags.victims, "MAGPIE_VICTIMS"),
        (&flags.idle, "MAGPIE_IDLE"),
        (&flags.signal, "MAGPIE_SIGNAL"),
        (&flags.join_limit, "MAGPIE_JOIN_LIMIT"),
    ] {
        if let Some(v) = flag {
            env.push((var, v.trim().into()));
        }
    }
    env
}

/// Runs `magpie omp`: sets up the environment and replaces this process with the program.
/// Returns only when that fails.
pub fn run(args: &OmpArgs, flags: &Flags, config: &Config) -> ExitCode {
    let fail = |msg: String, code: u8| {
        eprintln!("magpie: error: {msg}");
        ExitCode::from(code)
    };
    let rt = match locate(args.lib.as_deref()) {
        Ok(rt) => rt,
        Err(e) => return fail(e, 2),
    };
    let (prog, prog_args) = args.command.split_first().expect("clap requires PROG");
    let mut env = pool_env(flags, config);
    let form = match &rt.shim_dir {
        Some(dir) => {
            env.push((
                "LD_LIBRARY_PATH",
                prepend("LD_LIBRARY_PATH", dir.as_os_str(), ":"),
            ));
            "the libgomp.so.1 form"
        }
        None => {
            let bytes = rt.lib.as_os_str().as_encoded_bytes();
            if bytes.iter().any(|b| matches!(b, b':' | b' ')) {
                return fail(
                    format!(
                        "omp: {}: LD_PRELOAD cannot name a path with ':' or ' '; move the \
                         library, or build its libgomp.so.1 form beside it",
                        rt.lib.display()
                    ),
                    2,
                );
            }
            env.push(("LD_PRELOAD", prepend("LD_PRELOAD", rt.lib.as_os_str(), ":")));
            "LD_PRELOAD"
        }
    };
    if args.verbose {
        let vars: Vec<String> = env
            .iter()
            .map(|(k, v)| format!("{k}={}", v.to_string_lossy()))
            .collect();
        eprintln!(
            "magpie: omp: {} on {} ({}) as {form}: {}",
            prog.to_string_lossy(),
            rt.lib.display(),
            rt.origin.describe(),
            vars.join(" ")
        );
    }
    let err = Command::new(prog).args(prog_args).envs(env).exec();
    let code = if err.kind() == std::io::ErrorKind::NotFound {
        127
    } else {
        126
    };
    fail(
        format!("omp: cannot run {}: {err}", prog.to_string_lossy()),
        code,
    )
}

/// The `omp` line of `magpie info`: the library `magpie omp` would use and its form, or why
/// there is none (and what to build).
pub fn info_line() -> String {
    match locate(None) {
        Ok(rt) => {
            let form = match &rt.shim_dir {
                Some(d) => format!("libgomp.so.1 form in {}", d.display()),
                None => "LD_PRELOAD only: no magpie-omp/libgomp.so.1 beside it".into(),
            };
            format!(
                "{:<20} ({}; {form})",
                rt.lib.display(),
                rt.origin.describe()
            )
        }
        Err(e) => e.strip_prefix("omp: ").unwrap_or(&e).to_string(),
    }
}
