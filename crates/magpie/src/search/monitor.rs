//! Watching and stopping a running search from outside: [`Monitor`].
//!
//! A caller that wants to show progress, log each new incumbent, or stop a long search
//! (a time limit, Ctrl-C) makes a monitor, puts a clone in [`Options::monitor`], and keeps
//! one. The search publishes to it only at the walks' ticks (every `TICK` expanded nodes
//! of a task, into a per-worker padded slot) and at each incumbent improvement, which is
//! rare; without a monitor the walks test one `Option` per tick and nothing else.
//!
//! [`Options::monitor`]: super::Options::monitor

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;

/// Slots of the live node count: worker `w` adds to slot `w % SLOTS` (a pool with more
/// workers shares slots, which costs only contention).
const SLOTS: usize = 64;

/// One improvement of an optimisation's incumbent, as a [`Monitor`] records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Improvement {
    /// Time since the monitor was made.
    pub time: Duration,
    /// The new incumbent's objective value.
    pub value: i64,
    /// The pool worker that found it, if a worker of this process found it (`None`: found
    /// elsewhere, for example on another rank of a distributed search).
    pub worker: Option<usize>,
    /// The MPI rank where it was found (0 for a search in one process).
    pub rank: usize,
    /// Nodes expanded so far, over every worker of this process (as [`Monitor::nodes`]).
    pub nodes: u64,
}

/// The callback of [`Monitor::on_improvement`].
type Sink = Box<dyn FnMut(&Improvement) + Send>;

struct Log {
    best: Option<i64>,
    improvements: Vec<Improvement>,
    sink: Option<Sink>,
}

/// The pool a search runs on, and its steal count when the search started.
type Pool = (Arc<crate::runtime::registry::Registry>, u64);

struct Inner {
    start: Instant,
    stop: AtomicBool,
    nodes: Box<[CachePadded<AtomicU64>]>,
    tasks: AtomicU64,
    pool: Mutex<Option<Pool>>,
    log: Mutex<Log>,
}

/// A handle on a running search: its live node count and incumbent, the log of its
/// incumbent improvements, and a way to stop it.
///
/// Clones share one state. Give a clone to the search in [`Options::monitor`] and keep one:
/// [`stop`](Monitor::stop) from another thread (a timer, a signal handler's flag) makes
/// every worker stop within 64 nodes of its current task (a walk's tick); the search then
/// returns what it has (for an optimisation, the best node found so far) with
/// [`SearchStats::stopped`] set.
///
/// ```
/// use magpie::search::{self, Monitor, NodeCount, Options, SearchSpace, Skeleton};
///
/// /// The complete binary tree of depth 40: far too big to finish.
/// struct Huge;
/// impl SearchSpace for Huge {
///     type Node = u32;
///     type Children<'a> = std::vec::IntoIter<u32>;
///     fn root(&self) -> u32 { 0 }
///     fn children<'a>(&'a self, &d: &u32) -> Self::Children<'a> {
///         if d == 40 { vec![] } else { vec![d + 1, d + 1] }.into_iter()
///     }
/// }
///
/// let monitor = Monitor::new();
/// let opts = Options { monitor: Some(monitor.clone()), ..Options::default() };
/// let watcher = monitor.clone();
/// std::thread::spawn(move || {
///     while watcher.nodes() < 100_000 {
///         std::thread::yield_now();
///     }
///     watcher.stop();
/// });
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
/// let out = pool.install(|| search::enumerate(&Huge, &NodeCount, Skeleton::DepthBounded { spawn_depth: 4 }, &opts));
/// assert!(out.stats.stopped);
/// assert!(out.value >= 100_000 && out.value < 1 << 40);
/// // Every expanded node reached the monitor by the end of the search.
/// assert_eq!(monitor.nodes(), out.stats.expanded);
/// ```
///
/// [`Options::monitor`]: super::Options::monitor
/// [`SearchStats::stopped`]: super::SearchStats::stopped
#[derive(Clone)]
pub struct Monitor(Arc<Inner>);

impl Default for Monitor {
    fn default() -> Self {
        Monitor::new()
    }
}

impl std::fmt::Debug for Monitor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Monitor")
            .field("stopped", &self.is_stopped())
            .field("nodes", &self.nodes())
            .field("best", &self.best())
            .finish_non_exhaustive()
    }
}

impl Monitor {
    /// A monitor with no node counted, no incumbent and no stop requested; its clock
    /// ([`Improvement::time`], [`elapsed`](Monitor::elapsed)) starts now.
    ///
    /// ```
    /// let m = magpie::search::Monitor::new();
    /// assert_eq!((m.nodes(), m.best(), m.is_stopped()), (0, None, false));
    /// ```
    pub fn new() -> Monitor {
        Monitor(Arc::new(Inner {
            start: Instant::now(),
            stop: AtomicBool::new(false),
            nodes: (0..SLOTS)
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
            tasks: AtomicU64::new(0),
            pool: Mutex::new(None),
            log: Mutex::new(Log {
                best: None,
                improvements: Vec::new(),
                sink: None,
            }),
        }))
    }

    /// Asks the search to stop: each worker stops within a tick of its current task, and no
    /// new task starts. Idempotent; it cannot be undone.
    ///
    /// ```
    /// let m = magpie::search::Monitor::new();
    /// m.clone().stop();
    /// assert!(m.is_stopped());
    /// ```
    pub fn stop(&self) {
        self.0.stop.store(true, Ordering::Relaxed);
    }

