//! `--trace FILE` of `magpie search` and `magpie loop`: the file is created before the run
//! (a bad path is a usage error, exit 2, before any work), the pool records while the command
//! runs, and the trace is written after it, as a Chrome trace-event file
//! ([`magpie_measure::trace`], the one codec).

use std::path::Path;

use magpie::ThreadPool;
use magpie_measure::trace::{Meta, Process, TraceFile};

use crate::error::Failure;

/// A recording in progress: the file it goes to.
pub struct Tracing(TraceFile);

/// With `--trace FILE`: creates the file and starts recording on `pool`. Call it just before
/// the run, after the pool was built.
pub fn start(path: Option<&Path>, pool: &ThreadPool) -> Result<Option<Tracing>, Failure> {
    let Some(path) = path else {
        return Ok(None);
    };
    let file = TraceFile::create("--trace", path).map_err(Failure::Usage)?;
    pool.start_trace();
    Ok(Some(Tracing(file)))
}

impl Tracing {
    /// Ends the recording on `pool` and writes it (a local run: one process, rank 0).
    pub fn finish(self, pool: &ThreadPool) -> Result<(), Failure> {
        let trace = pool.take_trace();
        let meta = Meta {
            command: Meta::command_line(),
            workers: pool.num_workers(),
            ranks: 1,
        };
        self.0
            .write(&[Process::rank(0, &trace)], &meta)
            .map_err(Failure::Run)
    }
}

/// Ends and writes the recording, if there is one.
pub fn finish(tracing: Option<Tracing>, pool: &ThreadPool) -> Result<(), Failure> {
    tracing.map_or(Ok(()), |t| t.finish(pool))
}
