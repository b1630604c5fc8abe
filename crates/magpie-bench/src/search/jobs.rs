//! One timed, checked solve of each app by each kind of solver: the jobs every experiment
//! measures. A job times the solve alone (instances are loaded before, answers checked
//! after) and returns the nodes it counted.

use super::instances::{check_knapsack, Clique, Knapsack, Tsp};
use super::measure::{Job, Sample};
use super::plain;
use magpie::search::{self, CountPerDepth, Options, Skeleton};
use magpie::ThreadPool;
use magpie_apps::maxclique::{self, CliqueSpace};
use magpie_apps::nqueens::{self};
use magpie_apps::{ns, uts};
use std::time::Instant;

/// Which solver a job runs.
#[derive(Clone, Copy)]
pub enum Solver<'p> {
    /// The plain recursive solver of [`plain`] over the app's node generator.
    Plain,
    /// The app's own sequential reference solver (`uts::count`, `ns::count_by_genus`,
    /// `nqueens::count_counted`, `maxclique::max_clique_counted`, `knapsack::solve`,
    /// `tsp::branch_and_bound` from the heuristic tour's bound, as `tsp::solve` runs it).
    Reference,
    /// `magpie::search` with this skeleton, on this pool.
    Skeleton(&'p ThreadPool, Skeleton),
}

/// A UTS tree with its expected statistics.
pub struct UtsTree {
    pub label: String,
    pub params: uts::Params,
    pub expected: uts::Counts,
}

impl UtsTree {
    /// A named tree (`T1`, `T1L`, …; checked against the spec's statistics) or reference
    /// flags (checked against `uts::count`, run once here).
    pub fn load(spec: &str) -> Result<UtsTree, String> {
        if let Some(t) = uts::NamedTree::find(spec) {
            let params = t.params();
            let expected = match (t.leaves, t.max_depth) {
                (Some(leaves), Some(max_depth)) => uts::Counts {
                    nodes: t.nodes,
                    leaves,
                    max_depth,
                },
                _ => {
                    let c = uts::count(&params);
                    if c.nodes != t.nodes {
                        return Err(format!(
                            "uts {spec}: {} nodes, expected {}",
                            c.nodes, t.nodes
                        ));
                    }
                    c
                }
            };
            return Ok(UtsTree {
                label: t.name.to_string(),
                params,
                expected,
            });
        }
        let params = uts::Params::from_flags(spec).map_err(|e| e.to_string())?;
        let expected = uts::count(&params);
        Ok(UtsTree {
            label: spec.to_string(),
            params,
            expected,
        })
    }

    fn check(&self, c: &uts::Counts) -> Result<(), String> {
        if *c == self.expected {
            Ok(())
        } else {
            Err(format!(
                "uts {}: {c:?}, expected {:?}",
                self.label, self.expected
            ))
        }
    }
}

fn timed<R>(f: impl FnOnce() -> R) -> (std::time::Duration, R) {
    let t = Instant::now();
    let r = f();
    (t.elapsed(), r)
}

/// The expanded-node count of a skeleton run of a deterministic tree must be the tree size.
fn check_nodes(what: &str, got: u64, want: u64) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: {got} nodes expanded, the tree has {want}"))
    }
}

pub fn uts<'a>(tree: &'a UtsTree, solver: Solver<'a>) -> Job<'a> {
    let p = &tree.params;
    match solver {
        Solver::Plain => Box::new(move || {
            let (time, (c, nodes)) = timed(|| plain::enumerate(p, &uts::Tally(p)));
            tree.check(&c)?;
            check_nodes(&tree.label, nodes, tree.expected.nodes)?;
            Ok(Sample::new(time, Some(nodes)))
        }),
        Solver::Reference => Box::new(move || {
            let (time, c) = timed(|| uts::count(p));
            tree.check(&c)?;
            Ok(Sample::new(time, Some(c.nodes)))
        }),
        Solver::Skeleton(pool, skel) => Box::new(move || {
            let (time, out) = timed(|| {
                pool.install(|| search::enumerate(p, &uts::Tally(p), skel, &Options::default()))
            });
            tree.check(&out.value)?;
            check_nodes(&tree.label, out.stats.expanded, tree.expected.nodes)?;
            Ok(Sample::search(time, out.stats))
        }),
    }
}

