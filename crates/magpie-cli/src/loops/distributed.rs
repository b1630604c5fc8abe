//! `magpie loop dist|mandelbrot … --distributed` under `mpirun`: the loop application over
//! every rank of the job with [`magpie_mpi::loops`]: LB4MPI work sharing (`--mode share`, data
//! replicated, rank 0 hands out chunks by `--schedule`) or LB4MPI-WS work stealing (`--mode
//! steal`, each rank holds only its block's data; `--steal-amount`, `--remote-victims`,
//! `--data`; `--schedule` is then the local schedule within a rank).
//!
//! Every rank parses the same arguments (so a bad one fails on every rank, and rank 0 alone
//! prints the one error line) and builds its own pool from the global options. Each time
//! step is one distributed loop; the ranks' results of their blocks are gathered on rank 0,
//! which checks them against the sequential version and prints the report.
//!
//! Dist: the costs are generated from the seed on every rank (the generator is sequential),
//! then a rank keeps only its block (steal mode; rank 0 keeps the whole array for the check
//! only). Mandelbrot: an iteration's datum is its pixel's point `c`.

use std::fmt::Display;
use std::ops::Range;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use magpie::loops::{ScheduleError, StealAmount};
use magpie_apps::registry::{LoopInput, LoopOutput};
use magpie_apps::{dist, mandelbrot};
use magpie_measure::stats::cov;
use magpie_mpi::loops::{
    block_of, gather, DataDescription, DataSerializer, DistributedLoop, FromBytes, Mode, Options,
    RankLoopStats, StepResult, ToBytes, Victims,
};
use magpie_mpi::Cluster;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

use super::{prepare, usage, LoopArgs, Prepared};
use crate::config::Config;
use crate::error::Failure;
use crate::search::distributed::{injected_failure, kill_self, InjectedFailure, FAIL_RANK_ENV};
use crate::stop::{Status, Stop};

/// The share-mode schedule without `--schedule`.
pub const DEFAULT_SHARE_SCHEDULE: &str = "fac2";
/// The factor of `--hot-block`.
pub const HOT_FACTOR: u64 = 8;
/// The accepted `--data` names.
pub const DATA_NAMES: [&str; 3] = ["one-to-one", "range", "serialize"];

/// Runs the distributed loop on this rank; the exit code of this process (errors printed by
/// rank 0 only: every rank meets the same bad input).
pub fn run(args: &LoopArgs, config: &Config) -> ExitCode {
    let cluster = match crate::search::distributed::start_cluster() {
        Ok(c) => c,
        Err(code) => return code,
    };
    let rank = cluster.rank();
    crate::search::distributed::exit_code(run_loop(&cluster, args, config), rank)
}

/// The parsed distributed options.
struct Distributed {
    options: Options,
    data: &'static str,
    hot_block: Option<usize>,
}

fn parse_options(args: &LoopArgs, app: &str, ranks: usize) -> Result<Distributed, Failure> {
    if args.stats {
        return usage(
            "--stats applies to a local run; --distributed prints each rank's figures in its \
             table",
        );
    }
    let mode: Mode = match &args.mode {
        Some(m) => m
            .parse()
            .map_err(|e: magpie_mpi::Error| Failure::Usage(format!("--mode: {e}")))?,
        None => Mode::default(),
    };
    if mode == Mode::Share {
        for (flag, given) in [
            ("--steal-amount", args.steal_amount.is_some()),
            ("--remote-victims", args.remote_victims.is_some()),
            ("--data", args.data.is_some()),
        ] {
            if given {
                return usage(format!("{flag} applies to --mode steal only"));
            }
        }
    }
    let steal: StealAmount = match &args.steal_amount {
        Some(s) => s
            .parse()
            .map_err(|e: ScheduleError| Failure::Usage(format!("--steal-amount: {e}")))?,
        None => StealAmount::default(),
    };
    let victims: Victims = match &args.remote_victims {
        Some(s) => s
            .parse()
            .map_err(|e: magpie_mpi::Error| Failure::Usage(format!("--remote-victims: {e}")))?,
        None => Victims::default(),
    };
    let data = match args.data.as_deref().map(str::trim) {
        None => DATA_NAMES[0],
        Some(d) => DATA_NAMES
            .iter()
            .find(|n| n.eq_ignore_ascii_case(d))
            .copied()
            .ok_or_else(|| {
                Failure::Usage(format!(
                    "--data: unknown data description {d:?}; expected one of {}",
                    DATA_NAMES.join(", ")
                ))
            })?,
    };
    let default_schedule = match mode {
        Mode::Share => DEFAULT_SHARE_SCHEDULE,
        Mode::Steal => super::DEFAULT_SCHEDULE,
    };
    let schedule = super::parse_schedule(
        "--schedule",
        args.schedule.as_deref().unwrap_or(default_schedule),
    )?;
    let hot_block = match &args.hot_block {
        None => None,
        Some(_) if app != "dist" => {
            return usage(format!("--hot-block applies to dist only, not to {app}"))
        }
        Some(v) => {
            let r: usize = crate::error::number("--hot-block", v, 0, "a rank")?;
            if r >= ranks {
                return usage(format!(
                    "--hot-block {r}: the job has ranks 0..{} only",
                    ranks.saturating_sub(1)
                ));
            }
            Some(r)
        }
    };
    let options = Options {
        mode,
        schedule,
        steal,
        victims,
        ..Options::default()
    };
    Ok(Distributed {
        options,
        data,
        hot_block,
    })
}

