//! The builder and accessors every topology-aware victim policy has, written once.
//!
//! `HierarchicalVictims` and `LocalityVictims` differ only in how they order victims; how
//! they get their topology (`sysfs=PATH`, `pin=BOOL`, [`Placement`]) and where their workers
//! go is the same. Each keeps its own public type (users name them), so a macro gives both
//! the same inherent methods over their `placement` field rather than a shared wrapper type.
//!
//! [`Placement`]: crate::policy::topology::Placement

/// Implements `from_spec`, `with_topology`, `restricted_to`, `pinned`, `topology` and
/// `worker_cpus` for `$policy`, a struct whose only field is `placement: Placement`.
macro_rules! placed_victim_policy {
    ($policy:ident) => {
        impl $policy {
            /// The policy with the parameters of `spec` (`sysfs=PATH`, `pin=BOOL`): the
            /// detected topology of this machine (or the one under `sysfs`), placed over the
            /// CPUs the process may use.
            pub fn from_spec(spec: &mut PolicySpec) -> Result<Self, SpecError> {
                Ok($policy {
                    placement: Placement::from_spec(spec)?,
                })
            }

            /// The policy over `topology`, placing workers over all of its CPUs and pinning them.
            pub fn with_topology(topology: Topology) -> Self {
                $policy {
                    placement: Placement::new(topology),
                }
            }

            /// Places the workers over `cpus` only (in the topology's compact order).
            pub fn restricted_to(mut self, cpus: &[usize]) -> Self {
                self.placement.restrict_to(cpus);
                self
            }

            /// Whether to pin the workers to their CPUs (default true).
            pub fn pinned(mut self, pin: bool) -> Self {
                self.placement.pin = pin;
                self
            }

            /// The topology the policy steers by.
            pub fn topology(&self) -> &Topology {
                &self.placement.topology
            }

            /// The CPU of each of `num_workers` workers, whether or not they are pinned to it.
            pub fn worker_cpus(&self, num_workers: usize) -> Vec<usize> {
                self.placement.worker_cpus(num_workers)
            }
        }
    };
}

pub(super) use placed_victim_policy;
