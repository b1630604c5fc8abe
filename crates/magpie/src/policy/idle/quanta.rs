//! Dynamic-quanta idle policies, after Chapter 5 of Haselsteiner, "Adaptive Work-Stealing
//! Techniques" (TU Wien 2015, the Pheet thesis): [`DynamicQuanta`] (`dynamic-quanta`,
//! Algorithms 5.2–5.4) and its long/short extension [`LongShortQuanta`]
//! (`long-short-quanta`, §5.5, Algorithms 5.5–5.8).
//!
//! A worker's time is cut into *quanta* that have a minimum length but no fixed one: a quantum
//! can only end at a failed steal attempt, so a worker that never runs out of work is never
//! interrupted. At the end of a quantum the share of it spent stealing, `r_s`, classifies it:
//! above the threshold `T` it was *inefficient* and the worker sleeps
//! `min(d_ql·r_s·S1 + d_ql·n_iq·S2, max_sleep)` (`n_iq`: inefficient quanta in a row before
//! this one), and the next quantum is shortened to `d_ql/(n_iq·C + 1)`; an *efficient* quantum
//! resets `n_iq` and the next quantum lasts `d_ql`.
//!
//! How the contract of [`IdleState`] maps onto the algorithm: a failed steal attempt is
//! [`IdleState::on_failed_steal`], which answers `Some(IdleAction::Sleep(d))` when a quantum
//! ends inefficiently and `None` otherwise; a successful steal is
//! [`IdleState::on_work_found`] (which the runtime also calls after local pops and wake-ups;
//! unless steals failed since the last call it costs one comparison); a failed round answers [`IdleAction::Spin`] (the algorithm
//! sleeps only at the end of a quantum).
//!
//! Choices the thesis leaves open:
//! - **After a sleep.** The thesis starts the next quantum "now" right after sleeping. Here the
//!   sleep is carried out by the runtime after `on_failed_steal` returns, so the next quantum
//!   starts at the first event after the sleep (the next failed steal, or the wake-up's
//!   `on_work_found`): a sleep ended early by new work starts the quantum then, and oversleeping
//!   is not counted as stealing.
//! - **Inserted normal quantum.** Against starvation the thesis inserts "periodically" one
//!   quantum of the full length `d_ql` among many shortened ones without saying how often:
//!   here the quantum after every `normal-every`-th inefficient quantum in a row (default 8;
//!   0 never inserts one).
//! - **First failure after the end.** A quantum found over at the first failed steal after
//!   work (Alg. 5.4) is discarded: not classified, `n_iq` kept, and the next quantum gets the
//!   discarded one's minimum length.
//!
//! All times are integer nanoseconds from a [`Clock`]; computed durations are rounded to the
//! nearest nanosecond.
//!
//! (Example: the unit test `examples::module_example`.)

#[cfg(test)]
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{IdleAction, IdlePolicy, IdleState};
use crate::policy::params::{PolicySpec, SpecError};

/// The policy `spec` names, if it is one of this module's; `None` otherwise.
pub(crate) fn build(spec: &mut PolicySpec) -> Option<Result<Arc<dyn IdlePolicy>, SpecError>> {
    Some(match spec.name() {
        "dynamic-quanta" => {
            DynamicQuanta::from_spec(spec).map(|p| Arc::new(p) as Arc<dyn IdlePolicy>)
        }
        "long-short-quanta" => {
            LongShortQuanta::from_spec(spec).map(|p| Arc::new(p) as Arc<dyn IdlePolicy>)
        }
        _ => return None,
    })
}

// ---------------------------------------------------------------------------------------------
// Clocks.

/// A monotonic clock in nanoseconds, for the quanta states.
pub trait Clock: Send + 'static {
    /// Nanoseconds since some fixed point of this clock.
    fn now_ns(&self) -> u64;
}

/// The real clock: nanoseconds since the clock was made ([`Instant`] underneath).
#[derive(Debug, Clone, Copy)]
pub struct StdClock {
    epoch: Instant,
}

