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

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use magpie::policy::victim::TaskCycle;
use magpie::search::{Enumerate, Objective, SearchSpace, SearchStats, TaskOrder, Visit};
use magpie::ThreadPool;
use mpi::traits::*;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::codec::{decode_from, encode};
use crate::credit::{Credit, Recovered};
use crate::perf::{work_rate, PerfParams};
use crate::victims::RemoteVictims;
use crate::{Cluster, RankStats};

const TAG_STEAL: i32 = 1;
const TAG_WORK: i32 = 2;
const TAG_NO_WORK: i32 = 3;
const TAG_CREDIT: i32 = 4;
const TAG_DONE: i32 = 5;
const TAG_RESULT: i32 = 6;
const TAG_BOUND: i32 = 7;
const TAG_FOUND: i32 = 8;
const TAG_PERF_QUERY: i32 = 9;
const TAG_PERF_REPLY: i32 = 10;

/// Which worker of this rank made a task: `None` for the root and for tasks received from
/// another rank. A worker that starts a task another worker made counts a steal.
type Maker = Option<usize>;

/// The tasks of one rank, one queue per depth (each with its [`Maker`]), and how many
/// workers are running a task.
struct DepthPool<N> {
    levels: Vec<VecDeque<(N, Maker)>>,
    len: usize,
    active: usize,
    done: bool,
}

impl<N> DepthPool<N> {
    fn push(&mut self, depth: usize, node: N, maker: Maker) {
        if self.levels.len() <= depth {
            self.levels.resize_with(depth + 1, VecDeque::new);
        }
        self.levels[depth].push_back((node, maker));
        self.len += 1;
    }

    /// Adds `nodes` (at `depth`, made by `maker`), given best first, so that the next task
    /// taken at that level, by a local worker or a thief, is the first of them (see `work`).
    fn push_best_first(&mut self, depth: usize, nodes: Vec<N>, maker: Maker) -> usize {
        let n = nodes.len();
        for node in nodes.into_iter().rev() {
            self.push(depth, node, maker);
        }
        n
    }

    /// A local worker's task: the deepest level, newest first.
    fn pop_deepest(&mut self) -> Option<(usize, N, Maker)> {
        let depth = self.levels.iter().rposition(|l| !l.is_empty())?;
        self.len -= 1;
        let (node, maker) = self.levels[depth].pop_back()?;
        Some((depth, node, maker))
    }

    /// A thief's task: the shallowest level, the next in heuristic order (the task a
    /// depth-first search of this rank would reach first at that level). Taking the oldest,
    /// the last in heuristic order, made 2 ranks expand 13–16% more nodes than a sequential
    /// search on brock200_1 (about 600 k against 525 k); the next in order, 1–2% fewer.
    ///
    /// None if that level is above `min_depth`: Ordered keeps the root (which makes every
    /// task) on rank 0.
    fn pop_shallowest(&mut self, min_depth: usize) -> Option<(usize, N)> {
        let depth = self.levels.iter().position(|l| !l.is_empty())?;
        if depth < min_depth {
            return None;
        }
        self.len -= 1;
        Some((depth, self.levels[depth].pop_back()?.0))
    }
}

struct Shared<N> {
    pool: Mutex<DepthPool<N>>,
    wake: Condvar,
    /// StackStealing: an idle worker or a thief wants work; the next busy worker to see it
    /// moves unexplored siblings of its shallowest open level into the pool.
    split_wanted: AtomicBool,
}

