//! `replicable`: what replicable node counts cost. Ordered optimisations at `--workers`
//! workers with the shared incumbent (the default: counts vary from run to run) against the
//! same skeleton with `Options::replicable_window` (each task prunes with an incumbent
//! fixed by its number), for each window of `--replicable-windows`; the replicable ones also
//! run on one worker. Every run is one solve (no repetition), so that each run's node count
//! is seen.
//!
//! Checked: every answer (as in every experiment), and that every run of a replicable
//! contender, on one worker and on `--workers`, expanded the same number of nodes (an
//! ERROR row otherwise). Informational ratio rows: time and nodes of each window against
//! the shared incumbent at `--workers` workers.

use std::num::NonZeroUsize;

use super::cases::{Loaded, Solver};
use super::measure::{self, Contender, Job};
use super::{ratio_row, App, Report, Row, SearchArgs};
use magpie::search::Skeleton;
use magpie::ThreadPool;
use magpie_apps::registry::{BenchQuery, Experiment};

const EXPERIMENT: &str = "replicable";

pub fn run(args: &SearchArgs, report: &mut Report) -> String {
    let w = args.workers as usize;
    let pools = super::pool(args, 1).and_then(|p1| Ok((p1, super::pool(args, w)?)));
    let Some(pools) = report.or_error(EXPERIMENT, pools) else {
        return String::new();
    };
    // The applications that declare replicable cases (optimisations), each with the
    // Ordered skeleton it declares (knapsack's binary tree needs a deeper spawn depth).
    let query = BenchQuery::new(Experiment::Replicable, args.quick);
    for app in App::all() {
        let cases = match Loaded::cases(app, &query) {
            Ok(c) => c,
            Err(e) => {
                report.error(EXPERIMENT, app.name(), "-", e);
                continue;
            }
        };
        for case in cases {
            let label = case.label.clone();
            let r = case
                .skeletons
                .unwrap_or("ordered:2")
                .parse::<Skeleton>()
                .map_err(|e| e.to_string())
                .and_then(|skeleton| {
                    let loaded = Loaded::load(app, case)?;
                    compare(args, report, &loaded, skeleton, &pools, |s| loaded.job(s))
                });
            if let Err(e) = r {
                report.error(EXPERIMENT, app.name(), &label, e);
            }
        }
    }
    format!(
        "Ordered optimisation at {w} workers: the shared incumbent vs replicable windows {} \
         (also at 1 worker), {} alternating single solves each; every replicable run must \
         expand the same nodes",
        windows_text(args),
        args.runs
    )
}

fn windows_text(args: &SearchArgs) -> String {
    let w: Vec<String> = args
        .replicable_windows
        .iter()
        .map(ToString::to_string)
        .collect();
    w.join(", ")
}

/// Measures the shared incumbent and every window alternately; checks that each window's
/// runs (1 worker and `--workers`) expanded the same nodes; adds the rows.
fn compare<'a>(
    args: &SearchArgs,
    report: &mut Report,
    loaded: &Loaded,
    skeleton: Skeleton,
    (p1, pw): &'a (ThreadPool, ThreadPool),
    job: impl Fn(Solver<'a>) -> Job<'a>,
) -> Result<(), String> {
    let (app, instance): (App, &str) = (loaded.app, &loaded.case.label);
    let w = args.workers as usize;
    let name = skeleton.to_string();
    let label = |window: NonZeroUsize| format!("{name} replicable w={window}");
    let mut cs = vec![Contender::new(
        name.clone(),
        w,
        job(Solver::Skeleton(pw, skeleton)),
    )];
    for &window in &args.replicable_windows {
        cs.push(Contender::new(
            label(window),
            1,
            job(Solver::Replicable(p1, skeleton, window)),
        ));
        cs.push(Contender::new(
            label(window),
            w,
            job(Solver::Replicable(pw, skeleton, window)),
        ));
    }
    let what = format!("{EXPERIMENT} {app} {instance}");
    measure::measure(&what, &mut cs, args.runs, args.progress())?;
    for pair in cs[1..].chunks(2) {
        let group: Vec<&Contender> = pair.iter().collect();
        measure::same_nodes(&format!("{what} {}", pair[0].config), &group)?;
    }
    // The median node counts of the timed runs, as the rows show them.
    let mut nodes = Vec::new();
    for c in &cs {
        let row = c.row(EXPERIMENT, app.name(), instance);
        nodes.push(row.nodes.unwrap_or(0) as f64);
        report.push(row);
    }
    let shared = &cs[0];
    for (k, window) in args.replicable_windows.iter().enumerate() {
        // Contenders 1 + 2k and 2 + 2k: the window on one worker, then on `--workers`.
        let i = 2 + 2 * k;
        let repl = &cs[i];
        report.push(ratio_row(
            Row::new(
                EXPERIMENT,
                app.name(),
                instance,
                &format!("time w={window} / shared"),
                w,
            ),
            measure::median(repl),
            measure::median(shared),
            None,
        ));
        report.push(ratio_row(
            Row::new(
                EXPERIMENT,
                app.name(),
                instance,
                &format!("nodes w={window} / shared (medians)"),
                w,
            ),
            nodes[i],
            nodes[0],
            None,
        ));
    }
    Ok(())
}
