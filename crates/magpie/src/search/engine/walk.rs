//! The depth-first walks every skeleton runs below its tasks.
//!
//! - [`dfs`] recurses through [`SearchSpace::for_each_child`] as a hand-written search does
//!   (children built in locals and lent), for up to [`RECURSION_LEVELS`] levels, then
//!   continues on an explicit stack of child generators ([`walk`]): a tree thousands of
//!   levels deep (UTS T3L) runs on the default thread stack.
//! - [`splittable_dfs`] is the same recursion with a side table ([`Frame`]s) that says, for
//!   each running *tracked* level, which of its node's children the loop has reached; a
//!   [`Splitter`] (Budget's periodic split, StackStealing's answer to a thief) takes the next
//!   children of the shallowest tracked level through [`Open::take`], which rebuilds them
//!   with [`SearchSpace::children`], visits them and marks them for the level's loop to skip.
//!   The loop itself (the app's `for_each_child`) is never suspended or copied.
//! - Which levels are tracked: all but the [`UNTRACKED`] deepest the walk has reached so far.
//!   Most nodes are down there and their subtrees are the smallest, not worth a thief's
//!   trip; untracked levels run at the plain walk's cost (on NS, tracking every level cost
//!   about 10% more instructions than the plain walk, tracking these 3–5%). After a split
//!   that finds no tracked level with work left, every level the walk enters is tracked
//!   until a split finds work: a walk deep in a big untracked subtree has work to give
//!   again at its next descents.
//!
//! The per-node work is what a hand-written depth-first search does — take the next child,
//! decide (the kind's [`Kind::visit`]), descend — plus amortised checks: every [`TICK`]
//! nodes the walk serves a thief's exposure request ([`crate::expose_work`]) and reads the
//! search's stop flag; a splittable walk asks its splitter every [`SPLIT_TICK`] nodes in a
//! tracked level, every [`TICK`] nodes in an untracked one.

use std::ops::ControlFlow;

use super::{Kind, LocalStats, Run};
use crate::search::{SearchSpace, Visit};

/// Nodes between two exposure/stop checks of a walk (a power of two).
pub(super) const TICK: u32 = 64;

/// Nodes between two [`Splitter::wants`] checks of a splittable recursion (a power of two):
/// a thief's request waits at most this many nodes.
const SPLIT_TICK: u32 = 8;

/// One level of an explicit depth-first stack: a child generator and the depth of the nodes
/// it yields. `cut` marks a generator whose remaining children a prune-level cut skipped
/// (only a level below the top is ever marked: a cut top level is popped at once).
pub(super) struct Level<G> {
    pub(super) children: G,
    pub(super) depth: usize,
    pub(super) cut: bool,
}

impl<G: Iterator> Level<G> {
    /// The next child, unless the level was cut.
    #[inline(always)]
    pub(super) fn next(&mut self) -> Option<G::Item> {
        if self.cut {
            None
        } else {
            self.children.next()
        }
    }
}

/// The stack of a walk.
pub(super) type Stack<'s, S> = Vec<Level<<S as SearchSpace>::Children<'s>>>;

/// Visits `child` (at `depth`) and returns `(expand, cut)`: whether it is to be expanded,
/// and whether its later siblings are to be skipped (a prune-level cut).
#[inline(always)]
pub(super) fn consider<S, K>(
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

/// Pushes `node`'s generator (its children are at `depth + 1`) unless `depth` is the
/// deepest level to expand.
#[inline(always)]
pub(super) fn push<'s, S>(
    space: &'s S,
    run: &Run<'_>,
    stats: &mut LocalStats,
    stack: &mut Stack<'s, S>,
    node: &S::Node,
    depth: usize,
) where
    S: SearchSpace + ?Sized,
{
    if depth < run.max_depth {
        if space.is_leaf(node) {
            stats.backtracks += 1;
            return;
        }
        stack.reserve(1);
        let len = stack.len();
        let slot = stack.as_mut_ptr().wrapping_add(len);
        // Built in its slot: a generator can be large (NS's carries a 140-byte semigroup), and
        // `push(Level::new(children))` copied it twice more, a third of NS's time.
        // SAFETY: `reserve(1)` made room for one more element, so `slot` (the first spare
        // slot) is valid for writes and aligned; each field is written exactly once before
        // `set_len` makes the element part of the vector, and nothing reads it before.
        unsafe {
            std::ptr::addr_of_mut!((*slot).children).write(space.children(node));
            std::ptr::addr_of_mut!((*slot).depth).write(depth + 1);
            std::ptr::addr_of_mut!((*slot).cut).write(false);
            stack.set_len(len + 1);
        }
        if stack[len].children.size_hint().1 == Some(0) {
            // A leaf that says so: no need to ask its generator (backtracked at once).
            stack.pop();
            stats.backtracks += 1;
        }
    }
}

