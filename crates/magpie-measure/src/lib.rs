//! The one measurement harness of magpie's experiments (`magpie experiment`) and benchmark
//! suites (`magpie-bench`):
//!
//! - [`stats`]: median, mean, standard deviation, confidence intervals and Welch's t-test
//!   (the Student t distribution from statrs), and the Pheet thesis' aggregated result;
//! - [`rounds`]: interleaved rounds, warm-up first;
//! - [`process`]: child processes in their own process groups, stopped by one policy, run
//!   under a timeout, or held at an inter-process barrier and released together;
//! - [`background`]: background loads beside the measurements;
//! - [`report`]: text tables, CSV fields and the suites' JSON output;
//! - [`progress`]: the progress line on stderr (runs bars, live status lines) and its
//!   `--progress`/`--quiet` flags.
//! - [`plot`]: pictures of traces, incumbent logs and run times (PNG or SVG).
//! - [`trace`]: magpie's traces as Chrome trace-event files (`--trace FILE`).

#![deny(missing_docs)]

pub mod background;
pub mod plot;
pub mod process;
pub mod progress;
pub mod report;
pub mod rounds;
pub mod stats;
pub mod trace;
