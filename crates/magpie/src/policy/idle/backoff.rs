//! Backoff idle policies (placeholder until implemented).

use std::sync::Arc;

use super::IdlePolicy;
use crate::policy::params::{PolicySpec, SpecError};

/// The policy `spec` names, if it is one of this module's; `None` otherwise.
pub(crate) fn build(_spec: &mut PolicySpec) -> Option<Result<Arc<dyn IdlePolicy>, SpecError>> {
    None
}
