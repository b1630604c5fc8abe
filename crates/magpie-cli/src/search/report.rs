//! The report of `magpie search`: the JSON object ([`Report`], the application's
//! [`Answer`] fields flattened into it) and the text lines ([`print_text`]).

use std::fmt::Display;
use std::time::Duration;

use magpie::search::SearchStats;
use magpie_apps::registry::{ids, Answer, NOT_CHECKED};
use serde::Serialize;

use super::args::SkeletonChoice;
use crate::counters::{print_counters, CountersReport};

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
    /// How the search ended: `complete`, `time-limit` or `interrupted` (`crate::stop`).
    pub(crate) status: &'static str,
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

pub(crate) fn line(key: &str, value: impl Display) {
    println!("{key:<12}{value}");
}

fn seconds(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

pub(crate) fn print_text(r: &Report, choice: &SkeletonChoice, stats: &SearchStats, all: bool) {
    line("app", r.app);
    line("status", r.status);
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
