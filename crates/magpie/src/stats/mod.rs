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

        impl WorkerStats {
            /// The counters as `(name, value)` pairs, in declaration order (for tables and JSON).
            pub fn fields(&self) -> Vec<(&'static str, u64)> {
                vec![ $( (stringify!($name), self.$name), )* ]
            }
        }
    };
}

worker_counters! {
    /// Jobs this worker executed (popped from its own deque, stolen, or injected).
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
