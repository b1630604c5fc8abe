//! The pool's counters as the commands report them: every counter of every worker in the
//! JSON ([`CountersReport`]), and the LCWS paper's profile (§3.3, §5.3) as a text table
//! ([`print_counters`]). `magpie search` and `magpie loop` report the counters of their run.

use magpie::{PoolStats, WorkerStats};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

/// One worker's counters (or their sum), as a JSON object of every counter the runtime
/// keeps, in its order ([`WorkerStats::fields`]).
#[derive(Debug)]
pub(crate) struct Counters(pub(crate) WorkerStats);

impl Serialize for Counters {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let fields = self.0.fields();
        let mut map = s.serialize_map(Some(fields.len()))?;
        for (k, v) in fields {
            map.serialize_entry(k, &v)?;
        }
        map.end()
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

/// A column of the counter table: its heading and how a worker's row computes it.
type Column = (&'static str, fn(&WorkerStats) -> u64);

/// The columns of the text report's counter table: the LCWS profile (§3.3, §5.3).
const PROFILE: [Column; 10] = [
    ("pushes", |w| w.pushes),
    ("pops", |w| w.private_pops + w.public_pops),
    ("steals", |w| w.steals),
    ("failed", |w| w.steal_attempts.saturating_sub(w.steals)),
    ("exp.req", |w| w.exposure_requests),
    ("signals", |w| w.signals_sent),
    ("exposed", |w| w.tasks_exposed),
    ("unstolen", |w| w.exposed_taken_back),
    ("fences", |w| w.fences),
    ("cas", |w| w.cas),
];

/// The counter table: one row per worker and the total.
pub(crate) fn print_counters(c: &CountersReport) {
    let head: Vec<String> = PROFILE.iter().map(|(k, _)| format!("{k:>10}")).collect();
    println!("{:<12}{}", "counters", head.join(""));
    let row = |label: String, w: &WorkerStats| {
        let cells: Vec<String> = PROFILE
            .iter()
            .map(|(_, f)| format!("{:>10}", f(w)))
            .collect();
        println!("{label:<12}{}", cells.join(""));
    };
    for (i, w) in c.per_worker.iter().enumerate() {
        row(format!("  worker {i}"), &w.0);
    }
    row("  total".to_string(), &c.total.0);
}
