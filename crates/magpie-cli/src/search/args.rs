//! `magpie search`'s arguments: the clap options (every value a string, see the module doc
//! of [`crate::search`]), the help text, and their validation into a [`SkeletonChoice`]
//! and the options of one application.

use std::num::NonZeroUsize;
use std::path::PathBuf;

use clap::Args;
use magpie::search::{Skeleton, TaskOrder};
use magpie_apps::registry::{self, AppArgs, Goal, SearchApp, SEARCH_APPS};
use magpie_apps::uts;
use serde::Serialize;

use crate::error::{number, usage, Failure};

/// The spawn depth of `depth-bounded` and `ordered` when `--spawn-depth` is not given.
pub const DEFAULT_SPAWN_DEPTH: usize = 2;
/// The backtrack budget of `budget` when `--budget` is not given.
pub const DEFAULT_BUDGET: u64 = 10_000;

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
        "Applications and their inputs:\n{}\n\n\
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
         fit and sum to the profit, the tour visits every city once and has that length, the\n\
         embedding is injective and keeps every pattern edge, counts match the published values\n\
         where known): a failed check exits 1.\n\n\
         Examples:\n  \
         magpie search maxclique brock200_2.clq --target 12\n  \
         magpie search knapsack knapPI_1_50_1000.csv --instance knapPI_1_50_1000_7 --json\n  \
         magpie search uts --tree T1 --skeleton depth-bounded --spawn-depth 3 --workers 2\n  \
         magpie search ns --genus 30 --skeleton budget --budget 1000 --stats\n  \
         magpie search sip pattern.lad target.lad --count --skeleton stack-stealing",
        apps_help(),
        wrap(&trees, "  ", 88),
    )
}

/// The applications' entries in the help, from the registry: the synopsis, then what each
/// searches (continued lines under the first).
fn apps_help() -> String {
    let entries: Vec<String> = SEARCH_APPS
        .iter()
        .map(|a| {
            let about = a.about.join(&format!("\n{:32}", ""));
            format!("  {:<30}{about}", a.synopsis)
        })
        .collect();
    entries.join("\n")
}

/// The names of every application, in the registry's order.
pub(crate) fn app_names() -> Vec<&'static str> {
    registry::names(|_| true)
}

/// The help of the APP argument.
fn app_arg_help() -> String {
    format!("Application: {}", app_names().join(", "))
}

/// `text` with `{apps}` replaced by the registry's applications that `keep`: `a, b, c`.
fn naming(text: &str, keep: impl Fn(&SearchApp) -> bool) -> String {
    text.replace("{apps}", &registry::names(keep).join(", "))
}

/// FILE's help: which applications read a file (each one's format is in its entry below).
fn file_help() -> String {
    let text = "Input file ({apps}: the format is in the application's entry below)";
    naming(text, |a| a.takes_file)
}

/// `--replicable`'s help: the optimisations it applies to.
fn replicable_help() -> String {
    let text = "ordered, optimisation ({apps}, without --target): replicable node counts; task \
                k prunes with what tasks up to k - W found (W: a few times the workers)";
    naming(text, |a| a.goal == Goal::Optimise)
}

/// `--max-depth`'s help: the enumerations it applies to.
pub(crate) fn max_depth_help() -> String {
    let text = "{apps}: do not expand nodes deeper than D (the root is depth 0)";
    naming(text, |a| a.goal == Goal::Enumerate)
}

