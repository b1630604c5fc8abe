//! `magpie search <app> … --distributed` under `mpirun`: every application with the
//! DepthBounded, Budget, StackStealing or Ordered skeleton over every rank
//! ([`magpie_mpi::search`]): enumeration (uts, ns, nqueens, sip --count), optimisation with
//! the incumbent shared (maxclique, knapsack, tsp) and decision (maxclique --target, sip,
//! stopping every rank at the first clique or embedding found).
//! Every rank parses the same arguments and builds its own pool from the global options;
//! rank 0 checks the merged answer and prints it once, with a table of the ranks.
//!
//! The statistics: expanded, pruned and backtracks are summed over every worker of every
//! rank, counted as the local search counts them; each worker's figures are in the JSON's
//! `worker_stats`. The JSON's `stats.tasks`, `stats.steals` and `stats.per_worker` keep
//! their first meaning, rank-level figures (tasks sent between ranks, steals between ranks,
//! nodes per rank), also given as `inter_rank_tasks`, `inter_rank_steals` and
//! `ranks[].nodes`; the text report's `tasks`, `steals` and `per worker` lines are the
//! workers' (as in a local run), its rank-level lines say so.

use std::process::ExitCode;

use magpie::search::{SearchStats, Skeleton};
use magpie_apps::registry::{self, ids, ClusterEngine, Engine};
use magpie_measure::stats::cov;
use magpie_mpi::victims::RemoteVictims;
use magpie_mpi::{Cluster, RankStats};
use serde::Serialize;

use super::report::{line, print_text, Report};
use super::{build_pool, prepare, print_json, SearchArgs, Watched};
use crate::config::Config;
use crate::error::Failure;

/// The variable that makes one rank fail on purpose, for the tests of failure behaviour:
/// `R` panics rank R's main thread at the start of a search; `R:worker` panics a worker
/// thread of rank R in the middle of an enumeration (uts, ns, nqueens), at its 100th node;
/// `R:kill` makes rank R kill itself with SIGKILL there (a rank that dies without a word:
/// `mpirun` reports it). In a distributed loop, `R` and `R:worker` panic rank R's workers in
/// their first iteration and `R:kill` kills rank R at its 100th iteration.
pub const FAIL_RANK_ENV: &str = "MAGPIE_FAIL_RANK";

/// Where [`FAIL_RANK_ENV`] makes this rank fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InjectedFailure {
    None,
    MainThread,
    Worker,
    Kill,
}

/// The failure [`FAIL_RANK_ENV`] injects into `rank`.
pub(crate) fn injected_failure(rank: i32) -> InjectedFailure {
    let Ok(v) = std::env::var(FAIL_RANK_ENV) else {
        return InjectedFailure::None;
    };
    let (r, place) = v.trim().split_once(':').unwrap_or((v.trim(), "main"));
    match (r.parse::<i32>() == Ok(rank), place) {
        (true, "worker") => InjectedFailure::Worker,
        (true, "kill") => InjectedFailure::Kill,
        (true, _) => InjectedFailure::MainThread,
        (false, _) => InjectedFailure::None,
    }
}

/// The `R:kill` fault: this process dies at once of SIGKILL, as if killed from outside.
pub(crate) fn kill_self() -> ! {
    // SAFETY: kill and getpid have no preconditions; SIGKILL cannot be caught, so the
    // process ends here.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGKILL);
    }
    unreachable!("SIGKILL ends the process")
}

/// One rank's row of the report.
#[derive(Debug, Serialize)]
struct RankRow {
    rank: i32,
    workers: usize,
    nodes: u64,
    worker_nodes: Vec<u64>,
    tasks_sent: u64,
    tasks_received: u64,
    requests_sent: u64,
    requests_received: u64,
    steals_ok: u64,
    steals_failed: u64,
    bytes_sent: u64,
    bytes_received: u64,
    bounds_sent: u64,
    bounds_received: u64,
    refreshes: u64,
    aux_refreshes: u64,
    busy_seconds: f64,
    idle_seconds: f64,
}

