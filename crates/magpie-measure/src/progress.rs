//! Progress on stderr for long commands, in one place for `magpie` and `magpie-bench`
//! (drawn with the `indicatif` crate):
//!
//! - [`Mode`]: whether to show progress at all, decided once from the flags
//!   ([`ProgressArgs`]: `--progress`, `--quiet`), `--json` and whether stderr is a terminal
//!   ([`Mode::decide`]);
//! - [`RunsBar`]: runs done of a known total, elapsed time, an estimate of the time left and
//!   the configuration running now (experiments, benchmark suites);
//! - [`StatusLine`]: a live line whose text a closure gives, refreshed every 200 ms from a
//!   thread of its own (a search's nodes and incumbent, a loop's steps);
//! - [`eprint_above!`](crate::eprint_above) and [`eprintln_above!`](crate::eprintln_above):
//!   a command's other stderr messages, printed above the progress line while one is shown
//!   (whole lines: a line is held until it ends) and straight to stderr otherwise;
//! - [`si`] and [`rate`]: numbers for a status line (`12.3 M`, `12.3 M nodes/s`).
//!
//! Progress only ever goes to stderr, so stdout (text and JSON reports) is the same with and
//! without it. When the mode is [`Mode::Off`] the bar and the line are no-ops: nothing is
//! drawn and no thread is started. At most one progress display is shown at a time: one
//! started while another is shown stays hidden.

use std::borrow::Cow;
use std::fmt;
use std::io::{IsTerminal, Write};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Whether a command shows progress on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Draw progress on stderr.
    On,
    /// Draw nothing (and start no thread).
    Off,
}

impl Mode {
    /// The one decision: `--quiet` silences progress; otherwise `--progress` forces it on
    /// (on a terminal or not); otherwise it is on only when stderr is a terminal and the
    /// output is not `--json`.
    ///
    /// ```
    /// use magpie_measure::progress::Mode;
    /// // (progress, quiet, json, stderr is a terminal)
    /// assert_eq!(Mode::decide(false, false, false, true), Mode::On);
    /// assert_eq!(Mode::decide(false, false, false, false), Mode::Off); // piped
    /// assert_eq!(Mode::decide(false, false, true, true), Mode::Off); // --json
    /// assert_eq!(Mode::decide(true, false, true, false), Mode::On); // --progress
    /// assert_eq!(Mode::decide(true, true, false, true), Mode::Off); // --quiet wins
    /// ```
    pub fn decide(progress: bool, quiet: bool, json: bool, stderr_is_terminal: bool) -> Mode {
        if quiet {
            Mode::Off
        } else if progress || (stderr_is_terminal && !json) {
            Mode::On
        } else {
            Mode::Off
        }
    }
}

/// The `--progress` and `--quiet` flags of a command that shows progress (flatten it into
/// the command's clap arguments with `#[command(flatten)]`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::Args)]
pub struct ProgressArgs {
    /// Show the progress line on stderr even when stderr is not a terminal or the output is
    /// JSON (by default it is shown only on a terminal, and not with JSON output)
    #[arg(long, conflicts_with = "quiet")]
    pub progress: bool,
    /// Show no progress line (the reports are unchanged)
    #[arg(long)]
    pub quiet: bool,
}

impl ProgressArgs {
    /// The mode for these flags, the command's `json` output choice and this process's
    /// stderr ([`Mode::decide`]).
    pub fn mode(&self, json: bool) -> Mode {
        Mode::decide(
            self.progress,
            self.quiet,
            json,
            std::io::stderr().is_terminal(),
        )
    }
}

/// The progress display shown now, if any, and the start of a stderr line that waits for its
/// end to be printed above it.
struct Shown {
    bar: ProgressBar,
    pending: String,
}

static SHOWN: Mutex<Option<Shown>> = Mutex::new(None);

fn shown() -> MutexGuard<'static, Option<Shown>> {
    SHOWN.lock().unwrap_or_else(|e| e.into_inner())
}

/// Writes to stderr, ignoring a failed write (a closed stderr must not end a measurement).
fn write_stderr(s: &str) {
    let mut e = std::io::stderr().lock();
    let _ = e.write_all(s.as_bytes());
    let _ = e.flush();
}

