//! Idle policies: what a worker does after a round of stealing found nothing.
//!
//! Contract: a per-worker [`IdleState`] is told about every failed steal attempt
//! ([`IdleState::on_failed_steal`], which may answer with an action to take at once: `yield-abp`
//! yields there, dynamic quanta end a quantum there), is asked after every failed round (a
//! pass over the victims the victim policy chose; [`IdleState::on_failed_round`]) and answers
//! with an [`IdleAction`], and is told when work was found ([`IdleState::on_work_found`]) so it
//! can reset. `Park` blocks until new work wakes the worker (see `runtime/sleep.rs`);
//! `Sleep(d)` is a timed sleep, the kind the adaptive backoffs of the Pheet thesis use: the
//! worker wakes by itself after `d`, or earlier when work is sent to the pool from outside or
//! the latch it waits for is set, never by a local push (so a backoff really backs off). When
//! a round met contention (a lost race, or a victim with only private work that was asked to
//! expose some), the runtime turns `Park` into `Yield`: work exists, it is just not stealable
//! yet.
//!
//! Policies are named with parameters in the syntax of [`PolicySpec`], e.g.
//! `linear:min=10us,step=50us,max=500us`; [`by_name`] lists them all.

use std::fmt::Debug;
use std::sync::Arc;
use std::time::Duration;

use super::params::{PolicyError, PolicySpec, SpecError};

pub(crate) mod backoff;
pub(crate) mod quanta;

/// What to do after a failed round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum IdleAction {
    /// Spin briefly (a CPU relax hint), then try again.
    Spin,
    /// Yield the CPU to the OS, then try again.
    Yield,
    /// Sleep for this long, then try again (self-waking).
    Sleep(Duration),
    /// Block until woken by new work.
    Park,
}

/// An idle policy shared by a pool.
pub trait IdlePolicy: Send + Sync + Debug {
    /// The policy's name (as accepted by `MAGPIE_IDLE` / `--idle`).
    fn name(&self) -> &str;
    /// The per-worker state for worker `index`.
    fn state(&self, index: usize) -> Box<dyn IdleState>;
}

/// Per-worker idle state.
pub trait IdleState: Send {
    /// One steal attempt failed (the victim was empty or busy). `Some(action)` is carried out
    /// at once, before the round goes on.
    fn on_failed_steal(&mut self) -> Option<IdleAction> {
        None
    }
    /// A round of stealing failed.
    fn on_failed_round(&mut self) -> IdleAction;
    /// Work was found: reset.
    fn on_work_found(&mut self);
}

/// The default: spin for `spin_rounds` failed rounds, yield for `yield_rounds` more, then
/// park until woken.
///
/// ```
/// use magpie::policy::{IdleAction, IdlePolicy, ParkIdle};
/// let p = ParkIdle { spin_rounds: 1, yield_rounds: 1 };
/// let mut s = p.state(0);
/// assert_eq!(s.on_failed_round(), IdleAction::Spin);
/// assert_eq!(s.on_failed_round(), IdleAction::Yield);
/// assert_eq!(s.on_failed_round(), IdleAction::Park);
/// s.on_work_found();
/// assert_eq!(s.on_failed_round(), IdleAction::Spin);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ParkIdle {
    /// Failed rounds answered with [`IdleAction::Spin`].
    pub spin_rounds: u32,
    /// Further failed rounds answered with [`IdleAction::Yield`].
    pub yield_rounds: u32,
}

impl Default for ParkIdle {
    fn default() -> Self {
        ParkIdle {
            spin_rounds: 64,
            yield_rounds: 32,
        }
    }
}

impl IdlePolicy for ParkIdle {
    fn name(&self) -> &str {
        "park"
    }

    fn state(&self, _index: usize) -> Box<dyn IdleState> {
        Box::new(ParkState {
            policy: *self,
            failed: 0,
        })
    }
}

struct ParkState {
    policy: ParkIdle,
    failed: u32,
}

impl IdleState for ParkState {
    fn on_failed_round(&mut self) -> IdleAction {
        self.failed = self.failed.saturating_add(1);
        if self.failed <= self.policy.spin_rounds {
            IdleAction::Spin
        } else if self.failed <= self.policy.spin_rounds + self.policy.yield_rounds {
            IdleAction::Yield
        } else {
            IdleAction::Park
        }
    }

    fn on_work_found(&mut self) {
        self.failed = 0;
    }
}

impl ParkIdle {
    /// `park:spin=64,yield=32`.
    pub fn from_spec(spec: &mut PolicySpec) -> Result<Self, SpecError> {
        let d = ParkIdle::default();
        let spin = spec.uint("spin", d.spin_rounds.into())?;
        let yield_rounds = spec.uint("yield", d.yield_rounds.into())?;
        let to_u32 = |v: u64, key: &str| {
            u32::try_from(v).map_err(|_| SpecError::new(format!("park: {key}={v} is too large")))
        };
        Ok(ParkIdle {
            spin_rounds: to_u32(spin, "spin")?,
            yield_rounds: to_u32(yield_rounds, "yield")?,
        })
    }
}

/// The idle policies selectable by name ([`NAMES`]), with parameters in the syntax of
/// [`PolicySpec`]. Each policy's parameters and defaults are listed in the user guide
/// (`docs/policies.md`) and in the policy's own docs in the source (`policy/idle/backoff.rs`,
/// `policy/idle/quanta.rs`).
///
/// ```
/// let p = magpie::policy::idle::by_name("linear:step=25us").unwrap();
/// assert_eq!(p.name(), "linear");
/// let e = magpie::policy::idle::by_name("linear:stpe=25us").unwrap_err();
/// assert!(e.to_string().contains("unknown parameter \"stpe\""));
/// assert!(magpie::policy::idle::by_name("snooze").is_err());
/// ```
pub fn by_name(spec: &str) -> Result<Arc<dyn IdlePolicy>, PolicyError> {
    let mut spec: PolicySpec = spec.parse()?;
    let policy: Arc<dyn IdlePolicy> = if spec.name() == "park" {
        Arc::new(ParkIdle::from_spec(&mut spec)?)
    } else if let Some(p) = backoff::build(&mut spec) {
        p?
    } else if let Some(p) = quanta::build(&mut spec) {
        p?
    } else {
        return Err(PolicyError::UnknownName(crate::deque::UnknownName {
            what: "idle policy",
            given: spec.name().to_string(),
            accepted: NAMES.to_vec(),
        }));
    };
    spec.finish()?;
    Ok(policy)
}

/// The accepted idle-policy names.
pub const NAMES: &[&str] = &[
    "park",
    "spin",
    "yield",
    "yield-abp",
    "pheet",
    "yewpar",
    "linear",
    "exponential",
    "exp-linear",
    "linear-exp",
    "linear-combination",
    "dynamic-quanta",
    "long-short-quanta",
];
