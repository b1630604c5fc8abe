//! Loop schedules and their string syntax (placeholder until implemented).

/// A loop schedule.
#[derive(Debug, Clone, PartialEq)]
pub enum Schedule {
    /// Even blocks, one per worker.
    Static,
}

/// A malformed schedule string.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ScheduleError(pub String);