impl From<&RankStats> for RankRow {
    fn from(s: &RankStats) -> Self {
        RankRow {
            rank: s.rank,
            workers: s.workers,
            nodes: s.nodes,
            worker_nodes: s.worker_nodes.clone(),
            tasks_sent: s.tasks_sent,
            tasks_received: s.tasks_received,
            requests_sent: s.requests_sent,
            requests_received: s.requests_received,
            steals_ok: s.steals_ok,
            steals_failed: s.steals_failed,
            bytes_sent: s.bytes_sent,
            bytes_received: s.bytes_received,
            bounds_sent: s.bounds_sent,
            bounds_received: s.bounds_received,
            refreshes: s.refreshes,
            aux_refreshes: s.aux_refreshes,
            busy_seconds: s.busy.as_secs_f64(),
            idle_seconds: s.idle.as_secs_f64(),
        }
    }
}

/// One worker's entry of the report: what it did, counted as a local search counts.
#[derive(Debug, Serialize)]
struct WorkerRow {
    rank: i32,
    worker: usize,
    expanded: u64,
    pruned: u64,
    backtracks: u64,
    /// Tasks it made (put in its rank's pool).
    tasks: u64,
    /// Tasks it started that another worker of its rank had made.
    steals: u64,
    busy_seconds: f64,
}

impl WorkerRow {
    /// Every worker of every rank, rank by rank.
    fn all(ranks: &[RankStats]) -> Vec<WorkerRow> {
        let each = |r: &RankStats| -> Vec<WorkerRow> {
            let rank = r.rank;
            let row = |(worker, w): (usize, &SearchStats)| WorkerRow {
                rank,
                worker,
                expanded: w.expanded,
                pruned: w.pruned,
                backtracks: w.backtracks,
                tasks: w.tasks,
                steals: w.steals,
                busy_seconds: w.time.as_secs_f64(),
            };
            r.worker_stats.iter().enumerate().map(row).collect()
        };
        ranks.iter().flat_map(each).collect()
    }
}

/// The JSON object of a distributed search: the local report's fields plus the ranks and
/// the workers. In `stats`, `expanded`, `pruned` and `backtracks` are summed over every
/// worker; `tasks`, `steals` and `per_worker` are rank-level (see the module's notes).
#[derive(Debug, Serialize)]
struct DistributedReport {
    #[serde(flatten)]
    report: Report,
    ranks_count: usize,
    remote_victims: String,
    ranks: Vec<RankRow>,
    /// Coefficient of variation of the nodes per rank.
    nodes_cov: f64,
    /// Tasks sent from one rank to another (= `stats.tasks`).
    inter_rank_tasks: u64,
    /// Steal requests between ranks answered with work (= `stats.steals`).
    inter_rank_steals: u64,
    /// Every worker of every rank (ranks × workers entries), rank by rank.
    worker_stats: Vec<WorkerRow>,
}

/// Initialises MPI for a distributed command and makes a panic on any rank end the job
/// ([`Cluster::abort_on_panic`]); an error line and exit code 2 if MPI cannot start.
pub(crate) fn start_cluster() -> Result<Cluster, ExitCode> {
    let cluster = Cluster::init().map_err(|e| {
        magpie_mpi::report_error(&format!("--distributed: {e}"));
        ExitCode::from(2)
    })?;
    cluster.abort_on_panic();
    Ok(cluster)
}

/// The exit code of a distributed command on `rank`. Every rank meets the same bad input
/// (they parse the same arguments): rank 0 alone reports the failure, with
/// [`magpie_mpi::report_error`], so the job reports one error.
pub(crate) fn exit_code(result: Result<(), Failure>, rank: i32) -> ExitCode {
    match (&result, rank) {
        // Not an error: rank 0 says why it stopped, as a local run does.
        (Err(Failure::Stopped(_)), 0) => return Failure::exit_code(result, true),
        (Err(failure), 0) => magpie_mpi::report_error(&failure.message()),
        _ => {}
    }
    Failure::exit_code(result, false)
}

