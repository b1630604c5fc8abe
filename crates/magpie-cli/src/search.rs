//! `magpie search`: one exact search (an application of `magpie::search`) on a magpie
//! pool, with the skeleton chosen on the command line, its answer checked, then printed as
//! text or as one JSON object.
//!
//! Every option arrives as a string and is parsed here rather than by clap, so that a bad
//! value, an unknown application or skeleton, and an option that does not apply all end as
//! one line `magpie: error: …` with exit code 2, like the pool configuration errors
//! (clap's own errors are several lines long).

use std::fmt::Display;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use clap::Args;
use magpie::search::{self, CountPerDepth, Options, SearchSpace, SearchStats, Skeleton, TaskOrder};
use magpie::ThreadPool;
use magpie_apps::input::InputError;
use magpie_apps::{knapsack, maxclique, nqueens, ns, tsp, uts};
use serde::Serialize;

use crate::config::{Config, ConfigError, Source};

/// The spawn depth of `depth-bounded` and `ordered` when `--spawn-depth` is not given.
pub const DEFAULT_SPAWN_DEPTH: usize = 2;
/// The backtrack budget of `budget` when `--budget` is not given.
pub const DEFAULT_BUDGET: u64 = 10_000;

/// The applications, as named on the command line.
const APPS: [&str; 6] = ["maxclique", "knapsack", "tsp", "uts", "ns", "nqueens"];
/// The skeletons, as named on the command line (`sequential` is also accepted for `seq`).
const SKELETONS: [&str; 5] = [
    "seq",
    "depth-bounded",
    "budget",
    "stack-stealing",
    "ordered",
];
/// The task orders of `ordered`.
const ORDERS: [&str; 2] = ["sequential", "discrepancy"];

/// The skeleton used without `--skeleton`: depth-bounded, with [`DEFAULT_SPAWN_DEPTH`].
///
/// Its tasks are ordinary spawns made at the start, which every deque hands to thieves.
/// Stack-stealing adapts better to unbalanced trees, but its helper tasks wait in the first
/// worker's deque while that worker searches without touching its deque: under the default
/// `lcws-user` deque (whose owner exposes work only when it uses the deque) they are never
/// stolen and the whole search runs on one worker.
const DEFAULT_SKELETON: &str = "depth-bounded";

/// The text after `magpie search --help`.
pub fn after_help() -> String {
    let trees: Vec<&str> = uts::NAMED_TREES.iter().map(|t| t.name).collect();
    format!(
        "Applications and their inputs:\n  \
         maxclique FILE [--target K]   maximum clique of a DIMACS graph; with --target, decide\n                                \
         whether a clique of K vertices exists\n  \
         knapsack FILE [--instance I]  0/1 knapsack, plain file or Pisinger .csv (many instances:\n                                \
         I is a name or a number counting from 1; default: the first)\n  \
         tsp FILE                      symmetric TSPLIB travelling salesman (shortest tour)\n  \
         uts --tree NAME | --flags F   count an Unbalanced Tree Search tree (one of the two is\n                                \
         required; NAME is one of the trees below)\n  \
         ns --genus G                  count numerical semigroups by genus, 0..=G (G <= {})\n  \
         nqueens --n N                 count the N-Queens solutions (1 <= N <= {})\n\n\
         Skeletons (--skeleton) [default: {DEFAULT_SKELETON} with spawn depth {DEFAULT_SPAWN_DEPTH}: the root's\n\
         children and grandchildren become tasks, enough for a few workers on most trees]:\n  \
         seq             depth-first on one worker, no tasks\n  \
         depth-bounded   children of nodes above --spawn-depth (default {DEFAULT_SPAWN_DEPTH}) become tasks\n  \
         budget          after --budget backtracks (default {DEFAULT_BUDGET}), the shallowest unexplored\n                  \
         siblings become tasks\n  \
         stack-stealing  an idle worker asks a busy one for its shallowest unexplored sibling\n                  \
         (--steal-all: all siblings of that level)\n  \
         ordered         the nodes at --spawn-depth (default {DEFAULT_SPAWN_DEPTH}) become tasks, started in\n                  \
         --order sequential (default) or discrepancy, each once, from a priority pool\n\
         An option that does not apply to the application or skeleton is an error.\n\n\
         UTS trees (--tree):\n{}\n\n\
         Every answer is checked before it is printed (the clique is a clique, the knapsack items\n\
         fit and sum to the profit, the tour visits every city once and has that length, counts\n\
         match the published values where known): a failed check exits 1.\n\n\
         Examples:\n  \
         magpie search maxclique brock200_2.clq --target 12\n  \
         magpie search knapsack knapPI_1_50_1000.csv --instance knapPI_1_50_1000_7 --json\n  \
         magpie search uts --tree T1 --skeleton depth-bounded --spawn-depth 3 --workers 2\n  \
         magpie search ns --genus 30 --skeleton budget --budget 1000 --stats",
        ns::MAX_GENUS,
        magpie_apps::NQUEENS_MAX,
        wrap(&trees, "  ", 88),
    )
}

/// `words` joined by ", " on lines of at most `width` characters, each starting with `indent`.
fn wrap(words: &[&str], indent: &str, width: usize) -> String {
    let mut lines = vec![indent.to_string()];
    for (i, w) in words.iter().enumerate() {
        let sep = if i + 1 < words.len() { "," } else { "" };
        let last = lines.last_mut().expect("one line at least");
        if last.len() > indent.len() && last.len() + 1 + w.len() + sep.len() > width {
            lines.push(format!("{indent}{w}{sep}"));
        } else {
            if last.len() > indent.len() {
                last.push(' ');
            }
            last.push_str(w);
            last.push_str(sep);
        }
    }
    lines.join("\n")
}

