//! The loop applications' descriptions ([`LoopApp`], [`LOOP_APPS`]), their options
//! ([`LoopOptions`]), inputs ([`LoopInput`]) and outputs ([`LoopOutput`]).
//!
//! Each loop application module (`mandelbrot`, `dist`, `dist_d`, `histogram`, `spmv`) has a static
//! `APP` that names the application and its options and builds its input from their values
//! ([`LoopApp::build`]): the defaults and the validation live there, once. The input is a
//! [`LoopInput`] trait object that runs a time step on a pool or sequentially, checks the
//! steps against the sequential version and summarises them for a report. `magpie loop`
//! (locally and `--distributed`), `magpie experiment` and `magpie-bench loops` all build
//! their inputs and check their outputs through it; adding a loop application means one
//! module with its `APP` and its input type, and one line in [`LOOP_APPS`].
//!
//! ```
//! use magpie::loops::{Loop, Schedule};
//! use magpie_apps::registry::{find_loop, LoopOptions};
//!
//! let app = find_loop("histogram").unwrap();
//! let options = LoopOptions::new(2).with("--size", 1000).with("--buckets", 16);
//! let input = app.build(&options).unwrap();
//! let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
//! let lp = Loop::new(Schedule::default());
//! let outs: Vec<_> = (0..2).map(|s| pool.install(|| input.step(s, &lp))).collect();
//! assert!(input.check(&outs).is_ok());
//! assert_eq!(input.report(&outs).answer.split(',').next(), Some("1000 keys"));
//! ```

use std::any::Any;
use std::fmt;

use magpie::loops::Loop;
use serde_json::Value;

use crate::output::fnv64;

mod options;

pub use options::{LoopError, LoopOptions, DEFAULT_LOOP_SEED};

/// The description of one loop application: its name and options, and how to build its
/// input from them. Each loop application module (`mandelbrot`, `dist`, `histogram`,
/// `spmv`) defines one as `APP`; [`LOOP_APPS`] lists them.
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
    /// Builds its input from the values of its options (the defaults for those not given)
    /// and the steps; errors name the option. [`LoopApp::build`] checks first that every
    /// option given is one of its own.
    pub input: fn(&LoopOptions) -> Result<Box<dyn LoopInput>, LoopError>,
}

impl LoopApp {
    /// Fails with `--width applies to mandelbrot only, not to dist` for the first option of
    /// `options` that is not one of this application's.
    ///
    /// ```
    /// use magpie_apps::registry::{find_loop, LoopOptions};
    ///
    /// let dist = find_loop("dist").unwrap();
    /// let e = dist.check_options(&LoopOptions::new(1).with("--width", 5)).unwrap_err();
    /// assert_eq!(e.to_string(), "--width applies to mandelbrot only, not to dist");
    /// ```
    pub fn check_options(&self, options: &LoopOptions) -> Result<(), LoopError> {
        match options.flags().find(|f| !self.options.contains(f)) {
            None => Ok(()),
            Some(flag) => {
                let applies = loop_apps_with(flag);
                Err(LoopError::new(if applies.is_empty() {
                    format!("{flag} is not an option of a loop application")
                } else {
                    format!(
                        "{flag} applies to {} only, not to {}",
                        applies.join(", "),
                        self.name
                    )
                }))
            }
        }
    }

    /// Its input, built from `options` after [`LoopApp::check_options`].
    pub fn build(&self, options: &LoopOptions) -> Result<Box<dyn LoopInput>, LoopError> {
        self.check_options(options)?;
        (self.input)(options)
    }
}

/// The time steps of a loop application's run without `--steps`, unless its [`LoopApp`]
/// says otherwise (`dist`: [`crate::dist::DEFAULT_STEPS`]).
pub const DEFAULT_LOOP_STEPS: usize = 5;

/// Every loop application, in the order of `magpie loop --help`. Adding one means a module
/// with its `APP` (and the [`LoopInput`] it builds) and a line here.
pub static LOOP_APPS: [&LoopApp; 5] = [
    &crate::mandelbrot::APP,
    &crate::dist::APP,
    &crate::dist_d::APP,
    &crate::histogram::APP,
    &crate::spmv::APP,
];

