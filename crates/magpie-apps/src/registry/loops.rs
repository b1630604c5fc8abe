//! The loop applications' descriptions ([`LoopApp`], [`LOOP_APPS`]) and their inputs and
//! outputs ([`LoopInput`], [`LoopOutput`]).

use magpie::loops::Loop;

use crate::output::fnv64;

/// The description of one loop application: what `magpie loop` and `magpie-bench loops`
/// need to know of it beyond its input. Each loop application module (`mandelbrot`, `dist`,
/// `histogram`, `spmv`) defines one as `APP`; [`LOOP_APPS`] lists them, and its
/// [`LoopInput`] variant runs it.
#[derive(Debug)]
#[non_exhaustive]
pub struct LoopApp {
    /// Its name on the command line (`mandelbrot`).
    pub name: &'static str,
    /// The options of its own (`--width`); the others of `magpie loop`'s application
    /// options do not apply to it.
    pub options: &'static [&'static str],
    /// The time steps of a run without `--steps`.
    pub default_steps: usize,
}

/// The time steps of a loop application's run without `--steps`, unless its [`LoopApp`]
/// says otherwise (`dist`: [`crate::dist::DEFAULT_STEPS`]).
pub const DEFAULT_LOOP_STEPS: usize = 5;

/// Every loop application, in the order of `magpie loop --help`. Adding one means a module
/// with its `APP`, a line here and its [`LoopInput`] variant.
pub static LOOP_APPS: [&LoopApp; 4] = [
    &crate::mandelbrot::APP,
    &crate::dist::APP,
    &crate::histogram::APP,
    &crate::spmv::APP,
];

/// The names of [`LOOP_APPS`], in its order, as a constant (`magpie loop`'s `APPS`).
///
/// ```
/// assert_eq!(magpie_apps::registry::LOOP_APP_NAMES, ["mandelbrot", "dist", "histogram", "spmv"]);
/// ```
pub const LOOP_APP_NAMES: [&str; LOOP_APPS.len()] = {
    let mut out = [""; LOOP_APPS.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = LOOP_APPS[i].name;
        i += 1;
    }
    out
};

/// The loop application named `name`, if there is one.
pub fn find_loop(name: &str) -> Option<&'static LoopApp> {
    LOOP_APPS.iter().copied().find(|a| a.name == name)
}

/// The names of the loop applications, in [`LOOP_APPS`] order, that take `option`.
///
/// ```
/// use magpie_apps::registry::loop_apps_with;
/// assert_eq!(loop_apps_with("--seed"), ["dist", "histogram", "spmv"]);
/// assert_eq!(loop_apps_with("--png"), ["mandelbrot"]);
/// ```
pub fn loop_apps_with(option: &str) -> Vec<&'static str> {
    LOOP_APPS
        .iter()
        .filter(|a| a.options.contains(&option))
        .map(|a| a.name)
        .collect()
}

/// The generated input of one loop application: what one of its time steps reads. Both
/// `magpie loop` and `magpie-bench loops` build one and run its steps through
/// [`LoopInput::step`] (on a pool, through one [`Loop`] for all the steps) and check them
/// against [`LoopInput::step_seq`].
///
/// ```
/// use magpie::loops::{Loop, Schedule};
/// use magpie_apps::{mandelbrot, registry::LoopInput};
///
/// let input = LoopInput::Mandelbrot(mandelbrot::Params::new(32, 24, 100, 2).unwrap());
/// assert_eq!(input.app().name, "mandelbrot");
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
/// let lp = Loop::new(Schedule::default());
/// for s in 0..2 {
///     assert_eq!(pool.install(|| input.step(s, &lp)), input.step_seq(s));
/// }
/// ```
#[derive(Debug, Clone)]
pub enum LoopInput {
    /// Mandelbrot: the image's size and iteration limit.
    Mandelbrot(crate::mandelbrot::Params),
    /// Dist: the cost of each iteration, in work units.
    Dist(Vec<u64>),
    /// Histogram: the keys and the number of buckets.
    Histogram {
        /// The keys, each below `buckets`.
        keys: Vec<u32>,
        /// The number of buckets.
        buckets: usize,
    },
    /// SpMV: the matrix and the vector `x`.
    Spmv {
        /// The matrix `A`.
        a: crate::spmv::Csr,
        /// The vector, one entry per column.
        x: Vec<f64>,
    },
}