/// `range`: dist's costs as packed little-endian words.
fn costs_to_bytes(_: Range<usize>, items: &[u64]) -> Vec<u8> {
    items.iter().flat_map(|c| c.to_le_bytes()).collect()
}

fn costs_from_bytes(_: Range<usize>, bytes: &[u8]) -> Result<Vec<u64>, magpie_mpi::Error> {
    if !bytes.len().is_multiple_of(8) {
        return Err(magpie_mpi::Error::Data(format!(
            "{} bytes is not a number of words",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(8)
        .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
        .collect())
}

/// `serialize`: dist's costs as LEB128 variable-length integers (a user codec: small costs
/// take one or two bytes instead of eight).
struct Varints;

/// The [`DataDescription`] that `--data` names (`range`: by `to_bytes` and `from_bytes`,
/// `serialize`: by `serializer`, else one-to-one).
fn description<'a, T>(
    data: &str,
    to_bytes: ToBytes<T>,
    from_bytes: FromBytes<T>,
    serializer: &'a dyn DataSerializer<T>,
) -> DataDescription<'a, T> {
    match data {
        "range" => DataDescription::Range {
            to_bytes,
            from_bytes,
        },
        "serialize" => DataDescription::Serialize(serializer),
        _ => DataDescription::OneToOne,
    }
}

impl DataSerializer<u64> for Varints {
    fn serialize(&self, _: Range<usize>, items: &[u64]) -> Vec<u8> {
        let mut out = Vec::with_capacity(items.len() * 2);
        for &c in items {
            let mut x = c;
            loop {
                let b = (x & 0x7f) as u8;
                x >>= 7;
                if x == 0 {
                    out.push(b);
                    break;
                }
                out.push(b | 0x80);
            }
        }
        out
    }

    fn deserialize(
        &self,
        range: Range<usize>,
        bytes: &[u8],
    ) -> Result<Vec<u64>, magpie_mpi::Error> {
        let mut out = Vec::with_capacity(range.len());
        let (mut x, mut shift) = (0u64, 0u32);
        for &b in bytes {
            if shift >= 64 {
                return Err(magpie_mpi::Error::Data(
                    "a varint longer than 64 bits".into(),
                ));
            }
            x |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                out.push(x);
                (x, shift) = (0, 0);
            } else {
                shift += 7;
            }
        }
        if shift != 0 {
            return Err(magpie_mpi::Error::Data("a truncated varint".into()));
        }
        Ok(out)
    }
}

/// `range`: Mandelbrot points as packed little-endian `f64` pairs.
fn points_to_bytes(_: Range<usize>, items: &[(f64, f64)]) -> Vec<u8> {
    items
        .iter()
        .flat_map(|(re, im)| re.to_le_bytes().into_iter().chain(im.to_le_bytes()))
        .collect()
}

