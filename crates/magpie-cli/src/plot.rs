//! `magpie plot FILE --out PICTURE.png|.svg`: draws a trace, an incumbent log or a run-time
//! report (`magpie_measure::plot` draws; this reads the file and the flags), and the
//! pictures of `magpie experiment … --plot DIR`.

use std::path::{Path, PathBuf};

use clap::Args;
use magpie_measure::plot::{self, Data, Kind, Size};
use serde::Serialize;

use crate::error::{self, usage, Failure};

/// What `magpie plot --help` prints after the options.
pub const AFTER_HELP: &str = "\
Inputs (told apart by their content):
  a trace (--trace FILE)                 timeline (default), utilisation, gantt (a loop's
                                         trace with chunk spans)
  an incumbent log (--incumbents FILE)   incumbent (an empty log draws empty axes)
  magpie experiment --format json, magpie-bench forkjoin|loops|search|distributed --json
                                         runtimes (default: box plots per configuration),
                                         speedup (where a configuration ran at several
                                         worker counts)
A trace without spans draws its rows empty with the note \"(no spans recorded)\".

Colours: working #2ca02c, stealing #ff7f0e, idle #c7c7c7, parked #1f77b4, incumbent #d62728.

Examples:
  magpie search maxclique g.clq --trace t.json && magpie plot t.json --out timeline.png
  magpie plot t.json --kind utilisation --out utilisation.svg --width 1600
  magpie plot report.json --kind speedup --out speedup.png";

/// `magpie plot`'s arguments.
#[derive(Debug, Args)]
pub struct PlotArgs {
    /// The input: a trace, an incumbent log, an experiment report or a benchmark report
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The picture to write: PNG or SVG by its extension
    #[arg(long, value_name = "PICTURE")]
    pub out: PathBuf,
    /// timeline, utilisation, gantt, incumbent, runtimes or speedup [default: the input's
    /// first]
    #[arg(long, value_name = "KIND")]
    pub kind: Option<String>,
    /// Width in pixels, 100 to 20000 [default: by kind, 800 to 1200]
    #[arg(long, value_name = "W", allow_hyphen_values = true)]
    pub width: Option<String>,
    /// Height in pixels, 100 to 20000 [default: by kind, growing with the rows]
    #[arg(long, value_name = "H", allow_hyphen_values = true)]
    pub height: Option<String>,
}

/// Runs `magpie plot`.
pub fn run(args: &PlotArgs) -> Result<(), Failure> {
    let file = args.file.display();
    let bytes = std::fs::read(&args.file)
        .map_err(|e| Failure::Usage(format!("{file}: cannot read: {e}")))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Failure::Usage(format!("{file}: not a text file (not UTF-8)")))?;
    let data = Data::parse(&text).map_err(|e| Failure::Usage(format!("{file}: {e}")))?;
    let kind = match args.kind.as_deref() {
        None => data.default_kind(),
        Some(k) => match Kind::parse(k) {
            Some(k) => k,
            None => {
                let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
                return usage(format!(
                    "--kind: unknown kind {k:?}; expected one of: {}",
                    names.join(", ")
                ));
            }
        },
    };
    let side = |flag: &str, v: &Option<String>| -> Result<Option<u32>, Failure> {
        v.as_deref()
            .map(|v| error::number(flag, v, 1u32, "a size in pixels"))
            .transpose()
    };
    let size = Size {
        width: side("--width", &args.width)?,
        height: side("--height", &args.height)?,
    };
    plot::draw(&data, kind, &args.out, size).map_err(Failure::Usage)?;
    println!("{}: {} of {}", args.out.display(), kind.name(), data.what());
    Ok(())
}

/// `--plot DIR`: the run-time pictures of `report` (its JSON) into `dir`, their paths on
/// stderr (stdout may hold the JSON report).
pub fn report_pictures(report: &impl Serialize, dir: &Path) -> Result<(), Failure> {
    let written = plot::plot_report(report, dir).map_err(Failure::Usage)?;
    for p in written {
        eprintln!("magpie: picture {}", p.display());
    }
    Ok(())
}
