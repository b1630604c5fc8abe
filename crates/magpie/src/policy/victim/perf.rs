//! The `PerfVictims` policy; its documentation is on [`PerfVictims`].

use super::{PoolView, Probe, ProbeOutcome, RandomOther, TaskCycle, VictimPolicy, VictimSelector};
use crate::policy::params::{PolicySpec, SpecError};
use std::fmt::Debug;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The parameters of the `perf` policy (see [`PerfVictims`] for what each
/// one does); the defaults are the thesis' constants. The inter-rank policy of `magpie-mpi`
/// uses the same parameters and the same formulas (`work_rate`, `smoothed_delay`,
/// `score`, `next_interval`) at the level of ranks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PerfParams {
    /// `e` in `ln(e + x)` (default 2.72).
    pub e: f64,
    /// Weight of the new sample in the exponential smoothings (default 0.65).
    pub alpha: f64,
    /// Floor of the workRate in the score (default 0.0001).
    pub min_load: f64,
    /// Initial workRate of every worker (default 1.0).
    pub rate_start: f64,
    /// Interval before the first scheduled refresh (default 1 ms).
    pub refresh_start: Duration,
    /// Growth of the interval after a good refresh (default 60 ms).
    pub refresh_good: Duration,
    /// Shrinkage of the interval after a bad refresh (default 120 ms).
    pub refresh_bad: Duration,
    /// Least interval after a refresh (default 5 ms).
    pub refresh_min: Duration,
    /// Greatest interval after a refresh (default 240 ms).
    pub refresh_max: Duration,
    /// `local_workers` of Eq. 3.2 (default `None`: the pool's size).
    pub workers: Option<usize>,
}

impl Default for PerfParams {
    fn default() -> Self {
        PerfParams {
            e: 2.72,
            alpha: 0.65,
            min_load: 1e-4,
            rate_start: 1.0,
            refresh_start: Duration::from_millis(1),
            refresh_good: Duration::from_millis(60),
            refresh_bad: Duration::from_millis(120),
            refresh_min: Duration::from_millis(5),
            refresh_max: Duration::from_millis(240),
            workers: None,
        }
    }
}

impl PerfParams {
    /// The parameters of `spec` (`perf:key=value,…`), defaults for the keys not given.
    pub fn from_spec(spec: &mut PolicySpec) -> Result<Self, SpecError> {
        let d = PerfParams::default();
        // Absent means "the pool's size"; a given value must be at least 1.
        let workers =
            if spec.string("workers", "").is_empty() {
                None
            } else {
                let w = spec.uint("workers", 0)?;
                Some(usize::try_from(w).map_err(|_| {
                    SpecError::new(format!("perf: parameter workers={w}: too large"))
                })?)
            };
        let p = PerfParams {
            e: spec.float("e", d.e)?,
            alpha: spec.float("alpha", d.alpha)?,
            min_load: spec.float("min-load", d.min_load)?,
            rate_start: spec.float("rate-start", d.rate_start)?,
            refresh_start: spec.duration("refresh-start", d.refresh_start)?,
            refresh_good: spec.duration("refresh-good", d.refresh_good)?,
            refresh_bad: spec.duration("refresh-bad", d.refresh_bad)?,
            refresh_min: spec.duration("refresh-min", d.refresh_min)?,
            refresh_max: spec.duration("refresh-max", d.refresh_max)?,
            workers,
        };
        p.validate()?;
        Ok(p)
    }

    /// Checks the constraints between and on the parameters.
    pub fn validate(&self) -> Result<(), SpecError> {
        let fail = |problem: String| Err(SpecError::new(format!("perf: {problem}")));
        if !(self.e.is_finite() && self.e >= 1.0) {
            return fail(format!(
                "parameter e={}: must be at least 1 (so that ln(e + x) ≥ 0)",
                self.e
            ));
        }
        if !(self.alpha > 0.0 && self.alpha <= 1.0) {
            return fail(format!(
                "parameter alpha={}: the weight of a new sample must be in (0, 1]",
                self.alpha
            ));
        }
        if !(self.min_load.is_finite() && self.min_load > 0.0) {
            return fail(format!(
                "parameter min-load={}: the load floor must be greater than 0",
                self.min_load
            ));
        }
        if !(self.rate_start.is_finite() && self.rate_start >= 0.0) {
            return fail(format!(
                "parameter rate-start={}: the initial workRate must be at least 0",
                self.rate_start
            ));
        }
        if self.refresh_min > self.refresh_max {
            return fail(format!(
                "refresh-min ({:?}) must not exceed refresh-max ({:?})",
                self.refresh_min, self.refresh_max
            ));
        }
        if self.workers == Some(0) {
            return fail(
                "parameter workers=0: the number of local workers must be at least 1".into(),
            );
        }
        Ok(())
    }
}

/// Eq. 3.1: the workRate after a task cycle, from the previous one:
/// `ln(e + work/(work+idle)) · ln(e + (work+idle)) · alpha + prev · (1 − alpha)`, with the
/// times in microseconds. A cycle of zero length carries no information and leaves `prev`.
///
/// ```
/// use magpie::policy::victim::{work_rate, PerfParams};
/// use magpie::policy::victim::TaskCycle;
/// let r = work_rate(1.0, TaskCycle { idle_ns: 0, work_ns: 100_000 }, &PerfParams::default());
/// assert!((r - (3.72f64.ln() * 102.72f64.ln() * 0.65 + 0.35)).abs() < 1e-12);
/// ```
pub fn work_rate(prev: f64, cycle: TaskCycle, p: &PerfParams) -> f64 {
    let work = cycle.work_ns as f64 / 1e3;
    let total = work + cycle.idle_ns as f64 / 1e3;
    if total <= 0.0 {
        return prev;
    }
    (p.e + work / total).ln() * (p.e + total).ln() * p.alpha + prev * (1.0 - p.alpha)
}