/// The names of [`LOOP_APPS`], in its order, as a constant (`magpie loop`'s `APPS`).
///
/// ```
/// assert_eq!(
///     magpie_apps::registry::LOOP_APP_NAMES,
///     ["mandelbrot", "dist", "dist-d", "histogram", "spmv"]
/// );
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
/// assert_eq!(loop_apps_with("--seed"), ["dist", "dist-d", "histogram", "spmv"]);
/// assert_eq!(loop_apps_with("--png"), ["mandelbrot"]);
/// ```
pub fn loop_apps_with(option: &str) -> Vec<&'static str> {
    LOOP_APPS
        .iter()
        .filter(|a| a.options.contains(&option))
        .map(|a| a.name)
        .collect()
}

/// The generated input of one loop application: what its time steps read, built by its
/// [`LoopApp::build`]. Callers run its steps through [`LoopInput::step`] (on a pool,
/// through one [`Loop`] for all the steps) and check them against the sequential version
/// ([`LoopInput::check`], or [`LoopInput::check_with`] a [`LoopInput::reference`] computed
/// once); [`LoopInput::report`] summarises them. A step is one dynamic call; the loop
/// inside it is the application's own, monomorphic code.
///
/// ```
/// use magpie::loops::{Loop, Schedule};
/// use magpie_apps::{mandelbrot, registry::LoopOptions};
///
/// let options = LoopOptions::new(2).with("--width", 32).with("--height", 24);
/// let input = mandelbrot::APP.build(&options).unwrap();
/// assert_eq!(input.app().name, "mandelbrot");
/// assert_eq!(input.downcast_ref::<mandelbrot::Input>().unwrap().params.width, 32);
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
/// let lp = Loop::new(Schedule::default());
/// for s in 0..2 {
///     assert_eq!(pool.install(|| input.step(s, &lp)), input.step_seq(s));
/// }
/// ```
pub trait LoopInput: Any + fmt::Debug + Send + Sync {
    /// Its application's description.
    fn app(&self) -> &'static LoopApp;

    /// Its parameters, as a JSON object for reports (`{"width": 800, …}`).
    fn parameters(&self) -> Value;

    /// Time step `s`, in parallel on the current pool: one call of `lp` (so that `lp` keeps
    /// its history across the steps and `lp.last_stats()` describes this step).
    fn step(&self, s: usize, lp: &Loop) -> LoopOutput;

    /// Time step `s`, sequentially on the calling thread: what [`LoopInput::step`] must
    /// compute under every schedule.
    fn step_seq(&self, s: usize) -> LoopOutput;

    /// What the sequential version gives for a run of `steps` steps, to compare the steps
    /// of runs with ([`LoopInput::check_with`]). Unless an application says otherwise
    /// (`dist`: the sum over the steps), every step computes the same: step 0's output.
    fn reference(&self, steps: usize) -> LoopOutput {
        let _ = steps;
        self.step_seq(0)
    }

    /// Checks `outs`, the outputs of steps `0, 1, …` in order, against `reference` (this
    /// input's [`LoopInput::reference`] for `outs.len()` steps); returns what was checked,
    /// or what differs (naming the step).
    fn check_with(
        &self,
        reference: &LoopOutput,
        outs: &[LoopOutput],
    ) -> Result<&'static str, String>;

    /// Checks `outs` against the sequential version, run here ([`LoopInput::reference`]
    /// and [`LoopInput::check_with`]).
    ///
    /// ```
    /// use magpie_apps::registry::{find_loop, LoopOptions, LoopOutput};
    ///
    /// let options = LoopOptions::new(2).with("--size", 3).with("--buckets", 3);
    /// let input = find_loop("histogram").unwrap().build(&options).unwrap();
    /// let good = input.step_seq(0);
    /// assert!(input.check(&[good.clone(), good]).is_ok());
    /// let e = input.check(&[LoopOutput::Counts(vec![9, 9, 9])]).unwrap_err();
    /// assert!(e.starts_with("histogram step 1: the counts differ"), "{e}");
    /// ```
    fn check(&self, outs: &[LoopOutput]) -> Result<&'static str, String> {
        self.check_with(&self.reference(outs.len()), outs)
    }

    /// The result of the steps `outs` (steps `0, 1, …`) for a report.
    fn report(&self, outs: &[LoopOutput]) -> LoopReport;

    /// Writes what the application writes after a run from its steps' outputs `outs`
    /// (mandelbrot: the last image to `--png`); nothing unless it says otherwise.
    fn write(&self, outs: &[LoopOutput]) -> Result<(), LoopError> {
        let _ = outs;
        Ok(())
    }
}

