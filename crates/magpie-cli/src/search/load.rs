//! Loading the input of `magpie search`: a [`Problem`] from the validated arguments (the
//! file read, the tree or board built).

use std::path::PathBuf;

use magpie::search::SearchSpace;
use magpie_apps::{knapsack, maxclique, nqueens, ns, tsp, uts};

use magpie_apps::registry::SearchApp;

use super::args::{number, SearchArgs};
use crate::error::{usage, Failure};

// ---------------------------------------------------------------------------------------

/// A loaded problem, ready to search.
pub(crate) enum Problem {
    MaxClique {
        path: PathBuf,
        graph: maxclique::Graph,
        target: Option<usize>,
    },
    Knapsack {
        path: PathBuf,
        inst: Box<knapsack::Instance>,
        /// 1-based position in the file.
        number: usize,
    },
    Tsp {
        path: PathBuf,
        inst: tsp::Instance,
    },
    Uts {
        /// The tree's name, or the flags as given.
        label: String,
        flags: String,
        params: uts::Params,
        named: Option<&'static uts::NamedTree>,
    },
    Ns {
        tree: ns::Tree,
    },
    NQueens {
        board: nqueens::Board,
    },
}

impl Problem {
    pub(crate) fn app(&self) -> &'static str {
        match self {
            Problem::MaxClique { .. } => "maxclique",
            Problem::Knapsack { .. } => "knapsack",
            Problem::Tsp { .. } => "tsp",
            Problem::Uts { .. } => "uts",
            Problem::Ns { .. } => "ns",
            Problem::NQueens { .. } => "nqueens",
        }
    }

    /// The instance as reported: the file, or the parameters.
    pub(crate) fn instance(&self) -> String {
        match self {
            Problem::MaxClique { path, .. }
            | Problem::Knapsack { path, .. }
            | Problem::Tsp { path, .. } => path.display().to_string(),
            Problem::Uts { label, .. } => label.clone(),
            Problem::Ns { tree } => format!("genus {}", tree.max_genus()),
            Problem::NQueens { board } => format!("{0}x{0} board", board.n()),
        }
    }
}

/// The most nodes the ordered skeleton may find down to `--spawn-depth` in discrepancy
/// order or with `--distributed` (where the pool may hold most of the nodes at that depth as
/// tasks at once; in sequential order a local pool holds one path's siblings, and no cap
/// applies): 2^22, a fraction of a second to visit and at most a few hundred MiB of tasks.
/// A deeper spawn depth on a wide tree (N-Queens 28 at depth 12 ran out of 4 GiB) is a usage
/// error, checked by counting the unpruned tree first.
pub const MAX_ORDERED_NODES: u64 = 1 << 22;

/// The nodes at depths 1..=`depth` of `space` (without pruning: at least as many as a search
/// visits), or `None` once there are more than `cap`.
fn count_down_to<S: SearchSpace + ?Sized>(space: &S, depth: usize, cap: u64) -> Option<u64> {
    let mut count = 0u64;
    let mut stack = vec![space.children(&space.root())];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(child) => {
                count += 1;
                if count > cap {
                    return None;
                }
                if stack.len() < depth {
                    let children = space.children(&child);
                    stack.push(children);
                }
            }
            None => {
                stack.pop();
            }
        }
    }
    Some(count)
}

impl Problem {
    /// [`count_down_to`] on this problem's search space.
    pub(crate) fn nodes_down_to(&self, depth: usize, cap: u64) -> Option<u64> {
        if depth == 0 {
            return Some(0);
        }
        match self {
            Problem::MaxClique { graph, .. } => {
                count_down_to(&maxclique::CliqueSpace::new(graph), depth, cap)
            }
            Problem::Knapsack { inst, .. } => count_down_to(&**inst, depth, cap),
            Problem::Tsp { inst, .. } => count_down_to(inst, depth, cap),
            Problem::Uts { params, .. } => count_down_to(params, depth, cap),
            Problem::Ns { tree } => count_down_to(tree, depth, cap),
            Problem::NQueens { board } => count_down_to(board, depth, cap),
        }
    }
}