/// Prints `args` on stderr, above the progress display if one is shown. Use it through
/// [`eprint_above!`](crate::eprint_above), as `eprint!`.
pub fn eprint_above(args: fmt::Arguments<'_>) {
    let mut guard = shown();
    match guard.as_mut() {
        None => {
            drop(guard);
            write_stderr(&args.to_string());
        }
        Some(s) => {
            use fmt::Write as _;
            let _ = s.pending.write_fmt(args);
            if let Some(end) = s.pending.rfind('\n') {
                let lines: String = s.pending.drain(..=end).collect();
                s.bar.suspend(|| write_stderr(&lines));
            }
        }
    }
}

/// Prints `args` and a newline on stderr, above the progress display if one is shown. Use
/// it through [`eprintln_above!`](crate::eprintln_above), as `eprintln!`.
pub fn eprintln_above(args: fmt::Arguments<'_>) {
    eprint_above(format_args!("{args}\n"));
}

/// `eprint!` that prints above the progress display while one is shown (see
/// [`progress`](crate::progress)). A module that prints while a [`RunsBar`] or a
/// [`StatusLine`] may be shown imports it in place of the standard macro:
///
/// ```
/// use magpie_measure::{eprint_above as eprint, eprintln_above as eprintln};
/// eprint!("run 1:");
/// eprintln!(" {:.3} s", 0.25);
/// ```
#[macro_export]
macro_rules! eprint_above {
    ($($arg:tt)*) => {
        $crate::progress::eprint_above(::std::format_args!($($arg)*))
    };
}

