//! Chunk-size rules of the central-queue schedules (SS, GSS, TSS, FAC, FAC2, mFAC, WF, AWF,
//! AWF-B…E, AF): every worker takes its next chunk from one shared counter, and a
//! [`ChunkRule`] decides how many iterations that chunk holds.
//!
//! Notation: `N` iterations, `P` workers, `R` iterations remaining when a chunk is asked for,
//! `R_b` the remainder at the start of a batch (a batch is `P` consecutive chunk requests).
//! Every rule clamps its result to `max(chunk, min_chunk)` and then to `R`, so every chunk is
//! in `1..=R` and the chunks of a loop add up to exactly `N`.
//!
//! | schedule | chunk | source |
//! |---|---|---|
//! | `ss,k` | `k` | pure self-scheduling (Tang & Yew 1986) |
//! | `gss,m` | `max(⌈R/P⌉, m)` | Polychronopoulos & Kuck 1987 |
//! | `tss,L`, `tss,F:L` | `F − i·δ`, rounded half up, never below `L`; `F = ⌈N/(2P)⌉` unless given, `C = ⌈2N/(F+L)⌉`, `δ = (F−L)/(C−1)` | Tzen & Ni 1993 |
//! | `fac2` | `⌈R_b/(2P)⌉` for the `P` chunks of a batch | Hummel, Schonberg & Flynn 1992 (practical form) |
//! | `fac` | `⌈R_b/(x_b·P)⌉` with `x_0 = 1 + b² + b·√(b²+2)`, `x_b = 2 + b² + b·√(b²+4)`, `b = P·σ/(2μ·√R_b)` | Hummel, Schonberg & Flynn 1992 |
//! | `mfac` | as `fac`, but `R_b` is the planned remainder `N − Σ_{j<b} P·c_j` and chunk number `k` lies in batch `⌊k/P⌋`: every worker computes its chunk from its number alone ([`Batches`]) | LB4OMP's `faca` (Korndörfer et al. 2022) |
//! | `wf` | `⌈w_i · R_b/(2P)⌉`, weights normalised to mean 1 | Flynn Hummel, Banicescu, Wang & Lieber 1996 |
//! | `awf` | as `wf`, weights from the history of earlier calls | Banicescu, Velusamy & Devaprasad 2003 |
//! | `awf-b`, `awf-d` | as `wf`, weights re-measured at every batch start | Cariño & Banicescu 2008 |
//! | `awf-c`, `awf-e` | `⌈w_i · R/(2P)⌉`, weights re-measured at every chunk | Cariño & Banicescu 2008 |
//! | `af` | `(D + 2ER − √(D² + 4DER)) / (2μ_i)`, `D = Σ σ_j²/μ_j`, `E = (Σ 1/μ_j)⁻¹` | Banicescu & Liu 2000 |
//!
//! `static` (in both forms), `static-steal`, `rws`, `laws`, `auto`, `runtime` and the
//! selectors have no central rule ([`central_rule`] returns `None`): the executor splits
//! `static` blocks (one per worker, or block-cyclic chunks of `k`) itself.
//!
//! The rules are public for loop executors of your own (magpie-mpi's distributed loops size
//! their chunks with them): ask [`central_rule`] for a schedule's rule and call
//! [`ChunkRule::next_chunk`] with what remains.
//!
//! ```
//! use magpie::loops::{central_rule, LoopHistory, LoopShape, Schedule};
//!
//! let shape = LoopShape { iterations: 100, workers: 2 };
//! let fac2: Schedule = "fac2".parse().unwrap();
//! let mut rule = central_rule(&fac2, shape, &LoopHistory::default()).unwrap();
//! let mut remaining = shape.iterations;
//! let mut chunks = Vec::new();
//! while remaining > 0 {
//!     let chunk = rule.next_chunk(0, remaining);
//!     chunks.push(chunk);
//!     remaining -= chunk;
//! }
//! assert_eq!(chunks, [25, 25, 13, 13, 6, 6, 3, 3, 2, 2, 1, 1]);
//! let rws: Schedule = "rws".parse().unwrap();
//! assert!(central_rule(&rws, shape, &LoopHistory::default()).is_none());
//! ```

use super::schedule::Schedule;
use std::time::Instant;

/// What a chunk rule knows about the loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopShape {
    /// The number of iterations `N` of the loop.
    pub iterations: u64,
    /// The number of workers `P` that take chunks (at least 1).
    pub workers: usize,
}

