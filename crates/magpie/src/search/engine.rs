//! One traversal for every search kind and skeleton: a kind says what happens at a node
//! ([`Kind::visit`]); a skeleton says which subtrees become tasks.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use super::{
    Enumerate, Objective, Options, Outcome, SearchSpace, SearchStats, Skeleton, TaskOrder, Visit,
};

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
    /// expanding: its bound may have fallen behind an incumbent found since.
    fn still_promising(&self, _node: &S::Node) -> bool {
        true
    }
    /// Asks every task to stop (a panic in user code).
    fn cancel(&self);
}

/// Shared counters and settings of one search run.
struct Run<'o> {
    opts: &'o Options,
    expanded: AtomicU64,
    pruned: AtomicU64,
    tasks: AtomicU64,
    backtracks: AtomicU64,
    /// StackStealing: answered requests that carried work.
    handoffs: AtomicU64,
    per_worker: Vec<AtomicU64>,
}

#[derive(Default)]
struct LocalStats {
    expanded: u64,
    pruned: u64,
    /// Child generators run to their end (a node's subtree finished, leaves included).
    backtracks: u64,
}

impl Run<'_> {
    fn add(&self, s: &LocalStats) {
        self.expanded.fetch_add(s.expanded, Ordering::Relaxed);
        self.pruned.fetch_add(s.pruned, Ordering::Relaxed);
        self.backtracks.fetch_add(s.backtracks, Ordering::Relaxed);
        let w = crate::current_worker_index().unwrap_or(0);
        if let Some(slot) = self.per_worker.get(w) {
            slot.fetch_add(s.expanded, Ordering::Relaxed);
        }
    }

    #[inline(always)]
    fn may_expand(&self, depth: usize) -> bool {
        self.opts.max_depth.map_or(true, |m| depth < m)
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

/// Nodes between two calls of [`crate::expose_work`] in a search loop.
const EXPOSE_EVERY: u64 = 64;

/// Visits `child` and, if it is to be expanded, returns it; `None` means skipped, and `cut`
/// is set when its later siblings must be skipped too (prune-level).
#[inline(always)]
fn consider<S, K>(
    kind: &K,
    run: &Run<'_>,
    local: &mut K::Local,
    stats: &mut LocalStats,
    child: &S::Node,
    depth: usize,
) -> (bool, bool)
where
    S: SearchSpace + ?Sized,
    K: Kind<S>,
{
    if (stats.expanded + stats.pruned) % EXPOSE_EVERY == 0 {
        // A split deque with user-space exposure serves a thief's request only when its
        // owner touches the deque, which a long depth-first loop never does.
        crate::expose_work();
    }
    match kind.visit(local, child, depth) {
        Visit::Expand => {
            stats.expanded += 1;
            (true, false)
        }
        Visit::Skip { by_bound: true } => {
            stats.pruned += 1;
            (false, run.opts.prune_level)
        }
        Visit::Skip { by_bound: false } => {
            // A found target or a stopped search: visited, not expanded further.
            stats.expanded += 1;
            (false, false)
        }
    }
}

/// Depth-first below `node` (already visited) on this thread.
fn dfs<S, K>(
    space: &S,
    kind: &K,
    run: &Run<'_>,
    local: &mut K::Local,
    stats: &mut LocalStats,
    node: &S::Node,
    depth: usize,
) where
    S: SearchSpace + ?Sized,
    K: Kind<S>,
{
    Dfs {
        space,
        kind,
        run,
        local,
        stats,
    }
    .below(node, depth);
}

/// The state of one depth-first walk, so that each recursive call passes one pointer
/// instead of five (the call is most of the cost of a small node).
struct Dfs<'c, 'o, S: SearchSpace + ?Sized, K: Kind<S>> {
    space: &'c S,
    kind: &'c K,
    run: &'c Run<'o>,
    local: &'c mut K::Local,
    stats: &'c mut LocalStats,
}

impl<S: SearchSpace + ?Sized, K: Kind<S>> Dfs<'_, '_, S, K> {
    fn below(&mut self, node: &S::Node, depth: usize) {
        if !self.run.may_expand(depth) {
            return;
        }
        for child in self.space.children(node) {
            if self.kind.stopped() {
                return;
            }
            let (expand, cut) = consider(
                self.kind,
                self.run,
                self.local,
                self.stats,
                &child,
                depth + 1,
            );
            if expand {
                self.below(&child, depth + 1);
            } else if cut {
                break;
            }
        }
        self.stats.backtracks += 1;
    }
}

/// Visits what `children` yields (nodes at `depth`) and returns the ones to expand,
/// stopping at a prune-level cut or when the search stops: the siblings a skeleton turns
/// into tasks. The flag says whether a prune-level cut stopped it (the later siblings are
/// to be skipped).
fn expandable<S, K>(
    kind: &K,
    run: &Run<'_>,
    local: &mut K::Local,
    stats: &mut LocalStats,
    children: impl Iterator<Item = S::Node>,
    depth: usize,
) -> (Vec<S::Node>, bool)
where
    S: SearchSpace + ?Sized,
    K: Kind<S>,
{
    let mut out = Vec::new();
    for child in children {
        if kind.stopped() {
            break;
        }
        let (expand, cut) = consider(kind, run, local, stats, &child, depth);
        if expand {
            out.push(child);
        } else if cut {
            return (out, true);
        }
    }
    (out, false)
}

/// One level of an explicit depth-first stack: a child generator and the depth of the nodes
/// it yields. `cut` marks a generator whose remaining children a prune-level cut skipped.
struct Level<G> {
    children: G,
    depth: usize,
    cut: bool,
}

impl<G: Iterator> Level<G> {
    fn new(children: G, depth: usize) -> Self {
        Level {
            children,
            depth,
            cut: false,
        }
    }

    /// The next child, unless the level was cut.
    fn next(&mut self) -> Option<G::Item> {
        if self.cut {
            None
        } else {
            self.children.next()
        }
    }
}

/// Whether a node visited earlier (a task's, a handed-over one) is still worth expanding
/// now that it starts; if not, its subtree is done (cut by the bound) and counts as one
/// backtrack.
fn worth_starting<S, K>(kind: &K, stats: &mut LocalStats, node: &S::Node) -> bool
where
    S: SearchSpace + ?Sized,
    K: Kind<S>,
{
    let worth = kind.still_promising(node);
    if !worth {
        stats.backtracks += 1;
    }
    worth
}

/// A DepthBounded task: `node` (already visited) at `depth`.
fn depth_bounded_task<'s, S, K>(
    scope: &crate::Scope<'s>,
    space: &'s S,
    kind: &'s K,
    run: &'s Run<'s>,
    spawn_depth: usize,
    node: S::Node,
    depth: usize,
) where
    S: SearchSpace + ?Sized,
    K: Kind<S>,
{
    as_task::<S, K>(kind, run, |local, stats| {
        if !worth_starting(kind, stats, &node) {
            return;
        }
        if depth < spawn_depth && run.may_expand(depth) {
            let (spawn, _) = expandable(kind, run, local, stats, space.children(&node), depth + 1);
            stats.backtracks += 1;
            run.tasks.fetch_add(spawn.len() as u64, Ordering::Relaxed);
            // Each child is a task that whoever takes its slot first runs: the owner walks the
            // slots in heuristic order, while the jobs pushed for thieves (oldest first, so a
            // thief takes the most promising child the owner has not reached, as YewPar's
            // depth pool does) run the slots they still find full. Pushing the jobs in
            // reverse instead would hand thieves the least promising children, which in an
            // optimisation mostly explore what a better incumbent would have pruned.
            let slots: std::sync::Arc<[Mutex<Option<S::Node>>]> =
                spawn.into_iter().map(|c| Mutex::new(Some(c))).collect();
            let take = |slots: &[Mutex<Option<S::Node>>], i: usize| {
                slots[i].lock().unwrap_or_else(|e| e.into_inner()).take()
            };
            for i in 1..slots.len() {
                let slots = slots.clone();
                scope.spawn(move |s| {
                    if let Some(child) = take(&slots, i) {
                        depth_bounded_task(s, space, kind, run, spawn_depth, child, depth + 1)
                    }
                });
            }
            for i in 0..slots.len() {
                if kind.stopped() {
                    break;
                }
                if let Some(child) = take(&slots, i) {
                    depth_bounded_task(scope, space, kind, run, spawn_depth, child, depth + 1);
                }
            }
        } else if !kind.stopped() {
            dfs(space, kind, run, local, stats, &node, depth);
        }
    });
}