/// Eq. 3.2: a victim's steal delay after a probe that took `latency_ns`, from the previous
/// one: `ln(e + latency_µs · workers) · alpha + prev · (1 − alpha)`.
///
/// ```
/// use magpie::policy::victim::{smoothed_delay, PerfParams};
/// let d = smoothed_delay(0.0, 2_500, 4, &PerfParams::default());
/// assert!((d - 12.72f64.ln() * 0.65).abs() < 1e-12);
/// ```
pub fn smoothed_delay(prev: f64, latency_ns: u64, workers: usize, p: &PerfParams) -> f64 {
    let us = latency_ns as f64 / 1e3;
    (p.e + us * workers as f64).ln() * p.alpha + prev * (1.0 - p.alpha)
}

/// Eq. 3.3: how worth robbing a victim is: `max(load, min-load) · tasks − delay`.
///
/// ```
/// use magpie::policy::victim::{score, PerfParams};
/// assert_eq!(score(2.0, 3, 1.5, &PerfParams::default()), 4.5);
/// ```
pub fn score(load: f64, tasks: usize, delay: f64, p: &PerfParams) -> f64 {
    load.max(p.min_load) * tasks as f64 - delay
}

/// §3.4: the refresh interval after a refresh that was good (best score > 0) or not:
/// `current + refresh-good` or `current − refresh-bad`, clamped to
/// `[refresh-min, refresh-max]`.
///
/// ```
/// use magpie::policy::victim::{next_interval, PerfParams};
/// use std::time::Duration;
/// let p = PerfParams::default();
/// let ms = Duration::from_millis;
/// assert_eq!(next_interval(ms(1), true, &p), ms(61));
/// assert_eq!(next_interval(ms(1), false, &p), ms(5));
/// ```
pub fn next_interval(current: Duration, good: bool, p: &PerfParams) -> Duration {
    let next = if good {
        current.saturating_add(p.refresh_good)
    } else {
        current.saturating_sub(p.refresh_bad)
    };
    next.max(p.refresh_min).min(p.refresh_max)
}

/// A source of monotonic time for the refresh schedule (injectable for tests).
pub trait Clock: Send + Sync + Debug {
    /// Nanoseconds since some fixed instant; never decreases.
    fn now_ns(&self) -> u64;
}

/// The default [`Clock`]: [`Instant`], counted from the clock's creation.
#[derive(Debug, Clone, Copy)]
pub struct MonotonicClock {
    epoch: Instant,
}

impl MonotonicClock {
    /// A clock that reads 0 now.
    pub fn new() -> Self {
        MonotonicClock {
            epoch: Instant::now(),
        }
    }
}

impl Default for MonotonicClock {
    fn default() -> Self {
        MonotonicClock::new()
    }
}

impl Clock for MonotonicClock {
    fn now_ns(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

fn duration_ns(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// The value of the best-victim cache that holds no victim.
const NONE: usize = usize::MAX;

/// The outcome of one recomputation of the scores.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Refresh {
    /// The worker with the highest score (the lowest index among equals).
    pub argmax: usize,
    /// Its score.
    pub score: f64,
}

impl Refresh {
    /// Whether the refresh was good: the best score is > 0, so the argmax is cached.
    pub fn is_good(&self) -> bool {
        self.score > 0.0
    }

    /// The victim it caches, if the refresh was good.
    pub fn best(&self) -> Option<usize> {
        self.is_good().then_some(self.argmax)
    }
}

/// The per-pool performance monitor of the `perf` policy: the measurements, the cached best
/// victim and the refresh schedule, shared by the pool's selectors. Floats are kept as bits
/// in `AtomicU64`s; all accesses are relaxed (these are hints).
#[derive(Debug)]
pub struct PerfMonitor {
    params: PerfParams,
    local_workers: usize,
    work_rate: Box<[AtomicU64]>,
    delay: Box<[AtomicU64]>,
    best: AtomicUsize,
    interval_ns: AtomicU64,
    next_refresh_ns: AtomicU64,
    refreshing: AtomicBool,
    refreshes: AtomicU64,
}

/// The single-flight refresh guard of a [`PerfMonitor`], held while scores are recomputed;
/// released when dropped.
#[derive(Debug)]
pub struct RefreshGuard<'a> {
    flag: &'a AtomicBool,
}

impl Drop for RefreshGuard<'_> {
    fn drop(&mut self) {
        self.flag.store(false, Ordering::Release);
    }
}

impl PerfMonitor {
    /// A monitor for a pool of `num_workers`, created at time `now_ns` (of the pool's
    /// [`Clock`]): the first scheduled refresh is due at `now_ns + refresh-start`.
    pub fn new(num_workers: usize, params: PerfParams, now_ns: u64) -> Self {
        let start = duration_ns(params.refresh_start);
        PerfMonitor {
            local_workers: params.workers.unwrap_or(num_workers).max(1),
            work_rate: (0..num_workers)
                .map(|_| AtomicU64::new(params.rate_start.to_bits()))
                .collect(),
            delay: (0..num_workers)
                .map(|_| AtomicU64::new(0f64.to_bits()))
                .collect(),
            best: AtomicUsize::new(NONE),
            interval_ns: AtomicU64::new(start),
            next_refresh_ns: AtomicU64::new(now_ns.saturating_add(start)),
            refreshing: AtomicBool::new(false),
            refreshes: AtomicU64::new(0),
            params,
        }
    }

    /// The parameters.
    pub fn params(&self) -> &PerfParams {
        &self.params
    }

    /// The number of workers the monitor covers.
    pub fn num_workers(&self) -> usize {
        self.work_rate.len()
    }

    /// The `local_workers` factor of Eq. 3.2.
    pub fn local_workers(&self) -> usize {
        self.local_workers
    }

    /// Worker `w`'s workRate (0 for a worker outside the pool).
    pub fn work_rate(&self, w: usize) -> f64 {
        self.work_rate
            .get(w)
            .map_or(0.0, |a| f64::from_bits(a.load(Ordering::Relaxed)))
    }

    /// The smoothed steal delay of victim `v` (0 for a worker outside the pool).
    pub fn delay(&self, v: usize) -> f64 {
        self.delay
            .get(v)
            .map_or(0.0, |a| f64::from_bits(a.load(Ordering::Relaxed)))
    }

