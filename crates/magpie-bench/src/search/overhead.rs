//! `overhead`: the `Sequential` skeleton on a 1-worker pool vs the plain recursive solver
//! over the same node generator (target <= 1.10) and vs the app's hand-written solver
//! (target <= 1.05). Short solves are repeated back to back within a sample.

use super::instances::{Clique, Knapsack, Tsp};
use super::jobs::{self, Solver, UtsTree};
use super::measure::{self, Contender};
use super::{ratio_row, App, Report, Row, SearchArgs, Target};
use magpie::search::Skeleton;
use magpie_apps::maxclique::CliqueSpace;
use magpie_apps::{nqueens, ns};

const EXPERIMENT: &str = "overhead";

/// The overhead target: skeleton / plain.
pub const TARGET: f64 = 1.10;

/// The zero-cost target: the Sequential skeleton / the app's hand-written solver.
pub const HAND_TARGET: f64 = 1.05;

/// About how long one sample runs (seconds): a solve shorter than this is repeated back to
/// back within a sample (sized by one run of the hand-written solver), so that a timer tick
/// or a wake-up on a shared VM does not decide a ratio.
const SAMPLE_TIME: f64 = 0.25;

pub fn run(args: &SearchArgs, report: &mut Report) -> String {
    let mut apps = args.overhead_apps.clone();
    apps.dedup();
    // Every contender on one CPU: the skeleton runs on the pool's worker, which inherits it.
    let _cpu = measure::OneCpu::here();
    let pool = match super::pool(args, 1) {
        Ok(p) => p,
        Err(e) => {
            report.error(EXPERIMENT, "-", "-", e);
            return String::new();
        }
    };
    for app in apps {
        let (instance, result) = one(args, app, &pool, report);
        if let Err(e) = result {
            report.error(EXPERIMENT, app.name(), &instance, e);
        }
    }
    format!(
        "Sequential skeleton (1-worker pool) vs plain recursion on the same generator and vs \
         the app's hand-written solver, median of {} alternating runs, each the mean of \
         back-to-back solves (about {SAMPLE_TIME} s); targets skeleton/plain <= {TARGET:.2}, \
         skeleton/hand-written <= {HAND_TARGET:.2}",
        args.runs
    )
}

fn one(
    args: &SearchArgs,
    app: App,
    pool: &magpie::ThreadPool,
    report: &mut Report,
) -> (String, Result<(), String>) {
    let seq = Solver::Skeleton(pool, Skeleton::Sequential);
    let q = args.quick;
    match app.name() {
        "uts" => {
            let spec = if q { "-t 1 -a 3 -d 7 -b 4 -r 19" } else { "T1" };
            let label = if q { "T1 at depth 7" } else { "T1" };
            let job = (jobs::uts as _, "uts::count");
            on_instance(
                args,
                report,
                (app, label.into()),
                seq,
                UtsTree::load(spec),
                job,
            )
        }
        "ns" => {
            let g = if q { 22 } else { 28 };
            let tree = ns::Tree::new(g).map_err(|e| e.to_string());
            let job = (jobs::ns as _, "ns::count_by_genus");
            on_instance(args, report, (app, format!("genus {g}")), seq, tree, job)
        }
        "nqueens" => {
            let n = if q { 11 } else { 13 };
            let board = nqueens::Board::new(n).map_err(|e| e.to_string());
            let job = (jobs::nqueens as _, "nqueens::count");
            on_instance(args, report, (app, format!("n = {n}")), seq, board, job)
        }
        "maxclique" => {
            let name = if q { "brock200_4" } else { "brock200_1" };
            let r = Clique::load(name).and_then(|clq| {
                let space = CliqueSpace::new(&clq.graph);
                compare(
                    args,
                    report,
                    app,
                    name,
                    "max_clique_counted",
                    |s| jobs::maxclique(&clq, &space, s),
                    seq,
                )
            });
            (name.into(), r)
        }
        "knapsack" => {
            let file = if q {
                "pisinger/hardinstances_pisinger/knapPI_11_20_1000.csv"
            } else {
                "pisinger/smallcoeff_pisinger/knapPI_9_50_1000.csv"
            };
            let label = file.rsplit('/').next().unwrap_or(file).to_string();
            let r = Knapsack::load(file).and_then(|k| {
                let label = format!("{label} (all {})", k.instances.len());
                compare(
                    args,
                    report,
                    app,
                    &label,
                    "knapsack::solve",
                    |s| jobs::knapsack(&k, s),
                    seq,
                )
            });
            (label, r)
        }
        "tsp" => {
            let name = if q { "bayg29" } else { "att48" };
            let job = (jobs::tsp as _, "tsp::solve");
            on_instance(args, report, (app, name.into()), seq, Tsp::load(name), job)
        }
        _ => {
            report.skip(
                EXPERIMENT,
                app,
                "no plain solver, hand-written solver or instance in the bench for this app",
            );
            ("-".into(), Ok(()))
        }
    }
}

/// [`compare`] on the instance `loaded` (or the reason it could not be), with its `job` and
/// the name of its hand-written solver; returns its label with the outcome.
fn on_instance<T>(
    args: &SearchArgs,
    report: &mut Report,
    (app, label): (App, String),
    seq: Solver<'_>,
    loaded: Result<T, String>,
    (job, reference): (for<'b> fn(&'b T, Solver<'b>) -> measure::Job<'b>, &str),
) -> (String, Result<(), String>) {
    let r = loaded
        .and_then(|inst| compare(args, report, app, &label, reference, |s| job(&inst, s), seq));
    (label, r)
}

/// Measures plain, Sequential and the reference alternately; checks that every solver that
/// counts nodes counted the same; adds the rows.
fn compare<'a>(
    args: &SearchArgs,
    report: &mut Report,
    app: App,
    instance: &str,
    reference: &str,
    job: impl Fn(Solver<'a>) -> measure::Job<'a>,
    seq: Solver<'a>,
) -> Result<(), String> {
    let reps = measure::reps_for(SAMPLE_TIME, job(Solver::Reference)()?.time);
    let mut cs = vec![
        Contender::new("plain", 1, measure::repeated(reps, job(Solver::Plain))),
        Contender::new("Sequential", 1, measure::repeated(reps, job(seq))),
        Contender::new(
            reference,
            1,
            measure::repeated(reps, job(Solver::Reference)),
        ),
    ];
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
    let (plain, skel, refr) = (
        measure::median(&cs[0]),
        measure::median(&cs[1]),
        measure::median(&cs[2]),
    );
    report.push(ratio_row(
        Row::new(EXPERIMENT, app.name(), instance, "Sequential / plain", 1),
        skel,
        plain,
        Some(Target::AtMost(TARGET)),
    ));
    report.push(ratio_row(
        Row::new(
            EXPERIMENT,
            app.name(),
            instance,
            &format!("Sequential / {reference}"),
            1,
        ),
        skel,
        refr,
        Some(Target::AtMost(HAND_TARGET)),
    ));
    Ok(())
}
