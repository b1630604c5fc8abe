//! Running a loop: participants, the central queue, the stealing queues, fork-join splitting.
//!
//! A loop on a pool of P workers starts P *participants* (a balanced tree of `join`s, so the
//! pool's thieves spread them). What a participant does depends on the schedule:
//! - **central queue** (SS, GSS, TSS, FAC, FAC2, WF, AWF*, AF): lock the loop's counter, ask
//!   the [`ChunkRule`] for the next chunk's size, take it, unlock, run it, report its time;
//!   until the counter reaches the end. SS and mFAC take no lock: SS adds its fixed chunk to
//!   an atomic counter of iterations, mFAC adds one to an atomic counter of chunk numbers and
//!   computes the chunk's place and size from its number ([`super::chunks::Batches`]).
//! - **static**: participant p runs block p (or, with a chunk, chunks p, p + P, p + 2P, …).
//! - **stealing** (static-steal, rws, laws): participant p owns an even block and takes
//!   chunks from its low end; once it is empty it steals part of another participant's
//!   remaining range from the upper end (under that range's lock), makes it its own and
//!   goes on; it stops when a whole pass over the victims finds nothing.
//! - **auto**: binary fork-join splitting down to a grain found by timing a doubling prefix
//!   (parlaylib's rule, with about 50 µs of work per grain, and at least 128·P grains).
//!
//! Each participant calls [`crate::expose_work`] between chunks, so that participants still
//! queued behind a long chunk on an `lcws-user` deque reach idle workers.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;

use super::chunks::{central_rule, ChunkRule, LoopHistory, LoopShape};
use super::schedule::{Schedule, StealAmount};
use crate::policy::XorShift64Star;
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
    steals: AtomicU64,
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
    steals: u64,
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
            steals: 0,
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
        slot.steals.fetch_add(self.steals, Ordering::Relaxed);
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

/// How a schedule runs, resolved from a [`Schedule`].
pub(crate) enum Plan {
    /// A central queue whose chunks a rule sizes.
    Central,
    /// Even blocks, one per participant.
    StaticBlock,
    /// Chunks of `chunk` dealt round-robin to participants.
    BlockCyclic { chunk: usize },
    /// Owned blocks plus stealing.
    Stealing(StealPlan),
    /// Fork-join splitting with an automatic grain.
    Auto,
}

/// Which victims a stealing schedule tries, and how much it takes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StealPlan {
    /// The victim order.
    pub(crate) victims: VictimOrder,
    /// How much of a victim's remaining range a steal takes (among the pool's workers);
    /// `None`: LLVM's static_steal rule, a quarter (rounded down, at least one), only from a
    /// victim with at least two of its chunks left.
    pub(crate) amount: Option<StealAmount>,
    /// The chunk an owner takes from its own range at a time (0: automatic).
    pub(crate) owner_chunk: usize,
}

/// The victim order of a stealing schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VictimOrder {
    /// LLVM's static_steal: round-robin starting from the last victim.
    RoundRobin,
    /// Random, a victim found empty excluded for the rest of the search (weight 0).
    Random,
    /// As `Random`, but victims on the thief's NUMA node (then socket) first.
    Local,
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
    let n = range.len();
    if n > 0 {
        match plan {
            Plan::Central => {
                let shape = LoopShape {
                    iterations: n as u64,
                    workers: p,
                };
                match central_rule(schedule, shape, history) {
                    Some(rule) => {
                        let mut rule = central(range.clone(), p, rule, &tally, body);
                        rule.finish(history);
                    }
                    None => static_block(range.clone(), p, &tally, body),
                }
            }
            Plan::StaticBlock => static_block(range.clone(), p, &tally, body),
            Plan::BlockCyclic { chunk } => block_cyclic(range.clone(), p, *chunk, &tally, body),
            Plan::Stealing(s) => stealing(range.clone(), p, *s, &tally, body),
            Plan::Auto => auto(range.clone(), p, &tally, body),
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
        steals: tally.sum(|s| &s.steals),
    }
}

fn static_block(range: Range<usize>, p: usize, tally: &Tally, body: &Body<'_>) {
    let n = range.len();
    participants(0, p.min(n), &|i| {
        let k = p.min(n);
        let lo = range.start + i * n / k;
        let hi = range.start + (i + 1) * n / k;
        if lo < hi {
            Local::new(tally).run_untimed(body, i, lo..hi);
        }
    });
}