fn points_from_bytes(_: Range<usize>, bytes: &[u8]) -> Result<Vec<(f64, f64)>, magpie_mpi::Error> {
    if !bytes.len().is_multiple_of(16) {
        return Err(magpie_mpi::Error::Data(format!(
            "{} bytes is not a number of points",
            bytes.len()
        )));
    }
    let f = |b: &[u8]| f64::from_le_bytes(b.try_into().expect("8 bytes"));
    Ok(bytes
        .chunks_exact(16)
        .map(|p| (f(&p[..8]), f(&p[8..])))
        .collect())
}

/// `serialize`: Mandelbrot points are a function of the pixel index, so the serializer sends
/// nothing and the thief recomputes them from the range and the image's parameters (the
/// "data" of an iteration range described by the range alone).
struct Points(mandelbrot::Params);

impl DataSerializer<(f64, f64)> for Points {
    fn serialize(&self, _: Range<usize>, _: &[(f64, f64)]) -> Vec<u8> {
        Vec::new()
    }

    fn deserialize(
        &self,
        range: Range<usize>,
        bytes: &[u8],
    ) -> Result<Vec<(f64, f64)>, magpie_mpi::Error> {
        if !bytes.is_empty() {
            return Err(magpie_mpi::Error::Data(format!(
                "{} unexpected bytes",
                bytes.len()
            )));
        }
        Ok(range.map(|i| self.0.point(i)).collect())
    }
}

/// One rank's row of the report (sums over the steps).
#[derive(Debug, Serialize)]
struct RankRow {
    rank: i32,
    workers: usize,
    iterations: u64,
    chunks: u64,
    requests_sent: u64,
    requests_received: u64,
    steals_ok: u64,
    steals_failed: u64,
    iterations_sent: u64,
    iterations_received: u64,
    bytes_sent: u64,
    bytes_received: u64,
    busy_s: f64,
    idle_s: f64,
    finish_s: f64,
}

impl From<&RankLoopStats> for RankRow {
    fn from(s: &RankLoopStats) -> Self {
        RankRow {
            rank: s.rank,
            workers: s.workers,
            iterations: s.iterations,
            chunks: s.chunks,
            requests_sent: s.requests_sent,
            requests_received: s.requests_received,
            steals_ok: s.steals_ok,
            steals_failed: s.steals_failed,
            iterations_sent: s.iterations_sent,
            iterations_received: s.iterations_received,
            bytes_sent: s.bytes_sent,
            bytes_received: s.bytes_received,
            busy_s: s.busy.as_secs_f64(),
            idle_s: s.idle.as_secs_f64(),
            finish_s: s.finish.as_secs_f64(),
        }
    }
}

/// What the steps gave rank 0.
struct Steps {
    /// Whole loop time (the steps' distributed loops, without gathering and checking).
    time: Duration,
    per_step: Vec<f64>,
    ranks: Vec<RankLoopStats>,
}

impl Steps {
    fn new() -> Self {
        Steps {
            time: Duration::ZERO,
            per_step: Vec::new(),
            ranks: Vec::new(),
        }
    }

    fn add(&mut self, time: Duration, ranks: Option<Vec<RankLoopStats>>) {
        self.time += time;
        self.per_step.push(time.as_secs_f64());
        if let Some(rs) = ranks {
            if self.ranks.is_empty() {
                self.ranks = rs;
            } else {
                for (total, s) in self.ranks.iter_mut().zip(&rs) {
                    total.add(s);
                }
            }
        }
    }

    /// Adds a step's time and statistics, and returns its results in iteration order on
    /// rank 0 (gathered from the ranks' blocks when stealing), `None` on the other ranks.
    fn step<R: Serialize + DeserializeOwned>(
        &mut self,
        cluster: &Cluster,
        steal: bool,
        out: StepResult<R>,
    ) -> Option<Vec<R>> {
        self.add(out.time, out.ranks);
        if steal {
            gather(cluster, out.block, out.results)
        } else {
            (cluster.rank() == 0).then_some(out.results)
        }
    }
}

