//! A batch of sibling nodes that became tasks together, handed out in heuristic order.
//!
//! A skeleton that turns `k` siblings into tasks makes one [`Batch`] and spawns `k` jobs
//! that each [`Batch::take`] the next node. Whoever runs a job — a thief stealing the oldest
//! job, or the owner popping the newest — gets the most promising sibling nobody has
//! started: thieves get the best unexplored work (YewPar's depth pool does the same), and a
//! lone worker starts the siblings in the order a sequential search would.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Sibling nodes (at one depth), each taken exactly once, in order.
pub(super) struct Batch<N> {
    next: AtomicUsize,
    nodes: Box<[Mutex<Option<N>>]>,
    depth: usize,
}

impl<N> Batch<N> {
    /// A batch of `nodes`, all at `depth`.
    pub(super) fn new(nodes: Vec<N>, depth: usize) -> Self {
        Batch {
            next: AtomicUsize::new(0),
            nodes: nodes.into_iter().map(|n| Mutex::new(Some(n))).collect(),
            depth,
        }
    }

    /// How many nodes the batch was made with.
    pub(super) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// The depth of the nodes.
    pub(super) fn depth(&self) -> usize {
        self.depth
    }

    /// The first node nobody has taken, if any.
    pub(super) fn take(&self) -> Option<N> {
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        // The counter hands each index out once, so the lock is never contended.
        self.nodes
            .get(i)?
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }
}

#[cfg(test)]
mod tests {
    use super::Batch;

    #[test]
    fn each_node_is_taken_once_in_order() {
        let b = Batch::new(vec![10, 20, 30], 4);
        assert_eq!((b.len(), b.depth()), (3, 4));
        assert_eq!(
            [b.take(), b.take(), b.take(), b.take()],
            [Some(10), Some(20), Some(30), None]
        );
    }

    #[test]
    fn concurrent_takers_share_the_nodes_exactly_once() {
        let b = Batch::new((0..10_000u32).collect(), 0);
        let mut got: Vec<u32> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4)
                .map(|_| s.spawn(|| std::iter::from_fn(|| b.take()).collect::<Vec<_>>()))
                .collect();
            hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
        });
        got.sort_unstable();
        assert_eq!(got, (0..10_000).collect::<Vec<_>>());
    }
}