/// Runs the walk until `stack` is empty or the search stops (then the stack is cleared).
///
/// `poll` is called with the stack before every node (an empty closure costs nothing). It
/// may take children off any level (a level it drains or cuts is popped when it becomes the
/// top) but must not pop levels.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn walk<'s, S, K>(
    space: &'s S,
    kind: &K,
    run: &Run<'_>,
    local: &mut K::Local,
    stats: &mut LocalStats,
    stack: &mut Stack<'s, S>,
    mut poll: impl FnMut(&mut Stack<'s, S>, &mut K::Local, &mut LocalStats),
) where
    S: SearchSpace + ?Sized,
    K: Kind<S>,
{
    let mut tick: u32 = 0;
    loop {
        let Some(top) = stack.last_mut() else {
            return;
        };
        let depth = top.depth;
        let Some(child) = top.next() else {
            stack.pop();
            stats.backtracks += 1;
            continue;
        };
        tick = tick.wrapping_add(1);
        if tick % TICK == 0 {
            // A split deque with user-space exposure serves a thief's request only when its
            // owner touches the deque, which a long depth-first loop never does.
            crate::expose_work();
            run.poll(kind, stats);
            if kind.stopped() {
                stack.clear();
                return;
            }
            kind.tick(local, stats.expanded);
        }
        poll(stack, local, stats);
        let (expand, cut) = consider(kind, run, local, stats, &child, depth);
        if expand {
            push(space, run, stats, stack, &child, depth);
        } else if cut {
            // Children come in heuristic order: the later siblings are no better.
            stack.pop();
            stats.backtracks += 1;
        }
    }
}

/// Levels of recursion the sequential walk ([`dfs`]) goes down before it continues on an
/// explicit stack: enough for every tree whose nodes are cheap enough for recursion to
/// matter (N-Queens and NS are at most 64 deep), little enough for the default thread stack.
const RECURSION_LEVELS: usize = 128;

/// Depth-first below `node` (already visited, at `depth`) on this thread.
///
/// It recurses through [`SearchSpace::for_each_child`], the way a hand-written search does
/// (children built in locals and lent, nothing pushed or copied), for up to
/// [`RECURSION_LEVELS`] levels; below that it continues with [`walk`] on an explicit stack,
/// so that trees thousands of levels deep (UTS T3L) run on the default thread stack.
pub(super) fn dfs<S, K>(
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
    splittable_dfs(space, kind, run, local, stats, node, depth, NoSplit);
}

/// What a skeleton does to a running walk between two nodes: take work off it.
pub(super) trait Splitter<'s, S: SearchSpace + ?Sized + 's, K: Kind<S>> {
    /// Whether the walk keeps the side table a split needs (false only for [`NoSplit`]: the
    /// plain walk pays nothing for splitting).
    const SPLITS: bool = true;
    /// Whether to call [`split`](Self::split) now: checked before every node, so cheap (a
    /// load, a comparison).
    fn wants(&self, counts: &LocalStats) -> bool;
    /// Takes work off the walk's open levels (with [`Open::take`]).
    fn split(&mut self, open: &mut Open<'_, 's, S>, local: &mut K::Local, counts: &mut LocalStats);
}

/// The plain walk: never splits.
struct NoSplit;

