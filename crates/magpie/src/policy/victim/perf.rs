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
mod tests;
