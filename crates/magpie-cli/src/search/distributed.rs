//! `magpie search <app> … --distributed` under `mpirun`: every application with the
//! DepthBounded or Budget skeleton over every rank ([`magpie_mpi::search`]): enumeration (uts, ns,
//! nqueens), optimisation with the incumbent shared (maxclique, knapsack, tsp) and decision
//! (maxclique --target, stopping every rank at the first clique found).
//! Every rank parses the same arguments and builds its own pool from the global options;
//! rank 0 checks the merged answer and prints it once, with a table of the ranks.

use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use magpie::search::{CountPerDepth, Enumerate, SearchSpace, SearchStats};
use magpie_apps::stats::cov;
use magpie_apps::{maxclique, nqueens, tsp, uts};
use magpie_mpi::search::{decide, enumerate, optimise, Distributed, Skeleton};
use magpie_mpi::victims::RemoteVictims;
use magpie_mpi::{Cluster, RankStats};
use serde::Serialize;

use super::{build_pool, checked, prepare, print_text, Failure, Found, Prepared, Problem, Report};
use super::{SearchArgs, StatsReport};
use crate::config::Config;

/// The variable that makes one rank fail on purpose, for the tests of failure behaviour:
/// `R` panics rank R's main thread at the start; `R:worker` panics a worker thread of rank R
/// in the middle of an enumeration (uts, ns, nqueens), at its 100th node.
pub const FAIL_RANK_ENV: &str = "MAGPIE_FAIL_RANK";

/// Where [`FAIL_RANK_ENV`] makes this rank fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InjectedFailure {
    None,
    MainThread,
    Worker,
}

fn injected_failure(rank: i32) -> InjectedFailure {
    let Ok(v) = std::env::var(FAIL_RANK_ENV) else {
        return InjectedFailure::None;
    };
    let (r, place) = v.trim().split_once(':').unwrap_or((v.trim(), "main"));
    match (r.parse::<i32>() == Ok(rank), place) {
        (true, "worker") => InjectedFailure::Worker,
        (true, _) => InjectedFailure::MainThread,
        (false, _) => InjectedFailure::None,
    }
}

/// An enumeration fold that panics at its 100th visit when `armed` (the `R:worker` fault
/// injection: the panic happens on a worker thread of the rank's pool).
struct FailingFold<'a, E> {
    inner: &'a E,
    armed: bool,
    visits: AtomicU64,
}

impl<'a, E> FailingFold<'a, E> {
    fn new(inner: &'a E, armed: bool) -> Self {
        FailingFold {
            inner,
            armed,
            visits: AtomicU64::new(0),
        }
    }
}

impl<S: SearchSpace + ?Sized, E: Enumerate<S>> Enumerate<S> for FailingFold<'_, E> {
    type Acc = E::Acc;
    fn empty(&self) -> E::Acc {
        self.inner.empty()
    }
    fn visit(&self, acc: &mut E::Acc, node: &S::Node, depth: usize) {
        if self.armed && self.visits.fetch_add(1, Ordering::Relaxed) == 99 {
            panic!("failure injected by {FAIL_RANK_ENV} on a worker thread");
        }
        self.inner.visit(acc, node, depth);
    }
    fn merge(&self, a: E::Acc, b: E::Acc) -> E::Acc {
        self.inner.merge(a, b)
    }
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

/// The JSON object of a distributed search: the local report's fields plus the ranks.
#[derive(Debug, Serialize)]
struct DistributedReport {
    #[serde(flatten)]
    report: Report,
    ranks_count: usize,
    remote_victims: String,
    ranks: Vec<RankRow>,
    /// Coefficient of variation of the nodes per rank.
    nodes_cov: f64,
}

/// Initialises MPI for a distributed command and makes a panic on any rank end the job
/// ([`Cluster::abort_on_panic`]); an error line and exit code 2 if MPI cannot start.
pub(crate) fn start_cluster() -> Result<Cluster, ExitCode> {
    let cluster = Cluster::init().map_err(|e| {
        eprintln!("magpie: error: --distributed: {e}");
        ExitCode::from(2)
    })?;
    cluster.abort_on_panic();
    Ok(cluster)
}

