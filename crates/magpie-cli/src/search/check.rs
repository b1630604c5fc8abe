//! Checking what a search found: each application's answer is checked (a clique is a
//! clique, a selection fits, a tour visits every city, counts equal the published ones)
//! before it becomes an [`Answer`] to report.

use magpie_apps::{knapsack, maxclique, nqueens, ns, tsp, uts};

#[cfg(feature = "mpi")]
use super::load::Problem;
use super::report::{scaled, Answer, NOT_CHECKED};
use crate::error::{check, Failure};

/// Checks NS counts per genus: one per genus up to `max_genus` (or `max_depth`), equal to
/// the published ones as far as those go. `Ok` is how many were compared, `Err` the mismatch.
pub(crate) fn check_known_ns(
    counts: &[u64],
    max_genus: usize,
    max_depth: Option<usize>,
) -> Result<usize, String> {
    let deepest = max_depth.map_or(max_genus, |d| d.min(max_genus));
    if counts.len() != deepest + 1 {
        return Err(format!("{} counts for genus 0..={deepest}", counts.len()));
    }
    let known = counts.len().min(ns::EXPECTED_COUNTS.len());
    if counts[..known] != ns::EXPECTED_COUNTS[..known] {
        return Err(format!(
            "counts {:?} differ from the known {:?}",
            &counts[..known],
            &ns::EXPECTED_COUNTS[..known]
        ));
    }
    Ok(known)
}

/// Compares UTS counts with the published ones of a named tree (only a full search can be
/// compared): `Ok` says what was checked (`otherwise` when nothing could be), `Err` names the
/// mismatch and who counted (`counter`: "the search", "rayon").
pub(crate) fn check_published_uts(
    named: Option<&uts::NamedTree>,
    full_search: bool,
    c: &uts::Counts,
    counter: &str,
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
                    "{} has {} nodes, {:?} leaves, depth {:?}; {counter} counted {}, {}, {}",
                    t.name, t.nodes, t.leaves, t.max_depth, c.nodes, c.leaves, c.max_depth
                ))
            }
        }
        _ => Ok(otherwise.to_string()),
    }
}

/// What a search found, by application, before it is checked.
#[cfg(feature = "mpi")]
pub(crate) enum Found {
    /// maxclique: the largest clique's size and node.
    Clique(Option<(i64, maxclique::BoundedClique)>),
    /// maxclique --target: a clique of the target size, if any.
    CliqueDecision(Option<maxclique::BoundedClique>),
    /// knapsack: the best profit and selection.
    Knapsack(Option<(i64, knapsack::KnapNode)>),
    /// tsp: a tour better than the heuristic one (`None`: the heuristic tour is optimal), and
    /// the heuristic tour.
    Tsp(Option<(i64, tsp::TspNode)>, tsp::Tour),
    /// UTS: nodes, leaves, depth.
    Uts(uts::Counts),
    /// NS: the count of each genus.
    Ns(Vec<u64>),
    /// N-Queens: the solutions.
    NQueens(u64),
}

/// maxclique: the largest clique found is a clique of its size.
pub(crate) fn max_clique(
    graph: &maxclique::Graph,
    value: Option<(i64, maxclique::BoundedClique)>,
) -> Result<(Answer, String), Failure> {
    let space = maxclique::CliqueSpace::new(graph);
    let (vertices, edges) = (graph.n(), graph.edge_count());
    let (omega, node) =
        value.ok_or_else(|| Failure::Check("the search returned no clique at all".into()))?;
    let clique = space.clique(&node);
    check(
        maxclique::is_clique(graph, &clique) && clique.len() as i64 == omega,
        || format!("reported ω = {omega} with {clique:?}, which is not a clique of that size"),
    )?;
    let what = format!("the {omega} vertices are pairwise adjacent");
    let omega = clique.len();
    let answer = Answer::MaxClique {
        vertices,
        edges,
        omega,
        clique,
    };
    Ok((answer, what))
}

