//! N-Queens written on rayon as a rayon user would: the placements of rows above a spawn
//! depth are rayon tasks; below, the bitmask recursion of [`count`](super::count)
//! ([`Board::count_from`]).

use rayon::prelude::*;

use super::{Board, Placement};
use magpie::search::SearchSpace;

fn walk(board: &Board, p: &Placement, row: usize, spawn_depth: usize) -> u64 {
    if row >= spawn_depth || p.free() == 0 {
        return board.count_from(p);
    }
    let mut free = p.free();
    let mut bits = Vec::with_capacity(free.count_ones() as usize);
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        bits.push(bit);
    }
    bits.par_iter()
        .map(|&bit| walk(board, &board.child(p, bit), row + 1, spawn_depth))
        .sum()
}

/// The solutions of `board` counted on `pool`, tasks above row `spawn_depth`.
pub(super) fn count(board: &Board, pool: &rayon::ThreadPool, spawn_depth: usize) -> u64 {
    pool.install(|| walk(board, &board.root(), 0, spawn_depth))
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_the_solutions_at_every_spawn_depth() {
        let pool = crate::registry::rayon_pool(2);
        let board = super::Board::new(8).unwrap();
        for d in [0, 1, 3, 9] {
            assert_eq!(super::count(&board, &pool, d), 92, "depth {d}");
        }
    }
}
