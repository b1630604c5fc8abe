//! Background loads: a command run beside the measurements, in a process group of its own,
//! stopped with everything it started by the one policy of [`process::stop_group`].

use std::io;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use crate::process::{self, in_own_group};

/// Whether a background command is started again when it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repeat {
    /// Run once: if it ends before it is stopped, nothing replaces it.
    Once,
    /// Run in a loop until stopped (given up after three failures in a row).
    Loop,
}

/// What a background load did, from [`Background::stop`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Runs of the command that ended successfully before the stop.
    pub completed: u32,
    /// Whether a run of the command was still going when it was stopped.
    pub running_at_stop: bool,
    /// Why it gave up, if it did (failed to start again, or failed three times in a row).
    pub error: Option<String>,
}

/// A command run in the background (output discarded) until [`Background::stop`] or drop.
pub struct Background {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<Report>>,
}

const POLL: Duration = Duration::from_millis(10);

impl Background {
    /// Starts `command` (stdin, stdout and stderr null; its own process group); an error if
    /// its first run cannot start.
    ///
    /// ```
    /// use magpie_measure::background::{Background, Repeat};
    /// let mut sleep = std::process::Command::new("sleep");
    /// sleep.arg("30");
    /// let load = Background::start(sleep, Repeat::Once).unwrap();
    /// let report = load.stop();
    /// assert!(report.running_at_stop && report.error.is_none());
    /// ```
    pub fn start(mut command: Command, repeat: Repeat) -> io::Result<Background> {
        in_own_group(&mut command)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let first = command.spawn()?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let handle = thread::spawn(move || run(command, first, repeat, &flag));
        Ok(Background {
            stop,
            handle: Some(handle),
        })
    }

    /// Stops the command's current run (its whole process group) and the loop.
    pub fn stop(mut self) -> Report {
        self.halt()
    }

    fn halt(&mut self) -> Report {
        self.stop.store(true, Ordering::Relaxed);
        self.handle
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or(Report {
                completed: 0,
                running_at_stop: false,
                error: Some("the background thread panicked".into()),
            })
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        if self.handle.is_some() {
            self.halt();
        }
    }
}

/// The background thread: runs `child` (then, with [`Repeat::Loop`], `command` again and
/// again) until `stop` is set.
fn run(mut command: Command, first: Child, repeat: Repeat, stop: &AtomicBool) -> Report {
    let mut report = Report {
        completed: 0,
        running_at_stop: false,
        error: None,
    };
    let mut failures = 0;
    let mut child = Some(first);
    loop {
        if stop.load(Ordering::Relaxed) {
            if let Some(c) = &mut child {
                report.running_at_stop = process::stop_group(c);
            }
            return report;
        }
        if let Some(c) = &mut child {
            match c.try_wait() {
                Ok(None) => {}
                Ok(Some(s)) => {
                    // Whatever the leader left in its group goes with it.
                    process::stop_group(c);
                    child = None;
                    if s.success() {
                        report.completed += 1;
                        failures = 0;
                    } else {
                        failures += 1;
                        if repeat == Repeat::Loop && failures >= 3 {
                            report.error = Some(format!("failed 3 times in a row ({s})"));
                            return report;
                        }
                    }
                }
                Err(e) => {
                    process::stop_group(c);
                    report.error = Some(format!("waiting: {e}"));
                    return report;
                }
            }
        }
        if child.is_none() && repeat == Repeat::Loop {
            match command.spawn() {
                Ok(c) => child = Some(c),
                Err(e) => {
                    report.error = Some(format!("cannot start: {e}"));
                    return report;
                }
            }
            continue;
        }
        thread::sleep(POLL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_load_in_a_loop_counts_its_runs() {
        let mut c = Command::new("sh");
        c.args(["-c", "sleep 0.01"]);
        let load = Background::start(c, Repeat::Loop).unwrap();
        thread::sleep(Duration::from_millis(500));
        let r = load.stop();
        assert!(r.completed >= 2 && r.error.is_none(), "{r:?}");
    }

    #[test]
    fn a_load_that_ends_or_fails() {
        let load = Background::start(Command::new("true"), Repeat::Once).unwrap();
        thread::sleep(Duration::from_millis(300));
        let r = load.stop();
        assert_eq!((r.completed, r.running_at_stop), (1, false));
        let load = Background::start(Command::new("false"), Repeat::Loop).unwrap();
        thread::sleep(Duration::from_millis(500));
        let r = load.stop();
        assert!(r.error.unwrap().contains("3 times"));
        assert!(Background::start(Command::new("/nonexistent/x"), Repeat::Once).is_err());
    }
}
