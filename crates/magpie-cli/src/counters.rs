//! The pool's counters as the commands report them: every counter of every worker in the
//! JSON ([`CountersReport`]), and the LCWS paper's profile (§3.3, §5.3) as a text table
//! ([`print_counters`]). `magpie search` and `magpie loop` report the counters of their run.

use magpie::{PoolStats, WorkerStats};
use serde::ser::Serializer;
use serde::Serialize;

/// One worker's counters (or their sum), as a JSON object of every counter the runtime
/// keeps, in its order ([`WorkerStats::fields`]).
#[derive(Debug)]
pub(crate) struct Counters(pub(crate) WorkerStats);

impl Serialize for Counters {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        magpie_measure::report::Fields(&self.0.fields()).serialize(s)
    }
}

/// The pool's counters during a search: each worker's and their sum (the LCWS paper's
/// profile: pushes, pops, steals, exposure requests, signals, fences, CAS, …).
#[derive(Debug, Serialize)]
pub(crate) struct CountersReport {
    pub(crate) total: Counters,
    pub(crate) per_worker: Vec<Counters>,
}

impl From<PoolStats> for CountersReport {
    fn from(p: PoolStats) -> Self {
        CountersReport {
            total: Counters(p.total()),
            per_worker: p.workers.into_iter().map(Counters).collect(),
        }
    }
}

/// The counter table: the LCWS profile (§3.3, §5.3, [`WorkerStats::profile`]), one row per
/// worker and the total.
pub(crate) fn print_counters(c: &CountersReport) {
    let per_worker: Vec<WorkerStats> = c.per_worker.iter().map(|w| w.0).collect();
    print!("{}", WorkerStats::profile_table(&per_worker, &c.total.0));
}
