//! The options of a loop application as its input builder reads them ([`LoopOptions`]), and
//! what a bad one gives ([`LoopError`]).

use crate::registry::parse_number;
use std::fmt::Display;
use std::str::FromStr;

use crate::input::InputError;

/// The seed of the generated inputs without `--seed` (`dist`, `histogram`, `spmv`).
pub const DEFAULT_LOOP_SEED: u64 = 2026;

/// A bad option of a loop application, or an input that cannot be generated or written: one
/// line naming the option (`--width 0: the width must be at least 1`), as `magpie loop`
/// prints it after `magpie: error: `.
///
/// ```
/// use magpie_apps::registry::{LoopError, LoopOptions};
///
/// let e: LoopError = LoopOptions::new(1).with("--width", "x").number("--width", 8, 1, "the width")
///     .unwrap_err();
/// assert_eq!(e.to_string(), "--width \"x\": expected a whole number (the width, at least 1)");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct LoopError {
    message: String,
}

impl LoopError {
    /// An error that says `message`.
    pub fn new(message: impl Into<String>) -> Self {
        LoopError {
            message: message.into(),
        }
    }
}

impl From<InputError> for LoopError {
    fn from(e: InputError) -> Self {
        LoopError::new(e.to_string())
    }
}

/// The option values given to one loop application, by flag name (`--width` → `"800"`), and
/// the number of time steps: what its [`LoopApp::input`](super::LoopApp::input) builds its
/// input from. An option not given takes the default its application module defines
/// (`mandelbrot::DEFAULT_WIDTH`); the typed getters parse a value and name the option in
/// their errors.
///
/// ```
/// use magpie_apps::registry::LoopOptions;
///
/// let o = LoopOptions::new(5).with("--width", 64).with("--skew", "0.5");
/// assert_eq!(o.steps(), 5);
/// assert_eq!(o.number("--width", 800usize, 1, "the width"), Ok(64));
/// assert_eq!(o.number("--height", 600usize, 1, "the height"), Ok(600));
/// assert_eq!(o.real("--skew", 1.0), Ok(0.5));
/// assert_eq!(o.flags().collect::<Vec<_>>(), ["--width", "--skew"]);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct LoopOptions {
    steps: usize,
    values: Vec<(String, String)>,
}

impl LoopOptions {
    /// No option given, `steps` time steps.
    pub fn new(steps: usize) -> Self {
        LoopOptions {
            steps,
            values: Vec::new(),
        }
    }

    /// Gives `flag` the value `value` (replacing an earlier one; the order of the first
    /// setting is kept).
    pub fn set(&mut self, flag: &str, value: impl ToString) -> &mut Self {
        let value = value.to_string();
        match self.values.iter_mut().find(|(f, _)| f == flag) {
            Some(slot) => slot.1 = value,
            None => self.values.push((flag.to_string(), value)),
        }
        self
    }

    /// These options with `flag` set to `value`.
    pub fn with(mut self, flag: &str, value: impl ToString) -> Self {
        self.set(flag, value);
        self
    }

    /// Sets the number of time steps.
    pub fn set_steps(&mut self, steps: usize) -> &mut Self {
        self.steps = steps;
        self
    }

    /// The number of time steps.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// The value given to `flag`, if any.
    pub fn get(&self, flag: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(f, _)| f == flag)
            .map(|(_, v)| v.as_str())
    }

    /// The flags given, in the order they were first set.
    pub fn flags(&self) -> impl Iterator<Item = &str> {
        self.values.iter().map(|(f, _)| f.as_str())
    }

    /// `flag`'s value as a number of at least `min` (see [`parse_number`](crate::registry::parse_number)), or `default`.
    pub fn number<T>(&self, flag: &str, default: T, min: T, what: &str) -> Result<T, LoopError>
    where
        T: FromStr + PartialOrd + Display + Copy,
    {
        self.get(flag).map_or(Ok(default), |v| {
            parse_number(flag, v, min, what).map_err(LoopError::new)
        })
    }

    /// `flag`'s value as a finite real number, or `default`.
    pub fn real(&self, flag: &str, default: f64) -> Result<f64, LoopError> {
        match self.get(flag) {
            None => Ok(default),
            Some(v) => match v.trim().parse::<f64>() {
                Ok(x) if x.is_finite() => Ok(x),
                _ => Err(LoopError::new(format!(
                    "{flag} {v:?}: expected a finite number"
                ))),
            },
        }
    }

    /// `--seed`, or [`DEFAULT_LOOP_SEED`].
    pub fn seed(&self) -> Result<u64, LoopError> {
        self.number("--seed", DEFAULT_LOOP_SEED, 0, "a seed")
    }
}