/// Sizes the chunks a central queue hands out (called under the queue's lock, so `&mut self`).
pub trait ChunkRule: Send {
    /// The next chunk for `worker` (< shape.workers) when `remaining` (> 0) iterations are
    /// left: 1..=remaining.
    fn next_chunk(&mut self, worker: usize, remaining: u64) -> u64;
    /// Timing feedback: `worker` finished `iterations` iterations in `elapsed_ns`. Default:
    /// ignore.
    fn chunk_done(&mut self, _worker: usize, _iterations: u64, _elapsed_ns: u64) {}
    /// The loop ended: record what an adaptive rule learned, for the next call of the same
    /// loop.
    fn finish(&mut self, _history: &mut LoopHistory) {}
    /// `Some(k)` if every chunk is `k` iterations whoever asks (SS): the executor then hands
    /// chunks out with an atomic counter instead of calling the rule under a lock.
    fn fixed_chunk(&self) -> Option<u64> {
        None
    }
    /// Whether the rule uses [`ChunkRule::chunk_done`]: if not, the executor does not time
    /// chunks one by one. Default: true.
    fn wants_timing(&self) -> bool {
        true
    }
}

/// The mean and standard deviation of the execution time of one iteration, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeStats {
    /// Mean time of one iteration (ns), `μ`.
    pub mean_ns: f64,
    /// Standard deviation of the time of one iteration (ns), `σ`.
    pub std_dev_ns: f64,
}

/// What a loop remembers between its calls (time steps). `Default` = nothing learned.
///
/// Vectors are indexed by worker; a worker beyond a vector's length (or with `None`) is
/// unknown and is given the mean of the known workers.
#[derive(Debug, Clone, Default)]
pub struct LoopHistory {
    /// How many calls of the loop an adaptive rule has recorded here.
    pub calls: u64,
    /// Relative worker speeds (iterations per unit of time), normalised to mean 1; written by
    /// AWF and AWF-B…E, read by all of them as starting weights. Empty: all equal.
    pub weights: Vec<f64>,
    /// AWF: `Σ_s s·t_{i,s}`, the time (ns) worker `i` spent on iterations in call `s`, weighted
    /// by the call's number `s` (1, 2, …) so that recent calls count more.
    pub weighted_time_ns: Vec<f64>,
    /// AWF: `Σ_s s·n_{i,s}`, the iterations worker `i` ran in call `s`, weighted alike.
    pub weighted_iterations: Vec<f64>,
    /// FAC: `μ` and `σ` of one iteration's time over all workers, from the last call.
    pub iteration_ns: Option<TimeStats>,
    /// AF: `μ_i` and `σ_i` of one iteration's time per worker, from the last call.
    pub worker_iteration_ns: Vec<Option<TimeStats>>,
}

/// The central-queue rule of `schedule`, or None for schedules that do not use a central
/// queue (static without or with a chunk, static-steal, rws, laws, auto, runtime, the
/// selectors).
pub fn central_rule(
    schedule: &Schedule,
    shape: LoopShape,
    history: &LoopHistory,
) -> Option<Box<dyn ChunkRule>> {
    let p = shape.workers.max(1);
    let rule: Box<dyn ChunkRule> = match schedule {
        Schedule::Ss { chunk } => Box::new(Fixed { chunk: *chunk }),
        Schedule::Gss { min_chunk } => Box::new(Guided {
            p: p as u64,
            min: *min_chunk,
        }),
        Schedule::Tss {
            first_chunk,
            last_chunk,
        } => Box::new(Trapezoid::new(
            shape.iterations,
            p,
            *first_chunk,
            *last_chunk,
        )),
        Schedule::Fac2 { min_chunk } => Box::new(Factoring::new(p, *min_chunk, None)),
        Schedule::Mfac { .. } => Box::new(ModifiedFactoring {
            batches: numbered_plan(schedule, shape, history)?,
            next: 0,
            measured: Stats::default(),
        }),
        Schedule::Fac { min_chunk } => {
            Box::new(Factoring::new(p, *min_chunk, history.iteration_ns).learning())
        }
        Schedule::Wf { weights } => Box::new(Weighted::new(
            p,
            1,
            normalise(&cycle(weights, p)),
            Adapt::Never,
        )),
        Schedule::Awf { min_chunk } => Box::new(Weighted::new(
            p,
            *min_chunk,
            start_weights(history, p),
            Adapt::Never,
        )),
        Schedule::AwfB { min_chunk } | Schedule::AwfD { min_chunk } => Box::new(Weighted::new(
            p,
            *min_chunk,
            start_weights(history, p),
            Adapt::PerBatch,
        )),
        Schedule::AwfC { min_chunk } | Schedule::AwfE { min_chunk } => Box::new(Weighted::new(
            p,
            *min_chunk,
            start_weights(history, p),
            Adapt::PerChunk,
        )),
        Schedule::Af { min_chunk } => Box::new(Adaptive::new(p, *min_chunk, history)),
        Schedule::Static { .. }
        | Schedule::StaticSteal { .. }
        | Schedule::Rws { .. }
        | Schedule::Laws { .. }
        | Schedule::Auto
        | Schedule::Runtime
        | Schedule::RandomSel
        | Schedule::ExhaustiveSel
        | Schedule::BinarySel
        | Schedule::ExpertSel => return None,
    };
    // AWF-D and AWF-E count the scheduling overhead in the time they measure.
    if matches!(schedule, Schedule::AwfD { .. } | Schedule::AwfE { .. }) {
        return Some(Box::new(WithOverhead::new(
            rule,
            p,
            Box::new(monotonic_ns()),
        )));
    }
    Some(rule)
}

