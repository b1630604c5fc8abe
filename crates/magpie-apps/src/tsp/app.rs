//! `magpie search tsp FILE`: loading, searching, checking and reporting a shortest tour.

use std::path::PathBuf;

use magpie::search::Options;

use crate::registry::prelude::*;

use super::{heuristic_tour, read, tour_length, Instance as Cities};

/// The travelling salesman (shortest tour) as a search application
/// ([`crate::registry::SEARCH_APPS`]).
pub static APP: SearchApp = SearchApp {
    name: "tsp",
    synopsis: "tsp FILE",
    about: &["symmetric TSPLIB travelling salesman (shortest tour)"],
    usage: "usage: magpie search tsp FILE.tsp",
    takes_file: true,
    options: &[],
    goal: Goal::Optimise,
    load,
    bench,
};

/// Optimal tour lengths of the TSPLIB instances of the instance collection (its README,
/// section 2; `tests/data/README.md`): what `magpie-bench search` checks its answers
/// against (an instance not listed is checked against its `.opt.tour` file).
const TOUR_OPTIMA: &[(&str, i64)] = &[
    ("burma14", 3323),
    ("ulysses16", 6859),
    ("gr17", 2085),
    ("gr24", 1272),
    ("fri26", 937),
    ("bayg29", 1610),
    ("dantzig42", 699),
    ("swiss42", 1273),
    ("att48", 10628),
    ("gr48", 5046),
    ("eil51", 426),
    ("berlin52", 7542),
    ("st70", 675),
    ("eil76", 538),
];

/// The TSPLIB instance `name` of the instance collection, its answer checked against its
/// optimum ([`TOUR_OPTIMA`], else the length of its `.opt.tour`).
fn tour_case(name: &str) -> Result<BenchCase, String> {
    let args = instance_file(&format!("tsplib/{name}.tsp"))?;
    let optimum = match TOUR_OPTIMA.iter().find(|(n, _)| *n == name) {
        Some(&(_, o)) => o,
        None => {
            let tour = crate::instances::find(&format!("tsplib/{name}.opt.tour"))
                .map_err(|_| format!("{name}: no known optimum to check against"))?;
            let cities = super::read_tour(tour).map_err(|e| e.to_string())?;
            let path = args.input().map(PathBuf::from).unwrap_or_default();
            tour_length(&read(&path).map_err(|e| e.to_string())?, &cities)
        }
    };
    Ok(BenchCase::new(name, args).expect(key(optimum)))
}

/// `magpie-bench search`'s instances: att48 (`--quick` bayg29) in `overhead`, bayg29
/// (ulysses16) in `replicable` (ordered with spawn depth 2), eil51 (bayg29) in `sequential`;
/// every search starts from the
/// heuristic tour's length as its bound.
fn bench(q: &BenchQuery<'_>) -> Result<Vec<BenchCase>, String> {
    let names: &[&str] = match (q.experiment, q.quick) {
        (Experiment::Overhead, false) => &["att48"],
        (Experiment::Overhead, true) => &["bayg29"],
        (Experiment::Replicable, false) => &["bayg29"],
        (Experiment::Replicable, true) => &["ulysses16"],
        (Experiment::Sequential, _) if q.item.is_some() => &[q.item.unwrap_or_default()],
        (Experiment::Sequential, false) => &["eil51"],
        (Experiment::Sequential, true) => &["bayg29"],
        _ => &[],
    };
    names
        .iter()
        .map(|n| {
            let case = tour_case(n)?;
            Ok(match q.experiment {
                Experiment::Replicable => case.skeletons("ordered:2"),
                // tsp::solve's nodes are its own: the reference is the plain search.
                Experiment::Sequential => case.plain_reference(),
                _ => case,
            })
        })
        .collect()
}

/// The key of a tour of `length`.
fn key(length: i64) -> String {
    format!("length {length}")
}

/// A TSPLIB instance.
struct Tsp {
    path: PathBuf,
    inst: Cities,
}

fn load(args: &AppArgs) -> Result<Box<dyn Instance>, AppError> {
    let path = args.file(&APP)?.to_path_buf();
    let inst = read(&path)?;
    Ok(Box::new(Tsp { path, inst }))
}

impl Instance for Tsp {
    instance_basics!(APP, label: |i| i.path.display().to_string(), space: |i| &i.inst);

    fn solve(&self, run: Run<'_>) -> Result<Option<Solved>, AppError> {
        let inst = &self.inst;
        // Every rank computes the same start tour. Only strictly better tours replace the
        // incumbent: starting from its length, `None` means it is optimal (as `tsp::solve`).
        let start = heuristic_tour(inst);
        let opts = Options {
            initial_bound: Some(-start.length),
            ..run.opts.clone()
        };
        let run = run.with_options(&opts);
        let Some(out) = run.optimise(inst)? else {
            return Ok(None);
        };
        // No better tour than the start one: proven optimal only by a finished search.
        let heuristic_optimal = out.value.is_none() && !out.stats.stopped;
        let tour = match &out.value {
            Some((_, node)) => node.tour(inst),
            None => start.clone(),
        };
        let mut sorted = tour.cities.clone();
        sorted.sort_unstable();
        check(sorted.iter().copied().eq(1..=inst.len()), || {
            format!(
                "the tour {:?} does not visit every city exactly once",
                tour.cities
            )
        })?;
        let length = tour_length(inst, &tour.cities);
        check(length == tour.length && length <= start.length, || {
            format!(
                "the tour's length is {length}, not the reported {} (start tour {})",
                tour.length, start.length
            )
        })?;
        let what = format!(
            "the tour visits each of the {} cities once and has length {length}",
            inst.len()
        );
        let note = if heuristic_optimal {
            " (the start tour was already optimal)"
        } else if out.value.is_none() {
            " (the start tour: none shorter found before the stop)"
        } else {
            ""
        };
        let answer = Answer::new(key(length))
            .field("cities", inst.len())
            .field("length", length)
            .line(
                "instance",
                format!("{} ({} cities)", self.label(), inst.len()),
            )
            .line(
                "answer",
                format!(
                    "{} tour length {length}{note}",
                    best_or("shortest", out.stats.stopped)
                ),
            )
            .line("tour", ids(&tour.cities))
            .field("tour", tour.cities)
            .field("heuristic_optimal", heuristic_optimal);
        Ok(Some(Solved::new(answer, what, out.stats)))
    }

    fn hand_written(&self) -> Option<HandWritten<'_>> {
        // `tsp::solve`'s branch and bound from the same start tour (computed once, untimed,
        // as `solve`'s search starts from it): the same tree, the same nodes.
        let inst = &self.inst;
        let start = heuristic_tour(inst).length;
        Some(HandWritten::new("tsp::solve", move || {
            let mut tour = None;
            let s = Solo::timed(|| {
                let (found, nodes) = super::branch_and_bound(inst, start);
                let length = found.as_ref().map_or(start, |t| t.length);
                tour = found;
                (key(length), Some(nodes))
            });
            if let Some(t) = tour {
                let length = tour_length(inst, &t.cities);
                check(length == t.length, || {
                    format!(
                        "tsp::solve: the tour's length is {length}, not {}",
                        t.length
                    )
                })?;
            }
            Ok(s)
        }))
    }
}