impl dyn LoopInput {
    /// Whether this is a `T` (an application's own input type, `dist::Input`).
    pub fn is<T: LoopInput>(&self) -> bool {
        let any: &dyn Any = self;
        any.is::<T>()
    }

    /// This input as a `T`, for code written for one application (the C peers of
    /// `magpie-bench`, the distributed loops), if it is one.
    pub fn downcast_ref<T: LoopInput>(&self) -> Option<&T> {
        let any: &dyn Any = self;
        any.downcast_ref()
    }

    /// This input as a `T`, if it is one, else itself.
    pub fn downcast<T: LoopInput>(self: Box<Self>) -> Result<Box<T>, Box<dyn LoopInput>> {
        if self.is::<T>() {
            let any: Box<dyn Any> = self;
            Ok(any.downcast().expect("checked by is"))
        } else {
            Err(self)
        }
    }
}

/// The result of a run's steps, as [`LoopInput::report`] gives it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct LoopReport {
    /// The result as a JSON object (per application: checksum, sum, counts, …).
    pub result: Value,
    /// The result in a short canonical form that every correct run gives.
    pub answer: String,
}

impl LoopReport {
    /// A report of `result` and `answer`.
    pub fn new(result: Value, answer: String) -> Self {
        LoopReport { result, answer }
    }
}

/// What one time step of a [`LoopInput`] computed.
#[derive(Debug, Clone, PartialEq)]
pub enum LoopOutput {
    /// Mandelbrot: the image, one escape count per pixel.
    Image(Vec<u32>),
    /// Dist: the wrapping sum of the iterations' work.
    Sum(u64),
    /// Dist-D: the wrapping sum of each of its loops' iterations' work, in loop order.
    Sums(Vec<u64>),
    /// Histogram: the count of each bucket.
    Counts(Vec<u64>),
    /// SpMV: `y = A x`.
    Y(Vec<f64>),
}

impl LoopOutput {
    /// Its checksum: [`crate::mandelbrot::checksum`] of an image, the sum itself, and
    /// [`fnv64`] of the sums, of the counts or of the bits of `y`.
    pub fn checksum(&self) -> u64 {
        match self {
            LoopOutput::Image(im) => crate::mandelbrot::checksum(im),
            LoopOutput::Sum(sum) => *sum,
            LoopOutput::Sums(s) => fnv64(s.iter().copied()),
            LoopOutput::Counts(c) => fnv64(c.iter().copied()),
            LoopOutput::Y(y) => fnv64(y.iter().map(|v| v.to_bits())),
        }
    }

