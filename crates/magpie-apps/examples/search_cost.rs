//! One solve, for instruction counts: the `Sequential` skeleton on a 1-worker pool, or the
//! app's hand-written solver, on a small instance of UTS, NS, N-Queens or max clique
//! (brock200_4, read from the instance directory, `magpie_apps::instances`). `scripts/search-cost.sh`
//! runs each under callgrind and prints instructions per node.
//!
//! ```text
//! cargo run --release -p magpie-apps --example search_cost -- uts|ns|nqueens|maxclique|knapsack|none seq|hand
//! ```
//!
//! `none` builds the pool and exits: the fixed cost to subtract.

use magpie::search::{self, CountPerDepth, Options, Skeleton};
use magpie_apps::{knapsack, maxclique, nqueens, ns, uts};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (app, solver) = match (args.get(1), args.get(2)) {
        (Some(a), Some(s)) if ["seq", "hand"].contains(&s.as_str()) => (a.as_str(), s.as_str()),
        _ => {
            eprintln!("usage: search_cost uts|ns|nqueens|maxclique|knapsack|none seq|hand");
            std::process::exit(2);
        }
    };
    let pool = magpie::ThreadPoolBuilder::new()
        .num_workers(1)
        .build()
        .expect("a 1-worker pool");
    let opts = Options::default();
    let nodes = match (app, solver) {
        ("none", _) => pool.install(|| 0),
        ("uts", _) => {
            let p = uts::Params::from_flags("-t 1 -a 3 -d 7 -b 4 -r 19").expect("T1 at depth 7");
            if solver == "seq" {
                pool.install(|| search::enumerate(&p, &uts::Tally(&p), Skeleton::Sequential, &opts))
                    .value
                    .nodes
            } else {
                uts::count(&p).nodes
            }
        }
        ("ns", _) => {
            let counts = if solver == "seq" {
                let tree = ns::Tree::new(22).expect("genus 22");
                pool.install(|| {
                    search::enumerate(&tree, &CountPerDepth, Skeleton::Sequential, &opts)
                })
                .value
            } else {
                ns::count_by_genus(22)
            };
            assert_eq!(counts[..], ns::EXPECTED_COUNTS[..=22]);
            counts.iter().sum()
        }
        ("nqueens", _) => {
            let board = nqueens::Board::new(11).expect("11-Queens");
            let (solutions, nodes) = if solver == "seq" {
                let out = pool.install(|| {
                    search::enumerate(&board, &nqueens::Solutions(11), Skeleton::Sequential, &opts)
                });
                (out.value, out.stats.expanded)
            } else {
                nqueens::count_counted(11)
            };
            assert_eq!(solutions, 2680);
            nodes
        }
        ("maxclique", _) => {
            // brock200_4 (ω = 17).
            let g = instance("dimacs/brock200_4.clq", |p| maxclique::read_dimacs(p));
            let (omega, nodes) = if solver == "seq" {
                let space = maxclique::CliqueSpace::new(&g);
                let opts = Options {
                    prune_level: true,
                    ..Options::default()
                };
                let out = pool.install(|| search::optimise(&space, Skeleton::Sequential, &opts));
                let (omega, _) = out.value.expect("a clique");
                (omega as usize, out.stats.expanded)
            } else {
                let (c, nodes) = maxclique::max_clique_counted(&g);
                (c.len(), nodes)
            };
            assert_eq!(omega, 17);
            nodes
        }
        ("knapsack", _) => {
            // The 100 instances of knapPI_9_50_1000 (the overhead experiment's).
            let all = instance(
                "knapsack/pisinger/smallcoeff_pisinger/knapPI_9_50_1000.csv",
                |p| knapsack::read(p),
            );
            let mut nodes = 0;
            for inst in &all {
                let (profit, n) = if solver == "seq" {
                    let out = pool.install(|| search::optimise(inst, Skeleton::Sequential, &opts));
                    let (profit, _) = out.value.expect("a selection");
                    (profit as u64, out.stats.expanded)
                } else {
                    // `solve` does not count its nodes; it visits the same ones (the bench's
                    // overhead experiment checks the plain walk's against the skeleton's), and
                    // the script takes the count from the `seq` run.
                    (knapsack::solve(inst).profit, 0)
                };
                assert_eq!(Some(profit), inst.stated_optimum(), "{}", inst.name());
                nodes += n;
            }
            nodes
        }
        _ => {
            eprintln!("search_cost: unknown app {app}");
            std::process::exit(2);
        }
    };
    println!("{nodes}");
}

/// `read` of the file at `rel` under the instance directory (`MAGPIE_INSTANCES`), or exit
/// with its error.
fn instance<T, E: std::fmt::Display>(rel: &str, read: impl FnOnce(&str) -> Result<T, E>) -> T {
    magpie_apps::instances::find(rel)
        .and_then(|path| read(&path.to_string_lossy()).map_err(|e| e.to_string()))
        .unwrap_or_else(|e| {
            eprintln!("search_cost: {e}");
            std::process::exit(2)
        })
}
