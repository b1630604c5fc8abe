//! Stopping a long command early: `--time-limit DURATION`, SIGINT (Ctrl-C) and SIGTERM.
//!
//! [`Stop::install`] registers the signal handlers and the deadline. The first SIGINT or
//! SIGTERM only sets a flag; the command sees it at its next check ([`Stop::check`]:
//! between the time steps of a loop, between the runs of an experiment) or, for a search,
//! through a watcher thread ([`Stop::watch`]) that stops the search's
//! [`Monitor`](magpie::search::Monitor) within a few milliseconds. A second SIGINT or
//! SIGTERM exits at once with code 130. A command that stopped early prints what it has
//! and exits with [`EXIT_STOPPED`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use magpie::search::Monitor;
use serde::Serialize;

use crate::error::Failure;

/// The exit code of a command stopped by its time limit or a signal, after it printed
/// what it had (0 is a complete run, 1 a failed check, 2 bad usage).
pub const EXIT_STOPPED: u8 = 3;
/// The exit code of a second SIGINT or SIGTERM, which exits at once (128 + SIGINT, the
/// shell's convention).
pub const EXIT_SIGNAL: i32 = 130;

/// How often the watcher of a search looks at the flag and the clock.
const WATCH_EVERY: Duration = Duration::from_millis(5);

/// How a command ended: its `status` in the JSON and text reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// It did everything it was asked.
    Complete,
    /// `--time-limit` ran out first.
    TimeLimit,
    /// SIGINT or SIGTERM arrived first.
    Interrupted,
}

impl Status {
    /// The status's name in the reports (`complete`, `time-limit`, `interrupted`).
    pub fn name(self) -> &'static str {
        match self {
            Status::Complete => "complete",
            Status::TimeLimit => "time-limit",
            Status::Interrupted => "interrupted",
        }
    }

    /// `Ok` for a complete run; the [`Failure::Stopped`] that sets the exit code otherwise.
    pub fn result(self) -> Result<(), Failure> {
        match self {
            Status::Complete => Ok(()),
            stopped => Err(Failure::Stopped(stopped.name())),
        }
    }
}

/// The signal flag, shared by every [`Stop`] of the process (the handlers are registered
/// once).
fn signalled() -> Result<&'static Arc<AtomicBool>, Failure> {
    static FLAG: OnceLock<Result<Arc<AtomicBool>, String>> = OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            // The first handler exits if the flag is already set (a second signal); the
            // second sets it. Registered in this order, a first signal only sets the flag.
            signal_hook::flag::register_conditional_shutdown(signal, EXIT_SIGNAL, flag.clone())
                .and_then(|_| signal_hook::flag::register(signal, flag.clone()))
                .map_err(|e| format!("cannot install the handler of signal {signal}: {e}"))?;
        }
        Ok(flag)
    })
    .as_ref()
    .map_err(|e| Failure::Run(e.clone()))
}

/// The time limit and the signal flag of one command.
#[derive(Debug)]
pub struct Stop {
    deadline: Option<Instant>,
    flag: &'static Arc<AtomicBool>,
    /// The first reason seen: a command that stopped for one reason keeps it.
    reason: OnceLock<Status>,
}

impl Stop {
    /// Installs the handlers of SIGINT and SIGTERM and starts the clock of `time_limit`.
    pub fn install(time_limit: Option<Duration>) -> Result<Stop, Failure> {
        Ok(Stop {
            deadline: time_limit.map(|d| Instant::now() + d),
            flag: signalled()?,
            reason: OnceLock::new(),
        })
    }

    /// [`install`](Stop::install) with a command's `--time-limit` text, parsed (a bad one
    /// is a usage error on every process); the limit applies only where this process
    /// `decides` (one process, or rank 0 of a distributed run), signals everywhere.
    pub fn from_flag(time_limit: Option<&str>, decides: bool) -> Result<Stop, Failure> {
        let limit = time_limit
            .map(|t| parse_duration("--time-limit", t))
            .transpose()?
            .filter(|_| decides);
        Stop::install(limit)
    }

    /// `Complete` while the command may go on; otherwise why it must stop (the first reason
    /// seen, kept).
    pub fn check(&self) -> Status {
        if let Some(&r) = self.reason.get() {
            return r;
        }
        let now = if self.flag.load(Ordering::Relaxed) {
            Status::Interrupted
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            Status::TimeLimit
        } else {
            return Status::Complete;
        };
        *self.reason.get_or_init(|| now)
    }