/// A Budget task: depth-first below `node` (already visited, at `depth`) with an explicit
/// stack of generators; every `budget` backtracks, the remaining children of the shallowest
/// generator that has any become tasks.
fn budget_task<'s, S, K>(
    scope: &crate::Scope<'s>,
    space: &'s S,
    kind: &'s K,
    run: &'s Run<'s>,
    budget: u64,
    node: S::Node,
    depth: usize,
) where
    S: SearchSpace + ?Sized,
    K: Kind<S>,
{
    as_task::<S, K>(kind, run, |local, stats| {
        if !worth_starting(kind, stats, &node) {
            return;
        }
        let mut stack: Vec<Level<S::Children<'s>>> = Vec::new();
        if run.may_expand(depth) {
            stack.push(Level::new(space.children(&node), depth + 1));
        }
        let mut backtracks = 0u64;
        while let Some(level) = stack.last_mut() {
            if kind.stopped() {
                break;
            }
            let child_depth = level.depth;
            match level.next() {
                None => {
                    stack.pop();
                    backtracks += 1;
                    stats.backtracks += 1;
                    if backtracks >= budget {
                        backtracks = 0;
                        // Spawn the rest of the shallowest level that still has nodes to
                        // expand (the levels drained here are popped when reached).
                        for level in stack.iter_mut().filter(|l| !l.cut) {
                            let d = level.depth;
                            let (spawn, cut) =
                                expandable(kind, run, local, stats, level.children.by_ref(), d);
                            level.cut = cut;
                            if spawn.is_empty() {
                                continue;
                            }
                            run.tasks.fetch_add(spawn.len() as u64, Ordering::Relaxed);
                            for child in spawn.into_iter().rev() {
                                scope.spawn(move |s| {
                                    budget_task(s, space, kind, run, budget, child, d)
                                });
                            }
                            break;
                        }
                    }
                }
                Some(child) => {
                    let (expand, cut) = consider(kind, run, local, stats, &child, child_depth);
                    if expand {
                        if run.may_expand(child_depth) {
                            stack.push(Level::new(space.children(&child), child_depth + 1));
                        }
                    } else if cut {
                        // Prune-level: skip this generator's later siblings.
                        level.cut = true;
                    }
                }
            }
        }
    });
}

