//! `magpie search mis FILE`: loading, searching, checking and reporting a maximum
//! independent set of a DIMACS graph.

use std::path::PathBuf;

use crate::maxclique::{read_dimacs, CliqueSpace, Graph, VertexSet};
use crate::registry::prelude::*;

use super::{is_independent, max_independent_set_counted, space};

/// Maximum independent set as a search application ([`crate::registry::SEARCH_APPS`]).
pub static APP: SearchApp = SearchApp {
    name: "mis",
    synopsis: "mis FILE",
    about: &[
        "maximum independent set of a DIMACS graph: the most",
        "vertices no two of which are adjacent",
    ],
    usage: "usage: magpie search mis FILE.clq",
    takes_file: true,
    options: &[],
    goal: Goal::Optimise,
    load,
    bench,
};

/// The graph of the full runs: 300 vertices, α = 39, 0.58 M nodes, about 1.4 s
/// sequentially on the development VM.
const BENCH_GRAPH: &str = "p_hat300-1";
/// The graph of the `--quick` runs.
const QUICK_GRAPH: &str = "brock200_2";

/// `magpie-bench search`'s graphs (DIMACS files of the instance collection): [`BENCH_GRAPH`]
/// in `overhead` and `sequential` ([`QUICK_GRAPH`] with `--quick`, the item's graph for
/// `--sequential-items mis:NAME`), each answer checked against the others' (no published
/// independence numbers); the other experiments do not measure it.
fn bench(q: &BenchQuery<'_>) -> Result<Vec<BenchCase>, String> {
    let name = match (q.experiment, q.quick) {
        (Experiment::Sequential, _) if q.item.is_some() => q.item.unwrap_or_default(),
        (Experiment::Overhead | Experiment::Sequential, false) => BENCH_GRAPH,
        (Experiment::Overhead | Experiment::Sequential, true) => QUICK_GRAPH,
        _ => return Ok(Vec::new()),
    };
    Ok(vec![BenchCase::new(
        name,
        instance_file(&format!("dimacs/{name}.clq"))?,
    )])
}

/// A graph whose largest independent set to find.
struct Mis {
    path: PathBuf,
    graph: Graph,
    space: CliqueSpace,
}

fn load(args: &AppArgs) -> Result<Box<dyn Instance>, AppError> {
    let path = args.file(&APP)?.to_path_buf();
    let graph = read_dimacs(&path)?;
    let space = space(&graph);
    Ok(Box::new(Mis { path, graph, space }))
}

impl Instance for Mis {
    instance_basics!(APP, label: |i| i.path.display().to_string(), space: |i| &i.space);

    fn solve(&self, run: Run<'_>) -> Result<Option<Solved>, AppError> {
        // The complement's children come in colour order with non-increasing bounds.
        let opts = level_pruned(run.opts);
        SET.maximum(
            &run.with_options(&opts),
            &self.space,
            &self.graph,
            &self.label(),
        )
    }

    fn hand_written(&self) -> Option<HandWritten<'_>> {
        Some(HandWritten::new("max_independent_set_counted", || {
            let mut set = Vec::new();
            let s = Solo::timed(|| {
                let (found, nodes) = max_independent_set_counted(&self.graph);
                set = found;
                (SET.key(set.len()), Some(nodes))
            });
            check(is_independent(&self.graph, &set), || {
                format!("max_independent_set_counted: {set:?} is not independent")
            })?;
            Ok(s)
        }))
    }
}

/// How a maximum independent set is checked and reported.
const SET: VertexSet = VertexSet {
    number: "alpha",
    symbol: "α",
    noun: "independent set",
    article: "an",
    field: "set",
    holds: is_independent,
    certificate: "no two of the {} vertices are adjacent",
};
