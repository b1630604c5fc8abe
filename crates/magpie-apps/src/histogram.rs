//! Histogram (as in PBBS): count `n` keys into `b` buckets. The parallel version is a
//! scheduled reduction whose accumulators are whole count vectors: each worker counts the
//! chunks it runs into its own vector, and the vectors are added at the end.
//!
//! ```
//! use magpie::loops::{Loop, Schedule};
//! use magpie_apps::histogram::{histogram, histogram_seq, keys};
//! let k = keys(100_000, 64, 1.0, 3).unwrap();
//! let step = Loop::new("static-steal".parse::<Schedule>().unwrap());
//! let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
//! let h = pool.install(|| histogram(&k, 64, &step));
//! assert_eq!(h, histogram_seq(&k, 64));
//! assert_eq!(h.iter().sum::<u64>(), 100_000);
//! ```

use magpie::loops::Loop;
use serde_json::{json, Value};

use crate::input::InputError;
use crate::registry::{LoopApp, LoopError, LoopInput, LoopOptions, LoopOutput, LoopReport};
use crate::rng::SplitMix64;

/// The description of `histogram` in [`crate::registry::LOOP_APPS`].
pub static APP: LoopApp = LoopApp {
    name: "histogram",
    options: &["--size", "--buckets", "--skew", "--seed"],
    default_steps: crate::registry::DEFAULT_LOOP_STEPS,
    input: Input::build,
};

/// The keys without `--size`.
pub const DEFAULT_KEYS: usize = 10_000_000;
/// The buckets without `--buckets`.
pub const DEFAULT_BUCKETS: usize = 1024;
/// The skew without `--skew`.
pub const DEFAULT_SKEW: f64 = 1.0;

/// Histogram's input in [`crate::registry`]: the keys, and how they were drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    /// The keys ([`keys`]), each below `buckets`.
    pub keys: Vec<u32>,
    /// The number of buckets.
    pub buckets: usize,
    /// The keys' skew.
    pub skew: f64,
    /// The seed they were drawn from.
    pub seed: u64,
}

impl Input {
    /// From `--seed` ([`crate::registry::DEFAULT_LOOP_SEED`]), `--size`
    /// ([`DEFAULT_KEYS`]), `--buckets` ([`DEFAULT_BUCKETS`]) and `--skew`
    /// ([`DEFAULT_SKEW`]).
    pub fn build(o: &LoopOptions) -> Result<Box<dyn LoopInput>, LoopError> {
        let seed = o.seed()?;
        let n = o.number("--size", DEFAULT_KEYS, 1, "the number of keys")?;
        let buckets = o.number("--buckets", DEFAULT_BUCKETS, 1, "the number of buckets")?;
        let skew = o.real("--skew", DEFAULT_SKEW)?;
        // The keys (u32) and the counts (u64).
        crate::check_generated_size("--size", &format!("{n} keys"), n as u64, 4)?;
        crate::check_generated_size(
            "--buckets",
            &format!("{buckets} buckets"),
            buckets as u64,
            8,
        )?;
        Ok(Box::new(Input {
            keys: keys(n, buckets, skew, seed)?,
            buckets,
            skew,
            seed,
        }))
    }
}

impl LoopInput for Input {
    fn app(&self) -> &'static LoopApp {
        &APP
    }

    fn parameters(&self) -> Value {
        json!({"keys": self.keys.len(), "buckets": self.buckets, "skew": self.skew,
               "seed": self.seed})
    }

    fn step(&self, _: usize, lp: &Loop) -> LoopOutput {
        LoopOutput::Counts(histogram(&self.keys, self.buckets, lp))
    }

    fn step_seq(&self, _: usize) -> LoopOutput {
        LoopOutput::Counts(histogram_seq(&self.keys, self.buckets))
    }

    /// Every step's counts exactly.
    fn check_with(&self, want: &LoopOutput, outs: &[LoopOutput]) -> Result<&'static str, String> {
        match outs.iter().position(|o| o != want) {
            None => Ok("every step's counts equal the sequential ones (histogram_seq)"),
            Some(s) => Err(format!(
                "histogram step {}: the counts differ from the sequential ones (checksum \
                 {:#018x}, sequential {:#018x})",
                s + 1,
                outs[s].checksum(),
                want.checksum()
            )),
        }
    }

    /// The last step's total, checksum and counts.
    fn report(&self, outs: &[LoopOutput]) -> LoopReport {
        let Some(last @ LoopOutput::Counts(counts)) = outs.last() else {
            return LoopReport::new(json!({}), String::new());
        };
        let (total, checksum) = (last.total(), last.checksum());
        LoopReport::new(
            json!({"total": total, "checksum": checksum, "counts": counts}),
            format!("{total} keys, checksum {checksum:#018x}"),
        )
    }
}

/// `n` keys in `0..buckets` from a seeded generator (SplitMix64): key `⌊buckets · u^(1 +
/// skew)⌋` for `u` uniform on `[0, 1)`, so `skew = 0` gives uniform keys and a larger
/// `skew` piles them up towards the small buckets (density ∝ `x^(1/(1+skew) − 1)`, a
/// power law). Errors for `buckets` outside `1..=2³²` or a `skew` that is negative or not
/// finite.
///
/// ```
/// use magpie_apps::histogram::keys;
/// let k = keys(1000, 10, 0.0, 1).unwrap();
/// assert!(k.iter().all(|&x| x < 10));
/// assert_eq!(k, keys(1000, 10, 0.0, 1).unwrap());
/// assert!(keys(10, 0, 0.0, 1).is_err());
/// assert!(keys(10, 4, -1.0, 1).is_err());
/// ```
pub fn keys(n: usize, buckets: usize, skew: f64, seed: u64) -> Result<Vec<u32>, InputError> {
    if buckets == 0 || buckets as u64 > 1 << 32 {
        return Err(InputError::file(
            "--buckets",
            format!("the number of buckets must be in 1..=2^32 (got {buckets})"),
        ));
    }
    if !(skew.is_finite() && skew >= 0.0) {
        return Err(InputError::file(
            "--skew",
            format!("the skew must be a finite number ≥ 0 (got {skew})"),
        ));
    }
    let mut rng = SplitMix64::new(seed);
    let b = buckets as f64;
    Ok((0..n)
        .map(|_| {
            let u = rng.next_f64();
            let x = if skew == 0.0 { u } else { u.powf(1.0 + skew) };
            ((b * x) as u64).min(buckets as u64 - 1) as u32
        })
        .collect())
}

/// The counts of every bucket, sequentially.
///
/// # Panics
///
/// If a key is not below `buckets`.
///
/// ```
/// assert_eq!(magpie_apps::histogram::histogram_seq(&[0, 2, 2, 1, 2], 4), [1, 1, 3, 0]);
/// ```
pub fn histogram_seq(keys: &[u32], buckets: usize) -> Vec<u64> {
    let mut h = vec![0u64; buckets];
    for &k in keys {
        h[k as usize] += 1;
    }
    h
}

/// The counts of every bucket, in parallel on the current pool: one loop iteration per key,
/// scheduled by `lp`, folded into per-worker count vectors that are then added. Equal to
/// [`histogram_seq`] for every schedule.
///
/// # Panics
///
/// If a key is not below `buckets`.
pub fn histogram(keys: &[u32], buckets: usize, lp: &Loop) -> Vec<u64> {
    lp.reduce(
        0..keys.len(),
        || vec![0u64; buckets],
        |mut h, i| {
            h[keys[i] as usize] += 1;
            h
        },
        |mut a, b| {
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
            a
        },
    )
    .0
}
