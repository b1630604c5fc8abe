//! The `cpeer` experiment's knapsack jobs: every instance of a file (or one) solved by
//! `magpie::search` or by `knapsack::solve`, timed alone (instances loaded before, answers
//! checked after against the optima of [`Knapsack`]). The other experiments measure the
//! applications' declared cases ([`super::cases`]).

use super::instances::{check_knapsack, Knapsack};
use super::measure::{Job, Sample};
use magpie::search::{self, Options, Skeleton};
use magpie::ThreadPool;
use std::time::Instant;

/// Which solver a job runs.
#[derive(Clone, Copy)]
pub enum Solver<'p> {
    /// `knapsack::solve`, the application's hand-written branch and bound.
    Reference,
    /// `magpie::search` with this skeleton, on this pool.
    Skeleton(&'p ThreadPool, Skeleton),
}

fn timed<R>(f: impl FnOnce() -> R) -> (std::time::Duration, R) {
    let t = Instant::now();
    let r = f();
    (t.elapsed(), r)
}

/// Knapsack: every instance of `k` in one job (the times and nodes are totals).
pub fn knapsack<'a>(k: &'a Knapsack, solver: Solver<'a>) -> Job<'a> {
    match solver {
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
            let opts = Options::default();
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
