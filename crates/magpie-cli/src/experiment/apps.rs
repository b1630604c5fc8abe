//! The applications of `magpie experiment`: parsing `--app NAME [FILE] [options]` from the
//! command line, and the hidden `experiment run-one` that prepares one, waits at the
//! barrier, solves it once and prints one JSON line.
//!
//! An application is carried as its tokens (`uts --tree T1`, as `magpie search` would take
//! them, `mandelbrot --width 400 --schedule fac2`, as `magpie loop` would, or `quicksort
//! --size 1000000`): the parent parses and validates them, then hands the same tokens to
//! every child after `run-one --`. A loop application's schedule comes from the
//! configuration (`--schedule`, an axis of the matrix), added to its tokens by the runner.

use std::time::Instant;

use clap::{ArgMatches, Parser};
use magpie::ThreadPool;
use magpie::WorkerStats;
use magpie_apps::join::{Magpie, Rayon, Sequential};
use magpie_apps::registry::{self, Engine, Goal};
use magpie_apps::{lu, sssp};
use serde::{Deserialize, Serialize};

use super::matrix::Peer;
use super::RunOneArgs;
use crate::config::{Config, ConfigError};
use crate::error::{check, usage, Failure};
use crate::loops::{self, LoopArgs};
use crate::search::{self, Prepared, SearchArgs, DEFAULT_SPAWN_DEPTH};

/// The kernels, as named after `--app` (neither a search nor a loop application), each with
/// its options (each option takes a value).
const KERNELS: [(&str, &[&str]); 5] = [
    ("quicksort", &["--size", "--data"]),
    ("prefix-sum", &["--size", "--data"]),
    ("fib", &["--n"]),
    ("lu", &["--n", "--block", "--seed"]),
    ("sssp", &["--graph", "--size", "--seed", "--priorities"]),
];

/// The kernels' names.
fn kernel_names() -> impl Iterator<Item = &'static str> {
    KERNELS.iter().map(|k| k.0)
}

/// The applications, as named after `--app`: the search applications of the registry
/// ([`magpie_apps::registry`]), the kernels, the loop applications.
pub fn app_names() -> Vec<&'static str> {
    let mut names = registry::names(|_| true);
    names.extend(kernel_names());
    names.extend(loops::APPS);
    names
}

/// The vertices of sssp's graph without `--size` (its tasks without priorities relax a
/// vertex many times over: keep it small for `--priorities off`).
pub const DEFAULT_SSSP_SIZE: usize = 100_000;
/// The elements of quicksort and prefix-sum without `--size`.
pub const DEFAULT_SIZE: usize = 10_000_000;
/// The largest `--n` of lu: three 8192² matrices of doubles are 1.5 GiB.
const MAX_LU_N: usize = 8192;
/// fib's argument without `--n`.
pub const DEFAULT_FIB: u64 = 30;
/// The largest `--n` of fib: fib(93) is the largest Fibonacci number in a u64.
const MAX_FIB: u64 = 93;
/// The seed of the random inputs of quicksort and prefix-sum (every run sorts the same keys),
/// and of lu's matrix without `--seed`.
pub const SEED: u64 = 2026;

/// The input of quicksort (`--data`, default uniform) or prefix-sum (default ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Data {
    /// Seeded random `u64`s over the whole range.
    Uniform,
    /// Seeded standard normal doubles, sorted as their order-preserving keys
    /// ([`magpie_apps::gaussian_u64s`]): the Pheet thesis' quicksort input.
    Gaussian,
    /// Every element 1: the Pheet thesis' prefix-sum input (the sums are `1..=n`).
    Ones,
}

impl Data {
    /// The `--data` values of kernel `app`, its default first.
    fn choices(app: &str) -> &'static [(&'static str, Data)] {
        if app == "quicksort" {
            &[("uniform", Data::Uniform), ("gaussian", Data::Gaussian)]
        } else {
            &[("ones", Data::Ones), ("uniform", Data::Uniform)]
        }
    }
}