/// The plan of a schedule whose chunks follow from their number alone (mFAC): the
/// dispenser then hands out chunk *numbers* with an atomic counter, each worker sizing its
/// chunks from its own copy of the plan, instead of calling the rule under a lock; the
/// timings it measured reach the rule's [`ChunkRule::chunk_done`] after the loop. None for
/// every other schedule.
pub(crate) fn numbered_plan(
    schedule: &Schedule,
    shape: LoopShape,
    history: &LoopHistory,
) -> Option<Batches> {
    match schedule {
        Schedule::Mfac { min_chunk } => Some(Batches::new(
            shape.iterations,
            shape.workers,
            *min_chunk,
            history.iteration_ns,
        )),
        _ => None,
    }
}

/// The final clamp every rule applies: at least `min` (and 1), at most `remaining`.
fn fit(chunk: u64, min: u64, remaining: u64) -> u64 {
    chunk.max(min).max(1).min(remaining)
}

/// `⌈x⌉` of a non-negative float as a chunk (NaN or negative gives 0, clamped later). A
/// relative slack of 1e-9 keeps rounding noise (e.g. `0.4 × 250 = 100.00000000000001`) from
/// adding an iteration.
fn ceil_u64(x: f64) -> u64 {
    if x.is_finite() && x > 0.0 {
        (x * (1.0 - 1e-9)).ceil() as u64
    } else {
        0
    }
}

/// `values` repeated cyclically to length `p`; all ones if `values` is empty.
fn cycle(values: &[f64], p: usize) -> Vec<f64> {
    if values.is_empty() {
        vec![1.0; p]
    } else {
        (0..p).map(|i| values[i % values.len()]).collect()
    }
}

/// Scales positive weights to mean 1 (non-positive or non-finite ones count as the mean of
/// the others; all equal if none is usable).
fn normalise(weights: &[f64]) -> Vec<f64> {
    fill_unknown(
        &weights
            .iter()
            .map(|&w| (w.is_finite() && w > 0.0).then_some(w))
            .collect::<Vec<_>>(),
    )
}

/// Per-worker positive values (e.g. rates), unknown ones replaced by the mean of the known,
/// scaled to mean 1.
fn fill_unknown(values: &[Option<f64>]) -> Vec<f64> {
    let known: Vec<f64> = values.iter().flatten().copied().collect();
    if known.is_empty() {
        return vec![1.0; values.len()];
    }
    let fill = known.iter().sum::<f64>() / known.len() as f64;
    let full: Vec<f64> = values.iter().map(|v| v.unwrap_or(fill)).collect();
    let mean = full.iter().sum::<f64>() / full.len() as f64;
    full.iter().map(|v| v / mean).collect()
}

/// The starting weights of AWF*: the history's, else all equal.
fn start_weights(history: &LoopHistory, p: usize) -> Vec<f64> {
    let known: Vec<Option<f64>> = (0..p).map(|i| history.weights.get(i).copied()).collect();
    normalise(&known.iter().map(|w| w.unwrap_or(0.0)).collect::<Vec<_>>())
}