/// `magpie search`'s arguments. Values are strings, parsed in [`run`] (see the module doc).
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// Application: maxclique, knapsack, tsp, uts, ns, nqueens
    #[arg(value_name = "APP")]
    pub app: String,

    /// Input file (maxclique: DIMACS; knapsack: plain or Pisinger .csv; tsp: TSPLIB .tsp)
    #[arg(value_name = "FILE")]
    pub input: Option<PathBuf>,

    /// Skeleton: seq, depth-bounded, budget, stack-stealing, ordered [default: depth-bounded]
    #[arg(long, value_name = "NAME", help_heading = "Skeleton")]
    pub skeleton: Option<String>,

    /// depth-bounded, ordered: depth of the task nodes [default: 2]
    #[arg(
        long,
        value_name = "D",
        allow_hyphen_values = true,
        help_heading = "Skeleton"
    )]
    pub spawn_depth: Option<String>,

    /// budget: backtracks between two spawns, at least 1 [default: 10000]
    #[arg(
        long,
        value_name = "B",
        allow_hyphen_values = true,
        help_heading = "Skeleton"
    )]
    pub budget: Option<String>,

    /// stack-stealing: hand a thief every unexplored sibling of the shallowest level
    #[arg(long, help_heading = "Skeleton")]
    pub steal_all: bool,

    /// ordered: task order, sequential or discrepancy [default: sequential]
    #[arg(long, value_name = "ORDER", help_heading = "Skeleton")]
    pub order: Option<String>,

    /// ordered, optimisation (maxclique without --target, knapsack, tsp): replicable node
    /// counts; task k prunes with what tasks up to k - W found (W: a few times the workers)
    #[arg(
        long,
        value_name = "W",
        allow_hyphen_values = true,
        help_heading = "Skeleton"
    )]
    pub replicable: Option<String>,

    /// uts, ns, nqueens: do not expand nodes deeper than D (the root is depth 0)
    #[arg(
        long,
        value_name = "D",
        allow_hyphen_values = true,
        help_heading = "Application"
    )]
    pub max_depth: Option<String>,

    /// maxclique: decide whether a clique of K vertices exists instead of maximising
    #[arg(
        long,
        value_name = "K",
        allow_hyphen_values = true,
        help_heading = "Application"
    )]
    pub target: Option<String>,

    /// knapsack: the instance of a multi-instance file, by name or number (from 1)
    /// [default: the first]
    #[arg(long, value_name = "NAME|NUMBER", help_heading = "Application")]
    pub instance: Option<String>,

    /// uts: a named tree (T1, T3, default, ...)
    #[arg(long, value_name = "NAME", help_heading = "Application")]
    pub tree: Option<String>,

    /// uts: the reference's tree flags, e.g. "-t 1 -a 3 -d 10 -b 4 -r 19"
    #[arg(
        long,
        value_name = "FLAGS",
        allow_hyphen_values = true,
        help_heading = "Application"
    )]
    pub flags: Option<String>,

    /// ns: the largest genus counted (0..=64)
    #[arg(
        long,
        value_name = "G",
        allow_hyphen_values = true,
        help_heading = "Application"
    )]
    pub genus: Option<String>,

    /// nqueens: the board size (1..=32)
    #[arg(
        long,
        value_name = "N",
        allow_hyphen_values = true,
        help_heading = "Application"
    )]
    pub n: Option<String>,

    /// Print one JSON object (always with the statistics) instead of text
    #[arg(long, help_heading = "Output")]
    pub json: bool,

    /// Run over every rank of an MPI job (`mpirun -np R magpie search … --distributed`)
    /// with the depth-bounded, budget, stack-stealing or ordered skeleton (ordered: rank 0
    /// hands out the tasks in priority order). Needs a build with the `mpi` feature
    #[arg(long, help_heading = "Distributed")]
    pub distributed: bool,

    /// --distributed: how an idle rank picks the rank it asks for work: random, sticky
    /// (the last rank that gave work), perf (the Performance-Driven policy: best score of
    /// load, residual tasks and latency; `perf:KEY=VALUE,…` sets its constants: smoothing,
    /// e, min-load, initial-rate, start, grow, shrink, min, max, sleep, max-sleep)
    /// [default: random]
    #[arg(long, value_name = "NAME", help_heading = "Distributed")]
    pub remote_victims: Option<String>,

    /// Text output: also print pruned nodes, backtracks, tasks, steals and nodes per worker
    #[arg(long, help_heading = "Output")]
    pub stats: bool,
}

/// Why `magpie search` did not print an answer.
#[derive(Debug)]
pub enum Failure {
    /// Bad usage, configuration or input: exit code 2.
    Usage(String),
    /// The answer failed its check (a bug): exit code 1.
    Check(String),
}

impl Failure {
    /// The exit code of `result`: 0, 2 for bad usage, 1 for a failed check; with `print`, a
    /// failure's one line `magpie: error: …` goes to stderr (a distributed run reports it
    /// itself, on rank 0 only: `distributed::exit_code`).
    pub fn exit_code(result: Result<(), Failure>, print: bool) -> std::process::ExitCode {
        let Err(failure) = result else {
            return std::process::ExitCode::SUCCESS;
        };
        if print {
            eprintln!("magpie: error: {}", failure.message());
        }
        std::process::ExitCode::from(match failure {
            Failure::Usage(_) => 2,
            Failure::Check(_) => 1,
        })
    }

    /// The text of the failure's error line (after `magpie: error: `).
    pub fn message(&self) -> String {
        match self {
            Failure::Usage(m) => m.clone(),
            Failure::Check(m) => format!("result check failed (a bug): {m}"),
        }
    }
}

impl From<ConfigError> for Failure {
    fn from(e: ConfigError) -> Self {
        Failure::Usage(e.0)
    }
}

impl From<InputError> for Failure {
    fn from(e: InputError) -> Self {
        Failure::Usage(e.to_string())
    }
}

fn usage<T>(message: impl Into<String>) -> Result<T, Failure> {
    Err(Failure::Usage(message.into()))
}

/// Parses a whole number given to `flag`, at least `min`.
fn number<T>(flag: &str, value: &str, min: T, what: &str) -> Result<T, Failure>
where
    T: FromStr + PartialOrd + Display + Copy,
{
    match value.trim().parse::<T>() {
        Ok(v) if v >= min => Ok(v),
        Ok(v) => usage(format!("{flag} {v}: {what} must be at least {min}")),
        Err(_) => usage(format!(
            "{flag} {value:?}: expected a whole number ({what}, at least {min})"
        )),
    }
}

fn unknown(what: &str, given: &str, accepted: &[&str]) -> Failure {
    Failure::Usage(format!(
        "{what} {given:?}; expected one of: {}",
        accepted.join(", ")
    ))
}

// ---------------------------------------------------------------------------------------
// Skeleton

/// The chosen skeleton, with its name and parameters for the report.
#[derive(Debug, Clone, Serialize)]
struct SkeletonChoice {
    #[serde(skip)]
    skeleton: Skeleton,
    #[serde(skip)]
    name: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    spawn_depth: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    budget: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    steal_all: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    order: Option<&'static str>,
    /// `--replicable`: the ordered optimisation's replicable window.
    #[serde(skip_serializing_if = "Option::is_none")]
    replicable_window: Option<NonZeroUsize>,
}

impl SkeletonChoice {
    /// `depth-bounded (spawn depth 2)` and the like.
    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(d) = self.spawn_depth {
            parts.push(format!("spawn depth {d}"));
        }
        if let Some(b) = self.budget {
            parts.push(format!("budget {b} backtracks"));
        }
        if self.steal_all == Some(true) {
            parts.push("steal all".to_string());
        }
        if let Some(o) = self.order {
            parts.push(format!("{o} order"));
        }
        if let Some(w) = self.replicable_window {
            parts.push(format!("replicable, window {w}"));
        }
        if parts.is_empty() {
            self.name.to_string()
        } else {
            format!("{} ({})", self.name, parts.join(", "))
        }
    }
}