/// The application options of `policies` other than the search applications' own (those
/// are the registry's, [`registry::app_options`]): clap id, flag, whether it takes a value.
const OPTIONS: [(&str, &str, bool); 24] = [
    ("skeleton", "--skeleton", true),
    ("spawn_depth", "--spawn-depth", true),
    ("budget", "--budget", true),
    ("steal_all", "--steal-all", false),
    ("order", "--order", true),
    ("max_depth", "--max-depth", true),
    ("size", "--size", true),
    ("steps", "--steps", true),
    ("width", "--width", true),
    ("height", "--height", true),
    ("max_iter", "--max-iter", true),
    ("dist", "--dist", true),
    ("iterations", "--iterations", true),
    ("mean_units", "--mean-units", true),
    ("buckets", "--buckets", true),
    ("skew", "--skew", true),
    ("rows", "--rows", true),
    ("cols", "--cols", true),
    ("min_len", "--min-len", true),
    ("alpha", "--alpha", true),
    ("data", "--data", true),
    ("block", "--block", true),
    ("graph", "--graph", true),
    ("priorities", "--priorities", true),
];

/// What an application is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// One of `magpie search`'s (its tokens are `SearchArgs`).
    Search,
    Quicksort {
        size: usize,
        data: Data,
    },
    PrefixSum {
        size: usize,
        data: Data,
    },
    Fib {
        n: u64,
    },
    Lu {
        n: usize,
        block: usize,
        seed: u64,
    },
    Sssp {
        graph: sssp::GraphKind,
        size: usize,
        seed: u64,
        priorities: sssp::Priorities,
    },
    /// One of `magpie loop`'s (its tokens are `LoopArgs`).
    Loop,
}

/// One application of an experiment.
#[derive(Debug, Clone)]
pub struct App {
    /// The tokens as one string (`uts --tree T1`): the application's name in reports.
    pub label: String,
    /// The application (`uts`).
    pub name: String,
    /// `NAME [FILE] [options]`, as passed to `run-one`.
    pub tokens: Vec<String>,
    /// A loop application's schedule, canonical (`None` for the others).
    pub schedule: Option<String>,
    kind: Kind,
}

/// A clap front for `SearchArgs` given as tokens.
#[derive(Debug, Parser)]
#[command(name = "app", no_binary_name = true, disable_help_flag = true)]
struct SearchTokens {
    #[command(flatten)]
    args: SearchArgs,
}

/// A clap front for `LoopArgs` given as tokens.
#[derive(Debug, Parser)]
#[command(name = "app", no_binary_name = true, disable_help_flag = true)]
struct LoopTokens {
    #[command(flatten)]
    args: LoopArgs,
}

/// The first line of a clap error, without its `error: ` prefix.
fn clap_line(e: &clap::Error) -> String {
    let text = e.to_string();
    let first = text.lines().next().unwrap_or("").trim();
    first.strip_prefix("error: ").unwrap_or(first).to_string()
}

/// `word`, quoted if it is empty or has spaces (for labels).
fn shell_word(word: &str) -> String {
    if word.is_empty() || word.chars().any(char::is_whitespace) {
        format!("{word:?}")
    } else {
        word.to_string()
    }
}

/// The applications of `policies`, each with the options that follow its `--app`.
pub fn from_matches(m: &ArgMatches) -> Result<Vec<App>, Failure> {
    let values: Vec<Vec<String>> = m
        .get_occurrences::<String>("app")
        .map(|o| o.map(|v| v.map(String::clone).collect()).collect())
        .unwrap_or_default();
    let indices: Vec<usize> = m
        .indices_of("app")
        .map(Iterator::collect)
        .unwrap_or_default();
    // Each occurrence's values have consecutive indices: the first one is its position.
    let mut starts = Vec::new();
    let mut at = 0;
    for v in &values {
        starts.push(indices[at]);
        at += v.len();
    }
    let mut tokens: Vec<Vec<String>> = values;
    let mut events: Vec<(usize, &str, Option<String>)> = Vec::new();
    let own = registry::app_options()
        .iter()
        .map(|o| (search::app_flags::id(o.flag), o.flag, o.value.is_some()));
    for (id, flag, takes_value) in OPTIONS.into_iter().chain(own) {
        let (Some(idx), Some(vals)) = (m.indices_of(id), m.get_many::<String>(id)) else {
            continue;
        };
        for (i, v) in idx.zip(vals) {
            events.push((i, flag, takes_value.then(|| v.clone())));
        }
    }
    events.sort_by_key(|e| e.0);
    for (index, flag, value) in events {
        let Some(app) = starts.iter().rposition(|&s| s < index) else {
            return usage(format!(
                "{flag} must follow the --app it belongs to (application options come after \
                 their --app NAME)"
            ));
        };
        tokens[app].push(flag.to_string());
        tokens[app].extend(value);
    }
    let mut apps: Vec<App> = Vec::new();
    for t in tokens {
        let app = App::parse(&t)?;
        if app.kind == Kind::Search {
            // Validate the options and load the input now, before anything runs.
            search::prepare(&app.search_args()?)
                .map_err(|e| e.prefixed(&format!("--app {}: ", app.label)))?;
        }
        if app.kind == Kind::Loop {
            loops::prepare(&app.loop_args()?)
                .map_err(|e| e.prefixed(&format!("--app {}: ", app.label)))?;
        }
        if apps.iter().any(|a| a.label == app.label) {
            return usage(format!("--app {} is given twice", app.label));
        }
        apps.push(app);
    }
    Ok(apps)
}

