//! The `peers` experiment's rayon versions, written as a rayon user would: below a spawn
//! depth the search is the plain sequential code; above it, each child is a rayon task
//! (`par_iter` over the collected children, i.e. `rayon::join` under the hood).

use super::jobs::UtsTree;
use super::measure::{Job, Sample};
use magpie_apps::nqueens::{Board, Placement};
use magpie_apps::uts::{self, Counts, Node, Params};
use rayon::prelude::*;
use std::time::Instant;

fn uts_rec(p: &Params, node: &Node, spawn_depth: u32) -> Counts {
    if node.height >= spawn_depth {
        return uts::count_from(p, node);
    }
    let kids: Vec<Node> = p.children(node).collect();
    let me = Counts::node(node.height, kids.len() as u32);
    kids.par_iter()
        .map(|k| uts_rec(p, k, spawn_depth))
        .reduce(Counts::default, Counts::merge)
        .merge(me)
}

/// UTS on `pool`: the children of nodes above height `spawn_depth` are rayon tasks; the
/// subtrees at that height are counted by `uts::count_from`.
pub fn uts<'a>(tree: &'a UtsTree, pool: &'a rayon::ThreadPool, spawn_depth: u32) -> Job<'a> {
    Box::new(move || {
        let p = &tree.params;
        let t = Instant::now();
        let c = pool.install(|| uts_rec(p, &p.root(), spawn_depth));
        let time = t.elapsed();
        if c != tree.expected {
            return Err(format!(
                "uts {}: {c:?}, expected {:?}",
                tree.label, tree.expected
            ));
        }
        Ok(Sample {
            time,
            nodes: Some(c.nodes),
        })
    })
}

fn queens_rec(board: &Board, p: Placement, row: usize, spawn_depth: usize) -> u64 {
    let all = u64::MAX >> (64 - board.n());
    let Placement { cols, left, right } = p;
    if row >= spawn_depth || cols == all {
        return board.count_from(&p);
    }
    let mut free = all & !(cols | left | right);
    let mut bits = Vec::with_capacity(free.count_ones() as usize);
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        bits.push(bit);
    }
    bits.par_iter()
        .map(|&bit| {
            let child = Placement {
                cols: cols | bit,
                left: ((left | bit) << 1) & all,
                right: (right | bit) >> 1,
            };
            queens_rec(board, child, row + 1, spawn_depth)
        })
        .sum()
}

/// N-Queens on `pool`: the placements of rows above `spawn_depth` are rayon tasks; below,
/// the bitmask recursion of `nqueens::count` (`Board::count_from`).
pub fn nqueens(n: u32, pool: &rayon::ThreadPool, spawn_depth: usize) -> Job<'_> {
    Box::new(move || {
        let board = Board::new(u64::from(n)).map_err(|e| e.to_string())?;
        let t = Instant::now();
        let count = pool.install(|| queens_rec(&board, Placement::default(), 0, spawn_depth));
        let time = t.elapsed();
        let want = magpie_apps::NQUEENS_SOLUTIONS[n as usize];
        if count != want {
            return Err(format!(
                "nqueens {n} (rayon): {count} solutions, expected {want}"
            ));
        }
        Ok(Sample { time, nodes: None })
    })
}
