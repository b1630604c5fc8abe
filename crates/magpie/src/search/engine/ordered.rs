//! [`Skeleton::Ordered`](crate::search::Skeleton::Ordered): the tasks at one depth, started in a
//! fixed order.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use super::walk::{consider, dfs, worth_starting};
use super::{as_task, Kind, LocalStats, Run};
use crate::search::{SearchSpace, TaskOrder};

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
    if depth >= run.max_depth {
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
pub(super) fn ordered<S, K>(
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