fn block_cyclic(range: Range<usize>, p: usize, chunk: usize, tally: &Tally, body: &Body<'_>) {
    let chunk = chunk.max(1);
    let chunks = range.len().div_ceil(chunk);
    participants(0, p.min(chunks), &|i| {
        let mut local = Local::new(tally);
        let mut c = i;
        while c < chunks {
            let lo = range.start + c * chunk;
            let hi = (lo + chunk).min(range.end);
            local.run_untimed(body, i, lo..hi);
            c += p;
        }
    });
}

/// The central queue: the next unassigned iteration and the rule that sizes chunks.
struct Queue {
    next: usize,
    rule: Box<dyn ChunkRule>,
}

fn central(
    range: Range<usize>,
    p: usize,
    rule: Box<dyn ChunkRule>,
    tally: &Tally,
    body: &Body<'_>,
) -> Box<dyn ChunkRule> {
    if let Some(k) = rule.fixed_chunk() {
        let k = usize::try_from(k).unwrap_or(usize::MAX).max(1);
        // `fetch_add` may carry the counter up to `P` chunks past the end: only when that
        // cannot overflow.
        if range.end.checked_add(k.saturating_mul(p)).is_some() {
            fixed(range, p, k, tally, body);
            return rule;
        }
    }
    let timed = rule.wants_timing();
    if let Some(plan) = rule.batches() {
        let mut rule = rule;
        for (w, iterations, ns) in numbered(range, p, &plan, timed, tally, body) {
            rule.chunk_done(w, iterations, ns);
        }
        return rule;
    }
    let queue = Mutex::new(Queue {
        next: range.start,
        rule,
    });
    let lock = || queue.lock().unwrap_or_else(|e| e.into_inner());
    participants(0, p, &|i| {
        let mut local = Local::new(tally);
        let w = local.worker % p;
        loop {
            let chunk = {
                let mut q = lock();
                if q.next >= range.end {
                    break;
                }
                let remaining = (range.end - q.next) as u64;
                let size = q.rule.next_chunk(w, remaining).clamp(1, remaining) as usize;
                let lo = q.next;
                q.next += size;
                lo..lo + size
            };
            if timed {
                let iterations = chunk.len() as u64;
                let ns = local.run(body, i, chunk);
                lock().rule.chunk_done(w, iterations, ns);
            } else {
                local.run_untimed(body, i, chunk);
            }
        }
    });
    queue.into_inner().unwrap_or_else(|e| e.into_inner()).rule
}

/// The central queue of a fixed chunk size `k` (SS): one `fetch_add` per chunk, no lock,
/// as OpenMP's `dynamic,k`.
fn fixed(range: Range<usize>, p: usize, k: usize, tally: &Tally, body: &Body<'_>) {
    let next = AtomicUsize::new(range.start);
    participants(0, p, &|i| {
        let mut local = Local::new(tally);
        loop {
            let lo = next.fetch_add(k, Ordering::Relaxed);
            if lo >= range.end {
                break;
            }
            local.run_untimed(body, i, lo..(lo + k).min(range.end));
        }
    });
}

/// The central queue of mFAC: one `fetch_add` on the chunk *number* per chunk, no lock; each
/// participant sizes and places its chunks from its own copy of `plan` (the redundant
/// calculation of LB4OMP's `faca`). Returns, if `timed`, every chunk's worker, iterations and
/// time, for the rule to learn from after the loop.
fn numbered(
    range: Range<usize>,
    p: usize,
    plan: &super::chunks::Batches,
    timed: bool,
    tally: &Tally,
    body: &Body<'_>,
) -> Vec<(usize, u64, u64)> {
    let next = AtomicU64::new(0);
    let log = Mutex::new(Vec::new());
    participants(0, p, &|i| {
        let mut local = Local::new(tally);
        let w = local.worker % p;
        let mut plan = plan.clone();
        let mut mine = Vec::new();
        loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            let Some((offset, len)) = plan.chunk(k) else {
                break;
            };
            // Both fit in usize: they lie within `range`.
            let lo = range.start + offset as usize;
            let chunk = lo..lo + len as usize;
            if timed {
                let ns = local.run(body, i, chunk);
                mine.push((w, len, ns));
            } else {
                local.run_untimed(body, i, chunk);
            }
        }
        if !mine.is_empty() {
            log.lock().unwrap_or_else(|e| e.into_inner()).extend(mine);
        }
    });
    log.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// One participant's remaining iterations, shared with thieves.
