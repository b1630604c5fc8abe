//! The one error type of the `magpie` commands (`search`, `loop` and `experiment`, whose
//! runs of every application report through it too): [`Failure`], with its exit code.

use std::process::ExitCode;

use magpie_apps::input::InputError;
use magpie_apps::registry::AppError;

use crate::config::ConfigError;

/// Why a command did not print an answer. Its `Display` is the text of the one error line
/// (after `magpie: error: `).
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// Bad usage, configuration or input: exit code 2.
    #[error("{0}")]
    Usage(String),
    /// The answer failed its check (a bug): exit code 1.
    #[error("result check failed (a bug): {0}")]
    Check(String),
    /// A process an experiment measures failed otherwise (crashed, or could not be started
    /// or read): exit code 1.
    #[error("{0}")]
    Run(String),
    /// Not a failure: the command was stopped by `--time-limit` or a signal (the status, as
    /// `crate::stop::Status::name`) after it printed what it had found: exit code
    /// [`EXIT_STOPPED`](crate::stop::EXIT_STOPPED).
    #[error("stopped ({0}): the report is what was done before the stop")]
    Stopped(&'static str),
}

impl Failure {
    /// The exit code of `result`: 0, 2 for bad usage, 1 for a failed check or run, 3 for a
    /// stopped command; with `print`, a failure's one line `magpie: error: …` (for a stop,
    /// `magpie: stopped (…): …`) goes to stderr (a distributed run reports it itself, on
    /// rank 0 only: `distributed::exit_code`).
    pub fn exit_code(result: Result<(), Failure>, print: bool) -> ExitCode {
        let Err(failure) = result else {
            return ExitCode::SUCCESS;
        };
        if print {
            match failure {
                Failure::Stopped(_) => eprintln!("magpie: {failure}"),
                _ => eprintln!("magpie: error: {failure}"),
            }
        }
        ExitCode::from(match failure {
            Failure::Usage(_) => 2,
            Failure::Check(_) | Failure::Run(_) => 1,
            Failure::Stopped(_) => crate::stop::EXIT_STOPPED,
        })
    }

    /// The same failure with `prefix` before its message.
    pub fn prefixed(self, prefix: &str) -> Failure {
        match self {
            Failure::Usage(e) => Failure::Usage(format!("{prefix}{e}")),
            Failure::Check(e) => Failure::Check(format!("{prefix}{e}")),
            Failure::Run(e) => Failure::Run(format!("{prefix}{e}")),
            Failure::Stopped(s) => Failure::Stopped(s),
        }
    }

    /// The text of the failure's error line (after `magpie: error: `): its `Display`.
    #[cfg(feature = "mpi")]
    pub fn message(&self) -> String {
        self.to_string()
    }
}

impl From<ConfigError> for Failure {
    fn from(e: ConfigError) -> Self {
        Failure::Usage(e.0)
    }
}

impl From<AppError> for Failure {
    fn from(e: AppError) -> Self {
        match e {
            AppError::Check(m) => Failure::Check(m),
            e => Failure::Usage(e.to_string()),
        }
    }
}

impl From<InputError> for Failure {
    fn from(e: InputError) -> Self {
        Failure::Usage(e.to_string())
    }
}

/// A usage failure with `message`, as an `Err`.
/// Parses a whole number given to `flag`, at least `min`
/// ([`magpie_apps::registry::parse_number`], its error a usage error).
pub fn number<T>(flag: &str, value: &str, min: T, what: &str) -> Result<T, Failure>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy,
{
    magpie_apps::registry::parse_number(flag, value, min, what).map_err(Failure::Usage)
}

pub fn usage<T>(message: impl Into<String>) -> Result<T, Failure> {
    Err(Failure::Usage(message.into()))
}

/// `Ok` if `ok`, else a check failure with `message`.
pub fn check(ok: bool, message: impl FnOnce() -> String) -> Result<(), Failure> {
    if ok {
        Ok(())
    } else {
        Err(Failure::Check(message()))
    }
}