/// Refuses a job whose ranks together would start more than [`magpie::MAX_WORKERS`]
/// worker threads (`mpirun -np R` on one machine starts R pools of `--workers` threads each):
/// a usage error naming ranks, workers and the limit, the same on every rank.
pub(crate) fn check_job_threads(cluster: &Cluster, config: &Config) -> Result<(), Failure> {
    let ranks = cluster.size().max(1) as usize;
    let workers = config.workers.value;
    let limit = magpie::MAX_WORKERS;
    if ranks.saturating_mul(workers) > limit {
        return Err(Failure::Usage(format!(
            "{ranks} ranks x {workers} workers ({}) = {} worker threads, more than a job may \
             start (at most {limit} in all)",
            config.workers.source,
            ranks.saturating_mul(workers)
        )));
    }
    Ok(())
}

/// Runs the distributed search on this rank; the exit code of this process (see
/// [`exit_code`]).
pub fn run(args: &SearchArgs, config: &Config) -> ExitCode {
    let cluster = match start_cluster() {
        Ok(c) => c,
        Err(code) => return code,
    };
    let rank = cluster.rank();
    if injected_failure(rank) == InjectedFailure::MainThread {
        panic!("failure injected by {FAIL_RANK_ENV}={rank}");
    }
    exit_code(search(&cluster, args, config), rank)
}

