//! `--incumbents FILE`: one JSON line per improvement of an optimisation's incumbent,
//! written as it happens (so a killed run keeps its lines):
//! `{"time_s":0.0123,"value":25,"worker":1,"rank":0,"nodes":12345}` — seconds since the
//! search started, the new value, the worker that found it (`null` when another rank's
//! incumbent reached rank 0), its MPI rank (0 for one process), and the nodes expanded so
//! far. `magpie plot FILE` draws it as the incumbent curve.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};

use magpie::search::{Improvement, Monitor};
use magpie_measure::plot::IncumbentLine;

use crate::error::Failure;

/// The line of `improvement` (the format is defined once, beside its reader).
fn line(i: &Improvement) -> IncumbentLine {
    IncumbentLine {
        time_s: i.time.as_secs_f64(),
        value: i.value,
        worker: i.worker,
        rank: i.rank,
        nodes: i.nodes,
    }
}

/// The log of one search: the first write error, reported when the search is over.
pub(crate) struct IncumbentLog {
    error: Arc<Mutex<Option<String>>>,
}

impl IncumbentLog {
    /// Creates `path` and makes `monitor` write each improvement to it as one line.
    pub(crate) fn create(path: &Path, monitor: &Monitor) -> Result<IncumbentLog, Failure> {
        let file = File::create(path).map_err(|e| {
            Failure::Usage(format!(
                "--incumbents {}: cannot create it: {e}",
                path.display()
            ))
        })?;
        let mut out = BufWriter::new(file);
        let error = Arc::new(Mutex::new(None));
        let (failed, shown) = (error.clone(), path.display().to_string());
        monitor.on_improvement(move |i| {
            let written = serde_json::to_writer(&mut out, &line(i))
                .map_err(std::io::Error::from)
                .and_then(|()| out.write_all(b"\n"))
                .and_then(|()| out.flush());
            if let Err(e) = written {
                let mut slot = failed.lock().unwrap_or_else(|e| e.into_inner());
                slot.get_or_insert_with(|| format!("--incumbents {shown}: cannot write: {e}"));
            }
        });
        Ok(IncumbentLog { error })
    }

    /// `Err` with the first write error, if any.
    pub(crate) fn finish(self) -> Result<(), Failure> {
        match self.error.lock().unwrap_or_else(|e| e.into_inner()).take() {
            Some(e) => Err(Failure::Run(e)),
            None => Ok(()),
        }
    }
}
