//! Distributed search with YewPar's DepthBounded, Budget, StackStealing and Ordered
//! skeletons: one rank per node, each with a local magpie pool, a per-rank task pool in
//! YewPar's DepthPool shape, and work stealing between ranks. Three kinds, as in `magpie::search`: [`enumerate`] (a monoid folded over
//! every node, combined over the ranks at the end), [`optimise`] (branch and bound: a new
//! incumbent's value is sent to every rank at once and prunes there) and [`decide`] (the
//! first node reaching the target stops every rank).
//!
//! Per rank:
//! - **the depth pool**: one queue per depth. Local workers take from the deepest level
//!   (depth-first, small tasks), remote thieves from the shallowest (the biggest subtrees),
//!   the next task in heuristic order there.
//! - **W workers** on the rank's magpie pool. DepthBounded: a task `(depth, node)` above the
//!   spawn depth visits its node and adds each child as a task; at or below it, the worker
//!   searches the whole subtree itself. Budget: the worker searches its task depth-first and,
//!   every `budget` backtracks, makes the unexplored nodes of its shallowest open level into
//!   tasks. StackStealing: the same, but only when asked — by an idle worker of the rank, or
//!   by a thief from another rank whose request finds the pool empty while a worker is busy
//!   (the main thread keeps the request until a worker has split its stack, or refuses it
//!   when the rank runs dry). Ordered: the worker that takes the root (on rank 0) visits
//!   the tree above the spawn depth and puts every node at the spawn depth into the pool as
//!   a task, in priority order; every worker, local or on another rank, then takes the
//!   highest-priority task left and searches it depth-first (see [`Skeleton::Ordered`]).
//!   Each worker folds into its own accumulator.
//! - **the communication path is the main thread**, the only one that calls MPI
//!   (`MPI_THREAD_FUNNELED`): it answers steal requests from the shallowest level, asks a
//!   victim for work when the rank is idle, and runs termination detection. A progress thread
//!   with `MPI_THREAD_MULTIPLE` was not needed: the workers never block on communication,
//!   and funnelled MPI is supported by every MPI library.
//! - **termination** by credit recovery ([`crate::credit`]): no timeouts.
//! - **results**: when rank 0 has recovered the whole credit it sends `DONE`; every rank
//!   joins its workers and sends its accumulator and statistics to rank 0, which merges them.
//!   Each worker keeps a [`SearchStats`] counted as the local engine counts (expanded,
//!   pruned, backtracks, tasks it made, tasks it took from another worker of its rank), so
//!   [`Distributed::stats`] obeys the local run's invariants; the inter-rank figures are the
//!   ranks' ([`RankStats`]).

mod comm;
mod pool;
mod protocol;
mod worker;

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use magpie::search::{Enumerate, Monitor, Objective, Options, SearchSpace, SearchStats, Visit};
use magpie::ThreadPool;
use mpi::traits::*;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::codec::{decode_from, encode};
use crate::credit::Credit;
use crate::perf::PerfParams;
use crate::victims::RemoteVictims;
use crate::{Cluster, RankStats};

use comm::communicate;
use pool::{DepthPool, Shared};
pub use protocol::decode_each_message;
use protocol::TAG_RESULT;
use worker::work;

/// What one worker hands back: its index, accumulator and counters (`time`: its busy time).
type WorkerResult<A> = (usize, A, SearchStats);

/// The result of a distributed enumeration, on rank 0.
#[derive(Debug, Clone)]
pub struct Distributed<A> {
    /// The merged accumulator of every rank.
    pub value: A,
    /// Each rank's statistics, by rank.
    pub ranks: Vec<RankStats>,
    /// Wall-clock time on rank 0, from the start to the merged result.
    pub time: Duration,
    /// The search was stopped by a [`Monitor`] (rank 0's, or another rank's, which asks
    /// rank 0) before it had finished: the value covers part of the tree.
    pub stopped: bool,
}