/// Checks that `schedules` (canonical, from `--schedule`; an axis of the configurations,
/// see [`super::matrix`]) have a loop application to apply to, when there are any.
pub fn check_schedules(apps: &[App], schedules: &[String]) -> Result<(), Failure> {
    if schedules.is_empty() || apps.iter().any(App::is_loop) {
        return Ok(());
    }
    usage(format!(
        "--schedule applies to the loop applications ({}) only, and no --app is one",
        loops::APPS.join(", ")
    ))
}

fn parse_number<T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy>(
    app: &str,
    flag: &str,
    value: &str,
    range: (T, T),
    what: &str,
) -> Result<T, Failure> {
    match value.trim().parse::<T>() {
        Ok(v) if v >= range.0 && v <= range.1 => Ok(v),
        _ => usage(format!(
            "--app {app}: {flag} {value:?}: expected {what} from {} to {}",
            range.0, range.1
        )),
    }
}

impl App {
    /// Parses `NAME [FILE] [options]` (the kernels' options here, the searches' by clap as
    /// `SearchArgs`; the searches' inputs are loaded by [`search::prepare`]).
    pub fn parse(tokens: &[String]) -> Result<App, Failure> {
        let Some(name) = tokens.first().map(|n| n.trim().to_string()) else {
            return usage("--app: no application given");
        };
        let names = app_names();
        if !names.contains(&name.as_str()) {
            return usage(format!(
                "--app: unknown application {name:?}; expected one of: {}",
                names.join(", ")
            ));
        }
        let label = tokens
            .iter()
            .map(|t| shell_word(t))
            .collect::<Vec<_>>()
            .join(" ");
        let rest = &tokens[1..];
        let kind = match name.as_str() {
            n if kernel_names().any(|k| k == n) => Self::kernel(&name, rest)?,
            n if loops::APPS.contains(&n) => Kind::Loop,
            _ => {
                if rest.iter().any(|t| t == "--size") {
                    return usage(format!(
                        "--app {name}: --size applies to quicksort, prefix-sum, histogram only, \
                         not to {name}"
                    ));
                }
                Kind::Search
            }
        };
        let mut app = App {
            label,
            name,
            tokens: tokens.to_vec(),
            schedule: None,
            kind,
        };
        match kind {
            Kind::Search => {
                app.search_args()?;
            }
            Kind::Loop => {
                let args = app.loop_args()?;
                let given = args.schedule.as_deref().unwrap_or(loops::DEFAULT_SCHEDULE);
                let s = loops::parse_schedule("--schedule", given)
                    .map_err(|e| e.prefixed(&format!("--app {}: ", app.label)))?;
                app.schedule = Some(s.to_string());
            }
            _ => {}
        }
        Ok(app)
    }