fn skeleton(args: &SearchArgs) -> Result<SkeletonChoice, Failure> {
    let given = args.skeleton.as_deref().map(str::trim);
    let name = match given.unwrap_or(DEFAULT_SKELETON) {
        "seq" | "sequential" => "seq",
        "depth-bounded" => "depth-bounded",
        "budget" => "budget",
        "stack-stealing" => "stack-stealing",
        "ordered" => "ordered",
        other => return Err(unknown("--skeleton: unknown skeleton", other, &SKELETONS)),
    };
    // An option of another skeleton is an error, not silently ignored.
    let skeleton_is = match given {
        Some(_) => format!("the skeleton is {name}"),
        None => format!("the skeleton is {name}, the default"),
    };
    let only = |flag: &str, given: bool, applies: &[&str]| -> Result<(), Failure> {
        if given && !applies.contains(&name) {
            return usage(format!(
                "{flag} applies to --skeleton {} only ({skeleton_is})",
                applies.join(" or ")
            ));
        }
        Ok(())
    };
    only(
        "--spawn-depth",
        args.spawn_depth.is_some(),
        &["depth-bounded", "ordered"],
    )?;
    only("--budget", args.budget.is_some(), &["budget"])?;
    only("--steal-all", args.steal_all, &["stack-stealing"])?;
    only("--order", args.order.is_some(), &["ordered"])?;
    only("--replicable", args.replicable.is_some(), &["ordered"])?;

    let spawn_depth = match &args.spawn_depth {
        Some(v) => number("--spawn-depth", v, 0usize, "a depth")?,
        None => DEFAULT_SPAWN_DEPTH,
    };
    let mut choice = SkeletonChoice {
        skeleton: Skeleton::Sequential,
        name,
        spawn_depth: None,
        budget: None,
        steal_all: None,
        order: None,
        replicable_window: None,
    };
    match name {
        "seq" => {}
        "depth-bounded" => {
            choice.skeleton = Skeleton::DepthBounded { spawn_depth };
            choice.spawn_depth = Some(spawn_depth);
        }
        "budget" => {
            let backtracks = match &args.budget {
                Some(v) => number("--budget", v, 1u64, "a number of backtracks")?,
                None => DEFAULT_BUDGET,
            };
            choice.skeleton = Skeleton::Budget { backtracks };
            choice.budget = Some(backtracks);
        }
        "stack-stealing" => {
            choice.skeleton = Skeleton::StackStealing {
                steal_all: args.steal_all,
            };
            choice.steal_all = Some(args.steal_all);
        }
        _ => {
            let (order, order_name) = match args.order.as_deref().map(str::trim) {
                None | Some("sequential") => (TaskOrder::Sequential, "sequential"),
                Some("discrepancy") => (TaskOrder::Discrepancy, "discrepancy"),
                Some(other) => return Err(unknown("--order: unknown task order", other, &ORDERS)),
            };
            choice.skeleton = Skeleton::Ordered { spawn_depth, order };
            choice.spawn_depth = Some(spawn_depth);
            choice.order = Some(order_name);
            if let Some(v) = &args.replicable {
                let window = number("--replicable", v, 1usize, "a number of tasks")?;
                choice.replicable_window = NonZeroUsize::new(window);
            }
        }
    }
    Ok(choice)
}

// ---------------------------------------------------------------------------------------
// Problems

/// A loaded problem, ready to search.
pub(crate) enum Problem {
    MaxClique {
        path: PathBuf,
        graph: maxclique::Graph,
        target: Option<usize>,
    },
    Knapsack {
        path: PathBuf,
        inst: Box<knapsack::Instance>,
        /// 1-based position in the file.
        number: usize,
    },
    Tsp {
        path: PathBuf,
        inst: tsp::Instance,
    },
    Uts {
        /// The tree's name, or the flags as given.
        label: String,
        flags: String,
        params: uts::Params,
        named: Option<&'static uts::NamedTree>,
    },
    Ns {
        tree: ns::Tree,
    },
    NQueens {
        board: nqueens::Board,
    },
}

impl Problem {
    fn app(&self) -> &'static str {
        match self {
            Problem::MaxClique { .. } => "maxclique",
            Problem::Knapsack { .. } => "knapsack",
            Problem::Tsp { .. } => "tsp",
            Problem::Uts { .. } => "uts",
            Problem::Ns { .. } => "ns",
            Problem::NQueens { .. } => "nqueens",
        }
    }

    /// The instance as reported: the file, or the parameters.
    fn instance(&self) -> String {
        match self {
            Problem::MaxClique { path, .. }
            | Problem::Knapsack { path, .. }
            | Problem::Tsp { path, .. } => path.display().to_string(),
            Problem::Uts { label, .. } => label.clone(),
            Problem::Ns { tree } => format!("genus {}", tree.max_genus()),
            Problem::NQueens { board } => format!("{0}x{0} board", board.n()),
        }
    }
}

/// The most nodes the ordered skeleton may find down to `--spawn-depth` in discrepancy
/// order or with `--distributed` (where the pool may hold most of the nodes at that depth as
/// tasks at once; in sequential order a local pool holds one path's siblings, and no cap
/// applies): 2^22, a fraction of a second to visit and at most a few hundred MiB of tasks.
/// A deeper spawn depth on a wide tree (N-Queens 28 at depth 12 ran out of 4 GiB) is a usage
/// error, checked by counting the unpruned tree first.
pub const MAX_ORDERED_NODES: u64 = 1 << 22;

/// The nodes at depths 1..=`depth` of `space` (without pruning: at least as many as a search
/// visits), or `None` once there are more than `cap`.
fn count_down_to<S: SearchSpace + ?Sized>(space: &S, depth: usize, cap: u64) -> Option<u64> {
    let mut count = 0u64;
    let mut stack = vec![space.children(&space.root())];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(child) => {
                count += 1;
                if count > cap {
                    return None;
                }
                if stack.len() < depth {
                    let children = space.children(&child);
                    stack.push(children);
                }
            }
            None => {
                stack.pop();
            }
        }
    }
    Some(count)
}

impl Problem {
    /// [`count_down_to`] on this problem's search space.
    fn nodes_down_to(&self, depth: usize, cap: u64) -> Option<u64> {
        if depth == 0 {
            return Some(0);
        }
        match self {
            Problem::MaxClique { graph, .. } => {
                count_down_to(&maxclique::CliqueSpace::new(graph), depth, cap)
            }
            Problem::Knapsack { inst, .. } => count_down_to(&**inst, depth, cap),
            Problem::Tsp { inst, .. } => count_down_to(inst, depth, cap),
            Problem::Uts { params, .. } => count_down_to(params, depth, cap),
            Problem::Ns { tree } => count_down_to(tree, depth, cap),
            Problem::NQueens { board } => count_down_to(board, depth, cap),
        }
    }
}

