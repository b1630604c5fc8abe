//! The report of `magpie search`: the JSON object ([`Report`], the application's
//! [`Answer`] fields flattened into it) and the text lines ([`print_text`]).

use std::fmt::Display;
use std::time::Duration;

use magpie::search::SearchStats;
use magpie::{PoolStats, WorkerStats};
use magpie_apps::registry::{ids, Answer, NOT_CHECKED};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use super::args::SkeletonChoice;

/// [`SearchStats`] as reported.
#[derive(Debug, Serialize)]
pub(crate) struct StatsReport {
    expanded: u64,
    pruned: u64,
    backtracks: u64,
    tasks: u64,
    steals: u64,
    per_worker: Vec<u64>,
    seconds: f64,
}

impl From<&SearchStats> for StatsReport {
    fn from(s: &SearchStats) -> Self {
        StatsReport {
            expanded: s.expanded,
            pruned: s.pruned,
            backtracks: s.backtracks,
            tasks: s.tasks,
            steals: s.steals,
            per_worker: s.per_worker.clone(),
            seconds: s.time.as_secs_f64(),
        }
    }
}

/// Everything printed about one search: the JSON object, field for field.
#[derive(Debug, Serialize)]
pub(crate) struct Report {
    pub(crate) app: &'static str,
    pub(crate) instance: String,
    #[serde(flatten)]
    pub(crate) answer: Answer,
    /// What was checked (every answer is checked before it is reported).
    pub(crate) check: String,
    pub(crate) skeleton: &'static str,
    pub(crate) skeleton_params: SkeletonChoice,
    pub(crate) max_depth: Option<usize>,
    pub(crate) workers: usize,
    pub(crate) deque: &'static str,
    pub(crate) seconds: f64,
    pub(crate) expanded: u64,
    pub(crate) stats: StatsReport,
    /// The pool's counters during the search (a local search; a distributed report has
    /// its ranks instead).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) counters: Option<CountersReport>,
}

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
fn print_counters(c: &CountersReport) {
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

pub(crate) fn line(key: &str, value: impl Display) {
    println!("{key:<12}{value}");
}

fn seconds(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

pub(crate) fn print_text(r: &Report, choice: &SkeletonChoice, stats: &SearchStats, all: bool) {
    line("app", r.app);
    for (key, value) in &r.answer.lines {
        line(key, value);
    }
    if r.check.starts_with(NOT_CHECKED) {
        line("check", &r.check);
    } else {
        line("check", format!("ok: {}", r.check));
    }
    line("skeleton", choice.describe());
    if let Some(d) = r.max_depth {
        line("max depth", d);
    }
    line("workers", format!("{} (deque {})", r.workers, r.deque));
    line("seconds", seconds(stats.time));
    line("expanded", stats.expanded);
    if all {
        line("pruned", stats.pruned);
        line("backtracks", stats.backtracks);
        line("tasks", stats.tasks);
        line("steals", stats.steals);
        line("per worker", ids(&stats.per_worker));
        if let Some(c) = &r.counters {
            print_counters(c);
        }
    }
}