impl<A> Distributed<A> {
    /// The counters of the whole search, over every worker of every rank, as a local search
    /// counts them: expanded, pruned and backtracks summed; `tasks`, the tasks the workers
    /// made; `steals`, the tasks a worker started that another worker of its rank had made
    /// (tasks moved between ranks are in [`RankStats::tasks_sent`] and
    /// [`RankStats::steals_ok`]); `per_worker`, each worker's expanded nodes, rank 0's
    /// workers first; `time`, [`Distributed::time`].
    ///
    /// ```
    /// use std::time::Duration;
    /// use magpie::search::SearchStats;
    /// use magpie_mpi::{search::Distributed, RankStats};
    ///
    /// let worker = |expanded, steals| SearchStats { expanded, backtracks: expanded, steals, ..SearchStats::default() };
    /// let ranks = vec![
    ///     RankStats { rank: 0, worker_stats: vec![worker(5, 0), worker(3, 1)], ..RankStats::default() },
    ///     RankStats { rank: 1, worker_stats: vec![worker(2, 0), worker(0, 0)], ..RankStats::default() },
    /// ];
    /// let d = Distributed { value: (), ranks, time: Duration::from_secs(1), stopped: false };
    /// let s = d.stats();
    /// assert_eq!((s.expanded, s.backtracks, s.steals), (10, 10, 1));
    /// assert_eq!(s.per_worker, [5, 3, 2, 0]);
    /// ```
    pub fn stats(&self) -> SearchStats {
        let mut total = SearchStats {
            time: self.time,
            stopped: self.stopped,
            ..SearchStats::default()
        };
        for w in self.ranks.iter().flat_map(|r| &r.worker_stats) {
            total.expanded += w.expanded;
            total.pruned += w.pruned;
            total.backtracks += w.backtracks;
            total.tasks += w.tasks;
            total.steals += w.steals;
            total.per_worker.push(w.expanded);
        }
        total
    }
}

/// How a rank's workers split the search tree into tasks: magpie's own [`Skeleton`], the
/// same one a local search takes, over ranks.
///
/// - `DepthBounded { spawn_depth }`: every node above `spawn_depth` is a task (its children
///   go to the depth pool); a task at `spawn_depth` is searched depth-first by the worker
///   that takes it.
/// - `Budget { backtracks }`: a worker searches its task depth-first; after `backtracks`
///   backtracks it makes the unexplored nodes of its shallowest open level into tasks and
///   counts again.
/// - `StackStealing { steal_all }`: when an idle worker of its rank or a thief from another
///   rank wants work, a worker gives up the next unexplored sibling of its shallowest open
///   level (YewPar's StackStealing), or all of that level's with `steal_all`.
/// - `Ordered { spawn_depth, order }`: YewPar's Ordered skeleton over ranks. The nodes at
///   `spawn_depth` are tasks numbered in `order`. Rank 0 owns them: one of its workers
///   visits the tree above `spawn_depth` and puts every task in rank 0's pool in priority
///   order; its workers and the other ranks (which ask rank 0, and only rank 0, whenever
///   one of their workers is idle) take the highest-priority task left, one at a time. So
///   tasks leave the pool exactly once each, in priority order, over all ranks. `victims`
///   does not apply (every request goes to rank 0).
/// - `Sequential`: the root is the only task (as `DepthBounded { spawn_depth: 0 }`): one
///   worker of one rank searches the whole tree.
pub use magpie::search::Skeleton;

/// What a rank knows of the search as a whole, shared by its workers and its
/// communication thread.
pub struct RankState {
    /// The best objective value known on this rank (optimisation), from its own workers or
    /// from other ranks' broadcasts.
    incumbent: AtomicI64,
    /// A worker of this rank improved the incumbent: the communication thread sends it.
    improved: AtomicBool,
    /// The search is over (decision: a node reached the target somewhere): workers stop.
    stop: AtomicBool,
    /// A worker of this rank found a node reaching the target.
    found: AtomicBool,
    /// Each worker's `workRate` (f64 bits), the `perf` policy's measure of load.
    rates: Vec<AtomicU64>,
    /// The constants of the rates.
    perf: PerfParams,
}