/// The options that belong to one application; each one given to another is an error.
fn check_app_options(app: &str, args: &SearchArgs) -> Result<(), Failure> {
    let given: [(&str, bool, &[&str]); 9] = [
        (
            "a FILE",
            args.input.is_some(),
            &["maxclique", "knapsack", "tsp"],
        ),
        ("--target", args.target.is_some(), &["maxclique"]),
        ("--instance", args.instance.is_some(), &["knapsack"]),
        ("--tree", args.tree.is_some(), &["uts"]),
        ("--flags", args.flags.is_some(), &["uts"]),
        ("--genus", args.genus.is_some(), &["ns"]),
        ("--n", args.n.is_some(), &["nqueens"]),
        // A depth limit would make an optimum or a decision wrong (a truncated tree hides
        // better nodes); an enumeration of a truncated tree is still well defined.
        (
            "--max-depth",
            args.max_depth.is_some(),
            &["uts", "ns", "nqueens"],
        ),
        // Enumerations with the ordered skeleton are replicable without it.
        (
            "--replicable",
            args.replicable.is_some(),
            &["maxclique", "knapsack", "tsp"],
        ),
    ];
    for (what, is_given, apps) in given {
        if !is_given || apps.contains(&app) {
            continue;
        }
        return usage(if what == "a FILE" {
            let file = args.input.as_deref().unwrap_or(Path::new(""));
            format!(
                "{app} takes no input file (got {:?}); {}",
                file.display().to_string(),
                app_inputs(app)
            )
        } else {
            format!("{what} applies to {} only, not to {app}", apps.join(", "))
        });
    }
    Ok(())
}

/// How an application's input is given, for errors.
fn app_inputs(app: &str) -> &'static str {
    match app {
        "maxclique" => "usage: magpie search maxclique FILE.clq [--target K]",
        "knapsack" => "usage: magpie search knapsack FILE [--instance NAME|NUMBER]",
        "tsp" => "usage: magpie search tsp FILE.tsp",
        "uts" => "usage: magpie search uts --tree NAME | --flags \"-t 1 -a 3 -d 10 -b 4 -r 19\"",
        "ns" => "usage: magpie search ns --genus G",
        _ => "usage: magpie search nqueens --n N",
    }
}

fn load(app: &str, args: &SearchArgs) -> Result<Problem, Failure> {
    let file = || match &args.input {
        Some(p) => Ok(p.clone()),
        None => usage(format!("{app} needs an input file; {}", app_inputs(app))),
    };
    Ok(match app {
        "maxclique" => {
            let path = file()?;
            let target = match &args.target {
                Some(v) => Some(number("--target", v, 0usize, "a clique size")?),
                None => None,
            };
            let graph = maxclique::read_dimacs(&path)?;
            Problem::MaxClique {
                path,
                graph,
                target,
            }
        }
        "knapsack" => {
            let path = file()?;
            let all = knapsack::read(&path)?;
            let number = match args.instance.as_deref().map(str::trim) {
                None => 1,
                Some(v) => match all.iter().position(|i| i.name() == v) {
                    Some(i) => i + 1,
                    None => match v.parse::<usize>() {
                        Ok(k) if (1..=all.len()).contains(&k) => k,
                        _ => {
                            let first = all.first().map_or("", |i| i.name());
                            return usage(format!(
                                "{}: --instance {v:?}: no instance of that name, and not a \
                                 number in 1..={} (the first instance is {first:?})",
                                path.display(),
                                all.len()
                            ));
                        }
                    },
                },
            };
            let inst = Box::new(all.into_iter().nth(number - 1).expect("number checked"));
            Problem::Knapsack { path, inst, number }
        }
        "tsp" => {
            let path = file()?;
            let inst = tsp::read(&path)?;
            Problem::Tsp { path, inst }
        }
        "uts" => match (&args.tree, &args.flags) {
            (Some(name), None) => {
                let params = uts::Params::named(name.trim())?;
                let named = uts::NamedTree::find(name.trim()).expect("named() found it");
                Problem::Uts {
                    label: named.name.to_string(),
                    flags: named.flags.to_string(),
                    params,
                    named: Some(named),
                }
            }
            (None, Some(flags)) => Problem::Uts {
                label: flags.trim().to_string(),
                flags: flags.trim().to_string(),
                params: uts::Params::from_flags(flags)?,
                named: None,
            },
            (Some(_), Some(_)) => return usage("uts takes --tree or --flags, not both"),
            (None, None) => {
                let names: Vec<&str> = uts::NAMED_TREES.iter().map(|t| t.name).collect();
                return usage(format!(
                    "uts needs a tree: --tree NAME (one of {}) or --flags \"-t 1 -a 3 -d 10 -b 4 -r 19\"",
                    names.join(", ")
                ));
            }
        },
        "ns" => match &args.genus {
            Some(g) => Problem::Ns {
                tree: ns::Tree::new(number("--genus", g, 0u64, "a genus")?)?,
            },
            None => return usage(format!("ns needs --genus G; {}", app_inputs(app))),
        },
        _ => match &args.n {
            Some(n) => Problem::NQueens {
                board: nqueens::Board::new(number("--n", n, 0u64, "a board size")?)?,
            },
            None => return usage(format!("nqueens needs --n N; {}", app_inputs(app))),
        },
    })
}

// ---------------------------------------------------------------------------------------
// Answers and the report

/// The answer of each application, as it appears in the JSON object (its fields are
/// flattened into the report).
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum Answer {
    MaxClique {
        vertices: usize,
        edges: usize,
        omega: usize,
        /// 1-based vertex ids, ascending.
        clique: Vec<usize>,
    },
    CliqueDecision {
        vertices: usize,
        edges: usize,
        target: usize,
        found: bool,
        clique: Option<Vec<usize>>,
    },
    Knapsack {
        instance_name: String,
        /// 1-based position of the instance in the file.
        instance_number: usize,
        items_in_instance: usize,
        capacity: u64,
        /// Profit, weight and capacity are scaled by `10^decimals` (exact integers).
        decimals: u32,
        profit: u64,
        weight: u64,
        /// 0-based item indices in file order, ascending.
        items: Vec<usize>,
    },
    Tsp {
        cities: usize,
        length: i64,
        /// 1-based city ids in visiting order, starting with city 1.
        tour: Vec<usize>,
        /// Whether the start tour (nearest neighbour + 2-opt) was already optimal.
        heuristic_optimal: bool,
    },
    Uts {
        flags: String,
        nodes: u64,
        leaves: u64,
        depth: u32,
    },
    Ns {
        genus: usize,
        /// `counts[g]`: the number of numerical semigroups of genus `g`.
        counts: Vec<u64>,
    },
    NQueens {
        n: u32,
        solutions: u64,
    },
}

impl Answer {
    /// The answer in the canonical form of [`Solved::answer`].
    fn key(&self) -> String {
        match self {
            Answer::MaxClique { omega, .. } => format!("omega {omega}"),
            Answer::CliqueDecision { target, found, .. } => {
                let verdict = if *found { "found" } else { "none" };
                format!("clique of {target}: {verdict}")
            }
            Answer::Knapsack { profit, .. } => format!("profit {profit}"),
            Answer::Tsp { length, .. } => format!("length {length}"),
            Answer::Uts {
                nodes,
                leaves,
                depth,
                ..
            } => uts_key(*nodes, *leaves, *depth),
            Answer::Ns { counts, .. } => ns_key(counts),
            Answer::NQueens { solutions, .. } => nqueens_key(*solutions),
        }
    }
}

