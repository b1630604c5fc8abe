//! Where a search runs: a [`Run`] gives an application's [`Instance`](super::Instance) the
//! three searches of `magpie::search` (optimise, decide, enumerate) on its [`Engine`] (a
//! magpie pool, every rank of an MPI job (feature `mpi`) or, for enumerations, rayon (feature
//! `rayon`, `magpie experiment --peers rayon`), or plain recursion on the calling thread) with the caller's skeleton and options. An
//! application writes its search once, against the run, and runs wherever the caller puts it.

use magpie::search::{self, Enumerate, Objective, Options, Outcome, Skeleton};
use magpie::ThreadPool;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::AppError;

/// What a [`Run`]'s search returns: `Ok(None)` on an MPI rank other than 0, the
/// [`Outcome`] elsewhere.
pub type Ran<T> = Result<Option<Outcome<T>>, AppError>;

/// A rayon pool of `threads` threads, for the tests of the rayon peers and engine.
#[cfg(all(test, feature = "rayon"))]
pub(crate) fn rayon_pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a rayon pool for a test")
}

/// Where a search runs: each search of a [`Run`] on it returns `Ok(None)` on an MPI rank
/// other than 0 (which takes part but has no result), and the [`Outcome`] (value and
/// statistics) elsewhere.
#[non_exhaustive]
pub enum Engine<'a> {
    /// magpie's search on this pool.
    Pool(&'a ThreadPool),
    /// The plain recursive search of [`super::plain`] on the calling thread (the skeleton
    /// is ignored): the same nodes as the `Sequential` skeleton, none of its machinery;
    /// `magpie-bench search`'s baseline.
    Plain,
    /// Every rank of an MPI job, each with its pool (`magpie_mpi::search`).
    #[cfg(feature = "mpi")]
    Cluster(&'a ClusterEngine<'a>),
    /// rayon's `par_iter` over every node above `spawn_depth` and a sequential search
    /// below, as a rayon user would write it (enumerations only; the skeleton is ignored).
    #[cfg(feature = "rayon")]
    Rayon {
        /// The rayon pool.
        pool: &'a rayon::ThreadPool,
        /// The depth of the subtrees searched sequentially.
        spawn_depth: usize,
    },
}

/// One search to run: where ([`Engine`]), with which skeleton and options. An application's
/// [`Instance::solve`](super::Instance::solve) gets one and runs its search on it.
///
/// ```
/// use magpie::search::{CountPerDepth, Options, Skeleton};
/// use magpie_apps::{ns, registry::{Engine, Run}};
///
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
/// let tree = ns::Tree::new(5).unwrap();
/// let sk = Skeleton::DepthBounded { spawn_depth: 2 };
/// let opts = Options::default();
/// let out = Run::new(&Engine::Pool(&pool), sk, &opts)
///     .enumerate(&tree, &CountPerDepth)
///     .unwrap()
///     .unwrap();
/// assert_eq!(out.value, [1, 1, 2, 4, 7, 12]);
/// assert_eq!(out.stats.expanded, 27);
/// ```
#[derive(Clone, Copy)]
pub struct Run<'a> {
    /// Where the search runs.
    pub engine: &'a Engine<'a>,
    /// Its skeleton.
    pub skeleton: Skeleton,
    /// Its options.
    pub opts: &'a Options,
}

impl<'a> Run<'a> {
    /// A search on `engine` with `skeleton` and `opts`.
    pub fn new(engine: &'a Engine<'a>, skeleton: Skeleton, opts: &'a Options) -> Self {
        Run {
            engine,
            skeleton,
            opts,
        }
    }

    /// The same search with other options (the caller's and the application's own, such
    /// as a start bound).
    pub fn with_options(self, opts: &'a Options) -> Self {
        Run { opts, ..self }
    }

    /// The best node of `space` ([`search::optimise`]); `opts.initial_bound` and
    /// `opts.prune_level` apply on every engine.
    pub fn optimise<S: Objective + Sync>(&self, space: &S) -> Ran<Option<(i64, S::Node)>>
    where
        S::Node: Clone + Send + Serialize + DeserializeOwned,
    {
        match self.engine {
            Engine::Pool(pool) => {
                Ok(Some(pool.install(|| {
                    search::optimise(space, self.skeleton, self.opts)
                })))
            }
            Engine::Plain => Ok(Some(super::plain::optimise(space, self.opts))),
            #[cfg(feature = "mpi")]
            Engine::Cluster(c) => Ok(c.keep(magpie_mpi::search::optimise(
                c.cluster,
                c.pool,
                space,
                self.skeleton,
                c.victims,
                self.opts,
            ))),
            #[cfg(feature = "rayon")]
            Engine::Rayon { .. } => Err(enumerations_only()),
        }
    }

