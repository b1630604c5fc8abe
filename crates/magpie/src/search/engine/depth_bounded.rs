//! [`Skeleton::DepthBounded`](crate::search::Skeleton::DepthBounded): every child of a node
//! above the spawn depth is a task.

use std::sync::Arc;

use super::batch::Batch;
use super::walk::{dfs, expandable, worth_starting};
use super::{as_task, Kind, Run};
use crate::search::SearchSpace;

/// A DepthBounded task: `node` (already visited) at `depth`.
pub(super) fn task<'s, S, K>(
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
        if !worth_starting(kind, local, stats, &node) {
            return;
        }
        if depth < spawn_depth && depth < run.max_depth {
            let (spawn, _) = expandable(kind, run, local, stats, space.children(&node), depth + 1);
            stats.backtracks += 1;
            run.add_tasks(spawn.len() as u64);
            // Each child is a task that whoever runs a job takes in heuristic order (see
            // `Batch`): the owner runs the children right here, thieves take the jobs pushed
            // for them, oldest first, and so the most promising child the owner has not
            // reached. Handing thieves the least promising children instead would, in an
            // optimisation, mostly explore what a better incumbent would have pruned.
            let batch = Arc::new(Batch::new(spawn, depth + 1));
            for _ in 1..batch.len() {
                let batch = batch.clone();
                scope.spawn(move |s| {
                    if let Some(child) = batch.take() {
                        task(s, space, kind, run, spawn_depth, child, batch.depth())
                    }
                });
            }
            while let Some(child) = batch.take() {
                if kind.stopped() {
                    break;
                }
                task(scope, space, kind, run, spawn_depth, child, depth + 1);
            }
        } else if !kind.stopped() {
            dfs(space, kind, run, local, stats, &node, depth);
        }
    });
}