/// `eprintln!` that prints above the progress display while one is shown (see
/// [`eprint_above!`](crate::eprint_above)).
#[macro_export]
macro_rules! eprintln_above {
    () => {
        $crate::progress::eprint_above(::std::format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::progress::eprintln_above(::std::format_args!($($arg)*))
    };
}

/// A progress bar drawn on stderr, with `template`, `prefix` and a first `message`, and
/// registered as the one shown; `None` when `mode` is off or another display is shown
/// already.
fn show(
    mode: Mode,
    len: Option<u64>,
    template: &str,
    prefix: &str,
    message: String,
) -> Option<ProgressBar> {
    if mode == Mode::Off {
        return None;
    }
    // A TermLike target draws whether or not stderr is a terminal, which is what
    // `--progress` asks for; indicatif's own stderr target hides itself off a terminal.
    let stderr =
        || ProgressDrawTarget::term_like_with_hz(Box::new(console::Term::buffered_stderr()), 10);
    show_on(stderr, len, template, prefix, message)
}

/// [`show`] on the draw target `target` makes (only when the bar is shown).
fn show_on(
    target: impl FnOnce() -> ProgressDrawTarget,
    len: Option<u64>,
    template: &str,
    prefix: &str,
    message: String,
) -> Option<ProgressBar> {
    let mut guard = shown();
    if guard.is_some() {
        return None;
    }
    let bar = ProgressBar::with_draw_target(len, ProgressDrawTarget::hidden());
    let style = ProgressStyle::with_template(template).expect("a valid progress template");
    bar.set_style(style.progress_chars("=> ").tick_chars("-\\|/ "));
    bar.set_prefix(prefix.to_string());
    bar.set_message(message);
    bar.set_draw_target(target());
    bar.tick();
    *guard = Some(Shown {
        bar: bar.clone(),
        pending: String::new(),
    });
    Some(bar)
}

/// Clears `bar` and unregisters it, printing the unfinished stderr line it held back.
fn hide(bar: &ProgressBar) {
    let mut guard = shown();
    bar.finish_and_clear();
    if let Some(s) = guard.take() {
        write_stderr(&s.pending);
    }
}

/// Runs done of a known total on stderr: `NAME [bar] done/total runs, elapsed, ~time left:
/// what runs now`. Cleared when dropped; a no-op with [`Mode::Off`].
///
/// ```
/// use magpie_measure::progress::{Mode, RunsBar};
/// let configurations = ["gss", "rws"];
/// let bar = RunsBar::new(Mode::Off, "magpie experiment", 2 * configurations.len() as u64);
/// for run in 1..=2 {
///     for c in configurations {
///         bar.set_message(format!("run {run}/2: {c}"));
///         // ... one run of configuration c ...
///         bar.inc();
///     }
/// }
/// assert_eq!(bar.done(), 4);
/// ```
#[derive(Debug)]
pub struct RunsBar {
    bar: Option<ProgressBar>,
    done: std::cell::Cell<u64>,
}

impl RunsBar {
    /// A bar for `total` runs, named `name`, drawn when `mode` is on.
    pub fn new(mode: Mode, name: &str, total: u64) -> RunsBar {
        let bar = show(
            mode,
            Some(total),
            "{prefix}: {pos}/{len} runs [{bar:12}] {elapsed} elapsed, ~{eta} left: {wide_msg}",
            name,
            "starting".to_string(),
        );
        if let Some(b) = &bar {
            // Keeps the elapsed time moving during a long run.
            b.enable_steady_tick(Duration::from_millis(500));
        }
        RunsBar {
            bar,
            done: std::cell::Cell::new(0),
        }
    }

    /// What runs now (the configuration, the round).
    pub fn set_message(&self, message: impl Into<Cow<'static, str>>) {
        if let Some(b) = &self.bar {
            b.set_message(message);
        }
    }

    /// Changes the total (a run found unnecessary, or more runs planned).
    pub fn set_total(&self, total: u64) {
        if let Some(b) = &self.bar {
            b.set_length(total);
        }
    }

    /// One more run done.
    pub fn inc(&self) {
        self.done.set(self.done.get() + 1);
        if let Some(b) = &self.bar {
            b.inc(1);
        }
    }

    /// The runs done so far (counted whether or not the bar is drawn).
    pub fn done(&self) -> u64 {
        self.done.get()
    }

    /// Whether the bar is drawn.
    pub fn is_shown(&self) -> bool {
        self.bar.is_some()
    }
}

impl Drop for RunsBar {
    fn drop(&mut self) {
        if let Some(b) = &self.bar {
            hide(b);
        }
    }
}

/// A [`StatusLine`]'s look: a spinner and the closure's text.
const STATUS_TEMPLATE: &str = "{spinner} {wide_msg}";

/// The refresh period of a [`StatusLine`].
pub const STATUS_PERIOD: Duration = Duration::from_millis(200);

/// A live status line on stderr: a spinner and the text of a closure, called every
/// [`STATUS_PERIOD`] on a thread of the line's own; stopped (the thread joined) and cleared
/// when dropped. With [`Mode::Off`] it draws nothing, starts no thread and never calls the
/// closure.
///
/// ```
/// use magpie_measure::progress::{rate, Mode, StatusLine};
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use std::sync::Arc;
/// use std::time::Instant;
///
/// let nodes = Arc::new(AtomicU64::new(0));
/// let start = Instant::now();
/// let seen = Arc::clone(&nodes);
/// let line = StatusLine::start(Mode::Off, move || {
///     let n = seen.load(Ordering::Relaxed);
///     format!("{n} nodes, {}", rate(n, start.elapsed(), "nodes"))
/// });
/// for _ in 0..1000 {
///     nodes.fetch_add(1, Ordering::Relaxed); // the work
/// }
/// drop(line); // stops the thread and clears the line
/// ```
pub struct StatusLine {
    bar: Option<ProgressBar>,
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl StatusLine {
    /// Starts the line with `message`'s text, refreshed every [`STATUS_PERIOD`].
    pub fn start(mode: Mode, message: impl Fn() -> String + Send + 'static) -> StatusLine {
        StatusLine::start_every(mode, STATUS_PERIOD, message)
    }

    /// Starts the line with `message`'s text, refreshed every `period`.
    pub fn start_every(
        mode: Mode,
        period: Duration,
        message: impl Fn() -> String + Send + 'static,
    ) -> StatusLine {
        // The closure runs only for a line that is shown.
        let shown = match mode {
            Mode::On => show(mode, None, STATUS_TEMPLATE, "", message()),
            Mode::Off => None,
        };
        StatusLine::start_on(shown, period, message)
    }

    /// Starts the line on `bar` (none: the line is off), refreshing it every `period`.
    fn start_on(
        bar: Option<ProgressBar>,
        period: Duration,
        message: impl Fn() -> String + Send + 'static,
    ) -> StatusLine {
        let Some(bar) = bar else {
            return StatusLine {
                bar: None,
                stop: None,
                thread: None,
            };
        };
        let (stop, stopped) = mpsc::channel::<()>();
        let ticked = bar.clone();
        let thread = std::thread::Builder::new()
            .name("magpie-status".into())
            .spawn(move || {
                // Until stopped: the sender dropped (or, never, sent to).
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(period) {
                    ticked.set_message(message());
                    ticked.tick();
                }
            })
            .ok();
        StatusLine {
            bar: Some(bar),
            stop: Some(stop),
            thread,
        }
    }

    /// Whether the line is drawn.
    pub fn is_shown(&self) -> bool {
        self.bar.is_some()
    }
}

impl Drop for StatusLine {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        if let Some(b) = &self.bar {
            hide(b);
        }
    }
}

impl fmt::Debug for StatusLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StatusLine")
            .field("shown", &self.bar.is_some())
            .finish()
    }
}

