//! Backoff idle policies: what a thief does after a failed round, after Chapter 4 of
//! Haselsteiner, "Adaptive Work-Stealing Techniques" (TU Wien 2015, the Pheet thesis), plus
//! YewPar's worker loop.
//!
//! Three policies never sleep: [`SpinIdle`] (`spin`, Pheet's "noop"), [`YieldIdle`] (`yield`)
//! and [`YieldAbpIdle`] (`yield-abp`). The others are *timed backoffs*: a per-worker backoff
//! time `bt` starts at `min`; every failed round sleeps `bt` (a self-waking
//! [`IdleAction::Sleep`]) and then grows `bt` by the policy's rule, never past `max`; finding
//! work resets `bt` to `min` at once (the thesis' "hard reset"). All of them share one state,
//! [`BackoffState`], driven by a [`BackoffRule`] that says what the next backoff time is:
//!
//! | name | rule after each failed round |
//! |---|---|
//! | `pheet` | `bt = min(bt·r, max)`, sleep a uniform random time in `[0, bt]` |
//! | `yewpar` | `bt = min(bt·r, max)` |
//! | `linear` | `bt = min(bt + step, max)` |
//! | `exponential` | `bt = min(bt·r, max)` |
//! | `exp-linear` | exponential up to `threshold`, then linear up to `max` |
//! | `linear-exp` | linear up to `threshold`, then exponential up to `max` |
//! | `linear-combination` | `t·linear + (1−t)·exponential`, each its own `bt` |
//!
//! Every timed backoff also takes `random` (a flag): sleep a uniform random time in `[0, bt]`
//! instead of `bt` (the thesis' "limit-max" randomness; on by default only for `pheet`).
//! Sleep times are rounded to the nearest nanosecond.
//!
//! ```
//! use magpie::policy::idle::by_name;
//! use magpie::policy::IdleAction;
//! use std::time::Duration;
//!
//! let p = by_name("linear:min=10us,step=50us,max=100us").unwrap();
//! let mut s = p.state(0);
//! let us = |n| IdleAction::Sleep(Duration::from_micros(n));
//! assert_eq!(s.on_failed_round(), us(10));
//! assert_eq!(s.on_failed_round(), us(60));
//! assert_eq!(s.on_failed_round(), us(100));
//! s.on_work_found();
//! assert_eq!(s.on_failed_round(), us(10));
//! ```

use std::fmt::Debug;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use super::{IdleAction, IdlePolicy, IdleState};
use crate::policy::params::{PolicySpec, SpecError};
use crate::policy::XorShift64Star;

/// The policy `spec` names, if it is one of this module's; `None` otherwise.
pub(crate) fn build(spec: &mut PolicySpec) -> Option<Result<Arc<dyn IdlePolicy>, SpecError>> {
    fn arc<P: IdlePolicy + 'static>(
        p: Result<P, SpecError>,
    ) -> Result<Arc<dyn IdlePolicy>, SpecError> {
        p.map(|p| Arc::new(p) as Arc<dyn IdlePolicy>)
    }
    Some(match spec.name() {
        "spin" => arc(Ok(SpinIdle)),
        "yield" => arc(Ok(YieldIdle)),
        "yield-abp" => arc(Ok(YieldAbpIdle)),
        "pheet" => arc(PheetBackoff::from_spec(spec)),
        "yewpar" => arc(YewParBackoff::from_spec(spec)),
        "linear" => arc(LinearBackoff::from_spec(spec)),
        "exponential" => arc(ExponentialBackoff::from_spec(spec)),
        "exp-linear" => arc(ExpLinearBackoff::from_spec(spec)),
        "linear-exp" => arc(LinearExpBackoff::from_spec(spec)),
        "linear-combination" => arc(LinearCombinationBackoff::from_spec(spec)),
        _ => return None,
    })
}

// ---------------------------------------------------------------------------------------------
// Policies that never sleep.

/// `spin`: never blocks; every failed round answers [`IdleAction::Spin`] (Pheet's "noop"
/// backoff, the thesis' "nobackoff" baseline).
///
/// (Example: the unit test `examples::spin_idle`.)
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SpinIdle;