pub(crate) fn load(app: &SearchApp, args: &SearchArgs) -> Result<Problem, Failure> {
    let usage_line = app.usage;
    let app = app.name;
    let file = || match &args.input {
        Some(p) => Ok(p.clone()),
        None => usage(format!("{app} needs an input file; {}", usage_line)),
    };
    Ok(match app {
        "maxclique" => {
            let path = file()?;
            let target = match &args.target {
                Some(v) => Some(number("--target", v, 0usize, "a clique size")?),
                None => None,
            };
            let graph = maxclique::read_dimacs(&path)?;
            Problem::MaxClique {
                path,
                graph,
                target,
            }
        }
        "knapsack" => {
            let path = file()?;
            let all = knapsack::read(&path)?;
            let number = match args.instance.as_deref().map(str::trim) {
                None => 1,
                Some(v) => match all.iter().position(|i| i.name() == v) {
                    Some(i) => i + 1,
                    None => match v.parse::<usize>() {
                        Ok(k) if (1..=all.len()).contains(&k) => k,
                        _ => {
                            let first = all.first().map_or("", |i| i.name());
                            return usage(format!(
                                "{}: --instance {v:?}: no instance of that name, and not a \
                                 number in 1..={} (the first instance is {first:?})",
                                path.display(),
                                all.len()
                            ));
                        }
                    },
                },
            };
            let inst = Box::new(all.into_iter().nth(number - 1).expect("number checked"));
            Problem::Knapsack { path, inst, number }
        }
        "tsp" => {
            let path = file()?;
            let inst = tsp::read(&path)?;
            Problem::Tsp { path, inst }
        }
        "uts" => match (&args.tree, &args.flags) {
            (Some(name), None) => {
                let params = uts::Params::named(name.trim())?;
                let named = uts::NamedTree::find(name.trim()).expect("named() found it");
                Problem::Uts {
                    label: named.name.to_string(),
                    flags: named.flags.to_string(),
                    params,
                    named: Some(named),
                }
            }
            (None, Some(flags)) => Problem::Uts {
                label: flags.trim().to_string(),
                flags: flags.trim().to_string(),
                params: uts::Params::from_flags(flags)?,
                named: None,
            },
            (Some(_), Some(_)) => return usage("uts takes --tree or --flags, not both"),
            (None, None) => {
                let names: Vec<&str> = uts::NAMED_TREES.iter().map(|t| t.name).collect();
                return usage(format!(
                    "uts needs a tree: --tree NAME (one of {}) or --flags \"-t 1 -a 3 -d 10 -b 4 -r 19\"",
                    names.join(", ")
                ));
            }
        },
        "ns" => match &args.genus {
            Some(g) => Problem::Ns {
                tree: ns::Tree::new(number("--genus", g, 0u64, "a genus")?)?,
            },
            None => return usage(format!("ns needs --genus G; {}", usage_line)),
        },
        _ => match &args.n {
            Some(n) => Problem::NQueens {
                board: nqueens::Board::new(number("--n", n, 0u64, "a board size")?)?,
            },
            None => return usage(format!("nqueens needs --n N; {}", usage_line)),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_down_to_counts_the_unpruned_tree_and_stops_at_the_cap() {
        let board = nqueens::Board::new(8).unwrap();
        let q = Problem::NQueens { board };
        // 8-Queens: 8 nodes at depth 1, 42 at depth 2, 140 at depth 3.
        assert_eq!(q.nodes_down_to(0, 10), Some(0));
        assert_eq!(q.nodes_down_to(1, 10), Some(8));
        assert_eq!(q.nodes_down_to(3, 1000), Some(8 + 42 + 140));
        assert_eq!(q.nodes_down_to(3, 189), None);
        let board = nqueens::Board::new(28).unwrap();
        let start = std::time::Instant::now();
        assert_eq!(
            Problem::NQueens { board }.nodes_down_to(12, MAX_ORDERED_NODES),
            None
        );
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
    }
}
