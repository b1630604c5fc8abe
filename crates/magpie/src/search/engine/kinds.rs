//! The search kinds: what happens at a node of an enumeration, a decision and an
//! optimisation, and their public entry points.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Mutex;

use super::ledger::{Source, TaskLedger, CHECKPOINT};
use super::{run_search, Kind};
use crate::search::{
    Enumerate, Monitor, Objective, Options, Outcome, SearchSpace, Skeleton, Visit,
};

// ---------------------------------------------------------------------------------------
// Enumeration

struct Enumeration<'e, E, A> {
    fold: &'e E,
    result: Mutex<Option<A>>,
    cancelled: AtomicBool,
}

impl<S, E> Kind<S> for Enumeration<'_, E, E::Acc>
where
    S: SearchSpace + ?Sized,
    E: Enumerate<S>,
{
    type Local = E::Acc;
    fn local(&self) -> E::Acc {
        self.fold.empty()
    }
    #[inline(always)]
    fn visit(&self, acc: &mut E::Acc, node: &S::Node, depth: usize) -> Visit {
        self.fold.visit(acc, node, depth);
        Visit::Expand
    }
    fn finish(&self, acc: E::Acc) {
        let mut r = self.result.lock().unwrap_or_else(|e| e.into_inner());
        let merged = match r.take() {
            Some(prev) => self.fold.merge(prev, acc),
            None => acc,
        };
        *r = Some(merged);
    }
    #[inline(always)]
    fn stopped(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }
    fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed)
    }
}

/// Enumeration: folds `fold` over every node of `space` (down to `opts.max_depth`), with
/// `skeleton`, on the current pool (the global pool outside any pool).
pub fn enumerate<S, E>(space: &S, fold: &E, skeleton: Skeleton, opts: &Options) -> Outcome<E::Acc>
where
    S: SearchSpace + ?Sized,
    E: Enumerate<S>,
{
    let kind = Enumeration {
        fold,
        result: Mutex::new(None),
        cancelled: AtomicBool::new(false),
    };
    let stats = run_search(space, &kind, skeleton, opts);
    let value = unpoisoned(kind.result).unwrap_or_else(|| fold.empty());
    Outcome { value, stats }
}

// ---------------------------------------------------------------------------------------
// Decision

struct Decision<N> {
    target: i64,
    found: Mutex<Option<N>>,
    stop: AtomicBool,
}

/// A kind bound to its space (the objective and bound need it).
struct With<'s, S: ?Sized, K> {
    space: &'s S,
    kind: K,
    /// `opts.monitor`: an optimisation tells it of each improvement.
    monitor: Option<&'s Monitor>,
}

impl<S> Kind<S> for With<'_, S, Decision<S::Node>>
where
    S: Objective + ?Sized,
    S::Node: Clone,
{
    type Local = ();
    fn local(&self) {}
    #[inline(always)]
    fn visit(&self, _: &mut (), node: &S::Node, _depth: usize) -> Visit {
        if self.kind.stop.load(Ordering::Relaxed) {
            return Visit::Skip { by_bound: false };
        }
        if self.space.objective(node) >= self.kind.target {
            let mut found = self.kind.found.lock().unwrap_or_else(|e| e.into_inner());
            if found.is_none() {
                *found = Some(node.clone());
            }
            self.kind.stop.store(true, Ordering::Relaxed);
            return Visit::Skip { by_bound: false };
        }
        if self.space.bound(node) < self.kind.target {
            return Visit::Skip { by_bound: true };
        }
        Visit::Expand
    }
    fn finish(&self, _: ()) {}
    #[inline(always)]
    fn stopped(&self) -> bool {
        self.kind.stop.load(Ordering::Relaxed)
    }
    fn still_promising(&self, _: &(), node: &S::Node) -> bool {
        self.space.bound(node) >= self.kind.target
    }
    fn cancel(&self) {
        self.kind.stop.store(true, Ordering::Relaxed)
    }
}

/// Decision: finds a node whose objective is at least `target`, stopping every worker as
/// soon as one is found; `None` if the whole tree has none. Subtrees whose bound is below
/// the target are skipped.
pub fn decide<S>(
    space: &S,
    target: i64,
    skeleton: Skeleton,
    opts: &Options,
) -> Outcome<Option<S::Node>>
where
    S: Objective + ?Sized,
    S::Node: Clone,
{
    let decision = Decision {
        target,
        found: Mutex::new(None),
        stop: AtomicBool::new(false),
    };
    search_with(space, decision, skeleton, opts, |d| unpoisoned(d.found))
}

