//! N-Queens (enumeration) as a search tree: a node places queens on the first rows of an
//! n×n board (bitmasks of the attacked columns and diagonals), its children place one more
//! queen on the next row in every safe column, lowest column first. Every node at depth `n`
//! is a solution.
//!
//! ```
//! use magpie::search::{enumerate, Options, Skeleton};
//! use magpie_apps::nqueens::{count, Board, Solutions};
//! let board = Board::new(8).unwrap();
//! let n = enumerate(&board, &Solutions(8), Skeleton::Sequential, &Options::default()).value;
//! assert_eq!(n, 92);
//! assert_eq!(count(8), 92);
//! ```

use std::ops::ControlFlow;

use crate::input::InputError;

mod app;
#[cfg(feature = "rayon")]
mod rayon_peer;
pub use app::{known, APP};

/// The board of an N-Queens search for [`magpie::search`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Board {
    /// The columns of a row: the low `n` bits (the board size is its bit count).
    all: u64,
}

impl Board {
    /// An n×n board, `1 ≤ n ≤` [`crate::NQUEENS_MAX`].
    ///
    /// ```
    /// assert!(magpie_apps::nqueens::Board::new(0).is_err());
    /// assert!(magpie_apps::nqueens::Board::new(33).is_err());
    /// ```
    pub fn new(n: u64) -> Result<Board, InputError> {
        match u32::try_from(n) {
            Ok(n) if (1..=crate::NQUEENS_MAX).contains(&n) => Ok(Board {
                all: u64::MAX >> (64 - n),
            }),
            _ => Err(InputError::file(
                "--n",
                format!("board size {n} is out of range 1..={}", crate::NQUEENS_MAX),
            )),
        }
    }

    /// The board size.
    pub fn n(&self) -> u32 {
        self.all.count_ones()
    }

    #[inline]
    fn all(&self) -> u64 {
        self.all
    }
}

/// Queens on the first rows: the columns they occupy, the columns of the next row they
/// attack along the two diagonals, and the columns of the next row still free (kept, so that
/// a node's children and whether it has any are read, not recomputed).
///
/// Made by [`Board::root`](magpie::search::SearchSpace::root) and [`Board::child`].
///
/// ```
/// use magpie::search::SearchSpace;
/// use magpie_apps::nqueens::Board;
/// let b = Board::new(4).unwrap();
/// let root = b.root();
/// assert_eq!((root.cols(), root.free()), (0, 0b1111));
/// let q = b.child(&root, 0b0010); // a queen in column 1 of row 0
/// assert_eq!((q.cols(), q.free()), (0b0010, 0b1000)); // row 1: only column 3 is safe
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Placement {
    cols: u64,
    left: u64,
    right: u64,
    free: u64,
}

impl Placement {
    /// Occupied columns (bit `c` for column `c`).
    pub fn cols(&self) -> u64 {
        self.cols
    }

    /// Columns of the next row where a queen is safe: none on a solution or a dead end.
    pub fn free(&self) -> u64 {
        self.free
    }
}

impl Board {
    /// `p` with one more queen, on the next row in column `bit` (a single bit of
    /// [`Placement::free`]): the one child formula of every N-Queens search here.
    #[inline]
    pub fn child(&self, p: &Placement, bit: u64) -> Placement {
        let all = self.all();
        let cols = p.cols | bit;
        let left = ((p.left | bit) << 1) & all;
        let right = (p.right | bit) >> 1;
        Placement {
            cols,
            left,
            right,
            free: all & !(cols | left | right),
        }
    }
}

/// The children of a [`Placement`], lowest free column first.
#[derive(Debug, Clone)]
pub struct Children<'b> {
    board: &'b Board,
    parent: Placement,
    free: u64,
}

impl Iterator for Children<'_> {
    type Item = Placement;

    #[inline]
    fn next(&mut self) -> Option<Placement> {
        if self.free == 0 {
            return None;
        }
        let bit = self.free & self.free.wrapping_neg();
        self.free ^= bit;
        Some(self.board.child(&self.parent, bit))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let k = self.free.count_ones() as usize;
        (k, Some(k))
    }
}

impl ExactSizeIterator for Children<'_> {}

impl magpie::search::SearchSpace for Board {
    type Node = Placement;
    type Children<'a> = Children<'a>;

    /// The empty board: every column of the first row free.
    fn root(&self) -> Placement {
        Placement {
            cols: 0,
            left: 0,
            right: 0,
            free: self.all(),
        }
    }