/// What one time step of a [`LoopInput`] computed.
#[derive(Debug, Clone, PartialEq)]
pub enum LoopOutput {
    /// Mandelbrot: the image, one escape count per pixel.
    Image(Vec<u32>),
    /// Dist: the wrapping sum of the iterations' work.
    Sum(u64),
    /// Histogram: the count of each bucket.
    Counts(Vec<u64>),
    /// SpMV: `y = A x`.
    Y(Vec<f64>),
}

impl LoopInput {
    /// Its application's description.
    pub fn app(&self) -> &'static LoopApp {
        match self {
            LoopInput::Mandelbrot(_) => &crate::mandelbrot::APP,
            LoopInput::Dist(_) => &crate::dist::APP,
            LoopInput::Histogram { .. } => &crate::histogram::APP,
            LoopInput::Spmv { .. } => &crate::spmv::APP,
        }
    }

    /// Time step `s`, in parallel on the current pool: one call of `lp` (so that `lp` keeps
    /// its history across the steps and `lp.last_stats()` describes this step).
    pub fn step(&self, s: usize, lp: &Loop) -> LoopOutput {
        match self {
            LoopInput::Mandelbrot(p) => LoopOutput::Image(crate::mandelbrot::render(p, lp)),
            LoopInput::Dist(costs) => LoopOutput::Sum(crate::dist::step(costs, s, lp)),
            LoopInput::Histogram { keys, buckets } => {
                LoopOutput::Counts(crate::histogram::histogram(keys, *buckets, lp))
            }
            LoopInput::Spmv { a, x } => LoopOutput::Y(crate::spmv::spmv(a, x, lp)),
        }
    }

    /// Time step `s`, sequentially on the calling thread: what [`LoopInput::step`] must
    /// compute under every schedule (SpMV bit for bit).
    pub fn step_seq(&self, s: usize) -> LoopOutput {
        match self {
            LoopInput::Mandelbrot(p) => LoopOutput::Image(crate::mandelbrot::render_seq(p)),
            LoopInput::Dist(costs) => LoopOutput::Sum(crate::dist::step_seq(costs, s)),
            LoopInput::Histogram { keys, buckets } => {
                LoopOutput::Counts(crate::histogram::histogram_seq(keys, *buckets))
            }
            LoopInput::Spmv { a, x } => LoopOutput::Y(crate::spmv::spmv_seq(a, x)),
        }
    }

    /// Checks `outs`, the outputs of steps `0, 1, …` in order, against the sequential
    /// version (run here, once for the steps that compute the same thing); returns what was
    /// checked, or what differs.
    ///
    /// ```
    /// use magpie_apps::registry::{LoopInput, LoopOutput};
    ///
    /// let input = LoopInput::Histogram { keys: vec![0, 2, 2], buckets: 3 };
    /// let good = input.step_seq(0);
    /// assert!(input.check(&[good.clone(), good]).is_ok());
    /// let e = input.check(&[LoopOutput::Counts(vec![1, 1, 1])]).unwrap_err();
    /// assert!(e.starts_with("histogram step 1: the counts differ"), "{e}");
    /// ```
    pub fn check(&self, outs: &[LoopOutput]) -> Result<&'static str, String> {
        let want = match self {
            // Every step but dist's computes the same: one sequential run checks all.
            LoopInput::Dist(costs) => {
                let sum = outs.iter().fold(0u64, |a, o| a.wrapping_add(o.checksum()));
                let want = crate::dist::run_seq(costs, outs.len());
                return if sum == want {
                    Ok("the sum equals the sequential run's (dist::run_seq)")
                } else {
                    Err(format!(
                        "dist: the steps sum to {sum:#018x}, the sequential run to {want:#018x}"
                    ))
                };
            }
            _ => self.step_seq(0),
        };
        let w = (want.total(), want.checksum());
        // The counts exactly; an image by its total and checksum (the last one exactly
        // below), y by the checksum of its bits.
        let differs = |o: &LoopOutput| match want {
            LoopOutput::Counts(_) => *o != want,
            _ => (o.total(), o.checksum()) != w,
        };
        let Some(s) = outs.iter().position(differs) else {
            return match (outs.last(), &want) {
                (Some(last), LoopOutput::Image(_)) if *last != want => {
                    Err("the last image differs from the sequential one".into())
                }
                _ => Ok(match want {
                    LoopOutput::Image(_) => {
                        "every step's image equals the sequential one (render_seq)"
                    }
                    LoopOutput::Counts(_) => {
                        "every step's counts equal the sequential ones (histogram_seq)"
                    }
                    _ => "every step's y equals the sequential one bit for bit (spmv_seq)",
                }),
            };
        };
        let got = &outs[s];
        let step = s + 1;
        Err(match want {
            LoopOutput::Image(_) => format!(
                "mandelbrot step {step}: {} iterations, checksum {:#018x}; the sequential \
                 image has {} and {:#018x}",
                got.total(),
                got.checksum(),
                w.0,
                w.1
            ),
            LoopOutput::Counts(_) => format!(
                "histogram step {step}: the counts differ from the sequential ones (checksum \
                 {:#018x}, sequential {:#018x})",
                got.checksum(),
                w.1
            ),
            _ => format!(
                "spmv step {step}: y's checksum is {:#018x}, the sequential one's {:#018x}",
                got.checksum(),
                w.1
            ),
        })
    }
}

