//! [`CompleteTree`]: the complete `arity`-ary tree of a given height, the search space whose
//! every count is known in closed form (a test oracle for skeletons and policies).

use super::SearchSpace;

/// The complete tree in which every node above `height` has `arity` children.
///
/// A node is `(depth, path)`: `path` holds the child indices from the root as base-`arity`
/// digits, the first move most significant, so that the numeric order of the paths at one
/// depth is their depth-first order. The root is `(0, 0)`; the tree has
/// `(arity^(height+1) − 1) / (arity − 1)` nodes (`height + 1` for `arity` 1), `arity^d` at
/// depth `d`.
///
/// It is the space the runtime's own tests use to check that a skeleton visits every node
/// exactly once; a user can do the same with their choice of skeleton and pool.
///
/// ```
/// use magpie::search::{self, CompleteTree, NodeCount, Options, SearchSpace, Skeleton};
///
/// let tree = CompleteTree::new(3, 4);
/// assert_eq!(tree.children(&(1, 2)).collect::<Vec<_>>(), [(2, 6), (2, 7), (2, 8)]);
/// assert_eq!(tree.children(&(4, 80)).count(), 0); // a leaf
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
/// let nodes = pool.install(|| {
///     search::enumerate(&tree, &NodeCount, Skeleton::DepthBounded { spawn_depth: 2 }, &Options::default()).value
/// });
/// assert_eq!(nodes, tree.nodes());
/// assert_eq!(nodes, 1 + 3 + 9 + 27 + 81);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompleteTree {
    arity: u32,
    height: u32,
}

impl CompleteTree {
    /// The complete `arity`-ary tree of `height` (the root alone has height 0).
    ///
    /// # Panics
    ///
    /// If `arity` is 0, or if the paths of the leaves (`arity^height` of them) do not fit
    /// in a `u32`.
    ///
    /// ```
    /// let tree = magpie::search::CompleteTree::new(2, 10);
    /// assert_eq!(tree.nodes(), 2047);
    /// assert!(std::panic::catch_unwind(|| magpie::search::CompleteTree::new(2, 32)).is_err());
    /// ```
    pub const fn new(arity: u32, height: u32) -> Self {
        assert!(arity > 0, "a complete tree needs an arity of at least 1");
        assert!(
            arity.checked_pow(height).is_some(),
            "arity^height leaves do not fit the u32 paths of a CompleteTree"
        );
        CompleteTree { arity, height }
    }

    /// The number of nodes.
    ///
    /// ```
    /// assert_eq!(magpie::search::CompleteTree::new(1, 5).nodes(), 6);
    /// ```
    pub fn nodes(&self) -> u64 {
        (0..=self.height)
            .map(|d| u64::from(self.arity).pow(d))
            .sum()
    }
}

/// The children of one [`CompleteTree`] node, in order (none for a leaf).
#[derive(Debug, Clone)]
pub struct CompleteTreeChildren {
    depth: u32,
    first: u32,
    next: std::ops::Range<u32>,
}

impl Iterator for CompleteTreeChildren {
    type Item = (u32, u32);

    fn next(&mut self) -> Option<(u32, u32)> {
        self.next.next().map(|i| (self.depth, self.first + i))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.next.size_hint()
    }
}

impl SearchSpace for CompleteTree {
    type Node = (u32, u32);
    type Children<'a> = CompleteTreeChildren;

    fn root(&self) -> (u32, u32) {
        (0, 0)
    }

    fn children(&self, &(depth, path): &(u32, u32)) -> CompleteTreeChildren {
        let arity = if depth < self.height { self.arity } else { 0 };
        CompleteTreeChildren {
            depth: depth + 1,
            first: path.wrapping_mul(self.arity),
            next: 0..arity,
        }
    }
}
