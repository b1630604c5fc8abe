//! The one error type of magpie-mpi.

use magpie::policy::SpecError;

use crate::codec::DecodeError;

/// What went wrong in a call of magpie-mpi: starting MPI, parsing an option, checking a
/// loop's schedule, or decoding a loop's iteration data. Its [`Display`](std::fmt::Display)
/// is the one-line message a command reports.
///
/// ```
/// use magpie_mpi::loops::Mode;
/// let e = "push".parse::<Mode>().unwrap_err();
/// assert!(matches!(e, magpie_mpi::Error::UnknownName { what: "mode", .. }));
/// assert_eq!(e.to_string(), "unknown mode \"push\"; expected one of share, steal");
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `MPI_Init` was already called in this process.
    #[error("MPI was already initialised in this process")]
    AlreadyInitialised,
    /// The MPI library cannot give the funnelled threading magpie needs.
    #[error("the MPI library offers only {offered} threading; magpie needs Funneled")]
    Threading {
        /// The threading level it offers (its `Debug` name).
        offered: String,
    },
    /// A name that is none of the accepted ones (a mode, a victim choice, a policy, a
    /// parameter).
    #[error("unknown {what} {name:?}; expected one of {expected}")]
    UnknownName {
        /// What the name should name (`mode`, `perf parameter`, …).
        what: &'static str,
        /// The name given.
        name: String,
        /// The accepted names, comma-separated.
        expected: String,
    },
    /// A parameter list item that is not `key=value`.
    #[error("perf parameter {item:?} is not key=value")]
    NotKeyValue {
        /// The item.
        item: String,
    },
    /// A parameter value that is not a non-negative number.
    #[error("perf parameter {key}: {value:?} is not a non-negative number")]
    NotANumber {
        /// The parameter.
        key: String,
        /// Its value.
        value: String,
    },
    /// A duration parameter without a unit.
    #[error("perf parameter {key}: {value:?} needs a unit (us, ms or s)")]
    NeedsUnit {
        /// The parameter.
        key: String,
        /// Its value.
        value: String,
    },
    /// Parameters that break a constraint of the policy (checked by the core's
    /// [`PerfParams::validate`](magpie::policy::victim::PerfParams::validate)).
    #[error(transparent)]
    Params(#[from] SpecError),
    /// A schedule that cannot coordinate a shared loop.
    #[error(
        "schedule {schedule} cannot coordinate a shared loop: {why}; expected one of static, \
         ss, gss, tss, fac, fac2, wf, awf, awf-b, awf-c, awf-d, awf-e, af"
    )]
    ShareSchedule {
        /// The schedule, as written.
        schedule: String,
        /// Why it cannot.
        why: &'static str,
    },
    /// Iteration data that does not decode (postcard's reason).
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// Iteration data that a user's [`DataDescription`](crate::loops::DataDescription)
    /// cannot rebuild: its reason.
    #[error("{0}")]
    Data(String),
    /// Decoded iteration data with the wrong number of elements.
    #[error("{got} elements for {iterations} iterations")]
    DataCount {
        /// The elements decoded.
        got: usize,
        /// The iterations they are for.
        iterations: usize,
    },
}

impl Error {
    /// An [`Error::UnknownName`] of `name` as a `what`, listing `expected`.
    pub(crate) fn unknown(what: &'static str, name: &str, expected: &[&str]) -> Error {
        Error::UnknownName {
            what,
            name: name.to_string(),
            expected: expected.join(", "),
        }
    }
}