/// A monotonic clock in nanoseconds since its creation.
fn monotonic_ns() -> impl FnMut() -> u64 + Send {
    let start = Instant::now();
    move || u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// Running sums over the chunks one worker (or all) ran, to estimate the mean `μ` and
/// standard deviation `σ` of one iteration's time.
///
/// A chunk of `n` iterations taking `t` has mean `a = t/n`, whose variance is `σ²/n`, so
/// `σ² ≈ Σ n_k (a_k − μ)² / (K − 1)` over `K` chunks with `μ = Σt/Σn`;
/// `Σ n_k (a_k − μ)² = Σ t_k²/n_k − μ·Σ t_k`.
#[derive(Debug, Clone, Copy, Default)]
struct Stats {
    chunks: u64,
    iterations: f64,
    time_ns: f64,
    t2_over_n: f64,
}

impl Stats {
    fn add(&mut self, iterations: u64, elapsed_ns: u64) {
        if iterations == 0 {
            return;
        }
        let (n, t) = (iterations as f64, elapsed_ns as f64);
        self.chunks += 1;
        self.iterations += n;
        self.time_ns += t;
        self.t2_over_n += t * t / n;
    }

    /// Iterations per nanosecond, if any time was measured.
    fn rate(&self) -> Option<f64> {
        (self.time_ns > 0.0).then(|| self.iterations / self.time_ns)
    }

    /// `μ` and `σ`, once there are at least two chunks with a positive mean.
    fn estimate(&self) -> Option<TimeStats> {
        if self.chunks < 2 || self.time_ns <= 0.0 {
            return None;
        }
        let mean = self.time_ns / self.iterations;
        let var = ((self.t2_over_n - mean * self.time_ns) / (self.chunks - 1) as f64).max(0.0);
        Some(TimeStats {
            mean_ns: mean,
            std_dev_ns: var.sqrt(),
        })
    }
}

/// SS: fixed chunks of `k`.
struct Fixed {
    chunk: u64,
}

impl ChunkRule for Fixed {
    fn next_chunk(&mut self, _worker: usize, remaining: u64) -> u64 {
        fit(self.chunk, 1, remaining)
    }
    fn fixed_chunk(&self) -> Option<u64> {
        Some(self.chunk.max(1))
    }
    fn wants_timing(&self) -> bool {
        false
    }
}

/// GSS (Polychronopoulos & Kuck 1987): `max(⌈R/P⌉, min)`.
struct Guided {
    p: u64,
    min: u64,
}

impl ChunkRule for Guided {
    fn next_chunk(&mut self, _worker: usize, remaining: u64) -> u64 {
        fit(remaining.div_ceil(self.p), self.min, remaining)
    }
    fn wants_timing(&self) -> bool {
        false
    }
}

/// TSS (Tzen & Ni 1993): first chunk `F = ⌈N/(2P)⌉` unless the expert gives it (at least
/// `L` either way), last `L`, `C = ⌈2N/(F+L)⌉`
/// chunks decreasing by `δ = (F−L)/(C−1)`. Chunk `i` is `F − i·δ` rounded half up, computed
/// exactly in integers as `⌊(2F(C−1) − 2i(F−L) + (C−1)) / (2(C−1))⌋`; from `i = C−1` on (and
/// if rounding leaves iterations after the `C` planned chunks) it is `L`.
struct Trapezoid {
    first: u64,
    last: u64,
    count: u64,
    index: u64,
}

impl Trapezoid {
    fn new(n: u64, p: usize, first: Option<u64>, last: u64) -> Self {
        let first = first.unwrap_or_else(|| n.div_ceil(2 * p as u64)).max(last);
        // In u128: `2N` and `F + L` may not fit in u64.
        let count = (2 * n as u128)
            .div_ceil(first as u128 + last as u128)
            .max(1) as u64;
        Trapezoid {
            first,
            last,
            count,
            index: 0,
        }
    }
}

impl ChunkRule for Trapezoid {
    fn next_chunk(&mut self, _worker: usize, remaining: u64) -> u64 {
        let (f, l, i) = (self.first as u128, self.last as u128, self.index as u128);
        let den = (self.count - 1) as u128;
        let chunk = if den == 0 || i >= den {
            l
        } else {
            (2 * f * den - 2 * i * (f - l) + den) / (2 * den)
        };
        self.index += 1;
        fit(chunk as u64, self.last, remaining)
    }
    fn wants_timing(&self) -> bool {
        false
    }
}

/// FAC2 and FAC (Hummel, Schonberg & Flynn 1992). Batches of `P` chunks, each of
/// `⌈R_b/(x_b·P)⌉`. FAC2 takes `x_b = 2`. FAC, given `μ` and `σ` of an iteration's time (from
/// the history's [`LoopHistory::iteration_ns`]), takes `b = P·σ/(2μ√R_b)`,
/// `x_0 = 1 + b² + b√(b²+2)` for the first batch and `x_b = 2 + b² + b√(b²+4)` after; with no
/// history it is FAC2. FAC measures iteration times during the call and stores them in the
/// history on `finish`.
struct Factoring {
    p: usize,
    min: u64,
    known: Option<TimeStats>,
    batch_left: usize,
    batch_chunk: u64,
    first_batch: bool,
    measured: Option<Stats>,
}

impl Factoring {
    fn new(p: usize, min: u64, known: Option<TimeStats>) -> Self {
        Factoring {
            p,
            min,
            known: usable(known),
            batch_left: 0,
            batch_chunk: 0,
            first_batch: true,
            // FAC2 learns nothing; FAC learns `μ` and `σ` for its next call.
            measured: None,
        }
    }

    fn learning(mut self) -> Self {
        self.measured = Some(Stats::default());
        self
    }
}

/// Only statistics a factoring rule can use: a positive mean and a finite deviation.
fn usable(known: Option<TimeStats>) -> Option<TimeStats> {
    known.filter(|k| k.mean_ns > 0.0 && k.std_dev_ns.is_finite())
}

/// The chunk of every request of a factoring batch that starts with `r_b` iterations left:
/// `⌈R_b/(x_b·P)⌉` with FAC's `x_b` (see [`Factoring`]) from `known`, or FAC2's `x_b = 2`
/// (exact integers) without. Not yet clamped to the minimum chunk.
fn factoring_chunk(p: usize, known: Option<TimeStats>, r_b: u64, first_batch: bool) -> u64 {
    match known {
        None => r_b.div_ceil(2 * p as u64),
        Some(TimeStats {
            mean_ns,
            std_dev_ns,
        }) => {
            let b = p as f64 * std_dev_ns / (2.0 * mean_ns * (r_b as f64).sqrt());
            let x = if first_batch {
                1.0 + b * b + b * (b * b + 2.0).sqrt()
            } else {
                2.0 + b * b + b * (b * b + 4.0).sqrt()
            };
            if x == 2.0 {
                r_b.div_ceil(2 * p as u64)
            } else {
                ceil_u64(r_b as f64 / (x * p as f64))
            }
        }
    }
}

impl ChunkRule for Factoring {
    fn next_chunk(&mut self, _worker: usize, remaining: u64) -> u64 {
        if self.batch_left == 0 {
            self.batch_chunk = factoring_chunk(self.p, self.known, remaining, self.first_batch);
            self.batch_left = self.p;
            self.first_batch = false;
        }
        self.batch_left -= 1;
        fit(self.batch_chunk, self.min, remaining)
    }

    fn wants_timing(&self) -> bool {
        self.measured.is_some()
    }

    fn chunk_done(&mut self, _worker: usize, iterations: u64, elapsed_ns: u64) {
        if let Some(m) = &mut self.measured {
            m.add(iterations, elapsed_ns);
        }
    }

    fn finish(&mut self, history: &mut LoopHistory) {
        if let Some(est) = self.measured.and_then(|m| m.estimate()) {
            history.iteration_ns = Some(est);
            history.calls += 1;
        }
    }
}

/// mFAC's chunks by number (LB4OMP's `faca`, "factoring with redundant chunk
/// calculation"): the place and size of chunk number `k` of a loop of `N` iterations on `P`
/// workers, computed from `k` alone, so that workers need one shared atomic counter of chunk
/// numbers and no lock (FAC keeps the remainder and the batch under the queue's lock).
///
/// Chunk `k` belongs to batch `b = ⌊k/P⌋`, at position `k mod P`. Batch `b` starts after
/// `S_b` iterations (`S_0 = 0`) with the planned remainder `R_b = N − S_b`; its chunks are
/// `c_b = max(⌈R_b/(x_b·P)⌉, m)` (FAC's `x_b` from the learned `μ`, `σ`, or FAC2's 2) and
/// `S_{b+1} = S_b + P·c_b`. Chunk `k` is `[S_b + (k mod P)·c_b, … + c_b)`, cut at `N`; none
/// if it starts at or after `N`. Each worker keeps its own `Batches` and walks it forward
/// (its chunk numbers only grow), recomputing what the others compute: the redundant
/// calculation that replaces the lock.
#[derive(Debug, Clone)]
pub(crate) struct Batches {
    n: u64,
    p: u64,
    min: u64,
    known: Option<TimeStats>,
    /// The batch the cursor is at, the iterations before it (`S_b`) and its chunk (`c_b`).
    batch: u64,
    start: u64,
    chunk: u64,
}

impl Batches {
    /// The batches of a loop of `n` iterations on `p` workers (at least 1) with the minimum
    /// chunk `min`, sized by FAC from `known` (`μ`, `σ` of an iteration's time) or by FAC2
    /// without.
    pub(crate) fn new(n: u64, p: usize, min: u64, known: Option<TimeStats>) -> Self {
        let p = p.max(1);
        let known = usable(known);
        Batches {
            n,
            p: p as u64,
            min: min.max(1),
            known,
            batch: 0,
            start: 0,
            chunk: factoring_chunk(p, known, n, true).max(min).max(1),
        }
    }

    /// The offset (from the loop's first iteration) and length of chunk number `index`, or
    /// None if it starts at or after the end. Cheapest when the numbers asked for grow.
    pub(crate) fn chunk(&mut self, index: u64) -> Option<(u64, u64)> {
        let batch = index / self.p;
        if batch < self.batch {
            *self = Batches::new(self.n, self.p as usize, self.min, self.known);
        }
        while self.batch < batch && self.start < self.n {
            self.start = self
                .start
                .saturating_add(self.p.saturating_mul(self.chunk))
                .min(self.n);
            self.batch += 1;
            let r_b = self.n - self.start;
            self.chunk = factoring_chunk(self.p as usize, self.known, r_b, false)
                .max(self.min)
                .max(1);
        }
        if self.batch < batch {
            return None;
        }
        let lo = self
            .start
            .saturating_add((index % self.p).saturating_mul(self.chunk));
        (lo < self.n).then(|| (lo, self.chunk.min(self.n - lo)))
    }
}

/// mFAC as a [`ChunkRule`]: chunk numbers `0, 1, …` in the order of the requests, sized by
/// [`Batches`]. The executor takes [`numbered_plan`] and runs it without a lock; this
/// rule serves callers that keep a central queue of their own
/// (`magpie_mpi`'s share mode). It learns `μ` and `σ` as FAC does.
struct ModifiedFactoring {
    batches: Batches,
    next: u64,
    measured: Stats,
}

impl ChunkRule for ModifiedFactoring {
    fn next_chunk(&mut self, _worker: usize, remaining: u64) -> u64 {
        let size = self.batches.chunk(self.next).map_or(remaining, |(_, c)| c);
        self.next += 1;
        fit(size, 1, remaining)
    }

    fn chunk_done(&mut self, _worker: usize, iterations: u64, elapsed_ns: u64) {
        self.measured.add(iterations, elapsed_ns);
    }

    fn finish(&mut self, history: &mut LoopHistory) {
        if let Some(est) = self.measured.estimate() {
            history.iteration_ns = Some(est);
            history.calls += 1;
        }
    }
}

/// When a weighted rule re-measures its weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Adapt {
    /// WF (fixed weights) and AWF (weights from the history, updated at `finish`).
    Never,
    /// AWF-B/D: at every batch start; chunks sized from `R_b` as in WF.
    PerBatch,
    /// AWF-C/E: at every chunk; chunks sized from the current `R`.
    PerChunk,
}