impl<N> Shared<N> {
    fn lock(&self) -> std::sync::MutexGuard<'_, DepthPool<N>> {
        self.pool.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// What a steal answer carries: the credit that goes with the work, and the tasks.
#[derive(Serialize, Deserialize)]
struct Work<N> {
    credit: Vec<u32>,
    tasks: Vec<(u32, N)>,
}

/// For fuzzing: decodes `bytes` as each message this module exchanges (nodes and
/// accumulators as `u64` and `Vec<u32>`), with [`crate::codec::check_decode`].
#[doc(hidden)]
pub fn decode_each_message(bytes: &[u8]) -> Vec<Result<(), crate::codec::DecodeError>> {
    use crate::codec::check_decode;
    vec![
        check_decode::<Work<u64>>(bytes, "work"),
        check_decode::<Work<Vec<u32>>>(bytes, "work"),
        check_decode::<(u64, RankStats)>(bytes, "result"),
        check_decode::<(Vec<u32>, RankStats)>(bytes, "result"),
        check_decode::<Vec<u32>>(bytes, "credit"),
        check_decode::<i64>(bytes, "bound"),
        check_decode::<(f64, u64)>(bytes, "monitor reply"),
    ]
}

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
    /// let d = Distributed { value: (), ranks, time: Duration::from_secs(1) };
    /// let s = d.stats();
    /// assert_eq!((s.expanded, s.backtracks, s.steals), (10, 10, 1));
    /// assert_eq!(s.per_worker, [5, 3, 2, 0]);
    /// ```
    pub fn stats(&self) -> SearchStats {
        let mut total = SearchStats {
            time: self.time,
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

/// When a worker searching a subtree gives part of it away.
#[derive(Clone, Copy)]
enum Split<'a, N> {
    /// Never (DepthBounded below the spawn depth).
    Never,
    /// Every `budget` backtracks, the whole shallowest open level (Budget).
    Budget(u64, &'a Shared<N>),
    /// When asked, the next node or (`all`) the whole shallowest open level (StackStealing).
    OnDemand { all: bool, pool: &'a Shared<N> },
}

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

/// Distributed enumeration: `fold` over every node of `space` (see [`run`]).
pub fn enumerate<S, E>(
    cluster: &Cluster,
    pool: &ThreadPool,
    space: &S,
    fold: &E,
    skeleton: Skeleton,
    victims: &RemoteVictims,
) -> Option<Distributed<E::Acc>>
where
    S: SearchSpace,
    S::Node: Serialize + DeserializeOwned,
    E: Enumerate<S>,
    E::Acc: Serialize + DeserializeOwned,
{
    run(
        cluster,
        pool,
        space,
        &Enumeration(fold),
        skeleton,
        victims,
        i64::MIN,
    )
}

/// The result of a distributed optimisation: the best objective and a node reaching it.
pub type Best<N> = Option<Distributed<Option<(i64, N)>>>;

/// Distributed branch and bound: the best objective over `space` and a node reaching it, or
/// `None` if no node beats `initial_bound` (see [`run`]). `prune_level`: children come in
/// non-increasing bound order.
pub fn optimise<S>(
    cluster: &Cluster,
    pool: &ThreadPool,
    space: &S,
    skeleton: Skeleton,
    victims: &RemoteVictims,
    initial_bound: Option<i64>,
    prune_level: bool,
) -> Best<S::Node>
where
    S: Objective,
    S::Node: Clone + Serialize + DeserializeOwned,
{
    let visitor = Optimisation { space, prune_level };
    let start = initial_bound.unwrap_or(i64::MIN);
    run(cluster, pool, space, &visitor, skeleton, victims, start)
}

/// Distributed decision: a node whose objective reaches `target`, or `None` after the whole
/// tree (see [`run`]).
pub fn decide<S>(
    cluster: &Cluster,
    pool: &ThreadPool,
    space: &S,
    target: i64,
    skeleton: Skeleton,
    victims: &RemoteVictims,
    prune_level: bool,
) -> Option<Distributed<Option<S::Node>>>
where
    S: Objective,
    S::Node: Clone + Serialize + DeserializeOwned,
{
    let visitor = Decision {
        space,
        target,
        prune_level,
    };
    run(cluster, pool, space, &visitor, skeleton, victims, i64::MIN)
}

/// Searches `space` with `visitor` over every rank of `cluster` (a collective call: every
/// rank calls it with the same arguments), splitting the tree by `skeleton`, each rank's tasks run by `pool`'s workers. `incumbent`: the starting
/// incumbent of an optimisation. Returns the merged result on rank 0 and `None` elsewhere.
pub fn run<S, V>(
    cluster: &Cluster,
    pool: &ThreadPool,
    space: &S,
    visitor: &V,
    skeleton: Skeleton,
    victims: &RemoteVictims,
    incumbent: i64,
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
    let state = RankState::new(incumbent, workers, perf);
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
        communicate(
            cluster,
            &shared,
            &state,
            &mut credit,
            victims,
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
    })
}

/// Worker `index`: takes tasks from the depth pool until the rank is told the search is over.
fn work<S, V>(
    index: usize,
    space: &S,
    visitor: &V,
    skeleton: Skeleton,
    shared: &Shared<S::Node>,
    state: &RankState,
) -> (V::Acc, SearchStats)
where
    S: SearchSpace,
    V: Visitor<S>,
{
    let mut acc = visitor.empty();
    let mut counts = SearchStats::default();
    let mut rate = state.perf.rate_start;
    let mut last_end = Instant::now();
    loop {
        // The rank's workers are long-lived tasks spawned by one scope: on a split deque
        // (lcws-*) the ones not yet started stay private to the worker that spawned them
        // until it serves an exposure request. Serving them here lets every worker start
        // (without it, 2 workers on one rank ran at the speed of 1).
        magpie::expose_work();
        let task = {
            let mut p = shared.lock();
            loop {
                if p.done || state.stopped() {
                    break None;
                }
                if let Some(t) = p.pop_deepest() {
                    p.active += 1;
                    break Some(t);
                }
                if matches!(skeleton, Skeleton::StackStealing { .. }) && p.active > 0 {
                    // Nothing queued: ask a busy worker of this rank to split its stack.
                    shared.split_wanted.store(true, Ordering::Relaxed);
                }
                magpie::expose_work();
                p = shared
                    .wake
                    .wait_timeout(p, Duration::from_millis(1))
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
        };
        let Some((depth, node, maker)) = task else {
            return (acc, counts);
        };
        if maker.is_some_and(|m| m != index) {
            counts.steals += 1;
        }
        let t = Instant::now();
        let mut children: Vec<S::Node> = Vec::new();
        let mut tasks_depth = depth + 1;
        if counts.count(visitor.enter(&mut acc, &node, depth, state)) {
            let split = match skeleton {
                Skeleton::DepthBounded { spawn_depth } | Skeleton::Ordered { spawn_depth, .. }
                    if depth < spawn_depth =>
                {
                    None
                }
                Skeleton::Sequential | Skeleton::DepthBounded { .. } | Skeleton::Ordered { .. } => {
                    Some(Split::Never)
                }
                Skeleton::Budget { backtracks } => Some(Split::Budget(backtracks.max(1), shared)),
                Skeleton::StackStealing { steal_all } => Some(Split::OnDemand {
                    all: steal_all,
                    pool: shared,
                }),
            };
            match split {
                Some(split) => {
                    let c = &mut counts;
                    subtree(
                        space, visitor, &mut acc, &node, depth, state, split, index, c,
                    );
                }
                None => {
                    if let Skeleton::Ordered { spawn_depth, order } = skeleton {
                        // The root, on rank 0: every task, in priority order.
                        let at = (depth, spawn_depth, order);
                        let c = &mut counts;
                        children = ordered_tasks(space, visitor, &mut acc, &node, at, state, c);
                        tasks_depth = spawn_depth;
                    } else {
                        // Its generator runs to the end here: one backtrack.
                        children = space.children(&node).collect();
                        counts.backtracks += 1;
                    }
                    counts.tasks += children.len() as u64;
                }
            }
        }
        let end = Instant::now();
        counts.time += end - t;
        let ns = |d: Duration| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        let cycle = TaskCycle {
            idle_ns: ns(t - last_end),
            work_ns: ns(end - t),
        };
        rate = work_rate(rate, cycle, &state.perf);
        state.rates[index].store(rate.to_bits(), Ordering::Relaxed);
        last_end = end;
        let mut p = shared.lock();
        // This rank's workers take the newest task of the deepest level, so they take the
        // children in heuristic order (best first), as a depth-first search does; a thief
        // takes the newest of the shallowest level, the next in that order. Ordered's tasks,
        // all at one level, leave in priority order either way.
        let n = p.push_best_first(tasks_depth, children, Some(index));
        p.active -= 1;
        drop(p);
        if n > 1 {
            shared.wake.notify_all();
        } else if n == 1 {
            shared.wake.notify_one();
        }
    }
}

/// Ordered: the nodes at `spawn_depth` below `node` (visited, at `depth`), in priority
/// order (`order`: depth-first, or fewest discrepancies first with ties depth-first). The
/// nodes between are visited here, counted in `counts` (one backtrack per generator run to
/// its end, a prune-level cut included); the tasks are visited when they are taken.
fn ordered_tasks<S, V>(
    space: &S,
    visitor: &V,
    acc: &mut V::Acc,
    node: &S::Node,
    (depth, spawn_depth, order): (usize, usize, TaskOrder),
    state: &RankState,
    counts: &mut SearchStats,
) -> Vec<S::Node>
where
    S: SearchSpace,
    V: Visitor<S>,
{
    /// Depth-first down to the spawn depth: `(discrepancies, task)` in depth-first order.
    #[allow(clippy::too_many_arguments)]
    fn collect<S: SearchSpace, V: Visitor<S>>(
        space: &S,
        visitor: &V,
        acc: &mut V::Acc,
        node: &S::Node,
        (depth, discrepancies, spawn_depth): (usize, usize, usize),
        state: &RankState,
        counts: &mut SearchStats,
        out: &mut Vec<(usize, S::Node)>,
    ) {
        for (i, child) in space.children(node).enumerate() {
            let d = discrepancies + usize::from(i > 0);
            if depth + 1 >= spawn_depth {
                out.push((d, child));
                continue;
            }
            let visit = visitor.enter(acc, &child, depth + 1, state);
            if counts.count(visit) {
                let at = (depth + 1, d, spawn_depth);
                collect(space, visitor, acc, &child, at, state, counts, out);
            } else if state.stopped()
                || (visitor.prune_level() && visit == (Visit::Skip { by_bound: true }))
            {
                // Stopped, or a prune-level cut: the later siblings are no better.
                break;
            }
        }
        counts.backtracks += 1;
    }
    let mut tasks = Vec::new();
    let at = (depth, 0, spawn_depth);
    collect(space, visitor, acc, node, at, state, counts, &mut tasks);
    if order == TaskOrder::Discrepancy {
        // Stable: ties keep depth-first order.
        tasks.sort_by_key(|t| t.0);
    }
    tasks.into_iter().map(|t| t.1).collect()
}

/// Visits the nodes strictly below `node` (at `depth`) depth-first, as far as `visitor`
/// lets it, counting them in worker `index`'s `counts`: expanded and pruned nodes, one
/// backtrack per child generator that ends (run out or cut by prune-level; `node`'s
/// included), and the tasks it makes. `split` says when unexplored nodes of the
/// shallowest level that still has some become tasks in the rank's pool, for its other
/// workers and for thieves: never, every `budget` backtracks (Budget), or when asked
/// (StackStealing).
#[allow(clippy::too_many_arguments)]
fn subtree<S, V>(
    space: &S,
    visitor: &V,
    acc: &mut V::Acc,
    node: &S::Node,
    depth: usize,
    state: &RankState,
    split: Split<'_, S::Node>,
    index: usize,
    counts: &mut SearchStats,
) where
    S: SearchSpace,
    V: Visitor<S>,
{
    let mut since_spill = 0u64;
    let mut stack = vec![space.children(node)];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(child) => {
                let d = depth + stack.len();
                let visit = visitor.enter(acc, &child, d, state);
                if counts.count(visit) {
                    let g = space.children(&child);
                    stack.push(g);
                } else if state.stopped() {
                    break;
                } else if visitor.prune_level() && visit == (Visit::Skip { by_bound: true }) {
                    // The later siblings are no better: the parent's generator ends here.
                    stack.pop();
                    counts.backtracks += 1;
                }
                if let Split::OnDemand { all, pool } = split {
                    // A relaxed load per node; the swap only when someone asked.
                    if pool.split_wanted.load(Ordering::Relaxed)
                        && pool.split_wanted.swap(false, Ordering::Relaxed)
                    {
                        counts.tasks += spill_shallowest(&mut stack, depth, pool, all, index);
                    }
                }
            }
            None => {
                stack.pop();
                counts.backtracks += 1;
                since_spill += 1;
                if let Split::Budget(budget, pool) = split {
                    if since_spill >= budget {
                        since_spill = 0;
                        counts.tasks += spill_shallowest(&mut stack, depth, pool, true, index);
                    }
                }
            }
        }
    }
}

/// Moves the remaining children of the shallowest level of `stack` that has any into `pool`
/// as tasks made by worker `maker` — all of them, or (`all == false`) only the next one
/// (level `i` generates the nodes at depth `depth + 1 + i`); returns how many.
fn spill_shallowest<N, G: Iterator<Item = N>>(
    stack: &mut [G],
    depth: usize,
    pool: &Shared<N>,
    all: bool,
    maker: usize,
) -> u64 {
    for (i, level) in stack.iter_mut().enumerate() {
        let rest: Vec<N> = if all {
            level.collect()
        } else {
            level.next().into_iter().collect()
        };
        if rest.is_empty() {
            continue;
        }
        let n = rest.len();
        let mut p = pool.lock();
        // Reversed: the newest task of a level is the next in heuristic order (see `work`).
        for node in rest.into_iter().rev() {
            p.push(depth + 1 + i, node, Some(maker));
        }
        drop(p);
        if n > 1 {
            pool.wake.notify_all();
        } else {
            pool.wake.notify_one();
        }
        return n as u64;
    }
    0
}

/// Sends thief `from` the shallowest task of this rank with half of its credit; `false` if
/// the pool is empty or its shallowest task is above `min_depth`.
fn give_work<N: Serialize>(
    world: &mpi::topology::SimpleCommunicator,
    shared: &Shared<N>,
    credit: &mut Credit,
    stats: &mut RankStats,
    (from, min_depth): (i32, usize),
) -> bool {
    let Some((depth, node)) = shared.lock().pop_shallowest(min_depth) else {
        return false;
    };
    let half = credit.split().expect("a rank with work holds credit");
    let bytes = encode(&Work {
        credit: half.exponents().to_vec(),
        tasks: vec![(depth as u32, node)],
    });
    stats.tasks_sent += 1;
    stats.bytes_sent += bytes.len() as u64;
    world
        .process_at_rank(from)
        .send_with_tag(&bytes[..], TAG_WORK);
    true
}

/// Tells thief `from` this rank has no work for it.
fn refuse(world: &mpi::topology::SimpleCommunicator, from: i32) {
    world
        .process_at_rank(from)
        .send_with_tag(&[0u8][..], TAG_NO_WORK);
}

/// The rank's communication loop (main thread): serves steal requests, steals when idle,
/// returns credit, and ends when `DONE` arrives (or, on rank 0, when the whole credit is
/// back). With `priority` (Ordered, its spawn depth) every task is on rank 0 until taken: a
/// rank other than 0 asks rank 0, and only rank 0, as soon as one of its workers is idle and
/// its pool empty (not only when the whole rank is idle), so that each of its workers gets
/// the next task in priority order; rank 0 never asks, and never gives away the root.
#[allow(clippy::too_many_arguments)]
fn communicate<N: Serialize + DeserializeOwned>(
    cluster: &Cluster,
    shared: &Shared<N>,
    state: &RankState,
    credit: &mut Credit,
    victims: &RemoteVictims,
    stats: &mut RankStats,
    rank: i32,
    size: i32,
    on_demand: bool,
    priority: Option<usize>,
) {
    let world = cluster.world();
    let mut recovered = Recovered::default();
    let mut chooser = victims.chooser(rank, size, state.rates.len());
    let mut waiting_thieves: VecDeque<i32> = VecDeque::new();
    let mut asked: Option<i32> = None;
    let mut idle_since: Option<Instant> = None;
    let min_depth = priority.unwrap_or(0);
    let finish = |world: &mpi::topology::SimpleCommunicator| {
        for r in 1..size {
            world.process_at_rank(r).send_with_tag(&[0u8][..], TAG_DONE);
        }
    };
    'serve: loop {
        if crate::abort_requested() {
            // A worker of this rank panicked (its hook printed the error).
            crate::abort_job();
        }
        let mut progressed = false;
        while let Some(probed) = world.any_process().immediate_matched_probe() {
            progressed = true;
            let (bytes, status) = probed.matched_receive_vec::<u8>();
            let from = status.source_rank();
            match status.tag() {
                TAG_STEAL => {
                    stats.requests_received += 1;
                    if !give_work(&world, shared, credit, stats, (from, min_depth)) {
                        if on_demand && shared.lock().active > 0 {
                            // StackStealing: a busy worker will split its stack; the
                            // thief waits for that (or for this rank to run dry).
                            shared.split_wanted.store(true, Ordering::Relaxed);
                            waiting_thieves.push_back(from);
                        } else {
                            refuse(&world, from);
                        }
                    }
                }
                TAG_WORK => {
                    let work: Work<N> = decode_from(&bytes, "work", from);
                    stats.bytes_received += bytes.len() as u64;
                    stats.steals_ok += 1;
                    stats.tasks_received += work.tasks.len() as u64;
                    if asked.take().is_some() {
                        chooser.outcome(from, true, Instant::now());
                    }
                    credit.absorb(Credit::from_exponents(work.credit));
                    let mut p = shared.lock();
                    for (depth, node) in work.tasks {
                        p.push(depth as usize, node, None);
                    }
                    drop(p);
                    shared.wake.notify_all();
                }
                TAG_NO_WORK => {
                    stats.steals_failed += 1;
                    if asked.take().is_some() {
                        chooser.outcome(from, false, Instant::now());
                    }
                }
                TAG_CREDIT => {
                    let returned: Vec<u32> = decode_from(&bytes, "credit", from);
                    recovered.add(Credit::from_exponents(returned));
                    if recovered.is_whole() {
                        finish(&world);
                        break 'serve;
                    }
                }
                TAG_BOUND => {
                    let value: i64 = decode_from(&bytes, "bound", from);
                    stats.bounds_received += 1;
                    state.incumbent.fetch_max(value, Ordering::Relaxed);
                }
                TAG_PERF_QUERY => {
                    // The `perf` policy's monitor on rank `from` asks for this rank's load
                    // and residual tasks (answered whatever this rank's own policy).
                    let tasks = shared.lock().len as u64;
                    let bytes = encode(&(state.load(), tasks));
                    world
                        .process_at_rank(from)
                        .send_with_tag(&bytes[..], TAG_PERF_REPLY);
                }
                TAG_PERF_REPLY => {
                    let (load, tasks): (f64, u64) = decode_from(&bytes, "monitor reply", from);
                    if let Some(m) = chooser.monitor() {
                        m.reply(from, load, tasks, Instant::now());
                    }
                }
                TAG_FOUND => {
                    // Rank 0: a rank found a node reaching the target.
                    finish(&world);
                    break 'serve;
                }
                TAG_DONE => break 'serve,
                other => panic!("rank {rank}: unexpected message tag {other} from rank {from}"),
            }
        }
        if state.improved.swap(false, Ordering::Acquire) {
            // A better incumbent here: every other rank prunes with it at once.
            let bytes = encode(&state.incumbent.load(Ordering::Relaxed));
            for r in (0..size).filter(|&r| r != rank) {
                world
                    .process_at_rank(r)
                    .send_with_tag(&bytes[..], TAG_BOUND);
                stats.bounds_sent += 1;
            }
        }
        if state.found.swap(false, Ordering::Acquire) {
            // Decision: the first success ends the search on every rank.
            if rank == 0 {
                finish(&world);
                break 'serve;
            }
            world
                .process_at_rank(0)
                .send_with_tag(&[0u8][..], TAG_FOUND);
        }
        if let Some(m) = chooser.monitor() {
            let now = Instant::now();
            if size > 1 && m.refresh_due(now) {
                m.refresh_sent(now);
                for r in (0..size).filter(|&r| r != rank) {
                    world
                        .process_at_rank(r)
                        .send_with_tag(&[0u8][..], TAG_PERF_QUERY);
                }
                progressed = true;
            }
        }
        let (idle, hungry) = {
            let p = shared.lock();
            (
                p.len == 0 && p.active == 0,
                p.len == 0 && p.active < state.rates.len(),
            )
        };
        while let Some(&thief) = waiting_thieves.front() {
            if give_work(&world, shared, credit, stats, (thief, min_depth)) {
                waiting_thieves.pop_front();
                progressed = true;
            } else if idle {
                refuse(&world, thief);
                waiting_thieves.pop_front();
            } else {
                break;
            }
        }
        if idle {
            idle_since.get_or_insert_with(Instant::now);
            if !credit.is_empty() {
                let c = credit.take();
                if rank == 0 {
                    recovered.add(c);
                    if recovered.is_whole() {
                        finish(&world);
                        break 'serve;
                    }
                } else {
                    let bytes = encode(&c.exponents().to_vec());
                    world
                        .process_at_rank(0)
                        .send_with_tag(&bytes[..], TAG_CREDIT);
                }
            }
        } else if let Some(since) = idle_since.take() {
            stats.idle += since.elapsed();
        }
        let wants_work = if priority.is_some() {
            hungry && rank != 0
        } else {
            idle
        };
        if wants_work && asked.is_none() && size > 1 && chooser.may_steal(Instant::now()) {
            let victim = if priority.is_some() {
                0
            } else {
                chooser.next_victim()
            };
            stats.requests_sent += 1;
            world
                .process_at_rank(victim)
                .send_with_tag(&[0u8][..], TAG_STEAL);
            asked = Some(victim);
            progressed = true;
        }
        if !progressed {
            // Nothing arrived: let the workers have the core for a moment.
            std::thread::sleep(Duration::from_micros(if idle { 50 } else { 200 }));
        }
    }
    // The rank's last idle stretch, however the loop ended.
    if let Some(since) = idle_since {
        stats.idle += since.elapsed();
    }
    if let Some(m) = chooser.monitor() {
        (stats.refreshes, stats.aux_refreshes) = m.refreshes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The complete binary tree of depth 4; a node is `(depth, path)`, the path's bits the
    /// moves from the root (1 = the second child), the first move most significant.
    struct Binary;

    impl SearchSpace for Binary {
        type Node = (u32, u32);
        type Children<'a> = std::vec::IntoIter<(u32, u32)>;
        fn root(&self) -> (u32, u32) {
            (0, 0)
        }
        fn children<'a>(&'a self, &(d, p): &(u32, u32)) -> Self::Children<'a> {
            if d == 4 {
                return Vec::new().into_iter();
            }
            vec![(d + 1, p << 1), (d + 1, (p << 1) | 1)].into_iter()
        }
    }