    /// The best node of `space` as [`Run::optimise`] finds it, where finding none at all
    /// (only a search from an initial bound may) is a failed check: `the search returned no
    /// {what} at all`.
    pub fn optimum<S: Objective + Sync>(&self, space: &S, what: &str) -> Ran<(i64, S::Node)>
    where
        S::Node: Clone + Send + Serialize + DeserializeOwned,
    {
        let Some(out) = self.optimise(space)? else {
            return Ok(None);
        };
        let value = out
            .value
            .ok_or_else(|| AppError::Check(format!("the search returned no {what} at all")))?;
        Ok(Some(Outcome {
            value,
            stats: out.stats,
        }))
    }

    /// A node of `space` of at least `target` ([`search::decide`]).
    pub fn decide<S: Objective + Sync>(&self, space: &S, target: i64) -> Ran<Option<S::Node>>
    where
        S::Node: Clone + Send + Serialize + DeserializeOwned,
    {
        match self.engine {
            Engine::Pool(pool) => {
                Ok(Some(pool.install(|| {
                    search::decide(space, target, self.skeleton, self.opts)
                })))
            }
            Engine::Plain => Ok(Some(super::plain::decide(space, target, self.opts))),
            #[cfg(feature = "mpi")]
            Engine::Cluster(c) => Ok(c.keep(magpie_mpi::search::decide(
                c.cluster,
                c.pool,
                space,
                target,
                self.skeleton,
                c.victims,
                self.opts,
            ))),
            #[cfg(feature = "rayon")]
            Engine::Rayon { .. } => Err(enumerations_only()),
        }
    }

    /// `fold` over every node of `space` ([`search::enumerate`]; `opts.max_depth` cuts the
    /// tree on every engine that accepts it, and the MPI search refuses it).
    pub fn enumerate<S, E>(&self, space: &S, fold: &E) -> Ran<E::Acc>
    where
        S: search::SearchSpace + Sync,
        S::Node: Send + Serialize + DeserializeOwned,
        E: Enumerate<S>,
        E::Acc: Serialize + DeserializeOwned,
    {
        match self.engine {
            Engine::Pool(pool) => {
                Ok(Some(pool.install(|| {
                    search::enumerate(space, fold, self.skeleton, self.opts)
                })))
            }
            Engine::Plain => Ok(Some(super::plain::enumerate(space, fold, self.opts))),
            #[cfg(feature = "mpi")]
            Engine::Cluster(c) => c.enumerate(space, fold, self.skeleton, self.opts),
            #[cfg(feature = "rayon")]
            Engine::Rayon { pool, spawn_depth } => Ok(Some(pool.install(|| {
                rayon_search::enumerate(space, fold, *spawn_depth, self.opts.max_depth)
            }))),
        }
    }
}

#[cfg(feature = "rayon")]
fn enumerations_only() -> AppError {
    AppError::Usage("the rayon version searches enumerations only".into())
}

#[cfg(feature = "mpi")]
pub use cluster::ClusterEngine;

#[cfg(feature = "mpi")]
mod cluster {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Mutex;

    use magpie::search::{Enumerate, Options, Outcome, SearchSpace, Skeleton};
    use magpie::ThreadPool;
    use magpie_mpi::search::Distributed;
    use magpie_mpi::victims::RemoteVictims;
    use magpie_mpi::{Cluster, RankStats};
    use serde::de::DeserializeOwned;
    use serde::Serialize;

    use crate::registry::AppError;

