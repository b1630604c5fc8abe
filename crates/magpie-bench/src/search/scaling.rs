//! `scaling`: speedup curves of magpie's best skeleton and of the rayon-written peer at each
//! of `--scaling-workers`, over the app's hand-written sequential solver, measured once per
//! item in the same alternating rounds (for `scripts/scale.sh` on a many-core machine).
//!
//! Per item: the skeleton candidates (`--skeletons`; `--clique-skeletons` for max clique)
//! and the rayon spawn depths are screened at the largest worker count; then the
//! hand-written solver (the baseline), the best skeleton at every count and rayon at the
//! best depth at every count run alternately. Ratio rows per count (informational):
//! hand-written / magpie (the speedup) and magpie / rayon.

use super::instances::Clique;
use super::jobs::{self, Solver, UtsTree};
use super::measure::{self, Contender, Job};
use super::speedup::{screen, screen_depth};

/// The small UTS tree of `--quick` (geometric, fixed shape, depth 8).
const QUICK_UTS: &str = "-t 1 -a 3 -d 8 -b 4 -r 19";
use super::{ratio_row, rayon_impl, App, Report, Row, SearchArgs};
use magpie::search::Skeleton;
use magpie::ThreadPool;
use magpie_apps::maxclique::CliqueSpace;
use magpie_apps::{nqueens, ns};

const EXP: &str = "scaling";

/// One worker count's pools: magpie's and rayon's.
type Pools = (ThreadPool, rayon::ThreadPool);

/// The default worker counts: 1, 2, 4, … up to `cores`, and `cores` itself.
///
/// ```text
/// default_counts(16) = [1, 2, 4, 8, 16]; default_counts(12) = [1, 2, 4, 8, 12]
/// ```
pub fn default_counts(cores: usize) -> Vec<usize> {
    let mut out: Vec<usize> = std::iter::successors(Some(1usize), |w| w.checked_mul(2))
        .take_while(|&w| w <= cores)
        .collect();
    if out.last() != Some(&cores.max(1)) {
        out.push(cores.max(1));
    }
    out
}

pub fn run(args: &SearchArgs, report: &mut Report) -> String {
    let mut counts: Vec<usize> = match &args.scaling_workers {
        Some(w) => w.iter().map(|&w| w as usize).collect(),
        None => default_counts(std::thread::available_parallelism().map_or(1, |n| n.get())),
    };
    counts.sort_unstable();
    counts.dedup();
    let pools: Result<Vec<Pools>, String> = counts
        .iter()
        .map(|&w| Ok((super::pool(args, w)?, super::rayon_pool(w)?)))
        .collect();
    let mut apps = args.scaling_apps.clone();
    apps.dedup();
    match pools {
        Ok(pools) if !pools.is_empty() => {
            for app in apps {
                if let Err(e) = app_items(args, report, &pools, app) {
                    report.error(EXP, app.name(), "-", e);
                }
            }
        }
        Ok(_) => report.error(EXP, "-", "-", "no worker count".into()),
        Err(e) => report.error(EXP, "-", "-", e),
    }
    let shown: Vec<String> = counts.iter().map(usize::to_string).collect();
    format!(
        "magpie's best skeleton and rayon (best spawn depth), both screened at {} workers, at \
         {} workers against the app's hand-written sequential solver, median of {} \
         alternating runs",
        counts.last().copied().unwrap_or(1),
        shown.join(", "),
        args.runs
    )
}

/// Why an app other than uts, ns, nqueens and maxclique is skipped: this experiment has a
/// workload, a hand-written solver and a rayon peer for those four only.
const NO_WORKLOAD: &str =
    "no scaling workload, hand-written solver or rayon peer in the bench for this app";