/// `yield`: yields the CPU to the OS after every failed round.
///
/// (Example: the unit test `examples::yield_idle`.)
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct YieldIdle;

/// `yield-abp`: yields after *every* failed steal attempt, like the thief of Arora, Blumofe
/// and Plaxton's scheduler. A failed round yields as well, so that a round with no victims
/// at all (a one-worker pool) does not turn into a hot spin.
///
/// (Example: the unit test `examples::yield_abp_idle`.)
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct YieldAbpIdle;

/// The state of [`SpinIdle`], [`YieldIdle`] and [`YieldAbpIdle`]: nothing to remember.
#[derive(Debug, Clone, Copy)]
struct Constant {
    after_steal: Option<IdleAction>,
    after_round: IdleAction,
}

impl IdleState for Constant {
    fn on_failed_steal(&mut self) -> Option<IdleAction> {
        self.after_steal
    }

    fn on_failed_round(&mut self) -> IdleAction {
        self.after_round
    }

    fn on_work_found(&mut self) {}
}

impl IdlePolicy for SpinIdle {
    fn name(&self) -> &str {
        "spin"
    }

    fn state(&self, _index: usize) -> Box<dyn IdleState> {
        Box::new(Constant {
            after_steal: None,
            after_round: IdleAction::Spin,
        })
    }
}

impl IdlePolicy for YieldIdle {
    fn name(&self) -> &str {
        "yield"
    }

    fn state(&self, _index: usize) -> Box<dyn IdleState> {
        Box::new(Constant {
            after_steal: None,
            after_round: IdleAction::Yield,
        })
    }
}

impl IdlePolicy for YieldAbpIdle {
    fn name(&self) -> &str {
        "yield-abp"
    }

