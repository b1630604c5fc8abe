//! `magpie search nqueens --n N`: loading, searching, checking and reporting the N-Queens
//! count ([`crate::registry::Instance`] for [`Board`]).

use crate::registry::prelude::*;

use super::{Board, Solutions};

/// The N-Queens count as a search application
/// ([`crate::registry::SEARCH_APPS`]).
pub static APP: SearchApp = SearchApp {
    name: "nqueens",
    synopsis: "nqueens --n N",
    about: &["count the N-Queens solutions (1 <= N <= 32)"],
    usage: "usage: magpie search nqueens --n N",
    takes_file: false,
    options: &[AppOption::value(
        "--n",
        "N",
        "nqueens: the board size (1..=32)",
    )],
    goal: Goal::Enumerate,
    load,
    bench,
};

/// `magpie-bench search`'s boards, (full, `--quick`) side: (13, 11) in `overhead`, (15, 12)
/// in `speedup`, (14, 11) in `peers`, (15, 10) in `scaling`; or the one named
/// (`nqueens:N` or `nqueens:n = N`, 4 to 20).
fn bench(q: &BenchQuery<'_>) -> Result<Vec<BenchCase>, String> {
    let sizes = |experiment| match experiment {
        Experiment::Overhead => Some((13, 11)),
        Experiment::Speedup => Some((15, 12)),
        Experiment::Peers => Some((14, 11)),
        Experiment::Scaling => Some((15, 10)),
        _ => None,
    };
    let side = |n: &str| match parse_number(
        "nqueens board",
        n.trim_start_matches("n = "),
        4u64,
        "a side",
    ) {
        Ok(n) if n > 20 => Err(format!("nqueens board {n}: a side from 4 to 20")),
        n => n,
    };
    Ok(match q.size(sizes, side)? {
        Some(n) => vec![board_case(n).rayon_depths(&[2, 3, 4])],
        None => Vec::new(),
    })
}

/// The board of side `n`, labelled `n = N`.
fn board_case(n: u64) -> BenchCase {
    BenchCase::new(
        format!("n = {n}"),
        AppArgs::new(None).with("--n", Some(&n.to_string())),
    )
}

/// The key of a count of `solutions`.
fn key(solutions: u64) -> String {
    format!("{solutions} solutions")
}

fn load(args: &AppArgs) -> Result<Box<dyn Instance>, AppError> {
    let n = args.required(&APP, ("--n", "N"), 0u64, "a board size")?;
    Ok(Box::new(Board::new(n)?))
}

impl Instance for Board {
    instance_basics!(APP, label: |i| format!("{0}x{0} board", i.n()), space: |i| i);

    fn solve(&self, run: Run<'_>) -> Result<Option<Solved>, AppError> {
        let n = self.n();
        let Some(out) = run.enumerate(self, &Solutions(n))? else {
            return Ok(None);
        };
        let (solutions, max_depth) = (out.value, run.opts.max_depth);
        let known = if out.stats.stopped {
            Err(partial_count(out.stats.expanded))
        } else {
            Ok(known(n, solutions, max_depth)?)
        };
        let check = match known {
            Err(partial) => partial,
            Ok(Some(what)) => what.to_string(),
            Ok(None) if crate::NQUEENS_SOLUTIONS.get(n as usize).is_some() => format!(
                "{NOT_CHECKED}a count cut at --max-depth {} has no known value",
                max_depth.unwrap_or(0)
            ),
            Ok(None) => format!("{NOT_CHECKED}no known count for {n}-Queens"),
        };
        let said = match max_depth {
            Some(d) if d < n as usize => format!(
                "{solutions} complete placements of {n} queens: --max-depth {d} cuts the \
                 search above row {n} (not the number of {n}-Queens solutions)"
            ),
            _ => format!("{solutions} solutions of {n}-Queens"),
        };
        let answer = Answer::new(key(solutions))
            .field("n", n)
            .field("solutions", solutions)
            .line("instance", self.label())
            .line("answer", said);
        Ok(Some(Solved::new(answer, check, out.stats)))
    }

    fn hand_written(&self) -> Option<HandWritten<'_>> {
        // Counting its calls, the recursion reports the skeleton's node count.
        Some(HandWritten::new("nqueens::count", || {
            let mut solutions = 0;
            let s = Solo::timed(|| {
                let (count, nodes) = super::count_counted(self.n());
                solutions = count;
                (key(count), Some(nodes))
            });
            known(self.n(), solutions, None)?;
            Ok(s)
        }))
    }

    #[cfg(feature = "rayon")]
    fn rayon_peer(&self, pool: &rayon::ThreadPool, depth: usize) -> Option<Result<Solo, AppError>> {
        // The bitmask recursion counts no nodes.
        let s = Solo::timed(|| (key(super::rayon_peer::count(self, pool, depth)), None));
        Some(Ok(s))
    }
}

/// Checks an `n`-Queens count against the known one (OEIS A000170) where there is one and the
/// search was not cut above the last row: `Some(what was checked)` if it was checked, `None`
/// if there is nothing to check against.
///
/// ```
/// use magpie_apps::nqueens::known;
///
/// assert_eq!(known(8, 92, None).unwrap(), Some("the known count (OEIS A000170)"));
/// assert!(known(8, 91, None).is_err());
/// assert_eq!(known(8, 91, Some(3)).unwrap(), None);
/// ```
pub fn known(
    n: u32,
    solutions: u64,
    max_depth: Option<usize>,
) -> Result<Option<&'static str>, AppError> {
    match crate::NQUEENS_SOLUTIONS.get(n as usize).copied() {
        Some(want) if max_depth.is_none_or(|d| d >= n as usize) => {
            check(solutions == want, || {
                format!("{solutions} solutions, but {n}-Queens has {want}")
            })?;
            Ok(Some("the known count (OEIS A000170)"))
        }
        _ => Ok(None),
    }
}