/// Checks NS counts per genus `0..=genus` with the application's own check
/// (`ns::check_known`); returns the tree's size (their sum).
pub fn check_ns(genus: usize, counts: &[u64]) -> Result<u64, String> {
    ns::check_known(counts, genus, None).map_err(|e| format!("ns genus {genus}: {e}"))?;
    Ok(counts.iter().sum())
}

/// NS down to `genus` (at most 50: the oracle's length).
pub fn ns<'a>(tree: &'a ns::Tree, solver: Solver<'a>) -> Job<'a> {
    let g = tree.max_genus();
    match solver {
        Solver::Plain => Box::new(move || {
            let (time, (counts, nodes)) = timed(|| plain::enumerate(tree, &CountPerDepth));
            let total = check_ns(g, &counts)?;
            check_nodes("ns", nodes, total)?;
            Ok(Sample::new(time, Some(nodes)))
        }),
        Solver::Reference => Box::new(move || {
            let (time, counts) = timed(|| ns::count_by_genus(g));
            let total = check_ns(g, &counts)?;
            Ok(Sample::new(time, Some(total)))
        }),
        Solver::Skeleton(pool, skel) => Box::new(move || {
            let (time, out) = timed(|| {
                pool.install(|| search::enumerate(tree, &CountPerDepth, skel, &Options::default()))
            });
            let total = check_ns(g, &out.value)?;
            check_nodes("ns", out.stats.expanded, total)?;
            Ok(Sample::search(time, out.stats))
        }),
    }
}

/// Checks an N-Queens count with the application's own check (`nqueens::known`); a size
/// with no known count is an error here, where every instance is chosen to be checked.
pub fn check_queens(n: u32, count: u64) -> Result<(), String> {
    match nqueens::known(n, count, None) {
        Ok(Some(_)) => Ok(()),
        Ok(None) => Err(format!("nqueens {n}: no known solution count")),
        Err(e) => Err(format!("nqueens {n}: {e}")),
    }
}

pub fn nqueens<'a>(board: &'a nqueens::Board, solver: Solver<'a>) -> Job<'a> {
    let n = board.n();
    let fold = nqueens::Solutions(n);
    match solver {
        Solver::Plain => Box::new(move || {
            let (time, (count, nodes)) = timed(|| plain::enumerate(board, &fold));
            check_queens(n, count)?;
            Ok(Sample::new(time, Some(nodes)))
        }),
        Solver::Reference => Box::new(move || {
            // Counting its calls, the recursion reports the skeleton's node count.
            let (time, (count, nodes)) = timed(|| nqueens::count_counted(n));
            check_queens(n, count)?;
            Ok(Sample::new(time, Some(nodes)))
        }),
        Solver::Skeleton(pool, skel) => Box::new(move || {
            let (time, out) = timed(|| {
                pool.install(|| search::enumerate(board, &fold, skel, &Options::default()))
            });
            check_queens(n, out.value)?;
            Ok(Sample::search(time, out.stats))
        }),
    }
}

/// Max clique: `space` must be `CliqueSpace::new(&clq.graph)`. The skeleton runs with
/// `prune_level` (sound: children come in non-increasing bound order).
pub fn maxclique<'a>(clq: &'a Clique, space: &'a CliqueSpace, solver: Solver<'a>) -> Job<'a> {
    match solver {
        Solver::Plain => Box::new(move || {
            let (time, (clique, nodes)) = timed(|| plain::max_clique(&clq.sorted));
            clq.check_sorted(&clique)?;
            Ok(Sample::new(time, Some(nodes)))
        }),
        Solver::Reference => Box::new(move || {
            let (time, (clique, nodes)) = timed(|| maxclique::max_clique_counted(&clq.graph));
            clq.check(&clique)?;
            Ok(Sample::new(time, Some(nodes)))
        }),
        Solver::Skeleton(pool, skel) => Box::new(move || {
            let opts = Options {
                prune_level: true,
                ..Options::default()
            };
            let (time, out) = timed(|| pool.install(|| search::optimise(space, skel, &opts)));
            let (value, node) = out
                .value
                .ok_or_else(|| format!("{}: the search found no clique", clq.name))?;
            let clique = space.clique(&node);
            if clique.len() as i64 != value {
                return Err(format!(
                    "{}: objective {value} for a clique of {}",
                    clq.name,
                    clique.len()
                ));
            }
            clq.check(&clique)?;
            Ok(Sample::search(time, out.stats))
        }),
    }
}