impl RankState {
    fn new(incumbent: i64, workers: usize, perf: PerfParams) -> Self {
        RankState {
            incumbent: AtomicI64::new(incumbent),
            improved: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            found: AtomicBool::new(false),
            rates: (0..workers)
                .map(|_| AtomicU64::new(perf.rate_start.to_bits()))
                .collect(),
            perf,
        }
    }

    /// The rank's load: the mean of its workers' rates.
    fn load(&self) -> f64 {
        let sum: f64 = self
            .rates
            .iter()
            .map(|r| f64::from_bits(r.load(Ordering::Relaxed)))
            .sum();
        sum / self.rates.len().max(1) as f64
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// What a search kind does at each node. Workers call [`Visitor::enter`] on every node they
/// take or generate; a [`Visit::Skip`] skips the node's subtree.
pub trait Visitor<S: SearchSpace>: Sync {
    /// A worker's (and then a rank's) result.
    type Acc: Send + Serialize + DeserializeOwned;
    /// The empty result.
    fn empty(&self) -> Self::Acc;
    /// Combines two results.
    fn merge(&self, a: Self::Acc, b: Self::Acc) -> Self::Acc;
    /// Visits `node` at `depth`: expand it, or skip its subtree (pruned by its bound, or a
    /// found target or stopped search), as [`SearchStats::count`] counts it.
    fn enter(&self, acc: &mut Self::Acc, node: &S::Node, depth: usize, rank: &RankState) -> Visit;
    /// Whether a child that fails the bound also rules out its later siblings (children in
    /// non-increasing bound order).
    fn prune_level(&self) -> bool {
        false
    }
}

/// Enumeration: an [`Enumerate`] fold over every node.
struct Enumeration<'a, E>(&'a E);

impl<S: SearchSpace, E: Enumerate<S>> Visitor<S> for Enumeration<'_, E>
where
    E::Acc: Serialize + DeserializeOwned,
{
    type Acc = E::Acc;
    fn empty(&self) -> E::Acc {
        self.0.empty()
    }
    fn merge(&self, a: E::Acc, b: E::Acc) -> E::Acc {
        self.0.merge(a, b)
    }
    fn enter(&self, acc: &mut E::Acc, node: &S::Node, depth: usize, _: &RankState) -> Visit {
        self.0.visit(acc, node, depth);
        Visit::Expand
    }
}

/// Branch and bound: the best node this worker found, pruned against the rank's incumbent.
struct Optimisation<'a, S> {
    space: &'a S,
    prune_level: bool,
    /// Told of each improvement found on this rank (`rank`).
    monitor: Option<&'a Monitor>,
    rank: usize,
}

impl<S> Visitor<S> for Optimisation<'_, S>
where
    S: Objective,
    S::Node: Clone + Serialize + DeserializeOwned,
{
    type Acc = Option<(i64, S::Node)>;
    fn empty(&self) -> Self::Acc {
        None
    }
    fn merge(&self, a: Self::Acc, b: Self::Acc) -> Self::Acc {
        match (a, b) {
            (Some(x), Some(y)) => Some(if y.0 > x.0 { y } else { x }),
            (x, None) => x,
            (None, y) => y,
        }
    }
    fn enter(&self, acc: &mut Self::Acc, node: &S::Node, _: usize, rank: &RankState) -> Visit {
        if self.space.bound(node) <= rank.incumbent.load(Ordering::Relaxed) {
            return Visit::Skip { by_bound: true };
        }
        let value = self.space.objective(node);
        // A plain load first: most nodes do not improve, and an atomic read-modify-write
        // per node would cost more than the node.
        if value > rank.incumbent.load(Ordering::Relaxed)
            && rank.incumbent.fetch_max(value, Ordering::Relaxed) < value
        {
            *acc = Some((value, node.clone()));
            rank.improved.store(true, Ordering::Release);
            if let Some(m) = self.monitor {
                m.improved(value, magpie::current_worker_index(), self.rank);
            }
        }
        Visit::Expand
    }
    fn prune_level(&self) -> bool {
        self.prune_level
    }
}

/// Decision: the first node whose objective reaches `target`.
struct Decision<'a, S> {
    space: &'a S,
    target: i64,
    prune_level: bool,
}

