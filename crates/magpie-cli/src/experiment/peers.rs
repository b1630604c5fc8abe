//! The rayon versions of the experiment's applications (`--peers rayon`), written as a rayon
//! user would and kept as close as possible to magpie's: the fork-join kernels are the
//! same algorithms with `rayon::join` for `magpie::join` (same cutoffs), and the
//! enumerations (uts, ns, nqueens) fork over every node above the spawn depth, like
//! magpie's depth-bounded skeleton, and search sequentially below it.

use magpie::search::{Enumerate, SearchSpace};
use rayon::prelude::*;

/// Naive Fibonacci, every call above the leaves forking (as `magpie_apps::fib`).
pub fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = rayon::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

/// Parallel quicksort: `magpie_apps::quicksort` with `rayon::join` (same partition, same
/// cutoff).
pub fn quicksort(v: &mut [u64]) {
    if v.len() <= magpie_apps::QUICKSORT_CUTOFF {
        v.sort_unstable();
        return;
    }
    let mid = magpie_apps::partition(v);
    let (left, right) = v.split_at_mut(mid);
    rayon::join(|| quicksort(left), || quicksort(right));
}

/// Inclusive wrapping prefix sum: `magpie_apps::prefix_sum` with `rayon::join` (piece
/// sums, then sequential scans from their offsets; same cutoff).
pub fn prefix_sum(v: &mut [u64]) {
    let sums = piece_sums(v);
    scan_pieces(v, &sums, 0);
}

enum PieceSums {
    Leaf(u64),
    Split(u64, Box<PieceSums>, Box<PieceSums>),
}

impl PieceSums {
    fn total(&self) -> u64 {
        match self {
            PieceSums::Leaf(t) | PieceSums::Split(t, ..) => *t,
        }
    }
}

fn piece_sums(v: &[u64]) -> PieceSums {
    if v.len() <= magpie_apps::PREFIX_SUM_CUTOFF {
        return PieceSums::Leaf(v.iter().fold(0u64, |a, &x| a.wrapping_add(x)));
    }
    let (a, b) = v.split_at(v.len() / 2);
    let (l, r) = rayon::join(|| piece_sums(a), || piece_sums(b));
    PieceSums::Split(l.total().wrapping_add(r.total()), Box::new(l), Box::new(r))
}

fn scan_pieces(v: &mut [u64], sums: &PieceSums, offset: u64) {
    match sums {
        PieceSums::Leaf(_) => {
            let mut acc = offset;
            for x in v {
                acc = acc.wrapping_add(*x);
                *x = acc;
            }
        }
        PieceSums::Split(_, l, r) => {
            let (a, b) = v.split_at_mut(v.len() / 2);
            let right_offset = offset.wrapping_add(l.total());
            rayon::join(
                || scan_pieces(a, l, offset),
                || scan_pieces(b, r, right_offset),
            );
        }
    }
}

/// Folds `fold` over every node of `space` (nodes deeper than `max_depth` are not
/// expanded, as in `magpie::search`): the children of nodes above `spawn_depth` are rayon
/// tasks (`par_iter`, i.e. `rayon::join` underneath), the subtrees at `spawn_depth` are
/// searched depth-first with an explicit stack on one thread.
pub fn enumerate<S, E>(space: &S, fold: &E, spawn_depth: usize, max_depth: Option<usize>) -> E::Acc
where
    S: SearchSpace,
    E: Enumerate<S>,
{
    forking(space, fold, space.root(), 0, spawn_depth, max_depth)
}

fn forking<S, E>(
    space: &S,
    fold: &E,
    node: S::Node,
    depth: usize,
    spawn_depth: usize,
    max_depth: Option<usize>,
) -> E::Acc
where
    S: SearchSpace,
    E: Enumerate<S>,
{
    if depth >= spawn_depth {
        return sequential(space, fold, node, depth, max_depth);
    }
    let mut acc = fold.empty();
    fold.visit(&mut acc, &node, depth);
    if max_depth.is_some_and(|m| depth >= m) {
        return acc;
    }
    let kids: Vec<S::Node> = space.children(&node).collect();
    let below = kids
        .into_par_iter()
        .map(|k| forking(space, fold, k, depth + 1, spawn_depth, max_depth))
        .reduce(|| fold.empty(), |a, b| fold.merge(a, b));
    fold.merge(acc, below)
}

fn sequential<S, E>(
    space: &S,
    fold: &E,
    node: S::Node,
    depth: usize,
    max_depth: Option<usize>,
) -> E::Acc
where
    S: SearchSpace,
    E: Enumerate<S>,
{
    let mut acc = fold.empty();
    let mut stack = vec![(node, depth)];
    while let Some((n, d)) = stack.pop() {
        fold.visit(&mut acc, &n, d);
        if max_depth.is_none_or(|m| d < m) {
            stack.extend(space.children(&n).map(|c| (c, d + 1)));
        }
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use magpie::search::{self, CountPerDepth, Options, Skeleton};
    use magpie_apps::{nqueens, ns, uts};

    fn pool() -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap()
    }

    #[test]
    fn kernels_match_sequential() {
        let pool = pool();
        assert_eq!(pool.install(|| fib(20)), 6765);
        for len in [0, 1, 5000, 50_000] {
            let input = magpie_apps::random_u64s(len, 9, 0);
            let mut v = input.clone();
            pool.install(|| quicksort(&mut v));
            let mut want = input.clone();
            want.sort_unstable();
            assert_eq!(v, want);
            let mut v = input.clone();
            pool.install(|| prefix_sum(&mut v));
            let mut acc = 0u64;
            for (x, y) in input.iter().zip(&v) {
                acc = acc.wrapping_add(*x);
                assert_eq!(acc, *y);
            }
        }
    }

    #[test]
    fn enumerations_match_magpie_sequential() {
        let pool = pool();
        let params = uts::Params::named("default").unwrap();
        let tally = uts::Tally(&params);
        let opts = Options::default();
        let want = search::enumerate(&params, &tally, Skeleton::Sequential, &opts).value;
        for spawn in [0, 1, 2, 5] {
            assert_eq!(
                pool.install(|| enumerate(&params, &tally, spawn, None)),
                want
            );
        }
        let tree = ns::Tree::new(12).unwrap();
        let counts = pool.install(|| enumerate(&tree, &CountPerDepth, 2, None));
        assert_eq!(counts[..], ns::EXPECTED_COUNTS[..=12]);
        let board = nqueens::Board::new(8).unwrap();
        let solutions = pool.install(|| enumerate(&board, &nqueens::Solutions(8), 2, None));
        assert_eq!(solutions, 92);
        // A depth limit as magpie's: nodes at max_depth are visited, not expanded.
        for max in [0, 1, 3] {
            let opts = Options {
                max_depth: Some(max),
                ..Options::default()
            };
            let want = search::enumerate(&tree, &CountPerDepth, Skeleton::Sequential, &opts);
            for spawn in [0, 2] {
                let got = pool.install(|| enumerate(&tree, &CountPerDepth, spawn, Some(max)));
                assert_eq!(got, want.value, "max depth {max}, spawn depth {spawn}");
            }
        }
    }
}