/// Ordered: visits the tree above `spawn_depth` on this thread and collects the nodes at
/// `spawn_depth` with their discrepancy counts, in depth-first order.
#[allow(clippy::too_many_arguments)]
fn collect_frontier<S, K>(
    space: &S,
    kind: &K,
    run: &Run<'_>,
    local: &mut K::Local,
    stats: &mut LocalStats,
    node: &S::Node,
    depth: usize,
    discrepancies: usize,
    spawn_depth: usize,
    out: &mut Vec<(usize, S::Node)>,
) where
    S: SearchSpace + ?Sized,
    K: Kind<S>,
{
    if !run.may_expand(depth) {
        return;
    }
    for (i, child) in space.children(node).enumerate() {
        if kind.stopped() {
            return;
        }
        let (expand, cut) = consider(kind, run, local, stats, &child, depth + 1);
        if expand {
            let disc = discrepancies + usize::from(i > 0);
            if depth + 1 >= spawn_depth {
                out.push((disc, child));
            } else {
                collect_frontier(
                    space,
                    kind,
                    run,
                    local,
                    stats,
                    &child,
                    depth + 1,
                    disc,
                    spawn_depth,
                    out,
                );
            }
        } else if cut {
            break;
        }
    }
    stats.backtracks += 1;
}

