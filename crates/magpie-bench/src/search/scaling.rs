//! `scaling`: speedup curves of magpie's best skeleton and of the rayon-written peer at each
//! of `--scaling-workers`, over the app's hand-written sequential solver, measured once per
//! item in the same alternating rounds (for `scripts/scale.sh` on a many-core machine).
//!
//! Per item: the skeleton candidates (`--skeletons`; `--long-skeletons` for long solves)
//! and the rayon spawn depths are screened at the largest worker count; then the
//! hand-written solver (the baseline), the best skeleton at every count and rayon at the
//! best depth at every count run alternately. Ratio rows per count (informational):
//! hand-written / magpie (the speedup) and magpie / rayon.

use super::cases::{each_case, Loaded, Solver};
use super::measure::{self, Contender};
use super::speedup::{first_candidate, screen, screen_depth};
use super::{ratio_row, App, Report, Row, SearchArgs};
use magpie::search::Skeleton;
use magpie::ThreadPool;
use magpie_apps::registry::{BenchQuery, Experiment};

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
    match pools {
        Ok(pools) if !pools.is_empty() => {
            let query = BenchQuery::new(Experiment::Scaling, args.quick);
            each_case(
                report,
                (EXP, &args.items),
                &args.scaling_apps,
                &query,
                |report, l| item(args, report, &pools, l),
            );
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

/// One case: screening at the largest count (its skeletons: `--long-skeletons` for a
/// case of long solves, else `--skeletons`; its rayon depths, or `--rayon-depths`), then the
/// alternating rounds and the rows.
fn item(
    args: &SearchArgs,
    report: &mut Report,
    pools: &[Pools],
    loaded: &Loaded,
) -> Result<(), String> {
    let (app, instance): (App, &str) = (loaded.app, &loaded.case.label);
    let candidates: &[Skeleton] = if loaded.case.long {
        &args.long_skeletons
    } else {
        &args.skeletons
    };
    let job = |s| loaded.job(s);
    let rayon_job = |d, rp| loaded.job(Solver::Rayon(rp, d));
    let depths: &[usize] = args
        .rayon_depths
        .as_deref()
        .unwrap_or(loaded.case.rayon_depths);
    let (pmax, rmax) = pools.last().ok_or("no worker count")?;
    let max = pmax.num_workers();
    let mut depths = depths.to_vec();
    depths.dedup();
    // The application's checked answer first, which the others' must equal.
    loaded.ensure_answer(Solver::Skeleton(pmax, first_candidate(candidates)))?;
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
        job(Solver::HandWritten),
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
