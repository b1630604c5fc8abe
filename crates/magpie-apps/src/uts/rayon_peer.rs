//! UTS written on rayon as a rayon user would: the children of nodes above a spawn height
//! are rayon tasks (`par_iter` over the collected children, i.e. `rayon::join` under the
//! hood); the subtrees at that height are counted by the sequential [`count_from`].

use rayon::prelude::*;

use super::{count_from, Counts, Node, Params};

fn walk(p: &Params, node: &Node, spawn_depth: u32) -> Counts {
    if node.height >= spawn_depth {
        return count_from(p, node);
    }
    let kids: Vec<Node> = p.children(node).collect();
    let me = Counts::node(node.height, kids.len() as u32);
    kids.par_iter()
        .map(|k| walk(p, k, spawn_depth))
        .reduce(Counts::default, Counts::merge)
        .merge(me)
}

/// The tree of `p` counted on `pool`, tasks above height `spawn_depth`.
pub(super) fn count(p: &Params, pool: &rayon::ThreadPool, spawn_depth: usize) -> Counts {
    let depth = u32::try_from(spawn_depth).unwrap_or(u32::MAX);
    pool.install(|| walk(p, &p.root(), depth))
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_the_tree_of_the_sequential_count_at_every_spawn_depth() {
        let pool = crate::registry::rayon_pool(2);
        let p = super::Params::from_flags("-t 1 -a 3 -d 6 -b 4 -r 19").unwrap();
        for d in [0, 1, 3, 10] {
            assert_eq!(
                super::count(&p, &pool, d),
                super::super::count(&p),
                "depth {d}"
            );
        }
    }
}
