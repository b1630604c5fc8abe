//! The rayon versions of the experiment's enumerations (`--peers rayon`), written as a rayon
//! user would and kept as close as possible to magpie's: uts, ns and nqueens fork over
//! every node above the spawn depth, like magpie's depth-bounded skeleton, and search
//! sequentially below it. The fork-join kernels (fib, quicksort, prefix-sum) need nothing
//! here: they are `magpie_apps`' own, run with `magpie_apps::join::Rayon`.

use magpie::search::{Enumerate, SearchSpace};
use rayon::prelude::*;

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