impl StdClock {
    /// A clock reading 0 now.
    pub fn new() -> Self {
        StdClock {
            epoch: Instant::now(),
        }
    }
}

impl Default for StdClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for StdClock {
    #[inline]
    fn now_ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }
}

/// A clock set by hand, for tests and simulations: clones share one reading, which starts at
/// 0 and moves only by [`ManualClock::set_ns`] and [`ManualClock::advance`].
///
/// (Example: the unit test `examples::manual_clock`.)
#[cfg(test)]
#[derive(Debug, Clone, Default)]
pub struct ManualClock(Arc<AtomicU64>);

#[cfg(test)]
impl ManualClock {
    /// Sets the reading to `ns`.
    pub fn set_ns(&self, ns: u64) {
        self.0.store(ns, Ordering::Relaxed);
    }

    /// Moves the reading on by `d`.
    pub fn advance(&self, d: Duration) {
        self.0.fetch_add(d.as_nanos() as u64, Ordering::Relaxed);
    }
}

#[cfg(test)]
impl Clock for ManualClock {
    fn now_ns(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

// ---------------------------------------------------------------------------------------------
// The policies.

/// `dynamic-quanta`: the thesis' dynamic quanta algorithm, final version (Algorithms 5.2, 5.3
/// and 5.4) with the parameters of Table 5.3.
///
/// | key | field | default | meaning |
/// |---|---|---|---|
/// | `s1` | `s1` | 0.4 | weight of the steal ratio `r_s` in the sleep time |
/// | `s2` | `s2` | 0.8 | weight of the inefficient quanta in a row `n_iq` in the sleep time |
/// | `max-sleep` | `max_sleep` | 1.5 ms | the longest sleep |
/// | `quantum` | `quantum` | 75 µs | the default minimum quantum length `d_ql` |
/// | `t` | `t` | 0.5 | `r_s > T` makes a quantum inefficient |
/// | `c` | `c` | 2 | after an inefficient quantum the next lasts `d_ql/(n_iq·C + 1)` |
/// | `normal-every` | `normal_every` | 8 | after every such many inefficient quanta in a row, one of length `d_ql` (0: never) |
///
/// (Example: the unit test `examples::dynamic_quanta`.)
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DynamicQuanta {
    /// `S1`: weight of the steal ratio in the sleep time (≥ 0).
    pub s1: f64,
    /// `S2`: weight of the number of inefficient quanta in a row in the sleep time (≥ 0).
    pub s2: f64,
    /// The longest sleep.
    pub max_sleep: Duration,
    /// `d_ql`: the default minimum quantum length (> 0).
    pub quantum: Duration,
    /// `T`: a quantum whose steal ratio exceeds this (in `[0, 1]`) is inefficient.
    pub t: f64,
    /// `C`: how fast quanta shrink after inefficient ones (≥ 0).
    pub c: f64,
    /// After every `normal_every`-th inefficient quantum in a row, the next quantum has the
    /// full length `d_ql` (0: never).
    pub normal_every: u32,
}

impl Default for DynamicQuanta {
    fn default() -> Self {
        DynamicQuanta {
            s1: 0.4,
            s2: 0.8,
            max_sleep: Duration::from_micros(1500),
            quantum: Duration::from_micros(75),
            t: 0.5,
            c: 2.0,
            normal_every: 8,
        }
    }
}

impl DynamicQuanta {
    /// `dynamic-quanta:s1=0.4,s2=0.8,max-sleep=1.5ms,quantum=75us,t=0.5,c=2,normal-every=8`.
    pub fn from_spec(spec: &mut PolicySpec) -> Result<Self, SpecError> {
        let d = Self::default();
        let p = read_common(spec, &d.common())?;
        Ok(DynamicQuanta {
            s1: p.s1,
            s2: p.s2,
            max_sleep: p.max_sleep,
            quantum: p.quantum,
            t: p.t,
            c: p.c,
            normal_every: p.normal_every,
        })
    }

    /// The state of one worker, reading time from `clock`.
    pub fn state_with_clock<C: Clock>(&self, clock: C) -> QuantaState<C> {
        QuantaState::new(self.common(), None, clock)
    }

    fn common(&self) -> Common {
        Common {
            s1: self.s1,
            s2: self.s2,
            max_sleep: self.max_sleep,
            quantum: self.quantum,
            t: self.t,
            c: self.c,
            normal_every: self.normal_every,
        }
    }
}

impl IdlePolicy for DynamicQuanta {
    fn name(&self) -> &str {
        "dynamic-quanta"
    }

    fn state(&self, _index: usize) -> Box<dyn IdleState> {
        Box::new(self.state_with_clock(StdClock::new()))
    }
}

/// When a short quantum of [`LongShortQuanta`] counts as inefficient ("ConditionInefficientQuantum"
/// of Algorithm 5.7), from its steal ratio `r_s` and the long-quantum ratio `r_ls`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inefficiency {
    /// `r_s > T` (`cond=short`): the long quanta only scale the sleep.
    Short,
    /// `r_s > T ∧ r_ls > T` (`cond=and`).
    And,
    /// `r_s > T ∨ r_ls > T` (`cond=or`, the thesis' choice).
    Or,
    /// `(r_s + r_ls)/2 > T` (`cond=mean`).
    Mean,
}

impl Inefficiency {
    /// Whether a quantum with these ratios is inefficient under threshold `t`.
    pub fn holds(self, r_s: f64, r_ls: f64, t: f64) -> bool {
        match self {
            Inefficiency::Short => r_s > t,
            Inefficiency::And => r_s > t && r_ls > t,
            Inefficiency::Or => r_s > t || r_ls > t,
            Inefficiency::Mean => (r_s + r_ls) / 2.0 > t,
        }
    }

