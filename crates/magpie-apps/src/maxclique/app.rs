//! `magpie search maxclique FILE [--target K]`: loading, searching, checking and reporting
//! a maximum clique, or the decision of a clique of K vertices.

use std::path::PathBuf;

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
    bench,
};

/// Clique numbers ω of the DIMACS graphs of the instance collection (its README, section 1;
/// `tests/data/README.md` for the small ones): what `magpie-bench search` checks its
/// answers against.
const CLIQUE_NUMBERS: &[(&str, usize)] = &[
    ("brock200_1", 21),
    ("brock200_2", 12),
    ("brock200_3", 15),
    ("brock200_4", 17),
    ("brock400_1", 27),
    ("brock400_3", 31),
    ("brock800_1", 23),
    ("brock800_2", 24),
    ("brock800_3", 25),
    ("brock800_4", 26),
    ("C125.9", 34),
    ("C250.9", 44),
    ("keller5", 27),
    ("hamming6-2", 32),
    ("hamming6-4", 4),
    ("hamming10-2", 512),
    ("johnson8-2-4", 4),
    ("johnson8-4-4", 14),
    ("johnson16-2-4", 8),
    ("MANN_a9", 16),
    ("MANN_a27", 126),
    ("MANN_a45", 345),
    ("p_hat300-1", 8),
    ("p_hat500-1", 9),
    ("p_hat700-1", 11),
    ("p_hat1000-1", 10),
    ("san200_0.7_1", 30),
    ("san200_0.9_2", 60),
    ("sanr200_0.7", 18),
    ("sanr400_0.7", 21),
    ("gen200_p0.9_55", 55),
    ("gen400_p0.9_55", 55),
    ("c-fat200-1", 12),
    ("DSJC500_5", 13),
    ("DSJC1000_5", 15),
    ("frb30-15-1", 30),
];

/// The DIMACS graph `name` of the instance collection, its answer checked against its
/// clique number ([`CLIQUE_NUMBERS`]).
fn graph_case(name: &str) -> Result<BenchCase, String> {
    let omega = CLIQUE_NUMBERS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, w)| w)
        .ok_or_else(|| format!("{name}: no known clique number to check against"))?;
    let args = instance_file(&format!("dimacs/{name}.clq"))?;
    Ok(BenchCase::new(name, args).expect(key(omega)))
}

/// `magpie-bench search`'s graphs: brock200_1 (`--quick` brock200_4) in `overhead`;
/// brock400_1 and brock400_3 (brock200_1) in `speedup`, long solves with the target 1.7;
/// brock200_1..4 (brock200_4) in `peers`; brock200_1 and brock200_4 (brock200_4) in
/// `replicable`, ordered with spawn depth 2; DSJC500_5 (brock200_4) in `scaling`, long
/// solves; brock400_1 and brock800_2 (brock200_4) in `sequential`; or the one named
/// (`maxclique:NAME`, a DIMACS file of the instance collection with a known clique number).
fn bench(q: &BenchQuery<'_>) -> Result<Vec<BenchCase>, String> {
    let defaults: &[&str] = match (q.experiment, q.quick) {
        (Experiment::Overhead, false) => &["brock200_1"],
        (Experiment::Overhead, true) => &["brock200_4"],
        (Experiment::Speedup, false) => &["brock400_1", "brock400_3"],
        (Experiment::Speedup, true) => &["brock200_1"],
        (Experiment::Peers, false) => &["brock200_1", "brock200_2", "brock200_3", "brock200_4"],
        (Experiment::Peers, true) => &["brock200_4"],
        (Experiment::Replicable, false) => &["brock200_1", "brock200_4"],
        (Experiment::Replicable, true) => &["brock200_4"],
        (Experiment::Scaling, false) => &["DSJC500_5"],
        (Experiment::Scaling, true) => &["brock200_4"],
        (Experiment::Sequential, false) => &["brock400_1", "brock800_2"],
        (Experiment::Sequential, true) => &["brock200_4"],
    };
    let named = q.item.map(|g| [g]);
    let names: &[&str] = named.as_ref().map_or(defaults, |g| g);
    names
        .iter()
        .map(|n| {
            let case = graph_case(n)?.rayon_depths(&[1, 2, 3]);
            Ok(match q.experiment {
                Experiment::Speedup => case.long().target(1.7),
                Experiment::Scaling => case.long(),
                Experiment::Replicable => case.skeletons("ordered:2"),
                _ => case,
            })
        })
        .collect()
}

/// The key of a maximum clique of `omega` vertices.
fn key(omega: usize) -> String {
    CLIQUE.key(omega)
}