/// WF (Flynn Hummel et al. 1996) and the AWF family (Banicescu et al. 2003; Cariño &
/// Banicescu 2008). Chunk of worker `i`: `⌈w_i · R_b/(2P)⌉` (batches of `P` requests), or
/// `⌈w_i · R/(2P)⌉` for AWF-C/E, with weights of mean 1, so equal weights give FAC2.
///
/// Weights of the adaptive variants are relative measured speeds: the rate of worker `i` is
/// `r_i = (iterations it ran) / (time it took)`, `w_i = P·r_i / Σ r_j`; a worker not yet
/// measured in the call keeps its current weight relative to the measured ones. AWF-B…E measure within the call (starting from the
/// history's weights); AWF keeps its weights for the whole call and on `finish` folds the call
/// into the history as the step-weighted average of Banicescu et al. 2003:
/// `r_i = Σ_s s·n_{i,s} / Σ_s s·t_{i,s}`.
struct Weighted {
    p: usize,
    min: u64,
    weights: Vec<f64>,
    adapt: Adapt,
    stats: Vec<Stats>,
    batch_left: usize,
    batch_base: f64,
}

impl Weighted {
    fn new(p: usize, min: u64, weights: Vec<f64>, adapt: Adapt) -> Self {
        Weighted {
            p,
            min,
            weights,
            adapt,
            stats: vec![Stats::default(); p],
            batch_left: 0,
            batch_base: 0.0,
        }
    }