fn search(cluster: &Cluster, args: &SearchArgs, config: &Config) -> Result<(), Failure> {
    check_job_threads(cluster, config)?;
    let victims: RemoteVictims = match &args.remote_victims {
        Some(v) => v
            .parse()
            .map_err(|e: magpie_mpi::Error| Failure::Usage(format!("--remote-victims: {e}")))?,
        None => RemoteVictims::default(),
    };
    let prepared = prepare(args)?;
    if prepared.max_depth.is_some() {
        return Err(Failure::Usage(
            "--max-depth is not supported with --distributed".into(),
        ));
    }
    let choice = &prepared.choice;
    // The same skeleton a local search takes (magpie-mpi runs magpie's own `Skeleton`).
    let skeleton = match choice.skeleton {
        Skeleton::Sequential => {
            return Err(Failure::Usage(format!(
                "--distributed runs the depth-bounded, budget, stack-stealing and ordered \
                 skeletons; {} is not distributed",
                choice.name
            )))
        }
        Skeleton::Ordered { .. } if args.remote_victims.is_some() => {
            // Every task is on rank 0 until taken: there is no victim to choose.
            return Err(Failure::Usage(
                "--remote-victims does not apply to --skeleton ordered (every rank takes the \
                 next task in priority order from rank 0)"
                    .into(),
            ));
        }
        s => s,
    };
    let (pool, deque, workers) = build_pool(config)?;
    if let Some(w) = cluster.binding_warning(workers) {
        eprintln!("{w}");
    }
    // The `R:worker` and `R:kill` faults: a worker of this rank fails at its 100th visit.
    let fault = injected_failure(cluster.rank());
    let fail_at_100th = |visits: u64| {
        if visits == 100 {
            match fault {
                InjectedFailure::Kill => kill_self(),
                _ => panic!("failure injected by {FAIL_RANK_ENV} on a worker thread"),
            }
        }
    };
    let mut engine = ClusterEngine::new(cluster, &pool, &victims);
    if matches!(fault, InjectedFailure::Worker | InjectedFailure::Kill) {
        engine = engine.with_visit_hook(&fail_at_100th);
    }
    // Rank 0 decides when to stop (its time limit, a signal); a signal on another rank
    // asks rank 0 to stop.
    let watched = Watched::start(args, cluster.rank() == 0)?;
    let watch = watched.stop.watch(&watched.monitor);
    // Rank 0's line: its incumbent (every rank's), its tasks and steals. A distributed
    // search counts its nodes only at the end.
    let shown = (cluster.rank() == 0).then(|| super::progress_line(args, &watched.monitor));
    let tracing = crate::trace::distributed::start(args.trace.as_deref(), cluster, &pool)?;
    // Only rank 0 has the merged result.
    let solved = prepared.solve_on(&Engine::Cluster(&engine), Some(&watched.monitor));
    drop(shown);
    // Every rank gathers the trace, whatever rank 0 made of the result.
    let traced = crate::trace::distributed::finish(tracing, cluster, &pool);
    let solved = solved?;
    traced?;
    let Some(solved) = solved else {
        return Ok(());
    };
    let status = watch.finish(solved.stats.stopped);
    let ranks = engine.ranks();
    let stats = solved.stats.clone();
    let inter_rank_tasks: u64 = ranks.iter().map(|r| r.tasks_sent).sum();
    let inter_rank_steals: u64 = ranks.iter().map(|r| r.steals_ok).sum();
    let per_rank: Vec<u64> = ranks.iter().map(|r| r.nodes).collect();
    // The JSON's `stats` keeps its rank-level tasks, steals and per_worker.
    let rank_level = SearchStats {
        tasks: inter_rank_tasks,
        steals: inter_rank_steals,
        per_worker: per_rank.clone(),
        ..stats.clone()
    };
    let (report, _) = prepared.report(
        registry::Solved {
            stats: rank_level,
            ..solved
        },
        status,
        workers,
        deque.name(),
    );
    let nodes: Vec<f64> = ranks.iter().map(|r| r.nodes as f64).collect();
    let nodes_cov = cov(&nodes);
    // Ordered: every rank asks rank 0, which holds the tasks in priority order.
    let victims = match skeleton {
        Skeleton::Ordered { .. } => "rank0".to_string(),
        _ => victims.to_string(),
    };
    if args.json {
        let out = DistributedReport {
            report,
            ranks_count: ranks.len(),
            remote_victims: victims.to_string(),
            ranks: ranks.iter().map(RankRow::from).collect(),
            nodes_cov,
            inter_rank_tasks,
            inter_rank_steals,
            worker_stats: WorkerRow::all(&ranks),
        };
        print_json(&out)?;
    } else {
        print_text(&report, choice, &stats, args.stats);
        if args.stats {
            line("", "(per worker: rank 0's workers first, then rank 1's, …)");
            line(
                "rank level",
                format!(
                    "{inter_rank_tasks} tasks sent between ranks, \
                     {inter_rank_steals} steals between ranks"
                ),
            );
            line("per rank", ids(&per_rank));
        }
        println!(
            "ranks       {} × {workers} worker(s), inter-rank victims {victims}",
            ranks.len()
        );
        println!(
            "{:>4} {:>12} {:>6} {:>6} {:>8} {:>8} {:>6} {:>6} {:>9} {:>8} {:>8} {:>11}",
            "rank",
            "nodes",
            "sent",
            "recv",
            "req.out",
            "req.in",
            "ok",
            "fail",
            "bytes",
            "busy s",
            "idle s",
            "refresh+aux"
        );
        for r in &ranks {
            println!(
                "{:>4} {:>12} {:>6} {:>6} {:>8} {:>8} {:>6} {:>6} {:>9} {:>8.3} {:>8.3} {:>11}",
                r.rank,
                r.nodes,
                r.tasks_sent,
                r.tasks_received,
                r.requests_sent,
                r.requests_received,
                r.steals_ok,
                r.steals_failed,
                r.bytes_sent + r.bytes_received,
                r.busy.as_secs_f64(),
                r.idle.as_secs_f64(),
                format!("{}+{}", r.refreshes, r.aux_refreshes)
            );
        }
        println!("c.o.v. of the nodes per rank: {nodes_cov:.3}");
    }
    watched.finish()?;
    status.result()
}
