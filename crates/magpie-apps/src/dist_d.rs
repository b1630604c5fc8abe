//! Dist-D: the LB4MPI-WS experiments' synthetic benchmark, five loops per time step, one per
//! distribution of iteration costs — L0 constant, L1 uniform, L2 normal, L3 exponential,
//! L4 gamma — each over its own cost array (400,000 iterations and 20 time steps in the
//! thesis), run in sequence with the same schedule.
//!
//! Each loop is a [`dist`] loop: its costs come from [`dist::costs`] (loop `Lk` from the
//! seed `seed + k`) and its time step from [`dist::step`] / [`dist::step_seq`]. The shapes
//! and relative means are the thesis' (its Table 8.2, in FLOP per iteration): L0 constant
//! 2.3·10⁸; L1 uniform on about `[0, 7·10⁸]` (mean 3.5·10⁸); L2 normal, `μ = 9.5·10⁸`,
//! `σ = 7·10⁷` (c.o.v. 0.0737); L3 exponential, mean 3·10⁸ (`l = 1/(3·10⁸)`); L4 gamma,
//! `k = 2`, scale 10⁸ (mean 2·10⁸). Work units stand for FLOP: the means are scaled so that
//! their average over the five loops is `--mean-units` ([`loop_means`]). Every loop has
//! its own [`Loop`] handle, so that adaptive schedules and the selectors learn per loop, as
//! LB4OMP does per loop site: L0 runs through the handle the caller passes to
//! [`LoopInput::step`] (so the caller's per-step statistics are L0's), L1…L4 through handles
//! of the same schedule that the input keeps for the run (made afresh at step 0). The report
//! gives every loop's sum, time and chunks; the check compares every loop's sum with the
//! sequential run's.
//!
//! ```
//! use magpie::loops::{Loop, Schedule};
//! use magpie_apps::registry::{find_loop, LoopOptions};
//!
//! let app = find_loop("dist-d").unwrap();
//! let input = app.build(&LoopOptions::new(2).with("--iterations", 500)).unwrap();
//! let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
//! let lp = Loop::new("fac2".parse::<Schedule>().unwrap());
//! let outs: Vec<_> = (0..2).map(|s| pool.install(|| input.step(s, &lp))).collect();
//! assert!(input.check(&outs).is_ok());
//! let result = input.report(&outs).result;
//! assert_eq!(result["loops"].as_array().unwrap().len(), 5);
//! assert_eq!(result["loops"][3]["dist"], "exponential");
//! assert_eq!(lp.calls(), 2);
//! ```

use std::sync::{Arc, Mutex};

use magpie::loops::{Loop, LoopStats, Schedule};
use serde_json::{json, Value};

use crate::dist::{self, Dist};
use crate::output::fnv64;
use crate::registry::{LoopApp, LoopError, LoopInput, LoopOptions, LoopOutput, LoopReport};

/// The five distributions of Dist-D, in loop order (L0 … L4), as [`Dist`] parses them:
/// uniform on `[0, 2·mean]`, normal with the thesis' c.o.v. `7·10⁷ / 9.5·10⁸`, gamma with
/// the thesis' `k = 2`.
pub const DISTS: [&str; 5] = [
    "constant",
    "uniform",
    "normal:cv=0.0737",
    "exponential",
    "gamma:k=2",
];

/// The thesis' mean cost of each loop, in 10⁸ FLOP per iteration (Table 8.2): L0 2.3, L1
/// 3.5 (uniform on `[0, 7]`), L2 9.5, L3 3 (exponential, `l = 1/3`), L4 2 (gamma, `k = 2`,
/// scale 1).
pub const THESIS_MEANS: [f64; 5] = [2.3, 3.5, 9.5, 3.0, 2.0];

/// The mean cost in work units of each loop for `--mean-units U`: the thesis' means scaled so
/// that their average is `U`, rounded to the nearest unit.
///
/// ```
/// // 100 · (2.3, 3.5, 9.5, 3, 2) / 4.06, rounded.
/// assert_eq!(magpie_apps::dist_d::loop_means(100), [57, 86, 234, 74, 49]);
/// assert_eq!(magpie_apps::dist_d::loop_means(0), [0; 5]);
/// ```
pub fn loop_means(mean_units: u64) -> [u64; 5] {
    let avg = THESIS_MEANS.iter().sum::<f64>() / THESIS_MEANS.len() as f64;
    THESIS_MEANS.map(|m| (mean_units as f64 * m / avg).round() as u64)
}

