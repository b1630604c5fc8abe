//! The children: app specs as CLI arguments, starting a child under `mpirun` (or a shell),
//! and the JSON line it prints.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use magpie_measure::process;
use serde_json::Value;

use super::{DistributedArgs, BUILD_COMMAND};

/// How one child reports: a search or a distributed loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Search,
    Loop,
}

/// What one run reported.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Sample {
    pub(crate) time: f64,
    pub(crate) expanded: Option<f64>,
    pub(crate) cov: Option<f64>,
    pub(crate) steals: Option<f64>,
}

/// Parses the JSON object a child printed (the last stdout line that is one).
pub(crate) fn parse_output(kind: Kind, stdout: &str) -> Result<Sample, String> {
    let value: Value = stdout
        .lines()
        .rev()
        .map(str::trim)
        .filter(|l| l.starts_with('{'))
        .find_map(|l| serde_json::from_str(l).ok())
        .ok_or_else(|| "no JSON object on stdout".to_string())?;
    let num = |field: &str| -> Result<f64, String> {
        value
            .get(field)
            .and_then(Value::as_f64)
            .ok_or_else(|| format!("the JSON has no number `{field}`"))
    };
    match kind {
        Kind::Search => Ok(Sample {
            time: num("seconds")?,
            expanded: Some(num("expanded")?),
            cov: value.get("nodes_cov").and_then(Value::as_f64),
            steals: None,
        }),
        Kind::Loop => {
            let ranks = value
                .get("ranks")
                .and_then(Value::as_array)
                .ok_or("the JSON has no array `ranks`")?;
            let steals = ranks
                .iter()
                .map(|r| r.get("steals_ok").and_then(Value::as_f64))
                .sum::<Option<f64>>();
            Ok(Sample {
                time: num("time_s")?,
                expanded: None,
                cov: Some(num("cov")?),
                steals,
            })
        }
    }
}

/// An app: its label and the CLI arguments that run it (without ranks/workers/policy).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct App {
    pub(super) label: String,
    pub(super) args: Vec<String>,
}

/// An `--overhead-shapes` shape, `RANKSxWORKERS` (each at least 1): `4x4`.
pub(super) fn parse_shape(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("{s:?}: expected RANKSxWORKERS, two whole numbers of at least 1 (4x4)");
    let (r, w) = s.split_once(['x', 'X', '×']).ok_or_else(bad)?;
    let (r, w): (u32, u32) = (
        r.trim().parse().map_err(|_| bad())?,
        w.trim().parse().map_err(|_| bad())?,
    );
    if r == 0 || w == 0 {
        return Err(bad());
    }
    Ok((r, w))
}

/// Parses an app spec (see the module doc) into its CLI arguments.
pub(super) fn parse_app(
    spec: &str,
    budget: Option<u64>,
    spawn_depth: u32,
    instance_dir: &Path,
) -> Result<App, String> {
    let s = |x: &str| x.to_string();
    let budget_args = || {
        let mut v = vec![s("--skeleton"), s("budget")];
        if let Some(b) = budget {
            v.extend([s("--budget"), b.to_string()]);
        }
        v
    };
    let mut args = if let Some(rest) = spec.strip_prefix("uts-") {
        let mut a = vec![s("search"), s("uts")];
        match rest.strip_prefix('d').map(str::parse::<u32>) {
            Some(Ok(depth)) => a.extend([s("--flags"), format!("-t 1 -a 3 -d {depth} -b 4 -r 19")]),
            _ if !rest.is_empty() => a.extend([s("--tree"), s(rest)]),
            _ => return Err(format!("app `{spec}`: uts-NAME or uts-dDEPTH")),
        }
        a.extend(budget_args());
        a
    } else if let Some(rest) = spec.strip_prefix("ns-") {
        let genus: u32 = rest
            .parse()
            .map_err(|_| format!("app `{spec}`: ns-GENUS, e.g. ns-34"))?;
        let mut a = vec![s("search"), s("ns"), s("--genus"), genus.to_string()];
        a.extend(budget_args());
        a
    } else {
        let name = spec.strip_prefix("maxclique-").unwrap_or(spec);
        if name.is_empty() || name.contains('/') {
            return Err(format!(
                "app `{spec}`: not uts-…, ns-… or a DIMACS graph name"
            ));
        }
        let relative = format!("dimacs/{name}.clq");
        let path = instance_dir.join(&relative);
        if !path.is_file() {
            return Err(format!(
                "app `{spec}` (apps: uts-NAME, uts-dD, ns-G, a graph name): {}",
                magpie_apps::instances::missing(&relative, &path)
            ));
        }
        vec![
            s("search"),
            s("maxclique"),
            path.display().to_string(),
            s("--skeleton"),
            s("depth-bounded"),
            s("--spawn-depth"),
            spawn_depth.to_string(),
        ]
    };
    args.push(s("--distributed"));
    Ok(App {
        label: spec.to_string(),
        args,
    })
}

/// How children are started (also by `reproduce lb4omp`).
pub(crate) struct Launcher {
    pub(super) mpirun: String,
    pub(super) bin: PathBuf,
    pub(super) as_root: bool,
    pub(super) timeout: Duration,
    /// The inherited `MAGPIE_*` variables, removed from every child.
    pub(super) remove_env: Vec<OsString>,
}

impl Launcher {
    pub(super) fn new(args: &DistributedArgs) -> Result<Launcher, String> {
        Launcher::with(args.mpirun.clone(), Duration::from_secs(args.timeout))
    }