    fn state(&self, _index: usize) -> Box<dyn IdleState> {
        Box::new(Constant {
            after_steal: Some(IdleAction::Yield),
            after_round: IdleAction::Yield,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// The generic timed backoff.

/// A "next sleep time" rule: what a timed backoff sleeps after each failed round.
///
/// The rule is pure; the per-worker progress lives in a [`BackoffState`] as a `Level` (the
/// current backoff time in nanoseconds, or two of them for a combination).
pub trait BackoffRule: Debug + Clone + Send + Sync + 'static {
    /// The per-worker progress of the rule.
    type Level: Copy + Debug + Send + 'static;
    /// The level at the start and after work was found (a hard reset).
    fn start(&self) -> Self::Level;
    /// The backoff time at `level`, in nanoseconds.
    fn backoff_ns(&self, level: Self::Level) -> f64;
    /// The level after one more failed round.
    fn next(&self, level: Self::Level) -> Self::Level;
    /// Whether a failed round sleeps a uniform random time in `[0, bt]` instead of `bt`.
    fn random(&self) -> bool;
}

/// The per-worker state of every timed backoff: sleeps the rule's current backoff time after
/// each failed round, then moves the rule one level on; work found resets it.
///
/// (Example: the unit test `examples::backoff_state`.)
#[derive(Debug, Clone)]
pub struct BackoffState<R: BackoffRule> {
    rule: R,
    level: R::Level,
    rng: XorShift64Star,
}

impl<R: BackoffRule> BackoffState<R> {
    /// The state of worker `index` (which seeds its random draws, if the rule has any).
    pub fn new(rule: R, index: usize) -> Self {
        let level = rule.start();
        BackoffState {
            rule,
            level,
            rng: XorShift64Star::new(index as u64 ^ 0x0062_6163_6B6F_6666),
        }
    }

    /// The current backoff time `bt`: what the next failed round sleeps (at most, when the
    /// rule is random).
    #[cfg(test)]
    pub fn backoff_time(&self) -> Duration {
        nanos(self.rule.backoff_ns(self.level))
    }
}

impl<R: BackoffRule> IdleState for BackoffState<R> {
    fn on_failed_round(&mut self) -> IdleAction {
        let bt = self.rule.backoff_ns(self.level);
        self.level = self.rule.next(self.level);
        let sleep = if self.rule.random() {
            // Uniform in [0, 1], both ends included.
            let u = (self.rng.next_u64() >> 11) as f64 / ((1u64 << 53) - 1) as f64;
            bt * u
        } else {
            bt
        };
        IdleAction::Sleep(nanos(sleep))
    }

    fn on_work_found(&mut self) {
        self.level = self.rule.start();
    }
}

/// Nanoseconds (non-negative, finite) to a duration, rounded to the nearest nanosecond.
fn nanos(ns: f64) -> Duration {
    Duration::from_nanos(ns.max(0.0).round() as u64)
}

fn ns(d: Duration) -> f64 {
    d.as_nanos() as f64
}

/// One step of a truncated linear backoff.
fn linear_next(bt: f64, step: Duration, cap: Duration) -> f64 {
    (bt + ns(step)).min(ns(cap))
}

/// One step of a truncated exponential backoff.
fn exp_next(bt: f64, r: f64, cap: Duration) -> f64 {
    (bt * r).min(ns(cap))
}

// ---------------------------------------------------------------------------------------------
// Parameter reading and checks shared by the timed backoffs.

/// Reads `min` and `max` and checks `min ≤ max`.
fn read_min_max(
    spec: &mut PolicySpec,
    min: Duration,
    max: Duration,
) -> Result<(Duration, Duration), SpecError> {
    let min = spec.duration("min", min)?;
    let max = spec.duration("max", max)?;
    check_order(spec, ("min", min), ("max", max))?;
    Ok((min, max))
}

/// Checks `a ≤ b` for two duration parameters.
fn check_order(
    spec: &PolicySpec,
    (ka, a): (&str, Duration),
    (kb, b): (&str, Duration),
) -> Result<(), SpecError> {
    spec.check(
        a <= b,
        &format!("{ka}={a:?} must not be greater than {kb}={b:?}"),
    )
}

/// Reads a growth factor `key` and checks that it is greater than 1.
fn read_factor(spec: &mut PolicySpec, key: &str, default: f64) -> Result<f64, SpecError> {
    let r = spec.float(key, default)?;
    spec.check(r > 1.0, &format!("{key}={r} must be greater than 1"))?;
    Ok(r)
}

/// Checks that the duration `key`, where an exponential backoff starts, is positive.
fn check_exp_start(spec: &PolicySpec, key: &str, d: Duration) -> Result<(), SpecError> {
    spec.check(
        !d.is_zero(),
        &format!("{key} must be greater than 0 (an exponential backoff from 0 stays at 0)"),
    )
}

// ---------------------------------------------------------------------------------------------
// The timed backoffs.

/// The default parameters, and the name, of one of the truncated exponential backoffs
/// ([`ExpBackoff`]): `pheet`, `yewpar` and `exponential` are the same rule, `bt` from `min`
/// times `r` each failed round up to `max`, and differ only in these.
pub trait ExpPreset: Debug + Clone + Copy + PartialEq + Default + Send + Sync + 'static {
    /// The policy's name in a spec string.
    const NAME: &'static str;
    /// The default first backoff time.
    const MIN: Duration;
    /// The default largest backoff time.
    const MAX: Duration;
    /// The default growth factor (> 1).
    const R: f64;
    /// Whether a failed round sleeps a uniform random time in `[0, bt]` by default.
    const RANDOM: bool;
    /// Whether `r` is read before `min` and `max` (as `exponential`'s spec lists it), which
    /// decides which mistake a spec with several is reported for.
    const R_FIRST: bool = false;
}

/// A truncated exponential backoff: `bt` from `min`, times `r` each failed round, up to
/// `max`; with `random`, each failed round sleeps a uniform random time in `[0, bt]`. Its
/// name and defaults come from the preset `P`: [`PheetBackoff`], [`YewParBackoff`] and
/// [`ExponentialBackoff`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExpBackoff<P: ExpPreset> {
    /// The first backoff time.
    pub min: Duration,
    /// The largest backoff time.
    pub max: Duration,
    /// The growth factor (> 1).
    pub r: f64,
    /// Sleep a uniform random time in `[0, bt]` rather than `bt`.
    pub random: bool,
    preset: PhantomData<P>,
}

impl<P: ExpPreset> Default for ExpBackoff<P> {
    fn default() -> Self {
        ExpBackoff::new(P::MIN, P::MAX, P::R, P::RANDOM)
    }
}

impl<P: ExpPreset> ExpBackoff<P> {
    /// The backoff with these parameters.
    pub fn new(min: Duration, max: Duration, r: f64, random: bool) -> Self {
        ExpBackoff {
            min,
            max,
            r,
            random,
            preset: PhantomData,
        }
    }