/// maxclique --target `k`: a clique found is a clique of `k` vertices (none found: the
/// search itself is the proof).
pub(crate) fn clique_decision(
    graph: &maxclique::Graph,
    k: usize,
    value: Option<maxclique::BoundedClique>,
) -> Result<(Answer, String), Failure> {
    let space = maxclique::CliqueSpace::new(graph);
    let (vertices, edges) = (graph.n(), graph.edge_count());
    let clique = value.as_ref().map(|n| space.clique(n));
    let what = match &clique {
        Some(c) => {
            check(maxclique::is_clique(graph, c) && c.len() >= k, || {
                format!("the clique found for --target {k}, {c:?}, is not a clique of {k} vertices")
            })?;
            format!("the {} vertices are pairwise adjacent", c.len())
        }
        // The search itself is the proof; there is nothing to recheck.
        None => format!("none found: the whole tree was searched for {k} vertices"),
    };
    let answer = Answer::CliqueDecision {
        vertices,
        edges,
        target: k,
        found: clique.is_some(),
        clique,
    };
    Ok((answer, what))
}

/// knapsack: a selection worth the profit found fits (and equals the optimum stated in the
/// file, if any); `number` is the instance's 1-based position in its file.
pub(crate) fn knapsack(
    inst: &knapsack::Instance,
    number: usize,
    value: Option<(i64, knapsack::KnapNode)>,
) -> Result<(Answer, String), Failure> {
    let (profit, node) =
        value.ok_or_else(|| Failure::Check("the search returned no selection at all".into()))?;
    // The node keeps no selection: a selection worth its profit, made now.
    let items = inst
        .certificate(node.profit)
        .ok_or_else(|| Failure::Check(format!("no selection is worth the reported {profit}")))?
        .items;
    let (sum, weight) = inst.evaluate(&items);
    check(
        profit >= 0 && sum == profit as u64 && weight <= inst.capacity(),
        || {
            format!("items {items:?} weigh {weight} (capacity {}) and are worth {sum}, not the reported {profit}", inst.capacity())
        },
    )?;
    let mut what = format!(
        "the {} items weigh {} <= capacity {} and are worth {}",
        items.len(),
        scaled(weight, inst.decimals()),
        scaled(inst.capacity(), inst.decimals()),
        scaled(sum, inst.decimals())
    );
    if let Some(z) = inst.stated_optimum() {
        check(z == sum, || {
            format!("the search found profit {sum} but the file states the optimum {z}")
        })?;
        what.push_str(", the optimum stated in the file");
    }
    let answer = Answer::Knapsack {
        instance_name: inst.name().to_string(),
        instance_number: number,
        items_in_instance: inst.len(),
        capacity: inst.capacity(),
        decimals: inst.decimals(),
        profit: sum,
        weight,
        items,
    };
    Ok((answer, what))
}

/// tsp: the tour found (`None`: the heuristic tour `start` is optimal) visits every city
/// once and has its length.
pub(crate) fn tsp(
    inst: &tsp::Instance,
    value: Option<(i64, tsp::TspNode)>,
    start: tsp::Tour,
) -> Result<(Answer, String), Failure> {
    let heuristic_optimal = value.is_none();
    let tour = match &value {
        Some((_, node)) => node.tour(inst),
        None => start.clone(),
    };
    let mut sorted = tour.cities.clone();
    sorted.sort_unstable();
    check(sorted.iter().copied().eq(1..=inst.len()), || {
        format!(
            "the tour {:?} does not visit every city exactly once",
            tour.cities
        )
    })?;
    let length = tsp::tour_length(inst, &tour.cities);
    check(length == tour.length && length <= start.length, || {
        format!(
            "the tour's length is {length}, not the reported {} (start tour {})",
            tour.length, start.length
        )
    })?;
    let what = format!(
        "the tour visits each of the {} cities once and has length {length}",
        inst.len()
    );
    let answer = Answer::Tsp {
        cities: inst.len(),
        length,
        tour: tour.cities,
        heuristic_optimal,
    };
    Ok((answer, what))
}

/// uts: the counts agree with the engine's (`expanded`) and the published ones of a named
/// tree.
pub(crate) fn uts(
    flags: &str,
    named: Option<&uts::NamedTree>,
    c: uts::Counts,
    expanded: u64,
    max_depth: Option<usize>,
) -> Result<(Answer, String), Failure> {
    // Every node of an enumeration is expanded once: the fold and the engine's own
    // counter must agree.
    check(c.nodes == expanded, || {
        format!(
            "the tree has {} nodes by the fold but {expanded} by the engine's counter",
            c.nodes
        )
    })?;
    let what = check_published_uts(
        named,
        max_depth.is_none(),
        &c,
        "the search",
        "nodes counted = nodes expanded (no published counts to compare)",
    )
    .or_else(|m| check(false, || m).map(|()| String::new()))?;
    let answer = Answer::Uts {
        flags: flags.to_string(),
        nodes: c.nodes,
        leaves: c.leaves,
        depth: c.max_depth,
    };
    Ok((answer, what))
}