/// Knapsack: every instance of `k` in one job (the times and nodes are totals).
pub fn knapsack<'a>(k: &'a Knapsack, solver: Solver<'a>) -> Job<'a> {
    match solver {
        Solver::Plain => Box::new(move || {
            let (time, results) = timed(|| {
                k.instances
                    .iter()
                    .map(|(inst, _)| plain::optimise(inst, false, None))
                    .collect::<Vec<_>>()
            });
            let mut nodes = 0;
            for ((inst, want), (best, n)) in k.instances.iter().zip(results) {
                let (value, node) = best.ok_or_else(|| format!("{}: no solution", inst.name()))?;
                check_knapsack(inst, *want, value as u64, &certificate(inst, &node)?)?;
                nodes += n;
            }
            Ok(Sample::new(time, Some(nodes)))
        }),
        Solver::Reference => Box::new(move || {
            let (time, results) = timed(|| {
                k.instances
                    .iter()
                    .map(|(inst, _)| magpie_apps::knapsack::solve(inst))
                    .collect::<Vec<_>>()
            });
            for ((inst, want), sol) in k.instances.iter().zip(results) {
                check_knapsack(inst, *want, sol.profit, &sol.items)?;
            }
            Ok(Sample::new(time, None))
        }),
        Solver::Skeleton(pool, skel) => Box::new(move || {
            // Timed on the pool's worker: a solve takes a millisecond or less, and the
            // hand-off into the pool (a parked worker's wake-up, paid once per batch by a
            // user who solves many instances) is not the search's; the plain and
            // hand-written solvers run on the calling thread with none.
            let opts = Options {
                ..Options::default()
            };
            let (time, results) = pool.install(|| {
                timed(|| {
                    k.instances
                        .iter()
                        .map(|(inst, _)| search::optimise(inst, skel, &opts))
                        .collect::<Vec<_>>()
                })
            });
            let mut nodes = 0;
            for ((inst, want), out) in k.instances.iter().zip(results) {
                let (value, node) = out
                    .value
                    .ok_or_else(|| format!("{}: no solution", inst.name()))?;
                check_knapsack(inst, *want, value as u64, &certificate(inst, &node)?)?;
                nodes += out.stats.expanded;
            }
            Ok(Sample::new(time, Some(nodes)))
        }),
    }
}

/// The chosen items of a knapsack search's incumbent, made on demand (after the timed solve).
fn certificate(
    inst: &magpie_apps::knapsack::Instance,
    node: &magpie_apps::knapsack::KnapNode,
) -> Result<Vec<usize>, String> {
    inst.certificate(node.profit)
        .map(|s| s.items)
        .ok_or_else(|| format!("{}: no selection is worth {}", inst.name(), node.profit))
}

/// TSP with the heuristic tour's length as the initial bound (computed once, untimed, for
/// every solver: the reference is `tsp::branch_and_bound`, the search `tsp::solve` runs after
/// the heuristic).
pub fn tsp<'a>(t: &'a Tsp, solver: Solver<'a>) -> Job<'a> {
    let initial = Some(-t.heuristic);
    match solver {
        Solver::Plain => Box::new(move || {
            let (time, (best, nodes)) = timed(|| plain::optimise(&t.inst, false, initial));
            t.check_outcome(best.as_ref().map(|(v, n)| (*v, n)))?;
            Ok(Sample::new(time, Some(nodes)))
        }),
        Solver::Reference => Box::new(move || {
            // The hand-written B&B from the same initial bound: the same tree, the same nodes.
            let (time, (tour, nodes)) =
                timed(|| magpie_apps::tsp::branch_and_bound(&t.inst, t.heuristic));
            match tour {
                None => t.check(t.heuristic)?,
                Some(tour) => {
                    if magpie_apps::tsp::tour_length(&t.inst, &tour.cities) != tour.length {
                        return Err(format!(
                            "{}: the tour's length is not {}",
                            t.name, tour.length
                        ));
                    }
                    t.check(tour.length)?;
                }
            }
            Ok(Sample::new(time, Some(nodes)))
        }),
        Solver::Skeleton(pool, skel) => Box::new(move || {
            let opts = Options {
                initial_bound: initial,
                ..Options::default()
            };
            let (time, out) = timed(|| pool.install(|| search::optimise(&t.inst, skel, &opts)));
            t.check_outcome(out.value.as_ref().map(|(v, n)| (*v, n)))?;
            Ok(Sample::search(time, out.stats))
        }),
    }
}