    /// The preset's defaults, overridden by `min`, `max`, `r` and `random` in `spec`.
    pub fn from_spec(spec: &mut PolicySpec) -> Result<Self, SpecError> {
        let r_first = P::R_FIRST
            .then(|| read_factor(spec, "r", P::R))
            .transpose()?;
        let (min, max) = read_min_max(spec, P::MIN, P::MAX)?;
        check_exp_start(spec, "min", min)?;
        let r = match r_first {
            Some(r) => r,
            None => read_factor(spec, "r", P::R)?,
        };
        let random = spec.flag("random", P::RANDOM)?;
        Ok(ExpBackoff::new(min, max, r, random))
    }
}

impl<P: ExpPreset> BackoffRule for ExpBackoff<P> {
    type Level = f64;

    fn start(&self) -> f64 {
        ns(self.min)
    }

    fn backoff_ns(&self, bt: f64) -> f64 {
        bt
    }

    fn next(&self, bt: f64) -> f64 {
        exp_next(bt, self.r, self.max)
    }

    fn random(&self) -> bool {
        self.random
    }
}

impl<P: ExpPreset> IdlePolicy for ExpBackoff<P> {
    fn name(&self) -> &str {
        P::NAME
    }

    fn state(&self, index: usize) -> Box<dyn IdleState> {
        Box::new(BackoffState::new(*self, index))
    }
}

/// The preset of [`PheetBackoff`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Pheet;

impl ExpPreset for Pheet {
    const NAME: &'static str = "pheet";
    const MIN: Duration = Duration::from_nanos(100);
    const MAX: Duration = Duration::from_micros(100);
    const R: f64 = 2.0;
    const RANDOM: bool = true;
}

/// `pheet`: the backoff Pheet used by default before the thesis (its "original" backoff): a
/// truncated exponential backoff, `bt` from `min` = 100 ns doubling (`r` = 2) up to `max` =
/// 0.1 ms, each failed round sleeping a uniform random time in `[0, bt]`.
///
/// Parameters: `min`, `max`, `r`, `random` (default `true`); the spec with its defaults is
/// `pheet:min=100ns,max=100us,r=2,random=true`.
///
/// (Example: the unit test `examples::pheet_backoff`.)
pub type PheetBackoff = ExpBackoff<Pheet>;

/// The preset of [`YewParBackoff`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct YewPar;

impl ExpPreset for YewPar {
    const NAME: &'static str = "yewpar";
    const MIN: Duration = Duration::from_micros(100);
    const MAX: Duration = Duration::from_millis(500);
    const R: f64 = 2.0;
    const RANDOM: bool = false;
}

/// `yewpar`: the sleep of YewPar's worker loop when it finds no work: `bt` from `min` =
/// 100 µs doubling (`r` = 2) up to `max` = 500 ms.
///
/// Parameters: `min`, `max`, `r`, `random` (default `false`); the spec with its defaults is
/// `yewpar:min=100us,max=500ms,r=2,random=false`.
///
/// (Example: the unit test `examples::yew_par_backoff`.)
pub type YewParBackoff = ExpBackoff<YewPar>;

/// The preset of [`ExponentialBackoff`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Thesis;

impl ExpPreset for Thesis {
    const NAME: &'static str = "exponential";
    const MIN: Duration = Duration::from_micros(10);
    const MAX: Duration = Duration::from_micros(500);
    const R: f64 = 1.3;
    const RANDOM: bool = false;
    const R_FIRST: bool = true;
}

/// `exponential`: the thesis' tuned exponential backoff (Table 4.2): `bt` from `min` =
/// 10 µs, times `r` = 1.3 each failed round, up to `max` = 0.5 ms.
///
/// Parameters: `r`, `min`, `max`, `random` (default `false`); the spec with its defaults is
/// `exponential:r=1.3,min=10us,max=500us,random=false`.
///
/// (Example: the unit test `examples::exponential_backoff`.)
pub type ExponentialBackoff = ExpBackoff<Thesis>;

/// `linear`: the thesis' best backoff (Table 4.1): `bt` from `min` = 10 µs, plus `step` =
/// 50 µs each failed round, up to `max` = 0.5 ms; hard reset when work is found.
///
/// Parameters: `min`, `step`, `max`, `random` (default `false`).
///
/// (Example: the unit test `examples::linear_backoff`.)
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearBackoff {
    /// The first backoff time.
    pub min: Duration,
    /// Added to the backoff time after each failed round.
    pub step: Duration,
    /// The largest backoff time.
    pub max: Duration,
    /// Sleep a uniform random time in `[0, bt]` rather than `bt`.
    pub random: bool,
}

impl Default for LinearBackoff {
    fn default() -> Self {
        LinearBackoff {
            min: Duration::from_micros(10),
            step: Duration::from_micros(50),
            max: Duration::from_micros(500),
            random: false,
        }
    }
}

impl LinearBackoff {
    /// `linear:min=10us,step=50us,max=500us,random=false`.
    pub fn from_spec(spec: &mut PolicySpec) -> Result<Self, SpecError> {
        let d = Self::default();
        let (min, max) = read_min_max(spec, d.min, d.max)?;
        Ok(LinearBackoff {
            min,
            step: spec.duration("step", d.step)?,
            max,
            random: spec.flag("random", d.random)?,
        })
    }
}

impl BackoffRule for LinearBackoff {
    type Level = f64;