    fn key(self) -> &'static str {
        match self {
            Inefficiency::Short => "short",
            Inefficiency::And => "and",
            Inefficiency::Or => "or",
            Inefficiency::Mean => "mean",
        }
    }
}

/// `long-short-quanta`: the thesis' long and short quanta algorithm (§5.5, Algorithms 5.5–5.8,
/// parameters of Table 5.4). Besides the short dynamic quanta, each worker measures its steal
/// ratio over *long* quanta (minimum length `d_lql`); the sleep after an inefficient short
/// quantum becomes `min(d_ql·r_s·r_ls·S1 + d_ql·n_iq·S2, max_sleep)` with
/// `r_ls = (d_ls/(now − t_lqs) + r_pls)/2`, the mean of the current long quantum's steal
/// ratio and the previous one's (0 before the first long quantum ended). Sleeps are excluded
/// from the long quantum.
///
/// Keys and defaults as for [`DynamicQuanta`] except `s1` 0.8 and `t` 0.6, plus
/// `long-quantum` (`d_lql`, 3 ms) and `cond` (`or`; also `short`, `and`, `mean`: see
/// [`Inefficiency`]).
///
/// (Example: the unit test `examples::long_short_quanta`.)
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LongShortQuanta {
    /// `S1`: weight of the steal ratios in the sleep time (≥ 0).
    pub s1: f64,
    /// `S2`: weight of the number of inefficient quanta in a row in the sleep time (≥ 0).
    pub s2: f64,
    /// The longest sleep.
    pub max_sleep: Duration,
    /// `d_ql`: the default minimum length of a short quantum (> 0).
    pub quantum: Duration,
    /// `d_lql`: the minimum length of a long quantum (> 0).
    pub long_quantum: Duration,
    /// `T`: the threshold of [`LongShortQuanta::condition`] (in `[0, 1]`).
    pub t: f64,
    /// `C`: how fast short quanta shrink after inefficient ones (≥ 0).
    pub c: f64,
    /// After every `normal_every`-th inefficient quantum in a row, the next quantum has the
    /// full length `d_ql` (0: never).
    pub normal_every: u32,
    /// When a short quantum is inefficient.
    pub condition: Inefficiency,
}

