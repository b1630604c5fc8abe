//! `magpie search`: one exact search (an application of `magpie::search`) on a magpie
//! pool, with the skeleton chosen on the command line, its answer checked, then printed as
//! text or as one JSON object.
//!
//! Every option arrives as a string and is parsed here rather than by clap, so that a bad
//! value, an unknown application or skeleton, and an option that does not apply all end as
//! one line `magpie: error: …` with exit code 2, like the pool configuration errors
//! (clap's own errors are several lines long).
//!
//! The layers, one module each: [`args`] (the options and their validation), [`load`] (the
//! input), [`check`] (each application's answer checked), [`report`] (JSON and text); this
//! module runs a search through them.

pub(crate) mod args;
pub(crate) mod check;
#[cfg(feature = "mpi")]
pub mod distributed;
pub(crate) mod load;
pub(crate) mod report;

use magpie::search::{self, CountPerDepth, Options, SearchStats, Skeleton, TaskOrder};
use magpie::ThreadPool;
use magpie_apps::registry;
use magpie_apps::{maxclique, nqueens, ns, tsp, uts};

pub use args::{after_help, SearchArgs, DEFAULT_SPAWN_DEPTH};
use args::{app_names, check_app_options, number, skeleton, unknown, SkeletonChoice};
pub(crate) use check::{check_known_ns, check_published_uts};
use load::{load, Problem, MAX_ORDERED_NODES};
pub use report::{nqueens_key, ns_key, uts_key};
use report::{print_text, Answer, Report, StatsReport};

use crate::config::{Config, Source};
use crate::error::{usage, Failure};
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
    let (checked, stats) = match problem {
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
                    (check::max_clique(graph, out.value), out.stats)
                }
                Some(k) => {
                    let out = pool.install(|| search::decide(&space, k as i64, sk, &opts));
                    (check::clique_decision(graph, k, out.value), out.stats)
                }
            }
        }
        Problem::Knapsack { inst, number, .. } => {
            // Children come include-first, which does not order their bounds: no prune-level.
            let out = pool.install(|| search::optimise(&**inst, sk, &opts));
            (check::knapsack(inst, *number, out.value), out.stats)
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
            (check::tsp(inst, out.value, start), out.stats)
        }
        Problem::Uts {
            params,
            flags,
            named,
            ..
        } => {
            let out = pool.install(|| search::enumerate(params, &uts::Tally(params), sk, &opts));
            let expanded = out.stats.expanded;
            (
                check::uts(flags, *named, out.value, expanded, max_depth),
                out.stats,
            )
        }
        Problem::Ns { tree } => {
            let out = pool.install(|| search::enumerate(tree, &CountPerDepth, sk, &opts));
            let expanded = out.stats.expanded;
            (check::ns(tree, out.value, expanded, max_depth), out.stats)
        }
        Problem::NQueens { board } => {
            let n = board.n();
            let out = pool.install(|| search::enumerate(board, &nqueens::Solutions(n), sk, &opts));
            (check::n_queens(board, out.value, max_depth), out.stats)
        }
    };
    let (answer, what) = checked?;
    Ok((answer, what, stats))
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
    let Some(app) = registry::find(app) else {
        return Err(unknown("unknown application", app, &app_names()));
    };
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

/// The pool a search runs on, from the global options (with its deque and worker count, for
/// the report). Default worker stacks: the engine's walk does not recurse per tree level.
fn build_pool(config: &Config) -> Result<(ThreadPool, magpie::deque::DequeKind, usize), Failure> {
    let deque = config.deque.value;
    let workers = config.workers.value;
    let pool = config.build(deque, workers)?;
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