    fn start(&self) -> f64 {
        ns(self.min)
    }

    fn backoff_ns(&self, bt: f64) -> f64 {
        bt
    }

    fn next(&self, bt: f64) -> f64 {
        linear_next(bt, self.step, self.max)
    }

    fn random(&self) -> bool {
        self.random
    }
}

/// The two-phase backoffs, `exp-linear` ([`ExpLinearBackoff`]) and `linear-exp`
/// ([`LinearExpBackoff`]): `bt` from `min` up to `threshold` by the first phase, then up to
/// `max` by the second; one phase multiplies by `r`, the other adds `step`, and `EXP_FIRST`
/// says which comes first. The threshold is both the first phase's maximum and the second's
/// minimum, so it is slept once on the way.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoPhaseBackoff<const EXP_FIRST: bool> {
    /// The growth factor (> 1) of the exponential phase.
    pub r: f64,
    /// The step of the linear phase.
    pub step: Duration,
    /// The first backoff time.
    pub min: Duration,
    /// Where the first phase ends and the second starts.
    pub threshold: Duration,
    /// The largest backoff time.
    pub max: Duration,
    /// Sleep a uniform random time in `[0, bt]` rather than `bt`.
    pub random: bool,
}

/// `exp-linear`: the thesis' exponential-linear backoff (Table 4.3, variant 1): `bt` from
/// `min` = 10 µs, times `r` = 2 up to `threshold` = 200 µs, then plus `step` = 50 µs up to
/// `max` = 0.5 ms (10, 20, 40, 80, 160, 200, 250, … µs).
///
/// Parameters: `r`, `step`, `min`, `threshold`, `max`, `random` (default `false`).
///
/// (Example: the unit test `examples::exp_linear_backoff`.)
pub type ExpLinearBackoff = TwoPhaseBackoff<true>;

