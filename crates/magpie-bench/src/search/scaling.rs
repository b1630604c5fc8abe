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
use super::speedup::{screen, screen_depth, QUICK_UTS};
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
        .map(|&w| {
            let rayon = rayon::ThreadPoolBuilder::new()
                .num_threads(w)
                .build()
                .map_err(|e| format!("building a {w}-thread rayon pool: {e}"))?;
            Ok((super::pool(args, w)?, rayon))
        })
        .collect();
    let pools = match pools {
        Ok(p) if !p.is_empty() => p,
        Ok(_) => {
            report.error(EXP, "-", "-", "no worker count".into());
            return String::new();
        }
        Err(e) => {
            report.error(EXP, "-", "-", e);
            return String::new();
        }
    };
    let mut apps = args.scaling_apps.clone();
    apps.dedup();
    for app in apps {
        let r = match app {
            App::Uts => {
                let spec = args
                    .tree
                    .clone()
                    .unwrap_or_else(|| if args.quick { QUICK_UTS } else { "T1L" }.to_string());
                UtsTree::load(&spec).and_then(|tree| {
                    item(
                        args,
                        report,
                        app,
                        &spec,
                        &args.skeletons,
                        &pools,
                        |s| jobs::uts(&tree, s),
                        &[2, 4, 6],
                        |d, rp| rayon_impl::uts(&tree, rp, d as u32),
                    )
                    .map_err(|e| format!("{spec}: {e}"))
                })
            }
            App::Ns => {
                let g = args.genus.unwrap_or(if args.quick { 24 } else { 34 });
                ns::Tree::new(g)
                    .map_err(|e| e.to_string())
                    .and_then(|tree| {
                        item(
                            args,
                            report,
                            app,
                            &format!("genus {g}"),
                            &args.skeletons,
                            &pools,
                            |s| jobs::ns(&tree, s),
                            &[8, 12, 16, 20],
                            |d, rp| rayon_impl::ns(&tree, rp, d),
                        )
                    })
            }
            App::Nqueens => {
                let n = args.queens.unwrap_or(if args.quick { 10 } else { 15 });
                nqueens::Board::new(n)
                    .map_err(|e| e.to_string())
                    .and_then(|board| {
                        item(
                            args,
                            report,
                            app,
                            &format!("n = {n}"),
                            &args.skeletons,
                            &pools,
                            |s| jobs::nqueens(&board, s),
                            &[2, 3, 4],
                            |d, rp| rayon_impl::nqueens(n as u32, rp, d),
                        )
                    })
            }
            App::Maxclique => {
                let names = args.cliques.clone().unwrap_or_else(|| {
                    vec![if args.quick {
                        "brock200_4"
                    } else {
                        "brock400_4"
                    }
                    .into()]
                });
                for name in names {
                    let r = Clique::load(&name).and_then(|clq| {
                        let space = CliqueSpace::new(&clq.graph);
                        item(
                            args,
                            report,
                            app,
                            &name,
                            &args.clique_skeletons,
                            &pools,
                            |s| jobs::maxclique(&clq, &space, s),
                            &[1, 2, 3],
                            |d, rp| rayon_impl::maxclique(&clq, rp, d),
                        )
                    });
                    if let Err(e) = r {
                        report.error(EXP, app.name(), &name, e);
                    }
                }
                Ok(())
            }
            _ => Err("no scaling workload for this app (uts, ns, nqueens, maxclique)".into()),
        };
        if let Err(e) = r {
            report.error(EXP, app.name(), "-", e);
        }
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

#[allow(clippy::too_many_arguments)]
fn item<'a>(
    args: &SearchArgs,
    report: &mut Report,
    app: App,
    instance: &str,
    candidates: &[Skeleton],
    pools: &'a [Pools],
    job: impl Fn(Solver<'a>) -> Job<'a>,
    depths: &[usize],
    rayon_job: impl Fn(usize, &'a rayon::ThreadPool) -> Job<'a>,
) -> Result<(), String> {
    let (pmax, rmax) = pools.last().ok_or("no worker count")?;
    let max = pmax.num_workers();
    let mut depths = depths.to_vec();
    if let Some(d) = &args.rayon_depths {
        depths.clone_from(d);
    }
    depths.dedup();
    let best = screen(args, report, EXP, app, instance, candidates, pmax, &job)?;
    let depth = screen_depth(args, report, EXP, app, instance, &depths, max, |d| {
        rayon_job(d, rmax)
    })?;
    let hand_written = app.app().name;
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
