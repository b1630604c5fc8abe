//! `hierarchical` victim selection (placeholder: draws at random until implemented).

use super::{RandomOther, VictimPolicy, VictimSelector};
use crate::policy::params::{PolicySpec, SpecError};

/// `hierarchical` victim selection.
#[derive(Debug, Clone, Default)]
pub struct HierarchicalVictims;

impl HierarchicalVictims {
    /// The policy with the parameters of `spec`.
    pub fn from_spec(_spec: &mut PolicySpec) -> Result<Self, SpecError> {
        Ok(HierarchicalVictims)
    }
}

impl VictimPolicy for HierarchicalVictims {
    fn name(&self) -> &str {
        "hierarchical"
    }

    fn selectors(&self, num_workers: usize) -> Vec<Box<dyn VictimSelector>> {
        (0..num_workers)
            .map(|t| Box::new(RandomOther::new(t, num_workers)) as Box<dyn VictimSelector>)
            .collect()
    }
}
