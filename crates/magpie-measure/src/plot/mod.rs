//! Pictures of magpie's recordings and reports, drawn with `plotters` (no browser, no system
//! font: the text uses an embedded font), as PNG or SVG by the output's extension.
//!
//! The inputs ([`Data::parse`] tells them apart):
//! - a trace (`--trace FILE`, Chrome trace-event JSON, see `docs/observability.md`):
//!   [`Kind::Timeline`] (one row per (rank, worker), coloured by state, the default),
//!   [`Kind::Utilisation`] (the share of the workers in each state per time bucket) and,
//!   for a loop's trace with `chunk` spans, [`Kind::Gantt`] (one bar per chunk);
//! - an incumbent log (`--incumbents FILE`, JSON lines): [`Kind::Incumbent`], the value
//!   over time as a red step line;
//! - a `magpie experiment … --format json` report or a `magpie-bench
//!   forkjoin|loops|search|distributed --json` array: [`Kind::Runtimes`] (box plots of the run times per configuration, the default)
//!   and, where the data has several worker counts, [`Kind::Speedup`].
//!
//! The states' colours are fixed ([`WORKING`], [`STEALING`], [`IDLE`], [`PARKED`]; the
//! incumbent curve [`INCUMBENT`]), so that tests can look for them.
//!
//! ```
//! use magpie_measure::plot::{self, Data, Kind, Size};
//! let trace = r#"{"traceEvents":[
//!   {"ph":"X","cat":"task","name":"task","pid":0,"tid":0,"ts":0,"dur":900},
//!   {"ph":"X","cat":"steal","name":"steal attempts","pid":0,"tid":1,"ts":0,"dur":300,
//!    "args":{"attempts":4}}]}"#;
//! let data = Data::parse(trace).unwrap();
//! assert_eq!(data.default_kind(), Kind::Timeline);
//! let out = std::env::temp_dir().join("magpie-plot-doctest.svg");
//! plot::draw(&data, Kind::Timeline, &out, Size { width: Some(600), height: None }).unwrap();
//! let svg = std::fs::read_to_string(&out).unwrap();
//! assert!(svg.contains("<svg width=\"600\""));
//! ```

mod canvas;
mod draw_incumbents;
mod draw_runs;
mod draw_trace;
mod incumbents;
mod input;
mod runs;
mod trace;

use std::path::{Path, PathBuf};

pub use plotters::style::RGBColor;

pub use incumbents::{Incumbent, IncumbentLine};
pub use input::InputError;
pub use runs::{Runs, Sample};
pub use trace::{Chunk, Span, State, Trace};

/// Working (a task or a loop chunk runs): green `#2ca02c`.
pub const WORKING: RGBColor = RGBColor(0x2c, 0xa0, 0x2c);
/// Stealing (a run of failed steal attempts): orange `#ff7f0e`.
pub const STEALING: RGBColor = RGBColor(0xff, 0x7f, 0x0e);
/// Idle (spinning, yielding, backing off, dozing): light grey `#c7c7c7`.
pub const IDLE: RGBColor = RGBColor(0xc7, 0xc7, 0xc7);
/// Parked: blue `#1f77b4`.
pub const PARKED: RGBColor = RGBColor(0x1f, 0x77, 0xb4);
/// The incumbent curve: red `#d62728`.
pub const INCUMBENT: RGBColor = RGBColor(0xd6, 0x27, 0x28);

/// A kind of picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A trace's timeline: one row per (rank, worker), coloured by state.
    Timeline,
    /// A trace's utilisation over time: the share of workers in each state per time bucket.
    Utilisation,
    /// A loop trace's chunks: one bar per chunk, coloured by its size.
    Gantt,
    /// An incumbent log's value over time (a step line).
    Incumbent,
    /// Box plots of the run times per configuration.
    Runtimes,
    /// Speedup over workers, one curve per configuration.
    Speedup,
}

impl Kind {
    /// Every kind, in the order of [`Kind::name`]'s list.
    pub const ALL: [Kind; 6] = [
        Kind::Timeline,
        Kind::Utilisation,
        Kind::Gantt,
        Kind::Incumbent,
        Kind::Runtimes,
        Kind::Speedup,
    ];

    /// The kind's name on the command line (`timeline`, `utilisation`, …).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Timeline => "timeline",
            Kind::Utilisation => "utilisation",
            Kind::Gantt => "gantt",
            Kind::Incumbent => "incumbent",
            Kind::Runtimes => "runtimes",
            Kind::Speedup => "speedup",
        }
    }

    /// The kind named `name` (`utilization` too).
    ///
    /// ```
    /// use magpie_measure::plot::Kind;
    /// assert_eq!(Kind::parse("gantt"), Some(Kind::Gantt));
    /// assert_eq!(Kind::parse("utilization"), Some(Kind::Utilisation));
    /// assert_eq!(Kind::parse("pie"), None);
    /// ```
    pub fn parse(name: &str) -> Option<Kind> {
        match name.trim() {
            "utilization" => Some(Kind::Utilisation),
            n => Kind::ALL.into_iter().find(|k| k.name() == n),
        }
    }
}

/// A parsed input: what a picture is drawn from.
#[derive(Debug, Clone)]
pub enum Data {
    /// A trace file.
    Trace(Trace),
    /// An incumbent log (possibly empty).
    Incumbents(Vec<Incumbent>),
    /// Run times of an experiment report or a benchmark suite.
    Runs(Runs),
}