    /// A kernel's [`Kind`] from its options (`rest`, after its name).
    fn kernel(name: &str, rest: &[String]) -> Result<Kind, Failure> {
        let options = KERNELS
            .iter()
            .find(|k| k.0 == name)
            .map_or(&[][..], |k| k.1);
        let mut values: Vec<(&str, &str)> = Vec::new();
        let mut it = rest.iter();
        while let Some(t) = it.next() {
            if let Some(&option) = options.iter().find(|&&o| o == t) {
                let Some(v) = it.next() else {
                    return usage(format!("--app {name}: {option} needs a value"));
                };
                if values.iter().any(|(o, _)| *o == option) {
                    return usage(format!("--app {name}: {option} is given twice"));
                }
                values.push((option, v));
            } else if t.starts_with('-') {
                return usage(format!(
                    "--app {name}: {t} does not apply to {name} (its options: {})",
                    options.join(", ")
                ));
            } else {
                return usage(format!(
                    "--app {name}: {name} takes no input file (got {t:?})"
                ));
            }
        }
        let get = |option: &str| values.iter().find(|(o, _)| *o == option).map(|v| v.1);
        let size = || match get("--size") {
            Some(v) => parse_number(
                name,
                "--size",
                v,
                (1, usize::MAX / 16),
                "a number of elements",
            ),
            None => Ok(DEFAULT_SIZE),
        };
        let data = || {
            let choices = Data::choices(name);
            match get("--data") {
                None => Ok(choices[0].1),
                Some(v) => match choices.iter().find(|c| c.0 == v.trim()) {
                    Some(c) => Ok(c.1),
                    None => usage(format!(
                        "--app {name}: --data {v:?}: expected {}",
                        choices.iter().map(|c| c.0).collect::<Vec<_>>().join(" or ")
                    )),
                },
            }
        };
        Ok(match name {
            "fib" => Kind::Fib {
                n: match get("--n") {
                    Some(v) => parse_number(name, "--n", v, (0, MAX_FIB), "a number")?,
                    None => DEFAULT_FIB,
                },
            },
            "lu" => {
                let n = match get("--n") {
                    Some(v) => parse_number(name, "--n", v, (1, MAX_LU_N), "a matrix order")?,
                    None => lu::DEFAULT_N,
                };
                Kind::Lu {
                    n,
                    block: match get("--block") {
                        Some(v) => parse_number(name, "--block", v, (1, n), "a block size")?,
                        None => lu::DEFAULT_BLOCK.min(n),
                    },
                    seed: match get("--seed") {
                        Some(v) => parse_number(name, "--seed", v, (0, u64::MAX), "a seed")?,
                        None => SEED,
                    },
                }
            }
            "sssp" => Kind::Sssp {
                graph: match get("--graph") {
                    Some(v) => v
                        .parse()
                        .map_err(|e| Failure::Usage(format!("--app {name}: {e}")))?,
                    None => sssp::GraphKind::Random,
                },
                size: match get("--size") {
                    Some(v) => parse_number(
                        name,
                        "--size",
                        v,
                        (2, sssp::MAX_SIZE),
                        "a number of vertices",
                    )?,
                    None => DEFAULT_SSSP_SIZE,
                },
                seed: match get("--seed") {
                    Some(v) => parse_number(name, "--seed", v, (0, u64::MAX), "a seed")?,
                    None => SEED,
                },
                priorities: match get("--priorities").map(str::trim) {
                    None | Some("on") => sssp::Priorities::On,
                    Some("off") => sssp::Priorities::Off,
                    Some(v) => {
                        return usage(format!(
                            "--app {name}: --priorities {v:?}: expected on or off"
                        ))
                    }
                },
            },
            "quicksort" => Kind::Quicksort {
                size: size()?,
                data: data()?,
            },
            _ => Kind::PrefixSum {
                size: size()?,
                data: data()?,
            },
        })
    }

    /// Whether this is a loop application (mandelbrot, dist, histogram, spmv).
    pub fn is_loop(&self) -> bool {
        self.kind == Kind::Loop
    }

    /// The tokens as `magpie loop`'s arguments.
    fn loop_args(&self) -> Result<LoopArgs, Failure> {
        LoopTokens::try_parse_from(&self.tokens)
            .map(|t| t.args)
            .map_err(|e| Failure::Usage(format!("--app {}: {}", self.label, clap_line(&e))))
    }