/// How the check of an answer that could not be compared with anything begins (a count of a
/// tree cut by `--max-depth`, an N-Queens size with no known count): the text report prints
/// it as it is instead of `ok: …`.
pub const NOT_CHECKED: &str = "not checked: ";

/// [`Solved::answer`] of a UTS count.
pub fn uts_key(nodes: u64, leaves: u64, depth: u32) -> String {
    format!("nodes {nodes}, leaves {leaves}, depth {depth}")
}

/// [`Solved::answer`] of numerical-semigroup counts (genus 0, 1, …).
pub fn ns_key(counts: &[u64]) -> String {
    format!("counts {}", ids_u64(counts))
}

/// [`Solved::answer`] of an N-Queens count.
pub fn nqueens_key(solutions: u64) -> String {
    format!("{solutions} solutions")
}

/// [`SearchStats`] as reported.
#[derive(Debug, Serialize)]
struct StatsReport {
    expanded: u64,
    pruned: u64,
    backtracks: u64,
    tasks: u64,
    steals: u64,
    per_worker: Vec<u64>,
    seconds: f64,
}

impl From<&SearchStats> for StatsReport {
    fn from(s: &SearchStats) -> Self {
        StatsReport {
            expanded: s.expanded,
            pruned: s.pruned,
            backtracks: s.backtracks,
            tasks: s.tasks,
            steals: s.steals,
            per_worker: s.per_worker.clone(),
            seconds: s.time.as_secs_f64(),
        }
    }
}

/// Everything printed about one search: the JSON object, field for field.
#[derive(Debug, Serialize)]
struct Report {
    app: &'static str,
    instance: String,
    #[serde(flatten)]
    answer: Answer,
    /// What was checked (every answer is checked before it is reported).
    check: String,
    skeleton: &'static str,
    skeleton_params: SkeletonChoice,
    max_depth: Option<usize>,
    workers: usize,
    deque: &'static str,
    seconds: f64,
    expanded: u64,
    stats: StatsReport,
}

/// Checks NS counts per genus: one per genus up to `max_genus` (or `max_depth`), equal to
/// the published ones as far as those go. `Ok` is how many were compared, `Err` the mismatch.
pub(crate) fn check_known_ns(
    counts: &[u64],
    max_genus: usize,
    max_depth: Option<usize>,
) -> Result<usize, String> {
    let deepest = max_depth.map_or(max_genus, |d| d.min(max_genus));
    if counts.len() != deepest + 1 {
        return Err(format!("{} counts for genus 0..={deepest}", counts.len()));
    }
    let known = counts.len().min(ns::EXPECTED_COUNTS.len());
    if counts[..known] != ns::EXPECTED_COUNTS[..known] {
        return Err(format!(
            "counts {:?} differ from the known {:?}",
            &counts[..known],
            &ns::EXPECTED_COUNTS[..known]
        ));
    }
    Ok(known)
}

/// Compares UTS counts with the published ones of a named tree (only a full search can be
/// compared): `Ok` says what was checked (`otherwise` when nothing could be), `Err` names the
/// mismatch and who counted (`counter`: "the search", "rayon").
pub(crate) fn check_published_uts(
    named: Option<&uts::NamedTree>,
    full_search: bool,
    c: &uts::Counts,
    counter: &str,
    otherwise: &str,
) -> Result<String, String> {
    match named {
        Some(t) if full_search => {
            let ok = c.nodes == t.nodes
                && t.leaves.is_none_or(|l| l == c.leaves)
                && t.max_depth.is_none_or(|d| d == c.max_depth);
            if ok {
                Ok(format!("the published counts of {}", t.name))
            } else {
                Err(format!(
                    "{} has {} nodes, {:?} leaves, depth {:?}; {counter} counted {}, {}, {}",
                    t.name, t.nodes, t.leaves, t.max_depth, c.nodes, c.leaves, c.max_depth
                ))
            }
        }
        _ => Ok(otherwise.to_string()),
    }
}

fn check(ok: bool, message: impl FnOnce() -> String) -> Result<(), Failure> {
    if ok {
        Ok(())
    } else {
        Err(Failure::Check(message()))
    }
}

/// Runs the search of `problem` on `pool`; returns the checked answer, what was checked and
/// the statistics.
fn solve(
    problem: &Problem,
    pool: &ThreadPool,
    choice: &SkeletonChoice,
    max_depth: Option<usize>,
) -> Result<(Answer, String, SearchStats), Failure> {
    let sk = choice.skeleton;
    let opts = Options {
        max_depth,
        replicable_window: choice.replicable_window,
        ..Options::default()
    };
    let found = match problem {
        Problem::MaxClique { graph, target, .. } => {
            let space = maxclique::CliqueSpace::new(graph);
            // Children come in colour order with non-increasing bounds, so a failed bound
            // also rules out the later siblings.
            let opts = Options {
                prune_level: true,
                ..opts
            };
            match *target {
                None => {
                    let out = pool.install(|| search::optimise(&space, sk, &opts));
                    (Found::Clique(out.value), out.stats)
                }
                Some(k) => {
                    let out = pool.install(|| search::decide(&space, k as i64, sk, &opts));
                    (Found::CliqueDecision(out.value), out.stats)
                }
            }
        }
        Problem::Knapsack { inst, .. } => {
            // Children come include-first, which does not order their bounds: no prune-level.
            let out = pool.install(|| search::optimise(&**inst, sk, &opts));
            (Found::Knapsack(out.value), out.stats)
        }
        Problem::Tsp { inst, .. } => {
            let start = tsp::heuristic_tour(inst);
            // Only strictly better tours replace the incumbent: starting from the heuristic
            // tour's length, `None` means that tour is optimal (as `tsp::solve` does).
            let opts = Options {
                initial_bound: Some(-start.length),
                ..opts
            };
            let out = pool.install(|| search::optimise(inst, sk, &opts));
            (Found::Tsp(out.value, start), out.stats)
        }
        Problem::Uts { params, .. } => {
            let out = pool.install(|| search::enumerate(params, &uts::Tally(params), sk, &opts));
            (Found::Uts(out.value), out.stats)
        }
        Problem::Ns { tree } => {
            let out = pool.install(|| search::enumerate(tree, &CountPerDepth, sk, &opts));
            (Found::Ns(out.value), out.stats)
        }
        Problem::NQueens { board } => {
            let n = board.n();
            let out = pool.install(|| search::enumerate(board, &nqueens::Solutions(n), sk, &opts));
            (Found::NQueens(out.value), out.stats)
        }
    };
    let (found, stats) = found;
    let (answer, what) = checked(problem, found, stats.expanded, max_depth)?;
    Ok((answer, what, stats))
}