impl<'s, S: SearchSpace + ?Sized + 's, K: Kind<S>> Splitter<'s, S, K> for NoSplit {
    const SPLITS: bool = false;
    #[inline(always)]
    fn wants(&self, _: &LocalStats) -> bool {
        false
    }
    fn split(&mut self, _: &mut Open<'_, 's, S>, _: &mut K::Local, _: &mut LocalStats) {}
}

/// [`dfs`] that a [`Splitter`] may take work off: before every node it asks the splitter,
/// and when it wants to, hands it the walk's [`Open`] levels (the recursion's, kept in a
/// side table, and the explicit stack's below the recursion limit).
#[allow(clippy::too_many_arguments)]
pub(super) fn splittable_dfs<'s, S, K, P>(
    space: &'s S,
    kind: &K,
    run: &Run<'_>,
    local: &mut K::Local,
    stats: &mut LocalStats,
    node: &S::Node,
    depth: usize,
    splitter: P,
) where
    S: SearchSpace + ?Sized,
    K: Kind<S>,
    P: Splitter<'s, S, K>,
{
    // A task that starts after the search stopped does nothing (the walk itself reads the
    // stop flag only every `TICK` nodes).
    if depth < run.max_depth && !kind.stopped() {
        if run.monitor.is_some() {
            recurse::<S, K, P, true>(space, kind, run, local, stats, node, depth, splitter);
        } else {
            recurse::<S, K, P, false>(space, kind, run, local, stats, node, depth, splitter);
        }
    }
}

/// [`splittable_dfs`]'s recursion, compiled twice: `WATCHED` (a monitor is attached) polls
/// it at every tick; the other copy has no trace of the monitor, so that a search nobody
/// watches runs the walk it ran before monitors existed (measured: the poll alone made the
/// Sequential skeleton's N-Queens 8% slower, though it runs once per `TICK` nodes).
#[allow(clippy::too_many_arguments)]
fn recurse<'s, S, K, P, const WATCHED: bool>(
    space: &'s S,
    kind: &K,
    run: &Run<'_>,
    local: &mut K::Local,
    stats: &mut LocalStats,
    node: &S::Node,
    depth: usize,
    splitter: P,
) where
    S: SearchSpace + ?Sized,
    K: Kind<S>,
    P: Splitter<'s, S, K>,
{
    let mut rec = Recursion::<'_, '_, 's, S, K, P, WATCHED> {
        space,
        kind,
        run,
        local,
        counts: LocalStats::default(),
        limit: depth.saturating_add(RECURSION_LEVELS),
        halted: false,
        deepen: false,
        frontier: depth,
        frames: Frames::new(if P::SPLITS { RECURSION_LEVELS } else { 0 }),
        tracked: 0,
        stack: Vec::new(),
        splitter,
    };
    let _ = rec.below(node, depth);
    stats.expanded += rec.counts.expanded;
    stats.pruned += rec.counts.pruned;
    stats.backtracks += rec.counts.backtracks;
    stats.published += rec.counts.published;
}

/// One level of a splittable recursion: which of its node's children are still the owner's.
///
/// The loop over the children (the app's `for_each_child`) cannot be suspended, so a thief
/// is not handed the loop: it is handed children the giver rebuilds with
/// [`SearchSpace::children`], and the level's loop skips them: those with an index in
/// `next..skip_to`, and every one from `end` on. The loop keeps its position here (not in a
/// local), so a split sees it without the loop storing it before each descent.
pub(super) struct Frame<N> {
    /// The node whose children the level runs through: the `node` a running recursion level
    /// was called with (the walk's root, or a child lent by the level above), borrowed for
    /// the whole call.
    parent: *const N,
    /// The index of the next child the level's loop will see.
    next: u32,
    /// Children below this index (and from `next` on) went to a thief or were visited by the
    /// giver.
    skip_to: u32,
    /// The loop stops at this index: the rest went to a thief.
    end: u32,
    /// The depth of the level's children.
    depth: usize,
}

