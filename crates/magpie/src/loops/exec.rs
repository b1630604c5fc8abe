//! Running a loop on the pool: participants, and fork-join splitting for `auto`.
//!
//! A loop on a pool of P workers starts P *participants* (a balanced tree of `join`s, so the
//! pool's thieves spread them); each takes chunks from the loop's [`Dispenser`] until it has
//! none (`dispense.rs` has how each schedule hands them out). `auto` is fork-join instead:
//! binary splitting down to a grain found by timing a doubling prefix (parlaylib's rule,
//! with about 50 µs of work per grain, and at least 128·P grains).
//!
//! Each participant calls [`crate::expose_work`] between chunks, so that participants still
//! queued behind a long chunk on an `lcws-user` deque reach idle workers.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;

use super::chunks::LoopHistory;
use super::dispense::{Dispenser, Plan};
use super::schedule::Schedule;
use crate::runtime::registry::WorkerThread;
use crate::trace::Recorder;

/// What one run of a loop did.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopStats {
    /// The schedule that ran (after resolving `runtime` and selectors).
    pub schedule: String,
    /// Wall-clock time of the parallel loop.
    pub time: Duration,
    /// Time each worker of the pool spent running the loop's body (index = worker index).
    pub busy: Vec<Duration>,
    /// Chunks handed out (steals included).
    pub chunks: u64,
    /// Successful steals (stealing schedules only).
    pub steals: u64,
}

impl LoopStats {
    /// The coefficient of variation of the workers' busy times (standard deviation / mean):
    /// the load-imbalance metric of the LB4OMP thesis. 0 for a perfectly balanced loop or
    /// fewer than two workers.
    ///
    /// ```
    /// use std::time::Duration;
    /// let s = magpie::loops::LoopStats {
    ///     schedule: "static".into(),
    ///     time: Duration::from_millis(4),
    ///     busy: vec![Duration::from_millis(1), Duration::from_millis(3)],
    ///     chunks: 2,
    ///     steals: 0,
    /// };
    /// assert!((s.cov() - 0.5).abs() < 1e-12);
    /// ```
    pub fn cov(&self) -> f64 {
        let n = self.busy.len();
        if n < 2 {
            return 0.0;
        }
        let xs: Vec<f64> = self.busy.iter().map(Duration::as_secs_f64).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        if mean == 0.0 {
            return 0.0;
        }
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
        var.sqrt() / mean
    }
}

/// Shared bookkeeping of one loop run: one cache line per worker, written by that worker
/// only (see [`Local`]), so that no two workers contend on a counter.
struct Tally {
    slots: Vec<CachePadded<Slot>>,
}

/// One worker's share of a [`Tally`].
#[derive(Default)]
struct Slot {
    busy_ns: AtomicU64,
    chunks: AtomicU64,
}

impl Tally {
    fn new(workers: usize) -> Self {
        Tally {
            slots: (0..workers).map(|_| CachePadded::default()).collect(),
        }
    }

    /// Runs one timed chunk outside any participant (auto's leaves); returns its ns.
    fn run(&self, body: &Body<'_>, p: usize, chunk: Range<usize>) -> u64 {
        Local::new(self).run(body, p, chunk)
    }

    fn sum(&self, field: impl Fn(&Slot) -> &AtomicU64) -> u64 {
        self.slots
            .iter()
            .map(|s| field(s).load(Ordering::Relaxed))
            .sum()
    }
}

/// One participant's counts, kept on its own stack and added to the [`Tally`] when it
/// ends (also on unwind), so that the chunks of a loop do not contend on shared counters.
///
/// A *timed* chunk reads the clock around the body (the adaptive rules need each chunk's
/// time); an *untimed* one does not, and the participant's busy time is then the span from
/// its first chunk's start to its last chunk's end, the scheduling between chunks included:
/// for a schedule whose chunks are a few iterations, two clock reads per chunk would cost
/// more than the scheduling itself.
struct Local<'a> {
    tally: &'a Tally,
    worker: usize,
    busy_ns: u64,
    chunks: u64,
    span: Option<Instant>,
    /// The current worker's trace recorder (none outside a pool).
    recorder: Option<&'a Recorder>,
}

impl<'a> Local<'a> {
    fn new(tally: &'a Tally) -> Self {
        Local {
            tally,
            worker: worker() % tally.slots.len(),
            busy_ns: 0,
            chunks: 0,
            span: None,
            recorder: current_recorder(),
        }
    }

    /// Runs `body` on `chunk`, recording the chunk's span when the pool is tracing.
    #[inline]
    fn call(&self, body: &Body<'_>, p: usize, chunk: Range<usize>) {
        match self.recorder {
            Some(r) if r.on() => {
                let t0 = r.now();
                body(p, chunk.clone());
                r.chunk(t0, r.now(), chunk);
            }
            _ => body(p, chunk),
        }
    }

    /// Runs `body` on `chunk` for participant `p`, timing it; returns the elapsed ns.
    fn run(&mut self, body: &Body<'_>, p: usize, chunk: Range<usize>) -> u64 {
        let start = Instant::now();
        self.call(body, p, chunk);
        let ns = start.elapsed().as_nanos() as u64;
        self.busy_ns += ns;
        self.chunks += 1;
        crate::expose_work();
        ns
    }

