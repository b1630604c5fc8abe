//! The signal path of the signal-based LCWS deques. STUB: being written.

use std::os::raw::c_int;

/// The default exposure signal.
pub const DEFAULT_SIGNAL: c_int = libc::SIGUSR1;

/// Why the signal-based exposure could not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignalError {
    /// Another handler already owns the signal.
    #[error("signal {signal} already has a handler that magpie did not install; choose another signal with `signal(..)` / MAGPIE_SIGNAL")]
    ForeignHandler {
        /// The signal number.
        signal: c_int,
    },
    /// The signal number cannot be used.
    #[error("signal {signal} cannot be used for work exposure: {reason}")]
    Invalid {
        /// The signal number.
        signal: c_int,
        /// Why.
        reason: &'static str,
    },
}

/// Installs magpie's exposure handler for `signal` (idempotent; never uninstalled).
pub fn install(_signal: c_int) -> Result<(), SignalError> {
    todo!()
}