    /// The tokens as `magpie search`'s arguments.
    fn search_args(&self) -> Result<SearchArgs, Failure> {
        SearchTokens::try_parse_from(&self.tokens)
            .map(|t| t.args)
            .map_err(|e| Failure::Usage(format!("--app {}: {}", self.label, clap_line(&e))))
    }

    /// Fails unless `peer` can run this application.
    pub fn check_peer(&self, peer: Peer) -> Result<(), Failure> {
        match (peer, self.kind, self.name.as_str()) {
            (Peer::Rayon, Kind::Search, name) if enumeration(name) => Ok(()),
            (Peer::Rayon, Kind::Search, other) => usage(format!(
                "--peers rayon: there is no rayon version of {other} (rayon runs {} and {})",
                kernel_names().collect::<Vec<_>>().join(", "),
                registry::names(|a| a.goal == Goal::Enumerate).join(", ")
            )),
            (Peer::Rayon, Kind::Loop, other) => usage(format!(
                "--peers rayon: there is no rayon version of the loop application {other}"
            )),
            (Peer::Rayon, _, "sssp") => usage(
                "--peers rayon: there is no rayon version of sssp (rayon has no task priorities)"
                    .to_string(),
            ),
            (Peer::Rayon, _, _) => Ok(()),
        }
    }

    /// Loads or generates the input: everything before the barrier.
    fn prepare(&self) -> Result<Job, Failure> {
        Ok(match self.kind {
            Kind::Search => Job::Search(Box::new(search::prepare(&self.search_args()?)?)),
            Kind::Quicksort { size, data } => {
                let data = match data {
                    Data::Gaussian => magpie_apps::gaussian_u64s(size, SEED),
                    _ => magpie_apps::random_u64s(size, SEED, 0),
                };
                let checksum = checksum(&data);
                Job::Quicksort { data, checksum }
            }
            Kind::PrefixSum { size, data } => match data {
                Data::Ones => Job::PrefixSum {
                    data: vec![1; size],
                    input: None,
                },
                _ => {
                    let input = magpie_apps::random_u64s(size, SEED, 0);
                    Job::PrefixSum {
                        data: input.clone(),
                        input: Some(input),
                    }
                }
            },
            Kind::Fib { n } => Job::Fib { n },
            Kind::Sssp {
                graph,
                size,
                seed,
                priorities,
            } => Job::Sssp {
                graph: sssp::instance(graph, size, seed)
                    .map_err(|e| Failure::Usage(format!("--app {}: {e}", self.label)))?,
                priorities,
            },
            Kind::Lu { n, block, seed } => {
                let a = lu::generate(n, seed);
                let m = lu::Blocked::from_rows(n, block, &a);
                Job::Lu { a, m }
            }
            Kind::Loop => Job::Loop(Box::new(loops::prepare(&self.loop_args()?)?)),
        })
    }
}

/// The counters of one solve that the experiment reports (summed over the pool's workers).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    pub steals: u64,
    pub steal_attempts: u64,
    pub sleeps: u64,
    pub sleep_ns: u64,
    pub parks: u64,
    pub parked_ns: u64,
    pub idle_ns: u64,
}

impl From<WorkerStats> for Counters {
    fn from(s: WorkerStats) -> Self {
        Counters {
            steals: s.steals,
            steal_attempts: s.steal_attempts,
            sleeps: s.sleeps,
            sleep_ns: s.sleep_ns,
            parks: s.parks,
            parked_ns: s.parked_ns,
            idle_ns: s.idle_ns,
        }
    }
}

impl Counters {
    /// The events between the snapshots `before` and `self`.
    pub fn since(&self, before: &Counters) -> Counters {
        Counters {
            steals: self.steals.saturating_sub(before.steals),
            steal_attempts: self.steal_attempts.saturating_sub(before.steal_attempts),
            sleeps: self.sleeps.saturating_sub(before.sleeps),
            sleep_ns: self.sleep_ns.saturating_sub(before.sleep_ns),
            parks: self.parks.saturating_sub(before.parks),
            parked_ns: self.parked_ns.saturating_sub(before.parked_ns),
            idle_ns: self.idle_ns.saturating_sub(before.idle_ns),
        }
    }
}