/// `words` joined by ", " on lines of at most `width` characters, each starting with `indent`.
pub(crate) fn wrap(words: &[&str], indent: &str, width: usize) -> String {
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
    #[arg(value_name = "APP", help = app_arg_help())]
    pub app: String,

    #[arg(value_name = "FILE", help = file_help())]
    pub input: Option<PathBuf>,

    /// Second input file, for an application whose entry below names two
    #[arg(value_name = "FILE2")]
    pub input2: Option<PathBuf>,

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

    /// Replicable node counts for the ordered skeleton (its help names the optimisations)
    #[arg(
        long,
        help = replicable_help(),
        value_name = "W",
        allow_hyphen_values = true,
        help_heading = "Skeleton"
    )]
    pub replicable: Option<String>,

    /// A depth limit for enumerations (its help names them)
    #[arg(long, help = max_depth_help(), value_name = "D", allow_hyphen_values = true,
          help_heading = "Application")]
    pub max_depth: Option<String>,

    /// The applications' own options (`--target`, `--n`, …), declared in the registry
    #[command(flatten)]
    pub app_flags: super::app_flags::AppFlags,

    /// Print one JSON object (always with the statistics) instead of text
    #[arg(long, help_heading = "Output")]
    pub json: bool,

    /// Stop after this long (500ms, 30s, 5m, 1.5h) and report what was found: the best
    /// incumbent (checked; optimality not claimed) or the partial count, with status
    /// time-limit and exit code 3. Ctrl-C (SIGINT) or SIGTERM does the same with status
    /// interrupted; a second one exits at once
    #[arg(long, value_name = "DURATION", help_heading = "Run")]
    pub time_limit: Option<String>,

    /// Write one JSON line per improvement of the incumbent (optimisation) to FILE: time_s,
    /// value, worker, rank, nodes (`magpie plot FILE` draws the curve)
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub incumbents: Option<PathBuf>,

    /// The live progress line on stderr (elapsed, nodes, nodes/s, incumbent, tasks, steals)
    #[command(flatten, next_help_heading = "Output")]
    pub progress: magpie_measure::progress::ProgressArgs,

    /// Run over every rank of an MPI job (`mpirun -np R magpie search … --distributed`)
    /// with the depth-bounded, budget, stack-stealing or ordered skeleton (ordered: rank 0
    /// hands out the tasks in priority order). Needs a build with the `mpi` feature
    #[arg(long, help_heading = "Distributed")]
    pub distributed: bool,

    /// --distributed: how an idle rank picks the rank it asks for work: random, sticky
    /// (the last rank that gave work), perf (the Performance-Driven policy: best score of
    /// load, residual tasks and latency; `perf:KEY=VALUE,…` sets its constants, named as
    /// the core's perf victim policy: alpha, e, min-load, rate-start, refresh-start,
    /// refresh-good, refresh-bad, refresh-min, refresh-max, workers, plus sleep and
    /// max-sleep) [default: random]
    #[arg(long, value_name = "NAME", help_heading = "Distributed")]
    pub remote_victims: Option<String>,

    /// Text output: also print pruned nodes, backtracks, tasks, steals and nodes per worker
    #[arg(long, help_heading = "Output")]
    pub stats: bool,

    /// Write what every worker did (tasks, steals, idle and parked time) to FILE as a Chrome
    /// trace-event file (open it in ui.perfetto.dev); with --distributed, one process
    /// per rank and the messages between ranks
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub trace: Option<PathBuf>,
}

pub(crate) fn unknown(what: &str, given: &str, accepted: &[&str]) -> Failure {
    Failure::Usage(format!(
        "{what} {given:?}; expected one of: {}",
        accepted.join(", ")
    ))
}

// ---------------------------------------------------------------------------------------
// Skeleton

/// The chosen skeleton, with its name and parameters for the report.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SkeletonChoice {
    #[serde(skip)]
    pub(crate) skeleton: Skeleton,
    #[serde(skip)]
    pub(crate) name: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) spawn_depth: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) budget: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) steal_all: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) order: Option<&'static str>,
    /// `--replicable`: the ordered optimisation's replicable window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) replicable_window: Option<NonZeroUsize>,
}

impl SkeletonChoice {
    /// `skeleton`, named `name` on the command line, with its parameters for the report.
    fn new(
        skeleton: Skeleton,
        name: &'static str,
        replicable_window: Option<NonZeroUsize>,
    ) -> Self {
        let mut choice = SkeletonChoice {
            skeleton,
            name,
            spawn_depth: None,
            budget: None,
            steal_all: None,
            order: None,
            replicable_window,
        };
        match skeleton {
            Skeleton::Sequential => {}
            Skeleton::DepthBounded { spawn_depth } => choice.spawn_depth = Some(spawn_depth),
            Skeleton::Budget { backtracks } => choice.budget = Some(backtracks),
            Skeleton::StackStealing { steal_all } => choice.steal_all = Some(steal_all),
            Skeleton::Ordered { spawn_depth, order } => {
                choice.spawn_depth = Some(spawn_depth);
                choice.order = Some(match order {
                    TaskOrder::Sequential => "sequential",
                    TaskOrder::Discrepancy => "discrepancy",
                });
            }
            // A skeleton added later reports no parameters until it is described here.
            _ => {}
        }
        choice
    }