struct Owned(Mutex<Range<usize>>);

impl Owned {
    fn lock(&self) -> std::sync::MutexGuard<'_, Range<usize>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn stealing(range: Range<usize>, p: usize, plan: StealPlan, tally: &Tally, body: &Body<'_>) {
    let n = range.len();
    let k = p.min(n);
    let owned: Vec<Owned> = (0..k)
        .map(|i| {
            let lo = range.start + i * n / k;
            let hi = range.start + (i + 1) * n / k;
            Owned(Mutex::new(lo..hi))
        })
        .collect();
    let owner_chunk = if plan.owner_chunk > 0 {
        plan.owner_chunk
    } else {
        // About 64 chunks per block: small enough that most of a block stays stealable.
        (n / (k * 64)).max(1)
    };
    let order = victim_order(plan.victims, k);
    participants(0, k, &|i| {
        let mut local = Local::new(tally);
        let mut rng = XorShift64Star::new(i as u64 ^ 0x6c6f_6f70);
        let mut last_victim = (i + 1) % k;
        loop {
            // Drain our own range, a chunk at a time, from its low end.
            loop {
                let chunk = {
                    let mut own = owned[i].lock();
                    if own.is_empty() {
                        break;
                    }
                    let hi = (own.start + owner_chunk).min(own.end);
                    let c = own.start..hi;
                    own.start = hi;
                    c
                };
                local.run_untimed(body, i, chunk);
            }
            // Steal part of someone else's.
            let Some((victim, stolen)) =
                steal_once(i, k, &owned, plan, &order, &mut rng, &mut last_victim)
            else {
                return;
            };
            local.steals += 1;
            last_victim = victim;
            *owned[i].lock() = stolen;
        }
    });
}

/// Victims grouped by preference, per thief: `Local` puts the thief's NUMA node first.
fn victim_order(order: VictimOrder, k: usize) -> Vec<Vec<Vec<usize>>> {
    let tiers = |thief: usize| -> Vec<Vec<usize>> {
        let others: Vec<usize> = (0..k).filter(|&v| v != thief).collect();
        if order != VictimOrder::Local {
            return vec![others];
        }
        let topo = topology();
        let cpus = topo.worker_cpus(k);
        let node = |w: usize| topo.node(cpus[w]);
        let (near, far): (Vec<usize>, Vec<usize>) =
            others.into_iter().partition(|&v| node(v) == node(thief));
        vec![near, far]
    };
    (0..k).map(tiers).collect()
}

fn topology() -> &'static crate::policy::Topology {
    static TOPOLOGY: std::sync::OnceLock<crate::policy::Topology> = std::sync::OnceLock::new();
    TOPOLOGY.get_or_init(crate::policy::Topology::detect)
}

/// One search for a victim with work; returns the victim and the range taken from it.
fn steal_once(
    thief: usize,
    k: usize,
    owned: &[Owned],
    plan: StealPlan,
    order: &[Vec<Vec<usize>>],
    rng: &mut XorShift64Star,
    last_victim: &mut usize,
) -> Option<(usize, Range<usize>)> {
    let take = |v: usize| -> Option<Range<usize>> {
        let mut r = owned[v].lock();
        let left = r.len();
        let amount = match plan.amount {
            None => {
                if left < 2 * plan.owner_chunk.max(1) {
                    return None;
                }
                (left / 4).max(1)
            }
            Some(amount) => amount.of(left, k),
        };
        if amount == 0 {
            return None;
        }
        let cut = r.end - amount;
        let stolen = cut..r.end;
        r.end = cut;
        Some(stolen)
    };
    match plan.victims {
        VictimOrder::RoundRobin => {
            // From the last victim on, once round.
            for step in 0..k {
                let v = (*last_victim + step) % k;
                if v != thief {
                    if let Some(r) = take(v) {
                        return Some((v, r));
                    }
                }
            }
            let _ = rng;
            None
        }
        VictimOrder::Random | VictimOrder::Local => {
            for tier in &order[thief] {
                // Random order within the tier; a victim found empty gets weight zero for
                // the rest of this search (ranges only shrink, or are refilled by their
                // owner's own steals, which that owner then runs itself).
                let mut left: Vec<usize> = tier.clone();
                while !left.is_empty() {
                    let j = rng.below(left.len());
                    let v = left.swap_remove(j);
                    if let Some(r) = take(v) {
                        return Some((v, r));
                    }
                }
            }
            None
        }
    }
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