    /// Its total: the sum of an image's counts (the step's iterations) or of the counts (the
    /// keys), the sum itself, the wrapping sum of the sums, and 0 for `y`.
    pub fn total(&self) -> u64 {
        match self {
            LoopOutput::Image(im) => im.iter().map(|&c| u64::from(c)).sum(),
            LoopOutput::Sum(sum) => *sum,
            LoopOutput::Sums(s) => s.iter().fold(0, |a, &x| a.wrapping_add(x)),
            LoopOutput::Counts(c) => c.iter().sum(),
            LoopOutput::Y(_) => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use magpie::loops::Schedule;

    fn build(app: &str, options: &[(&str, &str)], steps: usize) -> Box<dyn LoopInput> {
        let mut o = LoopOptions::new(steps);
        for (flag, value) in options {
            o.set(flag, value);
        }
        find_loop(app).unwrap().build(&o).unwrap()
    }

    #[test]
    fn a_step_that_differs_from_the_sequential_one_is_named() {
        let m = build("mandelbrot", &[("--width", "8"), ("--height", "6")], 2);
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

        let d = build("dist", &[("--iterations", "3"), ("--mean-units", "4")], 2);
        let steps = [d.step_seq(0), d.step_seq(1)];
        assert_eq!(
            d.check(&steps),
            Ok("the sum equals the sequential run's (dist::run_seq)")
        );
        let e = d.check(&[steps[0].clone(), steps[0].clone()]).unwrap_err();
        assert!(e.starts_with("dist: the steps sum to "), "{e}");

        let v = build("spmv", &[("--rows", "50"), ("--cols", "40")], 1);
        let LoopOutput::Y(mut y) = v.step_seq(0) else {
            unreachable!()
        };
        assert!(v.check(&[LoopOutput::Y(y.clone())]).is_ok());
        y[0] = -y[0] + 1.0;
        let e = v.check(&[LoopOutput::Y(y)]).unwrap_err();
        assert!(e.starts_with("spmv step 1: y's checksum is "), "{e}");
    }

    /// Every application builds its input from the defaults alone, and its parallel step
    /// (two workers) equals its sequential step, as its own check says.
    #[test]
    fn every_app_builds_its_default_input_and_steps_as_the_sequential_version() {
        let pool = magpie::ThreadPoolBuilder::new()
            .num_workers(2)
            .build()
            .unwrap();
        for app in LOOP_APPS {
            let input = app.build(&LoopOptions::new(1)).unwrap();
            assert_eq!(input.app().name, app.name);
            assert!(input.parameters().is_object(), "{}", app.name);
            let lp = Loop::new(Schedule::default());
            let out = pool.install(|| input.step(0, &lp));
            assert_eq!(out, input.step_seq(0), "{}", app.name);
            let outs = [out];
            assert!(input.check(&outs).is_ok(), "{}", app.name);
            assert!(!input.report(&outs).answer.is_empty(), "{}", app.name);
        }
    }

    #[test]
    fn a_bad_option_value_names_the_option() {
        let cases: &[(&str, &str, &str, &str)] = &[
            (
                "mandelbrot",
                "--width",
                "0",
                "--width 0: the width must be at least 1",
            ),
            (
                "mandelbrot",
                "--height",
                "x",
                "--height \"x\": expected a whole number (the height, at least 1)",
            ),
            (
                "dist",
                "--dist",
                "gamma:k=-1",
                "--dist: gamma:k=-1: k must be a finite number > 0",
            ),
            (
                "histogram",
                "--skew",
                "inf",
                "--skew \"inf\": expected a finite number",
            ),
            (
                "spmv",
                "--rows",
                "-3",
                "--rows \"-3\": expected a whole number (the number of rows, at least 1)",
            ),
            (
                "dist",
                "--width",
                "5",
                "--width applies to mandelbrot only, not to dist",
            ),
            (
                "spmv",
                "--seeds",
                "5",
                "--seeds is not an option of a loop application",
            ),
        ];
        for &(app, flag, value, want) in cases {
            let o = LoopOptions::new(1).with(flag, value);
            let e = find_loop(app).unwrap().build(&o).unwrap_err();
            assert_eq!(e.to_string(), want, "{app} {flag} {value}");
        }
        let o = LoopOptions::new(1).with("--png", "/nonexistent-magpie-dir/m.png");
        let e = find_loop("mandelbrot").unwrap().build(&o).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("--png /nonexistent-magpie-dir/m.png: cannot create the file"),
            "{e}"
        );
    }

    #[test]
    fn an_input_is_its_applications_type() {
        let d = build("dist", &[("--dist", "constant"), ("--iterations", "3")], 1);
        assert!(d.is::<crate::dist::Input>() && !d.is::<crate::mandelbrot::Input>());
        assert_eq!(
            d.downcast_ref::<crate::dist::Input>().map(|i| &i.costs[..]),
            Some(&[100, 100, 100][..])
        );
        let d = d.downcast::<crate::mandelbrot::Input>().unwrap_err();
        assert_eq!(d.downcast::<crate::dist::Input>().unwrap().costs.len(), 3);
    }
}
