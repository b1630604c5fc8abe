//! `magpie search sip PATTERN TARGET [--count]`: loading, searching, checking and reporting
//! an embedding of the pattern graph into the target graph, or the count of every embedding.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::maxclique::Graph;
use crate::registry::prelude::*;

use super::{check_embedding, read_graph, Embeddings, Format, SipSpace};

/// Subgraph isomorphism as a search application ([`crate::registry::SEARCH_APPS`]).
pub static APP: SearchApp = SearchApp {
    name: "sip",
    synopsis: "sip PATTERN TARGET [--count]",
    about: &[
        "subgraph isomorphism (non-induced) of a PATTERN graph into a",
        "TARGET graph (LAD or DIMACS): an embedding; with --count, how",
        "many there are",
    ],
    usage: "usage: magpie search sip PATTERN TARGET [--count]",
    takes_file: true,
    options: &[AppOption::switch(
        "--count",
        "sip: count every embedding (an enumeration) instead of finding one",
    )],
    goal: Goal::Decide,
    load,
    bench,
};

/// `magpie-bench search`'s instance: in `overhead`, the embeddings of the DIMACS graph
/// johnson8-2-4 (28 vertices, 210 edges) into itself counted (its automorphisms, 8! =
/// 40320); a count visits the whole tree, whose nodes every solver counts alike.
fn bench(q: &BenchQuery<'_>) -> Result<Vec<BenchCase>, String> {
    let (pattern, target) = match q.experiment {
        Experiment::Overhead => ("johnson8-2-4", "johnson8-2-4"),
        _ => return Ok(Vec::new()),
    };
    let file = |name: &str| crate::instances::find(&format!("dimacs/{name}.clq"));
    let args = AppArgs::new(Some(file(pattern)?))
        .with_file(Some(file(target)?))
        .with("--count", Some(""));
    Ok(vec![BenchCase::new(
        format!("{pattern} into {target}"),
        args,
    )])
}

/// One graph as read: its file, its format (for the numbering of its vertices).
struct Input {
    path: PathBuf,
    format: Format,
}

impl Input {
    /// `FILE (N vertices, M edges, FORMAT)`.
    fn describe(&self, g: &Graph) -> String {
        format!(
            "{} ({} vertices, {} edges, {})",
            self.path.display(),
            g.n(),
            g.edge_count(),
            self.format.name()
        )
    }
}

/// A pattern and a target whose embeddings to find or count.
struct Sip {
    pattern: Input,
    target: Input,
    space: SipSpace,
    count: bool,
}

fn read(path: &Path) -> Result<(Input, Graph), AppError> {
    let (g, format) = read_graph(path)?;
    Ok((
        Input {
            path: path.to_path_buf(),
            format,
        },
        g,
    ))
}

fn load(args: &AppArgs) -> Result<Box<dyn Instance>, AppError> {
    let [p, t] = args.files(&APP)?;
    let count = args.get("--count").is_some();
    let (pattern, pg) = read(p)?;
    let (target, tg) = read(t)?;
    let space =
        SipSpace::new(pg, tg).map_err(|m| crate::input::InputError::file(&pattern.path, m))?;
    Ok(Box::new(Sip {
        pattern,
        target,
        space,
        count,
    }))
}

impl Instance for Sip {
    instance_basics!(
        APP,
        label: |i| format!("{} into {}", i.pattern.path.display(), i.target.path.display()),
        space: |i| &i.space,
    );

    fn solve(&self, run: Run<'_>) -> Result<Option<Solved>, AppError> {
        let (p, t) = (self.space.pattern(), self.space.target());
        let answer = |key: String| {
            Answer::new(key)
                .field("pattern_vertices", p.n())
                .field("pattern_edges", p.edge_count())
                .field("target_vertices", t.n())
                .field("target_edges", t.edge_count())
                .field("mode", if self.count { "count" } else { "decide" })
                .line(
                    "instance",
                    format!(
                        "{} into {}",
                        self.pattern.describe(p),
                        self.target.describe(t)
                    ),
                )
        };
        if self.count {
            let fold = Embeddings(&self.space);
            let Some(out) = run.enumerate(&self.space, &fold)? else {
                return Ok(None);
            };
            let c = out.value;
            check(c.invalid == 0, || {
                format!(
                    "{} of the {} embeddings counted are not embeddings",
                    c.invalid, c.found
                )
            })?;
            let what = if out.stats.stopped {
                partial_count(out.stats.expanded)
            } else {
                format!(
                    "each of the {} embeddings counted is injective and maps every pattern edge \
                     onto a target edge",
                    c.found
                )
            };
            let answer = answer(format!("{} embeddings", c.found))
                .field("found", c.found > 0)
                .field("count", c.found)
                .field("embedding", Value::Null)
                .line("answer", format!("{} embeddings", c.found));
            return Ok(Some(Solved::new(answer, what, out.stats)));
        }
        let Some(out) = run.decide(&self.space, self.space.goal())? else {
            return Ok(None);
        };
        let f = out.value.as_ref().map(|n| self.space.embedding(n));
        let what = match &f {
            Some(f) => {
                check_embedding(p, t, f)
                    .map_err(|e| AppError::Check(format!("the embedding found is not one: {e}")))?;
                "the map is injective and maps every pattern edge onto a target edge".to_string()
            }
            None if out.stats.stopped => {
                "none found before the stop: an embedding is not ruled out".to_string()
            }
            // The search itself is the proof; there is nothing to recheck.
            None => "none found: the whole tree was searched".to_string(),
        };
        let verdict = match &f {
            Some(_) => "found",
            None if out.stats.stopped => "not found before the stop",
            None => "none",
        };
        // Vertices as numbered in their files (LAD from 0, DIMACS from 1).
        let (pb, tb) = (
            self.pattern.format.first_vertex(),
            self.target.format.first_vertex(),
        );
        let mut answer = answer(format!("embedding: {verdict}"))
            .field("found", f.is_some())
            .field("count", Value::Null)
            .line("answer", format!("embedding: {verdict}"));
        if let Some(f) = &f {
            let pairs: Vec<String> = f
                .iter()
                .enumerate()
                .map(|(v, &w)| format!("{}->{}", v + pb, w + tb))
                .collect();
            answer = answer.line("embedding", pairs.join(" "));
        }
        let answer = answer.field(
            "embedding",
            f.map(|f| f.into_iter().map(|w| w + tb).collect::<Vec<_>>()),
        );
        Ok(Some(Solved::new(answer, what, out.stats)))
    }
}