impl std::ops::AddAssign for Counters {
    fn add_assign(&mut self, o: Counters) {
        self.steals += o.steals;
        self.steal_attempts += o.steal_attempts;
        self.sleeps += o.sleeps;
        self.sleep_ns += o.sleep_ns;
        self.parks += o.parks;
        self.parked_ns += o.parked_ns;
        self.idle_ns += o.idle_ns;
    }
}

/// What one child reports: the one JSON line after the barrier.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Measurement {
    /// The solve's time in seconds.
    pub seconds: f64,
    /// The answer in canonical form: equal for every correct run of the application.
    pub answer: String,
    /// What was checked.
    pub check: String,
    /// The pool's counters during the solve (`None` for a peer runtime).
    pub counters: Option<Counters>,
    /// A loop application's statistics over its time steps (`None` for the others).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loop_stats: Option<LoopCounters>,
}

/// A loop application's statistics in one solve: chunks and loop steals summed over its
/// time steps, and the last step's c.o.v. of the workers' busy times.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LoopCounters {
    /// Chunks handed out, over every step.
    pub chunks: u64,
    /// Successful loop steals, over every step.
    pub steals: u64,
    /// The last step's c.o.v. of busy times.
    pub cov: f64,
}

/// A prepared input.
enum Job {
    Search(Box<Prepared>),
    Quicksort {
        data: Vec<u64>,
        checksum: (u64, u64),
    },
    PrefixSum {
        data: Vec<u64>,
        /// The input, unless it is all ones.
        input: Option<Vec<u64>>,
    },
    Fib {
        n: u64,
    },
    Sssp {
        graph: sssp::Graph,
        priorities: sssp::Priorities,
    },
    Lu {
        /// The matrix, row-major.
        a: Vec<f64>,
        /// The same by blocks, factored in place.
        m: lu::Blocked,
    },
    Loop(Box<loops::Prepared>),
}

/// What one solve gives: seconds, answer, what was checked, and a loop's statistics.
type Solve = (f64, String, String, Option<LoopCounters>);

/// Wrapping sum and xor of `v`: a sort must keep both.
fn checksum(v: &[u64]) -> (u64, u64) {
    v.iter()
        .fold((0u64, 0u64), |(s, x), &v| (s.wrapping_add(v), x ^ v))
}

/// The exact Fibonacci number, by iteration.
fn fib_exact(n: u64) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        (a, b) = (b, a.wrapping_add(b));
    }
    a
}

/// A pool of either runtime.
enum Pool {
    Magpie(ThreadPool),
    Rayon(rayon::ThreadPool),
}

impl Pool {
    fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match self {
            Pool::Magpie(p) => p.install(f),
            Pool::Rayon(p) => p.install(f),
        }
    }

    fn is_rayon(&self) -> bool {
        matches!(self, Pool::Rayon(_))
    }
}

impl Job {
    /// The worker stack size: the default for searches (the engine's walk does not recurse
    /// per tree level), 16 MiB for the kernels.
    fn stack_size(&self) -> usize {
        match self {
            Job::Search(_) => magpie::DEFAULT_STACK_SIZE,
            _ => 16 << 20,
        }
    }

    /// Solves once on `pool` and checks the answer. The time covers the solve only: for
    /// magpie's searches, the search's own clock (as `magpie search` reports it); otherwise
    /// the `install` call that runs the kernel or enumeration.
    fn run(self, pool: &Pool) -> Result<Solve, Failure> {
        let Job::Loop(p) = self else {
            return self.run_plain(pool).map(|(s, a, c)| (s, a, c, None));
        };
        let Pool::Magpie(pool) = pool else {
            return usage("there is no rayon version of the loop applications");
        };
        let o = p.run(pool)?;
        let stats = LoopCounters {
            chunks: o.chunks(),
            steals: o.steals(),
            cov: o.last_cov(),
        };
        let check = o
            .check
            .unwrap_or_else(|| "not checked (--no-check)".to_string());
        Ok((o.seconds, o.answer, check, Some(stats)))
    }

