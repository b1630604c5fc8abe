//! [`Skeleton::Ordered`](crate::search::Skeleton::Ordered): YewPar's priority-ordered
//! skeleton. The nodes at the spawn depth are tasks, numbered by priority (depth-first
//! order, or fewest discrepancies first); a priority pool starts them strictly in that
//! order, each exactly once.
//!
//! The pool holds the nodes above the spawn depth that are visited but not yet expanded, and
//! the tasks found so far, in one heap keyed by priority (a batch of siblings per entry).
//! A node's key is `(discrepancies, path)`, where `path` is the child indices from the root
//! (lexicographic path order is depth-first order) and `discrepancies` counts the non-first
//! children on it (always 0 for [`TaskOrder::Sequential`]). A child's key is never below its parent's, so taking the
//! smallest key and expanding it whenever it is above the spawn depth yields the tasks in
//! ascending key order: the frontier is generated lazily, in priority order, by the worker
//! that needs the next task. In sequential order the heap holds only the unexpanded
//! siblings along one path (at most depth × branching nodes) instead of the whole
//! frontier; in discrepancy order it holds the nodes of the discrepancy count being started
//! and the next. Nodes above the spawn depth are expanded later than a search that collects
//! the frontier first would, so an optimisation expands them against a better incumbent.
//!
//! Workers run tasks to the end (no task is preempted or split): the lowest-numbered task
//! not finished is always running, on the worker YewPar calls the sequential one, which is
//! what bounds Ordered's time by Sequential's (Archibald et al., JPDC 2018).

use std::cell::Cell;
use std::cmp::Ordering as Cmp;
use std::collections::binary_heap::PeekMut;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Mutex;

use super::walk::{consider, dfs, worth_starting};
use super::{as_task, Kind, LocalStats, Run};
use crate::search::{SearchSpace, TaskOrder};
use crate::Scope;

/// Siblings waiting in the pool, visited: the children of one node (at `path`) that are
/// to be expanded (above the spawn depth) or started (tasks, at the spawn depth), in order,
/// each with its index among the children and its discrepancies. Never empty in the pool.
/// Its key is its first node's: the later siblings' keys are greater (their indices are, and
/// their discrepancies are no smaller), so the heap of batches merges them in key order,
/// one node at a time, with one path per batch instead of one per node.
struct Siblings<N> {
    path: Vec<u32>,
    depth: usize,
    nodes: VecDeque<(u32, usize, N)>,
}

impl<N> Siblings<N> {
    fn cmp_key(&self, other: &Self) -> Cmp {
        let (i, d, _) = &self.nodes[0];
        let (j, e, _) = &other.nodes[0];
        let path = self.path.iter().chain(std::iter::once(i));
        d.cmp(e)
            .then_with(|| path.cmp(other.path.iter().chain(std::iter::once(j))))
    }
}

// Reversed: `BinaryHeap` pops its greatest element, the pool wants the smallest key. Paths
// are distinct, so no two batches compare equal.
impl<N> Ord for Siblings<N> {
    fn cmp(&self, other: &Self) -> Cmp {
        other.cmp_key(self)
    }
}

impl<N> PartialOrd for Siblings<N> {
    fn partial_cmp(&self, other: &Self) -> Option<Cmp> {
        Some(self.cmp(other))
    }
}

impl<N> PartialEq for Siblings<N> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp_key(other) == Cmp::Equal
    }
}

impl<N> Eq for Siblings<N> {}

/// The pool's heap and the number of tasks it has handed out (or skipped): the next task's
/// number.
struct Heap<N> {
    heap: BinaryHeap<Siblings<N>>,
    tasks: u64,
}

/// The priority pool of one Ordered search.
struct Pool<N> {
    heap: Mutex<Heap<N>>,
    spawn_depth: usize,
    order: TaskOrder,
}

impl<N> Pool<N> {
    /// Visits the children of `node` (at `depth`, its key `discrepancies`/`path`) with
    /// `consider` and adds the ones to expand to the heap as one batch; counts the ones at
    /// the spawn depth as tasks. Cut short by a prune-level cut or a stopped search.
    #[allow(clippy::too_many_arguments)]
    fn expand<S, K>(
        &self,
        heap: &mut BinaryHeap<Siblings<N>>,
        space: &S,
        kind: &K,
        run: &Run<'_>,
        local: &mut K::Local,
        stats: &mut LocalStats,
        node: &N,
        depth: usize,
        discrepancies: usize,
        path: Vec<u32>,
    ) where
        S: SearchSpace<Node = N> + ?Sized,
        K: Kind<S>,
    {
        if depth >= run.max_depth {
            // Not expanded (as the walk does not push its generator): no backtrack.
            return;
        }
        let mut nodes = VecDeque::new();
        for (i, child) in space.children(node).enumerate() {
            if kind.stopped() {
                break;
            }
            let (expand, cut) = consider(kind, run, local, stats, &child, depth + 1);
            if expand {
                let turn = self.order == TaskOrder::Discrepancy && i > 0;
                nodes.push_back((i as u32, discrepancies + usize::from(turn), child));
            } else if cut {
                break;
            }
        }
        stats.backtracks += 1;
        if depth + 1 >= self.spawn_depth {
            run.add_tasks(nodes.len() as u64);
        }
        if !nodes.is_empty() {
            heap.push(Siblings {
                path,
                depth: depth + 1,
                nodes,
            });
        }
    }

