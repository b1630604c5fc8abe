//! [`Skeleton::Ordered`](crate::search::Skeleton::Ordered): YewPar's priority-ordered
//! skeleton. The nodes at the spawn depth are tasks, numbered by priority (depth-first
//! order, or fewest discrepancies first); a priority pool starts them strictly in that
//! order, each exactly once.
//!
//! The pool holds the nodes above the spawn depth that are visited but not yet expanded, and
//! the tasks found so far, in one heap keyed by priority. A node's key is `(discrepancies,
//! path)`, where `path` is the child indices from the root (lexicographic path order is
//! depth-first order) and `discrepancies` counts the non-first children on it (always 0
//! for [`TaskOrder::Sequential`]). A child's key is never below its parent's, so taking the
//! smallest key and expanding it whenever it is above the spawn depth yields the tasks in
//! ascending key order: the frontier is generated lazily, in priority order, by the worker
//! that needs the next task. In sequential order the heap holds only the unexpanded
//! siblings along one path (at most depth × branching entries) instead of the whole
//! frontier; in discrepancy order it holds the nodes of the discrepancy count being started
//! and the next. Nodes above the spawn depth are expanded later than a search that collects
//! the frontier first would, so an optimisation expands them against a better incumbent.
//!
//! Workers run tasks to the end (no task is preempted or split): the lowest-numbered task
//! not finished is always running, on the worker YewPar calls the sequential one, which is
//! what bounds Ordered's time by Sequential's (Archibald et al., JPDC 2018).

use std::cmp::Ordering as Cmp;
use std::collections::BinaryHeap;
use std::sync::atomic::Ordering;
use std::sync::Mutex;

use super::walk::{consider, dfs, worth_starting};
use super::{as_task, Kind, LocalStats, Run};
use crate::search::{SearchSpace, TaskOrder};

/// A node waiting in the pool: visited, to be expanded (above the spawn depth) or started
/// (a task, at the spawn depth).
struct Entry<N> {
    discrepancies: usize,
    path: Vec<u32>,
    depth: usize,
    node: N,
}

impl<N> Entry<N> {
    fn key(&self) -> (usize, &[u32]) {
        (self.discrepancies, &self.path)
    }
}

// Reversed: `BinaryHeap` pops its greatest element, the pool wants the smallest key. Paths
// are distinct, so no two entries compare equal.
impl<N> Ord for Entry<N> {
    fn cmp(&self, other: &Self) -> Cmp {
        other.key().cmp(&self.key())
    }
}

impl<N> PartialOrd for Entry<N> {
    fn partial_cmp(&self, other: &Self) -> Option<Cmp> {
        Some(self.cmp(other))
    }
}

impl<N> PartialEq for Entry<N> {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl<N> Eq for Entry<N> {}

/// The priority pool of one Ordered search.
struct Pool<N> {
    heap: Mutex<BinaryHeap<Entry<N>>>,
    spawn_depth: usize,
    order: TaskOrder,
}

impl<N> Pool<N> {
    /// Visits the children of `node` (at `depth`, its key `discrepancies`/`path`) with
    /// `consider` and adds the ones to expand to the heap; counts the ones at the spawn
    /// depth as tasks. Cut short by a prune-level cut or a stopped search.
    #[allow(clippy::too_many_arguments)]
    fn expand<S, K>(
        &self,
        heap: &mut BinaryHeap<Entry<N>>,
        space: &S,
        kind: &K,
        run: &Run<'_>,
        local: &mut K::Local,
        stats: &mut LocalStats,
        node: &N,
        depth: usize,
        discrepancies: usize,
        path: &[u32],
    ) where
        S: SearchSpace<Node = N> + ?Sized,
        K: Kind<S>,
    {
        if depth >= run.max_depth {
            // Not expanded (as the walk does not push its generator): no backtrack.
            return;
        }
        let mut tasks = 0;
        for (i, child) in space.children(node).enumerate() {
            if kind.stopped() {
                break;
            }
            let (expand, cut) = consider(kind, run, local, stats, &child, depth + 1);
            if expand {
                let mut child_path = Vec::with_capacity(path.len() + 1);
                child_path.extend_from_slice(path);
                child_path.push(i as u32);
                let turn = self.order == TaskOrder::Discrepancy && i > 0;
                heap.push(Entry {
                    discrepancies: discrepancies + usize::from(turn),
                    path: child_path,
                    depth: depth + 1,
                    node: child,
                });
                tasks += u64::from(depth + 1 >= self.spawn_depth);
            } else if cut {
                break;
            }
        }
        stats.backtracks += 1;
        run.tasks.fetch_add(tasks, Ordering::Relaxed);
    }

    /// Starts the next task in priority order: expands the pool's best entries until the
    /// best is a task that is still worth starting, and returns it with its depth. `None`
    /// once the pool is empty or the search has stopped. Runs under the pool's lock, so that
    /// tasks start (and dominated tasks are skipped) in exactly the priority order.
    fn next_task<S, K>(
        &self,
        space: &S,
        kind: &K,
        run: &Run<'_>,
        local: &mut K::Local,
        stats: &mut LocalStats,
    ) -> Option<(N, usize)>
    where
        S: SearchSpace<Node = N> + ?Sized,
        K: Kind<S>,
    {
        let mut heap = self.heap.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if kind.stopped() {
                return None;
            }
            let e = heap.pop()?;
            // Dominated by an incumbent found since it was visited: skipped, its subtree
            // cut by the bound.
            if !worth_starting(kind, stats, &e.node) {
                continue;
            }
            if e.depth >= self.spawn_depth {
                return Some((e.node, e.depth));
            }
            self.expand(
                &mut heap,
                space,
                kind,
                run,
                local,
                stats,
                &e.node,
                e.depth,
                e.discrepancies,
                &e.path,
            );
        }
    }
}

/// Ordered: every pool worker takes the next task from the priority pool and searches it
/// depth-first, until the pool is empty. `root` (visited) is expanded first, here.
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
    let pool = Pool {
        heap: Mutex::new(BinaryHeap::new()),
        spawn_depth,
        order,
    };
    if spawn_depth == 0 {
        run.tasks.fetch_add(1, Ordering::Relaxed);
        pool.heap
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Entry {
                discrepancies: 0,
                path: Vec::new(),
                depth: 0,
                node: space.root(),
            });
    } else {
        as_task::<S, K>(kind, run, |local, stats| {
            let mut heap = pool.heap.lock().unwrap_or_else(|e| e.into_inner());
            pool.expand(&mut heap, space, kind, run, local, stats, root, 0, 0, &[]);
        });
    }
    let pool = &pool;
    crate::scope(|s| {
        for _ in 0..crate::current_num_workers() {
            s.spawn_shared(move |_| {
                as_task::<S, K>(kind, run, |local, stats| {
                    while let Some((node, depth)) = pool.next_task(space, kind, run, local, stats) {
                        dfs(space, kind, run, local, stats, &node, depth);
                    }
                });
            });
        }
    });
}
