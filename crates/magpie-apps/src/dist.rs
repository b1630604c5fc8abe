//! Dist: the synthetic loops of the LB4OMP experiments, whose iteration costs follow a
//! chosen distribution (`constant`, `uniform`, `normal`, `exponential`, `gamma`), run as a
//! time-stepped application (400,000 iterations and 20 time steps in the thesis).
//!
//! The costs are drawn once per loop, in "work units", from a seeded generator
//! ([`SplitMix64`], so a given seed gives the same cost array on every run and platform up to
//! the last bit of `ln`/`cos`), and iteration `i` of step `s` runs [`work`]`(costs[i],
//! iteration_seed(s, i))`, a xorshift busy loop of `costs[i]` rounds whose result is
//! folded into a checksum, so that it cannot be optimised away and the parallel run can be
//! checked against the sequential one.
//!
//! ```
//! use magpie::loops::{Loop, Schedule};
//! use magpie_apps::dist::{costs, run, run_seq, Dist};
//! let c = costs(&"exponential".parse::<Dist>().unwrap(), 10_000, 20, 7);
//! let step = Loop::new("af".parse::<Schedule>().unwrap());
//! let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
//! assert_eq!(pool.install(|| run(&c, 3, &step)), run_seq(&c, 3));
//! assert_eq!(step.calls(), 3);
//! ```

use std::fmt;
use std::str::FromStr;

use magpie::loops::Loop;
use serde_json::{json, Value};

use crate::input::InputError;
use crate::registry::{LoopApp, LoopError, LoopInput, LoopOptions, LoopOutput, LoopReport};
use crate::rng::SplitMix64;

/// The thesis' number of iterations per loop.
pub const DEFAULT_ITERATIONS: usize = 400_000;
/// The thesis' number of time steps.
pub const DEFAULT_STEPS: usize = 20;
/// A default mean iteration cost, in work units (rounds of [`work`]).
pub const DEFAULT_MEAN_UNITS: u64 = 100;

/// The distribution without `--dist`.
pub const DEFAULT_DIST: &str = "exponential";
/// Memory per iteration counted against [`crate::MAX_GENERATED_BYTES`]: its cost and its
/// result, a `u64` each.
pub const BYTES_PER_ITERATION: u64 = 16;

/// The description of `dist` in [`crate::registry::LOOP_APPS`].
pub static APP: LoopApp = LoopApp {
    name: "dist",
    options: &["--dist", "--iterations", "--mean-units", "--seed"],
    default_steps: DEFAULT_STEPS,
    input: Input::build,
};

/// Dist's input in [`crate::registry`]: the cost of each iteration, and how they were drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    /// The cost of each iteration, in work units ([`costs`]).
    pub costs: Vec<u64>,
    /// Their distribution.
    pub dist: Dist,
    /// Their mean.
    pub mean_units: u64,
    /// The seed they were drawn from.
    pub seed: u64,
}

impl Input {
    /// From `--seed` ([`crate::registry::DEFAULT_LOOP_SEED`]), `--dist`
    /// ([`DEFAULT_DIST`]), `--iterations` ([`DEFAULT_ITERATIONS`]) and `--mean-units`
    /// ([`DEFAULT_MEAN_UNITS`]).
    pub fn build(o: &LoopOptions) -> Result<Box<dyn LoopInput>, LoopError> {
        let seed = o.seed()?;
        let dist: Dist = o.get("--dist").unwrap_or(DEFAULT_DIST).parse()?;
        let n = o.number(
            "--iterations",
            DEFAULT_ITERATIONS,
            1,
            "the number of iterations",
        )?;
        let mean_units = o.number("--mean-units", DEFAULT_MEAN_UNITS, 0, "the mean cost")?;
        crate::check_generated_size(
            "--iterations",
            &format!("{n} iterations"),
            n as u64,
            BYTES_PER_ITERATION,
        )?;
        Ok(Box::new(Input {
            costs: costs(&dist, n, mean_units, seed),
            dist,
            mean_units,
            seed,
        }))
    }
}