/// The side table of a splittable recursion: the entries of the running tracked levels,
/// shallowest first from `base`, in a buffer allocated once, never moved and never borrowed
/// as a whole. Every access goes through `base` (a running level keeps a pointer to its own
/// entry while a split, through `base` too, reads and marks the others).
pub(super) struct Frames<N> {
    base: *mut Frame<N>,
    /// The allocation (length 0: entries are written through `base`; `Frame` needs no
    /// drop), freed on drop.
    _buf: Vec<Frame<N>>,
}

impl<N> Frames<N> {
    fn new(levels: usize) -> Self {
        let mut buf = Vec::with_capacity(levels);
        Frames {
            base: buf.as_mut_ptr(),
            _buf: buf,
        }
    }
}

/// The levels a thief may be given work from, shallowest first: the recursion's frames, then
/// (below the recursion limit) the explicit stack's levels.
pub(super) struct Open<'a, 's, S: SearchSpace + ?Sized + 's> {
    space: &'s S,
    /// The side table's first entry.
    frames: *mut Frame<S::Node>,
    /// The entries of running tracked levels: `frames[..live]`, shallowest first.
    live: usize,
    stack: Option<&'a mut Stack<'s, S>>,
    /// Set by [`take`](Self::take) when it found nothing to give.
    starved: bool,
}

impl<'a, 's, S: SearchSpace + ?Sized + 's> Open<'a, 's, S> {
    /// The open levels: the side table's running tracked levels (`frames[..live]`) and, below
    /// the recursion limit, the explicit stack's.
    fn new(
        space: &'s S,
        frames: *mut Frame<S::Node>,
        live: usize,
        stack: Option<&'a mut Stack<'s, S>>,
    ) -> Self {
        Open {
            space,
            frames,
            live,
            stack,
            starved: false,
        }
    }

    /// Takes the most promising unexplored work: the next child to expand of the shallowest
    /// level that has one (every remaining one of that level with `all`), each visited here
    /// (as a skeleton's tasks are), with its depth. Empty if there is none.
    pub(super) fn take<K: Kind<S>>(
        &mut self,
        kind: &K,
        run: &Run<'_>,
        local: &mut K::Local,
        stats: &mut LocalStats,
        all: bool,
    ) -> Vec<(S::Node, usize)> {
        let mut give = Vec::new();
        for k in 0..self.live {
            // SAFETY: `live <= RECURSION_LEVELS`, the buffer's capacity when the walk splits
            // (the only case where `take` is called), and entries `..live` were written by
            // tracked levels still running; the buffer is never reallocated. No level's `&mut`
            // to its entry is live during a split (each ends before the level's next split or
            // descent), and this one ends with this iteration.
            let f = unsafe { &mut *self.frames.add(k) };
            let from = f.next.max(f.skip_to) as usize;
            if from >= f.end as usize {
                continue;
            }
            let depth = f.depth;
            // SAFETY: `parent` is the `node` of a running `level` call (entries `..live` are
            // those of running tracked levels): the walk's root, or a child lent by the level
            // above's `for_each_child`. That borrow lasts the whole call, so the node is valid
            // and not mutated; this walk's thread, the only one that reads the side table, is
            // inside that call.
            let parent = unsafe { &*f.parent };
            let mut children = self.space.children(parent);
            let mut index = from;
            if from > 0 && children.nth(from - 1).is_none() {
                f.end = from as u32;
                continue;
            }
            let mut exhausted = true;
            for child in children.by_ref() {
                index += 1;
                let (expand, cut) = consider(kind, run, local, stats, &child, depth);
                if expand {
                    give.push((child, depth));
                    if !all {
                        exhausted = false;
                        break;
                    }
                } else if cut {
                    break;
                }
            }
            if exhausted {
                // Every child from `from` on was visited here (or cut): the level's loop stops
                // there (skipping `next..skip_to` first).
                f.end = from as u32;
            } else {
                // The loop skips what was visited here, the given child included.
                f.skip_to = index.min(u32::MAX as usize) as u32;
            }
            if !give.is_empty() {
                return give;
            }
        }
        if let Some(stack) = self.stack.as_deref_mut() {
            for level in stack.iter_mut() {
                while let Some(child) = level.next() {
                    let (expand, cut) = consider(kind, run, local, stats, &child, level.depth);
                    if expand {
                        give.push((child, level.depth));
                        if !all {
                            break;
                        }
                    } else if cut {
                        level.cut = true;
                    }
                }
                if !give.is_empty() {
                    break;
                }
            }
        }
        self.starved = give.is_empty();
        give
    }
}