    /// Records a task cycle of worker `w` (Eq. 3.1). Only worker `w` should call this: the
    /// update is a plain load and store.
    pub fn record_cycle(&self, w: usize, cycle: TaskCycle) {
        if let Some(a) = self.work_rate.get(w) {
            let prev = f64::from_bits(a.load(Ordering::Relaxed));
            a.store(
                work_rate(prev, cycle, &self.params).to_bits(),
                Ordering::Relaxed,
            );
        }
    }

    /// Records the latency of a probe of `probe.victim` (Eq. 3.2), whoever the thief.
    pub fn record_probe(&self, probe: Probe) {
        if let Some(a) = self.delay.get(probe.victim) {
            let _ = a.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |bits| {
                let prev = f64::from_bits(bits);
                Some(
                    smoothed_delay(prev, probe.latency_ns, self.local_workers, &self.params)
                        .to_bits(),
                )
            });
        }
    }

    /// The cached best victim (`None` if the last refresh was bad, or none was done yet).
    pub fn best(&self) -> Option<usize> {
        let b = self.best.load(Ordering::Relaxed);
        (b != NONE).then_some(b)
    }

    /// The current refresh interval.
    pub fn interval(&self) -> Duration {
        Duration::from_nanos(self.interval_ns.load(Ordering::Relaxed))
    }

    /// When the next scheduled refresh is due, in the pool clock's nanoseconds.
    pub fn next_refresh_ns(&self) -> u64 {
        self.next_refresh_ns.load(Ordering::Relaxed)
    }

    /// How many refreshes (scheduled and auxiliary) have been done.
    pub fn refreshes(&self) -> u64 {
        self.refreshes.load(Ordering::Relaxed)
    }

    /// Takes the single-flight guard, or `None` if another refresher holds it.
    pub fn try_guard(&self) -> Option<RefreshGuard<'_>> {
        self.refreshing
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .ok()
            .map(|_| RefreshGuard {
                flag: &self.refreshing,
            })
    }

    /// The scores of all workers now (Eq. 3.3), without caching anything.
    pub fn evaluate(&self, pool: &dyn PoolView) -> Refresh {
        let n = self.num_workers().min(pool.num_workers());
        let mut best = Refresh {
            argmax: 0,
            score: f64::NEG_INFINITY,
        };
        for v in 0..n {
            let s = score(
                self.work_rate(v),
                pool.queue_len(v),
                self.delay(v),
                &self.params,
            );
            if s > best.score {
                best = Refresh {
                    argmax: v,
                    score: s,
                };
            }
        }
        best
    }

    /// Recomputes the scores and caches the best victim (or nothing, if the best score is
    /// ≤ 0); the caller holds the guard.
    fn recompute(&self, pool: &dyn PoolView) -> Refresh {
        let r = self.evaluate(pool);
        self.best.store(r.best().unwrap_or(NONE), Ordering::Relaxed);
        self.refreshes.fetch_add(1, Ordering::Relaxed);
        r
    }

    /// The scheduled refresh: if it is due at `now_ns` and no one else is refreshing,
    /// recomputes the scores, caches the best victim, and schedules the next refresh
    /// `next_interval` later. Returns what it computed, or `None` if it did nothing.
    pub fn refresh_if_due(&self, pool: &dyn PoolView, now_ns: u64) -> Option<Refresh> {
        if now_ns < self.next_refresh_ns() {
            return None;
        }
        let _guard = self.try_guard()?;
        // Another refresher may have finished between the check and the guard.
        if now_ns < self.next_refresh_ns() {
            return None;
        }
        let r = self.recompute(pool);
        let interval = next_interval(self.interval(), r.is_good(), &self.params);
        let ns = duration_ns(interval);
        self.interval_ns.store(ns, Ordering::Relaxed);
        self.next_refresh_ns
            .store(now_ns.saturating_add(ns), Ordering::Relaxed);
        Some(r)
    }

    /// The auxiliary refresh of a thief whose steal from the cached victim failed: if no
    /// one else is refreshing, recomputes the scores and caches the best victim (the
    /// schedule is left alone). Returns what it computed, or `None` if it did nothing.
    pub fn auxiliary_refresh(&self, pool: &dyn PoolView) -> Option<Refresh> {
        let _guard = self.try_guard()?;
        Some(self.recompute(pool))
    }
}