/// `value` with three significant digits and an SI prefix (k, M, G, T, P) from 1000 on:
/// `0`, `1.50`, `950`, `1.00 k`, `12.3 M`.
///
/// ```
/// use magpie_measure::progress::si;
/// assert_eq!(si(1.5), "1.50");
/// assert_eq!(si(950.0), "950");
/// assert_eq!(si(12_345_678.0), "12.3 M");
/// assert_eq!(si(999_999.0), "1.00 M");
/// ```
pub fn si(value: f64) -> String {
    if !value.is_finite() {
        return value.to_string();
    }
    const PREFIXES: [&str; 6] = ["", "k", "M", "G", "T", "P"];
    let sign = if value < 0.0 { "-" } else { "" };
    let mut v = value.abs();
    let mut p = 0;
    // Scale by 1000 while the value would print as 1000 or more.
    while p + 1 < PREFIXES.len() && v >= 999.5 {
        v /= 1000.0;
        p += 1;
    }
    if v == 0.0 {
        return "0".to_string();
    }
    let digits = if v >= 99.95 {
        0
    } else if v >= 9.995 {
        1
    } else {
        2
    };
    if p == 0 {
        format!("{sign}{v:.digits$}")
    } else {
        format!("{sign}{v:.digits$} {}", PREFIXES[p])
    }
}