/// The items of one app: its instance (max clique: each graph of --cliques).
fn app_items(
    args: &SearchArgs,
    report: &mut Report,
    pools: &[Pools],
    app: App,
) -> Result<(), String> {
    let mut cx = Cx {
        args,
        report,
        pools,
    };
    match app.name() {
        "uts" => {
            let spec = args
                .tree
                .clone()
                .unwrap_or_else(|| if args.quick { QUICK_UTS } else { "T1L" }.to_string());
            let tree = UtsTree::load(&spec).map_err(|e| format!("{spec}: {e}"))?;
            let rayon = |d: usize, rp| rayon_impl::uts(&tree, rp, d as u32);
            cx.item(
                app,
                &spec,
                &args.skeletons,
                |s| jobs::uts(&tree, s),
                &[2, 4, 6],
                rayon,
            )
        }
        "ns" => {
            let g = args.genus.unwrap_or(if args.quick { 24 } else { 34 });
            let tree = ns::Tree::new(g).map_err(|e| e.to_string())?;
            let rayon = |d, rp| rayon_impl::ns(&tree, rp, d);
            let depths = [8, 12, 16, 20];
            cx.item(
                app,
                &format!("genus {g}"),
                &args.skeletons,
                |s| jobs::ns(&tree, s),
                &depths,
                rayon,
            )
        }
        "nqueens" => {
            let n = args.queens.unwrap_or(if args.quick { 10 } else { 15 });
            let board = nqueens::Board::new(n).map_err(|e| e.to_string())?;
            let rayon = |d, rp| rayon_impl::nqueens(n as u32, rp, d);
            let job = |s| jobs::nqueens(&board, s);
            cx.item(
                app,
                &format!("n = {n}"),
                &args.skeletons,
                job,
                &[2, 3, 4],
                rayon,
            )
        }
        "maxclique" => {
            let names = args.cliques.clone().unwrap_or_else(|| {
                vec![if args.quick {
                    "brock200_4"
                } else {
                    "DSJC500_5"
                }
                .into()]
            });
            for name in names {
                let r = Clique::load(&name).and_then(|clq| {
                    let space = CliqueSpace::new(&clq.graph);
                    let rayon = |d, rp| rayon_impl::maxclique(&clq, rp, d);
                    let job = |s| jobs::maxclique(&clq, &space, s);
                    cx.item(app, &name, &args.clique_skeletons, job, &[1, 2, 3], rayon)
                });
                // One failed graph does not stop the others.
                if let Err(e) = r {
                    cx.report.error(EXP, app.name(), &name, e);
                }
            }
            Ok(())
        }
        _ => {
            cx.report.skip(EXP, app, NO_WORKLOAD);
            Ok(())
        }
    }
}

/// What every item of the experiment shares.
struct Cx<'c> {
    args: &'c SearchArgs,
    report: &'c mut Report,
    pools: &'c [Pools],
}

impl Cx<'_> {
    /// One item: screening at the largest count, then the alternating rounds and the rows.
    fn item<'a>(
        &'a mut self,
        app: App,
        instance: &str,
        candidates: &[Skeleton],
        job: impl Fn(Solver<'a>) -> Job<'a>,
        depths: &[usize],
        rayon_job: impl Fn(usize, &'a rayon::ThreadPool) -> Job<'a>,
    ) -> Result<(), String> {
        let (args, report, pools) = (self.args, &mut *self.report, self.pools);
        let (pmax, rmax) = pools.last().ok_or("no worker count")?;
        let max = pmax.num_workers();
        let mut depths = depths.to_vec();
        if let Some(d) = &args.rayon_depths {
            depths.clone_from(d);
        }
        depths.dedup();
        let on_max = |sk| job(Solver::Skeleton(pmax, sk));
        let best = screen(
            args,
            report,
            EXP,
            app,
            instance,
            candidates,
            pmax.num_workers(),
            &on_max,
        )?;
        let depth = screen_depth(args, report, EXP, app, instance, &depths, max, |d| {
            rayon_job(d, rmax)
        })?;
        let hand_written = app.name();
        let mut cs = vec![Contender::new(
            format!("{hand_written} hand-written"),
            1,
            job(Solver::Reference),
        )];
        for (p, r) in pools {
            let w = p.num_workers();
            cs.push(Contender::new(
                format!("magpie {best}"),
                w,
                job(Solver::Skeleton(p, best)),
            ));
            cs.push(Contender::new(
                format!("rayon d={depth}"),
                w,
                rayon_job(depth, r),
            ));
        }
        measure::measure(
            &format!("{EXP} {app} {instance}"),
            &mut cs,
            args.runs,
            args.progress(),
        )?;
        for (i, c) in cs.iter().enumerate() {
            let mut row = c.row(EXP, app.name(), instance);
            // The hand-written solver: the curves' baseline.
            row.baseline = i == 0;
            report.push(row);
        }
        let base = measure::median(&cs[0]);
        for pair in cs[1..].chunks(2) {
            let (m, r) = (&pair[0], &pair[1]);
            let w = m.workers;
            let row = Row::new(
                EXP,
                app.name(),
                instance,
                &format!("speedup hand-written / magpie {best}"),
                w,
            );
            report.push(ratio_row(row, base, measure::median(m), None));
            let row = Row::new(EXP, app.name(), instance, "magpie / rayon", w);
            report.push(ratio_row(row, measure::median(m), measure::median(r), None));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::default_counts;

    #[test]
    fn default_counts_are_powers_of_two_and_the_cores() {
        assert_eq!(default_counts(16), [1, 2, 4, 8, 16]);
        assert_eq!(default_counts(12), [1, 2, 4, 8, 12]);
        assert_eq!(default_counts(2), [1, 2]);
        assert_eq!(default_counts(1), [1]);
        assert_eq!(default_counts(0), [1]);
    }
}
