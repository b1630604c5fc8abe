//! The `peers` experiment's rayon versions, written as a rayon user would: below a spawn
//! depth the search is the plain sequential code; above it, each child is a rayon task
//! (`par_iter` over the collected children, i.e. `rayon::join` under the hood).

use super::jobs::UtsTree;
use super::measure::{Job, Sample};
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

fn queens_seq(all: u64, cols: u64, left: u64, right: u64) -> u64 {
    if cols == all {
        return 1;
    }
    let mut free = all & !(cols | left | right);
    let mut total = 0;
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        total += queens_seq(
            all,
            cols | bit,
            ((left | bit) << 1) & all,
            (right | bit) >> 1,
        );
    }
    total
}

fn queens_rec(all: u64, cols: u64, left: u64, right: u64, row: usize, spawn_depth: usize) -> u64 {
    if row >= spawn_depth || cols == all {
        return queens_seq(all, cols, left, right);
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
            queens_rec(
                all,
                cols | bit,
                ((left | bit) << 1) & all,
                (right | bit) >> 1,
                row + 1,
                spawn_depth,
            )
        })
        .sum()
}

/// N-Queens on `pool`: the placements of rows above `spawn_depth` are rayon tasks; below,
/// the bitmask recursion of `nqueens::count`.
pub fn nqueens(n: u32, pool: &rayon::ThreadPool, spawn_depth: usize) -> Job<'_> {
    Box::new(move || {
        let all = u64::MAX >> (64 - n);
        let t = Instant::now();
        let count = pool.install(|| queens_rec(all, 0, 0, 0, 0, spawn_depth));
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
