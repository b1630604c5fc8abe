//! The search kinds: what happens at a node of an enumeration, a decision and an
//! optimisation, and their public entry points.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Condvar, Mutex};

use super::{run_search, Kind};
use crate::search::{Enumerate, Objective, Options, Outcome, SearchSpace, Skeleton, Visit};

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
    let value = kind
        .result
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .unwrap_or_else(|| fold.empty());
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
    let kind = With {
        space,
        kind: Decision {
            target,
            found: Mutex::new(None),
            stop: AtomicBool::new(false),
        },
    };
    let stats = run_search(space, &kind, skeleton, opts);
    let value = kind
        .kind
        .found
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    Outcome { value, stats }
}

// ---------------------------------------------------------------------------------------
// Optimisation

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
    let kind = With {
        space,
        kind: Incumbent {
            best: AtomicI64::new(opts.initial_bound.unwrap_or(i64::MIN)),
            node: Mutex::new(None),
            cancelled: AtomicBool::new(false),
        },
    };
    let stats = run_search(space, &kind, skeleton, opts);
    let value = kind
        .kind
        .node
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    Outcome { value, stats }
}

// ---------------------------------------------------------------------------------------
// Replicable optimisation (Ordered with a replicable window)

/// Where a candidate answer was found, for a tie between equal values: a frontier visit
/// made while the pool had handed out `n` tasks is `(n, 0)`, a find of task `n` is `(n, 1)`.
/// The smallest source wins, so the reported node does not depend on timing either.
type Source = (u64, u8);

/// The per-task incumbent of a replicable optimisation: the view a task (or a frontier
/// expansion) prunes with, and its own best find.
pub(super) struct View<N> {
    /// The incumbent value this task or expansion prunes with: its starting view, raised by
    /// its own finds.
    best: i64,
    /// Its best find, if it beat its starting view.
    found: Option<(i64, N)>,
    /// The tasks handed out when the view was last aligned (a frontier find's source).
    tasks: u64,
}

/// What the finished tasks and the frontier have found, kept so that the view of the task
/// numbered `k` is the best of the frontier visits before it and of tasks `0..=k - window`,
/// whatever the timing.
struct Ledger<N> {
    /// The best value of the frontier visits (the nodes above the spawn depth and the task
    /// nodes, visited under the pool's lock in priority order) folded so far.
    frontier: i64,
    /// The best value of tasks `0..seen` (and the initial bound).
    tasks_best: i64,
    /// Tasks below this number are folded into `tasks_best`.
    seen: u64,
    /// The results of tasks `seen..`: `Some(best)` once finished.
    pending: VecDeque<Option<i64>>,
    /// The answer so far: value, source, node.
    answer: Option<(i64, Source, N)>,
}

impl<N> Ledger<N> {
    fn offer(&mut self, value: i64, source: Source, node: N) {
        let better = match &self.answer {
            None => true,
            Some((v, s, _)) => value > *v || (value == *v && source < *s),
        };
        if better {
            self.answer = Some((value, source, node));
        }
    }
}

/// The replicable optimisation kind: every task prunes with its own [`View`], set when the
/// Ordered pool hands it out to the best of what the frontier and the tasks at least
/// `window` before it found (waiting for those tasks to finish), and raised only by its
/// own finds. Every pruning decision is then fixed by the task numbers, so the counters
/// and the answer are the same on every run and every worker count.
struct Replicable<N> {
    window: u64,
    ledger: Mutex<Ledger<N>>,
    /// Signalled when a task finishes (or the search is cancelled).
    finished: Condvar,
    cancelled: AtomicBool,
}

impl<N> Replicable<N> {
    fn ledger(&self) -> std::sync::MutexGuard<'_, Ledger<N>> {
        self.ledger.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Folds `view`'s find, made outside any task (a frontier visit), into the ledger.
    fn fold_frontier(&self, ledger: &mut Ledger<N>, view: &mut View<N>) {
        if let Some((value, node)) = view.found.take() {
            ledger.frontier = ledger.frontier.max(value);
            ledger.offer(value, (view.tasks, 0), node);
        }
    }
}

impl<S> Kind<S> for With<'_, S, Replicable<S::Node>>
where
    S: Objective + ?Sized,
    S::Node: Clone,
{
    type Local = View<S::Node>;
    /// A view of what the frontier found so far: the root's visit and the expansions above
    /// the first task run in a fixed order, so this is fixed too; the workers' views are
    /// aligned before they are used.
    fn local(&self) -> View<S::Node> {
        let ledger = self.kind.ledger();
        View {
            best: ledger.frontier.max(ledger.tasks_best),
            found: None,
            tasks: ledger.seen + ledger.pending.len() as u64,
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
        }
        Visit::Expand
    }
    fn finish(&self, mut view: View<S::Node>) {
        let mut ledger = self.kind.ledger();
        self.kind.fold_frontier(&mut ledger, &mut view);
    }
    #[inline(always)]
    fn stopped(&self) -> bool {
        self.kind.cancelled.load(Ordering::Relaxed)
    }
    fn still_promising(&self, view: &View<S::Node>, node: &S::Node) -> bool {
        self.space.bound(node) > view.best
    }
    fn cancel(&self) {
        self.kind.cancelled.store(true, Ordering::Relaxed);
        // Under the lock, so that a worker between its check and its wait sees it.
        let _ledger = self.kind.ledger();
        self.kind.finished.notify_all();
    }
    /// Folds the view's frontier find, waits until tasks `0..=tasks - window` have finished,
    /// and sets the view to the best of the frontier and of those tasks.
    fn align(&self, view: &mut View<S::Node>, tasks: u64) {
        let r = &self.kind;
        let mut ledger = r.ledger();
        r.fold_frontier(&mut ledger, view);
        // Tasks below `tasks + 1 - window` count for this view.
        let upto = (tasks + 1).saturating_sub(r.window);
        while ledger.seen < upto && !self.stopped() {
            match ledger.pending.front() {
                Some(Some(best)) => {
                    ledger.tasks_best = ledger.tasks_best.max(*best);
                    ledger.pending.pop_front();
                    ledger.seen += 1;
                }
                _ => {
                    ledger = r.finished.wait(ledger).unwrap_or_else(|e| e.into_inner());
                }
            }
        }
        view.best = ledger.frontier.max(ledger.tasks_best);
        view.tasks = tasks;
    }
    /// Records task `task`'s best value and offers its find as the answer.
    fn task_done(&self, view: &mut View<S::Node>, task: u64) {
        let r = &self.kind;
        let mut ledger = r.ledger();
        let slot = (task - ledger.seen) as usize;
        if ledger.pending.len() <= slot {
            ledger.pending.resize(slot + 1, None);
        }
        ledger.pending[slot] = Some(view.best);
        if let Some((value, node)) = view.found.take() {
            ledger.offer(value, (task, 1), node);
        }
        r.finished.notify_all();
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
    let initial = opts.initial_bound.unwrap_or(i64::MIN);
    let kind = With {
        space,
        kind: Replicable {
            window,
            ledger: Mutex::new(Ledger {
                frontier: initial,
                tasks_best: initial,
                seen: 0,
                pending: VecDeque::new(),
                answer: None,
            }),
            finished: Condvar::new(),
            cancelled: AtomicBool::new(false),
        },
    };
    let stats = run_search(space, &kind, skeleton, opts);
    let ledger = kind
        .kind
        .ledger
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    let value = ledger.answer.map(|(value, _, node)| (value, node));
    Outcome { value, stats }
}