    #[inline]
    fn children(&self, node: &Placement) -> Children<'_> {
        Children {
            board: self,
            parent: *node,
            free: node.free,
        }
    }

    /// The same children as [`children`](magpie::search::SearchSpace::children), built in a local each (the
    /// bitmask recursion of [`count`]).
    #[inline]
    fn for_each_child<F>(&self, node: &Placement, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(&Placement) -> ControlFlow<()>,
    {
        let mut free = node.free;
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            visit(&self.child(node, bit))?;
        }
        ControlFlow::Continue(())
    }

    /// No free column on the next row (every solution, every dead end).
    #[inline]
    fn is_leaf(&self, node: &Placement) -> bool {
        node.free == 0
    }
}

/// The enumeration fold counting solutions: the nodes at depth `n` (all `n` queens placed).
#[derive(Debug, Clone, Copy)]
pub struct Solutions(pub u32);

impl magpie::search::Enumerate<Board> for Solutions {
    type Acc = u64;

    fn empty(&self) -> u64 {
        0
    }

    #[inline]
    fn visit(&self, acc: &mut u64, _node: &Placement, depth: usize) {
        *acc += u64::from(depth == self.0 as usize);
    }

    fn merge(&self, a: u64, b: u64) -> u64 {
        a + b
    }
}

/// The number of solutions by a plain sequential recursive search over the same bitmasks:
/// the reference for the search skeletons.
///
/// # Panics
/// If `n` is 0 or above [`crate::NQUEENS_MAX`].
///
/// ```
/// assert_eq!(magpie_apps::nqueens::count(6), 4);
/// assert_eq!(magpie_apps::nqueens::count(1), 1);
/// ```
pub fn count(n: u32) -> u64 {
    let b = board(n, "count");
    b.count_from(&magpie::search::SearchSpace::root(&b))
}

/// [`count`] and the number of nodes its recursion visits: one per call, the empty board,
/// every partial placement and every dead end and solution included. That is the tree the
/// skeletons walk (`SearchStats::expanded` of an enumeration over [`Board`]), so the two
/// counts are equal: the `overhead` experiment checks it.
///
/// # Panics
/// If `n` is 0 or above [`crate::NQUEENS_MAX`].
///
/// ```
/// // The empty board, 4 first queens, 6 pairs, 4 triples, 2 solutions.
/// assert_eq!(magpie_apps::nqueens::count_counted(4), (2, 17));
/// ```
pub fn count_counted(n: u32) -> (u64, u64) {
    let b = board(n, "count_counted");
    let mut nodes = 0;
    let solutions = place::<true>(b.all(), 0, 0, 0, &mut nodes);
    (solutions, nodes)
}

fn board(n: u32, caller: &str) -> Board {
    Board::new(u64::from(n)).unwrap_or_else(|e| panic!("nqueens::{caller}: {e}"))
}

/// The plain bitmask recursion, written as by hand (its own child formula, not
/// [`Board::child`]: it is the reference the search skeletons are checked and timed
/// against): the solutions that extend the placement `cols`, `left`, `right`; with `NODES`,
/// `nodes` counts the calls (without, the counting compiles away).
fn place<const NODES: bool>(all: u64, cols: u64, left: u64, right: u64, nodes: &mut u64) -> u64 {
    if NODES {
        *nodes += 1;
    }
    if cols == all {
        return 1;
    }
    let mut free = all & !(cols | left | right);
    let mut total = 0;
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        total += place::<NODES>(
            all,
            cols | bit,
            ((left | bit) << 1) & all,
            (right | bit) >> 1,
            nodes,
        );
    }
    total
}

impl Board {
    /// The number of solutions that extend `p`, by the plain sequential bitmask recursion
    /// (what [`count`] runs from the empty board; parallel versions run it at their leaves).
    ///
    /// ```
    /// use magpie::search::SearchSpace;
    /// use magpie_apps::nqueens::Board;
    /// let b = Board::new(6).unwrap();
    /// assert_eq!(b.count_from(&b.root()), 4);
    /// ```
    pub fn count_from(&self, p: &Placement) -> u64 {
        place::<false>(self.all(), p.cols, p.left, p.right, &mut 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_match_the_known_sequence() {
        for (n, &want) in crate::NQUEENS_SOLUTIONS.iter().enumerate().skip(1).take(11) {
            assert_eq!(count(n as u32), want, "n = {n}");
        }
    }

    #[test]
    fn counted_recursion_visits_the_skeletons_nodes() {
        use magpie::search::{enumerate, NodeCount, Options, Skeleton};
        for n in 1..=10u32 {
            let board = Board::new(u64::from(n)).unwrap();
            let out = enumerate(
                &board,
                &NodeCount,
                Skeleton::Sequential,
                &Options::default(),
            );
            let (solutions, nodes) = count_counted(n);
            assert_eq!(solutions, crate::NQUEENS_SOLUTIONS[n as usize], "n = {n}");
            assert_eq!((nodes, nodes), (out.value, out.stats.expanded), "n = {n}");
        }
        assert_eq!(count_counted(8), (92, 2057));
    }
}