    /// [`Job::run`] for everything but the loop applications.
    fn run_plain(self, pool: &Pool) -> Result<(f64, String, String), Failure> {
        match self {
            Job::Loop(_) => unreachable!("Job::run runs the loop applications"),
            Job::Search(p) => {
                let engine = match pool {
                    Pool::Magpie(pool) => Engine::Pool(pool),
                    // An enumeration on rayon, checked like magpie's (the parent also checks
                    // that every run's answer agrees).
                    Pool::Rayon(pool) if enumeration(p.app()) => Engine::Rayon {
                        pool,
                        spawn_depth: p.spawn_depth().unwrap_or(DEFAULT_SPAWN_DEPTH),
                    },
                    Pool::Rayon(_) => {
                        return usage(format!("there is no rayon version of {}", p.app()))
                    }
                };
                let s = p.solve(&engine)?;
                Ok((s.stats.time.as_secs_f64(), s.answer.key, s.check))
            }
            Job::Quicksort {
                mut data,
                checksum: before,
            } => {
                let t = Instant::now();
                if pool.is_rayon() {
                    pool.install(|| magpie_apps::quicksort(&mut Rayon, &mut data));
                } else {
                    pool.install(|| magpie_apps::quicksort(&mut Magpie, &mut data));
                }
                let seconds = t.elapsed().as_secs_f64();
                let unsorted = data.windows(2).position(|w| w[0] > w[1]);
                check(unsorted.is_none(), || {
                    let i = unsorted.unwrap_or(0);
                    format!("quicksort: keys {i} and {} are out of order", i + 1)
                })?;
                let after = checksum(&data);
                check(after == before, || {
                    format!("quicksort: the keys' checksum changed from {before:?} to {after:?}")
                })?;
                Ok((
                    seconds,
                    format!(
                        "{} keys sorted, sum {:#x}, xor {:#x}",
                        data.len(),
                        after.0,
                        after.1
                    ),
                    "sorted, and the keys' sum and xor are the input's".to_string(),
                ))
            }
            Job::PrefixSum { mut data, input } => {
                let t = Instant::now();
                if pool.is_rayon() {
                    pool.install(|| magpie_apps::prefix_sum(&mut Rayon, &mut data));
                } else {
                    pool.install(|| magpie_apps::prefix_sum(&mut Magpie, &mut data));
                }
                let seconds = t.elapsed().as_secs_f64();
                let mut acc = 0u64;
                for (i, y) in data.iter().enumerate() {
                    acc = acc.wrapping_add(input.as_ref().map_or(1, |v| v[i]));
                    check(acc == *y, || {
                        format!("prefix-sum: element {i} is {y}, the sequential scan gives {acc}")
                    })?;
                }
                let what = if input.is_some() {
                    "every element equals the sequential scan's"
                } else {
                    "every element i (from 0) is i + 1, the prefix sum of ones"
                };
                Ok((
                    seconds,
                    format!("{} sums, total {acc:#x}", data.len()),
                    what.to_string(),
                ))
            }
            Job::Lu { a, mut m } => {
                let t = Instant::now();
                if pool.is_rayon() {
                    pool.install(|| lu::lu(&mut Rayon, &mut m));
                } else {
                    pool.install(|| lu::lu(&mut Magpie, &mut m));
                }
                let seconds = t.elapsed().as_secs_f64();
                let n = m.n();
                let r =
                    lu::check(&a, &m.to_rows(), n).map_err(|e| Failure::Run(format!("lu: {e}")))?;
                let mut seq = lu::Blocked::from_rows(n, m.block(), &a);
                lu::lu(&mut Sequential, &mut seq);
                let first_difference = (0..n * n)
                    .find(|&i| m.get(i / n, i % n).to_bits() != seq.get(i / n, i % n).to_bits());
                check(first_difference.is_none(), || {
                    let i = first_difference.unwrap_or(0);
                    format!(
                        "lu: element ({}, {}) is {:e}, the sequential blocked LU's {:e}",
                        i / n,
                        i % n,
                        m.get(i / n, i % n),
                        seq.get(i / n, i % n)
                    )
                })?;
                Ok((
                    seconds,
                    format!(
                        "{n}x{n} LU, block {}, residual {:.6e}",
                        m.block(),
                        r.residual
                    ),
                    format!(
                        "‖A − L·U‖_F = {:.3e} ≤ 2·n·ε·‖L‖_F·‖U‖_F = {:.3e}, and the factors \
                         equal the sequential blocked LU's bit for bit",
                        r.residual, r.tolerance
                    ),
                ))
            }
            Job::Sssp { graph, priorities } => {
                let t = Instant::now();
                let run = pool.install(|| sssp::sssp(&graph, 0, priorities));
                let seconds = t.elapsed().as_secs_f64();
                sssp::check(&graph, 0, &run).map_err(|e| Failure::Run(format!("sssp: {e}")))?;
                Ok((
                    seconds,
                    // The answer is compared across configurations: the relaxation count,
                    // which depends on the schedule, is not part of it.
                    format!(
                        "{} vertices reached, distances sum {}",
                        sssp::reachable(&run.distances),
                        run.distances
                            .iter()
                            .filter(|&&d| d != sssp::UNREACHABLE)
                            .sum::<u64>()
                    ),
                    "every distance equals Dijkstra's".to_string(),
                ))
            }
            Job::Fib { n } => {
                let t = Instant::now();
                let n32 = u32::try_from(n).expect("--n ≤ 93");
                let v = if pool.is_rayon() {
                    pool.install(|| magpie_apps::fib(&mut Rayon, n32))
                } else {
                    pool.install(|| magpie_apps::fib(&mut Magpie, n32))
                };
                let seconds = t.elapsed().as_secs_f64();
                let want = fib_exact(n);
                check(v == want, || {
                    format!("fib({n}) = {want}, but the run computed {v}")
                })?;
                Ok((
                    seconds,
                    format!("fib({n}) = {v}"),
                    "the exact value (by iteration)".to_string(),
                ))
            }
        }
    }
}