fn run_loop(cluster: &Cluster, args: &LoopArgs, config: &Config) -> Result<(), Failure> {
    crate::search::distributed::check_job_threads(cluster, config)?;
    let app = args.app.trim();
    if app != "dist" && app != "mandelbrot" {
        if super::APPS.contains(&app) {
            return usage(format!(
                "--distributed runs the dist and mandelbrot loops; {app} is not distributed"
            ));
        }
        // An unknown application: prepare's message.
        prepare(args)?;
    }
    let (rank, size) = (cluster.rank(), cluster.size());
    let d = parse_options(args, app, size as usize)?;
    let prepared = prepare(args)?;
    let mut lp = DistributedLoop::new(d.options.clone())
        .map_err(|e| Failure::Usage(format!("--schedule: {e}")))?;
    let deque = config.deque.value;
    let workers = config.workers.value;
    let pool = config.build(deque, workers)?;
    if let Some(w) = cluster.binding_warning(workers) {
        eprintln!("{w}");
    }
    let Prepared {
        input,
        params,
        steps,
        check,
        ..
    } = prepared;
    let steal = d.options.mode == Mode::Steal;
    let mut record = Steps::new();
    // Rank 0 decides before each step whether to go on (its time limit, a signal there).
    let stop = Stop::from_flag(args.time_limit.as_deref(), rank == 0)?;
    // Every rank records the time steps (a collective call; rank 0 writes the file).
    let mut tracing = crate::trace::distributed::start(args.trace.as_deref(), cluster, &pool)?;
    // The time steps run (all of them unless stopped).
    let mut done = 0;
    // Fault injection for the tests of failure behaviour (FAIL_RANK_ENV): rank R's workers
    // panic in their first iteration (on a worker thread, not the MPI thread), or with
    // `R:kill` the rank dies of SIGKILL at its 100th iteration.
    let fault = injected_failure(rank);
    let iterations_here = AtomicU64::new(0);
    let injected = |i: usize| match fault {
        InjectedFailure::None => {}
        InjectedFailure::Kill => {
            if iterations_here.fetch_add(1, Ordering::Relaxed) == 99 {
                kill_self();
            }
        }
        InjectedFailure::MainThread | InjectedFailure::Worker => {
            panic!("failure injected by {FAIL_RANK_ENV}={rank} in iteration {i}")
        }
    };
    let (result, answer, what) = match input.downcast::<dist::Input>() {
        Ok(dist_input) => {
            let mut costs = dist_input.costs;
            let n = costs.len();
            if let Some(r) = d.hot_block {
                for c in &mut costs[block_of(n, size as usize, r)] {
                    *c *= HOT_FACTOR;
                }
            }
            // Steal mode: this rank's block only (rank 0 keeps everything for the check).
            let block = if steal {
                block_of(n, size as usize, rank as usize)
            } else {
                0..n
            };
            let mine: Vec<u64> = costs[block.clone()].to_vec();
            if rank != 0 {
                costs = Vec::new();
            }
            let varints = Varints;
            let description = description(d.data, costs_to_bytes, costs_from_bytes, &varints);
            let mut sum = 0u64;
            let mut mismatch: Option<String> = None;
            for s in 0..steps {
                if s > 0 && !cluster.rank0_decides(|| stop.check() == Status::Complete) {
                    break;
                }
                done = s + 1;
                let out = lp.run(cluster, &pool, n, &mine, &description, |i, &c| {
                    injected(i);
                    dist::work(c, dist::iteration_seed(s, i))
                });
                let all = record.step(cluster, steal, out);
                if let Some(all) = all {
                    sum = all.iter().fold(sum, |a, &x| a.wrapping_add(x));
                    if check && mismatch.is_none() {
                        mismatch = all
                            .iter()
                            .enumerate()
                            .find(|&(i, &x)| x != dist::work(costs[i], dist::iteration_seed(s, i)))
                            .map(|(i, x)| {
                                format!(
                                    "dist step {}: iteration {i}'s result {x:#018x} differs from \
                                     the sequential one",
                                    s + 1
                                )
                            });
                    }
                }
            }
            crate::trace::distributed::finish(tracing.take(), cluster, &pool)?;
            if rank != 0 {
                return Ok(());
            }
            let what = if check {
                if let Some(m) = mismatch {
                    return Err(Failure::Check(m));
                }
                let want = dist::run_seq(&costs, done);
                if sum != want {
                    return Err(Failure::Check(format!(
                        "dist: the steps sum to {sum:#018x}, the sequential run to {want:#018x}"
                    )));
                }
                Some(
                    "every iteration's result, gathered from its owner, equals the sequential \
                     one; the sum equals dist::run_seq's"
                        .to_string(),
                )
            } else {
                None
            };
            (json!({"sum": sum}), format!("sum {sum:#018x}"), what)
        }
        Err(input) => {
            let m = input
                .downcast_ref::<mandelbrot::Input>()
                .expect("only dist and mandelbrot get here");
            let p = m.params;
            let n = p.pixels();
            let block = if steal {
                block_of(n, size as usize, rank as usize)
            } else {
                0..n
            };
            let points: Vec<(f64, f64)> = block.map(|i| p.point(i)).collect();
            let rebuild = Points(p);
            let description = description(d.data, points_to_bytes, points_from_bytes, &rebuild);
            let mut last: Vec<u32> = Vec::new();
            let mut iterations = 0u64;
            let want = (check && rank == 0).then(|| mandelbrot::render_seq(&p));
            let mut mismatch: Option<String> = None;
            for s in 0..steps {
                if s > 0 && !cluster.rank0_decides(|| stop.check() == Status::Complete) {
                    break;
                }
                done = s + 1;
                let out = lp.run(cluster, &pool, n, &points, &description, |i, &(re, im)| {
                    injected(i);
                    mandelbrot::pixel(re, im, p.max_iter)
                });
                let all = record.step(cluster, steal, out);
                if let Some(image) = all {
                    iterations += image.iter().map(|&c| u64::from(c)).sum::<u64>();
                    if let Some(w) = &want {
                        if mismatch.is_none() && image != *w {
                            mismatch = Some(format!(
                                "mandelbrot step {}: checksum {:#018x}; the sequential image's \
                                 is {:#018x}",
                                s + 1,
                                mandelbrot::checksum(&image),
                                mandelbrot::checksum(w)
                            ));
                        }
                    }
                    last = image;
                }
            }
            crate::trace::distributed::finish(tracing.take(), cluster, &pool)?;
            if rank != 0 {
                return Ok(());
            }
            if let Some(m) = mismatch {
                return Err(Failure::Check(m));
            }
            let checksum = mandelbrot::checksum(&last);
            m.write(&[LoopOutput::Image(last)])
                .map_err(|e| Failure::Usage(e.to_string()))?;
            let what = want.map(|_| {
                "every step's image, gathered from the pixels' owners, equals the sequential one \
                 (render_seq)"
                    .to_string()
            });
            (
                json!({"steps": done, "iterations": iterations, "checksum": checksum}),
                format!("iterations {iterations}, checksum {checksum:#018x}"),
                what,
            )
        }
    };
    let status = stop.reason();
    report(
        args,
        app,
        &params,
        &d,
        &lp,
        (steps, done, status),
        workers,
        &record,
        &result,
        &answer,
        what,
    )?;
    status.result()
}