/// The wrapping sum of the steps' sums.
fn sum_of(outs: &[LoopOutput]) -> u64 {
    outs.iter().fold(0u64, |a, o| a.wrapping_add(o.checksum()))
}

impl LoopInput for Input {
    fn app(&self) -> &'static LoopApp {
        &APP
    }

    fn parameters(&self) -> Value {
        json!({"dist": self.dist.to_string(), "iterations": self.costs.len(),
               "mean_units": self.mean_units, "seed": self.seed})
    }

    fn step(&self, s: usize, lp: &Loop) -> LoopOutput {
        LoopOutput::Sum(step(&self.costs, s, lp))
    }

    fn step_seq(&self, s: usize) -> LoopOutput {
        LoopOutput::Sum(step_seq(&self.costs, s))
    }

    /// The steps differ: [`run_seq`]'s sum over them.
    fn reference(&self, steps: usize) -> LoopOutput {
        LoopOutput::Sum(run_seq(&self.costs, steps))
    }

    /// The wrapping sum of the steps' sums against the reference's.
    fn check_with(&self, want: &LoopOutput, outs: &[LoopOutput]) -> Result<&'static str, String> {
        let (sum, want) = (sum_of(outs), want.checksum());
        if sum == want {
            Ok("the sum equals the sequential run's (dist::run_seq)")
        } else {
            Err(format!(
                "dist: the steps sum to {sum:#018x}, the sequential run to {want:#018x}"
            ))
        }
    }

    /// The wrapping sum over the steps.
    fn report(&self, outs: &[LoopOutput]) -> LoopReport {
        let sum = sum_of(outs);
        LoopReport::new(json!({"sum": sum}), format!("sum {sum:#018x}"))
    }
}

/// The distribution of the iteration costs, each with mean `mean_units` (see [`costs`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Dist {
    /// Every iteration costs the mean.
    Constant,
    /// Uniform on `[mean·(1 − spread), mean·(1 + spread)]`, `0 ≤ spread ≤ 1` (default 1:
    /// `[0, 2·mean]`).
    Uniform {
        /// Half the width of the interval, relative to the mean.
        spread: f64,
    },
    /// Normal with standard deviation `cv·mean` (default `cv = 0.25`), negative draws
    /// clamped to 0.
    Normal {
        /// The coefficient of variation, `σ / mean` (≥ 0).
        cv: f64,
    },
    /// Exponential with the given mean (c.o.v. 1).
    Exponential,
    /// Gamma with shape `k > 0` (default 2) and scale `mean / k` (c.o.v. `1/√k`).
    Gamma {
        /// The shape parameter.
        k: f64,
    },
}

impl Dist {
    /// The accepted names, for messages.
    pub const NAMES: &'static str =
        "constant, uniform[:spread=S], normal[:cv=C], exponential, gamma[:k=K]";
}

impl fmt::Display for Dist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dist::Constant => write!(f, "constant"),
            Dist::Uniform { spread } => write!(f, "uniform:spread={spread}"),
            Dist::Normal { cv } => write!(f, "normal:cv={cv}"),
            Dist::Exponential => write!(f, "exponential"),
            Dist::Gamma { k } => write!(f, "gamma:k={k}"),
        }
    }
}

fn dist_error(message: String) -> InputError {
    InputError::file("--dist", message)
}

impl FromStr for Dist {
    type Err = InputError;