/// Refuses a job whose ranks together would start more than [`magpie::runtime::MAX_WORKERS`]
/// worker threads (`mpirun -np R` on one machine starts R pools of `--workers` threads each):
/// a usage error naming ranks, workers and the limit, the same on every rank.
pub(crate) fn check_job_threads(cluster: &Cluster, config: &Config) -> Result<(), Failure> {
    let ranks = cluster.size().max(1) as usize;
    let workers = config.workers.value;
    let limit = magpie::runtime::MAX_WORKERS;
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

/// Runs the distributed search on this rank; the exit code of this process. Errors are
/// printed by rank 0 only (every rank meets the same bad input, since they parse the same
/// arguments), so the job prints one error.
pub fn run(args: &SearchArgs, config: &Config) -> ExitCode {
    let cluster = match start_cluster() {
        Ok(c) => c,
        Err(code) => return code,
    };
    let rank = cluster.rank();
    if injected_failure(rank) == InjectedFailure::MainThread {
        panic!("failure injected by {FAIL_RANK_ENV}={rank}");
    }
    // Every rank meets the same bad input: rank 0 alone prints it.
    Failure::exit_code(search(&cluster, args, config), rank == 0)
}

fn search(cluster: &Cluster, args: &SearchArgs, config: &Config) -> Result<(), Failure> {
    check_job_threads(cluster, config)?;
    let victims: RemoteVictims = match &args.remote_victims {
        Some(v) => v
            .parse()
            .map_err(|e: String| Failure::Usage(format!("--remote-victims: {e}")))?,
        None => RemoteVictims::default(),
    };
    let Prepared {
        problem,
        choice,
        max_depth,
    } = prepare(args)?;
    if max_depth.is_some() {
        return Err(Failure::Usage(
            "--max-depth is not supported with --distributed".into(),
        ));
    }
    let skeleton = match (choice.name, choice.spawn_depth, choice.budget) {
        ("depth-bounded", Some(spawn_depth), _) => Skeleton::DepthBounded { spawn_depth },
        ("budget", _, Some(budget)) => Skeleton::Budget { budget },
        ("stack-stealing", ..) => Skeleton::StackStealing {
            steal_all: choice.steal_all.unwrap_or(false),
        },
        (name, ..) => {
            return Err(Failure::Usage(format!(
                "--distributed runs the depth-bounded, budget and stack-stealing skeletons; \
                 {name} is not distributed"
            )))
        }
    };
    let (pool, deque, workers) = build_pool(config, &problem)?;
    if let Some(w) = cluster.binding_warning(workers) {
        eprintln!("{w}");
    }
    let v = &victims;
    let fail = injected_failure(cluster.rank()) == InjectedFailure::Worker;
    let (value, dist) = match &problem {
        Problem::MaxClique { graph, target, .. } => {
            let space = maxclique::CliqueSpace::new(graph);
            // Children come in colour order with non-increasing bounds: prune-level.
            match *target {
                None => {
                    let d = optimise(cluster, &pool, &space, skeleton, v, None, true);
                    split(d, Found::Clique)
                }
                Some(k) => {
                    let d = decide(cluster, &pool, &space, k as i64, skeleton, v, true);
                    split(d, Found::CliqueDecision)
                }
            }
        }
        Problem::Knapsack { inst, .. } => {
            let d = optimise(cluster, &pool, &**inst, skeleton, v, None, false);
            split(d, Found::Knapsack)
        }
        Problem::Tsp { inst, .. } => {
            // Every rank computes the same heuristic tour: only strictly better tours count.
            let start = tsp::heuristic_tour(inst);
            let bound = Some(-start.length);
            let d = optimise(cluster, &pool, inst, skeleton, v, bound, false);
            let (value, dist) = split(d, |x| x);
            (value.map(|x| Found::Tsp(x, start)), dist)
        }
        Problem::Uts { params, .. } => {
            let tally = uts::Tally(params);
            let fold = FailingFold::new(&tally, fail);
            let d = enumerate(cluster, &pool, params, &fold, skeleton, v);
            split(d, Found::Uts)
        }
        Problem::Ns { tree } => {
            let fold = FailingFold::new(&CountPerDepth, fail);
            let d = enumerate(cluster, &pool, tree, &fold, skeleton, v);
            split(d, Found::Ns)
        }
        Problem::NQueens { board } => {
            let fold = nqueens::Solutions(board.n());
            let fold = FailingFold::new(&fold, fail);
            let d = enumerate(cluster, &pool, board, &fold, skeleton, v);
            split(d, Found::NQueens)
        }
    };
    // Only rank 0 has the merged result.
    let (Some(value), Some((ranks, time))) = (value, dist) else {
        return Ok(());
    };
    let expanded: u64 = ranks.iter().map(|r| r.nodes).sum();
    let (answer, check) = checked(&problem, value, expanded, None)?;
    let stats = SearchStats {
        expanded,
        tasks: ranks.iter().map(|r| r.tasks_sent).sum(),
        steals: ranks.iter().map(|r| r.steals_ok).sum(),
        per_worker: ranks.iter().map(|r| r.nodes).collect(),
        time,
        ..SearchStats::default()
    };
    let report = Report {
        app: problem.app(),
        instance: problem.instance(),
        answer,
        check,
        skeleton: choice.name,
        skeleton_params: choice.clone(),
        max_depth,
        workers,
        deque: deque.name(),
        seconds: time.as_secs_f64(),
        expanded,
        stats: StatsReport::from(&stats),
    };
    let nodes: Vec<f64> = ranks.iter().map(|r| r.nodes as f64).collect();
    let nodes_cov = cov(&nodes);
    if args.json {
        let out = DistributedReport {
            report,
            ranks_count: ranks.len(),
            remote_victims: victims.to_string(),
            ranks: ranks.iter().map(RankRow::from).collect(),
            nodes_cov,
        };
        let text = serde_json::to_string(&out)
            .map_err(|e| Failure::Check(format!("cannot write the JSON report: {e}")))?;
        println!("{text}");
    } else {
        print_text(&report, &choice, &stats, args.stats);
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
    Ok(())
}

/// The value and the ranks' statistics of a distributed result (rank 0), or nothing.
#[allow(clippy::type_complexity)]
fn split<A, T>(
    d: Option<Distributed<A>>,
    wrap: impl FnOnce(A) -> T,
) -> (Option<T>, Option<(Vec<RankStats>, Duration)>) {
    match d {
        Some(d) => (Some(wrap(d.value)), Some((d.ranks, d.time))),
        None => (None, None),
    }
}