/// `linear-exp`: the thesis' linear-exponential backoff (Table 4.3, variant 1): `bt` from
/// `min` = 10 µs, plus `step` = 25 µs up to `threshold` = 100 µs, then times `r` = 1.3 up to
/// `max` = 0.5 ms (10, 35, 60, 85, 100, 130, 169, … µs).
///
/// Parameters: `step`, `r`, `min`, `threshold`, `max`, `random` (default `false`).
///
/// (Example: the unit test `examples::linear_exp_backoff`.)
pub type LinearExpBackoff = TwoPhaseBackoff<false>;

impl Default for ExpLinearBackoff {
    fn default() -> Self {
        TwoPhaseBackoff {
            r: 2.0,
            step: Duration::from_micros(50),
            min: Duration::from_micros(10),
            threshold: Duration::from_micros(200),
            max: Duration::from_micros(500),
            random: false,
        }
    }
}

impl Default for LinearExpBackoff {
    fn default() -> Self {
        TwoPhaseBackoff {
            r: 1.3,
            step: Duration::from_micros(25),
            min: Duration::from_micros(10),
            threshold: Duration::from_micros(100),
            max: Duration::from_micros(500),
            random: false,
        }
    }
}

impl<const EXP_FIRST: bool> TwoPhaseBackoff<EXP_FIRST>
where
    Self: Default,
{
    /// `exp-linear:r=2,step=50us,min=10us,threshold=200us,max=500us,random=false`, or
    /// `linear-exp:step=25us,r=1.3,min=10us,threshold=100us,max=500us,random=false`: the
    /// parameters are read in the order of the name's phases.
    pub fn from_spec(spec: &mut PolicySpec) -> Result<Self, SpecError> {
        let d = Self::default();
        let (r, step) = if EXP_FIRST {
            let r = read_factor(spec, "r", d.r)?;
            (r, spec.duration("step", d.step)?)
        } else {
            let step = spec.duration("step", d.step)?;
            (read_factor(spec, "r", d.r)?, step)
        };
        let (min, max) = read_min_max(spec, d.min, d.max)?;
        let threshold = spec.duration("threshold", d.threshold)?;
        check_order(spec, ("min", min), ("threshold", threshold))?;
        check_order(spec, ("threshold", threshold), ("max", max))?;
        if EXP_FIRST {
            check_exp_start(spec, "min", min)?;
        } else {
            check_exp_start(spec, "threshold", threshold)?;
        }
        Ok(TwoPhaseBackoff {
            r,
            step,
            min,
            threshold,
            max,
            random: spec.flag("random", d.random)?,
        })
    }
}

impl<const EXP_FIRST: bool> BackoffRule for TwoPhaseBackoff<EXP_FIRST> {
    type Level = f64;

    fn start(&self) -> f64 {
        ns(self.min)
    }

    fn backoff_ns(&self, bt: f64) -> f64 {
        bt
    }

    fn next(&self, bt: f64) -> f64 {
        let first = bt < ns(self.threshold);
        let cap = if first { self.threshold } else { self.max };
        if first == EXP_FIRST {
            exp_next(bt, self.r, cap)
        } else {
            linear_next(bt, self.step, cap)
        }
    }

    fn random(&self) -> bool {
        self.random
    }
}

/// `linear-combination`: `bt = t·bt_linear + (1−t)·bt_exponential` (thesis Eq. 4.1) with
/// `t` = 0.75 over a [`LinearBackoff`] and an [`ExponentialBackoff`] with their defaults, each
/// advancing its own backoff time every failed round and both reset when work is found.
///
/// Parameters: `t`, `min` and `max` (shared by both parts), `step` (the linear part's), `r`
/// (the exponential part's), `random` (default `false`). Built in code, the two parts may
/// differ in `min` and `max` too.
///
/// (Example: the unit test `examples::linear_combination_backoff`.)
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearCombinationBackoff {
    /// The weight of the linear part, in `[0, 1]`.
    pub t: f64,
    /// The linear part (its `random` is ignored).
    pub linear: LinearBackoff,
    /// The exponential part (its `random` is ignored).
    pub exponential: ExponentialBackoff,
    /// Sleep a uniform random time in `[0, bt]` rather than `bt`.
    pub random: bool,
}