/// Runs a search of `kind` bound to `space` (and to `opts.monitor`), and answers with what
/// `answer` takes from the kind once every worker is done.
fn search_with<'s, S, K, T>(
    space: &'s S,
    kind: K,
    skeleton: Skeleton,
    opts: &'s Options,
    answer: impl FnOnce(K) -> T,
) -> Outcome<T>
where
    S: SearchSpace + ?Sized,
    With<'s, S, K>: Kind<S>,
{
    let with = With {
        space,
        kind,
        monitor: opts.monitor.as_ref(),
    };
    let stats = run_search(space, &with, skeleton, opts);
    Outcome {
        value: answer(with.kind),
        stats,
    }
}

/// What `m` holds, even if a worker panicked while it held the lock.
fn unpoisoned<T>(m: Mutex<T>) -> T {
    m.into_inner().unwrap_or_else(|e| e.into_inner())
}

// ---------------------------------------------------------------------------------------
// Optimisation

/// Marks an improvement on the worker's trace (if its pool records one), with the nodes
/// expanded so far when a monitor counts them.
fn incumbent_mark(value: i64, monitor: Option<&Monitor>) {
    match monitor {
        Some(m) => {
            let nodes = m.nodes() as i64;
            crate::trace::instant("search", "incumbent", &[("value", value), ("nodes", nodes)]);
        }
        None => crate::trace::instant("search", "incumbent", &[("value", value)]),
    }
}

/// The shared incumbent: the best value (read by every worker at every node) and its node.
struct Incumbent<N> {
    best: AtomicI64,
    node: Mutex<Option<(i64, N)>>,
    cancelled: AtomicBool,
}

impl<S> Kind<S> for With<'_, S, Incumbent<S::Node>>
where
    S: Objective + ?Sized,
    S::Node: Clone,
{
    type Local = ();
    fn local(&self) {}
    #[inline(always)]
    fn visit(&self, _: &mut (), node: &S::Node, _depth: usize) -> Visit {
        let inc = &self.kind;
        if self.space.bound(node) <= inc.best.load(Ordering::Relaxed) {
            return Visit::Skip { by_bound: true };
        }
        let value = self.space.objective(node);
        if value > inc.best.load(Ordering::Relaxed) {
            let mut slot = inc.node.lock().unwrap_or_else(|e| e.into_inner());
            // Re-check under the lock: only strictly better nodes replace the incumbent.
            if value > inc.best.load(Ordering::Relaxed) {
                *slot = Some((value, node.clone()));
                inc.best.store(value, Ordering::Relaxed);
                if let Some(m) = self.monitor {
                    m.improved(value, crate::current_worker_index(), 0);
                }
                incumbent_mark(value, self.monitor);
            }
        }
        Visit::Expand
    }
    fn finish(&self, _: ()) {}
    #[inline(always)]
    fn stopped(&self) -> bool {
        self.kind.cancelled.load(Ordering::Relaxed)
    }
    fn still_promising(&self, _: &(), node: &S::Node) -> bool {
        self.space.bound(node) > self.kind.best.load(Ordering::Relaxed)
    }
    fn cancel(&self) {
        self.kind.cancelled.store(true, Ordering::Relaxed)
    }
}

/// Optimisation (branch and bound, maximising [`Objective::objective`]): returns the best
/// value and a node reaching it, or `None` if no node beats `opts.initial_bound`. Every
/// worker sees an improved incumbent at its next node and prunes subtrees whose
/// [`Objective::bound`] cannot beat it; with [`Skeleton::Ordered`] and
/// [`Options::replicable_window`], each task prunes with an incumbent fixed by its number
/// instead (see there).
pub fn optimise<S>(space: &S, skeleton: Skeleton, opts: &Options) -> Outcome<Option<(i64, S::Node)>>
where
    S: Objective + ?Sized,
    S::Node: Clone,
{
    if let (Skeleton::Ordered { .. }, Some(window)) = (skeleton, opts.replicable_window) {
        return optimise_replicable(space, skeleton, opts, window.get() as u64);
    }
    let incumbent = Incumbent {
        best: AtomicI64::new(opts.initial_bound.unwrap_or(i64::MIN)),
        node: Mutex::new(None),
        cancelled: AtomicBool::new(false),
    };
    search_with(space, incumbent, skeleton, opts, |i| unpoisoned(i.node))
}