    /// A search over every rank of an MPI job: the cluster, this rank's pool, how an idle
    /// rank picks a victim, and (after a search, on rank 0) every rank's statistics.
    pub struct ClusterEngine<'a> {
        pub(super) cluster: &'a Cluster,
        pub(super) pool: &'a ThreadPool,
        pub(super) victims: &'a RemoteVictims,
        on_visit: Option<&'a (dyn Fn(u64) + Sync)>,
        ranks: Mutex<Vec<RankStats>>,
    }

    impl<'a> ClusterEngine<'a> {
        /// Searches over `cluster` with `pool` on this rank, idle ranks asking `victims`.
        pub fn new(cluster: &'a Cluster, pool: &'a ThreadPool, victims: &'a RemoteVictims) -> Self {
            ClusterEngine {
                cluster,
                pool,
                victims,
                on_visit: None,
                ranks: Mutex::new(Vec::new()),
            }
        }

        /// This engine, calling `hook` with the count of visits so far at every node an
        /// enumeration visits on this rank (the tests' fault injection: a hook that panics
        /// or kills the rank at its 100th visit).
        pub fn with_visit_hook(mut self, hook: &'a (dyn Fn(u64) + Sync)) -> Self {
            self.on_visit = Some(hook);
            self
        }

        /// Every rank's statistics of the last search, by rank (rank 0; empty elsewhere).
        pub fn ranks(&self) -> Vec<RankStats> {
            self.ranks.lock().unwrap_or_else(|e| e.into_inner()).clone()
        }

        /// The value and the whole search's counters of a distributed result, keeping the
        /// ranks' statistics.
        pub(super) fn keep<A>(&self, d: Option<Distributed<A>>) -> Option<Outcome<A>> {
            let d = d?;
            let stats = d.stats();
            *self.ranks.lock().unwrap_or_else(|e| e.into_inner()) = d.ranks;
            Some(Outcome {
                value: d.value,
                stats,
            })
        }

        pub(super) fn enumerate<S, E>(
            &self,
            space: &S,
            fold: &E,
            skeleton: Skeleton,
            opts: &Options,
        ) -> Result<Option<Outcome<E::Acc>>, AppError>
        where
            S: SearchSpace,
            S::Node: Serialize + DeserializeOwned,
            E: Enumerate<S>,
            E::Acc: Serialize + DeserializeOwned,
        {
            if opts.max_depth.is_some() {
                return Err(AppError::Usage(
                    "--max-depth is not supported with --distributed".into(),
                ));
            }
            let run = |fold: &dyn Fn() -> Option<Distributed<E::Acc>>| self.keep(fold());
            Ok(match self.on_visit {
                None => run(&|| {
                    magpie_mpi::search::enumerate(
                        self.cluster,
                        self.pool,
                        space,
                        fold,
                        skeleton,
                        self.victims,
                        opts,
                    )
                }),
                Some(hook) => {
                    let hooked = Hooked {
                        inner: fold,
                        hook,
                        visits: AtomicU64::new(0),
                    };
                    run(&|| {
                        magpie_mpi::search::enumerate(
                            self.cluster,
                            self.pool,
                            space,
                            &hooked,
                            skeleton,
                            self.victims,
                            opts,
                        )
                    })
                }
            })
        }
    }

    /// A fold that calls a hook with the visit count before every visit.
    struct Hooked<'a, E> {
        inner: &'a E,
        hook: &'a (dyn Fn(u64) + Sync),
        visits: AtomicU64,
    }

    impl<S: SearchSpace + ?Sized, E: Enumerate<S>> Enumerate<S> for Hooked<'_, E> {
        type Acc = E::Acc;
        fn empty(&self) -> E::Acc {
            self.inner.empty()
        }
        fn visit(&self, acc: &mut E::Acc, node: &S::Node, depth: usize) {
            (self.hook)(self.visits.fetch_add(1, Ordering::Relaxed) + 1);
            self.inner.visit(acc, node, depth);
        }
        fn merge(&self, a: E::Acc, b: E::Acc) -> E::Acc {
            self.inner.merge(a, b)
        }
    }
}

#[cfg(feature = "rayon")]
mod rayon_search {
    //! The rayon version of an enumeration, written as a rayon user would and kept as close
    //! as possible to magpie's depth-bounded skeleton: the children of nodes above the spawn
    //! depth are rayon tasks (`par_iter`, i.e. `rayon::join` underneath), the subtrees at
    //! the spawn depth are searched depth-first with an explicit stack on one thread. It
    //! counts the nodes it visits, as magpie's engine does, so that the applications'
    //! checks (nodes counted = nodes expanded) apply to it too.

    use std::time::Instant;

    use magpie::search::{Enumerate, Outcome, SearchSpace};
    use rayon::prelude::*;