/// A splittable walk's levels are tracked (keep a side-table entry a split can take their
/// children from) except the `UNTRACKED` deepest it has reached so far, where most nodes
/// and the smallest subtrees are: those run at the plain walk's cost, unless the last split
/// found nothing to give (then every level entered is tracked, until a split finds work).
const UNTRACKED: usize = 6;

/// The state of one recursive walk, so that each level passes one pointer; `WATCHED`: a
/// monitor is attached, and the walk polls it at its ticks (see [`recurse`]).
struct Recursion<'c, 'o, 's, S: SearchSpace + ?Sized, K: Kind<S>, P, const WATCHED: bool> {
    space: &'s S,
    kind: &'c K,
    run: &'c Run<'o>,
    local: &'c mut K::Local,
    /// This walk's counts, added to the task's at the end (kept here, one pointer away).
    counts: LocalStats,
    /// The depth below which the walk continues on an explicit stack.
    limit: usize,
    /// The search stopped: unwind every level.
    halted: bool,
    /// The last split found nothing to give: every level entered is tracked (until a split
    /// finds work).
    deepen: bool,
    /// One more than the depth of the deepest level entered so far.
    frontier: usize,
    /// With a splitter that splits: one entry per running tracked level, shallowest first.
    frames: Frames<S::Node>,
    /// The number of running tracked levels (their entries are `frames[..tracked]`).
    tracked: usize,
    /// The explicit stack below the recursion limit, kept from one use to the next.
    stack: Stack<'s, S>,
    splitter: P,
}