    /// Whether [`stop`](Monitor::stop) was called.
    ///
    /// ```
    /// assert!(!magpie::search::Monitor::new().is_stopped());
    /// ```
    #[inline]
    pub fn is_stopped(&self) -> bool {
        self.0.stop.load(Ordering::Relaxed)
    }

    /// The nodes expanded so far over every worker: exact once the search has returned;
    /// while it runs, each running task's last few (fewer than a tick's) are not in it yet.
    ///
    /// ```
    /// assert_eq!(magpie::search::Monitor::new().nodes(), 0);
    /// ```
    pub fn nodes(&self) -> u64 {
        self.0.nodes.iter().map(|s| s.load(Ordering::Relaxed)).sum()
    }

    /// Tasks the search's skeleton has made so far.
    ///
    /// ```
    /// assert_eq!(magpie::search::Monitor::new().tasks(), 0);
    /// ```
    pub fn tasks(&self) -> u64 {
        self.0.tasks.load(Ordering::Relaxed)
    }

    /// Successful steals on the search's pool since the search started (0 before it starts,
    /// and without the `counters` feature; other work on the same pool counts too).
    ///
    /// ```
    /// assert_eq!(magpie::search::Monitor::new().steals(), 0);
    /// ```
    pub fn steals(&self) -> u64 {
        let pool = self.0.pool.lock().unwrap_or_else(|e| e.into_inner());
        pool.as_ref()
            .map_or(0, |(r, before)| r.total_steals().saturating_sub(*before))
    }

    /// The best incumbent value reported so far, if any.
    ///
    /// ```
    /// let m = magpie::search::Monitor::new();
    /// m.improved(7, None, 1);
    /// m.improved(5, None, 1); // not better: ignored
    /// assert_eq!(m.best(), Some(7));
    /// ```
    pub fn best(&self) -> Option<i64> {
        self.log().best
    }

    /// Every improvement so far, in the order they happened (values strictly increasing).
    ///
    /// ```
    /// let m = magpie::search::Monitor::new();
    /// m.improved(3, Some(0), 0);
    /// m.improved(9, None, 2);
    /// let values: Vec<_> = m.improvements().iter().map(|i| (i.value, i.rank)).collect();
    /// assert_eq!(values, [(3, 0), (9, 2)]);
    /// ```
    pub fn improvements(&self) -> Vec<Improvement> {
        self.log().improvements.clone()
    }

    /// Calls `sink` with each later improvement, as it happens (on the thread that found
    /// it, while the monitor's log is locked: keep it short, for example one line written
    /// to a file). Replaces an earlier sink.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// let m = magpie::search::Monitor::new();
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let s = seen.clone();
    /// m.on_improvement(move |i| s.lock().unwrap().push(i.value));
    /// m.improved(4, None, 0);
    /// assert_eq!(*seen.lock().unwrap(), [4]);
    /// ```
    pub fn on_improvement(&self, sink: impl FnMut(&Improvement) + Send + 'static) {
        self.log().sink = Some(Box::new(sink));
    }

    /// Time since the monitor was made.
    ///
    /// ```
    /// assert!(magpie::search::Monitor::new().elapsed().as_secs() < 60);
    /// ```
    pub fn elapsed(&self) -> Duration {
        self.0.start.elapsed()
    }

    /// Records an incumbent of value `value`, found by pool worker `worker` (`None`: not by
    /// a worker of this process) on MPI rank `rank`, if it beats the best recorded so far;
    /// returns whether it did. The searches call it themselves; a distributed search calls
    /// it for the incumbents other ranks send.
    ///
    /// ```
    /// let m = magpie::search::Monitor::new();
    /// assert!(m.improved(1, Some(0), 0));
    /// assert!(!m.improved(1, Some(1), 0));
    /// ```
    pub fn improved(&self, value: i64, worker: Option<usize>, rank: usize) -> bool {
        let mut log = self.log();
        if log.best.is_some_and(|b| b >= value) {
            return false;
        }
        log.best = Some(value);
        let improvement = Improvement {
            time: self.elapsed(),
            value,
            worker,
            rank,
            nodes: self.nodes(),
        };
        if let Some(sink) = log.sink.as_mut() {
            sink(&improvement);
        }
        log.improvements.push(improvement);
        true
    }

    /// The search starts on the current pool.
    pub(crate) fn attach_current_pool(&self) {
        let registry = crate::runtime::current_registry();
        let steals = registry.total_steals();
        *self.0.pool.lock().unwrap_or_else(|e| e.into_inner()) = Some((registry, steals));
    }

    /// The skeleton made `n` tasks.
    #[inline]
    pub(crate) fn add_tasks(&self, n: u64) {
        self.0.tasks.fetch_add(n, Ordering::Relaxed);
    }

    /// Adds `n` expanded nodes for the current worker.
    #[inline]
    pub(crate) fn add_nodes(&self, n: u64) {
        let w = crate::current_worker_index().unwrap_or(0);
        self.0.nodes[w % SLOTS].fetch_add(n, Ordering::Relaxed);
    }

    fn log(&self) -> std::sync::MutexGuard<'_, Log> {
        self.0.log.lock().unwrap_or_else(|e| e.into_inner())
    }
}