/// The description of `dist-d` in [`crate::registry::LOOP_APPS`].
pub static APP: LoopApp = LoopApp {
    name: "dist-d",
    options: &["--iterations", "--mean-units", "--seed"],
    default_steps: dist::DEFAULT_STEPS,
    input: Input::build,
};

/// One of Dist-D's loops: its distribution and its costs ([`dist::costs`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// The distribution of its iteration costs.
    pub dist: Dist,
    /// The cost of each iteration, in work units.
    pub costs: Vec<u64>,
    /// Their mean ([`loop_means`]).
    pub mean_units: u64,
}

/// What one loop of one time step measured, for the report.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Record {
    seconds: f64,
    chunks: u64,
    steals: u64,
    cov: f64,
}

impl From<&LoopStats> for Record {
    fn from(s: &LoopStats) -> Self {
        Record {
            seconds: s.time.as_secs_f64(),
            chunks: s.chunks,
            steals: s.steals,
            cov: s.cov(),
        }
    }
}

/// The loop handles of L1…L4 for the current run, and what each loop of each step measured.
#[derive(Debug, Default)]
struct Run {
    handles: Option<Arc<[Loop]>>,
    records: Vec<[Option<Record>; 5]>,
}

/// Dist-D's input in [`crate::registry`]: five loops ([`Part`]) and how they were drawn.
#[derive(Debug)]
pub struct Input {
    /// L0 … L4, in the order of [`DISTS`].
    pub parts: Vec<Part>,
    /// The average of the loops' mean iteration costs ([`loop_means`]).
    pub mean_units: u64,
    /// The seed (loop `Lk` draws its costs from `seed + k`).
    pub seed: u64,
    run: Mutex<Run>,
}

impl Input {
    /// The five loops of `n` iterations each, of the mean costs [`loop_means`]`(mean_units)`,
    /// loop `k` drawn from `seed + k`.
    ///
    /// ```
    /// use magpie_apps::dist_d::{loop_means, Input};
    /// let i = Input::new(3, 100, 1);
    /// assert_eq!(i.parts.len(), 5);
    /// assert_eq!(i.parts[0].costs, [57, 57, 57]);
    /// let want = magpie_apps::dist::costs(&i.parts[4].dist, 3, loop_means(100)[4], 1 + 4);
    /// assert_eq!(i.parts[4].costs, want);
    /// ```
    pub fn new(n: usize, mean_units: u64, seed: u64) -> Input {
        let means = loop_means(mean_units);
        let parts = DISTS
            .iter()
            .zip(0u64..)
            .map(|(name, k)| {
                let dist: Dist = name.parse().expect("the five names parse");
                Part {
                    costs: dist::costs(&dist, n, means[k as usize], seed.wrapping_add(k)),
                    dist,
                    mean_units: means[k as usize],
                }
            })
            .collect();
        Input {
            parts,
            mean_units,
            seed,
            run: Mutex::new(Run::default()),
        }
    }

