//! [`ThreadPool`]: rayon-core's pool type over a magpie pool.

use std::error::Error;
use std::fmt;
use std::ops::Deref;

/// A pool of worker threads (rayon-core's `ThreadPool`), each a magpie worker. Dropping it
/// shuts the workers down without waiting for them (as rayon-core does); they finish the
/// jobs already queued first.
///
/// ```
/// let pool = rayon_core::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let (a, b) = pool.join(|| 1 + 1, || 2 + 2);
/// assert_eq!((a, b), (2, 4));
/// assert_eq!(pool.current_num_threads(), 2);
/// ```
pub struct ThreadPool {
    inner: magpie::ThreadPool,
}

impl fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPool")
            .field("num_threads", &self.current_num_threads())
            .field("magpie", &self.inner)
            .finish()
    }
}

impl ThreadPool {
    pub(crate) fn from_magpie(inner: magpie::ThreadPool) -> Self {
        ThreadPool { inner }
    }

    /// Builds a pool from a deprecated [`crate::Configuration`].
    #[deprecated(note = "Use `ThreadPoolBuilder::build`")]
    #[allow(deprecated)]
    pub fn new(configuration: crate::Configuration) -> Result<ThreadPool, Box<dyn Error>> {
        configuration.build()
    }

    /// The magpie pool underneath: its counters ([`magpie::ThreadPool::stats`]), traces,
    /// policies and prioritised spawns.
    ///
    /// ```
    /// let pool = rayon_core::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// pool.magpie().spawn_with_priority(5, || ());
    /// assert_eq!(pool.magpie().num_workers(), 2);
    /// ```
    pub fn magpie(&self) -> &magpie::ThreadPool {
        &self.inner
    }

    /// The number of threads of this pool.
    #[inline]
    pub fn current_num_threads(&self) -> usize {
        self.inner.num_workers()
    }

    /// The index of the current thread if it is a worker of this pool.
    #[inline]
    pub fn current_thread_index(&self) -> Option<usize> {
        self.inner.current_worker_index()
    }
}

/// rayon-core's other `ThreadPool` methods are magpie's, with the same names and
/// signatures: `install`, `join`, `scope`, `scope_fifo`, `in_place_scope`,
/// `in_place_scope_fifo`, `spawn`, `spawn_fifo`, `broadcast`, `spawn_broadcast`,
/// `yield_now`, `yield_local` and `current_thread_has_pending_tasks`.
///
/// ```
/// let pool = rayon_core::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// assert_eq!(pool.install(|| pool.current_thread_index().is_some()), true);
/// assert_eq!(pool.broadcast(|ctx| ctx.index()), [0, 1]);
/// assert_eq!(pool.yield_now(), None);
/// ```
impl Deref for ThreadPool {
    type Target = magpie::ThreadPool;

    fn deref(&self) -> &magpie::ThreadPool {
        &self.inner
    }
}
