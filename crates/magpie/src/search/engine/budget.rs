//! [`Skeleton::Budget`](crate::search::Skeleton::Budget): depth-first with an explicit stack;
//! every `budget` backtracks, the unexplored siblings of the shallowest level become tasks.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::batch::Batch;
use super::walk::{dfs, expandable, push, walk, worth_starting, Stack};
use super::{as_task, Kind, Run};
use crate::search::SearchSpace;

/// A Budget task: depth-first below `node` (already visited, at `depth`).
///
/// On a pool of one worker nothing could take a task, so the walk never splits (it is the
/// Sequential walk). Otherwise, once `budget` backtracks have passed since the last split,
/// the remaining children of the shallowest level that has any to expand become one
/// [`Batch`] of tasks: thieves and the owner take them most promising first.
pub(super) fn task<'s, S, K>(
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
        if crate::current_num_workers() <= 1 {
            dfs(space, kind, run, local, stats, &node, depth);
            return;
        }
        let mut stack: Stack<'s, S> = Vec::with_capacity(32);
        push(space, run, stats, &mut stack, &node, depth);
        let mut next_split = stats.backtracks + budget;
        walk::<S, K, true>(
            space,
            kind,
            run,
            local,
            stats,
            &mut stack,
            |stack, local, stats| {
                if stats.backtracks < next_split {
                    return;
                }
                next_split = stats.backtracks + budget;
                for level in stack.iter_mut().filter(|l| !l.cut) {
                    let d = level.depth;
                    let (spawn, _) =
                        expandable(kind, run, local, stats, level.children.by_ref(), d);
                    // Drained, or cut by prune-level: popped when it becomes the top.
                    level.cut = true;
                    if spawn.is_empty() {
                        continue;
                    }
                    run.tasks.fetch_add(spawn.len() as u64, Ordering::Relaxed);
                    let batch = Arc::new(Batch::new(spawn, d));
                    for _ in 0..batch.len() {
                        let batch = batch.clone();
                        scope.spawn(move |s| {
                            if let Some(child) = batch.take() {
                                task(s, space, kind, run, budget, child, batch.depth())
                            }
                        });
                    }
                    break;
                }
            },
        );
    });
}