/// What a search found, by application, before it is checked.
pub(crate) enum Found {
    /// maxclique: the largest clique's size and node.
    Clique(Option<(i64, maxclique::BoundedClique)>),
    /// maxclique --target: a clique of the target size, if any.
    CliqueDecision(Option<maxclique::BoundedClique>),
    /// knapsack: the best profit and selection.
    Knapsack(Option<(i64, knapsack::KnapNode)>),
    /// tsp: a tour better than the heuristic one (`None`: the heuristic tour is optimal), and
    /// the heuristic tour.
    Tsp(Option<(i64, tsp::TspNode)>, tsp::Tour),
    /// UTS: nodes, leaves, depth.
    Uts(uts::Counts),
    /// NS: the count of each genus.
    Ns(Vec<u64>),
    /// N-Queens: the solutions.
    NQueens(u64),
}

/// Checks what the search of `problem` found (`expanded`: the nodes it visited) — a clique
/// is a clique, a selection fits, a tour visits every city, counts equal the published ones —
/// and returns the answer and what was checked. Shared by the local search and the
/// distributed one.
pub(crate) fn checked(
    problem: &Problem,
    found: Found,
    expanded: u64,
    max_depth: Option<usize>,
) -> Result<(Answer, String), Failure> {
    match (problem, found) {
        (Problem::MaxClique { graph, .. }, Found::Clique(value)) => {
            let space = maxclique::CliqueSpace::new(graph);
            let (vertices, edges) = (graph.n(), graph.edge_count());
            let (omega, node) = value
                .ok_or_else(|| Failure::Check("the search returned no clique at all".into()))?;
            let clique = space.clique(&node);
            check(
                maxclique::is_clique(graph, &clique) && clique.len() as i64 == omega,
                || {
                    format!(
                        "reported ω = {omega} with {clique:?}, which is not a clique of that size"
                    )
                },
            )?;
            let what = format!("the {omega} vertices are pairwise adjacent");
            let omega = clique.len();
            let answer = Answer::MaxClique {
                vertices,
                edges,
                omega,
                clique,
            };
            Ok((answer, what))
        }
        (Problem::MaxClique { graph, target, .. }, Found::CliqueDecision(value)) => {
            let k = target.expect("a decision has a target");
            let space = maxclique::CliqueSpace::new(graph);
            let (vertices, edges) = (graph.n(), graph.edge_count());
            let clique = value.as_ref().map(|n| space.clique(n));
            let what = match &clique {
                Some(c) => {
                    check(maxclique::is_clique(graph, c) && c.len() >= k, || {
                        format!("the clique found for --target {k}, {c:?}, is not a clique of {k} vertices")
                    })?;
                    format!("the {} vertices are pairwise adjacent", c.len())
                }
                // The search itself is the proof; there is nothing to recheck.
                None => format!("none found: the whole tree was searched for {k} vertices"),
            };
            let answer = Answer::CliqueDecision {
                vertices,
                edges,
                target: k,
                found: clique.is_some(),
                clique,
            };
            Ok((answer, what))
        }
        (Problem::Knapsack { inst, number, .. }, Found::Knapsack(value)) => {
            let inst: &knapsack::Instance = inst;
            let (profit, node) = value
                .ok_or_else(|| Failure::Check("the search returned no selection at all".into()))?;
            // The node keeps no selection: a selection worth its profit, made now.
            let items = inst
                .certificate(node.profit)
                .ok_or_else(|| {
                    Failure::Check(format!("no selection is worth the reported {profit}"))
                })?
                .items;
            let (sum, weight) = inst.evaluate(&items);
            check(
                profit >= 0 && sum == profit as u64 && weight <= inst.capacity(),
                || {
                    format!("items {items:?} weigh {weight} (capacity {}) and are worth {sum}, not the reported {profit}", inst.capacity())
                },
            )?;
            let mut what = format!(
                "the {} items weigh {} <= capacity {} and are worth {}",
                items.len(),
                scaled(weight, inst.decimals()),
                scaled(inst.capacity(), inst.decimals()),
                scaled(sum, inst.decimals())
            );
            if let Some(z) = inst.stated_optimum() {
                check(z == sum, || {
                    format!("the search found profit {sum} but the file states the optimum {z}")
                })?;
                what.push_str(", the optimum stated in the file");
            }
            let answer = Answer::Knapsack {
                instance_name: inst.name().to_string(),
                instance_number: *number,
                items_in_instance: inst.len(),
                capacity: inst.capacity(),
                decimals: inst.decimals(),
                profit: sum,
                weight,
                items,
            };
            Ok((answer, what))
        }
        (Problem::Tsp { inst, .. }, Found::Tsp(value, start)) => {
            let heuristic_optimal = value.is_none();
            let tour = match &value {
                Some((_, node)) => node.tour(inst),
                None => start.clone(),
            };
            let mut sorted = tour.cities.clone();
            sorted.sort_unstable();
            check(sorted.iter().copied().eq(1..=inst.len()), || {
                format!(
                    "the tour {:?} does not visit every city exactly once",
                    tour.cities
                )
            })?;
            let length = tsp::tour_length(inst, &tour.cities);
            check(length == tour.length && length <= start.length, || {
                format!(
                    "the tour's length is {length}, not the reported {} (start tour {})",
                    tour.length, start.length
                )
            })?;
            let what = format!(
                "the tour visits each of the {} cities once and has length {length}",
                inst.len()
            );
            let answer = Answer::Tsp {
                cities: inst.len(),
                length,
                tour: tour.cities,
                heuristic_optimal,
            };
            Ok((answer, what))
        }
        (Problem::Uts { flags, named, .. }, Found::Uts(c)) => {
            // Every node of an enumeration is expanded once: the fold and the engine's own
            // counter must agree.
            check(c.nodes == expanded, || {
                format!(
                    "the tree has {} nodes by the fold but {expanded} by the engine's counter",
                    c.nodes
                )
            })?;
            let what = check_published_uts(
                *named,
                max_depth.is_none(),
                &c,
                "the search",
                "nodes counted = nodes expanded (no published counts to compare)",
            )
            .or_else(|m| check(false, || m).map(|()| String::new()))?;
            let answer = Answer::Uts {
                flags: flags.clone(),
                nodes: c.nodes,
                leaves: c.leaves,
                depth: c.max_depth,
            };
            Ok((answer, what))
        }
        (Problem::Ns { tree }, Found::Ns(counts)) => {
            let g = tree.max_genus();
            let total: u64 = counts.iter().sum();
            check(total == expanded, || {
                format!("the counts add up to {total} but the engine expanded {expanded} nodes")
            })?;
            // The published counts go to genus 50; beyond, only the consistency checks above.
            let known = check_known_ns(&counts, g, max_depth)
                .or_else(|m| check(false, || m).map(|()| 0))?;
            let mut what = format!("the known counts of genus 0..={} (OEIS A007323)", known - 1);
            if known < counts.len() {
                what.push_str("; above that, counts add up to the nodes expanded");
            }
            Ok((Answer::Ns { genus: g, counts }, what))
        }
        (Problem::NQueens { board }, Found::NQueens(solutions)) => {
            let n = board.n();
            let known = magpie_apps::NQUEENS_SOLUTIONS.get(n as usize).copied();
            let what = match known {
                Some(want) if max_depth.is_none_or(|d| d >= n as usize) => {
                    check(solutions == want, || {
                        format!("{solutions} solutions, but {n}-Queens has {want}")
                    })?;
                    "the known count (OEIS A000170)".to_string()
                }
                Some(_) => format!(
                    "{NOT_CHECKED}a count cut at --max-depth {} has no known value",
                    max_depth.unwrap_or(0)
                ),
                None => format!("{NOT_CHECKED}no known count for {n}-Queens"),
            };
            Ok((Answer::NQueens { n, solutions }, what))
        }
        _ => unreachable!("a search's result is of its own application"),
    }
}

