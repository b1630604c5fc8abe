//! Numerical semigroups written on rayon as a rayon user would: the children of semigroups
//! below a spawn genus are rayon tasks; the subtrees at that genus are counted by
//! [`count_from`] (the walk of [`count_by_genus`](super::count_by_genus)).

use rayon::prelude::*;

use super::{count_from, Semigroup};

fn walk(s: &Semigroup, max_genus: usize, spawn_depth: usize) -> Vec<u64> {
    let g = s.genus();
    if g >= spawn_depth || g >= max_genus {
        return count_from(s, max_genus);
    }
    let kids: Vec<Semigroup> = s.children().collect();
    let mut counts = kids
        .par_iter()
        .map(|k| walk(k, max_genus, spawn_depth))
        .reduce(
            || vec![0; max_genus + 1],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            },
        );
    counts[g] += 1;
    counts
}

/// The semigroups of genus `0..=max_genus` counted on `pool`, tasks below genus
/// `spawn_depth`.
pub(super) fn count(max_genus: usize, pool: &rayon::ThreadPool, spawn_depth: usize) -> Vec<u64> {
    pool.install(|| walk(&Semigroup::root(), max_genus, spawn_depth))
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_every_genus_at_every_spawn_depth() {
        let pool = crate::registry::rayon_pool(2);
        for d in [0, 3, 8, 20] {
            assert_eq!(
                super::count(12, &pool, d)[..],
                super::super::EXPECTED_COUNTS[..=12],
                "depth {d}"
            );
        }
    }
}