impl<S> Visitor<S> for Decision<'_, S>
where
    S: Objective,
    S::Node: Clone + Serialize + DeserializeOwned,
{
    type Acc = Option<S::Node>;
    fn empty(&self) -> Self::Acc {
        None
    }
    fn merge(&self, a: Self::Acc, b: Self::Acc) -> Self::Acc {
        a.or(b)
    }
    fn enter(&self, acc: &mut Self::Acc, node: &S::Node, _: usize, rank: &RankState) -> Visit {
        if rank.stopped() {
            return Visit::Skip { by_bound: false };
        }
        if self.space.bound(node) < self.target {
            return Visit::Skip { by_bound: true };
        }
        if self.space.objective(node) >= self.target {
            if acc.is_none() {
                *acc = Some(node.clone());
            }
            rank.found.store(true, Ordering::Release);
            rank.stop.store(true, Ordering::Relaxed);
            return Visit::Skip { by_bound: false };
        }
        Visit::Expand
    }
    fn prune_level(&self) -> bool {
        self.prune_level
    }
}

/// Distributed enumeration: `fold` over every node of `space` (see [`run`]; of `opts`,
/// only the monitor applies).
pub fn enumerate<S, E>(
    cluster: &Cluster,
    pool: &ThreadPool,
    space: &S,
    fold: &E,
    skeleton: Skeleton,
    victims: &RemoteVictims,
    opts: &Options,
) -> Option<Distributed<E::Acc>>
where
    S: SearchSpace,
    S::Node: Serialize + DeserializeOwned,
    E: Enumerate<S>,
    E::Acc: Serialize + DeserializeOwned,
{
    let opts = Options {
        initial_bound: None,
        ..opts.clone()
    };
    run(
        cluster,
        pool,
        space,
        &Enumeration(fold),
        skeleton,
        victims,
        &opts,
    )
}

/// The result of a distributed optimisation: the best objective and a node reaching it.
pub type Best<N> = Option<Distributed<Option<(i64, N)>>>;

/// Distributed branch and bound: the best objective over `space` and a node reaching it, or
/// `None` if no node beats `opts.initial_bound` (see [`run`]). With `opts.prune_level`,
/// children come in non-increasing bound order. `opts.monitor` is told of each improvement
/// found on this rank (and, on rank 0, of those the other ranks send).
pub fn optimise<S>(
    cluster: &Cluster,
    pool: &ThreadPool,
    space: &S,
    skeleton: Skeleton,
    victims: &RemoteVictims,
    opts: &Options,
) -> Best<S::Node>
where
    S: Objective,
    S::Node: Clone + Serialize + DeserializeOwned,
{
    let visitor = Optimisation {
        space,
        prune_level: opts.prune_level,
        monitor: opts.monitor.as_ref(),
        rank: cluster.world().rank() as usize,
    };
    run(cluster, pool, space, &visitor, skeleton, victims, opts)
}

/// Distributed decision: a node whose objective reaches `target`, or `None` after the whole
/// tree (see [`run`]; of `opts`, the prune level and the monitor apply).
pub fn decide<S>(
    cluster: &Cluster,
    pool: &ThreadPool,
    space: &S,
    target: i64,
    skeleton: Skeleton,
    victims: &RemoteVictims,
    opts: &Options,
) -> Option<Distributed<Option<S::Node>>>
where
    S: Objective,
    S::Node: Clone + Serialize + DeserializeOwned,
{
    let visitor = Decision {
        space,
        target,
        prune_level: opts.prune_level,
    };
    let opts = Options {
        initial_bound: None,
        ..opts.clone()
    };
    run(cluster, pool, space, &visitor, skeleton, victims, &opts)
}

