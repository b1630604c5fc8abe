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
};

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
        let answer = Answer::new(format!("length {length}"))
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
}
