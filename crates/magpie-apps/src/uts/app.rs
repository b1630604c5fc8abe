//! `magpie search uts --tree NAME | --flags F`: loading, searching, checking and reporting
//! the count of an Unbalanced Tree Search tree.

use crate::registry::prelude::*;

use super::{Counts, NamedTree, Params, Tally, NAMED_TREES};

/// The Unbalanced Tree Search count as a search application
/// ([`crate::registry::SEARCH_APPS`]).
pub static APP: SearchApp = SearchApp {
    name: "uts",
    synopsis: "uts --tree NAME | --flags F",
    about: &[
        "count an Unbalanced Tree Search tree (one of the two is",
        "required; NAME is one of the trees below)",
    ],
    usage: "usage: magpie search uts --tree NAME | --flags \"-t 1 -a 3 -d 10 -b 4 -r 19\"",
    takes_file: false,
    options: &[
        AppOption::value("--tree", "NAME", "uts: a named tree (T1, T3, default, ...)"),
        AppOption::value(
            "--flags",
            "FLAGS",
            "uts: the reference's tree flags, e.g. \"-t 1 -a 3 -d 10 -b 4 -r 19\"",
        ),
    ],
    goal: Goal::Enumerate,
    load,
    bench,
};

/// The small trees of `--quick`: T1's shape cut at depth 7 (`overhead`) and 8 (the others).
const QUICK_TREES: [(&str, &str); 2] = [
    ("T1 at depth 7", "-t 1 -a 3 -d 7 -b 4 -r 19"),
    ("T1 at depth 8", "-t 1 -a 3 -d 8 -b 4 -r 19"),
];

/// `magpie-bench search`'s trees: T1 (`--quick`: T1's shape, cut at depth 7 in `overhead`,
/// 8 in `speedup` and `peers`); T1L in `scaling` (`--quick`: the depth-8 cut) and in
/// `sequential` (T3); or the one named (`uts:NAME` for a named tree, `uts:FLAGS` for
/// parameters; a named tree only in `sequential`, whose items are published counts).
fn bench(q: &BenchQuery<'_>) -> Result<Vec<BenchCase>, String> {
    let tree = |spec: &str, label: &str| {
        let flag = if NamedTree::find(spec).is_some() {
            "--tree"
        } else {
            "--flags"
        };
        BenchCase::new(label, AppArgs::new(None).with(flag, Some(spec))).rayon_depths(&[2, 4, 6])
    };
    let [(cut7, flags7), (cut8, flags8)] = QUICK_TREES;
    let (name, label) = match (q.experiment, q.quick) {
        (Experiment::Overhead | Experiment::Speedup | Experiment::Peers, false) => ("T1", "T1"),
        (Experiment::Overhead, true) => (flags7, cut7),
        (Experiment::Speedup | Experiment::Peers, true) => (flags8, cut8),
        (Experiment::Scaling, false) | (Experiment::Sequential, false) => ("T1L", "T1L"),
        (Experiment::Scaling, true) => (flags8, flags8),
        (Experiment::Sequential, true) => ("T3", "T3"),
        _ => return Ok(Vec::new()),
    };
    let case = match q.item.map(str::trim) {
        Some(spec) => {
            if q.experiment == Experiment::Sequential && NamedTree::find(spec).is_none() {
                return Err(format!("`{spec}` is not a named UTS tree (T1, T1L, T3L…)"));
            }
            tree(spec, spec)
        }
        None => tree(name, label),
    };
    Ok(vec![case])
}

/// A UTS tree to count: its parameters, and its published counts if it is a named tree.
struct Tree {
    /// The tree's name, or the flags as given.
    label: String,
    flags: String,
    params: Params,
    named: Option<&'static NamedTree>,
}

fn load(args: &AppArgs) -> Result<Box<dyn Instance>, AppError> {
    let tree = match (args.get("--tree"), args.get("--flags")) {
        (Some(name), None) => {
            let params = Params::named(name.trim())?;
            let named = NamedTree::find(name.trim()).expect("named() found it");
            Tree {
                label: named.name.to_string(),
                flags: named.flags.to_string(),
                params,
                named: Some(named),
            }
        }
        (None, Some(flags)) => Tree {
            label: flags.trim().to_string(),
            flags: flags.trim().to_string(),
            params: Params::from_flags(flags)?,
            named: None,
        },
        (Some(_), Some(_)) => {
            return Err(AppError::Usage(
                "uts takes --tree or --flags, not both".into(),
            ))
        }
        (None, None) => {
            let names: Vec<&str> = NAMED_TREES.iter().map(|t| t.name).collect();
            return Err(AppError::Usage(format!(
                "uts needs a tree: --tree NAME (one of {}) or --flags \"-t 1 -a 3 -d 10 -b 4 -r 19\"",
                names.join(", ")
            )));
        }
    };
    Ok(Box::new(tree))
}

