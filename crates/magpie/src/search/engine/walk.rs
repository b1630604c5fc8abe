//! The depth-first walk every skeleton runs below its tasks: a loop over an explicit stack of
//! child generators, so that a tree as deep as UTS's T3L (thousands of levels) runs on the
//! default thread stack, and so that a skeleton can take unexplored siblings off the stack
//! (Budget's spawns, StackStealing's answers) between two nodes.
//!
//! The per-node work is what a hand-written depth-first search does — take the next child,
//! decide (the kind's [`Kind::visit`]), push the child's generator — plus two amortised
//! checks: every [`TICK`] nodes the walk serves a thief's exposure request
//! ([`crate::expose_work`]) and reads the search's stop flag, instead of at every node.

use std::ops::ControlFlow;

use super::{Kind, LocalStats, Run};
use crate::search::{SearchSpace, Visit};

/// Nodes between two exposure/stop checks of a walk (a power of two).
pub(super) const TICK: u32 = 64;

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
/// `poll` is called with the stack between two nodes: before every node when `EACH_NODE`,
/// otherwise every [`TICK`] nodes. It may take children off any level (a level it drains
/// or cuts is popped when it becomes the top) but must not pop levels.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn walk<'s, S, K, const EACH_NODE: bool>(
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
    let prune_level = run.opts.prune_level;
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
            if kind.stopped() {
                stack.clear();
                return;
            }
            if !EACH_NODE {
                poll(stack, local, stats);
            }
        }
        if EACH_NODE {
            poll(stack, local, stats);
        }
        match kind.visit(local, &child, depth) {
            Visit::Expand => {
                stats.expanded += 1;
                push(space, run, stats, stack, &child, depth);
            }
            Visit::Skip { by_bound: true } => {
                stats.pruned += 1;
                if prune_level {
                    // Children come in heuristic order: the later siblings are no better.
                    stack.pop();
                    stats.backtracks += 1;
                }
            }
            Visit::Skip { by_bound: false } => stats.expanded += 1,
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
    if depth < run.max_depth {
        let mut rec = Recursion {
            space,
            kind,
            run,
            local,
            counts: LocalStats::default(),
            limit: depth.saturating_add(RECURSION_LEVELS),
            tick: 0,
            halted: false,
        };
        let _ = rec.below(node, depth);
        stats.expanded += rec.counts.expanded;
        stats.pruned += rec.counts.pruned;
        stats.backtracks += rec.counts.backtracks;
    }
}

/// The state of one recursive walk, so that each level passes one pointer.
struct Recursion<'c, 'o, S: SearchSpace + ?Sized, K: Kind<S>> {
    space: &'c S,
    kind: &'c K,
    run: &'c Run<'o>,
    local: &'c mut K::Local,
    /// This walk's counts, added to the task's at the end (kept here, one pointer away).
    counts: LocalStats,
    /// The depth below which the walk continues on an explicit stack.
    limit: usize,
    tick: u32,
    /// The search stopped: unwind every level.
    halted: bool,
}

impl<S: SearchSpace + ?Sized, K: Kind<S>> Recursion<'_, '_, S, K> {
    /// Expands `node` (visited, at `depth < max_depth`).
    fn below(&mut self, node: &S::Node, depth: usize) -> ControlFlow<()> {
        if depth >= self.limit {
            let mut stack = Vec::with_capacity(32);
            push(
                self.space,
                self.run,
                &mut self.counts,
                &mut stack,
                node,
                depth,
            );
            let (space, kind, run) = (self.space, self.kind, self.run);
            walk::<S, K, false>(
                space,
                kind,
                run,
                self.local,
                &mut self.counts,
                &mut stack,
                |_, _, _| {},
            );
            self.halted = self.kind.stopped();
            return if self.halted {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            };
        }
        let prune_level = self.run.opts.prune_level;
        let max_depth = self.run.max_depth;
        let _ = self.space.for_each_child(node, |child| {
            self.tick = self.tick.wrapping_add(1);
            if self.tick % TICK == 0 {
                crate::expose_work();
                if self.kind.stopped() {
                    self.halted = true;
                    return ControlFlow::Break(());
                }
            }
            match self.kind.visit(self.local, child, depth + 1) {
                Visit::Expand => {
                    self.counts.expanded += 1;
                    if depth + 1 < max_depth {
                        self.below(child, depth + 1)?;
                    }
                    ControlFlow::Continue(())
                }
                Visit::Skip { by_bound: true } => {
                    self.counts.pruned += 1;
                    // Prune-level: children come in heuristic order, the later siblings are
                    // no better.
                    if prune_level {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                }
                Visit::Skip { by_bound: false } => {
                    self.counts.expanded += 1;
                    ControlFlow::Continue(())
                }
            }
        });
        if self.halted {
            return ControlFlow::Break(());
        }
        // The generator ran to its end, or to a prune-level cut.
        self.counts.backtracks += 1;
        ControlFlow::Continue(())
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
pub(super) fn worth_starting<S, K>(kind: &K, stats: &mut LocalStats, node: &S::Node) -> bool
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
