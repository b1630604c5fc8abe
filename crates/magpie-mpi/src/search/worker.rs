//! A rank's workers: each takes tasks from the depth pool and searches them as the
//! skeleton says, splitting its subtree into new tasks (Budget, StackStealing) or ordering
//! them (Ordered).

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use magpie::policy::victim::TaskCycle;
use magpie::search::{SearchSpace, SearchStats, TaskOrder, Visit};

use super::pool::Shared;
use super::{RankState, Skeleton, Visitor};
use crate::perf::work_rate;

/// When a worker searching a subtree gives part of it away.
#[derive(Clone, Copy)]
pub(super) enum Split<'a, N> {
    /// Never (DepthBounded below the spawn depth).
    Never,
    /// Every `budget` backtracks, the whole shallowest open level (Budget).
    Budget(u64, &'a Shared<N>),
    /// When asked, the next node or (`all`) the whole shallowest open level (StackStealing).
    OnDemand { all: bool, pool: &'a Shared<N> },
}

/// Worker `index`: takes tasks from the depth pool until the rank is told the search is over.
pub(super) fn work<S, V>(
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
                // A skeleton this worker does not know yet explores its subtrees whole, as
                // `Sequential` does: correct, only without splitting.
                _ => Some(Split::Never),
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
pub(super) fn ordered_tasks<S, V>(
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

/// Nodes between two looks of a walk at the rank's stop flag (a power of two).
const STOP_TICK: u32 = 64;

/// Visits the nodes strictly below `node` (at `depth`) depth-first, as far as `visitor`
/// lets it, counting them in worker `index`'s `counts`: expanded and pruned nodes, one
/// backtrack per child generator that ends (run out or cut by prune-level; `node`'s
/// included), and the tasks it makes. `split` says when unexplored nodes of the
/// shallowest level that still has some become tasks in the rank's pool, for its other
/// workers and for thieves: never, every `budget` backtracks (Budget), or when asked
/// (StackStealing).
#[allow(clippy::too_many_arguments)]
pub(super) fn subtree<S, V>(
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
    let mut ticks = 0u32;
    let mut stack = vec![space.children(node)];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(child) => {
                // A stopped search (a monitor's stop, or a decision found elsewhere) ends
                // the walk within STOP_TICK nodes, whatever the visitor says of them.
                ticks = ticks.wrapping_add(1);
                if ticks & (STOP_TICK - 1) == 0 && state.stopped() {
                    break;
                }
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
pub(super) fn spill_shallowest<N, G: Iterator<Item = N>>(
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

#[cfg(test)]
mod tests {
    use super::super::pool::DepthPool;
    use super::super::Enumeration;
    use super::*;
    use crate::perf::PerfParams;

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
            // The complete binary tree of depth 4; a node is `(depth, path)`, the path's bits
            // the moves from the root (1 = the second child), the first move most significant.
            &magpie::search::CompleteTree::new(2, 4),
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