/// `value / 10^decimals` written exactly.
fn scaled(value: u64, decimals: u32) -> String {
    if decimals == 0 {
        return value.to_string();
    }
    let unit = 10u64.pow(decimals);
    format!(
        "{}.{:0width$}",
        value / unit,
        value % unit,
        width = decimals as usize
    )
}

/// A search ready to run: its options validated and its input loaded. `magpie search`
/// prepares one and solves it once; `magpie experiment` solves it on many pools.
pub struct Prepared {
    problem: Problem,
    choice: SkeletonChoice,
    max_depth: Option<usize>,
}

/// One checked solve (see [`Prepared::solve`]).
pub struct Solved {
    /// The answer in a short canonical form that every correct run of the same search
    /// gives (the optimum's value, not which optimal node was found): `omega 12`,
    /// `nodes 1732, leaves 1313, depth 6`, …
    pub answer: String,
    /// What was checked.
    pub check: String,
    /// The search's statistics; `time` is the search's own wall-clock time.
    pub stats: SearchStats,
}

/// An enumeration's tree, for runtimes other than magpie (`magpie experiment --peers`).
pub enum Tree<'a> {
    /// A UTS tree and its published counts, if it is a named tree.
    Uts(&'a uts::Params, Option<&'static uts::NamedTree>),
    /// Numerical semigroups up to a genus.
    Ns(&'a ns::Tree),
    /// An N-Queens board.
    NQueens(&'a nqueens::Board),
}

/// Validates `args` (application, its options, the skeleton) and loads the input: every
/// usage or input error of `magpie search` that does not need a pool.
pub fn prepare(args: &SearchArgs) -> Result<Prepared, Failure> {
    let app = args.app.trim();
    if !APPS.contains(&app) {
        return Err(unknown("unknown application", app, &APPS));
    }
    check_app_options(app, args)?;
    if !args.distributed && args.remote_victims.is_some() {
        return usage("--remote-victims applies to --distributed only");
    }
    if args.replicable.is_some() && args.target.is_some() {
        return usage(
            "--replicable applies to optimisation only; --target makes maxclique a decision, \
             whose search stops at the first clique found",
        );
    }
    if args.replicable.is_some() && args.distributed {
        return usage(
            "--replicable applies to one process only: over MPI the ordered skeleton shares \
             every incumbent as soon as it is found",
        );
    }
    let choice = skeleton(args)?;
    let max_depth = match &args.max_depth {
        Some(v) => Some(number("--max-depth", v, 0usize, "a depth")?),
        None => None,
    };
    let problem = load(app, args)?;
    // Locally in sequential order the priority pool holds only the unexpanded siblings along
    // one path (the frontier is generated as tasks start); in discrepancy order, and over
    // MPI (rank 0 collects every task first), it may hold most of the frontier.
    if let Skeleton::Ordered { spawn_depth, order } = choice.skeleton {
        let materialised = args.distributed || order == TaskOrder::Discrepancy;
        if materialised
            && problem
                .nodes_down_to(spawn_depth, MAX_ORDERED_NODES)
                .is_none()
        {
            return usage(format!(
                "--spawn-depth {spawn_depth}: the ordered skeleton would visit more than \
                 {MAX_ORDERED_NODES} nodes down to that depth and could keep most of the \
                 deepest in memory as tasks (in discrepancy order or --distributed); give a \
                 smaller --spawn-depth, or --order sequential on one process"
            ));
        }
    }
    Ok(Prepared {
        problem,
        choice,
        max_depth,
    })
}

impl Prepared {
    /// The application's name (`uts`, …).
    pub fn app(&self) -> &'static str {
        self.problem.app()
    }

    /// `--max-depth`, if given.
    pub fn max_depth(&self) -> Option<usize> {
        self.max_depth
    }

    /// The spawn depth of the skeleton, if it has one (depth-bounded, ordered).
    pub fn spawn_depth(&self) -> Option<usize> {
        self.choice.spawn_depth
    }

    /// The tree of an enumeration (uts, ns, nqueens); `None` for the other applications.
    pub fn tree(&self) -> Option<Tree<'_>> {
        match &self.problem {
            Problem::Uts { params, named, .. } => Some(Tree::Uts(params, *named)),
            Problem::Ns { tree } => Some(Tree::Ns(tree)),
            Problem::NQueens { board } => Some(Tree::NQueens(board)),
            _ => None,
        }
    }

    /// Runs the search once on `pool` and checks its answer, as `magpie search` does.
    pub fn solve(&self, pool: &ThreadPool) -> Result<Solved, Failure> {
        let (answer, check, stats) = solve(&self.problem, pool, &self.choice, self.max_depth)?;
        Ok(Solved {
            answer: answer.key(),
            check,
            stats,
        })
    }
}

#[cfg(feature = "mpi")]
pub mod distributed;

/// The pool a search runs on, from the global options (with its deque and worker count, for
/// the report). Default worker stacks: the engine's walk does not recurse per tree level.
fn build_pool(config: &Config) -> Result<(ThreadPool, magpie::deque::DequeKind, usize), Failure> {
    let deque = config.deque.value;
    let workers = config.workers.value;
    let pool = config
        .builder(deque, workers)
        .build()
        .map_err(ConfigError::from)?;
    Ok((pool, deque, workers))
}

/// The pool configuration of a search with `choice`: the seq skeleton runs on one worker, so
/// its pool has one (and reports one); `--workers N` with N > 1 cannot apply to it and is an
/// error (a `MAGPIE_NUM_WORKERS` default is not).
fn pool_config(config: &Config, choice: &SkeletonChoice) -> Result<Config, Failure> {
    if choice.name != "seq" {
        return Ok(config.clone());
    }
    if matches!(config.workers.source, Source::Flag(_)) && config.workers.value != 1 {
        return usage(format!(
            "--workers {}: the seq skeleton runs on one worker (leave out --workers or give 1)",
            config.workers.value
        ));
    }
    let mut one = config.clone();
    one.workers.value = 1;
    Ok(one)
}