    /// Runs `body` on `chunk` for participant `p` without timing the chunk.
    #[inline]
    fn run_untimed(&mut self, body: &Body<'_>, p: usize, chunk: Range<usize>) {
        if self.span.is_none() {
            self.span = Some(Instant::now());
        }
        self.call(body, p, chunk);
        self.chunks += 1;
        crate::expose_work();
    }
}

impl Drop for Local<'_> {
    fn drop(&mut self) {
        if let Some(start) = self.span {
            self.busy_ns += start.elapsed().as_nanos() as u64;
        }
        let slot = &self.tally.slots[self.worker];
        slot.busy_ns.fetch_add(self.busy_ns, Ordering::Relaxed);
        slot.chunks.fetch_add(self.chunks, Ordering::Relaxed);
    }
}

/// The loop body as the drivers see it: participant index and a chunk of iterations.
pub(crate) type Body<'a> = dyn Fn(usize, Range<usize>) + Sync + 'a;

/// The current worker's trace recorder, if this thread is a worker. A [`Local`] lives on
/// the stack of a job its worker runs, so the worker outlives it.
fn current_recorder<'a>() -> Option<&'a Recorder> {
    // SAFETY: a non-null TLS pointer is this thread's live WorkerThread, which lives until
    // the thread leaves its main loop, after every job (and `Local`) on its stack is done.
    unsafe { WorkerThread::current().as_ref() }.map(WorkerThread::recorder)
}

/// The current worker's index (0 outside any pool).
fn worker() -> usize {
    crate::current_worker_index().unwrap_or(0)
}

/// Runs `f(0..p)` on `p` participants spread over the pool by a balanced tree of joins.
fn participants(lo: usize, hi: usize, f: &(dyn Fn(usize) + Sync)) {
    if hi - lo <= 1 {
        if hi > lo {
            // The joins above this leaf pushed the other participants so that idle workers
            // take them: publish them now, rather than when a thief asks and this worker
            // next touches its deque, which may be after a long first chunk.
            crate::runtime::expose_all_work();
            f(lo);
        }
        return;
    }
    let mid = lo + (hi - lo) / 2;
    crate::join(|| participants(lo, mid, f), || participants(mid, hi, f));
}

/// Runs `body` over `range` on the current pool with `plan`; `rule` for central queues.
pub(crate) fn drive(
    range: Range<usize>,
    plan: &Plan,
    schedule: &Schedule,
    history: &mut LoopHistory,
    body: &Body<'_>,
) -> LoopStats {
    let p = crate::current_num_workers().max(1);
    let tally = Tally::new(p);
    let start = Instant::now();
    let mut steals = 0;
    if !range.is_empty() {
        match plan {
            Plan::Auto => auto(range, p, &tally, body),
            _ => {
                let d = Dispenser::new(range, p, schedule, history);
                dispensed(&d, p, &tally, body);
                d.learn(history);
                steals = d.steals();
            }
        }
    }
    LoopStats {
        schedule: schedule.to_string(),
        time: start.elapsed(),
        busy: tally
            .slots
            .iter()
            .map(|s| Duration::from_nanos(s.busy_ns.load(Ordering::Relaxed)))
            .collect(),
        chunks: tally.sum(|s| &s.chunks),
        steals,
    }
}

/// Runs the participants of `d` on the pool, each taking its chunks until it has none.
fn dispensed(d: &Dispenser, p: usize, tally: &Tally, body: &Body<'_>) {
    let timed = d.timed();
    participants(0, d.active(), &|i| {
        let mut local = Local::new(tally);
        let mut cursor = d.cursor(i).with_worker(local.worker % p);
        while let Some(chunk) = d.next(&mut cursor) {
            if timed {
                local.run(body, i, chunk);
            } else {
                local.run_untimed(body, i, chunk);
            }
        }
    });
}

/// The work `auto` aims to put in one grain. A grain costs a join and its bookkeeping (a
/// few hundred ns when it is stolen), and the timed prefix may hit an expensive iteration
/// and under-estimate the grain: 50 µs keeps both to about a percent, while the cap of
/// `n/(128·P)` keeps short loops finely split. (With 1 µs, a loop of 0.4 µs iterations ran
/// 1.45× slower than the best schedule; with 10 µs, 1.06×; with 50 µs, 1.01×.)
const AUTO_GRAIN_NS: u64 = 50_000;

fn auto(range: Range<usize>, p: usize, tally: &Tally, body: &Body<'_>) {
    let n = range.len();
    // Time a doubling prefix until it takes about AUTO_GRAIN_NS (or a 128·P-th of the loop).
    let cap = (n / (128 * p)).max(1);
    let mut done = range.start;
    let mut k = 1usize;
    let mut grain = cap;
    while done < range.end {
        let hi = (done + k).min(range.end);
        let ns = tally.run(body, 0, done..hi);
        let len = hi - done;
        done = hi;
        if ns >= AUTO_GRAIN_NS || k >= cap {
            grain = ((len as u128 * u128::from(AUTO_GRAIN_NS) / u128::from(ns.max(1))) as usize)
                .clamp(1, cap);
            break;
        }
        k *= 2;
    }
    split(done..range.end, grain, tally, body);
}

fn split(range: Range<usize>, grain: usize, tally: &Tally, body: &Body<'_>) {
    if range.len() <= grain {
        if !range.is_empty() {
            tally.run(body, 0, range);
        }
        return;
    }
    let mid = range.start + range.len() / 2;
    crate::join(
        || split(range.start..mid, grain, tally, body),
        || split(mid..range.end, grain, tally, body),
    );
}