impl Default for LinearCombinationBackoff {
    fn default() -> Self {
        LinearCombinationBackoff {
            t: 0.75,
            linear: LinearBackoff::default(),
            exponential: ExponentialBackoff::default(),
            random: false,
        }
    }
}

impl LinearCombinationBackoff {
    /// `linear-combination:t=0.75,min=10us,max=500us,step=50us,r=1.3,random=false`.
    pub fn from_spec(spec: &mut PolicySpec) -> Result<Self, SpecError> {
        let d = Self::default();
        let t = spec.float("t", d.t)?;
        spec.check(
            (0.0..=1.0).contains(&t),
            &format!("t={t} must lie in [0, 1]"),
        )?;
        let (min, max) = read_min_max(spec, d.linear.min, d.linear.max)?;
        check_exp_start(spec, "min", min)?;
        let step = spec.duration("step", d.linear.step)?;
        let r = read_factor(spec, "r", d.exponential.r)?;
        Ok(LinearCombinationBackoff {
            t,
            linear: LinearBackoff {
                min,
                step,
                max,
                random: false,
            },
            exponential: ExponentialBackoff::new(min, max, r, false),
            random: spec.flag("random", d.random)?,
        })
    }
}

impl BackoffRule for LinearCombinationBackoff {
    /// The linear and the exponential backoff time.
    type Level = (f64, f64);

    fn start(&self) -> (f64, f64) {
        (self.linear.start(), self.exponential.start())
    }

    fn backoff_ns(&self, (lin, exp): (f64, f64)) -> f64 {
        self.t * lin + (1.0 - self.t) * exp
    }

    fn next(&self, (lin, exp): (f64, f64)) -> (f64, f64) {
        (self.linear.next(lin), self.exponential.next(exp))
    }

    fn random(&self) -> bool {
        self.random
    }
}

/// `IdlePolicy` for timed backoffs: the name, and a [`BackoffState`] per worker.
macro_rules! timed_backoff_policy {
    ($($ty:ty => $name:literal),* $(,)?) => {$(
        impl IdlePolicy for $ty {
            fn name(&self) -> &str {
                $name
            }

            fn state(&self, index: usize) -> Box<dyn IdleState> {
                Box::new(BackoffState::new(*self, index))
            }
        }
    )*};
}

timed_backoff_policy! {
    LinearBackoff => "linear",
    ExpLinearBackoff => "exp-linear",
    LinearExpBackoff => "linear-exp",
    LinearCombinationBackoff => "linear-combination",
}

#[cfg(test)]
mod tests;

/// The examples of this module's items: unit tests, since the module is private to the
/// crate (policies are reached through `by_name` and their spec strings).
#[cfg(test)]
mod examples {
    #[test]
    fn spin_idle() {
        use crate::policy::idle::backoff::SpinIdle;
        use crate::policy::{IdleAction, IdlePolicy};
        let mut s = SpinIdle.state(0);
        assert_eq!(s.on_failed_steal(), None);
        assert_eq!(s.on_failed_round(), IdleAction::Spin);
    }

    #[test]
    fn yield_idle() {
        use crate::policy::idle::backoff::YieldIdle;
        use crate::policy::{IdleAction, IdlePolicy};
        let mut s = YieldIdle.state(0);
        assert_eq!(s.on_failed_steal(), None);
        assert_eq!(s.on_failed_round(), IdleAction::Yield);
    }

    #[test]
    fn yield_abp_idle() {
        use crate::policy::idle::backoff::YieldAbpIdle;
        use crate::policy::{IdleAction, IdlePolicy};
        let mut s = YieldAbpIdle.state(0);
        assert_eq!(s.on_failed_steal(), Some(IdleAction::Yield));
        assert_eq!(s.on_failed_round(), IdleAction::Yield);
    }