/// Runs `magpie search` and prints its report.
pub fn run(args: &SearchArgs, config: &Config) -> Result<(), Failure> {
    let Prepared {
        problem,
        choice,
        max_depth,
    } = prepare(args)?;

    let (pool, deque, workers) = build_pool(&pool_config(config, &choice)?)?;
    let (answer, what, stats) = solve(&problem, &pool, &choice, max_depth)?;

    let report = Report {
        app: problem.app(),
        instance: problem.instance(),
        answer,
        check: what,
        skeleton: choice.name,
        skeleton_params: choice.clone(),
        max_depth,
        workers,
        deque: deque.name(),
        seconds: stats.time.as_secs_f64(),
        expanded: stats.expanded,
        stats: StatsReport::from(&stats),
    };
    if args.json {
        let text = serde_json::to_string(&report)
            .map_err(|e| Failure::Check(format!("cannot write the JSON report: {e}")))?;
        println!("{text}");
    } else {
        print_text(&report, &choice, &stats, args.stats);
    }
    Ok(())
}

fn line(key: &str, value: impl Display) {
    println!("{key:<12}{value}");
}

fn ids(v: &[usize]) -> String {
    v.iter().map(usize::to_string).collect::<Vec<_>>().join(" ")
}

fn seconds(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

fn print_text(r: &Report, choice: &SkeletonChoice, stats: &SearchStats, all: bool) {
    line("app", r.app);
    match &r.answer {
        Answer::MaxClique {
            vertices,
            edges,
            omega,
            clique,
        } => {
            line(
                "instance",
                format!("{} ({vertices} vertices, {edges} edges)", r.instance),
            );
            line("answer", format!("maximum clique size {omega}"));
            line("clique", ids(clique));
        }
        Answer::CliqueDecision {
            vertices,
            edges,
            target,
            found,
            clique,
        } => {
            line(
                "instance",
                format!("{} ({vertices} vertices, {edges} edges)", r.instance),
            );
            let verdict = if *found { "found" } else { "none" };
            line("answer", format!("clique of {target} vertices: {verdict}"));
            if let Some(c) = clique {
                line("clique", ids(c));
            }
        }
        Answer::Knapsack {
            instance_name,
            instance_number,
            items_in_instance,
            capacity,
            decimals,
            profit,
            weight,
            items,
        } => {
            line(
                "instance",
                format!(
                    "{} ({instance_name:?}, number {instance_number}: {items_in_instance} items, capacity {})",
                    r.instance,
                    scaled(*capacity, *decimals)
                ),
            );
            line(
                "answer",
                format!(
                    "maximum profit {} (weight {})",
                    scaled(*profit, *decimals),
                    scaled(*weight, *decimals)
                ),
            );
            line("items", format!("{} (0-based, file order)", ids(items)));
        }
        Answer::Tsp {
            cities,
            length,
            tour,
            heuristic_optimal,
        } => {
            line("instance", format!("{} ({cities} cities)", r.instance));
            let note = if *heuristic_optimal {
                " (the start tour was already optimal)"
            } else {
                ""
            };
            line("answer", format!("shortest tour length {length}{note}"));
            line("tour", ids(tour));
        }
        Answer::Uts {
            flags,
            nodes,
            leaves,
            depth,
        } => {
            let instance = if *flags == r.instance {
                flags.clone()
            } else {
                format!("{} ({flags})", r.instance)
            };
            line("instance", instance);
            let cut = match r.max_depth {
                Some(d) => format!(" (of the tree cut at --max-depth {d})"),
                None => String::new(),
            };
            line(
                "answer",
                format!("{nodes} nodes, {leaves} leaves, depth {depth}{cut}"),
            );
        }
        Answer::Ns { counts, .. } => {
            line("instance", &r.instance);
            let last = counts.last().copied().unwrap_or(0);
            line(
                "answer",
                format!(
                    "{last} numerical semigroups of genus {}",
                    counts.len().saturating_sub(1)
                ),
            );
            line("counts", format!("{} (genus 0, 1, ...)", ids_u64(counts)));
        }
        Answer::NQueens { n, solutions } => {
            line("instance", &r.instance);
            let answer = match r.max_depth {
                Some(d) if d < *n as usize => format!(
                    "{solutions} complete placements of {n} queens: --max-depth {d} cuts the \
                     search above row {n} (not the number of {n}-Queens solutions)"
                ),
                _ => format!("{solutions} solutions of {n}-Queens"),
            };
            line("answer", answer);
        }
    }
    if r.check.starts_with(NOT_CHECKED) {
        line("check", &r.check);
    } else {
        line("check", format!("ok: {}", r.check));
    }
    line("skeleton", choice.describe());
    if let Some(d) = r.max_depth {
        line("max depth", d);
    }
    line("workers", format!("{} (deque {})", r.workers, r.deque));
    line("seconds", seconds(stats.time));
    line("expanded", stats.expanded);
    if all {
        line("pruned", stats.pruned);
        line("backtracks", stats.backtracks);
        line("tasks", stats.tasks);
        line("steals", stats.steals);
        line("per worker", ids_u64(&stats.per_worker));
    }
}

fn ids_u64(v: &[u64]) -> String {
    v.iter().map(u64::to_string).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_writes_exact_decimals() {
        assert_eq!(scaled(4810694, 4), "481.0694");
        assert_eq!(scaled(5, 3), "0.005");
        assert_eq!(scaled(295, 0), "295");
    }

    #[test]
    fn nodes_down_to_counts_the_unpruned_tree_and_stops_at_the_cap() {
        let board = nqueens::Board::new(8).unwrap();
        let q = Problem::NQueens { board };
        // 8-Queens: 8 nodes at depth 1, 42 at depth 2, 140 at depth 3.
        assert_eq!(q.nodes_down_to(0, 10), Some(0));
        assert_eq!(q.nodes_down_to(1, 10), Some(8));
        assert_eq!(q.nodes_down_to(3, 1000), Some(8 + 42 + 140));
        assert_eq!(q.nodes_down_to(3, 189), None);
        let board = nqueens::Board::new(28).unwrap();
        let start = std::time::Instant::now();
        assert_eq!(
            Problem::NQueens { board }.nodes_down_to(12, MAX_ORDERED_NODES),
            None
        );
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn numbers_name_the_flag() {
        let Err(Failure::Usage(e)) = number("--budget", "0", 1u64, "a number of backtracks") else {
            panic!("0 accepted")
        };
        assert_eq!(e, "--budget 0: a number of backtracks must be at least 1");
        let Err(Failure::Usage(e)) = number("--genus", "-3", 0u64, "a genus") else {
            panic!("-3 accepted")
        };
        assert!(
            e.starts_with("--genus \"-3\": expected a whole number"),
            "{e}"
        );
    }
}