impl Instance for Tree {
    instance_basics!(APP, label: |i| i.label.clone(), space: |i| &i.params);

    fn solve(&self, run: Run<'_>) -> Result<Option<Solved>, AppError> {
        let tally = Tally(&self.params);
        let Some(out) = run.enumerate(&self.params, &tally)? else {
            return Ok(None);
        };
        let (c, expanded) = (out.value, out.stats.expanded);
        // Every node of an enumeration is expanded once: the fold and the engine's own
        // counter must agree.
        check(c.nodes == expanded, || {
            format!(
                "the tree has {} nodes by the fold but {expanded} by the engine's counter",
                c.nodes
            )
        })?;
        let what = if out.stats.stopped {
            partial_count(expanded)
        } else {
            check_published(
                self.named,
                run.opts.max_depth.is_none(),
                &c,
                "nodes counted = nodes expanded (no published counts to compare)",
            )
            .map_err(AppError::Check)?
        };
        let instance = if self.flags == self.label {
            self.flags.clone()
        } else {
            format!("{} ({})", self.label, self.flags)
        };
        let cut = match run.opts.max_depth {
            Some(d) => format!(" (of the tree cut at --max-depth {d})"),
            None => String::new(),
        };
        let answer = Answer::new(key(c.nodes, c.leaves, c.max_depth))
            .field("flags", self.flags.clone())
            .field("nodes", c.nodes)
            .field("leaves", c.leaves)
            .field("depth", c.max_depth)
            .line("instance", instance)
            .line(
                "answer",
                format!(
                    "{} nodes, {} leaves, depth {}{cut}",
                    c.nodes, c.leaves, c.max_depth
                ),
            );
        Ok(Some(Solved::new(answer, what, out.stats)))
    }

    fn hand_written(&self) -> Option<HandWritten<'_>> {
        Some(HandWritten::new("uts::count", || {
            let mut counts = Counts::default();
            let s = Solo::timed(|| {
                counts = super::count(&self.params);
                let c = &counts;
                (key(c.nodes, c.leaves, c.max_depth), Some(c.nodes))
            });
            // A named tree's published counts; other trees have none to compare with.
            check_published(self.named, true, &counts, "").map_err(AppError::Check)?;
            Ok(s)
        }))
    }

    #[cfg(feature = "rayon")]
    fn rayon_peer(&self, pool: &rayon::ThreadPool, depth: usize) -> Option<Result<Solo, AppError>> {
        Some(Ok(Solo::timed(|| {
            let c = super::rayon_peer::count(&self.params, pool, depth);
            (key(c.nodes, c.leaves, c.max_depth), Some(c.nodes))
        })))
    }
}

/// The canonical form of a UTS count.
///
/// ```
/// assert_eq!(magpie_apps::uts::key(4, 3, 1), "nodes 4, leaves 3, depth 1");
/// ```
pub fn key(nodes: u64, leaves: u64, depth: u32) -> String {
    format!("nodes {nodes}, leaves {leaves}, depth {depth}")
}

/// Compares UTS counts with the published ones of a named tree (only a full search can be
/// compared): `Ok` says what was checked (`otherwise` when nothing could be), `Err` names the
/// mismatch.
///
/// ```
/// use magpie_apps::uts::{check_published, Counts, NamedTree};
///
/// let t1 = NamedTree::find("T1").unwrap();
/// let good = Counts { nodes: t1.nodes, leaves: t1.leaves.unwrap(), max_depth: t1.max_depth.unwrap() };
/// assert_eq!(check_published(Some(t1), true, &good, "-").unwrap(), "the published counts of T1");
/// let bad = Counts { nodes: good.nodes + 1, ..good };
/// assert!(check_published(Some(t1), true, &bad, "-").is_err());
/// assert_eq!(check_published(Some(t1), false, &bad, "cut").unwrap(), "cut");
/// ```
pub fn check_published(
    named: Option<&NamedTree>,
    full_search: bool,
    c: &Counts,
    otherwise: &str,
) -> Result<String, String> {
    match named {
        Some(t) if full_search => {
            let ok = c.nodes == t.nodes
                && t.leaves.is_none_or(|l| l == c.leaves)
                && t.max_depth.is_none_or(|d| d == c.max_depth);
            if ok {
                Ok(format!("the published counts of {}", t.name))
            } else {
                Err(format!(
                    "{} has {} nodes, {:?} leaves, depth {:?}; the search counted {}, {}, {}",
                    t.name, t.nodes, t.leaves, t.max_depth, c.nodes, c.leaves, c.max_depth
                ))
            }
        }
        _ => Ok(otherwise.to_string()),
    }
}