    /// The tasks at depth 3 as `ordered_tasks` makes them, then as the depth pool hands
    /// them out to local workers or to thieves, alternately.
    fn handed_out(order: TaskOrder) -> (Vec<u32>, SearchStats) {
        let state = RankState::new(i64::MIN, 1, PerfParams::default());
        let fold = magpie::search::NodeCount;
        let visitor = Enumeration(&fold);
        let mut acc = 0u64;
        let mut counts = SearchStats::default();
        let at = (0, 3, order);
        let tasks = ordered_tasks(
            &Binary,
            &visitor,
            &mut acc,
            &(0, 0),
            at,
            &state,
            &mut counts,
        );
        // The nodes at depths 1 and 2 were visited; the tasks are visited when taken.
        assert_eq!(acc, 2 + 4);
        let mut pool = DepthPool {
            levels: Vec::new(),
            len: 0,
            active: 0,
            done: false,
        };
        assert_eq!(pool.push_best_first(3, tasks, Some(0)), 8);
        let mut out = Vec::new();
        for i in 0.. {
            let next = if i % 2 == 0 {
                pool.pop_deepest().map(|t| (t.0, t.1))
            } else {
                pool.pop_shallowest(3)
            };
            let Some((depth, (d, path))) = next else {
                break;
            };
            assert_eq!((depth, d), (3, 3));
            out.push(path);
        }
        (out, counts)
    }

    #[test]
    fn a_thief_never_gets_a_task_above_the_spawn_depth() {
        let mut pool = DepthPool {
            levels: Vec::new(),
            len: 0,
            active: 0,
            done: false,
        };
        pool.push(0, (0, 0), None);
        assert!(pool.pop_shallowest(3).is_none(), "the root stays");
        assert_eq!(pool.pop_shallowest(0), Some((0, (0, 0))));
    }

    #[test]
    fn ordered_tasks_leave_the_pool_in_priority_order() {
        let (seq, counts) = handed_out(TaskOrder::Sequential);
        assert_eq!(
            seq,
            [0b000, 0b001, 0b010, 0b011, 0b100, 0b101, 0b110, 0b111]
        );
        // Visited: 2 + 4 nodes; generators run to the end: the root's, and those 6.
        assert_eq!((counts.expanded, counts.backtracks), (6, 7));
        // Fewest second children first, ties in depth-first order.
        let (disc, _) = handed_out(TaskOrder::Discrepancy);
        assert_eq!(
            disc,
            [0b000, 0b001, 0b010, 0b100, 0b011, 0b101, 0b110, 0b111]
        );
    }
}
