//! One traversal for every search kind and skeleton: a kind says what happens at a node
//! ([`Kind::visit`], in `kinds`); a skeleton says which subtrees become tasks (one module
//! each); below its tasks every skeleton runs the same explicit-stack walk (`walk`).

mod batch;
mod budget;
mod depth_bounded;
mod kinds;
mod ledger;
mod ordered;
mod stack_stealing;
mod walk;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use super::{Monitor, Options, SearchSpace, SearchStats, Skeleton, Visit};

pub use kinds::{decide, enumerate, optimise};

/// The behaviour of one search kind.
trait Kind<S: SearchSpace + ?Sized>: Sync {
    /// Per-task state (an enumeration's partial fold).
    type Local: Send;
    fn local(&self) -> Self::Local;
    fn visit(&self, local: &mut Self::Local, node: &S::Node, depth: usize) -> Visit;
    /// Folds a finished task's state into the shared result.
    fn finish(&self, local: Self::Local);
    /// True once the search must stop (decision found, or a panic elsewhere).
    fn stopped(&self) -> bool;
    /// Whether a node visited earlier (a task's node, a handed-over node) is still worth
    /// expanding: its bound may have fallen behind an incumbent found since (the shared one,
    /// or the one `local` holds).
    fn still_promising(&self, _local: &Self::Local, _node: &S::Node) -> bool {
        true
    }
    /// Asks every task to stop (a panic in user code).
    fn cancel(&self);
    /// Ordered, before the pool takes its next node, with `tasks` (the tasks taken so far):
    /// a kind whose incumbent is a per-task view (the replicable optimisation) sets `local`'s
    /// view from what is fixed by `tasks` alone, waiting for the tasks that needs. The
    /// others do nothing.
    fn align(&self, _local: &mut Self::Local, _tasks: u64) {}
    /// Ordered: task number `task` (in priority order) has finished, or was skipped, with
    /// `local`'s state.
    fn task_done(&self, _local: &mut Self::Local, _task: u64) {}
    /// Called by a walk every [`walk::TICK`] expanded nodes (or so), with the nodes it has
    /// expanded: the replicable optimisation publishes its task's checkpoint there.
    #[inline(always)]
    fn tick(&self, _local: &mut Self::Local, _expanded: u64) {}
}

/// Shared counters and settings of one search run.
struct Run<'o> {
    opts: &'o Options,
    /// `opts.max_depth`, or `usize::MAX` without one: nodes at this depth are not expanded.
    max_depth: usize,
    expanded: AtomicU64,
    pruned: AtomicU64,
    tasks: AtomicU64,
    backtracks: AtomicU64,
    /// StackStealing: answered requests that carried work.
    handoffs: AtomicU64,
    per_worker: Vec<AtomicU64>,
    /// `opts.monitor`.
    monitor: Option<&'o Monitor>,
    /// A walk saw the monitor's stop and cancelled the search: the result is partial.
    interrupted: AtomicBool,
}

#[derive(Default)]
struct LocalStats {
    expanded: u64,
    pruned: u64,
    /// Child generators run to their end (a node's subtree finished, leaves included).
    backtracks: u64,
    /// The part of `expanded` already added to the monitor's live count.
    published: u64,
}