    /// The weights from this call's measurements. A worker not measured yet keeps its
    /// current weight relative to the measured ones (its rate is taken as the measured
    /// workers' rate per unit of weight times its own weight), so that a slow worker whose
    /// first chunk is still running is not reset to the mean at a batch start.
    fn measured_weights(&self) -> Option<Vec<f64>> {
        let rates: Vec<Option<f64>> = self.stats.iter().map(Stats::rate).collect();
        let (mut rate_sum, mut weight_sum) = (0.0, 0.0);
        for (r, w) in rates.iter().zip(&self.weights) {
            if let Some(r) = r {
                rate_sum += r;
                weight_sum += w;
            }
        }
        if rate_sum <= 0.0 {
            return None;
        }
        if weight_sum <= 0.0 {
            return Some(fill_unknown(&rates));
        }
        let per_weight = rate_sum / weight_sum;
        let full: Vec<Option<f64>> = rates
            .iter()
            .zip(&self.weights)
            .map(|(r, w)| Some(r.unwrap_or(per_weight * w)))
            .collect();
        Some(fill_unknown(&full))
    }
}

impl ChunkRule for Weighted {
    fn next_chunk(&mut self, worker: usize, remaining: u64) -> u64 {
        let worker = worker.min(self.p - 1);
        let base = if self.adapt == Adapt::PerChunk {
            if let Some(w) = self.measured_weights() {
                self.weights = w;
            }
            remaining as f64 / (2 * self.p) as f64
        } else {
            if self.batch_left == 0 {
                if self.adapt == Adapt::PerBatch {
                    if let Some(w) = self.measured_weights() {
                        self.weights = w;
                    }
                }
                self.batch_base = remaining as f64 / (2 * self.p) as f64;
                self.batch_left = self.p;
            }
            self.batch_left -= 1;
            self.batch_base
        };
        fit(ceil_u64(self.weights[worker] * base), self.min, remaining)
    }