/// `perf` victim selection: the Performance-Driven Workstealing Policy of Xie (MSc thesis,
/// Glasgow 2023, Chapter 3), brought down from YewPar's nodes to one pool's workers.
///
/// Each pool has one monitor, created by [`VictimPolicy::selectors`] and shared by
/// the pool's selectors. It keeps, lock-free:
///
/// * each worker's **workRate** (Eq. 3.1), updated by the worker itself at the end of each
///   task cycle (`work_rate`);
/// * each victim's smoothed **steal delay** (Eq. 3.2), updated from every probe's latency by
///   whichever thief made it (`smoothed_delay`);
/// * the cached **best victim**: the argmax over all workers of
///   `score_v = max(workRate_v, min-load) · queue_len(v) − delay_v` (§3.3, `score`), or
///   nothing if the best score is ≤ 0;
/// * the **refresh schedule** (§3.4): the interval starts at `refresh-start` and, after each
///   scheduled refresh, grows by `refresh-good` if the best score was > 0 or shrinks by
///   `refresh-bad` otherwise, clamped to `[refresh-min, refresh-max]` (`next_interval`);
/// * a single-flight guard, so that one thief at a time recomputes the scores.
///
/// ## Time measurements
///
/// The policy [`measures`](VictimPolicy::measures): the runtime then times each probe (the
/// [`Probe::latency_ns`] of a steal attempt, the analogue of the thesis' round trip to
/// another node's task count) and reports each task cycle of a worker to its own selector
/// ([`VictimSelector::on_task_done`]). The runtime takes the cycle's timestamps at task start
/// and task end: [`TaskCycle::idle_ns`] runs from the end of the worker's previous task (or
/// the start of its search for work) to the start of this task, [`TaskCycle::work_ns`] from
/// the start of this task to its end — the thesis' "set state to WORKING" and "set state to
/// IDLE" probes (§3.2.1). Cycles are reported for the tasks a worker runs from its scheduling
/// loop; the tasks that `join` runs inline inside them count as part of the enclosing task's
/// work. Times enter the formulas in microseconds (as real numbers, from nanoseconds).
///
/// ## Refresh
///
/// The thesis runs an automatic refresher in the background; here refreshes are done lazily
/// by thieves, which is what idle workers are for. At the start of each round
/// ([`next_round`](VictimSelector::next_round)), if the refresh time has come, the thief that
/// wins the guard (an `AtomicBool` compare-exchange) recomputes the scores, caches the best
/// victim and sets the next refresh time to now plus the new interval; others go on with the
/// cached victim. A busy pool therefore does no refreshes; the first thief after a busy
/// period finds the refresh overdue and refreshes before it steals. The start interval
/// (1 ms by default) is used as given for the first refresh, even though it lies below
/// `refresh-min`, as the thesis' code does; from then on the interval is clamped to
/// `[refresh-min, refresh-max]` (so the default sequence after good refreshes is 1, 61, 121,
/// 181, 240, 240 … ms, and a bad refresh at 1 ms gives 5 ms).
///
/// ## A round
///
/// If a victim is cached and it is not the thief, the round starts with it alone. If that
/// steal fails, the thief does one **auxiliary refresh** (§3.4, guarded: if another thief is
/// refreshing it does none) and one more steal from the best victim then cached — unless that
/// is still the victim that just failed and this thief did not refresh — and then the round
/// goes on with `workers − 1` victims drawn at random ([`RandomOther`]), after which the idle
/// policy backs off. An auxiliary refresh updates the cache but not the schedule. With
/// nothing useful cached (best score ≤ 0, nothing computed yet, or the thief itself is the
/// best victim), the round is `workers − 1` random draws.
///
/// The cache is per pool, as it is per node in the thesis, so all thieves go for the same
/// victim until it runs dry (herding); the failures that follow trigger auxiliary refreshes,
/// which the guard keeps to one at a time.
///
/// ## Parameters (`perf:key=value`)
///
/// | key | default | meaning |
/// |---|---|---|
/// | `e` | 2.72 | the constant added inside every logarithm, `ln(e + x)`; ≥ 1 |
/// | `alpha` | 0.65 | weight of the new sample in both smoothings (history weighs `1 − alpha`); in (0, 1] |
/// | `min-load` | 0.0001 | floor of the workRate in the score; > 0 |
/// | `rate-start` | 1.0 | every worker's workRate before its first task cycle; ≥ 0 |
/// | `refresh-start` | 1ms | interval before the first scheduled refresh (not clamped) |
/// | `refresh-good` | 60ms | added to the interval after a refresh whose best score is > 0 |
/// | `refresh-bad` | 120ms | taken off the interval after a refresh whose best score is ≤ 0 |
/// | `refresh-min` | 5ms | least interval after a refresh; ≤ `refresh-max` |
/// | `refresh-max` | 240ms | greatest interval after a refresh |
/// | `workers` | pool size | `local_workers` of Eq. 3.2 (the delay is multiplied by it); ≥ 1 |
///
/// Each steal delay starts at 0.
///
/// ```
/// use magpie::policy::victim::{by_name, PoolView, VictimPolicy};
/// use magpie::policy::victim::PerfVictims;
/// struct Four;
/// impl PoolView for Four {
///     fn num_workers(&self) -> usize { 4 }
///     fn queue_len(&self, _: usize) -> usize { 0 }
/// }
/// let p = by_name("perf:refresh-max=100ms").unwrap();
/// assert!(p.measures());
///
/// let (monitor, mut sel) = PerfVictims::default().selectors_with_monitor(4);
/// let mut round = Vec::new();
/// sel[0].next_round(&Four, &mut round);
/// // Nothing cached yet: three random draws.
/// assert_eq!(monitor.best(), None);
/// assert_eq!(round.len(), 3);
/// ```
#[derive(Debug, Clone, Default)]
pub struct PerfVictims {
    params: PerfParams,
    clock: Option<Arc<dyn Clock>>,
}

impl PerfVictims {
    /// The policy with these parameters, if they are valid.
    pub fn new(params: PerfParams) -> Result<Self, SpecError> {
        params.validate()?;
        Ok(PerfVictims {
            params,
            clock: None,
        })
    }

    /// The policy with the parameters of `spec` (see [`PerfVictims`]).
    pub fn from_spec(spec: &mut PolicySpec) -> Result<Self, SpecError> {
        PerfVictims::new(PerfParams::from_spec(spec)?)
    }

    /// The same policy timing its refreshes with `clock` (default: a [`MonotonicClock`]
    /// started with each pool).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = Some(clock);
        self
    }

    /// The parameters.
    pub fn params(&self) -> &PerfParams {
        &self.params
    }

    /// The selectors of a pool of `num_workers`, as [`VictimPolicy::selectors`], with the
    /// monitor they share.
    pub fn selectors_with_monitor(
        &self,
        num_workers: usize,
    ) -> (Arc<PerfMonitor>, Vec<Box<dyn VictimSelector>>) {
        let clock: Arc<dyn Clock> = match &self.clock {
            Some(c) => c.clone(),
            None => Arc::new(MonotonicClock::new()),
        };
        let monitor = Arc::new(PerfMonitor::new(num_workers, self.params, clock.now_ns()));
        let selectors = (0..num_workers)
            .map(|t| {
                Box::new(PerfSelector::new(t, monitor.clone(), clock.clone()))
                    as Box<dyn VictimSelector>
            })
            .collect();
        (monitor, selectors)
    }
}

impl VictimPolicy for PerfVictims {
    fn name(&self) -> &str {
        "perf"
    }

    fn selectors(&self, num_workers: usize) -> Vec<Box<dyn VictimSelector>> {
        self.selectors_with_monitor(num_workers).1
    }

    fn measures(&self) -> bool {
        true
    }
}

/// The per-worker state of [`PerfVictims`].
#[derive(Debug)]
pub struct PerfSelector {
    thief: usize,
    others: usize,
    monitor: Arc<PerfMonitor>,
    clock: Arc<dyn Clock>,
    random: RandomOther,
    /// The cached victim this round started with, until its probe is reported.
    cached: Option<usize>,
}