    /// Why the command stopped, if it did (the reason [`check`](Stop::check) saw first).
    pub fn reason(&self) -> Status {
        self.reason.get().copied().unwrap_or(Status::Complete)
    }

    /// Stops `monitor` (a running search) as soon as the time limit runs out or a signal
    /// arrives, from a watcher thread that ends when the returned guard is dropped.
    pub fn watch<'s>(&'s self, monitor: &Monitor) -> Watch<'s> {
        let done = Arc::new(AtomicBool::new(false));
        let (m, d) = (monitor.clone(), done.clone());
        // The watcher reads `self` through a copy of what it needs.
        let (deadline, flag) = (self.deadline, self.flag);
        let thread = std::thread::Builder::new()
            .name("magpie-stop".into())
            .spawn(move || {
                while !d.load(Ordering::Relaxed) {
                    if flag.load(Ordering::Relaxed) || deadline.is_some_and(|t| Instant::now() >= t)
                    {
                        m.stop();
                        return;
                    }
                    std::thread::sleep(WATCH_EVERY);
                }
            })
            .ok();
        Watch {
            stop: self,
            done,
            thread,
        }
    }
}

/// The watcher of [`Stop::watch`]; dropping it ends the thread.
pub struct Watch<'s> {
    stop: &'s Stop,
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Watch<'_> {
    /// Ends the watcher and returns how the search ended: `complete` unless `stopped` (the
    /// search's own [`SearchStats::stopped`](magpie::search::SearchStats::stopped): it saw
    /// the monitor's stop before it had finished), else why it was stopped.
    pub fn finish(mut self, stopped: bool) -> Status {
        self.end();
        if stopped {
            match self.stop.check() {
                // The monitor was stopped for a reason the clock and the flag still show.
                Status::Complete => Status::Interrupted,
                r => r,
            }
        } else {
            Status::Complete
        }
    }

    fn end(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Watch<'_> {
    fn drop(&mut self) {
        self.end();
    }
}

/// Parses a duration as `--time-limit` takes it: a number with a unit (`500ms`, `30s`,
/// `5m`, `1.5h`; a bare number is seconds), more than zero.
pub fn parse_duration(flag: &str, text: &str) -> Result<Duration, Failure> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let scale = match unit.trim() {
        "ms" => 1e-3,
        "" | "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => f64::NAN,
    };
    let seconds = number.parse::<f64>().map(|n| n * scale);
    match seconds {
        Ok(s) if s.is_finite() && s > 0.0 && s < 1e9 => Ok(Duration::from_secs_f64(s)),
        _ => Err(Failure::Usage(format!(
            "{flag} {text:?}: expected a duration above zero such as 500ms, 30s, 5m or 1.5h"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_every_unit_and_refuse_the_rest() {
        let ok = |t: &str| parse_duration("--time-limit", t).unwrap();
        assert_eq!(ok("500ms"), Duration::from_millis(500));
        assert_eq!(ok("30s"), Duration::from_secs(30));
        assert_eq!(ok("30"), Duration::from_secs(30));
        assert_eq!(ok("5m"), Duration::from_secs(300));
        assert_eq!(ok("2min"), Duration::from_secs(120));
        assert_eq!(ok("1.5h"), Duration::from_secs(5400));
        for bad in ["", "0s", "-1s", "s", "5 parsecs", "1e3", "1.2.3s", "inf"] {
            let e = parse_duration("--time-limit", bad).unwrap_err().to_string();
            assert!(e.starts_with("--time-limit"), "{bad}: {e}");
        }
    }

    #[test]
    fn a_passed_deadline_stops_and_keeps_its_reason() {
        let stop = Stop::install(Some(Duration::from_nanos(1))).unwrap();
        std::thread::sleep(Duration::from_millis(1));
        assert_eq!(stop.check(), Status::TimeLimit);
        assert_eq!(stop.reason(), Status::TimeLimit);
        let monitor = Monitor::new();
        let watch = stop.watch(&monitor);
        // The watcher stops the monitor at its first look.
        while !monitor.is_stopped() {
            std::thread::yield_now();
        }
        assert_eq!(watch.finish(true), Status::TimeLimit);
        let free = Stop::install(None).unwrap();
        assert_eq!(free.check(), Status::Complete);
        assert_eq!(free.watch(&Monitor::new()).finish(false), Status::Complete);
    }
}
