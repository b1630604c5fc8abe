//! Which work-stealing deque a pool's workers use ([`DequeKind`], chosen at run time by
//! [`ThreadPoolBuilder::deque`](crate::ThreadPoolBuilder::deque), `MAGPIE_DEQUE` or
//! `--deque`).
//!
//! | name | deque | owner push/pop | thief |
//! |---|---|---|---|
//! | `chase-lev` | [`DequeKind::ChaseLev`] | release fence on push, SeqCst fence on pop (CAS on the last task) | fence + CAS |
//! | `lcws-user` | split, [`Exposure::User`] | no fence, no RMW | fence + CAS, sets a targeted flag |
//! | `lcws-signal` | split, [`Exposure::Signal`] | no fence, no RMW | fence + CAS, signals the victim |
//! | `lcws-conservative` | split, [`Exposure::Conservative`] | no fence, no RMW | as signal, only if ≥ 2 private tasks |
//! | `lcws-half` | split, [`Exposure::Half`] | no fence, no RMW | as signal; the victim exposes half |
//!
//! Inside the crate every deque has an owner side (`DequeOwner`, used by exactly one thread,
//! which pushes and pops at the bottom) and a thief side (`DequeStealer`, cloneable and
//! shared, which steals at the top). Each operation takes the `WorkerCounters` of the
//! *calling* thread, so that every counter keeps a single writer. The deques themselves
//! (`chase_lev`, `split`, the exposure signal in `signal`) are private to the crate; their
//! stress suite, smoke test and loom models are its unit tests (`deque/tests/`).

use crate::stats::WorkerCounters;
use std::fmt;
use std::str::FromStr;

pub(crate) mod chase_lev;
pub(crate) mod signal;
pub(crate) mod split;
#[cfg(test)]
mod tests {
    #[cfg(loom)]
    mod loom_chase_lev;
    #[cfg(loom)]
    mod loom_split;
    #[cfg(not(loom))]
    pub(super) mod smoke;
    #[cfg(not(loom))]
    mod stress;
}

/// The outcome of a steal attempt (crossbeam-deque's `Steal`, plus `Private`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub(crate) enum Steal<T> {
    /// The deque was empty.
    Empty,
    /// A task was stolen.
    Success(T),
    /// Lost a race with another thread; trying again may succeed.
    Retry,
    /// A split deque's public part is empty but its owner holds private work it will expose
    /// on request. The steal call has already asked for it (flag or signal, unless a request
    /// is still pending); try again later. (A conservative owner with a single private task
    /// never exposes it: that deque reports [`Steal::Empty`].)
    Private,
}

impl<T> Steal<T> {
    /// The stolen task, if any.
    #[cfg(test)]
    pub fn success(self) -> Option<T> {
        match self {
            Steal::Success(t) => Some(t),
            _ => None,
        }
    }

    /// True for [`Steal::Empty`].
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        matches!(self, Steal::Empty)
    }
}

/// The owner's side of a deque: one thread pushes and pops at the bottom.
///
/// Not `Sync`: the owner side must stay on one thread (the signal-based split deques rely on
/// the handler running on that thread).
pub(crate) trait DequeOwner<T>: Send {
    /// The thief's side.
    type Stealer: DequeStealer<T>;

    /// Pushes a task at the bottom. Never fails: a full deque grows.
    fn push(&self, task: T, counters: &WorkerCounters);

    /// Pops the bottom-most task (private part first, then public), or `None` if empty.
    fn pop(&self, counters: &WorkerCounters) -> Option<T>;

    /// A new handle for thieves.
    fn stealer(&self) -> Self::Stealer;

    /// Whether the deque holds no task (exact for the owner).
    #[cfg(test)]
    fn is_empty(&self) -> bool;

    /// Number of tasks held (exact for the owner).
    #[cfg(test)]
    fn len(&self) -> usize;
}

/// The thieves' side of a deque: any number of threads steal from the top.
pub(crate) trait DequeStealer<T>: Clone + Send + Sync {
    /// Tries to steal the top-most public task.
    fn steal(&self, counters: &WorkerCounters) -> Steal<T>;

    /// A racy estimate of the number of tasks in the deque (public and private).
    fn len_hint(&self) -> usize;

    /// A racy estimate of the number of tasks a thief could take right now (the public part
    /// of a split deque; everything for other deques). Idle workers look at it before they
    /// park.
    fn public_len_hint(&self) -> usize {
        self.len_hint()
    }
}

/// How a split deque moves tasks from its private to its public part (LCWS §3–4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Exposure {
    /// USLCWS: thieves set a flag that the owner polls at its next push or pop.
    User,
    /// Thieves send a POSIX signal; the handler exposes the top-most private task.
    Signal,
    /// As `Signal`, but only when the private part holds at least two tasks.
    Conservative,
    /// As `Signal`, but the handler exposes half of the private part (at least one task).
    Half,
}

impl Exposure {
    /// Whether this variant delivers exposure requests by signal.
    pub fn uses_signal(self) -> bool {
        !matches!(self, Exposure::User)
    }
}

/// Which deque a pool's workers use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DequeKind {
    /// The classic Chase-Lev deque (the paper's "WS" baseline).
    ChaseLev,
    /// A split deque with the given exposure (LCWS).
    Split(Exposure),
    /// The default: `lcws-user`.
    #[default]
    Default,
}

impl DequeKind {
    /// Every selectable deque, in the order tables list them.
    pub const ALL: [DequeKind; 5] = [
        DequeKind::ChaseLev,
        DequeKind::Split(Exposure::User),
        DequeKind::Split(Exposure::Signal),
        DequeKind::Split(Exposure::Conservative),
        DequeKind::Split(Exposure::Half),
    ];

    /// The default deque, resolved.
    pub fn resolve(self) -> DequeKind {
        match self {
            DequeKind::Default => DequeKind::Split(Exposure::User),
            k => k,
        }
    }

    /// The name used by the builder, `MAGPIE_DEQUE` and `--deque`.
    pub fn name(self) -> &'static str {
        match self.resolve() {
            DequeKind::ChaseLev => "chase-lev",
            DequeKind::Split(Exposure::User) => "lcws-user",
            DequeKind::Split(Exposure::Signal) => "lcws-signal",
            DequeKind::Split(Exposure::Conservative) => "lcws-conservative",
            DequeKind::Split(Exposure::Half) => "lcws-half",
            DequeKind::Default => unreachable!("resolved above"),
        }
    }

    /// The accepted names, for error messages and `--help`.
    pub fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|k| k.name()).collect()
    }
}

impl fmt::Display for DequeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown policy name: says what was given and what is accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} {given:?}; expected one of: {}", .accepted.join(", "))]
pub struct UnknownName {
    /// What kind of name it was ("deque", "victim policy", …).
    pub what: &'static str,
    /// The name given.
    pub given: String,
    /// The names accepted.
    pub accepted: Vec<&'static str>,
}

impl FromStr for DequeKind {
    type Err = UnknownName;

    /// ```
    /// use magpie::deque::{DequeKind, Exposure};
    /// assert_eq!("lcws-half".parse::<DequeKind>().unwrap(), DequeKind::Split(Exposure::Half));
    /// assert!("abp".parse::<DequeKind>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        DequeKind::ALL
            .iter()
            .copied()
            .find(|k| k.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownName {
                what: "deque",
                given: s.to_string(),
                accepted: DequeKind::names(),
            })
    }
}