impl<'s, S, K, P, const WATCHED: bool> Recursion<'_, '_, 's, S, K, P, WATCHED>
where
    S: SearchSpace + ?Sized,
    K: Kind<S>,
    P: Splitter<'s, S, K>,
{
    /// Expands `node` (visited, at `depth < max_depth`): as a tracked level in a splittable
    /// walk, unless `depth` is among the [`UNTRACKED`] deepest reached so far and the last
    /// split found work.
    ///
    /// The recursion goes through this function (each level's body is inlined here), so a
    /// walk that does not split compiles to the plain recursion.
    fn below(&mut self, node: &S::Node, depth: usize) -> ControlFlow<()> {
        if depth >= self.limit {
            return self.below_on_stack(node, depth);
        }
        if P::SPLITS && (depth >= self.frontier || depth + UNTRACKED < self.frontier || self.deepen)
        {
            self.frontier = self.frontier.max(depth + 1);
            self.level::<true>(node, depth)
        } else {
            self.level::<false>(node, depth)
        }
    }

    /// Asks the splitter to take work off the tracked levels; a split that finds nothing
    /// makes every level entered from now on a tracked one, until a split finds work.
    #[inline(always)]
    fn split(&mut self) {
        let mut open = Open::new(self.space, self.frames.base, self.tracked, None);
        self.splitter.split(&mut open, self.local, &mut self.counts);
        self.deepen = open.starved;
    }

    /// One level: runs through `node`'s children, descending into those to expand. A
    /// `TRACK`ed level keeps its loop position in a side-table entry, so that a split can hand
    /// its next children to a thief; an untracked one only asks the splitter, every [`TICK`]
    /// nodes, to take work off the tracked levels above.
    #[inline(always)]
    fn level<const TRACK: bool>(&mut self, node: &S::Node, depth: usize) -> ControlFlow<()> {
        let fp = if TRACK {
            let i = self.tracked;
            debug_assert!(i < RECURSION_LEVELS);
            // SAFETY: a walk that tracks levels has a buffer of `RECURSION_LEVELS` entries, and
            // `i` counts the running tracked levels, at most one per level above the recursion
            // limit (`depth < limit`), so `i < RECURSION_LEVELS`. Entry `i` is this level's
            // until it returns (deeper tracked levels use later entries; splits reach it only
            // through `base`). `write` drops no old value (`Frame` needs no drop).
            unsafe {
                let fp = self.frames.base.add(i);
                fp.write(Frame {
                    parent: node,
                    next: 0,
                    skip_to: 0,
                    end: u32::MAX,
                    depth: depth + 1,
                });
                fp
            }
        } else {
            std::ptr::null_mut()
        };
        if TRACK {
            self.tracked += 1;
        }
        let max_depth = self.run.max_depth;
        let flow = self.space.for_each_child(node, |child| {
            if TRACK {
                if self.counts.expanded % u64::from(SPLIT_TICK) == 0
                    && self.splitter.wants(&self.counts)
                {
                    self.split();
                }
                // SAFETY: `fp` is this level's entry (see above). `f` is not used after the
                // descent or the next split, which reach entries through `base`; no other
                // reference to the entry is live now.
                let f = unsafe { &mut *fp };
                let this = f.next;
                if this >= f.end {
                    // The rest of this level went to a thief.
                    return ControlFlow::Break(());
                }
                f.next = this.wrapping_add(1);
                if this < f.skip_to {
                    // Visited by a split.
                    return ControlFlow::Continue(());
                }
            }
            let (expand, cut) = consider(
                self.kind,
                self.run,
                self.local,
                &mut self.counts,
                child,
                depth + 1,
            );
            if !expand {
                // A prune-level cut: children come in heuristic order, the later siblings are
                // no better.
                return if cut {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                };
            }
            // The expanded count is the tick: between two expanded nodes a loop visits at most
            // one node's children (pruned ones), a bounded number.
            if self.counts.expanded % u64::from(TICK) == 0 {
                crate::expose_work();
                if WATCHED {
                    self.run.poll(self.kind, &mut self.counts);
                }
                if self.kind.stopped() {
                    self.halted = true;
                    return ControlFlow::Break(());
                }
                self.kind.tick(self.local, self.counts.expanded);
                if P::SPLITS && !TRACK && self.splitter.wants(&self.counts) {
                    self.split();
                }
            }
            if depth + 1 < max_depth {
                if self.space.is_leaf(child) {
                    // Its (empty) subtree is done.
                    self.counts.backtracks += 1;
                } else {
                    self.below(child, depth + 1)?;
                }
            }
            ControlFlow::Continue(())
        });
        if TRACK {
            self.tracked -= 1;
        }
        // Only a loop that broke off can have been stopped.
        if flow.is_break() && self.halted {
            return ControlFlow::Break(());
        }
        // The generator ran to its end, to a prune-level cut, or to the part a thief took.
        self.counts.backtracks += 1;
        ControlFlow::Continue(())
    }

    /// Below the recursion limit: the rest of `node`'s subtree on an explicit stack, which
    /// the splitter may take work off too.
    #[cold]
    fn below_on_stack(&mut self, node: &S::Node, depth: usize) -> ControlFlow<()> {
        let mut stack = std::mem::take(&mut self.stack);
        push(
            self.space,
            self.run,
            &mut self.counts,
            &mut stack,
            node,
            depth,
        );
        let (space, kind, run) = (self.space, self.kind, self.run);
        let (frames, splitter) = (self.frames.base, &mut self.splitter);
        // The tracked levels above this one are running (this one's node goes on the stack).
        let live = self.tracked;
        walk(
            space,
            kind,
            run,
            self.local,
            &mut self.counts,
            &mut stack,
            |stack, local, stats| {
                if splitter.wants(stats) {
                    let mut open = Open::new(space, frames, live, Some(stack));
                    splitter.split(&mut open, local, stats);
                }
            },
        );
        // Empty now (run out, or cleared by a stop): its buffer serves the next deep subtree.
        self.stack = stack;
        self.halted = self.kind.stopped();
        if self.halted {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}

/// Visits what `children` yields (nodes at `depth`) and returns the ones to expand,
/// stopping at a prune-level cut or when the search stops: the siblings a skeleton turns
/// into tasks. The flag says whether a prune-level cut stopped it (the later siblings are
/// to be skipped).
pub(super) fn expandable<S, K>(
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

/// Whether a node visited earlier (a task's, a handed-over one) is still worth expanding
/// now that it starts; if not, its subtree is done (cut by the bound) and counts as one
/// backtrack.
pub(super) fn worth_starting<S, K>(
    kind: &K,
    local: &K::Local,
    stats: &mut LocalStats,
    node: &S::Node,
) -> bool
where
    S: SearchSpace + ?Sized,
    K: Kind<S>,
{
    let worth = kind.still_promising(local, node);
    if !worth {
        stats.backtracks += 1;
    }
    worth
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Options;

    /// The complete binary tree, nodes `(depth, path)`.
    type Binary = crate::search::CompleteTree;

    /// An enumeration that records every node it visits.
    struct Record;

    impl Kind<Binary> for Record {
        type Local = Vec<(u32, u32)>;
        fn local(&self) -> Vec<(u32, u32)> {
            Vec::new()
        }
        fn visit(&self, seen: &mut Vec<(u32, u32)>, node: &(u32, u32), _: usize) -> Visit {
            seen.push(*node);
            Visit::Expand
        }
        fn finish(&self, _: Vec<(u32, u32)>) {}
        fn stopped(&self) -> bool {
            false
        }
        fn cancel(&self) {}
    }

    /// Takes one node (StackStealing's answer) whenever it is asked, at most every `every`
    /// expanded nodes; logs whether each split found work.
    struct Grab<'a, 'r> {
        run: &'a Run<'r>,
        every: u64,
        next: u64,
        given: &'a mut Vec<((u32, u32), usize)>,
        found: &'a mut Vec<bool>,
    }

    impl<'s> Splitter<'s, Binary, Record> for Grab<'_, '_> {
        fn wants(&self, counts: &LocalStats) -> bool {
            counts.expanded >= self.next
        }
        fn split(
            &mut self,
            open: &mut Open<'_, 's, Binary>,
            seen: &mut Vec<(u32, u32)>,
            counts: &mut LocalStats,
        ) {
            self.next = counts.expanded + self.every;
            let got = open.take(&Record, self.run, seen, counts, false);
            self.found.push(!got.is_empty());
            self.given.extend(got);
        }
    }

    /// Splits that find no tracked level with work left (the walk is deep in its untracked
    /// levels) make the walk track the next level it enters, so a later split finds work
    /// again; and whatever the splits take, every node is visited exactly once.
    #[test]
    fn a_starved_split_tracks_the_next_level_and_no_node_is_lost() {
        let height = if cfg!(miri) { 14 } else { 16 };
        let tree = Binary::new(2, height);
        let opts = Options::default();
        let run = Run::new(&opts, 1);
        // The root is visited by the caller, as a skeleton's is.
        let mut seen = vec![(0, 0)];
        let mut work = vec![((0u32, 0u32), 0usize)];
        let (mut walks, mut starved, mut recovered) = (0, 0, 0);
        while let Some((node, depth)) = work.pop() {
            let (mut given, mut found) = (Vec::new(), Vec::new());
            let grab = Grab {
                run: &run,
                every: 8,
                next: 8,
                given: &mut given,
                found: &mut found,
            };
            let mut stats = LocalStats::default();
            splittable_dfs(
                &tree, &Record, &run, &mut seen, &mut stats, &node, depth, grab,
            );
            walks += 1;
            starved += found.iter().filter(|&&f| !f).count();
            // A split that found work after one that found none, in the same walk.
            if let Some(first) = found.iter().position(|&f| !f) {
                recovered += usize::from(found[first..].contains(&true));
            }
            work.extend(given);
        }
        let mut all: Vec<(u32, u32)> = (0..=height)
            .flat_map(|d| (0..1u32 << d).map(move |p| (d, p)))
            .collect();
        seen.sort_unstable();
        all.sort_unstable();
        assert!(seen == all, "a node visited twice or never");
        assert!(walks > 20, "{walks} walks: the splits took little");
        assert!(starved > 0, "no split ever starved");
        assert!(
            recovered > 0,
            "{starved} starved splits, and no walk found work after one"
        );
    }
}
