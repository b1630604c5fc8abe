//! Idle policies: what a worker does after a round of stealing found nothing.
//!
//! Contract: a per-worker [`IdleState`] is asked after every failed round
//! ([`IdleState::on_failed_round`]) and answers with an [`IdleAction`]; it is told when work
//! was found ([`IdleState::on_work_found`]) so it can reset. `Park` blocks until new work wakes
//! the worker (see `runtime/sleep.rs`); `Sleep(d)` is a self-waking timed sleep, the kind the
//! adaptive backoffs of the Pheet thesis use. When a round met contention (a lost race, or a
//! victim with only private work that was asked to expose some), the runtime turns `Park`
//! into `Yield`: work exists, it is just not stealable yet.

use std::fmt::Debug;
use std::time::Duration;

/// What to do after a failed round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// The idle policies selectable by name.
pub fn by_name(name: &str) -> Option<std::sync::Arc<dyn IdlePolicy>> {
    match name.trim().to_ascii_lowercase().as_str() {
        "park" => Some(std::sync::Arc::new(ParkIdle::default())),
        _ => None,
    }
}

/// The accepted idle-policy names.
pub const NAMES: &[&str] = &["park"];