    /// `name` or `name:param=value` (the name case-insensitive, `exp` for `exponential`).
    /// Errors name the problem and the accepted forms.
    ///
    /// ```
    /// use magpie_apps::dist::Dist;
    /// assert_eq!("gamma:k=2".parse::<Dist>().unwrap(), Dist::Gamma { k: 2.0 });
    /// assert_eq!("uniform".parse::<Dist>().unwrap(), Dist::Uniform { spread: 1.0 });
    /// assert_eq!("exp".parse::<Dist>().unwrap(), Dist::Exponential);
    /// let e = "gamma:k=-1".parse::<Dist>().unwrap_err();
    /// assert_eq!(e.to_string(), "--dist: gamma:k=-1: k must be a finite number > 0");
    /// assert!("poisson".parse::<Dist>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Dist, InputError> {
        let text = s.trim();
        let (name, param) = match text.split_once(':') {
            Some((n, p)) => (n.trim().to_ascii_lowercase(), Some(p.trim())),
            None => (text.to_ascii_lowercase(), None),
        };
        // The one parameter `key`, if given, with its default.
        let value = |key: &str, default: f64| -> Result<f64, InputError> {
            let Some(p) = param else { return Ok(default) };
            let (k, v) = p
                .split_once('=')
                .ok_or_else(|| dist_error(format!("{text}: expected `{name}:{key}=VALUE`")))?;
            if k.trim() != key {
                return Err(dist_error(format!(
                    "{text}: unknown parameter `{}` for {name} (expected `{key}`)",
                    k.trim()
                )));
            }
            v.trim()
                .parse::<f64>()
                .map_err(|_| dist_error(format!("{text}: `{}` is not a number", v.trim())))
        };
        let no_param = |d: Dist| match param {
            None => Ok(d),
            Some(_) => Err(dist_error(format!("{text}: {name} takes no parameter"))),
        };
        let check = |ok: bool, what: &str| {
            if ok {
                Ok(())
            } else {
                Err(dist_error(format!("{text}: {what}")))
            }
        };
        match name.as_str() {
            "constant" => no_param(Dist::Constant),
            "exponential" | "exp" => no_param(Dist::Exponential),
            "uniform" => {
                let spread = value("spread", 1.0)?;
                check((0.0..=1.0).contains(&spread), "spread must be in [0, 1]")?;
                Ok(Dist::Uniform { spread })
            }
            "normal" => {
                let cv = value("cv", 0.25)?;
                check(
                    cv.is_finite() && cv >= 0.0,
                    "cv must be a finite number ≥ 0",
                )?;
                Ok(Dist::Normal { cv })
            }
            "gamma" => {
                let k = value("k", 2.0)?;
                check(k.is_finite() && k > 0.0, "k must be a finite number > 0")?;
                Ok(Dist::Gamma { k })
            }
            "" => Err(dist_error(format!(
                "the distribution is empty; expected one of {}",
                Dist::NAMES
            ))),
            _ => Err(dist_error(format!(
                "unknown distribution `{name}`; expected one of {}",
                Dist::NAMES
            ))),
        }
    }
}