/// `count` over `elapsed` as a rate of `unit`s per second ([`si`]): `12.3 M nodes/s`; `0
/// unit/s` when no time has passed.
///
/// ```
/// use magpie_measure::progress::rate;
/// use std::time::Duration;
/// assert_eq!(rate(24_600_000, Duration::from_secs(2), "nodes"), "12.3 M nodes/s");
/// assert_eq!(rate(7, Duration::ZERO, "steps"), "0 steps/s");
/// ```
pub fn rate(count: u64, elapsed: Duration, unit: &str) -> String {
    let secs = elapsed.as_secs_f64();
    let per_s = if secs > 0.0 { count as f64 / secs } else { 0.0 };
    format!("{} {unit}/s", si(per_s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mode_from_every_combination_of_flags() {
        // (progress, quiet, json, terminal) -> on?
        let on = |p, q, j, t| Mode::decide(p, q, j, t) == Mode::On;
        for json in [false, true] {
            for terminal in [false, true] {
                // --quiet silences, even with --progress.
                assert!(!on(false, true, json, terminal));
                assert!(!on(true, true, json, terminal));
                // --progress forces, even piped or with --json.
                assert!(on(true, false, json, terminal));
            }
        }
        // Neither flag: on a terminal without --json only.
        assert!(on(false, false, false, true));
        assert!(!on(false, false, true, true));
        assert!(!on(false, false, false, false));
        assert!(!on(false, false, true, false));
    }

    #[test]
    fn the_flags_parse_and_exclude_each_other() {
        use clap::Parser;
        #[derive(Debug, Parser)]
        struct Cmd {
            #[command(flatten)]
            p: ProgressArgs,
        }
        let p = |args: &[&str]| Cmd::try_parse_from([&["cmd"], args].concat()).map(|c| c.p);
        assert_eq!(p(&[]).unwrap(), ProgressArgs::default());
        assert!(p(&["--progress"]).unwrap().progress);
        assert!(p(&["--quiet"]).unwrap().quiet);
        let e = p(&["--progress", "--quiet"]).unwrap_err();
        assert_eq!(e.kind(), clap::error::ErrorKind::ArgumentConflict);
        // The flags decide with the terminal's answer: --quiet is off whatever stderr is.
        assert_eq!(p(&["--quiet"]).unwrap().mode(false), Mode::Off);
        assert_eq!(p(&["--progress"]).unwrap().mode(true), Mode::On);
    }

    #[test]
    fn off_draws_nothing_and_calls_nothing() {
        let bar = RunsBar::new(Mode::Off, "test", 3);
        assert!(!bar.is_shown());
        bar.set_message("x");
        bar.inc();
        bar.inc();
        assert_eq!(bar.done(), 2);
        let line = StatusLine::start(Mode::Off, || panic!("the closure of an off line ran"));
        assert!(!line.is_shown());
        assert!(line.thread.is_none() && line.stop.is_none());
    }

    #[test]
    fn a_status_line_refreshes_until_dropped_and_lines_wait_for_their_end() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::sync::Arc;
        use std::time::Instant;
        let calls = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&calls);
        // Shown, on a hidden target (nothing reaches the test's stderr).
        let bar = show_on(
            ProgressDrawTarget::hidden,
            None,
            STATUS_TEMPLATE,
            "",
            "".into(),
        );
        let line = StatusLine::start_on(bar, Duration::from_millis(1), move || {
            counted.fetch_add(1, Ordering::SeqCst);
            String::new()
        });
        assert!(line.is_shown() && line.thread.is_some());
        // One display at a time: a second one stays hidden.
        let second = RunsBar::new(Mode::On, "second", 1);
        assert!(!second.is_shown());
        drop(second);
        // A message waits for its line's end, then goes out whole; the rest waits.
        crate::eprint_above!("(a progress test's line, ");
        assert_eq!(
            shown().as_ref().map(|s| s.pending.clone()).as_deref(),
            Some("(a progress test's line, ")
        );
        crate::eprint_above!("printed whole)\n(and the rest");
        assert_eq!(
            shown().as_ref().map(|s| s.pending.clone()).as_deref(),
            Some("(and the rest")
        );
        crate::eprintln_above!(")");
        assert_eq!(shown().as_ref().map(|s| s.pending.is_empty()), Some(true));
        // The closure is called again and again (no time bound but a generous guard).
        let deadline = Instant::now() + Duration::from_secs(60);
        while calls.load(Ordering::SeqCst) < 3 {
            assert!(
                Instant::now() < deadline,
                "the closure was not called 3 times"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        drop(line);
        // Stopped: the thread is joined, so the count no longer moves; nothing is shown.
        let after = calls.load(Ordering::SeqCst);
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(calls.load(Ordering::SeqCst), after);
        assert!(shown().is_none());
    }

    #[test]
    fn si_prefixes_and_significant_digits() {
        let cases = [
            (0.0, "0"),
            (0.126, "0.13"),
            (1.4, "1.40"),
            (42.0, "42.0"),
            (999.0, "999"),
            (999.6, "1.00 k"),
            (1_000.0, "1.00 k"),
            (1_234.0, "1.23 k"),
            (12_345.0, "12.3 k"),
            (123_456.0, "123 k"),
            (999_499.0, "999 k"),
            (999_999.0, "1.00 M"),
            (12_300_000.0, "12.3 M"),
            (4.56e9, "4.56 G"),
            (7.0e12, "7.00 T"),
            (8.0e15, "8.00 P"),
            (9.0e18, "9000 P"),
            (-12_345.0, "-12.3 k"),
        ];
        for (v, s) in cases {
            assert_eq!(si(v), s, "{v}");
        }
        assert_eq!(
            rate(500, Duration::from_millis(250), "steps"),
            "2.00 k steps/s"
        );
        assert_eq!(rate(3, Duration::from_secs(4), "runs"), "0.75 runs/s");
    }
}