    /// `depth-bounded (spawn depth 2)` and the like.
    pub(crate) fn describe(&self) -> String {
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

pub(crate) fn skeleton(args: &SearchArgs) -> Result<SkeletonChoice, Failure> {
    let given = args.skeleton.as_deref().map(str::trim);
    let name = match given.unwrap_or(DEFAULT_SKELETON) {
        "sequential" => "seq",
        other => SKELETONS
            .into_iter()
            .find(|&n| n == other)
            .ok_or_else(|| unknown("--skeleton: unknown skeleton", other, &SKELETONS))?,
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
    // The skeleton from its spec, `NAME[:PARAMETER]` (magpie's parser of skeleton names),
    // with the parameter of its own option; then the options that modify it.
    let parameter = match name {
        "depth-bounded" | "ordered" => Some(spawn_depth.to_string()),
        "budget" => Some(match &args.budget {
            Some(v) => number("--budget", v, 1u64, "a number of backtracks")?,
            None => DEFAULT_BUDGET,
        })
        .map(|b| b.to_string()),
        _ => None,
    };
    let spec = match parameter {
        Some(p) => format!("{name}:{p}"),
        None => name.to_string(),
    };
    let mut skeleton: Skeleton = spec
        .parse()
        .map_err(|e| Failure::Usage(format!("--skeleton: {e}")))?;
    let mut replicable_window = None;
    match &mut skeleton {
        Skeleton::StackStealing { steal_all } => *steal_all = args.steal_all,
        Skeleton::Ordered { order, .. } => {
            *order = match args.order.as_deref().map(str::trim) {
                None | Some("sequential") => TaskOrder::Sequential,
                Some("discrepancy") => TaskOrder::Discrepancy,
                Some(other) => return Err(unknown("--order: unknown task order", other, &ORDERS)),
            };
            if let Some(v) = &args.replicable {
                let window = number("--replicable", v, 1usize, "a number of tasks")?;
                replicable_window = NonZeroUsize::new(window);
            }
        }
        _ => {}
    }
    Ok(SkeletonChoice::new(skeleton, name, replicable_window))
}

/// The options that belong to one application; each one given to another is an error.
pub(crate) fn check_app_options(
    app: &SearchApp,
    own: &AppArgs,
    args: &SearchArgs,
) -> Result<(), Failure> {
    let name = app.name;
    if let (Some(file), false) = (&args.input, app.takes_file) {
        return usage(format!(
            "{name} takes no input file (got {:?}); {}",
            file.display().to_string(),
            app.usage
        ));
    }
    let applies_only = |flag: &str, to: Vec<&str>| {
        usage(format!(
            "{flag} applies to {} only, not to {name}",
            to.join(", ")
        ))
    };
    for flag in own.flags() {
        if !app.takes(flag) {
            return applies_only(flag, registry::names(|a| a.takes(flag)));
        }
    }
    let by_goal = [
        // A depth limit would make an optimum or a decision wrong (a truncated tree hides
        // better nodes); an enumeration of a truncated tree is still well defined.
        ("--max-depth", args.max_depth.is_some(), Goal::Enumerate),
        // Enumerations with the ordered skeleton are replicable without it.
        ("--replicable", args.replicable.is_some(), Goal::Optimise),
    ];
    for (flag, given, goal) in by_goal {
        if given && app.goal != goal {
            return applies_only(flag, registry::names(|a| a.goal == goal));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The help names the applications from the registry, so a new one appears where it
    /// belongs (FILE listed maxclique to sip by hand and missed mis).
    #[test]
    fn the_help_names_the_applications_the_registry_has() {
        let file = file_help();
        for app in SEARCH_APPS {
            assert_eq!(
                file.contains(app.name),
                app.takes_file,
                "{}: {file}",
                app.name
            );
        }
        assert!(file.contains("mis"), "{file}");
        assert!(max_depth_help().starts_with("uts, ns, nqueens: "));
        let replicable = replicable_help();
        for name in ["maxclique", "knapsack", "tsp", "bipartition", "mis"] {
            assert!(replicable.contains(name), "{replicable}");
        }
        assert!(!replicable.contains("nqueens") && !replicable.contains("sip"));
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