    /// Folds `fold` over every node of `space` (nodes deeper than `max_depth` are not
    /// expanded, as in `magpie::search`).
    pub(super) fn enumerate<S, E>(
        space: &S,
        fold: &E,
        spawn_depth: usize,
        max_depth: Option<usize>,
    ) -> Outcome<E::Acc>
    where
        S: SearchSpace + Sync,
        S::Node: Send,
        E: Enumerate<S>,
    {
        let start = Instant::now();
        let w = Walk {
            space,
            fold,
            spawn_depth,
            max_depth,
        };
        let (value, expanded) = w.forking(space.root(), 0);
        crate::registry::plain::outcome(value, expanded, start)
    }

    struct Walk<'a, S: ?Sized, E> {
        space: &'a S,
        fold: &'a E,
        spawn_depth: usize,
        max_depth: Option<usize>,
    }

    impl<S, E> Walk<'_, S, E>
    where
        S: SearchSpace + Sync,
        S::Node: Send,
        E: Enumerate<S>,
    {
        fn forking(&self, node: S::Node, depth: usize) -> (E::Acc, u64) {
            if depth >= self.spawn_depth {
                return self.sequential(node, depth);
            }
            let mut acc = self.fold.empty();
            self.fold.visit(&mut acc, &node, depth);
            if self.max_depth.is_some_and(|m| depth >= m) {
                return (acc, 1);
            }
            let kids: Vec<S::Node> = self.space.children(&node).collect();
            let (below, n) = kids
                .into_par_iter()
                .map(|k| self.forking(k, depth + 1))
                .reduce(
                    || (self.fold.empty(), 0),
                    |a, b| (self.fold.merge(a.0, b.0), a.1 + b.1),
                );
            (self.fold.merge(acc, below), n + 1)
        }

        fn sequential(&self, node: S::Node, depth: usize) -> (E::Acc, u64) {
            let mut acc = self.fold.empty();
            let mut visited = 0u64;
            let mut stack = vec![(node, depth)];
            while let Some((n, d)) = stack.pop() {
                self.fold.visit(&mut acc, &n, d);
                visited += 1;
                if self.max_depth.is_none_or(|m| d < m) {
                    stack.extend(self.space.children(&n).map(|c| (c, d + 1)));
                }
            }
            (acc, visited)
        }
    }

    #[cfg(test)]
    mod tests {
        use magpie::search::{self, CountPerDepth, Options, Skeleton};

        use super::enumerate;
        use crate::{nqueens, ns, uts};

        #[test]
        fn enumerations_match_magpie_sequential_and_count_every_node() {
            let pool = crate::registry::rayon_pool(2);
            let params = uts::Params::named("default").unwrap();
            let tally = uts::Tally(&params);
            let opts = Options::default();
            let want = search::enumerate(&params, &tally, Skeleton::Sequential, &opts).value;
            for spawn in [0, 1, 2, 5] {
                let got = pool.install(|| enumerate(&params, &tally, spawn, None));
                assert_eq!(got.value, want, "spawn depth {spawn}");
                assert_eq!(got.stats.expanded, want.nodes, "spawn depth {spawn}");
            }
            let tree = ns::Tree::new(12).unwrap();
            let counts = pool
                .install(|| enumerate(&tree, &CountPerDepth, 2, None))
                .value;
            assert_eq!(counts[..], ns::EXPECTED_COUNTS[..=12]);
            let board = nqueens::Board::new(8).unwrap();
            let solutions = pool.install(|| enumerate(&board, &nqueens::Solutions(8), 2, None));
            assert_eq!(solutions.value, 92);
            // A depth limit as magpie's: nodes at max_depth are visited, not expanded.
            for max in [0, 1, 3] {
                let opts = Options {
                    max_depth: Some(max),
                    ..Options::default()
                };
                let want = search::enumerate(&tree, &CountPerDepth, Skeleton::Sequential, &opts);
                for spawn in [0, 2] {
                    let got = pool.install(|| enumerate(&tree, &CountPerDepth, spawn, Some(max)));
                    let at = format!("max depth {max}, spawn depth {spawn}");
                    assert_eq!(got.value, want.value, "{at}");
                    assert_eq!(got.stats.expanded, want.stats.expanded, "{at}");
                }
            }
        }
    }
}