impl Default for LongShortQuanta {
    fn default() -> Self {
        LongShortQuanta {
            s1: 0.8,
            s2: 0.8,
            max_sleep: Duration::from_micros(1500),
            quantum: Duration::from_micros(75),
            long_quantum: Duration::from_millis(3),
            t: 0.6,
            c: 2.0,
            normal_every: 8,
            condition: Inefficiency::Or,
        }
    }
}

impl LongShortQuanta {
    /// `long-short-quanta:s1=0.8,s2=0.8,max-sleep=1.5ms,quantum=75us,long-quantum=3ms,t=0.6,
    /// c=2,normal-every=8,cond=or`.
    pub fn from_spec(spec: &mut PolicySpec) -> Result<Self, SpecError> {
        let d = Self::default();
        let p = read_common(spec, &d.common())?;
        let long_quantum = spec.duration("long-quantum", d.long_quantum)?;
        spec.check(
            !long_quantum.is_zero(),
            "long-quantum must be greater than 0",
        )?;
        let cond = spec.string("cond", d.condition.key());
        let condition = match cond.to_ascii_lowercase().as_str() {
            "short" => Inefficiency::Short,
            "and" => Inefficiency::And,
            "or" => Inefficiency::Or,
            "mean" => Inefficiency::Mean,
            _ => {
                return Err(SpecError::new(format!(
                    "{}: parameter cond={cond:?}: expected short, and, or or mean",
                    spec.name()
                )))
            }
        };
        Ok(LongShortQuanta {
            s1: p.s1,
            s2: p.s2,
            max_sleep: p.max_sleep,
            quantum: p.quantum,
            long_quantum,
            t: p.t,
            c: p.c,
            normal_every: p.normal_every,
            condition,
        })
    }

    /// The state of one worker, reading time from `clock`.
    pub fn state_with_clock<C: Clock>(&self, clock: C) -> QuantaState<C> {
        QuantaState::new(self.common(), Some(self.long()), clock)
    }

    fn common(&self) -> Common {
        Common {
            s1: self.s1,
            s2: self.s2,
            max_sleep: self.max_sleep,
            quantum: self.quantum,
            t: self.t,
            c: self.c,
            normal_every: self.normal_every,
        }
    }

    fn long(&self) -> LongParams {
        LongParams {
            long_quantum: self.long_quantum,
            condition: self.condition,
        }
    }
}

impl IdlePolicy for LongShortQuanta {
    fn name(&self) -> &str {
        "long-short-quanta"
    }

    fn state(&self, _index: usize) -> Box<dyn IdleState> {
        Box::new(self.state_with_clock(StdClock::new()))
    }
}

/// The parameters both algorithms share.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Common {
    s1: f64,
    s2: f64,
    max_sleep: Duration,
    quantum: Duration,
    t: f64,
    c: f64,
    normal_every: u32,
}

/// The long-quantum parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
struct LongParams {
    long_quantum: Duration,
    condition: Inefficiency,
}

/// Reads and checks the parameters both policies share.
fn read_common(spec: &mut PolicySpec, d: &Common) -> Result<Common, SpecError> {
    let non_negative = |spec: &PolicySpec, key: &str, v: f64| {
        spec.check(v >= 0.0, &format!("{key}={v} must not be negative"))
    };
    let s1 = spec.float("s1", d.s1)?;
    non_negative(spec, "s1", s1)?;
    let s2 = spec.float("s2", d.s2)?;
    non_negative(spec, "s2", s2)?;
    let max_sleep = spec.duration("max-sleep", d.max_sleep)?;
    let quantum = spec.duration("quantum", d.quantum)?;
    spec.check(!quantum.is_zero(), "quantum must be greater than 0")?;
    let t = spec.float("t", d.t)?;
    spec.check(
        (0.0..=1.0).contains(&t),
        &format!("t={t} must lie in [0, 1]"),
    )?;
    let c = spec.float("c", d.c)?;
    non_negative(spec, "c", c)?;
    let normal_every = spec.uint("normal-every", d.normal_every.into())?;
    let normal_every = u32::try_from(normal_every).map_err(|_| {
        SpecError::new(format!(
            "{}: normal-every={normal_every} is too large",
            spec.name()
        ))
    })?;
    Ok(Common {
        s1,
        s2,
        max_sleep,
        quantum,
        t,
        c,
        normal_every,
    })
}