/// Whether the search application `name` is an enumeration (which rayon runs too).
fn enumeration(name: &str) -> bool {
    registry::find(name).is_some_and(|a| a.goal == Goal::Enumerate)
}

/// Prints `ready`, then waits for `go` on stdin: the inter-process barrier.
fn barrier() -> Result<(), Failure> {
    magpie_measure::process::wait_for_release().map_err(|e| Failure::Run(format!("run-one: {e}")))
}

/// `magpie experiment run-one`: prepare, build the pool, barrier, solve once, print one JSON
/// [`Measurement`].
pub fn run_one(args: &RunOneArgs, config: &Config) -> Result<(), Failure> {
    let app = App::parse(&args.app)?;
    let peer = match args.runtime.trim() {
        "magpie" => None,
        "rayon" => Some(Peer::Rayon),
        other => {
            return usage(format!(
                "--runtime: unknown runtime {other:?}; expected magpie or rayon"
            ))
        }
    };
    if let Some(p) = peer {
        app.check_peer(p)?;
    }
    let job = app.prepare()?;
    let workers = config.workers.value;
    let pool = match peer {
        None => Pool::Magpie(
            config
                .builder(config.deque.value, workers)
                .stack_size(job.stack_size())
                .build()
                .map_err(|e| Failure::Usage(ConfigError::from(e).0))?,
        ),
        Some(Peer::Rayon) => Pool::Rayon(
            rayon::ThreadPoolBuilder::new()
                .num_threads(workers)
                .stack_size(job.stack_size())
                .build()
                .map_err(|e| Failure::Run(format!("cannot build the rayon pool: {e}")))?,
        ),
    };
    barrier()?;
    // Counters as the difference of two snapshots rather than after a reset: a snapshot
    // includes the running part of a park or idle spell in progress, while a reset would
    // leave a park begun before it (the wait at the barrier) to be counted in full when
    // it ends, during the solve.
    let snapshot = |pool: &Pool| match pool {
        Pool::Magpie(p) => Some(Counters::from(p.stats().total())),
        Pool::Rayon(_) => None,
    };
    let before = snapshot(&pool);
    let (seconds, answer, check, loop_stats) = job.run(&pool)?;
    let counters = snapshot(&pool)
        .zip(before)
        .map(|(after, before)| after.since(&before));
    let m = Measurement {
        seconds,
        answer,
        check,
        counters,
        loop_stats,
    };
    let line = serde_json::to_string(&m)
        .map_err(|e| Failure::Run(format!("cannot write the measurement: {e}")))?;
    println!("{line}");
    Ok(())
}

#[cfg(test)]
mod tests;