/// ns: the counts add up to the nodes expanded and equal the published ones.
pub(crate) fn ns(
    tree: &ns::Tree,
    counts: Vec<u64>,
    expanded: u64,
    max_depth: Option<usize>,
) -> Result<(Answer, String), Failure> {
    let g = tree.max_genus();
    let total: u64 = counts.iter().sum();
    check(total == expanded, || {
        format!("the counts add up to {total} but the engine expanded {expanded} nodes")
    })?;
    // The published counts go to genus 50; beyond, only the consistency checks above.
    let known =
        check_known_ns(&counts, g, max_depth).or_else(|m| check(false, || m).map(|()| 0))?;
    let mut what = format!("the known counts of genus 0..={} (OEIS A007323)", known - 1);
    if known < counts.len() {
        what.push_str("; above that, counts add up to the nodes expanded");
    }
    Ok((Answer::Ns { genus: g, counts }, what))
}

/// nqueens: the count equals the known one (OEIS A000170) where there is one.
pub(crate) fn n_queens(
    board: &nqueens::Board,
    solutions: u64,
    max_depth: Option<usize>,
) -> Result<(Answer, String), Failure> {
    let n = board.n();
    let what = match n_queens_known(n, solutions, max_depth)? {
        Some(what) => what.to_string(),
        None if magpie_apps::NQUEENS_SOLUTIONS.get(n as usize).is_some() => format!(
            "{NOT_CHECKED}a count cut at --max-depth {} has no known value",
            max_depth.unwrap_or(0)
        ),
        None => format!("{NOT_CHECKED}no known count for {n}-Queens"),
    };
    Ok((Answer::NQueens { n, solutions }, what))
}

/// Checks an `n`-Queens count against the known one (OEIS A000170) where there is one and the
/// search was not cut above the last row; `Some(what was checked)` if it was checked, `None`
/// if there is nothing to check against. Shared by `magpie search` and `magpie experiment`.
pub(crate) fn n_queens_known(
    n: u32,
    solutions: u64,
    max_depth: Option<usize>,
) -> Result<Option<&'static str>, Failure> {
    match magpie_apps::NQUEENS_SOLUTIONS.get(n as usize).copied() {
        Some(want) if max_depth.is_none_or(|d| d >= n as usize) => {
            check(solutions == want, || {
                format!("{solutions} solutions, but {n}-Queens has {want}")
            })?;
            Ok(Some("the known count (OEIS A000170)"))
        }
        _ => Ok(None),
    }
}

/// Checks what a search of `problem` found (`expanded`: the nodes it visited) with the
/// check of its application, and returns the answer and what was checked. For the
/// distributed search, which runs the search of each [`Problem`] itself and wraps its value
/// in a [`Found`]; the local one calls the check of its application directly.
#[cfg(feature = "mpi")]
pub(crate) fn checked(
    problem: &Problem,
    found: Found,
    expanded: u64,
    max_depth: Option<usize>,
) -> Result<(Answer, String), Failure> {
    match (problem, found) {
        (Problem::MaxClique { graph, target, .. }, Found::Clique(value)) if target.is_none() => {
            max_clique(graph, value)
        }
        (
            Problem::MaxClique {
                graph,
                target: Some(k),
                ..
            },
            Found::CliqueDecision(value),
        ) => clique_decision(graph, *k, value),
        (Problem::Knapsack { inst, number, .. }, Found::Knapsack(value)) => {
            knapsack(inst, *number, value)
        }
        (Problem::Tsp { inst, .. }, Found::Tsp(value, start)) => tsp(inst, value, start),
        (Problem::Uts { flags, named, .. }, Found::Uts(c)) => {
            uts(flags, *named, c, expanded, max_depth)
        }
        (Problem::Ns { tree }, Found::Ns(counts)) => ns(tree, counts, expanded, max_depth),
        (Problem::NQueens { board }, Found::NQueens(solutions)) => {
            n_queens(board, solutions, max_depth)
        }
        // The caller paired a problem with another application's value: its bug, reported
        // as a failed check (exit 1) rather than a panic.
        (problem, _) => Err(Failure::Check(format!(
            "the {} search returned the value of another application or mode",
            problem.app()
        ))),
    }
}
