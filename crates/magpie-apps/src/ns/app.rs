//! `magpie search ns --genus G`: loading, searching, checking and reporting the counts of
//! numerical semigroups by genus ([`crate::registry::Instance`] for [`Tree`]).

use magpie::search::CountPerDepth;

use crate::registry::prelude::*;

use super::{Tree, EXPECTED_COUNTS};

/// The numerical-semigroup counts by genus as a search application
/// ([`crate::registry::SEARCH_APPS`]).
pub static APP: SearchApp = SearchApp {
    name: "ns",
    synopsis: "ns --genus G",
    about: &["count numerical semigroups by genus, 0..=G (G <= 64)"],
    usage: "usage: magpie search ns --genus G",
    takes_file: false,
    options: &[AppOption::value(
        "--genus",
        "G",
        "ns: the largest genus counted (0..=64)",
    )],
    goal: Goal::Enumerate,
    load,
    bench,
};

/// `magpie-bench search`'s trees, (full, `--quick`) genus: (28, 22) in `overhead`, (34, 26)
/// in `speedup` and `peers`, (34, 24) in `scaling`, (36, 24) in `sequential`; or the one
/// named (`ns:G` or `ns:genus G`; in `sequential` up to the known counts' genus 50).
fn bench(q: &BenchQuery<'_>) -> Result<Vec<BenchCase>, String> {
    let sizes = |experiment| match experiment {
        Experiment::Overhead => Some((28, 22)),
        Experiment::Speedup | Experiment::Peers => Some((34, 26)),
        Experiment::Scaling => Some((34, 24)),
        Experiment::Sequential => Some((36, 24)),
        _ => None,
    };
    let genus = q.size(sizes, |g| {
        parse_number("ns genus", g.trim_start_matches("genus "), 0u64, "a genus")
    })?;
    let Some(genus) = genus else {
        return Ok(Vec::new());
    };
    if q.experiment == Experiment::Sequential && genus as usize >= EXPECTED_COUNTS.len() {
        return Err(format!(
            "ns genus {genus}: no known counts beyond genus {}",
            EXPECTED_COUNTS.len() - 1
        ));
    }
    Ok(vec![genus_case(genus).rayon_depths(&[8, 12, 16, 20])])
}

/// The tree down to `genus`, labelled `genus G`.
fn genus_case(genus: u64) -> BenchCase {
    BenchCase::new(
        format!("genus {genus}"),
        AppArgs::new(None).with("--genus", Some(&genus.to_string())),
    )
}

fn load(args: &AppArgs) -> Result<Box<dyn Instance>, AppError> {
    let g = args.required(&APP, ("--genus", "G"), 0u64, "a genus")?;
    Ok(Box::new(Tree::new(g)?))
}

impl Instance for Tree {
    instance_basics!(APP, label: |i| format!("genus {}", i.max_genus()), space: |i| i);

    fn solve(&self, run: Run<'_>) -> Result<Option<Solved>, AppError> {
        let Some(out) = run.enumerate(self, &CountPerDepth)? else {
            return Ok(None);
        };
        let (counts, expanded) = (out.value, out.stats.expanded);
        let g = self.max_genus();
        let total: u64 = counts.iter().sum();
        check(total == expanded, || {
            format!("the counts add up to {total} but the engine expanded {expanded} nodes")
        })?;
        // The published counts go to genus 50; beyond, only the consistency check above.
        let what = if out.stats.stopped {
            partial_count(expanded)
        } else {
            let known = check_known(&counts, g, run.opts.max_depth).map_err(AppError::Check)?;
            let mut what = format!("the known counts of genus 0..={} (OEIS A007323)", known - 1);
            if known < counts.len() {
                what.push_str("; above that, counts add up to the nodes expanded");
            }
            what
        };
        let last = counts.last().copied().unwrap_or(0);
        let answer = Answer::new(key(&counts))
            .line("instance", self.label())
            .line(
                "answer",
                format!(
                    "{last} numerical semigroups of genus {}",
                    counts.len().saturating_sub(1)
                ),
            )
            .line("counts", format!("{} (genus 0, 1, ...)", ids(&counts)))
            .field("genus", g)
            .field("counts", counts);
        Ok(Some(Solved::new(answer, what, out.stats)))
    }

    fn hand_written(&self) -> Option<HandWritten<'_>> {
        Some(HandWritten::new("ns::count_by_genus", || {
            let mut counts = Vec::new();
            let s = Solo::timed(|| {
                counts = super::count_by_genus(self.max_genus());
                (key(&counts), Some(counts.iter().sum()))
            });
            check_known(&counts, self.max_genus(), None).map_err(AppError::Check)?;
            Ok(s)
        }))
    }

    #[cfg(feature = "rayon")]
    fn rayon_peer(&self, pool: &rayon::ThreadPool, depth: usize) -> Option<Result<Solo, AppError>> {
        Some(Ok(Solo::timed(|| {
            let counts = super::rayon_peer::count(self.max_genus(), pool, depth);
            (key(&counts), Some(counts.iter().sum()))
        })))
    }
}

/// The canonical form of numerical-semigroup counts (genus 0, 1, …).
///
/// ```
/// assert_eq!(magpie_apps::ns::key(&[1, 1, 2]), "counts 1 1 2");
/// ```
pub fn key(counts: &[u64]) -> String {
    format!("counts {}", ids(counts))
}

/// Checks counts per genus: one per genus up to `max_genus` (or `max_depth`), equal to the
/// published ones as far as those go. `Ok` is how many were compared, `Err` the mismatch.
///
/// ```
/// use magpie_apps::ns::check_known;
///
/// assert_eq!(check_known(&[1, 1, 2, 4], 3, None), Ok(4));
/// assert!(check_known(&[1, 1, 2, 5], 3, None).is_err());
/// assert!(check_known(&[1, 1], 3, None).is_err());
/// ```
pub fn check_known(
    counts: &[u64],
    max_genus: usize,
    max_depth: Option<usize>,
) -> Result<usize, String> {
    let deepest = max_depth.map_or(max_genus, |d| d.min(max_genus));
    if counts.len() != deepest + 1 {
        return Err(format!("{} counts for genus 0..={deepest}", counts.len()));
    }
    let known = counts.len().min(EXPECTED_COUNTS.len());
    if counts[..known] != EXPECTED_COUNTS[..known] {
        return Err(format!(
            "counts {:?} differ from the known {:?}",
            &counts[..known],
            &EXPECTED_COUNTS[..known]
        ));
    }
    Ok(known)
}
