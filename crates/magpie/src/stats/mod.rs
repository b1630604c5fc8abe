//! Per-worker event counters.
//!
//! Every counter has exactly one writer: the worker thread that owns it (its signal
//! handler included, which only touches [`WorkerCounters::tasks_exposed`] and
//! [`WorkerCounters::exposures_served`], counters the interrupted code of the
//! signal-based deques never writes). A single writer lets an increment be a plain
//! relaxed load and store, with no read-modify-write on the hot path; any thread may
//! read the counters at any time. Building without the default `counters` feature turns
//! every increment into nothing, which is how the cost of counting is measured.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// One event counter with a single writer (see the module docs).
#[derive(Debug, Default)]
pub struct Counter(AtomicU64);

impl Counter {
    /// Adds one. Must only be called by the counter's owning thread.
    #[inline(always)]
    pub fn bump(&self) {
        self.add(1)
    }

    /// Adds `n`. Must only be called by the counter's owning thread.
    #[inline(always)]
    pub fn add(&self, n: u64) {
        if cfg!(feature = "counters") {
            self.0.store(
                self.0.load(Ordering::Relaxed).wrapping_add(n),
                Ordering::Relaxed,
            );
        }
    }

    /// Current value (any thread).
    #[inline]
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    /// Sets the counter back to zero. A reset that races with the owner's increment may
    /// lose that increment or the reset; [`crate::ThreadPool::reset_stats`] documents this.
    pub fn reset(&self) {
        self.0.store(0, Ordering::Relaxed)
    }
}

