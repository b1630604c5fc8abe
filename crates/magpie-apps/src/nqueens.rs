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

/// Queens on the first rows: bit `c` of `cols` is set when column `c` holds a queen; `left`
/// and `right` are the columns of the next row attacked along the two diagonals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Placement {
    /// Occupied columns.
    pub cols: u64,
    /// Columns of the next row attacked along a down-left diagonal.
    pub left: u64,
    /// Columns of the next row attacked along a down-right diagonal.
    pub right: u64,
}

/// The children of a [`Placement`], lowest free column first.
#[derive(Debug, Clone)]
pub struct Children {
    all: u64,
    parent: Placement,
    free: u64,
}

impl Iterator for Children {
    type Item = Placement;

    #[inline]
    fn next(&mut self) -> Option<Placement> {
        if self.free == 0 {
            return None;
        }
        let bit = self.free & self.free.wrapping_neg();
        self.free ^= bit;
        let p = self.parent;
        Some(Placement {
            cols: p.cols | bit,
            left: ((p.left | bit) << 1) & self.all,
            right: (p.right | bit) >> 1,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let k = self.free.count_ones() as usize;
        (k, Some(k))
    }
}

impl ExactSizeIterator for Children {}

impl magpie::search::SearchSpace for Board {
    type Node = Placement;
    type Children<'a> = Children;

    fn root(&self) -> Placement {
        Placement::default()
    }

    #[inline]
    fn children(&self, node: &Placement) -> Children {
        let all = self.all();
        Children {
            all,
            parent: *node,
            free: all & !(node.cols | node.left | node.right),
        }
    }

    /// The same children as [`children`](Self::children), built in a local each (the
    /// bitmask recursion of [`count`]).
    #[inline]
    fn for_each_child<F>(&self, node: &Placement, mut visit: F) -> ControlFlow<()>
    where
        F: FnMut(&Placement) -> ControlFlow<()>,
    {
        let all = self.all();
        let mut free = all & !(node.cols | node.left | node.right);
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            visit(&Placement {
                cols: node.cols | bit,
                left: ((node.left | bit) << 1) & all,
                right: (node.right | bit) >> 1,
            })?;
        }
        ControlFlow::Continue(())
    }

    /// No free column on the next row (every solution, every dead end).
    #[inline]
    fn is_leaf(&self, node: &Placement) -> bool {
        self.all() & !(node.cols | node.left | node.right) == 0
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
    board(n, "count").count_from(&Placement::default())
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
    let solutions = place::<true>(b.all(), Placement::default(), &mut nodes);
    (solutions, nodes)
}

fn board(n: u32, caller: &str) -> Board {
    Board::new(u64::from(n)).unwrap_or_else(|e| panic!("nqueens::{caller}: {e}"))
}

/// The plain bitmask recursion: the solutions that extend `p`; with `NODES`, `nodes` counts
/// the calls (without, the counting compiles away).
fn place<const NODES: bool>(all: u64, p: Placement, nodes: &mut u64) -> u64 {
    if NODES {
        *nodes += 1;
    }
    let Placement { cols, left, right } = p;
    if cols == all {
        return 1;
    }
    let mut free = all & !(cols | left | right);
    let mut total = 0;
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        let child = Placement {
            cols: cols | bit,
            left: ((left | bit) << 1) & all,
            right: (right | bit) >> 1,
        };
        total += place::<NODES>(all, child, nodes);
    }
    total
}

impl Board {
    /// The number of solutions that extend `p`, by the plain sequential bitmask recursion
    /// (what [`count`] runs from the empty board; parallel versions run it at their leaves).
    ///
    /// ```
    /// use magpie_apps::nqueens::{Board, Placement};
    /// let b = Board::new(6).unwrap();
    /// assert_eq!(b.count_from(&Placement::default()), 4);
    /// ```
    pub fn count_from(&self, p: &Placement) -> u64 {
        place::<false>(self.all(), *p, &mut 0)
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
