//! The report of `magpie search`: the [`Answer`] of each application, the JSON object
//! ([`Report`]) and the text lines ([`print_text`]).

use std::fmt::Display;
use std::time::Duration;

use magpie::search::SearchStats;
use serde::Serialize;

use super::args::SkeletonChoice;

/// The answer of each application, as it appears in the JSON object (its fields are
/// flattened into the report).
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum Answer {
    MaxClique {
        vertices: usize,
        edges: usize,
        omega: usize,
        /// 1-based vertex ids, ascending.
        clique: Vec<usize>,
    },
    CliqueDecision {
        vertices: usize,
        edges: usize,
        target: usize,
        found: bool,
        clique: Option<Vec<usize>>,
    },
    Knapsack {
        instance_name: String,
        /// 1-based position of the instance in the file.
        instance_number: usize,
        items_in_instance: usize,
        capacity: u64,
        /// Profit, weight and capacity are scaled by `10^decimals` (exact integers).
        decimals: u32,
        profit: u64,
        weight: u64,
        /// 0-based item indices in file order, ascending.
        items: Vec<usize>,
    },
    Tsp {
        cities: usize,
        length: i64,
        /// 1-based city ids in visiting order, starting with city 1.
        tour: Vec<usize>,
        /// Whether the start tour (nearest neighbour + 2-opt) was already optimal.
        heuristic_optimal: bool,
    },
    Uts {
        flags: String,
        nodes: u64,
        leaves: u64,
        depth: u32,
    },
    Ns {
        genus: usize,
        /// `counts[g]`: the number of numerical semigroups of genus `g`.
        counts: Vec<u64>,
    },
    NQueens {
        n: u32,
        solutions: u64,
    },
}

impl Answer {
    /// The answer in the canonical form of [`Solved::answer`].
    pub(crate) fn key(&self) -> String {
        match self {
            Answer::MaxClique { omega, .. } => format!("omega {omega}"),
            Answer::CliqueDecision { target, found, .. } => {
                let verdict = if *found { "found" } else { "none" };
                format!("clique of {target}: {verdict}")
            }
            Answer::Knapsack { profit, .. } => format!("profit {profit}"),
            Answer::Tsp { length, .. } => format!("length {length}"),
            Answer::Uts {
                nodes,
                leaves,
                depth,
                ..
            } => uts_key(*nodes, *leaves, *depth),
            Answer::Ns { counts, .. } => ns_key(counts),
            Answer::NQueens { solutions, .. } => nqueens_key(*solutions),
        }
    }
}

/// How the check of an answer that could not be compared with anything begins (a count of a
/// tree cut by `--max-depth`, an N-Queens size with no known count): the text report prints
/// it as it is instead of `ok: …`.
pub const NOT_CHECKED: &str = "not checked: ";

/// [`Solved::answer`] of a UTS count.
pub fn uts_key(nodes: u64, leaves: u64, depth: u32) -> String {
    format!("nodes {nodes}, leaves {leaves}, depth {depth}")
}

/// [`Solved::answer`] of numerical-semigroup counts (genus 0, 1, …).
pub fn ns_key(counts: &[u64]) -> String {
    format!("counts {}", ids_u64(counts))
}

/// [`Solved::answer`] of an N-Queens count.
pub fn nqueens_key(solutions: u64) -> String {
    format!("{solutions} solutions")
}

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
}

/// `value / 10^decimals` written exactly.
pub(crate) fn scaled(value: u64, decimals: u32) -> String {
    if decimals == 0 {
        return value.to_string();
    }
    let unit = 10u64.pow(decimals);
    format!(
        "{}.{:0width$}",
        value / unit,
        value % unit,
        width = decimals as usize
    )
}

pub(crate) fn line(key: &str, value: impl Display) {
    println!("{key:<12}{value}");
}

fn ids(v: &[usize]) -> String {
    v.iter().map(usize::to_string).collect::<Vec<_>>().join(" ")
}

fn seconds(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

pub(crate) fn print_text(r: &Report, choice: &SkeletonChoice, stats: &SearchStats, all: bool) {
    line("app", r.app);
    match &r.answer {
        Answer::MaxClique {
            vertices,
            edges,
            omega,
            clique,
        } => {
            line(
                "instance",
                format!("{} ({vertices} vertices, {edges} edges)", r.instance),
            );
            line("answer", format!("maximum clique size {omega}"));
            line("clique", ids(clique));
        }
        Answer::CliqueDecision {
            vertices,
            edges,
            target,
            found,
            clique,
        } => {
            line(
                "instance",
                format!("{} ({vertices} vertices, {edges} edges)", r.instance),
            );
            let verdict = if *found { "found" } else { "none" };
            line("answer", format!("clique of {target} vertices: {verdict}"));
            if let Some(c) = clique {
                line("clique", ids(c));
            }
        }
        Answer::Knapsack {
            instance_name,
            instance_number,
            items_in_instance,
            capacity,
            decimals,
            profit,
            weight,
            items,
        } => {
            line(
                "instance",
                format!(
                    "{} ({instance_name:?}, number {instance_number}: {items_in_instance} items, capacity {})",
                    r.instance,
                    scaled(*capacity, *decimals)
                ),
            );
            line(
                "answer",
                format!(
                    "maximum profit {} (weight {})",
                    scaled(*profit, *decimals),
                    scaled(*weight, *decimals)
                ),
            );
            line("items", format!("{} (0-based, file order)", ids(items)));
        }
        Answer::Tsp {
            cities,
            length,
            tour,
            heuristic_optimal,
        } => {
            line("instance", format!("{} ({cities} cities)", r.instance));
            let note = if *heuristic_optimal {
                " (the start tour was already optimal)"
            } else {
                ""
            };
            line("answer", format!("shortest tour length {length}{note}"));
            line("tour", ids(tour));
        }
        Answer::Uts {
            flags,
            nodes,
            leaves,
            depth,
        } => {
            let instance = if *flags == r.instance {
                flags.clone()
            } else {
                format!("{} ({flags})", r.instance)
            };
            line("instance", instance);
            let cut = match r.max_depth {
                Some(d) => format!(" (of the tree cut at --max-depth {d})"),
                None => String::new(),
            };
            line(
                "answer",
                format!("{nodes} nodes, {leaves} leaves, depth {depth}{cut}"),
            );
        }
        Answer::Ns { counts, .. } => {
            line("instance", &r.instance);
            let last = counts.last().copied().unwrap_or(0);
            line(
                "answer",
                format!(
                    "{last} numerical semigroups of genus {}",
                    counts.len().saturating_sub(1)
                ),
            );
            line("counts", format!("{} (genus 0, 1, ...)", ids_u64(counts)));
        }
        Answer::NQueens { n, solutions } => {
            line("instance", &r.instance);
            let answer = match r.max_depth {
                Some(d) if d < *n as usize => format!(
                    "{solutions} complete placements of {n} queens: --max-depth {d} cuts the \
                     search above row {n} (not the number of {n}-Queens solutions)"
                ),
                _ => format!("{solutions} solutions of {n}-Queens"),
            };
            line("answer", answer);
        }
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
        line("per worker", ids_u64(&stats.per_worker));
    }
}

pub(crate) fn ids_u64(v: &[u64]) -> String {
    v.iter().map(u64::to_string).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_writes_exact_decimals() {
        assert_eq!(scaled(4810694, 4), "481.0694");
        assert_eq!(scaled(5, 3), "0.005");
        assert_eq!(scaled(295, 0), "295");
    }
}