/// Searches `space` with `visitor` over every rank of `cluster` (a collective call: every
/// rank calls it with the same arguments), splitting the tree by `skeleton`, each rank's
/// tasks run by `pool`'s workers. Of `opts`: `initial_bound`, the starting incumbent of an
/// optimisation; `monitor`, a [`Monitor`] whose stop ends the search on every rank (rank 0
/// decides: another rank whose monitor is stopped asks rank 0 to stop, and rank 0 ends the
/// search as when a decision is found — every rank stops its workers and sends its partial
/// result, and the job ends normally). Returns the merged result on rank 0 and `None`
/// elsewhere.
pub fn run<S, V>(
    cluster: &Cluster,
    pool: &ThreadPool,
    space: &S,
    visitor: &V,
    skeleton: Skeleton,
    victims: &RemoteVictims,
    opts: &Options,
) -> Option<Distributed<V::Acc>>
where
    S: SearchSpace,
    S::Node: Serialize + DeserializeOwned,
    V: Visitor<S>,
{
    let start = Instant::now();
    let world = cluster.world();
    let (rank, size) = (world.rank(), world.size());
    let shared = Shared {
        pool: Mutex::new(DepthPool {
            levels: Vec::new(),
            len: 0,
            active: 0,
            done: false,
        }),
        wake: Condvar::new(),
        split_wanted: AtomicBool::new(false),
    };
    let mut credit = Credit::default();
    if rank == 0 {
        shared.lock().push(0, space.root(), None);
        credit = Credit::whole();
    }
    let workers = pool.num_workers().max(1);
    let perf = match victims {
        RemoteVictims::Perf(p) => p.formulas,
        _ => PerfParams::default(),
    };
    let incumbent = opts.initial_bound.unwrap_or(i64::MIN);
    let state = RankState::new(incumbent, workers, perf);
    let mut stopped = false;
    let results: Mutex<Vec<WorkerResult<V::Acc>>> = Mutex::new(Vec::new());
    let mut stats = RankStats {
        rank,
        workers,
        ..RankStats::default()
    };

    std::thread::scope(|threads| {
        threads.spawn(|| {
            pool.scope(|s| {
                for index in 0..workers {
                    let (shared, state, results) = (&shared, &state, &results);
                    s.spawn(move |_| {
                        let (acc, counts) = work(index, space, visitor, skeleton, shared, state);
                        let mut all = results.lock().unwrap_or_else(|e| e.into_inner());
                        all.push((index, acc, counts));
                    });
                }
            })
        });
        stopped = communicate(
            cluster,
            &shared,
            &state,
            &mut credit,
            (victims, opts.monitor.as_ref()),
            &mut stats,
            rank,
            size,
            matches!(skeleton, Skeleton::StackStealing { .. }),
            match skeleton {
                Skeleton::Ordered { spawn_depth, .. } => Some(spawn_depth),
                _ => None,
            },
        );
        // Over (DONE, or this is rank 0 and it sent DONE): workers stop, a decision search's
        // workers in the middle of a subtree included.
        state.stop.store(true, Ordering::Relaxed);
        let mut p = shared.lock();
        p.done = true;
        drop(p);
        shared.wake.notify_all();
    });

    let mut acc = visitor.empty();
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_by_key(|r| r.0);
    stats.worker_nodes = results.iter().map(|r| r.2.expanded).collect();
    for (_, a, counts) in results {
        acc = visitor.merge(acc, a);
        stats.nodes += counts.expanded;
        stats.busy += counts.time;
        stats.worker_stats.push(counts);
    }
    stats.time = start.elapsed();
    if rank != 0 {
        let bytes = encode(&(acc, stats));
        world
            .process_at_rank(0)
            .send_with_tag(&bytes[..], TAG_RESULT);
        return None;
    }
    let mut ranks = vec![stats];
    let mut parts: Vec<(i32, V::Acc)> = Vec::new();
    for _ in 1..size {
        let (bytes, status) = world
            .any_process()
            .matched_probe_with_tag(TAG_RESULT)
            .matched_receive_vec::<u8>();
        let (a, s): (V::Acc, RankStats) = decode_from(&bytes, "result", status.source_rank());
        parts.push((status.source_rank(), a));
        ranks.push(s);
    }
    parts.sort_by_key(|p| p.0);
    for (_, a) in parts {
        acc = visitor.merge(acc, a);
    }
    ranks.sort_by_key(|s| s.rank);
    Some(Distributed {
        value: acc,
        ranks,
        time: start.elapsed(),
        stopped,
    })
}