impl PerfSelector {
    /// The selector of worker `thief` of the pool that `monitor` watches, reading time from
    /// `clock`.
    pub fn new(thief: usize, monitor: Arc<PerfMonitor>, clock: Arc<dyn Clock>) -> Self {
        let n = monitor.num_workers();
        PerfSelector {
            thief,
            others: n.saturating_sub(1),
            random: RandomOther::new(thief, n),
            monitor,
            clock,
            cached: None,
        }
    }

    /// The monitor's best victim, if it is one this thief may rob.
    fn target(&self) -> Option<usize> {
        self.monitor
            .best()
            .filter(|&b| b != self.thief && b < self.monitor.num_workers())
    }

    fn push_random(&mut self, victims: &mut Vec<usize>) {
        for _ in 0..self.others {
            victims.extend(self.random.draw());
        }
    }
}

impl VictimSelector for PerfSelector {
    fn next_round(&mut self, pool: &dyn PoolView, victims: &mut Vec<usize>) {
        self.monitor.refresh_if_due(pool, self.clock.now_ns());
        self.cached = self.target();
        match self.cached {
            Some(v) => victims.push(v),
            None => self.push_random(victims),
        }
    }

    fn on_probe(&mut self, pool: &dyn PoolView, probe: Probe, victims: &mut Vec<usize>) {
        self.monitor.record_probe(probe);
        let Some(cached) = self.cached.take() else {
            return;
        };
        if probe.outcome == ProbeOutcome::Stolen {
            return;
        }
        // The steal from the cached victim failed: one auxiliary refresh, one more steal
        // from the (new) best victim, then random victims.
        let refreshed = self.monitor.auxiliary_refresh(pool).is_some();
        if let Some(b) = self.target() {
            if refreshed || b != cached {
                victims.push(b);
            }
        }
        self.push_random(victims);
    }

