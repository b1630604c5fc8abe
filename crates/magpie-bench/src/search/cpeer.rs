//! `cpeer`: knapsack on the `Sequential` skeleton (1-worker pool) vs a minimal C depth-first
//! branch and bound with the same Dantzig bound (`crate::knapsack_c`, `gcc -O3`), one
//! instance at a time, measured alternately. Both must reach the known optimum and visit the
//! same number of nodes (same tree, same order, same pruning). Ratio skeleton/C, target
//! <= 2.0. The skeleton's solves are timed on the pool's worker (the hand-off into the pool is
//! not part of the search); the C program runs on the calling thread. `knapsack::solve` (the
//! app's hand-written solver, same tree, also on the calling thread) is a third,
//! informational contender.

use super::instances::Knapsack;
use super::jobs::{self, Solver};
use super::measure::{self, Contender, Job, Sample};
use super::{ratio_row, Report, Row, SearchArgs, Target};
use crate::knapsack_c::CKnapsack;
use magpie::search::Skeleton;
use std::time::Instant;

const EXPERIMENT: &str = "cpeer";
const APP: &str = "knapsack";

/// The target: Sequential / C.
pub const TARGET: f64 = 2.0;

/// About how long one sample of the C program runs (seconds).
const SAMPLE_TIME: f64 = 0.05;

/// The default instances (`large_scale/`): the strongly correlated knapPI_3 family where the
/// C program finishes (knapPI_3_2000 runs for minutes in both; there is no 1000-item
/// knapPI_3 file), and a 1000- and a 2000-item instance of the weakly correlated and
/// uncorrelated families.
pub const DEFAULT_ITEMS: &str =
    "knapPI_3_200_1000_1,knapPI_3_500_1000_1,knapPI_2_1000_1000_1,knapPI_1_2000_1000_1";

/// `--quick`.
const QUICK_ITEMS: &str = "knapPI_3_100_1000_1,knapPI_3_200_1000_1";

pub fn run(args: &SearchArgs, report: &mut Report) -> String {
    // Every contender on one CPU: the skeleton runs on the pool's worker, which inherits it.
    let _cpu = measure::OneCpu::here();
    let pool = match super::pool(args, 1) {
        Ok(p) => p,
        Err(e) => {
            report.error(EXPERIMENT, APP, "-", e);
            return String::new();
        }
    };
    let items: Vec<String> = match &args.cpeer_items {
        Some(v) => v.clone(),
        None => {
            let d = if args.quick {
                QUICK_ITEMS
            } else {
                DEFAULT_ITEMS
            };
            d.split(',').map(str::to_string).collect()
        }
    };
    for spec in &items {
        if let Err(e) = one(args, spec, &pool, report) {
            report.error(EXPERIMENT, APP, spec, e);
        }
    }
    format!(
        "knapsack: Sequential skeleton (1-worker pool) vs a C branch and bound (gcc -O3), \
         median of {} alternating runs, each the mean of back-to-back solves (about \
         {SAMPLE_TIME} s of the C program); target Sequential/C <= {TARGET:.2}",
        args.runs
    )
}

fn one(
    args: &SearchArgs,
    spec: &str,
    pool: &magpie::ThreadPool,
    report: &mut Report,
) -> Result<(), String> {
    let k = Knapsack::load(spec)?;
    let prepared: Vec<CKnapsack> = k.instances.iter().map(|(i, _)| CKnapsack::new(i)).collect();
    let c_job = || -> Result<Sample, String> {
        let t = Instant::now();
        let results: Vec<(u64, u64)> = prepared.iter().map(CKnapsack::solve).collect();
        let time = t.elapsed();
        let mut nodes = 0;
        for ((inst, want), (best, calls)) in k.instances.iter().zip(results) {
            if best != *want {
                return Err(format!(
                    "{}: the C program found {best}, the optimum is {want}",
                    inst.name()
                ));
            }
            nodes += calls;
        }
        Ok(Sample::new(time, Some(nodes)))
    };
    // A solve takes a millisecond or less: each sample is the mean of enough back-to-back
    // solves for the C program to run about SAMPLE_TIME (sized by one C solve).
    let mut probe: Job<'_> = Box::new(c_job);
    let reps = measure::reps_for(SAMPLE_TIME, probe()?.time);
    let mut cs = vec![
        Contender::new(
            "Sequential",
            1,
            measure::repeated(
                reps,
                jobs::knapsack(&k, Solver::Skeleton(pool, Skeleton::Sequential)),
            ),
        ),
        Contender::new("C b&b (gcc -O3)", 1, measure::repeated(reps, probe)),
        Contender::new(
            "knapsack::solve",
            1,
            measure::repeated(reps, jobs::knapsack(&k, Solver::Reference)),
        ),
    ];
    let what = format!("{EXPERIMENT} {APP} {spec}");
    measure::measure(&what, &mut cs, args.runs, args.progress())?;
    measure::same_nodes(&what, &[&cs[0], &cs[1]])?;
    for c in &cs {
        let mut row = c.row(EXPERIMENT, APP, spec);
        row.add_note(&format!("mean of {reps} solves a run"));
        if c.config == "knapsack::solve" {
            row.add_note("informational");
        }
        report.push(row);
    }
    report.push(ratio_row(
        Row::new(EXPERIMENT, APP, spec, "Sequential / C", 1),
        measure::median(&cs[0]),
        measure::median(&cs[1]),
        Some(Target::AtMost(TARGET)),
    ));
    report.push(ratio_row(
        Row::new(EXPERIMENT, APP, spec, "knapsack::solve / C", 1),
        measure::median(&cs[2]),
        measure::median(&cs[1]),
        None,
    ));
    Ok(())
}