/// Ordered: tasks are the frontier nodes, started in `order` by every worker taking the next
/// number from one counter, so each starts exactly once and in order.
fn ordered<S, K>(
    space: &S,
    kind: &K,
    run: &Run<'_>,
    root: &S::Node,
    spawn_depth: usize,
    order: TaskOrder,
) where
    S: SearchSpace + ?Sized,
    K: Kind<S>,
    S::Node: Send,
{
    let mut local = kind.local();
    let mut stats = LocalStats::default();
    let mut frontier = Vec::new();
    if spawn_depth == 0 {
        frontier.push((0, space.root()));
    } else {
        collect_frontier(
            space,
            kind,
            run,
            &mut local,
            &mut stats,
            root,
            0,
            0,
            spawn_depth,
            &mut frontier,
        );
    }
    kind.finish(local);
    run.add(&stats);
    if order == TaskOrder::Discrepancy {
        // Stable: ties keep depth-first order.
        frontier.sort_by_key(|(d, _)| *d);
    }
    let tasks: Vec<Mutex<Option<S::Node>>> = frontier
        .into_iter()
        .map(|(_, n)| Mutex::new(Some(n)))
        .collect();
    run.tasks.fetch_add(tasks.len() as u64, Ordering::Relaxed);
    let next = AtomicU64::new(0);
    let (tasks, next) = (&tasks, &next);
    crate::scope(|s| {
        for _ in 0..crate::current_num_workers() {
            s.spawn_shared(move |_| {
                as_task::<S, K>(kind, run, |local, stats| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                    if i >= tasks.len() || kind.stopped() {
                        break;
                    }
                    let node = tasks[i].lock().unwrap_or_else(|e| e.into_inner()).take();
                    let node = node.expect("each ordered task starts once");
                    if worth_starting(kind, stats, &node) {
                        dfs(space, kind, run, local, stats, &node, spawn_depth);
                    }
                });
            });
        }
    });
}

/// StackStealing: per-worker request slots and mailboxes.
///
/// Protocol: `requests[v]` is `OPEN` while worker `v` has work and takes requests, `CLOSED`
/// while it is idle, or `r + 1` while worker `r` waits for an answer. A busy worker checks
/// its slot at every node and answers by putting nodes (already visited) into
/// `mailbox[r]`; a non-empty answer counts the receiver active (`active += 1`) before it is
/// delivered, so `active` reaches 0 only when no worker has or is about to get work. A worker
/// that runs out of work closes its slot, answering a pending request with an empty list,
/// so no requester waits forever.
struct StackSteal<N> {
    requests: Vec<crossbeam_utils::CachePadded<AtomicU64>>,
    mailbox: Vec<Mailbox<N>>,
    active: AtomicU64,
    steal_all: bool,
}

/// Where a thief receives the answer to its request: nodes with their depths.
type Mailbox<N> = Mutex<Option<Vec<(N, usize)>>>;

const OPEN: u64 = 0;
const CLOSED: u64 = u64::MAX;