    fn chunk_done(&mut self, worker: usize, iterations: u64, elapsed_ns: u64) {
        if let Some(s) = self.stats.get_mut(worker) {
            s.add(iterations, elapsed_ns);
        }
    }

    fn finish(&mut self, history: &mut LoopHistory) {
        if self.stats.iter().all(|s| s.rate().is_none()) {
            return;
        }
        history.calls += 1;
        if self.adapt == Adapt::Never {
            let step = history.calls as f64;
            history.weighted_time_ns.resize(self.p, 0.0);
            history.weighted_iterations.resize(self.p, 0.0);
            for (i, s) in self.stats.iter().enumerate() {
                history.weighted_time_ns[i] += step * s.time_ns;
                history.weighted_iterations[i] += step * s.iterations;
            }
            let rates: Vec<Option<f64>> = (0..self.p)
                .map(|i| {
                    let t = history.weighted_time_ns[i];
                    (t > 0.0).then(|| history.weighted_iterations[i] / t)
                })
                .collect();
            history.weights = fill_unknown(&rates);
        } else if let Some(w) = self.measured_weights() {
            history.weights = w;
        }
    }
}

/// AWF-D/E: the inner rule sees, for each chunk, the time from the end of the worker's
/// previous chunk (or from its first request) to the end of this one. That time includes
/// taking the queue's lock, the rule itself and the executor's bookkeeping between chunks
/// (our reading of "including the scheduling overhead" of Cariño & Banicescu 2008); it is
/// never less than the `elapsed_ns` the executor reports.
struct WithOverhead {
    inner: Box<dyn ChunkRule>,
    since: Vec<Option<u64>>,
    clock: Box<dyn FnMut() -> u64 + Send>,
}

impl WithOverhead {
    fn new(inner: Box<dyn ChunkRule>, p: usize, clock: Box<dyn FnMut() -> u64 + Send>) -> Self {
        WithOverhead {
            inner,
            since: vec![None; p],
            clock,
        }
    }
}

impl ChunkRule for WithOverhead {
    fn next_chunk(&mut self, worker: usize, remaining: u64) -> u64 {
        if let Some(s @ None) = self.since.get_mut(worker) {
            *s = Some((self.clock)());
        }
        self.inner.next_chunk(worker, remaining)
    }

    fn chunk_done(&mut self, worker: usize, iterations: u64, elapsed_ns: u64) {
        let now = (self.clock)();
        let total = match self.since.get_mut(worker) {
            Some(s) => {
                let t = s.map_or(elapsed_ns, |since| now.saturating_sub(since));
                *s = Some(now);
                t.max(elapsed_ns)
            }
            None => elapsed_ns,
        };
        self.inner.chunk_done(worker, iterations, total);
    }

    fn finish(&mut self, history: &mut LoopHistory) {
        self.inner.finish(history);
    }
}