impl Data {
    /// Parses a trace, an incumbent log, an experiment report or a benchmark report,
    /// telling them apart by their content. An empty text is an incumbent log without
    /// improvements.
    pub fn parse(text: &str) -> Result<Data, InputError> {
        input::parse(text)
    }

    /// What the input is, for messages: "a trace", "an incumbent log", "a run-time report".
    pub fn what(&self) -> &'static str {
        match self {
            Data::Trace(_) => "a trace",
            Data::Incumbents(_) => "an incumbent log",
            Data::Runs(_) => "a run-time report",
        }
    }

    /// The picture drawn when none is asked for.
    pub fn default_kind(&self) -> Kind {
        match self {
            Data::Trace(_) => Kind::Timeline,
            Data::Incumbents(_) => Kind::Incumbent,
            Data::Runs(_) => Kind::Runtimes,
        }
    }

    /// The kinds of picture this input can be drawn as.
    pub fn kinds(&self) -> Vec<Kind> {
        match self {
            Data::Trace(t) if t.has_chunks() => {
                vec![Kind::Timeline, Kind::Utilisation, Kind::Gantt]
            }
            Data::Trace(_) => vec![Kind::Timeline, Kind::Utilisation],
            Data::Incumbents(_) => vec![Kind::Incumbent],
            Data::Runs(r) if r.has_speedup() => vec![Kind::Runtimes, Kind::Speedup],
            Data::Runs(_) => vec![Kind::Runtimes],
        }
    }
}

/// A picture's size in pixels; a side left `None` takes the kind's default (which for the
/// timeline, the Gantt chart and the box plots grows with the number of rows).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Size {
    /// Width in pixels.
    pub width: Option<u32>,
    /// Height in pixels.
    pub height: Option<u32>,
}

/// Draws `data` as the picture `kind` into `out` (PNG or SVG by its extension).
///
/// Errors (one line each): the kind does not fit the data (a Gantt chart of a trace
/// without chunks, a speedup curve of one worker count, run times with no rows), a size
/// below 100 × 100 or above 20000 × 20000, an extension other than `.png`/`.svg`, or the
/// file cannot be written. An empty trace or incumbent log draws empty axes with a note.
pub fn draw(data: &Data, kind: Kind, out: &Path, size: Size) -> Result<(), String> {
    match (data, kind) {
        (Data::Trace(t), Kind::Timeline) => canvas::render(out, size, &draw_trace::Timeline(t)),
        (Data::Trace(t), Kind::Utilisation) => {
            canvas::render(out, size, &draw_trace::Utilisation(t))
        }
        (Data::Trace(t), Kind::Gantt) if t.has_chunks() => {
            canvas::render(out, size, &draw_trace::Gantt(t))
        }
        (Data::Trace(_), Kind::Gantt) => Err(
            "--kind gantt: the trace has no `chunk` spans (a Gantt chart needs a loop's trace)"
                .into(),
        ),
        (Data::Incumbents(i), Kind::Incumbent) => {
            canvas::render(out, size, &draw_incumbents::Curve(i))
        }
        (Data::Runs(r), Kind::Runtimes | Kind::Speedup) if r.samples.is_empty() => {
            Err("nothing to draw: the report has no rows with run times".into())
        }
        (Data::Runs(r), Kind::Runtimes) => canvas::render(out, size, &draw_runs::Boxes(r)),
        (Data::Runs(r), Kind::Speedup) if r.has_speedup() => {
            canvas::render(out, size, &draw_runs::Speedup(r))
        }
        (Data::Runs(_), Kind::Speedup) => Err(
            "--kind speedup: nothing to draw: no configuration was run at several worker counts"
                .into(),
        ),
        (data, kind) => Err(format!(
            "--kind {}: the input is {}, which draws as {}",
            kind.name(),
            data.what(),
            data.kinds()
                .iter()
                .map(|k| k.name())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// The pictures of `--plot DIR`: `DIR/runtimes.png` and, where the data has several worker
/// counts, `DIR/speedup.png` (DIR is created if missing). Returns the paths written; an
/// empty report writes nothing.
pub fn write_run_pictures(runs: &Runs, dir: &Path) -> Result<Vec<PathBuf>, String> {
    if runs.samples.is_empty() {
        return Ok(Vec::new());
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("--plot {}: {e}", dir.display()))?;
    let data = Data::Runs(runs.clone());
    let mut written = Vec::new();
    for kind in data.kinds() {
        let path = dir.join(format!("{}.png", kind.name()));
        draw(&data, kind, &path, Size::default())?;
        written.push(path);
    }
    Ok(written)
}

/// `--plot DIR` of a report in memory: `report` serialised as its JSON output (an
/// experiment report object, or a suite's array of rows), read as [`Runs::from_value`]
/// reads it, then [`write_run_pictures`]. Returns the paths written.
pub fn plot_report<T: serde::Serialize + ?Sized>(
    report: &T,
    dir: &Path,
) -> Result<Vec<PathBuf>, String> {
    let value = serde_json::to_value(report).map_err(|e| format!("--plot: {e}"))?;
    let runs = Runs::from_value(&value).map_err(|e| format!("--plot: {e}"))?;
    write_run_pictures(&runs, dir)
}