/// One StackStealing search worker.
#[allow(clippy::too_many_arguments)]
fn stack_stealing_worker<'s, S, K>(
    space: &'s S,
    kind: &'s K,
    run: &'s Run<'s>,
    shared: &StackSteal<S::Node>,
    me: usize,
    initial: Option<(S::Node, usize)>,
) where
    S: SearchSpace + ?Sized,
    K: Kind<S>,
{
    as_task::<S, K>(kind, run, |local, stats| {
        let workers = shared.requests.len();
        let mut rng = crate::policy::XorShift64Star::new(me as u64 + 77);
        // Nodes received (visited, not yet expanded), then the generator stack.
        // Whether `active` counts this worker: the root's worker from the start, the others once
        // a giver hands them work (the giver counts them).
        let mut counted = initial.is_some();
        let mut pending: Vec<(S::Node, usize)> = initial.into_iter().collect();
        let mut stack: Vec<Level<S::Children<'s>>> = Vec::new();
        'outer: loop {
            // Work: expand until there is nothing left here.
            loop {
                if kind.stopped() {
                    stack.clear();
                    pending.clear();
                    break;
                }
                let r = shared.requests[me].load(Ordering::Acquire);
                if r != OPEN && r != CLOSED {
                    let mut give = Vec::new();
                    if let Some(n) = pending.pop() {
                        give.push(n);
                    }
                    for level in stack.iter_mut() {
                        if !give.is_empty() {
                            break;
                        }
                        while let Some(child) = level.next() {
                            let (expand, cut) =
                                consider(kind, run, local, stats, &child, level.depth);
                            if expand {
                                give.push((child, level.depth));
                                if !shared.steal_all {
                                    break;
                                }
                            } else if cut {
                                level.cut = true;
                            }
                        }
                    }
                    if !give.is_empty() {
                        shared.active.fetch_add(1, Ordering::AcqRel);
                    }
                    *shared.mailbox[(r - 1) as usize]
                        .lock()
                        .unwrap_or_else(|e| e.into_inner()) = Some(give);
                    shared.requests[me].store(OPEN, Ordering::Release);
                }
                match stack.last_mut() {
                    Some(level) => {
                        let depth = level.depth;
                        match level.next() {
                            None => {
                                stack.pop();
                                stats.backtracks += 1;
                            }
                            Some(child) => {
                                let (expand, cut) =
                                    consider(kind, run, local, stats, &child, depth);
                                if expand {
                                    if run.may_expand(depth) {
                                        stack.push(Level::new(space.children(&child), depth + 1));
                                    }
                                } else if cut {
                                    level.cut = true;
                                }
                            }
                        }
                    }
                    None => match pending.pop() {
                        Some((node, depth)) => {
                            if worth_starting(kind, stats, &node) && run.may_expand(depth) {
                                stack.push(Level::new(space.children(&node), depth + 1));
                            }
                        }
                        None => break,
                    },
                }
            }
            // Idle: close the slot (answering a pending request), then look for work.
            let prev = shared.requests[me].swap(CLOSED, Ordering::AcqRel);
            if prev != OPEN && prev != CLOSED {
                *shared.mailbox[(prev - 1) as usize]
                    .lock()
                    .unwrap_or_else(|e| e.into_inner()) = Some(Vec::new());
            }
            // From here this worker either leaves or is handed work (and counted again).
            if counted {
                shared.active.fetch_sub(1, Ordering::AcqRel);
            }
            loop {
                // `stopped` covers a found decision and a panic elsewhere: a worker that panicked
                // never decrements `active` nor answers its slot.
                if shared.active.load(Ordering::Acquire) == 0 || workers == 1 || kind.stopped() {
                    break 'outer;
                }
                let mut victim = rng.below(workers - 1);
                if victim >= me {
                    victim += 1;
                }
                let asked = shared.requests[victim]
                    .compare_exchange(OPEN, me as u64 + 1, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok();
                if !asked {
                    std::thread::yield_now();
                    continue;
                }
                let answer = loop {
                    if let Some(a) = shared.mailbox[me]
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .take()
                    {
                        break a;
                    }
                    if kind.stopped() {
                        break 'outer;
                    }
                    std::thread::yield_now();
                };
                if !answer.is_empty() {
                    run.handoffs.fetch_add(1, Ordering::Relaxed);
                    // The giver already counted us active.
                    counted = true;
                    shared.requests[me].store(OPEN, Ordering::Release);
                    pending = answer;
                    continue 'outer;
                }
            }
        }
    });
}