    /// Starts the next task in priority order: expands the pool's best nodes until the best
    /// is a task that is still worth starting, and returns it with its depth and number.
    /// `None` once the pool is empty or the search has stopped. Runs under the pool's lock,
    /// so that tasks start (and dominated tasks are skipped) in exactly the priority order;
    /// before each node it takes, the kind aligns `local` with the number of tasks handed
    /// out so far ([`Kind::align`]).
    fn next_task<S, K>(
        &self,
        space: &S,
        kind: &K,
        run: &Run<'_>,
        local: &mut K::Local,
        stats: &mut LocalStats,
    ) -> Option<(N, usize, u64)>
    where
        S: SearchSpace<Node = N> + ?Sized,
        K: Kind<S>,
    {
        let mut guard = self.heap.lock().unwrap_or_else(|e| e.into_inner());
        let Heap { heap, tasks } = &mut *guard;
        loop {
            // A stopped search also ends `align`'s wait.
            kind.align(local, *tasks);
            if kind.stopped() {
                return None;
            }
            let mut best = heap.peek_mut()?;
            let depth = best.depth;
            let (i, discrepancies, node) = best.nodes.pop_front().expect("never empty");
            let path = (depth < self.spawn_depth).then(|| {
                let mut path = Vec::with_capacity(best.path.len() + 1);
                path.extend_from_slice(&best.path);
                path.push(i);
                path
            });
            if best.nodes.is_empty() {
                PeekMut::pop(best);
            } else {
                // Its next sibling's key is greater: back into place.
                drop(best);
            }
            let number = *tasks;
            if path.is_none() {
                *tasks += 1;
            }
            // Dominated by an incumbent found since it was visited: skipped, its subtree
            // cut by the bound.
            if !worth_starting(kind, local, stats, &node) {
                if path.is_none() {
                    kind.task_done(local, number);
                }
                continue;
            }
            match path {
                None => return Some((node, depth, number)),
                Some(path) => self.expand(
                    heap,
                    space,
                    kind,
                    run,
                    local,
                    stats,
                    &node,
                    depth,
                    discrepancies,
                    path,
                ),
            }
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
        heap: Mutex::new(Heap {
            heap: BinaryHeap::new(),
            tasks: 0,
        }),
        spawn_depth,
        order,
    };
    if spawn_depth == 0 {
        run.add_tasks(1);
        let root = Siblings {
            path: Vec::new(),
            depth: 0,
            nodes: VecDeque::from([(0, 0, space.root())]),
        };
        pool.heap
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .heap
            .push(root);
    } else {
        as_task::<S, K>(kind, run, |local, stats| {
            let mut guard = pool.heap.lock().unwrap_or_else(|e| e.into_inner());
            pool.expand(
                &mut guard.heap,
                space,
                kind,
                run,
                local,
                stats,
                root,
                0,
                0,
                Vec::new(),
            );
        });
    }
    let pool = &pool;
    crate::scope(|s| {
        for _ in 0..crate::current_num_workers() {
            s.spawn_shared(move |s| worker(s, space, kind, run, pool));
        }
    });
}

thread_local! {
    /// The Ordered search (its pool's address) whose worker job this thread is running, or 0.
    static RUNNING: Cell<usize> = const { Cell::new(0) };
}

/// Puts back the thread's [`RUNNING`] search when a worker job ends (or unwinds).
struct Running(usize);

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING.with(|r| r.set(self.0));
    }
}

/// One worker job of an Ordered search: takes the next task from the priority pool and
/// searches it, until the pool is empty.
///
/// A job that starts on a thread already running a job of the same search gives itself
/// back to the pool's shared queue instead. That happens when the space's own code forks on
/// the pool (a `join` in `bound`) and the thread, waiting for the stolen half, takes the
/// next job from the queue: the job below it on this thread's stack may hold the priority
/// pool's lock (a frontier expansion calls `bound`) or run a task a replicable view waits
/// for, so this one could never take a task. Given back, it is run by a thread that is free
/// (or by this one once its wait is over).
fn worker<'s, S, K>(
    s: &Scope<'s>,
    space: &'s S,
    kind: &'s K,
    run: &'s Run<'s>,
    pool: &'s Pool<S::Node>,
) where
    S: SearchSpace + ?Sized,
    K: Kind<S>,
    S::Node: Send,
{
    let me = std::ptr::from_ref(pool) as usize;
    if RUNNING.with(Cell::get) == me {
        s.spawn_shared(move |s| worker(s, space, kind, run, pool));
        return;
    }
    let _running = Running(RUNNING.with(|r| r.replace(me)));
    as_task::<S, K>(kind, run, |local, stats| {
        while let Some((node, depth, number)) = pool.next_task(space, kind, run, local, stats) {
            dfs(space, kind, run, local, stats, &node, depth);
            kind.task_done(local, number);
        }
    });
}