// ---------------------------------------------------------------------------------------
// Replicable optimisation (Ordered with a replicable window)

/// The per-task incumbent of a replicable optimisation: the view a task (or a frontier
/// expansion) prunes with, and its own best find.
pub(super) struct View<N> {
    /// The incumbent value this task or expansion prunes with: its starting view, raised by
    /// its own finds.
    best: i64,
    /// Its best find, if it beat its starting view.
    found: Option<(i64, N)>,
    /// The tasks handed out when the view was last aligned: a frontier find's source, and
    /// the number of the task that runs with this view.
    tasks: u64,
    /// The running task is task 0 and has passed its checkpoint.
    checkpointed: bool,
}

impl<N> View<N> {
    /// The view's frontier find, with its source, taken out.
    fn frontier_find(&mut self) -> Option<(i64, Source, N)> {
        let tasks = self.tasks;
        self.found
            .take()
            .map(|(value, node)| (value, (tasks, 0), node))
    }
}

/// The replicable optimisation kind: every task prunes with its own [`View`], set when the
/// Ordered pool hands it out to what the [`TaskLedger`] fixes for its number, and raised
/// only by its own finds. Every pruning decision is then fixed by the task numbers, so the
/// counters and the answer are the same on every run and every worker count.
impl<S> Kind<S> for With<'_, S, TaskLedger<S::Node>>
where
    S: Objective + ?Sized,
    S::Node: Clone,
{
    type Local = View<S::Node>;
    /// A view of what the frontier found so far: the root's visit and the expansions above
    /// the first task run in a fixed order, so this is fixed too; the workers' views are
    /// aligned before they are used.
    fn local(&self) -> View<S::Node> {
        View {
            best: self.kind.current(),
            found: None,
            tasks: 0,
            checkpointed: false,
        }
    }
    #[inline(always)]
    fn visit(&self, view: &mut View<S::Node>, node: &S::Node, _depth: usize) -> Visit {
        if self.space.bound(node) <= view.best {
            return Visit::Skip { by_bound: true };
        }
        let value = self.space.objective(node);
        if value > view.best {
            view.best = value;
            view.found = Some((value, node.clone()));
            if let Some(m) = self.monitor {
                // The monitor keeps only values better than every earlier one.
                if m.improved(value, crate::current_worker_index(), 0) {
                    incumbent_mark(value, self.monitor);
                }
            }
        }
        Visit::Expand
    }
    fn finish(&self, mut view: View<S::Node>) {
        if let Some((value, source, node)) = view.frontier_find() {
            self.kind.frontier_find(value, source, node);
        }
    }
    #[inline(always)]
    fn stopped(&self) -> bool {
        self.kind.cancelled()
    }
    fn still_promising(&self, view: &View<S::Node>, node: &S::Node) -> bool {
        self.space.bound(node) > view.best
    }
    fn cancel(&self) {
        self.kind.cancel();
    }
    fn align(&self, view: &mut View<S::Node>, tasks: u64) {
        let find = view.frontier_find();
        view.best = self.kind.view(tasks, find);
        view.tasks = tasks;
        view.checkpointed = false;
    }
    fn task_done(&self, view: &mut View<S::Node>, task: u64) {
        self.kind.done(task, view.best, view.found.take());
    }
    /// Task 0 publishes its best value once its walk has expanded [`CHECKPOINT`] nodes (a
    /// point fixed by its own search).
    #[inline(always)]
    fn tick(&self, view: &mut View<S::Node>, expanded: u64) {
        if view.tasks == 0 && !view.checkpointed && expanded >= CHECKPOINT {
            view.checkpointed = true;
            self.kind.checkpoint(view.best);
        }
    }
}

/// [`optimise`] with [`Skeleton::Ordered`] and a replicable window.
fn optimise_replicable<S>(
    space: &S,
    skeleton: Skeleton,
    opts: &Options,
    window: u64,
) -> Outcome<Option<(i64, S::Node)>>
where
    S: Objective + ?Sized,
    S::Node: Clone,
{
    let kind = With {
        space,
        kind: TaskLedger::new(opts.initial_bound.unwrap_or(i64::MIN), window),
        monitor: opts.monitor.as_ref(),
    };
    let stats = run_search(space, &kind, skeleton, opts);
    Outcome {
        value: kind.kind.into_answer(),
        stats,
    }
}