fn stack_stealing<S, K>(space: &S, kind: &K, run: &Run<'_>, root: S::Node, steal_all: bool)
where
    S: SearchSpace + ?Sized,
    K: Kind<S>,
{
    let workers = crate::current_num_workers().max(1);
    let shared = StackSteal {
        requests: (0..workers)
            .map(|w| {
                crossbeam_utils::CachePadded::new(AtomicU64::new(if w == 0 {
                    OPEN
                } else {
                    CLOSED
                }))
            })
            .collect(),
        mailbox: (0..workers).map(|_| Mutex::new(None)).collect(),
        active: AtomicU64::new(1),
        steal_all,
    };
    run.tasks.fetch_add(workers as u64, Ordering::Relaxed);
    let shared = &shared;
    crate::scope(|s| {
        for w in 1..workers {
            s.spawn_shared(move |_| stack_stealing_worker(space, kind, run, shared, w, None));
        }
        // Worker 0 holds the root and runs right here, so the only worker whose slot is open
        // from the start is surely running (thieves wait on open slots only).
        stack_stealing_worker(space, kind, run, shared, 0, Some((root, 0)));
    });
}

/// Runs `kind` over `space` with `skeleton` on the current pool; returns the statistics.
fn run_search<S, K>(space: &S, kind: &K, skeleton: Skeleton, opts: &Options) -> SearchStats
where
    S: SearchSpace + ?Sized,
    K: Kind<S>,
{
    let start = Instant::now();
    let steals_before = crate::runtime::current_pool_steals();
    let run = Run {
        opts,
        expanded: AtomicU64::new(0),
        pruned: AtomicU64::new(0),
        tasks: AtomicU64::new(0),
        backtracks: AtomicU64::new(0),
        handoffs: AtomicU64::new(0),
        per_worker: (0..crate::current_num_workers())
            .map(|_| AtomicU64::new(0))
            .collect(),
    };
    let root = space.root();
    let mut local = kind.local();
    let mut stats = LocalStats::default();
    let (expand, _) = consider(kind, &run, &mut local, &mut stats, &root, 0);
    kind.finish(local);
    run.add(&stats);
    if expand {
        match skeleton {
            Skeleton::Sequential => {
                as_task::<S, K>(kind, &run, |local, stats| {
                    dfs(space, kind, &run, local, stats, &root, 0);
                });
            }
            Skeleton::DepthBounded { spawn_depth } => {
                let run = &run;
                crate::scope(|s| depth_bounded_task(s, space, kind, run, spawn_depth, root, 0));
            }
            Skeleton::Budget { backtracks } => {
                let run = &run;
                let budget = backtracks.max(1);
                crate::scope(|s| budget_task(s, space, kind, run, budget, root, 0));
            }
            Skeleton::StackStealing { steal_all } => {
                stack_stealing(space, kind, &run, root, steal_all);
            }
            Skeleton::Ordered { spawn_depth, order } => {
                ordered(space, kind, &run, &root, spawn_depth, order);
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
    }
}

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
    fn still_promising(&self, node: &S::Node) -> bool {
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
    fn still_promising(&self, node: &S::Node) -> bool {
        self.space.bound(node) > self.kind.best.load(Ordering::Relaxed)
    }
    fn cancel(&self) {
        self.kind.cancelled.store(true, Ordering::Relaxed)
    }
}

/// Optimisation (branch and bound, maximising [`Objective::objective`]): returns the best
/// value and a node reaching it, or `None` if no node beats `opts.initial_bound`. Every
/// worker sees an improved incumbent at its next node and prunes subtrees whose
/// [`Objective::bound`] cannot beat it.
pub fn optimise<S>(space: &S, skeleton: Skeleton, opts: &Options) -> Outcome<Option<(i64, S::Node)>>
where
    S: Objective + ?Sized,
    S::Node: Clone,
{
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