/// AF (Banicescu & Liu 2000): with `μ_j`, `σ_j` the estimated mean and deviation of one
/// iteration's time on worker `j`, `D = Σ σ_j²/μ_j` and `E = (Σ 1/μ_j)⁻¹`, worker `i` gets
/// `(D + 2ER − √(D² + 4DER)) / (2μ_i)`.
///
/// Estimates come from this call's chunks once a worker has reported two (see [`Stats`]), else
/// from [`LoopHistory::worker_iteration_ns`]; workers with no estimate count as the mean of the
/// others. A worker with no estimate of its own gets a FAC2-sized chunk (batches of `P`).
struct Adaptive {
    p: usize,
    min: u64,
    prior: Vec<Option<TimeStats>>,
    stats: Vec<Stats>,
    fallback: Factoring,
}

impl Adaptive {
    fn new(p: usize, min: u64, history: &LoopHistory) -> Self {
        Adaptive {
            p,
            min,
            prior: (0..p)
                .map(|i| history.worker_iteration_ns.get(i).copied().flatten())
                .collect(),
            stats: vec![Stats::default(); p],
            fallback: Factoring::new(p, min, None),
        }
    }

    /// Worker `worker`'s `μ` and `σ`: from this call's chunks (two or more), else from the
    /// history, else, after a single chunk, its mean with the coefficient of variation of the
    /// workers measured twice or more (0 if none). Without the last case a worker much slower
    /// than the others, which finishes one chunk per call while they take the rest, would
    /// never be measured and would keep getting FAC2-sized chunks.
    fn estimate(&self, worker: usize) -> Option<TimeStats> {
        let valid = |e: &TimeStats| e.mean_ns > 0.0 && e.std_dev_ns.is_finite();
        if let Some(e) = self.stats[worker]
            .estimate()
            .or(self.prior[worker])
            .filter(valid)
        {
            return Some(e);
        }
        let own = &self.stats[worker];
        if own.chunks != 1 || own.time_ns <= 0.0 {
            return None;
        }
        let cvs: Vec<f64> = self
            .stats
            .iter()
            .filter_map(Stats::estimate)
            .filter(valid)
            .map(|e| e.std_dev_ns / e.mean_ns)
            .collect();
        let cv = if cvs.is_empty() {
            0.0
        } else {
            cvs.iter().sum::<f64>() / cvs.len() as f64
        };
        let mean = own.time_ns / own.iterations;
        Some(TimeStats {
            mean_ns: mean,
            std_dev_ns: cv * mean,
        })
    }

    fn af_chunk(&self, worker: usize, remaining: u64) -> Option<f64> {
        let own = self.estimate(worker)?;
        let all: Vec<Option<TimeStats>> = (0..self.p).map(|j| self.estimate(j)).collect();
        let known: Vec<TimeStats> = all.iter().flatten().copied().collect();
        let k = known.len() as f64;
        let fill = TimeStats {
            mean_ns: known.iter().map(|e| e.mean_ns).sum::<f64>() / k,
            std_dev_ns: (known.iter().map(|e| e.std_dev_ns.powi(2)).sum::<f64>() / k).sqrt(),
        };
        let (mut d, mut inv) = (0.0, 0.0);
        for e in all.iter().map(|e| e.unwrap_or(fill)) {
            d += e.std_dev_ns.powi(2) / e.mean_ns;
            inv += 1.0 / e.mean_ns;
        }
        let (e, r) = (1.0 / inv, remaining as f64);
        Some((d + 2.0 * e * r - (d * d + 4.0 * d * e * r).sqrt()) / (2.0 * own.mean_ns))
    }
}

impl ChunkRule for Adaptive {
    fn next_chunk(&mut self, worker: usize, remaining: u64) -> u64 {
        let worker = worker.min(self.p - 1);
        match self.af_chunk(worker, remaining) {
            Some(c) => fit(ceil_u64(c), self.min, remaining),
            None => self.fallback.next_chunk(worker, remaining),
        }
    }

    fn chunk_done(&mut self, worker: usize, iterations: u64, elapsed_ns: u64) {
        if let Some(s) = self.stats.get_mut(worker) {
            s.add(iterations, elapsed_ns);
        }
    }

    fn finish(&mut self, history: &mut LoopHistory) {
        let learned: Vec<Option<TimeStats>> = (0..self.p).map(|i| self.estimate(i)).collect();
        if learned.iter().any(Option::is_some) {
            history.worker_iteration_ns = learned;
            history.calls += 1;
        }
    }
}

#[cfg(test)]
mod tests;
