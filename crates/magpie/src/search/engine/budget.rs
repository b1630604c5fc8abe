//! [`Skeleton::Budget`](crate::search::Skeleton::Budget): depth-first with an explicit stack;
//! every `budget` backtracks, the unexplored siblings of the shallowest level become tasks.

use std::sync::Arc;

use super::batch::Batch;
use super::walk::{dfs, splittable_dfs, worth_starting, Open, Splitter};
use super::LocalStats;
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
        if !worth_starting(kind, local, stats, &node) {
            return;
        }
        if crate::current_num_workers() <= 1 {
            dfs(space, kind, run, local, stats, &node, depth);
            return;
        }
        let splitter = Split {
            scope,
            space,
            kind,
            run,
            budget,
            next_split: budget,
        };
        splittable_dfs(space, kind, run, local, stats, &node, depth, splitter);
    });
}

/// Budget's splitter: every `budget` backtracks, the rest of the shallowest level with
/// children to expand becomes a [`Batch`] of tasks.
struct Split<'a, 's, S: SearchSpace + ?Sized, K> {
    scope: &'a crate::Scope<'s>,
    space: &'s S,
    kind: &'s K,
    run: &'s Run<'s>,
    budget: u64,
    /// The backtrack count (of this walk) at which to split next.
    next_split: u64,
}

impl<'s, S, K> Splitter<'s, S, K> for Split<'_, 's, S, K>
where
    S: SearchSpace + ?Sized,
    K: Kind<S>,
{
    #[inline(always)]
    fn wants(&self, counts: &LocalStats) -> bool {
        counts.backtracks >= self.next_split
    }

    fn split(&mut self, open: &mut Open<'_, 's, S>, local: &mut K::Local, counts: &mut LocalStats) {
        self.next_split = counts.backtracks + self.budget;
        let (space, kind, run, budget) = (self.space, self.kind, self.run, self.budget);
        let spawn = open.take(kind, run, local, counts, true);
        let Some(&(_, depth)) = spawn.first() else {
            return;
        };
        run.add_tasks(spawn.len() as u64);
        let batch = Arc::new(Batch::new(
            spawn.into_iter().map(|(n, _)| n).collect(),
            depth,
        ));
        for _ in 0..batch.len() {
            let batch = batch.clone();
            self.scope.spawn(move |s| {
                if let Some(child) = batch.take() {
                    task(s, space, kind, run, budget, child, batch.depth())
                }
            });
        }
    }
}