    fn on_task_done(&mut self, cycle: TaskCycle) {
        self.monitor.record_cycle(self.thief, cycle);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// A pool whose queue lengths the test sets.
    struct Pool(RefCell<Vec<usize>>);
    impl Pool {
        fn new(queues: &[usize]) -> Self {
            Pool(RefCell::new(queues.to_vec()))
        }
        fn set(&self, queues: &[usize]) {
            *self.0.borrow_mut() = queues.to_vec();
        }
    }
    impl PoolView for Pool {
        fn num_workers(&self) -> usize {
            self.0.borrow().len()
        }
        fn queue_len(&self, w: usize) -> usize {
            self.0.borrow()[w]
        }
    }

    /// A clock the test moves by hand.
    #[derive(Debug, Default)]
    struct ManualClock(AtomicU64);
    impl ManualClock {
        fn set_ms(&self, ms: f64) {
            self.0.store((ms * 1e6) as u64, Ordering::Relaxed);
        }
    }
    impl Clock for ManualClock {
        fn now_ns(&self) -> u64 {
            self.0.load(Ordering::Relaxed)
        }
    }

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-9, "{a} != {b}");
    }

    fn ms(x: u64) -> Duration {
        Duration::from_millis(x)
    }

    fn cycle(work_us: u64, idle_us: u64) -> TaskCycle {
        TaskCycle {
            idle_ns: idle_us * 1000,
            work_ns: work_us * 1000,
        }
    }

    fn probe(victim: usize, outcome: ProbeOutcome, latency_ns: u64) -> Probe {
        Probe {
            victim,
            outcome,
            latency_ns,
        }
    }

    /// The next `k` draws of a reference stream identical to a selector's.
    fn draws(reference: &mut RandomOther, k: usize) -> Vec<usize> {
        (0..k).map(|_| reference.draw().unwrap()).collect()
    }

    // Hand-computed (Python, math.log) values of Eq. 3.1 and 3.2 with the defaults.
    /// ln(3.72)·ln(102.72)·0.65 + 1.0·0.35: work 100 µs, idle 0, from 1.0.
    const R1: f64 = 4.305365061238248;
    /// ln(3.02)·ln(102.72)·0.65 + R1·0.35: then work 30 µs, idle 70 µs.
    const R2: f64 = 4.834589953302652;
    /// ln(2.72)·ln(52.72)·0.65 + R2·0.35: then work 0, idle 50 µs.
    const R3: f64 = 4.270981673707032;
    /// ln(2.72)·ln(1002.72)·0.65 + 0.35: work 0, idle 1000 µs, from 1.0.
    const R_IDLE: f64 = 4.844644815303632;
    /// ln(2.72 + 2.5·4)·0.65: a 2.5 µs probe with 4 local workers, from 0.
    const D1: f64 = 1.6530641126427843;
    /// ln(2.72 + 0.5·4)·0.65 + D1·0.35: then a 0.5 µs probe.
    const D2: f64 = 1.5872481591633263;
    /// ln(2.72 + 2.5·16)·0.65: a 2.5 µs probe with 16 local workers, from 0.
    const D16: f64 = 2.440533676523761;
    /// ln(2.72 + 1e6·4)·0.65: a 1 s probe with 4 local workers, from 0.
    const D_SLOW: f64 = 9.881173639404556;

    #[test]
    fn work_rate_follows_eq_3_1() {
        let p = PerfParams::default();
        let r1 = work_rate(1.0, cycle(100, 0), &p);
        close(r1, R1);
        close(r1, 3.72f64.ln() * 102.72f64.ln() * 0.65 + 0.35);
        let r2 = work_rate(r1, cycle(30, 70), &p);
        close(r2, R2);
        close(work_rate(r2, cycle(0, 50), &p), R3);
        // Cycle length dominates: a cycle of pure idling rates higher than one of pure work.
        close(work_rate(1.0, cycle(0, 1000), &p), R_IDLE);
        // Nanoseconds are converted to fractional microseconds.
        let half = TaskCycle {
            idle_ns: 0,
            work_ns: 500,
        };
        close(
            work_rate(1.0, half, &p),
            3.72f64.ln() * 3.22f64.ln() * 0.65 + 0.35,
        );
        // A zero-length cycle leaves the rate alone (instead of 0/0).
        assert_eq!(work_rate(R1, cycle(0, 0), &p), R1);
        // Other constants.
        let q = PerfParams {
            e: 3.0,
            alpha: 0.5,
            ..PerfParams::default()
        };
        close(
            work_rate(2.0, cycle(100, 0), &q),
            4f64.ln() * 103f64.ln() * 0.5 + 1.0,
        );
    }

    #[test]
    fn delay_follows_eq_3_2() {
        let p = PerfParams::default();
        let d1 = smoothed_delay(0.0, 2_500, 4, &p);
        close(d1, D1);
        close(smoothed_delay(d1, 500, 4, &p), D2);
        close(smoothed_delay(0.0, 2_500, 16, &p), D16);
        close(smoothed_delay(0.0, 1_000_000_000, 4, &p), D_SLOW);
        // A zero latency still costs ln(2.72)·0.65.
        close(smoothed_delay(0.0, 0, 4, &p), 2.72f64.ln() * 0.65);
    }

    #[test]
    fn score_follows_eq_3_3() {
        let p = PerfParams::default();
        assert_eq!(score(2.0, 3, 1.5, &p), 4.5);
        // The load floor: a negligible load counts as 1e-4.
        close(score(0.0, 5, 0.3, &p), -0.2995);
        close(score(0.00005, 1000, 0.05, &p), 0.05);
        // No tasks: minus the delay.
        assert_eq!(score(3.0, 0, 0.7, &p), -0.7);
        let q = PerfParams {
            min_load: 0.5,
            ..PerfParams::default()
        };
        assert_eq!(score(0.1, 4, 1.0, &q), 1.0);
    }

    #[test]
    fn interval_steps() {
        let p = PerfParams::default();
        let mut i = p.refresh_start;
        let mut good = Vec::new();
        for _ in 0..6 {
            i = next_interval(i, true, &p);
            good.push(i);
        }
        assert_eq!(good, [ms(61), ms(121), ms(181), ms(240), ms(240), ms(240)]);
        let mut bad = Vec::new();
        for _ in 0..3 {
            i = next_interval(i, false, &p);
            bad.push(i);
        }
        assert_eq!(bad, [ms(120), ms(5), ms(5)]);
        assert_eq!(next_interval(ms(1), false, &p), ms(5));
        assert_eq!(next_interval(ms(100), false, &p), ms(5));
        assert_eq!(next_interval(ms(5), true, &p), ms(65));
        let q = PerfParams {
            refresh_good: ms(10),
            refresh_bad: ms(3),
            refresh_min: ms(2),
            refresh_max: ms(25),
            ..PerfParams::default()
        };
        assert_eq!(next_interval(ms(20), true, &q), ms(25));
        assert_eq!(next_interval(ms(20), false, &q), ms(17));
        assert_eq!(next_interval(ms(4), false, &q), ms(2));
    }

    /// Worker loads (1.0, R1, 1.0, R_IDLE) after feeding cycles to workers 1 and 3.
    fn loaded_monitor(n: usize) -> PerfMonitor {
        let m = PerfMonitor::new(n, PerfParams::default(), 0);
        m.record_cycle(1, cycle(100, 0));
        m.record_cycle(3, cycle(0, 1000));
        m
    }

    #[test]
    fn monitor_records_rates_and_delays() {
        let m = loaded_monitor(4);
        assert_eq!(m.local_workers(), 4);
        assert_eq!(m.work_rate(0), 1.0);
        close(m.work_rate(1), R1);
        close(m.work_rate(3), R_IDLE);
        m.record_probe(probe(2, ProbeOutcome::Empty, 2_500));
        m.record_probe(probe(2, ProbeOutcome::Stolen, 500));
        close(m.delay(2), D2);
        assert_eq!(m.delay(1), 0.0);
        // Out-of-range workers are ignored.
        m.record_probe(probe(9, ProbeOutcome::Empty, 500));
        m.record_cycle(9, cycle(1, 1));
        assert_eq!(m.delay(9), 0.0);
        // `workers` overrides the pool size in Eq. 3.2.
        let p = PerfParams {
            workers: Some(16),
            ..PerfParams::default()
        };
        let m = PerfMonitor::new(4, p, 0);
        m.record_probe(probe(1, ProbeOutcome::Empty, 2_500));
        close(m.delay(1), D16);
    }

    #[test]
    fn best_victim_is_the_argmax_of_the_scores() {
        let m = loaded_monitor(4);
        // Scores: 0: 1·0; 1: R1·2 = 8.61; 2: 1·7 = 7; 3: R_IDLE·1 = 4.84.
        // By queue length alone 2 would win; the load makes it 1.
        let pool = Pool::new(&[0, 2, 7, 1]);
        let r = m.auxiliary_refresh(&pool).unwrap();
        assert_eq!(r.argmax, 1);
        close(r.score, 2.0 * R1);
        assert_eq!(m.best(), Some(1));
        // A slow victim: a 1 s probe of 1 makes its score 8.61 − 9.88 < 0, and 2 wins.
        m.record_probe(probe(1, ProbeOutcome::Busy, 1_000_000_000));
        close(m.delay(1), D_SLOW);
        let r = m.auxiliary_refresh(&pool).unwrap();
        assert_eq!((r.argmax, r.score), (2, 7.0));
        assert_eq!(m.best(), Some(2));
        // Ties go to the lowest index.
        let m2 = PerfMonitor::new(4, PerfParams::default(), 0);
        pool.set(&[0, 3, 3, 0]);
        assert_eq!(m2.evaluate(&pool).argmax, 1);
        // Nothing to steal anywhere: the best score is ≤ 0 and nothing is cached.
        pool.set(&[0, 0, 0, 0]);
        let r = m.auxiliary_refresh(&pool).unwrap();
        assert!(!r.is_good());
        assert_eq!(r.best(), None);
        assert_eq!(m.best(), None);
        assert_eq!(m.refreshes(), 3);
    }

    #[test]
    fn the_load_floor_decides_whether_a_refresh_is_good() {
        // All loads 0: every score is 1e-4 · tasks − delay.
        let p = PerfParams {
            rate_start: 0.0,
            ..PerfParams::default()
        };
        let m = PerfMonitor::new(3, p, 0);
        m.record_probe(probe(1, ProbeOutcome::Empty, 0));
        // delay_1 = ln(2.72)·0.65 = 0.65039…: 1e-4 · 1000 − 0.65 < 0, nothing cached.
        let pool = Pool::new(&[0, 1000, 0]);
        assert_eq!(m.auxiliary_refresh(&pool).unwrap().best(), None);
        // 1e-4 · 10000 − 0.65 > 0.
        pool.set(&[0, 10000, 0]);
        let r = m.auxiliary_refresh(&pool).unwrap();
        close(r.score, 1.0 - 2.72f64.ln() * 0.65);
        assert_eq!(m.best(), Some(1));
    }

    /// The victims `s` picks for its next round on `pool`.
    fn next_round(s: &mut dyn VictimSelector, pool: &dyn PoolView) -> Vec<usize> {
        let mut round = Vec::new();
        s.next_round(pool, &mut round);
        round
    }

    /// The monitor and the selectors of a default perf policy for `workers` workers, on a
    /// manual clock (at 0), and the clock.
    fn on_manual_clock(
        workers: usize,
    ) -> (
        Arc<ManualClock>,
        Arc<PerfMonitor>,
        Vec<Box<dyn VictimSelector>>,
    ) {
        let clock = Arc::new(ManualClock::default());
        let policy = PerfVictims::default().with_clock(clock.clone());
        let (monitor, sel) = policy.selectors_with_monitor(workers);
        (clock, monitor, sel)
    }

    #[test]
    fn the_best_victim_is_cached_per_pool_and_a_thief_never_robs_itself() {
        let (clock, monitor, mut sel) = on_manual_clock(3);
        let pool = Pool::new(&[50, 4, 0]);
        clock.set_ms(1.0);
        let mut round = Vec::new();
        // Worker 0 holds the most work: it is cached, and worker 0 itself draws at random.
        sel[0].next_round(&pool, &mut round);
        assert_eq!(monitor.best(), Some(0));
        assert_eq!(round, draws(&mut RandomOther::new(0, 3), 2));
        // Worker 1 goes for 0, alone at first.
        round = next_round(sel[1].as_mut(), &pool);
        assert_eq!(round, [0]);
        assert_eq!(monitor.refreshes(), 1);
    }

    #[test]
    fn refresh_schedule() {
        let (clock, monitor, mut sel) = on_manual_clock(4);
        let mut random0 = RandomOther::new(0, 4);
        let pool = Pool::new(&[0, 5, 0, 0]);
        assert_eq!(monitor.next_refresh_ns(), 1_000_000);
        assert_eq!(monitor.interval(), ms(1));
        let mut round = Vec::new();

        // Before 1 ms: no refresh, nothing cached, a random round.
        clock.set_ms(0.999);
        sel[0].next_round(&pool, &mut round);
        assert_eq!(monitor.refreshes(), 0);
        assert_eq!(round, draws(&mut random0, 3));

        // At 1 ms: a good refresh (worker 1 scores 5): next interval 61 ms, due at 62 ms.
        clock.set_ms(1.0);
        round = next_round(sel[0].as_mut(), &pool);
        assert_eq!(monitor.refreshes(), 1);
        assert_eq!(round, [1]);
        assert_eq!(monitor.interval(), ms(61));
        assert_eq!(monitor.next_refresh_ns(), 62_000_000);
        sel[0].on_probe(&pool, probe(1, ProbeOutcome::Stolen, 0), &mut round);
        assert_eq!(round, [1]);

        // Another thief at the same instant does not refresh again.
        round = next_round(sel[2].as_mut(), &pool);
        assert_eq!(monitor.refreshes(), 1);
        assert_eq!(round, [1]);

        // Not yet due at 61.999 ms.
        clock.set_ms(61.999);
        next_round(sel[0].as_mut(), &pool);
        assert_eq!(monitor.refreshes(), 1);

        // At 62 ms: a good refresh again: 121 ms, due at 183 ms.
        clock.set_ms(62.0);
        next_round(sel[3].as_mut(), &pool);
        assert_eq!(monitor.refreshes(), 2);
        assert_eq!(monitor.interval(), ms(121));
        assert_eq!(monitor.next_refresh_ns(), 183_000_000);

        // At 200 ms with nothing anywhere: a bad refresh: 121 − 120 = 1 → 5 ms, due at
        // 205 ms; nothing cached, so the round is random.
        pool.set(&[0, 0, 0, 0]);
        clock.set_ms(200.0);
        round = next_round(sel[0].as_mut(), &pool);
        assert_eq!(monitor.refreshes(), 3);
        assert_eq!(monitor.interval(), ms(5));
        assert_eq!(monitor.next_refresh_ns(), 205_000_000);
        assert_eq!(monitor.best(), None);
        assert_eq!(round, draws(&mut random0, 3));
    }

    #[test]
    fn a_failed_steal_from_the_cached_victim_refreshes_once_and_steals_once_more() {
        let (clock, monitor, mut sel) = on_manual_clock(4);
        let mut random0 = RandomOther::new(0, 4);
        let pool = Pool::new(&[0, 5, 0, 0]);
        clock.set_ms(1.0);
        let mut round = Vec::new();
        sel[0].next_round(&pool, &mut round);
        assert_eq!(round, [1]);
        assert_eq!(monitor.refreshes(), 1);

        // 1 ran dry and 3 has work: the failed probe refreshes (not the schedule) and
        // appends 3, then the random victims.
        pool.set(&[0, 0, 0, 6]);
        sel[0].on_probe(&pool, probe(1, ProbeOutcome::Empty, 2_500), &mut round);
        assert_eq!(monitor.refreshes(), 2);
        assert_eq!(monitor.best(), Some(3));
        let mut expected = vec![1, 3];
        expected.extend(draws(&mut random0, 3));
        assert_eq!(round, expected);
        assert_eq!(monitor.interval(), ms(61));
        assert_eq!(monitor.next_refresh_ns(), 62_000_000);
        // The probe's latency went into 1's delay.
        close(monitor.delay(1), D1);
        // Later probes of the round change nothing but delays: no more refreshes, no more
        // victims.
        sel[0].on_probe(&pool, probe(3, ProbeOutcome::Busy, 0), &mut round);
        sel[0].on_probe(&pool, probe(2, ProbeOutcome::Empty, 0), &mut round);
        assert_eq!(round.len(), expected.len());
        assert_eq!(monitor.refreshes(), 2);

        // If the refresh finds the same victim again (it still has tasks: the steal lost a
        // race), the thief tries it once more.
        round = next_round(sel[0].as_mut(), &pool);
        assert_eq!(round, [3]);
        sel[0].on_probe(&pool, probe(3, ProbeOutcome::Busy, 0), &mut round);
        assert_eq!(round[..2], [3, 3]);
        assert_eq!(round.len(), 5);

        // Nothing anywhere: the refresh caches nothing, so only the random victims follow.
        pool.set(&[0, 0, 0, 0]);
        round = next_round(sel[0].as_mut(), &pool);
        assert_eq!(round, [3]);
        draws(&mut random0, 3); // the draws of the round above
        sel[0].on_probe(&pool, probe(3, ProbeOutcome::Empty, 0), &mut round);
        let mut expected = vec![3];
        expected.extend(draws(&mut random0, 3));
        assert_eq!(round, expected);
        assert_eq!(monitor.best(), None);
    }

    #[test]
    fn refreshes_are_single_flight() {
        let (clock, monitor, mut sel) = on_manual_clock(3);
        let pool = Pool::new(&[0, 5, 0]);
        clock.set_ms(5.0);

        // While another refresher holds the guard, a due refresh is skipped (and stays
        // due), and so is an auxiliary one.
        let guard = monitor.try_guard().unwrap();
        assert!(monitor.try_guard().is_none());
        let mut round = Vec::new();
        sel[0].next_round(&pool, &mut round);
        assert_eq!(monitor.refreshes(), 0);
        assert_eq!(monitor.best(), None);
        assert_eq!(monitor.interval(), ms(1));
        assert_eq!(monitor.next_refresh_ns(), 1_000_000);
        assert!(monitor.refresh_if_due(&pool, 5_000_000).is_none());
        assert!(monitor.auxiliary_refresh(&pool).is_none());
        drop(guard);

        // Released: the next round refreshes.
        round = next_round(sel[2].as_mut(), &pool);
        assert_eq!(monitor.refreshes(), 1);
        assert_eq!(round, [1]);

        // A thief whose cached steal fails while the guard is held does not refresh, and
        // does not retry the victim that just failed (the cache still names it).
        pool.set(&[0, 0, 4]);
        let guard = monitor.try_guard().unwrap();
        sel[2].on_probe(&pool, probe(1, ProbeOutcome::Empty, 0), &mut round);
        drop(guard);
        assert_eq!(monitor.refreshes(), 1);
        assert_eq!(monitor.best(), Some(1));
        let mut expected = vec![1];
        let mut random2 = RandomOther::new(2, 3);
        expected.extend(draws(&mut random2, 2));
        assert_eq!(round, expected);
    }

    #[test]
    fn task_cycles_update_the_thiefs_own_rate() {
        let (monitor, mut sel) = PerfVictims::default().selectors_with_monitor(3);
        sel[2].on_task_done(cycle(100, 0));
        close(monitor.work_rate(2), R1);
        assert_eq!(monitor.work_rate(0), 1.0);
        assert_eq!(monitor.work_rate(1), 1.0);
    }

    #[test]
    fn params() {
        let p = super::super::by_name("perf").unwrap();
        assert_eq!(p.name(), "perf");
        assert!(p.measures());
        let mut spec: PolicySpec = "perf:e=3,alpha=0.5,min-load=0.01,rate-start=2,\
            refresh-start=2ms,refresh-good=10ms,refresh-bad=20ms,refresh-min=1ms,\
            refresh-max=50ms,workers=8"
            .parse()
            .unwrap();
        let got = PerfParams::from_spec(&mut spec).unwrap();
        spec.finish().unwrap();
        assert_eq!(
            got,
            PerfParams {
                e: 3.0,
                alpha: 0.5,
                min_load: 0.01,
                rate_start: 2.0,
                refresh_start: ms(2),
                refresh_good: ms(10),
                refresh_bad: ms(20),
                refresh_min: ms(1),
                refresh_max: ms(50),
                workers: Some(8),
            }
        );
        let mut spec: PolicySpec = "perf".parse().unwrap();
        assert_eq!(
            PerfParams::from_spec(&mut spec).unwrap(),
            PerfParams::default()
        );
        for (bad, says) in [
            ("perf:e=0.5", "e=0.5: must be at least 1"),
            (
                "perf:alpha=0",
                "alpha=0: the weight of a new sample must be in (0, 1]",
            ),
            ("perf:alpha=1.5", "alpha=1.5"),
            ("perf:alpha=x", "parameter alpha=\"x\": expected a number"),
            (
                "perf:min-load=0",
                "min-load=0: the load floor must be greater than 0",
            ),
            ("perf:rate-start=-1", "rate-start=-1"),
            (
                "perf:refresh-min=300ms",
                "refresh-min (300ms) must not exceed refresh-max (240ms)",
            ),
            ("perf:refresh-max=1", "expected a duration"),
            (
                "perf:workers=0",
                "workers=0: the number of local workers must be at least 1",
            ),
            ("perf:workers=-2", "expected a non-negative integer"),
            ("perf:refresh=5ms", "unknown parameter \"refresh\""),
        ] {
            let err = super::super::by_name(bad).unwrap_err().to_string();
            assert!(err.starts_with("perf: "), "{bad}: {err}");
            assert!(err.contains(says), "{bad}: {err}");
        }
        assert!(PerfVictims::new(PerfParams {
            alpha: 0.0,
            ..PerfParams::default()
        })
        .is_err());
        // The start interval may lie outside [refresh-min, refresh-max].
        assert!(super::super::by_name("perf:refresh-start=1s").is_ok());
    }
}