    /// From `--seed` ([`crate::registry::DEFAULT_LOOP_SEED`]), `--iterations` per loop
    /// ([`dist::DEFAULT_ITERATIONS`]) and `--mean-units` ([`dist::DEFAULT_MEAN_UNITS`]).
    pub fn build(o: &LoopOptions) -> Result<Box<dyn LoopInput>, LoopError> {
        let seed = o.seed()?;
        let n = o.number(
            "--iterations",
            dist::DEFAULT_ITERATIONS,
            1,
            "the number of iterations",
        )?;
        let mean_units = o.number("--mean-units", dist::DEFAULT_MEAN_UNITS, 0, "the mean cost")?;
        crate::check_generated_size(
            "--iterations",
            &format!("5 loops of {n} iterations"),
            (n as u64).saturating_mul(DISTS.len() as u64),
            dist::BYTES_PER_ITERATION,
        )?;
        Ok(Box::new(Input::new(n, mean_units, seed)))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Run> {
        self.run.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The handles of L1…L4 for step `s` of a run under `schedule`: new ones at step 0 (a
    /// new run) or when the schedule changed, else the run's.
    fn handles(&self, s: usize, schedule: &Schedule) -> Arc<[Loop]> {
        let mut run = self.lock();
        let stale = match &run.handles {
            Some(h) => s == 0 || h[0].schedule() != schedule,
            None => true,
        };
        if stale {
            run.handles = Some(
                (1..DISTS.len())
                    .map(|_| Loop::new(schedule.clone()))
                    .collect(),
            );
            run.records.clear();
        }
        run.handles.clone().expect("set above")
    }

    fn record(&self, s: usize, k: usize, stats: Option<LoopStats>) {
        let mut run = self.lock();
        if run.records.len() <= s {
            run.records.resize(s + 1, [None; 5]);
        }
        run.records[s][k] = stats.as_ref().map(Record::from);
    }

    /// `f` of every loop's costs, in loop order, as the per-loop sums of an output.
    fn each_loop(&self, f: impl Fn(&[u64]) -> u64) -> LoopOutput {
        LoopOutput::Sums(self.parts.iter().map(|p| f(&p.costs)).collect())
    }
}

/// The per-loop sums of a step's output (empty for an output of another application).
fn sums(out: &LoopOutput) -> &[u64] {
    match out {
        LoopOutput::Sums(s) => s,
        _ => &[],
    }
}

/// Loop `k`'s wrapping sum over the steps `outs`.
fn loop_sum(outs: &[LoopOutput], k: usize) -> u64 {
    outs.iter().fold(0u64, |a, o| {
        a.wrapping_add(sums(o).get(k).copied().unwrap_or(0))
    })
}

impl LoopInput for Input {
    fn app(&self) -> &'static LoopApp {
        &APP
    }

    fn parameters(&self) -> Value {
        json!({"loops": DISTS, "iterations": self.parts[0].costs.len(),
               "mean_units": self.mean_units,
               "loop_mean_units": self.parts.iter().map(|p| p.mean_units).collect::<Vec<_>>(),
               "seed": self.seed})
    }

    /// L0 through `lp`, then L1…L4 through the run's own handles, each one call.
    fn step(&self, s: usize, lp: &Loop) -> LoopOutput {
        let handles = self.handles(s, lp.schedule());
        let out = self
            .parts
            .iter()
            .enumerate()
            .map(|(k, part)| {
                let h = if k == 0 { lp } else { &handles[k - 1] };
                let sum = dist::step(&part.costs, s, h);
                self.record(s, k, h.last_stats());
                sum
            })
            .collect();
        LoopOutput::Sums(out)
    }

    fn step_seq(&self, s: usize) -> LoopOutput {
        self.each_loop(|costs| dist::step_seq(costs, s))
    }

    /// The steps differ: every loop's [`dist::run_seq`] sum over them.
    fn reference(&self, steps: usize) -> LoopOutput {
        self.each_loop(|costs| dist::run_seq(costs, steps))
    }

    /// Every loop's wrapping sum over the steps against the reference's; the first loop that
    /// differs is named.
    fn check_with(&self, want: &LoopOutput, outs: &[LoopOutput]) -> Result<&'static str, String> {
        let want = sums(want);
        for (k, part) in self.parts.iter().enumerate() {
            let (got, w) = (loop_sum(outs, k), want.get(k).copied().unwrap_or(0));
            if got != w {
                return Err(format!(
                    "dist-d loop L{k} ({}): the steps sum to {got:#018x}, the sequential run \
                     to {w:#018x}",
                    part.dist
                ));
            }
        }
        Ok("each loop's sum equals the sequential run's (dist::run_seq)")
    }

    /// Per loop: its distribution, its wrapping sum over the steps, and — for steps run in
    /// parallel — its time (total and per step), chunks and steals, and its last c.o.v.
    fn report(&self, outs: &[LoopOutput]) -> LoopReport {
        let run = self.lock();
        let records = &run.records[..run.records.len().min(outs.len())];
        let loops: Vec<Value> = self
            .parts
            .iter()
            .enumerate()
            .map(|(k, part)| {
                let mine: Vec<Record> = records.iter().filter_map(|r| r[k]).collect();
                json!({
                    "loop": format!("L{k}"),
                    "dist": part.dist.to_string(),
                    "mean_units": part.mean_units,
                    "sum": loop_sum(outs, k),
                    "seconds": mine.iter().map(|r| r.seconds).sum::<f64>(),
                    "step_seconds": mine.iter().map(|r| r.seconds).collect::<Vec<_>>(),
                    "chunks": mine.iter().map(|r| r.chunks).sum::<u64>(),
                    "steals": mine.iter().map(|r| r.steals).sum::<u64>(),
                    "last_cov": mine.last().map(|r| r.cov),
                })
            })
            .collect();
        let all: Vec<u64> = (0..self.parts.len()).map(|k| loop_sum(outs, k)).collect();
        let sum = fnv64(all.iter().copied());
        LoopReport::new(
            json!({"sum": sum, "loops": loops}),
            format!("sums {sum:#018x} (fnv of the 5 loops' sums)"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use magpie::ThreadPoolBuilder;

    fn input(n: usize) -> Input {
        Input::new(n, 20, 11)
    }

    #[test]
    fn five_loops_of_the_five_distributions() {
        let i = input(2000);
        let names: Vec<String> = i.parts.iter().map(|p| p.dist.to_string()).collect();
        assert_eq!(
            names,
            [
                "constant",
                "uniform:spread=1",
                "normal:cv=0.0737",
                "exponential",
                "gamma:k=2"
            ]
        );
        // 20 · (2.3, 3.5, 9.5, 3, 2) / 4.06 = 11.3, 17.2, 46.8, 14.8, 9.9.
        assert_eq!(loop_means(20), [11, 17, 47, 15, 10]);
        // Loop k's costs are dist's for its mean and seed + k.
        for (k, p) in i.parts.iter().enumerate() {
            let m = loop_means(20)[k];
            assert_eq!(p.mean_units, m);
            assert_eq!(p.costs, dist::costs(&p.dist, 2000, m, 11 + k as u64));
        }
        // A step's sums are dist's step sums of each loop.
        let LoopOutput::Sums(s) = i.step_seq(3) else {
            unreachable!()
        };
        let want: Vec<u64> = i
            .parts
            .iter()
            .map(|p| dist::step_seq(&p.costs, 3))
            .collect();
        assert_eq!(s, want);
        assert_eq!(s[0], dist::step_seq(&[11; 2000], 3));
    }

    /// The parallel steps equal the sequential ones on 1, 2 and 4 workers under several
    /// schedules, and the check accepts them; L0 ran through the caller's handle, each loop
    /// once per step.
    #[test]
    fn parallel_steps_equal_sequential_ones() {
        let i = input(3000);
        for workers in [1, 2, 4] {
            let pool = ThreadPoolBuilder::new()
                .num_workers(workers)
                .build()
                .unwrap();
            for spec in [
                "static",
                "ss,7",
                "gss",
                "tss,50:5",
                "fac2",
                "mfac",
                "fac",
                "awf-b",
                "af",
                "rws",
                "auto",
                "expert-sel",
            ] {
                let lp = Loop::new(spec.parse().unwrap());
                let outs: Vec<LoopOutput> =
                    (0..3).map(|s| pool.install(|| i.step(s, &lp))).collect();
                for (s, o) in outs.iter().enumerate() {
                    assert_eq!(*o, i.step_seq(s), "{spec} on {workers}: step {s}");
                }
                assert!(i.check(&outs).is_ok(), "{spec} on {workers}");
                assert_eq!(lp.calls(), 3, "{spec}");
                let r = i.report(&outs).result;
                for k in 0..5 {
                    let l = &r["loops"][k];
                    assert_eq!(l["step_seconds"].as_array().unwrap().len(), 3, "{spec}");
                    assert!(l["chunks"].as_u64().unwrap() >= 3, "{spec}: {l}");
                    assert_eq!(l["sum"], json!(loop_sum(&outs, k)));
                }
            }
        }
    }

    #[test]
    fn a_wrong_loop_sum_is_named() {
        let i = input(100);
        let mut outs: Vec<LoopOutput> = (0..2).map(|s| i.step_seq(s)).collect();
        assert_eq!(
            i.check(&outs),
            Ok("each loop's sum equals the sequential run's (dist::run_seq)")
        );
        if let LoopOutput::Sums(s) = &mut outs[1] {
            s[3] ^= 1;
        }
        let e = i.check(&outs).unwrap_err();
        assert!(
            e.starts_with("dist-d loop L3 (exponential): the steps sum to "),
            "{e}"
        );
        // The answer does not depend on the run: the sequential steps give it too.
        let seq: Vec<LoopOutput> = (0..2).map(|s| i.step_seq(s)).collect();
        assert_eq!(i.report(&seq).answer, i.report(&seq).answer);
        assert!(i.report(&seq).answer.starts_with("sums 0x"));
    }

    #[test]
    fn a_new_run_gets_new_handles() {
        let i = input(500);
        let pool = ThreadPoolBuilder::new().num_workers(2).build().unwrap();
        let lp = Loop::new("awf".parse().unwrap());
        for s in 0..2 {
            pool.install(|| i.step(s, &lp));
        }
        let first = i.handles(1, lp.schedule());
        assert_eq!(first[0].calls(), 2);
        // Step 0 again: a new run, whose loops start with no history.
        pool.install(|| i.step(0, &lp));
        assert_eq!(i.handles(1, lp.schedule())[0].calls(), 1);
        assert_eq!(i.lock().records.len(), 1);
    }
}