    /// The launcher of `mpirun` (the program) with a `timeout` per child.
    pub(crate) fn with(mpirun: String, timeout: Duration) -> Result<Launcher, String> {
        let bin = match std::env::var_os("MAGPIE_BIN") {
            Some(b) => PathBuf::from(b),
            None => std::env::current_exe()
                .map_err(|e| format!("cannot locate this executable: {e}"))?
                .with_file_name("magpie"),
        };
        if !bin.is_file() {
            return Err(format!(
                "no magpie binary at {} (set MAGPIE_BIN, or build it with `{BUILD_COMMAND}`)",
                bin.display()
            ));
        }
        // The runtime's variables (even if set only later), and every other `MAGPIE_*`
        // variable this process inherited (such as the CLI's fault injection).
        let mut remove_env: Vec<OsString> = magpie::ThreadPoolBuilder::ENV_VARS
            .iter()
            .map(OsString::from)
            .collect();
        remove_env.extend(
            std::env::vars_os()
                .map(|(k, _)| k)
                .filter(|k| k.to_string_lossy().starts_with("MAGPIE_")),
        );
        Ok(Launcher {
            mpirun,
            bin,
            // SAFETY: geteuid has no preconditions and cannot fail.
            as_root: unsafe { libc::geteuid() } == 0,
            timeout,
            remove_env,
        })
    }

    /// The argument vector (after `mpirun`) of `tail` at `ranks` × `workers`. `--bind-to
    /// none`: Open MPI binds each rank to one core when there are at most 2 ranks, which
    /// would run the 1 rank × 2 workers contender on one core (measured: 2× slower).
    pub(crate) fn argv(&self, ranks: u32, workers: u32, tail: &[String]) -> Vec<String> {
        let mut v = vec![
            "--oversubscribe".to_string(),
            "--bind-to".into(),
            "none".into(),
        ];
        if self.as_root {
            v.push("--allow-run-as-root".into());
        }
        v.extend(["-np".into(), ranks.to_string()]);
        v.push(self.bin.display().to_string());
        v.extend(tail.iter().cloned());
        v.extend(["--workers".into(), workers.to_string(), "--json".into()]);
        v
    }

    /// The child's command (the harness puts it in a process group of its own, so that
    /// stopping it stops everything it started).
    pub(super) fn command(&self, argv: &[String]) -> Command {
        let mut c = Command::new(&self.mpirun);
        c.args(argv);
        for k in &self.remove_env {
            c.env_remove(k);
        }
        c
    }

    pub(crate) fn show(&self, argv: &[String]) -> String {
        std::iter::once(&self.mpirun)
            .chain(argv)
            .map(|a| {
                if a.is_empty() || a.contains([' ', '\'', '"', '%', '$']) {
                    format!("'{}'", a.replace('\'', r"'\''"))
                } else {
                    a.clone()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Runs one child to the end (or the timeout); its stdout, or an error with its exit
    /// status and the end of its stderr.
    pub(crate) fn run(&self, argv: &[String]) -> Result<String, String> {
        let finished = process::run_to_end(&mut self.command(argv), self.timeout)
            .map_err(|e| format!("cannot start {}: {e}", self.mpirun))?;
        let tail = stderr_tail(&finished.stderr);
        match finished.status {
            None => Err(format!(
                "killed after the --timeout of {} s{tail}",
                self.timeout.as_secs()
            )),
            Some(s) if !s.success() => Err(format!("exited with {s}{tail}")),
            Some(_) => Ok(finished.stdout),
        }
    }

    /// A tiny job, so that a missing or MPI-less binary fails once, clearly.
    pub(crate) fn preflight(&self) -> Result<(), String> {
        let tail: Vec<String> = ["search", "ns", "--genus", "8", "--skeleton", "budget"]
            .iter()
            .map(|s| s.to_string())
            .chain(["--distributed".to_string()])
            .collect();
        let argv = self.argv(1, 1, &tail);
        match self
            .run(&argv)
            .and_then(|out| parse_output(Kind::Search, &out))
        {
            Ok(_) => Ok(()),
            Err(e) if e.contains("without MPI") || e.contains("--features mpi") => Err(format!(
                "{} was built without MPI: build it with `{BUILD_COMMAND}` ({e})",
                self.bin.display()
            )),
            Err(e) => Err(format!(
                "the check job `{}` failed: {e}\n(the suite needs the MPI build of magpie: \
                 `{BUILD_COMMAND}`)",
                self.show(&argv)
            )),
        }
    }
}

/// A few lines of a child's stderr, for an error message: the lines that say `error`
/// (the CLI's own message, not mpirun's banner about it) if any, else the last lines that
/// are not rules of dashes.
pub(super) fn stderr_tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.chars().all(|c| c == '-'))
        .collect();
    let errors: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.to_ascii_lowercase().contains("error"))
        .collect();
    // Every rank may print the same error: each once.
    let mut errors: Vec<&str> = errors
        .iter()
        .enumerate()
        .filter(|&(i, l)| !errors[..i].contains(l))
        .map(|(_, &l)| l)
        .collect();
    errors.truncate(4);
    let shown = if errors.is_empty() {
        &lines[lines.len().saturating_sub(6)..]
    } else {
        &errors[..]
    };
    if shown.is_empty() {
        String::new()
    } else {
        format!("; stderr: {}", shown.join(" | "))
    }
}
