//! `magpie search maxclique FILE [--target K]`: loading, searching, checking and reporting
//! a maximum clique, or the decision of a clique of K vertices.

use std::path::PathBuf;

use magpie::search::Options;

use crate::registry::prelude::*;

use super::{is_clique, read_dimacs, CliqueSpace, Graph};

/// Maximum clique (or the decision of a clique of a given size) as a search application
/// ([`crate::registry::SEARCH_APPS`]).
pub static APP: SearchApp = SearchApp {
    name: "maxclique",
    synopsis: "maxclique FILE [--target K]",
    about: &[
        "maximum clique of a DIMACS graph; with --target, decide",
        "whether a clique of K vertices exists",
    ],
    usage: "usage: magpie search maxclique FILE.clq [--target K]",
    takes_file: true,
    options: &[AppOption::value(
        "--target",
        "K",
        "maxclique: decide whether a clique of K vertices exists instead of maximising",
    )],
    goal: Goal::Optimise,
    load,
};

/// A graph whose largest clique (or a clique of `target` vertices) to find.
struct Clique {
    path: PathBuf,
    graph: Graph,
    space: CliqueSpace,
    target: Option<usize>,
}

fn load(args: &AppArgs) -> Result<Box<dyn Instance>, AppError> {
    let path = args.file(&APP)?.to_path_buf();
    let target = args.number("--target", 0usize, "a clique size")?;
    let graph = read_dimacs(&path)?;
    let space = CliqueSpace::new(&graph);
    Ok(Box::new(Clique {
        path,
        graph,
        space,
        target,
    }))
}

impl Instance for Clique {
    instance_basics!(APP, label: |i| i.path.display().to_string(), space: |i| &i.space);

    fn solve(&self, run: Run<'_>) -> Result<Option<Solved>, AppError> {
        // Children come in colour order with non-increasing bounds, so a failed bound also
        // rules out the later siblings.
        let opts = Options {
            prune_level: true,
            ..run.opts.clone()
        };
        let run = run.with_options(&opts);
        let (vertices, edges) = (self.graph.n(), self.graph.edge_count());
        let instance = format!("{} ({vertices} vertices, {edges} edges)", self.label());
        let answer = |key: String| {
            Answer::new(key)
                .field("vertices", vertices)
                .field("edges", edges)
        };
        let Some(k) = self.target else {
            let Some(out) = run.optimise(&self.space)? else {
                return Ok(None);
            };
            let (omega, node) = out
                .value
                .ok_or_else(|| AppError::Check("the search returned no clique at all".into()))?;
            let clique = self.space.clique(&node);
            check(
                is_clique(&self.graph, &clique) && clique.len() as i64 == omega,
                || {
                    format!(
                        "reported ω = {omega} with {clique:?}, which is not a clique of that size"
                    )
                },
            )?;
            let what = format!("the {omega} vertices are pairwise adjacent");
            let omega = clique.len();
            let answer = answer(format!("omega {omega}"))
                .field("omega", omega)
                .line("instance", instance)
                .line(
                    "answer",
                    format!(
                        "{} clique size {omega}",
                        best_or("maximum", out.stats.stopped)
                    ),
                )
                .line("clique", ids(&clique))
                .field("clique", clique);
            return Ok(Some(Solved::new(answer, what, out.stats)));
        };
        let Some(out) = run.decide(&self.space, k as i64)? else {
            return Ok(None);
        };
        let clique = out.value.as_ref().map(|n| self.space.clique(n));
        let what = match &clique {
            Some(c) => {
                check(is_clique(&self.graph, c) && c.len() >= k, || {
                    format!(
                        "the clique found for --target {k}, {c:?}, is not a clique of {k} vertices"
                    )
                })?;
                format!("the {} vertices are pairwise adjacent", c.len())
            }
            None if out.stats.stopped => {
                format!("none found before the stop: a clique of {k} vertices is not ruled out")
            }
            // The search itself is the proof; there is nothing to recheck.
            None => format!("none found: the whole tree was searched for {k} vertices"),
        };
        let verdict = match &clique {
            Some(_) => "found",
            None if out.stats.stopped => "not found before the stop",
            None => "none",
        };
        let mut answer = answer(format!("clique of {k}: {verdict}"))
            .field("target", k)
            .field("found", clique.is_some())
            .line("instance", instance)
            .line("answer", format!("clique of {k} vertices: {verdict}"));
        if let Some(c) = &clique {
            answer = answer.line("clique", ids(c));
        }
        let answer = answer.field("clique", clique);
        Ok(Some(Solved::new(answer, what, out.stats)))
    }
}