// ---------------------------------------------------------------------------------------------
// The state machine.

/// The per-worker state of [`DynamicQuanta`] and [`LongShortQuanta`] (the latter with its
/// long-quantum part), generic over its [`Clock`]. Variable names follow the thesis: `t_*`
/// are points in time, `d_*` durations, `n_*` counters, all in nanoseconds.
#[derive(Debug)]
pub struct QuantaState<C: Clock = StdClock> {
    clock: C,
    p: Params,
    /// Start of the current quantum.
    t_qs: u64,
    /// Earliest end of the current quantum.
    t_qe: u64,
    /// Time of the first failure of the current series of failures.
    t_us: u64,
    /// Time spent stealing in the current quantum.
    d_s: u64,
    /// Failed steal attempts since the last success.
    n_ua: u64,
    /// Inefficient quanta in a row.
    n_iq: u32,
    /// A sleep was asked for and the next quantum starts at the next event.
    resume: Option<Resume>,
    /// The long quanta, for [`LongShortQuanta`].
    long: Option<Long>,
}

/// Parameters in the state's units.
#[derive(Debug, Clone, Copy)]
struct Params {
    s1: f64,
    s2: f64,
    max_sleep_ns: f64,
    d_ql: u64,
    t: f64,
    c: f64,
    normal_every: u32,
    condition: Inefficiency,
}

/// A sleep in progress: when it was asked for, how long, and the next quantum's length.
#[derive(Debug, Clone, Copy)]
struct Resume {
    since: u64,
    sleep_ns: u64,
    next_len: u64,
}

/// The long-quantum variables of Algorithms 5.5–5.8.
#[derive(Debug, Clone, Copy)]
struct Long {
    d_lql: u64,
    /// Start of the current long quantum (moved on by the sleeps in it).
    t_lqs: u64,
    /// Earliest end of the current long quantum.
    t_lqe: u64,
    /// Time spent stealing in the current long quantum.
    d_ls: u64,
    /// Since when stealing is not yet counted in `d_ls`.
    t_lus: u64,
    /// Steal ratio of the previous long quantum.
    r_pls: f64,
}

impl Long {
    /// Algorithm 5.8.
    fn end(&mut self, now: u64) {
        self.r_pls = ratio(self.d_ls, now.saturating_sub(self.t_lqs));
        self.t_lqs = now;
        self.t_lus = now;
        self.t_lqe = now.saturating_add(self.d_lql);
        self.d_ls = 0;
    }

    /// `r_ls` of Equation 5.5.
    fn r_ls(&self, now: u64) -> f64 {
        (ratio(self.d_ls, now.saturating_sub(self.t_lqs)) + self.r_pls) / 2.0
    }
}