#[allow(clippy::too_many_arguments)]
fn report(
    args: &LoopArgs,
    app: &str,
    params: &Value,
    d: &Distributed,
    lp: &DistributedLoop,
    (steps, done, status): (usize, usize, Status),
    workers: usize,
    record: &Steps,
    result: &Value,
    answer: &str,
    check: Option<String>,
) -> Result<(), Failure> {
    let o = lp.options();
    let steal = o.mode == Mode::Steal;
    let finish: Vec<f64> = record
        .ranks
        .iter()
        .map(|r| r.finish.as_secs_f64())
        .collect();
    let busy: Vec<f64> = record.ranks.iter().map(|r| r.busy.as_secs_f64()).collect();
    let (finish_cov, busy_cov) = (cov(&finish), cov(&busy));
    let rows: Vec<RankRow> = record.ranks.iter().map(RankRow::from).collect();
    let total = |f: fn(&RankLoopStats) -> u64| record.ranks.iter().map(f).sum::<u64>();
    let time = record.time.as_secs_f64();
    if args.json {
        let out = json!({
            "app": app,
            "params": params,
            "distributed": true,
            "mode": o.mode.to_string(),
            "victims": if steal { o.victims.to_string() } else { "none".to_string() },
            "steal_amount": steal.then(|| o.steal.to_string()),
            "data": steal.then_some(d.data),
            "schedule": o.schedule.to_string(),
            "hot_block": d.hot_block,
            "steps": steps,
            "steps_done": done,
            "status": status.name(),
            "workers": workers,
            "ranks_count": record.ranks.len(),
            "time_s": time,
            "mean_step_s": time / done.max(1) as f64,
            "per_step_s": record.per_step,
            "cov": finish_cov,
            "busy_cov": busy_cov,
            "iterations_run": total(|r| r.iterations),
            "steals_ok": total(|r| r.steals_ok),
            "result": result,
            "answer": answer,
            "check": check,
            "ranks": rows,
        });
        println!("{out}");
        return Ok(());
    }
    let line = |k: &str, v: &dyn Display| println!("{k:<12}{v}");
    let params = super::describe_params(params);
    line("app", &format!("{app} ({params})"));
    line("status", &status.name());
    if steal {
        line(
            "mode",
            &format!(
                "steal (LB4MPI-WS): amount {}, victims {}, data {}, local schedule {}",
                o.steal, o.victims, d.data, o.schedule
            ),
        );
    } else {
        line(
            "mode",
            &format!("share (LB4MPI): coordinator schedule {}", o.schedule),
        );
    }
    if let Some(r) = d.hot_block {
        line(
            "hot block",
            &format!("rank {r}'s iterations cost {HOT_FACTOR}x"),
        );
    }
    line(
        "ranks",
        &format!("{} × {workers} worker(s)", record.ranks.len()),
    );
    if done == steps {
        line("steps", &steps);
    } else {
        line("steps", &format!("{done} of {steps}"));
    }
    line("seconds", &format!("{time:.3}"));
    line("per step", &format!("{:.3}", time / done.max(1) as f64));
    println!(
        "{:>4} {:>10} {:>7} {:>7} {:>7} {:>6} {:>6} {:>9} {:>9} {:>10} {:>8} {:>8} {:>8}",
        "rank",
        "iters",
        "chunks",
        "req.out",
        "req.in",
        "ok",
        "fail",
        "it.sent",
        "it.recv",
        "bytes",
        "busy s",
        "idle s",
        "finish s"
    );
    for r in &record.ranks {
        println!(
            "{:>4} {:>10} {:>7} {:>7} {:>7} {:>6} {:>6} {:>9} {:>9} {:>10} {:>8.3} {:>8.3} {:>8.3}",
            r.rank,
            r.iterations,
            r.chunks,
            r.requests_sent,
            r.requests_received,
            r.steals_ok,
            r.steals_failed,
            r.iterations_sent,
            r.iterations_received,
            r.bytes_sent + r.bytes_received,
            r.busy.as_secs_f64(),
            r.idle.as_secs_f64(),
            r.finish.as_secs_f64()
        );
    }
    line(
        "c.o.v.",
        &format!("{finish_cov:.3} of the finishing times, {busy_cov:.3} of the busy times"),
    );
    line("result", &answer);
    match &check {
        Some(c) => line("check", &format!("ok: {c}")),
        None => line("check", &"skipped (--no-check)"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codecs_round_trip() {
        let costs = [0u64, 1, 127, 128, 300, u64::MAX];
        let v = Varints;
        assert_eq!(
            v.deserialize(0..6, &v.serialize(0..6, &costs)).unwrap(),
            costs
        );
        assert!(v.deserialize(0..1, &[0x80]).is_err());
        assert_eq!(
            costs_from_bytes(0..6, &costs_to_bytes(0..6, &costs)).unwrap(),
            costs
        );
        let pts = [(0.5, -1.25), (2.0, 3.0)];
        assert_eq!(
            points_from_bytes(0..2, &points_to_bytes(0..2, &pts)).unwrap(),
            pts
        );
        let p = mandelbrot::Params::new(4, 3, 10, 1).unwrap();
        let s = Points(p);
        assert!(s.serialize(2..5, &[]).is_empty());
        assert_eq!(
            s.deserialize(2..5, &[]).unwrap(),
            [p.point(2), p.point(3), p.point(4)]
        );
    }
}