/// A standard normal variate (Box–Muller, one value per pair of uniforms).
fn normal(rng: &mut SplitMix64) -> f64 {
    let u1 = 1.0 - rng.next_f64(); // (0, 1]
    let u2 = rng.next_f64();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// A gamma variate with shape `k` and scale 1 (Marsaglia–Tsang; `k < 1` by the boost
/// `G(k + 1) · U^(1/k)`).
fn gamma(rng: &mut SplitMix64, k: f64) -> f64 {
    if k < 1.0 {
        let u = 1.0 - rng.next_f64();
        return gamma(rng, k + 1.0) * u.powf(1.0 / k);
    }
    let d = k - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = normal(rng);
        let v = 1.0 + c * x;
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        let u = 1.0 - rng.next_f64();
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

/// `n` iteration costs in work units drawn from `dist` with mean `mean_units`, each rounded
/// to the nearest integer (negative draws of `normal` become 0). The same arguments give the
/// same array every time.
///
/// ```
/// use magpie_apps::dist::{costs, Dist};
/// assert_eq!(costs(&Dist::Constant, 3, 50, 1), [50, 50, 50]);
/// let c = costs(&Dist::Gamma { k: 2.0 }, 100_000, 100, 42);
/// let mean = c.iter().sum::<u64>() as f64 / c.len() as f64;
/// assert!((mean - 100.0).abs() < 2.0);
/// assert_eq!(c, costs(&Dist::Gamma { k: 2.0 }, 100_000, 100, 42));
/// ```
pub fn costs(dist: &Dist, n: usize, mean_units: u64, seed: u64) -> Vec<u64> {
    let mut rng = SplitMix64::new(seed);
    let mean = mean_units as f64;
    (0..n)
        .map(|_| {
            let x = match *dist {
                Dist::Constant => return mean_units,
                Dist::Uniform { spread } => mean * (1.0 + spread * (2.0 * rng.next_f64() - 1.0)),
                Dist::Normal { cv } => mean + cv * mean * normal(&mut rng),
                Dist::Exponential => -mean * (1.0 - rng.next_f64()).ln(),
                Dist::Gamma { k } => gamma(&mut rng, k) * (mean / k),
            };
            x.max(0.0).round() as u64
        })
        .collect()
}

/// The body of one iteration: `units` rounds of xorshift64 (`x ^= x << 13; x ^= x >> 7;
/// x ^= x << 17`) from `x = seed | 1`, returning `x` (so `work(0, s) == s | 1`).
///
/// ```
/// use magpie_apps::dist::work;
/// assert_eq!(work(0, 4), 5);
/// assert_eq!(work(1, 1), 1082269761);
/// ```
#[inline]
pub fn work(units: u64, seed: u64) -> u64 {
    let mut x = seed | 1;
    for _ in 0..units {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    x
}

/// The seed of iteration `i` at time step `step`: `(step << 32) ^ i`.
#[inline]
pub fn iteration_seed(step: usize, i: usize) -> u64 {
    ((step as u64) << 32) ^ i as u64
}

/// The sequential application: for every step `s < steps` and iteration `i`, adds
/// [`work`]`(costs[i], iteration_seed(s, i))` to the checksum (wrapping).
///
/// ```
/// use magpie_apps::dist::{run_seq, work};
/// assert_eq!(run_seq(&[0, 0], 1), 1 + 1);
/// assert_eq!(run_seq(&[3], 2), work(3, 0).wrapping_add(work(3, 1 << 32)));
/// ```
pub fn run_seq(costs: &[u64], steps: usize) -> u64 {
    (0..steps).fold(0u64, |sum, s| sum.wrapping_add(step_seq(costs, s)))
}

/// Time step `s` of [`run_seq`] on its own: the wrapping sum over the iterations `i` of
/// [`work`]`(costs[i], iteration_seed(s, i))`, what [`step`] computes in parallel.
pub fn step_seq(costs: &[u64], s: usize) -> u64 {
    costs.iter().enumerate().fold(0u64, |sum, (i, &c)| {
        sum.wrapping_add(work(c, iteration_seed(s, i)))
    })
}

/// The parallel application: each step is one call of `lp` (a wrapping-add reduction over
/// the iterations), so the loop keeps its history across the steps. Equal to [`run_seq`]
/// for every schedule.
pub fn run(costs: &[u64], steps: usize, lp: &Loop) -> u64 {
    (0..steps).fold(0u64, |sum, s| sum.wrapping_add(step(costs, s, lp)))
}

/// Time step `s` of [`run`] on its own: one call of `lp`, the wrapping sum over the
/// iterations `i` of [`work`]`(costs[i], iteration_seed(s, i))`. For callers that look at
/// each step (its time, `lp.last_stats()`); [`run`] is the sum of its steps.
///
/// ```
/// use magpie::loops::{Loop, Schedule};
/// use magpie_apps::dist::{run_seq, step};
/// let c = [5, 0, 9];
/// let lp = Loop::new(Schedule::default());
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
/// let sum = pool.install(|| step(&c, 0, &lp).wrapping_add(step(&c, 1, &lp)));
/// assert_eq!(sum, run_seq(&c, 2));
/// ```
pub fn step(costs: &[u64], s: usize, lp: &Loop) -> u64 {
    lp.reduce(
        0..costs.len(),
        || 0u64,
        |a, i| a.wrapping_add(work(costs[i], iteration_seed(s, i))),
        u64::wrapping_add,
    )
    .0
}