    #[test]
    fn backoff_state() {
        use crate::policy::idle::backoff::{BackoffState, ExponentialBackoff};
        use crate::policy::{IdleAction, IdleState};
        use std::time::Duration;

        let mut s = BackoffState::new(ExponentialBackoff::default(), 0);
        assert_eq!(s.backoff_time(), Duration::from_micros(10));
        assert_eq!(
            s.on_failed_round(),
            IdleAction::Sleep(Duration::from_micros(10))
        );
        assert_eq!(s.backoff_time(), Duration::from_micros(13));
    }

    #[test]
    fn pheet_backoff() {
        use crate::policy::idle::backoff::PheetBackoff;
        use crate::policy::{IdleAction, IdlePolicy};
        use std::time::Duration;

        let mut s = PheetBackoff::default().state(0);
        for bt in [100, 200, 400] {
            let IdleAction::Sleep(d) = s.on_failed_round() else {
                panic!()
            };
            assert!(d <= Duration::from_nanos(bt));
        }
    }

    #[test]
    fn yew_par_backoff() {
        use crate::policy::idle::backoff::YewParBackoff;
        use crate::policy::{IdleAction, IdlePolicy};
        use std::time::Duration;

        let mut s = YewParBackoff::default().state(0);
        assert_eq!(
            s.on_failed_round(),
            IdleAction::Sleep(Duration::from_micros(100))
        );
        assert_eq!(
            s.on_failed_round(),
            IdleAction::Sleep(Duration::from_micros(200))
        );
    }

    #[test]
    fn linear_backoff() {
        use crate::policy::idle::backoff::LinearBackoff;
        use crate::policy::{IdleAction, IdlePolicy};
        use std::time::Duration;

        let mut s = LinearBackoff::default().state(0);
        assert_eq!(
            s.on_failed_round(),
            IdleAction::Sleep(Duration::from_micros(10))
        );
        assert_eq!(
            s.on_failed_round(),
            IdleAction::Sleep(Duration::from_micros(60))
        );
    }

    #[test]
    fn exponential_backoff() {
        use crate::policy::idle::backoff::ExponentialBackoff;
        use crate::policy::{IdleAction, IdlePolicy};
        use std::time::Duration;

        let mut s = ExponentialBackoff::default().state(0);
        assert_eq!(
            s.on_failed_round(),
            IdleAction::Sleep(Duration::from_micros(10))
        );
        assert_eq!(
            s.on_failed_round(),
            IdleAction::Sleep(Duration::from_micros(13))
        );
        assert_eq!(
            s.on_failed_round(),
            IdleAction::Sleep(Duration::from_nanos(16_900))
        );
    }

    #[test]
    fn exp_linear_backoff() {
        use crate::policy::idle::backoff::ExpLinearBackoff;
        use crate::policy::{IdleAction, IdlePolicy};
        use std::time::Duration;

        let mut s = ExpLinearBackoff::default().state(0);
        let slept: Vec<_> = (0..8).map(|_| s.on_failed_round()).collect();
        let us = |n| IdleAction::Sleep(Duration::from_micros(n));
        assert_eq!(slept, [10, 20, 40, 80, 160, 200, 250, 300].map(us));
    }

    #[test]
    fn linear_exp_backoff() {
        use crate::policy::idle::backoff::LinearExpBackoff;
        use crate::policy::{IdleAction, IdlePolicy};
        use std::time::Duration;

        let mut s = LinearExpBackoff::default().state(0);
        let slept: Vec<_> = (0..7).map(|_| s.on_failed_round()).collect();
        let us = |n| IdleAction::Sleep(Duration::from_micros(n));
        assert_eq!(slept, [10, 35, 60, 85, 100, 130, 169].map(us));
    }

    #[test]
    fn linear_combination_backoff() {
        use crate::policy::idle::backoff::LinearCombinationBackoff;
        use crate::policy::{IdleAction, IdlePolicy};
        use std::time::Duration;

        let mut s = LinearCombinationBackoff::default().state(0);
        assert_eq!(
            s.on_failed_round(),
            IdleAction::Sleep(Duration::from_micros(10))
        );
        // 0.75 · 60 µs + 0.25 · 13 µs
        assert_eq!(
            s.on_failed_round(),
            IdleAction::Sleep(Duration::from_nanos(48_250))
        );
    }
}