impl LoopOutput {
    /// Its checksum: [`crate::mandelbrot::checksum`] of an image, the sum itself, and
    /// [`fnv64`] of the counts or of the bits of `y`.
    pub fn checksum(&self) -> u64 {
        match self {
            LoopOutput::Image(im) => crate::mandelbrot::checksum(im),
            LoopOutput::Sum(sum) => *sum,
            LoopOutput::Counts(c) => fnv64(c.iter().copied()),
            LoopOutput::Y(y) => fnv64(y.iter().map(|v| v.to_bits())),
        }
    }

    /// Its total: the sum of an image's counts (the step's iterations) or of the counts (the
    /// keys), the sum itself, and 0 for `y`.
    pub fn total(&self) -> u64 {
        match self {
            LoopOutput::Image(im) => im.iter().map(|&c| u64::from(c)).sum(),
            LoopOutput::Sum(sum) => *sum,
            LoopOutput::Counts(c) => c.iter().sum(),
            LoopOutput::Y(_) => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_that_differs_from_the_sequential_one_is_named() {
        let m = LoopInput::Mandelbrot(crate::mandelbrot::Params::new(8, 6, 20, 2).unwrap());
        let good = m.step_seq(0);
        assert_eq!(
            m.check(&[good.clone(), good.clone()]),
            Ok("every step's image equals the sequential one (render_seq)")
        );
        let LoopOutput::Image(mut bad) = good.clone() else {
            unreachable!()
        };
        bad[0] += 1;
        let e = m.check(&[good, LoopOutput::Image(bad)]).unwrap_err();
        assert!(e.starts_with("mandelbrot step 2: "), "{e}");

        let d = LoopInput::Dist(vec![3, 1, 4]);
        let steps = [d.step_seq(0), d.step_seq(1)];
        assert_eq!(
            d.check(&steps),
            Ok("the sum equals the sequential run's (dist::run_seq)")
        );
        let e = d.check(&[steps[0].clone(), steps[0].clone()]).unwrap_err();
        assert!(e.starts_with("dist: the steps sum to "), "{e}");

        let a = crate::spmv::power_law(50, 40, 2, 1.5, 1).unwrap();
        let v = LoopInput::Spmv {
            x: crate::spmv::vector(40, 2),
            a,
        };
        let LoopOutput::Y(mut y) = v.step_seq(0) else {
            unreachable!()
        };
        assert!(v.check(&[LoopOutput::Y(y.clone())]).is_ok());
        y[0] = -y[0] + 1.0;
        let e = v.check(&[LoopOutput::Y(y)]).unwrap_err();
        assert!(e.starts_with("spmv step 1: y's checksum is "), "{e}");
    }
}
