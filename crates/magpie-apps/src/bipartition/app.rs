//! `magpie search bipartition [FILE] [--n N --density P --seed S]`: loading or generating,
//! searching, checking and reporting a minimum balanced bipartition.

use std::path::PathBuf;

use crate::maxclique::{read_dimacs, Graph};
use crate::registry::prelude::*;

use super::{brute_force_cut, cut_of, Instance as Space, MAX_VERTICES};

/// The edge probability of a generated graph without `--density` (the thesis' 0.9).
pub const DEFAULT_DENSITY: f64 = 0.9;
/// The seed of a generated graph without `--seed`.
pub const DEFAULT_SEED: u64 = 1;

/// Graph bipartitioning as a search application ([`crate::registry::SEARCH_APPS`]).
pub static APP: SearchApp = SearchApp {
    name: "bipartition",
    synopsis: "bipartition FILE | --n N",
    about: &[
        "balanced bipartition with the fewest cut edges (branch and",
        "bound) of a DIMACS graph or of G(N, P) (--density P, default",
        "0.9; --seed S, default 1); N <= 64",
    ],
    usage: "usage: magpie search bipartition FILE.clq | --n N [--density P] [--seed S]",
    takes_file: true,
    options: &[
        AppOption::value(
            "--n",
            "N",
            "bipartition: the vertices of a generated graph (1..=64)",
        ),
        AppOption::value(
            "--density",
            "P",
            "bipartition: the edge probability of a generated graph G(N, P) [default: 0.9]",
        ),
        AppOption::value(
            "--seed",
            "S",
            "bipartition: the seed of a generated graph [default: 1]",
        ),
    ],
    goal: Goal::Optimise,
    load,
    bench,
};

/// `magpie-bench search`'s instance: in `overhead`, G(32, 0.9) seed 1 (`--quick` G(30,
/// 0.9), about 0.3 s).
fn bench(q: &BenchQuery<'_>) -> Result<Vec<BenchCase>, String> {
    let n = match (q.experiment, q.quick) {
        (Experiment::Overhead, false) => 32,
        (Experiment::Overhead, true) => 30,
        _ => return Ok(Vec::new()),
    };
    let args = AppArgs::new(None).with("--n", Some(&n.to_string()));
    Ok(vec![BenchCase::new(format!("G({n}, 0.9) seed 1"), args)])
}

/// A graph to bipartition.
struct Bipartition {
    /// The file, or `G(n, p) seed s`.
    label: String,
    graph: Graph,
    space: Space,
}

fn load(args: &AppArgs) -> Result<Box<dyn Instance>, AppError> {
    let (label, graph) = match args.input() {
        Some(path) => {
            if let Some(flag) = ["--n", "--density", "--seed"]
                .into_iter()
                .find(|f| args.get(f).is_some())
            {
                return Err(AppError::Usage(format!(
                    "bipartition takes FILE or --n N, not both ({flag} applies to a generated \
                     graph); {}",
                    APP.usage
                )));
            }
            let path = PathBuf::from(path);
            let g = read_dimacs(&path)?;
            (path.display().to_string(), g)
        }
        None => {
            let n = args.required(&APP, ("--n", "N"), 1usize, "a number of vertices")?;
            let density = match args.get("--density") {
                None => DEFAULT_DENSITY,
                Some(v) => match v.trim().parse::<f64>() {
                    Ok(p) if (0.0..=1.0).contains(&p) => p,
                    _ => {
                        return Err(AppError::Usage(format!(
                            "--density {v:?}: expected an edge probability from 0 to 1"
                        )))
                    }
                },
            };
            let seed = args
                .number("--seed", 0u64, "a seed")?
                .unwrap_or(DEFAULT_SEED);
            if n > MAX_VERTICES {
                return Err(AppError::Usage(format!(
                    "--n {n}: bipartition takes at most {MAX_VERTICES} vertices"
                )));
            }
            (
                format!("G({n}, {density}) seed {seed}"),
                Graph::random(n, density, seed),
            )
        }
    };
    let space = Space::new(&graph).map_err(|e| AppError::Usage(format!("{label}: {e}")))?;
    Ok(Box::new(Bipartition {
        label,
        graph,
        space,
    }))
}

impl Instance for Bipartition {
    instance_basics!(APP, label: |i| i.label.clone(), space: |i| &i.space);

    fn solve(&self, run: Run<'_>) -> Result<Option<Solved>, AppError> {
        let Some(out) = run.optimum(&self.space, "bipartition")? else {
            return Ok(None);
        };
        let (value, node) = out.value;
        let g = &self.graph;
        let side_a = self.space.side_a(&node);
        let (cut, balanced) = cut_of(g, &side_a);
        check(balanced && cut as i64 == -value, || {
            format!(
                "side A {side_a:?} cuts {cut} edges (reported {}) and is {}balanced ({} of {} \
                 vertices)",
                -value,
                if balanced { "" } else { "not " },
                side_a.len(),
                g.n()
            )
        })?;
        let mut what = format!(
            "the sides have {} and {} vertices and {cut} edges between them",
            g.n() / 2,
            g.n().div_ceil(2)
        );
        // Small graphs: the optimum by trying every balanced split (a stopped search's best
        // need not be it).
        if let Some(best) = brute_force_cut(g).filter(|_| !out.stats.stopped) {
            check(best == cut, || {
                format!("the search found cut {cut} but trying every split gives {best}")
            })?;
            what.push_str(", the optimum by trying every split");
        }
        let side_b: Vec<usize> = (0..g.n()).filter(|v| !side_a.contains(v)).collect();
        // 1-based in reports, as DIMACS numbers vertices.
        let one_based = |v: &[usize]| v.iter().map(|x| x + 1).collect::<Vec<_>>();
        let (a, b) = (one_based(&side_a), one_based(&side_b));
        let answer = Answer::new(format!("cut {cut}"))
            .field("vertices", g.n())
            .field("edges", g.edge_count())
            .field("cut", cut)
            .line(
                "instance",
                format!(
                    "{} ({} vertices, {} edges)",
                    self.label,
                    g.n(),
                    g.edge_count()
                ),
            )
            .line(
                "answer",
                format!("{} cut {cut}", best_or("minimum", out.stats.stopped)),
            )
            .line("side A", ids(&a))
            .line("side B", ids(&b))
            .field("side_a", a)
            .field("side_b", b);
        Ok(Some(Solved::new(answer, what, out.stats)))
    }
}