/// How a maximum clique is checked and reported.
const CLIQUE: VertexSet = VertexSet {
    number: "omega",
    symbol: "ω",
    noun: "clique",
    article: "a",
    field: "clique",
    holds: is_clique,
    certificate: "the {} vertices are pairwise adjacent",
};

/// A set of vertices of a graph that a search maximises on a [`CliqueSpace`] (a clique, an
/// independent set on the complement's space), how it is checked and how it is reported:
/// the name of its size (`omega`, `alpha`: the answer's key and JSON field) and its symbol,
/// its noun in the text (with its article), the field and line that list it, the property
/// every pair of its vertices has, and what the check says (`{}` is the size).
pub(crate) struct VertexSet {
    pub(crate) number: &'static str,
    pub(crate) symbol: &'static str,
    pub(crate) noun: &'static str,
    pub(crate) article: &'static str,
    pub(crate) field: &'static str,
    pub(crate) holds: fn(&Graph, &[usize]) -> bool,
    pub(crate) certificate: &'static str,
}

impl VertexSet {
    /// A maximum set of `graph` (the file `label`) found by `run` on `space`, checked (its
    /// vertices have the set's property, and it has the size the search reported) and
    /// reported.
    pub(crate) fn maximum(
        &self,
        run: &Run<'_>,
        space: &CliqueSpace,
        graph: &Graph,
        label: &str,
    ) -> Result<Option<Solved>, AppError> {
        let Some(out) = run.optimum(space, self.field)? else {
            return Ok(None);
        };
        let (size, node) = out.value;
        let set = space.clique(&node);
        check(
            (self.holds)(graph, &set) && set.len() as i64 == size,
            || {
                let (symbol, article, noun) = (self.symbol, self.article, self.noun);
                format!(
                    "reported {symbol} = {size} with {set:?}, which is not {article} {noun} of that size"
                )
            },
        )?;
        let what = self.certificate.replace("{}", &size.to_string());
        let answer = self.answer(label, graph, set, out.stats.stopped);
        Ok(Some(Solved::new(answer, what, out.stats)))
    }

    /// The key of a maximum set of `size` vertices (`omega 12`).
    pub(crate) fn key(&self, size: impl std::fmt::Display) -> String {
        format!("{} {size}", self.number)
    }

    /// The answer of `set` (1-based ids), a maximum set of `g` (the file `label`) unless
    /// the search was `stopped`.
    pub(crate) fn answer(&self, label: &str, g: &Graph, set: Vec<usize>, stopped: bool) -> Answer {
        let (vertices, edges, size) = (g.n(), g.edge_count(), set.len());
        Answer::new(self.key(size))
            .field("vertices", vertices)
            .field("edges", edges)
            .field(self.number, size)
            .line(
                "instance",
                format!("{label} ({vertices} vertices, {edges} edges)"),
            )
            .line(
                "answer",
                format!("{} {} size {size}", best_or("maximum", stopped), self.noun),
            )
            .line(self.field, ids(&set))
            .field(self.field, set)
    }
}

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
        let opts = level_pruned(run.opts);
        let run = run.with_options(&opts);
        let (vertices, edges) = (self.graph.n(), self.graph.edge_count());
        let instance = format!("{} ({vertices} vertices, {edges} edges)", self.label());
        let answer = |key: String| {
            Answer::new(key)
                .field("vertices", vertices)
                .field("edges", edges)
        };
        let Some(k) = self.target else {
            return CLIQUE.maximum(&run, &self.space, &self.graph, &self.label());
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

    fn hand_written(&self) -> Option<HandWritten<'_>> {
        self.target.is_none().then(|| {
            HandWritten::new("max_clique_counted", || {
                let mut clique = Vec::new();
                let s = Solo::timed(|| {
                    let (c, nodes) = super::max_clique_counted(&self.graph);
                    clique = c;
                    (key(clique.len()), Some(nodes))
                });
                check(is_clique(&self.graph, &clique), || {
                    format!("max_clique_counted: {clique:?} is not a clique")
                })?;
                Ok(s)
            })
        })
    }

    #[cfg(feature = "rayon")]
    fn rayon_peer(&self, pool: &rayon::ThreadPool, depth: usize) -> Option<Result<Solo, AppError>> {
        if self.target.is_some() {
            return None;
        }
        let mut clique = Vec::new();
        let s = Solo::timed(|| {
            let (c, nodes) = super::rayon_peer::max_clique(&self.space, pool, depth);
            clique = c;
            (key(clique.len()), Some(nodes))
        });
        let ok = check(is_clique(&self.graph, &clique), || {
            format!("the rayon peer's {clique:?} is not a clique")
        });
        Some(ok.map(|()| s))
    }
}