/// `part/whole`, 0 for an empty whole.
fn ratio(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

fn round_ns(ns: f64) -> u64 {
    ns.max(0.0).round() as u64
}

impl<C: Clock> QuantaState<C> {
    fn new(common: Common, long: Option<LongParams>, clock: C) -> Self {
        let now = clock.now_ns();
        let d_ql = common.quantum.as_nanos() as u64;
        QuantaState {
            p: Params {
                s1: common.s1,
                s2: common.s2,
                max_sleep_ns: common.max_sleep.as_nanos() as f64,
                d_ql,
                t: common.t,
                c: common.c,
                normal_every: common.normal_every,
                condition: long.map_or(Inefficiency::Short, |l| l.condition),
            },
            t_qs: now,
            t_qe: now.saturating_add(d_ql),
            t_us: now,
            d_s: 0,
            n_ua: 0,
            n_iq: 0,
            resume: None,
            long: long.map(|l| {
                let d_lql = l.long_quantum.as_nanos() as u64;
                Long {
                    d_lql,
                    t_lqs: now,
                    t_lqe: now.saturating_add(d_lql),
                    d_ls: 0,
                    t_lus: now,
                    r_pls: 0.0,
                }
            }),
            clock,
        }
    }

    /// The number of inefficient quanta in a row so far.
    #[cfg(test)]
    pub fn inefficient_quanta(&self) -> u32 {
        self.n_iq
    }

    /// The minimum length of the current quantum.
    #[cfg(test)]
    pub fn quantum_length(&self) -> Duration {
        match self.resume {
            Some(r) => Duration::from_nanos(r.next_len),
            None => Duration::from_nanos(self.t_qe.saturating_sub(self.t_qs)),
        }
    }

    /// Starts a quantum of minimum length `len` at `now` (the tail of Algorithm 5.3).
    fn start_quantum(&mut self, now: u64, len: u64) {
        self.d_s = 0;
        self.t_qs = now;
        self.t_us = now;
        self.t_qe = now.saturating_add(len);
        if let Some(l) = &mut self.long {
            // Algorithm 5.5, line 18.
            l.t_lus = now;
        }
    }

    /// The first event after a sleep: what the thesis does right after `Sleep(st)`.
    fn wake(&mut self, now: u64, r: Resume) {
        self.start_quantum(now, r.next_len);
        if let Some(l) = &mut self.long {
            // Algorithm 5.7, line 8 (a sleep cut short by work excludes only what it slept).
            l.t_lqs = l
                .t_lqs
                .saturating_add(r.sleep_ns.min(now.saturating_sub(r.since)));
            // Algorithm 5.5, lines 21–26, after a short quantum ended.
            if l.t_lqe < now {
                l.end(now);
            }
        }
    }

    /// Algorithms 5.3 and 5.7: classifies the quantum that just ended; `Some(sleep)` when it
    /// was inefficient (the next quantum then starts when the sleep is over).
    fn on_quantum_end(&mut self, now: u64) -> Option<IdleAction> {
        let p = self.p;
        let r_s = ratio(self.d_s, now.saturating_sub(self.t_qs));
        let (inefficient, r_ls) = match &self.long {
            None => (r_s > p.t, 1.0),
            Some(l) => {
                let r_ls = l.r_ls(now);
                (p.condition.holds(r_s, r_ls, p.t), r_ls)
            }
        };
        if !inefficient {
            self.n_iq = 0;
            self.start_quantum(now, p.d_ql);
            return None;
        }
        let d_ql = p.d_ql as f64;
        let st =
            (d_ql * r_s * r_ls * p.s1 + d_ql * f64::from(self.n_iq) * p.s2).min(p.max_sleep_ns);
        let st = round_ns(st);
        self.n_iq = self.n_iq.saturating_add(1);
        let next_len = if p.normal_every > 0 && self.n_iq % p.normal_every == 0 {
            p.d_ql
        } else {
            round_ns(d_ql / (f64::from(self.n_iq) * p.c + 1.0))
        };
        self.d_s = 0;
        self.resume = Some(Resume {
            since: now,
            sleep_ns: st,
            next_len,
        });
        Some(IdleAction::Sleep(Duration::from_nanos(st)))
    }
}

impl<C: Clock> IdleState for QuantaState<C> {
    /// Algorithm 5.4 (5.5 with long quanta).
    fn on_failed_steal(&mut self) -> Option<IdleAction> {
        let now = self.clock.now_ns();
        if let Some(r) = self.resume.take() {
            self.wake(now, r);
        }
        let mut action = None;
        if self.n_ua == 0 {
            // The first failure after work.
            if self.t_qe < now {
                // The quantum ended while working: discard it (n_iq untouched) and start one
                // as long as it was.
                self.d_s = 0;
                self.t_qe = now.saturating_add(self.t_qe - self.t_qs);
                self.t_qs = now;
            }
            if let Some(l) = &mut self.long {
                if l.t_lqe < now {
                    l.end(now);
                }
                l.t_lus = now;
            }
            self.t_us = now;
        } else {
            let short_end = self.t_qe < now;
            if short_end {
                self.d_s += now.saturating_sub(self.t_us);
                if let Some(l) = &mut self.long {
                    l.d_ls += now.saturating_sub(l.t_lus);
                }
                action = self.on_quantum_end(now);
            }
            // After a sleep the long quantum is looked at when the sleep is over (`wake`).
            if action.is_none() {
                if let Some(l) = &mut self.long {
                    if l.t_lqe < now {
                        if !short_end {
                            l.d_ls += now.saturating_sub(l.t_lus);
                        }
                        l.end(now);
                    }
                }
            }
        }
        self.n_ua = self.n_ua.saturating_add(1);
        action
    }

    fn on_failed_round(&mut self) -> IdleAction {
        IdleAction::Spin
    }

    /// Algorithm 5.2 (5.6 with long quanta); one comparison unless stealing failed before.
    #[inline]
    fn on_work_found(&mut self) {
        if self.n_ua == 0 {
            return;
        }
        let now = self.clock.now_ns();
        if let Some(r) = self.resume.take() {
            self.wake(now, r);
        }
        self.d_s += now.saturating_sub(self.t_us);
        if let Some(l) = &mut self.long {
            l.d_ls += now.saturating_sub(l.t_lus);
        }
        self.n_ua = 0;
    }
}

#[cfg(test)]
mod tests;

/// The examples of this module's items: unit tests, since the module is private to the
/// crate (policies are reached through `by_name` and their spec strings).
#[cfg(test)]
mod examples {
    use crate::policy::idle::quanta::{Clock, DynamicQuanta, LongShortQuanta, ManualClock};
    use crate::policy::{IdleAction, IdleState};
    use std::time::Duration;

    /// Fails to steal from t = 0 to 80 µs, past a whole quantum (75 µs) of nothing but
    /// stealing: what `s` answers at the end.
    fn steal_in_vain_for_80us(clock: &ManualClock, s: &mut impl IdleState) -> Option<IdleAction> {
        assert_eq!(s.on_failed_steal(), None);
        clock.set_ns(80_000);
        s.on_failed_steal()
    }

    #[test]
    fn module_example() {
        let clock = ManualClock::default();
        let mut s = DynamicQuanta::default().state_with_clock(clock.clone());
        // r_s = 1 > T: sleep d_ql·r_s·S1 = 75 µs · 1 · 0.4.
        let sleep = Duration::from_micros(30);
        assert_eq!(
            steal_in_vain_for_80us(&clock, &mut s),
            Some(IdleAction::Sleep(sleep))
        );
    }

    #[test]
    fn manual_clock() {
        let c = ManualClock::default();
        c.clone().advance(Duration::from_micros(3));
        assert_eq!(c.now_ns(), 3_000);
    }

    #[test]
    fn dynamic_quanta() {
        let clock = ManualClock::default();
        let mut s = DynamicQuanta::default().state_with_clock(clock.clone());
        assert_eq!(s.on_failed_steal(), None); // t = 0: stealing starts
        clock.set_ns(40_000);
        s.on_work_found(); // stole after 40 µs
        clock.set_ns(70_000);
        assert_eq!(s.on_failed_steal(), None); // out of work again
        clock.set_ns(80_000);
        // The quantum (0–80 µs) ended: 50 µs of 80 stealing, r_s = 0.625 > 0.5: inefficient.
        let sleep = Duration::from_nanos(18_750); // 75 µs · 0.625 · 0.4
        assert_eq!(s.on_failed_steal(), Some(IdleAction::Sleep(sleep)));
        assert_eq!(s.on_failed_round(), IdleAction::Spin);
    }

    #[test]
    fn long_short_quanta() {
        let clock = ManualClock::default();
        let mut s = LongShortQuanta::default().state_with_clock(clock.clone());
        // r_s = 1, r_ls = (1 + 0)/2: sleep 75 µs · 1 · 0.5 · 0.8.
        let sleep = Duration::from_micros(30);
        assert_eq!(
            steal_in_vain_for_80us(&clock, &mut s),
            Some(IdleAction::Sleep(sleep))
        );
    }
}