macro_rules! worker_counters {
    ($( $(#[$doc:meta])* $name:ident ),* $(,)?) => {
        /// The live counters of one worker (and of its deque). Written by the worker
        /// only; read by [`crate::ThreadPool::stats`].
        #[derive(Debug, Default)]
        pub struct WorkerCounters {
            $( $(#[$doc])* pub $name: Counter, )*
        }

        /// A snapshot of one worker's counters, as returned by [`crate::ThreadPool::stats`].
        #[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
        pub struct WorkerStats {
            $( $(#[$doc])* pub $name: u64, )*
        }

        impl WorkerCounters {
            /// Reads every counter.
            pub fn snapshot(&self) -> WorkerStats {
                WorkerStats { $( $name: self.$name.get(), )* }
            }

            /// Sets every counter to zero.
            pub fn reset(&self) {
                $( self.$name.reset(); )*
            }
        }

        impl std::ops::AddAssign for WorkerStats {
            fn add_assign(&mut self, other: WorkerStats) {
                $( self.$name += other.$name; )*
            }
        }

        /// The counts between two snapshots of the same worker, `later - earlier`, counter
        /// by counter, saturating at zero: the event counters only grow, but a snapshot
        /// counts a worker's idle, parked or sleeping time up to the moment it is taken,
        /// and a later one, taken once the worker has filed that time itself, may count a
        /// little less of one kind (a doze ended by a park, say).
        ///
        /// ```
        /// use magpie::ThreadPoolBuilder;
        ///
        /// let pool = ThreadPoolBuilder::new().num_workers(2).build().unwrap();
        /// let before = pool.stats().workers;
        /// pool.install(|| magpie::join(|| 1, || 2));
        /// let after = pool.stats().workers;
        /// let run: Vec<_> = after.iter().zip(&before).map(|(a, b)| *a - *b).collect();
        /// assert_eq!(run.len(), 2);
        /// let pushes: u64 = run.iter().map(|w| w.pushes).sum();
        /// let taken: u64 = run.iter().map(|w| w.private_pops + w.public_pops + w.steals).sum();
        /// assert_eq!(pushes, taken);
        /// ```
        impl std::ops::Sub for WorkerStats {
            type Output = WorkerStats;
            fn sub(self, earlier: WorkerStats) -> WorkerStats {
                WorkerStats { $( $name: self.$name.saturating_sub(earlier.$name), )* }
            }
        }

        impl WorkerStats {
            /// The counters as `(name, value)` pairs, in declaration order (for tables and JSON).
            pub fn fields(&self) -> Vec<(&'static str, u64)> {
                vec![ $( (stringify!($name), self.$name), )* ]
            }
        }
    };
}

worker_counters! {
    /// Jobs this worker executed (popped from its own deque, stolen, injected, or taken
    /// from a priority heap).
    tasks_run,
    /// Jobs pushed onto this worker's deque.
    pushes,
    /// Jobs taken back from the private part of the deque (all pops for `chase-lev`).
    private_pops,
    /// Jobs taken back from the public part of a split deque (synchronised pops).
    public_pops,
    /// Steal attempts made by this worker as a thief (one per victim probed).
    steal_attempts,
    /// Successful steals by this worker.
    steals,
    /// Exposure requests this worker made as a thief (targeted flags set or signals sent).
    exposure_requests,
    /// Signals this worker sent to victims (subset of `exposure_requests`).
    signals_sent,
    /// Exposure requests this worker served as a victim (signal handler runs or user-space checks).
    exposures_served,
    /// Tasks this worker moved from the private to the public part of its deque.
    tasks_exposed,
    /// Exposed tasks that this worker took back itself (exposed but never stolen).
    exposed_taken_back,
    /// Memory fences executed by deque code on this thread.
    fences,
    /// Compare-and-swap operations executed by deque code on this thread.
    cas,
    /// Jobs taken from the pool's injector (work sent from outside the pool).
    injected_taken,
    /// Prioritised jobs (`spawn_with_priority`) this worker took from its own priority heap.
    priority_taken,
    /// Prioritised jobs this worker took from another worker's priority heap or from the
    /// pool's shared one (prioritised work spawned from outside the pool).
    priority_stolen,
    /// Nanoseconds spent running jobs found while idle (stolen or injected work).
    busy_ns,
    /// Nanoseconds spent looking for work (spinning or yielding).
    idle_ns,
    /// Nanoseconds spent parked (blocked until new work woke the worker).
    parked_ns,
    /// Times this worker parked.
    parks,
    /// Nanoseconds spent in an idle policy's timed sleeps (backoffs, dynamic quanta).
    sleep_ns,
    /// Timed sleeps this worker took (a sleep that did not start, because work was seen, is
    /// not counted).
    sleeps,
}

impl WorkerStats {
    /// The LCWS paper's profile of a worker (§3.3, §5.3), the columns every report of the
    /// counters shows (`magpie search --stats`, `magpie loop --stats`, `magpie-bench
    /// forkjoin --counters`), as `(name, value)` in this order:
    ///
    /// | name | value |
    /// |---|---|
    /// | `pushes` | [`pushes`](Self::pushes) |
    /// | `pops` | [`private_pops`](Self::private_pops) + [`public_pops`](Self::public_pops) |
    /// | `steals` | [`steals`](Self::steals) |
    /// | `failed` | failed steals: [`steal_attempts`](Self::steal_attempts) − [`steals`](Self::steals) |
    /// | `exp.req` | [`exposure_requests`](Self::exposure_requests) |
    /// | `signals` | [`signals_sent`](Self::signals_sent) |
    /// | `exposed` | [`tasks_exposed`](Self::tasks_exposed) |
    /// | `unstolen` | exposed tasks taken back by their owner: [`exposed_taken_back`](Self::exposed_taken_back) |
    /// | `fences` | [`fences`](Self::fences) |
    /// | `cas` | [`cas`](Self::cas) |
    ///
    /// Every task pushed is taken once, by its owner or a thief, so over a finished run the
    /// pool's `pushes` equal its `pops` plus its `steals`.
    ///
    /// ```
    /// use magpie::WorkerStats;
    ///
    /// let w = WorkerStats {
    ///     pushes: 10,
    ///     private_pops: 5,
    ///     public_pops: 2,
    ///     steal_attempts: 7,
    ///     steals: 3,
    ///     exposed_taken_back: 1,
    ///     ..WorkerStats::default()
    /// };
    /// let p = w.profile();
    /// assert_eq!(p[0], ("pushes", 10));
    /// assert_eq!(p[1], ("pops", 7));
    /// assert_eq!(p[2], ("steals", 3));
    /// assert_eq!(p[3], ("failed", 4));
    /// assert_eq!(p[7], ("unstolen", 1));
    /// assert_eq!(p.map(|(name, _)| name), magpie::WorkerStats::PROFILE);
    /// ```
    pub fn profile(&self) -> [(&'static str, u64); 10] {
        let values = [
            self.pushes,
            self.private_pops.wrapping_add(self.public_pops),
            self.steals,
            self.steal_attempts.saturating_sub(self.steals),
            self.exposure_requests,
            self.signals_sent,
            self.tasks_exposed,
            self.exposed_taken_back,
            self.fences,
            self.cas,
        ];
        let mut out = [("", 0); 10];
        for (o, (name, value)) in out.iter_mut().zip(Self::PROFILE.into_iter().zip(values)) {
            *o = (name, value);
        }
        out
    }

    /// The names of the [`profile`](Self::profile)'s columns, in its order.
    pub const PROFILE: [&'static str; 10] = [
        "pushes", "pops", "steals", "failed", "exp.req", "signals", "exposed", "unstolen",
        "fences", "cas",
    ];

    /// The profile as a text table: a heading line, one row per worker of `per_worker`
    /// (`  worker i`) and one for `total`, each cell right-aligned in 10 columns.
    ///
    /// ```
    /// use magpie::WorkerStats;
    ///
    /// let w = WorkerStats { pushes: 3, private_pops: 3, ..WorkerStats::default() };
    /// let table = WorkerStats::profile_table(&[w, WorkerStats::default()], &w);
    /// let lines: Vec<&str> = table.lines().collect();
    /// assert_eq!(lines.len(), 4);
    /// assert!(lines[0].starts_with("counters        pushes      pops"));
    /// assert!(lines[1].starts_with("  worker 0           3         3         0"));
    /// assert!(lines[3].starts_with("  total              3         3"));
    /// ```
    pub fn profile_table(per_worker: &[WorkerStats], total: &WorkerStats) -> String {
        use std::fmt::Write as _;
        let mut out = format!("{:<12}", "counters");
        for name in Self::PROFILE {
            let _ = write!(out, "{name:>10}");
        }
        out.push('\n');
        let mut row = |label: String, w: &WorkerStats| {
            let _ = write!(out, "{label:<12}");
            for (_, v) in w.profile() {
                let _ = write!(out, "{v:>10}");
            }
            out.push('\n');
        };
        for (i, w) in per_worker.iter().enumerate() {
            row(format!("  worker {i}"), w);
        }
        row("  total".to_string(), total);
        out
    }

    /// Time spent running stolen or injected work.
    pub fn busy(&self) -> Duration {
        Duration::from_nanos(self.busy_ns)
    }
    /// Time spent looking for work.
    pub fn idle(&self) -> Duration {
        Duration::from_nanos(self.idle_ns)
    }
    /// Time spent parked.
    pub fn parked(&self) -> Duration {
        Duration::from_nanos(self.parked_ns)
    }
}
