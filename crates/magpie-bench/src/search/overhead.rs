//! `overhead`: the `Sequential` skeleton on a 1-worker pool vs the plain recursive search
//! over the same node generator (target <= 1.10) and vs the app's hand-written solver, where
//! it declares one (target <= 1.05), on the cases every application declares. Short solves
//! are repeated back to back within a sample.

use super::cases::{each_case, Loaded, Solver};
use super::measure::{self, Contender};
use super::{ratio_row, App, Report, Row, SearchArgs, Target};
use magpie::search::Skeleton;
use magpie_apps::registry::{BenchQuery, Experiment};

const EXPERIMENT: &str = "overhead";

/// The overhead target: skeleton / plain.
pub const TARGET: f64 = 1.10;

/// The zero-cost target: the Sequential skeleton / the app's hand-written solver.
pub const HAND_TARGET: f64 = 1.05;

/// About how long one sample runs (seconds): a solve shorter than this is repeated back to
/// back within a sample (sized by one run of the `Sequential` skeleton), so that a timer
/// tick or a wake-up on a shared VM does not decide a ratio.
const SAMPLE_TIME: f64 = 0.25;

pub fn run(args: &SearchArgs, report: &mut Report) -> String {
    // Every contender on one CPU: the skeleton runs on the pool's worker, which inherits it.
    let _cpu = measure::OneCpu::here();
    let Some(pool) = report.or_error(EXPERIMENT, super::pool(args, 1)) else {
        return String::new();
    };
    let query = BenchQuery::new(Experiment::Overhead, args.quick);
    each_case(
        report,
        (EXPERIMENT, &[]),
        &args.overhead_apps,
        &query,
        |report, l| compare(args, report, l, &pool),
    );
    format!(
        "Sequential skeleton (1-worker pool) vs plain recursion on the same generator and vs \
         the app's hand-written solver, median of {} alternating runs, each the mean of \
         back-to-back solves (about {SAMPLE_TIME} s); targets skeleton/plain <= {TARGET:.2}, \
         skeleton/hand-written <= {HAND_TARGET:.2}",
        args.runs
    )
}

/// Measures plain, Sequential and the hand-written solver (if any) alternately; checks
/// that every solver that counts nodes counted the same; adds the rows.
fn compare(
    args: &SearchArgs,
    report: &mut Report,
    loaded: &Loaded,
    pool: &magpie::ThreadPool,
) -> Result<(), String> {
    let (app, instance): (App, &str) = (loaded.app, &loaded.case.label);
    let seq = Solver::Skeleton(pool, Skeleton::Sequential);
    // The first solve is the application's checked one, the answer the others must give.
    let reps = measure::reps_for(SAMPLE_TIME, loaded.run(seq)?.time);
    let job = |s| measure::repeated(reps, loaded.job(s));
    let mut cs = vec![
        Contender::new("plain", 1, job(Solver::Plain)),
        Contender::new("Sequential", 1, job(seq)),
    ];
    let hand_written = loaded.hand_written();
    if let Some(name) = hand_written {
        cs.push(Contender::new(name, 1, job(Solver::HandWritten)));
    }
    let what = format!("{EXPERIMENT} {app} {instance}");
    measure::measure(&what, &mut cs, args.runs, args.progress())?;
    let counting: Vec<&Contender> = cs.iter().filter(|c| !c.node_counts().is_empty()).collect();
    measure::same_nodes(&what, &counting)?;
    for c in &cs {
        let mut row = c.row(EXPERIMENT, app.name(), instance);
        if reps > 1 {
            row.add_note(&format!("mean of {reps} solves a run"));
        }
        report.push(row);
    }
    let (plain, skel) = (measure::median(&cs[0]), measure::median(&cs[1]));
    report.push(ratio_row(
        Row::new(EXPERIMENT, app.name(), instance, "Sequential / plain", 1),
        skel,
        plain,
        Some(Target::AtMost(TARGET)),
    ));
    if let (Some(name), Some(refr)) = (hand_written, cs.get(2)) {
        report.push(ratio_row(
            Row::new(
                EXPERIMENT,
                app.name(),
                instance,
                &format!("Sequential / {name}"),
                1,
            ),
            skel,
            measure::median(refr),
            Some(Target::AtMost(HAND_TARGET)),
        ));
    }
    Ok(())
}