impl<'o> Run<'o> {
    /// A run with every counter at zero and one per-worker slot for each of `workers`.
    fn new(opts: &'o Options, workers: usize) -> Run<'o> {
        Run {
            opts,
            max_depth: opts.max_depth.unwrap_or(usize::MAX),
            expanded: AtomicU64::new(0),
            pruned: AtomicU64::new(0),
            tasks: AtomicU64::new(0),
            backtracks: AtomicU64::new(0),
            handoffs: AtomicU64::new(0),
            per_worker: (0..workers).map(|_| AtomicU64::new(0)).collect(),
            monitor: opts.monitor.as_ref(),
            interrupted: AtomicBool::new(false),
        }
    }

    /// A walk's tick, with a monitor: publishes the task's newly expanded nodes, and turns
    /// the monitor's stop into the kind's cancellation (which every walk and skeleton reads).
    #[inline]
    fn poll<S, K>(&self, kind: &K, stats: &mut LocalStats)
    where
        S: SearchSpace + ?Sized,
        K: Kind<S>,
    {
        if let Some(m) = self.monitor {
            m.add_nodes(stats.expanded - stats.published);
            stats.published = stats.expanded;
            if m.is_stopped() && !kind.stopped() {
                self.interrupted.store(true, Ordering::Relaxed);
                kind.cancel();
            }
        }
    }

    /// The skeleton made `n` tasks.
    #[inline]
    fn add_tasks(&self, n: u64) {
        self.tasks.fetch_add(n, Ordering::Relaxed);
        if let Some(m) = self.monitor {
            m.add_tasks(n);
        }
    }

    fn add(&self, s: &LocalStats) {
        self.expanded.fetch_add(s.expanded, Ordering::Relaxed);
        self.pruned.fetch_add(s.pruned, Ordering::Relaxed);
        self.backtracks.fetch_add(s.backtracks, Ordering::Relaxed);
        let w = crate::current_worker_index().unwrap_or(0);
        if let Some(slot) = self.per_worker.get(w) {
            slot.fetch_add(s.expanded, Ordering::Relaxed);
        }
        if let Some(m) = self.monitor {
            m.add_nodes(s.expanded - s.published);
        }
    }
}

/// Cancels the search if a task unwinds (a panic in user code), so that the other workers
/// stop within one node instead of finishing the whole tree.
struct CancelOnUnwind<'k, S: SearchSpace + ?Sized, K: Kind<S>>(
    &'k K,
    std::marker::PhantomData<&'k S>,
);

impl<S: SearchSpace + ?Sized, K: Kind<S>> Drop for CancelOnUnwind<'_, S, K> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.cancel();
        }
    }
}

/// Runs `body` as one task of the search: with its own local state and counters, folded
/// into the shared result afterwards, and the search cancelled if `body` unwinds.
fn as_task<S, K>(kind: &K, run: &Run<'_>, body: impl FnOnce(&mut K::Local, &mut LocalStats))
where
    S: SearchSpace + ?Sized,
    K: Kind<S>,
{
    let guard = CancelOnUnwind::<S, K>(kind, std::marker::PhantomData);
    let mut local = kind.local();
    let mut stats = LocalStats::default();
    body(&mut local, &mut stats);
    kind.finish(local);
    run.add(&stats);
    std::mem::forget(guard);
}

/// Runs `kind` over `space` with `skeleton` on the current pool; returns the statistics.
fn run_search<S, K>(space: &S, kind: &K, skeleton: Skeleton, opts: &Options) -> SearchStats
where
    S: SearchSpace + ?Sized,
    K: Kind<S>,
{
    let start = Instant::now();
    let steals_before = crate::runtime::current_pool_steals();
    let run = Run::new(opts, crate::current_num_workers());
    if let Some(m) = run.monitor {
        m.attach_current_pool();
    }
    let root = space.root();
    let mut local = kind.local();
    let mut stats = LocalStats::default();
    let (expand, _) = walk::consider(kind, &run, &mut local, &mut stats, &root, 0);
    kind.finish(local);
    run.add(&stats);
    if expand {
        match skeleton {
            Skeleton::Sequential => {
                as_task::<S, K>(kind, &run, |local, stats| {
                    walk::dfs(space, kind, &run, local, stats, &root, 0);
                });
            }
            Skeleton::DepthBounded { spawn_depth } => {
                let run = &run;
                crate::scope(|s| depth_bounded::task(s, space, kind, run, spawn_depth, root, 0));
            }
            Skeleton::Budget { backtracks } => {
                let run = &run;
                let budget = backtracks.max(1);
                crate::scope(|s| budget::task(s, space, kind, run, budget, root, 0));
            }
            Skeleton::StackStealing { steal_all } => {
                stack_stealing::stack_stealing(space, kind, &run, root, steal_all);
            }
            Skeleton::Ordered { spawn_depth, order } => {
                ordered::ordered(space, kind, &run, &root, spawn_depth, order);
            }
        }
    }
    SearchStats {
        expanded: run.expanded.into_inner(),
        pruned: run.pruned.into_inner(),
        tasks: run.tasks.into_inner(),
        backtracks: run.backtracks.into_inner(),
        // Other searches on the same pool at the same time add their steals too.
        steals: crate::runtime::current_pool_steals().saturating_sub(steals_before)
            + run.handoffs.into_inner(),
        per_worker: run
            .per_worker
            .into_iter()
            .map(AtomicU64::into_inner)
            .collect(),
        time: start.elapsed(),
        stopped: run.interrupted.into_inner(),
    }
}
