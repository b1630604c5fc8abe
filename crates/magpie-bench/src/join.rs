//! The runtimes' implementations of [`Join`], the trait every kernel of `magpie_apps` is
//! written against: magpie's, the sequential baseline's and the peers' [`Rayon`] and
//! [`Chili`], all from `magpie_apps::join` (re-exported; the peers' behind magpie-apps'
//! features `rayon` and `chili`, which this crate turns on).

pub use magpie_apps::join::{Chili, Join, Magpie, Rayon, Sequential};

#[cfg(test)]
mod tests {
    use super::*;
    use magpie_apps::{fib, nqueens};
    use std::num::NonZeroUsize;

    #[test]
    fn every_join_gives_the_same_answers() {
        let rayon_pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        assert_eq!(rayon_pool.install(|| fib(&mut Rayon, 20)), 6765);
        let chili_pool = chili::ThreadPool::with_config(chili::Config {
            thread_count: NonZeroUsize::new(2),
            ..Default::default()
        });
        assert_eq!(fib(&mut Chili::new(chili_pool.scope()), 20), 6765);
        assert_eq!(nqueens(&mut Chili::new(chili_pool.scope()), 8), 92);
        assert_eq!(fib(&mut Sequential, 20), 6765);
        for kind in magpie::deque::DequeKind::ALL {
            let pool = magpie::ThreadPoolBuilder::new()
                .num_workers(2)
                .deque(kind)
                .build()
                .unwrap();
            assert_eq!(pool.install(|| fib(&mut Magpie, 20)), 6765, "{kind}");
            assert_eq!(pool.install(|| nqueens(&mut Magpie, 8)), 92, "{kind}");
        }
    }
}
