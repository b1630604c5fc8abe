//! `speedup` (the best skeleton at 2 workers vs itself at 1, and vs the app's hand-written
//! sequential solver) and `peers` (magpie's best skeleton vs the same search on rayon, both
//! at 2 workers).

use super::cases::{each_case, Loaded, Solver};
use super::measure::{self, Contender, Job};
use super::{ratio_row, App, Report, Row, SearchArgs, Target};
use magpie::search::Skeleton;
use magpie::ThreadPool;
use magpie_apps::registry::{BenchCase, BenchQuery, Experiment};

/// The speedup target (1-worker median / 2-worker median) of a case that declares none.
pub const SPEEDUP_TARGET: f64 = 1.85;
/// Speedup target over the app's hand-written sequential solver (its median / the
/// skeleton's 2-worker median), on every app.
pub const HAND_WRITTEN_TARGET: f64 = 1.85;
/// Peers target (magpie median / rayon median).
pub const PEERS_TARGET: f64 = 0.95;

/// `peers`: seconds of back-to-back solves that make one sample.
const PEERS_SAMPLE: f64 = 0.25;

pub fn run_speedup(args: &SearchArgs, report: &mut Report) -> String {
    const EXP: &str = "speedup";
    let w = args.workers as usize;
    let pools = super::pool(args, 1).and_then(|p1| Ok((p1, super::pool(args, w)?)));
    let Some((p1, pw)) = report.or_error(EXP, pools) else {
        return String::new();
    };
    let query = BenchQuery::new(Experiment::Speedup, args.quick);
    each_case(
        report,
        (EXP, &args.items),
        &args.speedup_apps,
        &query,
        |report, l| speedup_item(args, report, l, (&p1, &pw)),
    );
    format!(
        "best skeleton at {w} workers vs itself at 1 and vs the app's hand-written sequential \
         solver (best = fastest of the screened candidates at {w} workers), median of {} \
         alternating runs; speedup = 1w / {w}w and hand-written / {w}w",
        args.runs
    )
}

/// Measures each candidate skeleton at `w` workers (`job` runs one on the `w`-worker pool)
/// and returns the fastest (no measurement when there is only one).
#[allow(clippy::too_many_arguments)]
pub(super) fn screen<'a>(
    args: &SearchArgs,
    report: &mut Report,
    exp: &str,
    app: App,
    instance: &str,
    candidates: &[Skeleton],
    w: usize,
    job: &impl Fn(Skeleton) -> Job<'a>,
) -> Result<Skeleton, String> {
    let mut candidates = candidates.to_vec();
    candidates.dedup();
    match candidates.as_slice() {
        [] => return Err("no skeleton to measure".into()),
        [only] => return Ok(*only),
        _ => {}
    }
    let mut cs: Vec<Contender> = candidates
        .iter()
        .map(|s| Contender::new(s.to_string(), w, job(*s)))
        .collect();
    let what = (exp, app, instance, "screening");
    let best = fastest(args, report, what, &mut cs)?;
    eprintln!(
        "{exp} {app} {instance}: best at {w} workers: {}",
        candidates[best]
    );
    Ok(candidates[best])
}

/// The speedup item of one case: the best skeleton (screened) at 1 and at the pools'
/// workers, the hand-written solver (if the case has one) and, for a case whose solves are
/// not long, that many copies of it at once.
fn speedup_item(
    args: &SearchArgs,
    report: &mut Report,
    loaded: &Loaded,
    (p1, pw): (&ThreadPool, &ThreadPool),
) -> Result<(), String> {
    const EXP: &str = "speedup";
    let (app, instance, case): (App, &str, &BenchCase) =
        (loaded.app, &loaded.case.label, &loaded.case);
    let w = pw.num_workers();
    let candidates = if case.long {
        &args.long_skeletons
    } else {
        &args.skeletons
    };
    let job = |s| loaded.job(s);
    let on_pw = |sk| job(Solver::Skeleton(pw, sk));
    let best = screen(args, report, EXP, app, instance, candidates, w, &on_pw)?;
    let what = format!("{EXP} {app} {instance}");
    let hand = loaded.hand_written_solver();
    let hand_written = hand.as_ref().map(|h| h.name);
    // Two more long solves a run: not measured for long cases.
    let ceiling = hand.as_ref().filter(|_| !case.long).map(|h| {
        let solve = || {
            let _ = std::hint::black_box((h.solve)());
        };
        (h.name, solve)
    });
    let mut cs = vec![
        Contender::new(best.to_string(), 1, job(Solver::Skeleton(p1, best))),
        Contender::new(best.to_string(), w, job(Solver::Skeleton(pw, best))),
    ];
    if let Some(name) = hand_written {
        cs.push(Contender::new(name, 1, job(Solver::HandWritten)));
    }
    if let Some((name, solve)) = &ceiling {
        cs.push(Contender::new(
            format!("{name} x{w} at once"),
            w,
            move || Ok(copies_at_once(solve, w)),
        ));
    }
    if case.long {
        eprintln!("{what}: one 1-worker run ({best}) first, to size the item…");
        let s = (cs[0].job)().map_err(|e| format!("{what}, {best} (1 worker): {e}"))?;
        let t1 = s.time.as_secs_f64();
        let more1 = if s.time > measure::WARMUP_LIMIT {
            args.runs - 1
        } else {
            args.runs
        };
        // Expected 2-worker runs: warm-up (if under the limit) + runs, at ~1.8x; the
        // hand-written solver's about as many runs as the 1-worker skeleton's, at ~t1.
        let tw = t1 / 1.8;
        let morew = args.runs + u32::from(tw <= measure::WARMUP_LIMIT.as_secs_f64());
        let moreh = args.runs + u32::from(t1 <= measure::WARMUP_LIMIT.as_secs_f64());
        eprintln!(
            "{what}: one 1-worker run took {t1:.1} s; the rest of this item should take about \
             {:.0} s",
            f64::from(more1 + moreh) * t1 + f64::from(morew) * tw
        );
        measure::keep_first(&mut cs[0], s);
    }
    measure::measure(&what, &mut cs, args.runs, args.progress())?;
    for (i, c) in cs.iter().enumerate() {
        let mut row = c.row(EXP, app.name(), instance);
        // The hand-written solver: what `hand-written / Ww` divides by.
        row.baseline = i == 2 && hand_written.is_some();
        report.push(row);
    }
    // One ratio row: contender `num`'s median over contender `den`'s.
    let ratio = |config: String, num: usize, den: usize, target: Option<Target>| {
        let row = Row::new(EXP, app.name(), instance, &config, w);
        ratio_row(
            row,
            measure::median(&cs[num]),
            measure::median(&cs[den]),
            target,
        )
    };
    let target = case.target.unwrap_or(SPEEDUP_TARGET);
    report.push(ratio(
        format!("speedup {best} 1w / {w}w"),
        0,
        1,
        Some(Target::AtLeast(target)),
    ));
    if let Some(name) = hand_written {
        report.push(ratio(
            format!("speedup {name} / {best} {w}w"),
            2,
            1,
            Some(Target::AtLeast(HAND_WRITTEN_TARGET)),
        ));
    }
    if let Some((name, _)) = &ceiling {
        report.push(ratio(format!("ceiling {name} / x{w} at once"), 2, 3, None));
    }
    Ok(())
}

/// The first of `candidates` (`dbs:2` if there is none): the skeleton of a probe.
pub(super) fn first_candidate(candidates: &[Skeleton]) -> Skeleton {
    candidates
        .first()
        .copied()
        .unwrap_or(Skeleton::DepthBounded { spawn_depth: 2 })
}

/// Measures the rayon peer at each spawn depth (on a `w`-thread pool) and returns the
/// fastest depth (no measurement when there is only one).
#[allow(clippy::too_many_arguments)]
pub(super) fn screen_depth<'a>(
    args: &SearchArgs,
    report: &mut Report,
    exp: &str,
    app: App,
    instance: &str,
    depths: &[usize],
    w: usize,
    rayon_job: impl Fn(usize) -> Job<'a>,
) -> Result<usize, String> {
    match depths {
        [] => return Err("no rayon spawn depth to measure".into()),
        [only] => return Ok(*only),
        _ => {}
    }
    let mut cs: Vec<Contender> = depths
        .iter()
        .map(|&d| Contender::new(format!("rayon d={d}"), w, rayon_job(d)))
        .collect();
    let what = (exp, app, instance, "rayon screening");
    Ok(depths[fastest(args, report, what, &mut cs)?])
}

/// Measures screening candidates (`what`: experiment, app, instance, and the label of the
/// measurement), reports each as a `(screening)` row, and returns the fastest one's index.
fn fastest(
    args: &SearchArgs,
    report: &mut Report,
    (exp, app, instance, label): (&str, App, &str, &str),
    cs: &mut [Contender<'_>],
) -> Result<usize, String> {
    measure::measure(
        &format!("{exp} {app} {instance} ({label})"),
        cs,
        args.runs,
        args.progress(),
    )?;
    let mut best = 0;
    for (i, c) in cs.iter().enumerate() {
        let mut row = c.row(exp, app.name(), instance);
        row.config = format!("{} (screening)", c.config);
        report.push(row);
        if measure::median(c) < measure::median(&cs[best]) {
            best = i;
        }
    }
    Ok(best)
}

/// The best a `w`-worker search can do on this machine now: `w` copies of the hand-written
/// solver run at once, one a thread, each timed. A perfectly balanced search keeps every
/// core busy to the end, so it solves at the sum of the copies' rates; the sample's time is
/// one solve at that rate, `1 / Σ 1/tᵢ`. The hand-written solver's time over it (the
/// `ceiling` row) is the speedup a perfect search would reach: below `w` where the cores slow
/// each other down (shared caches and memory bandwidth, a hypervisor's other guests).
fn copies_at_once(solve: &(dyn Fn() + Sync), w: usize) -> measure::Sample {
    let timed = || {
        let t = std::time::Instant::now();
        solve();
        t.elapsed().as_secs_f64()
    };
    let times: Vec<f64> = std::thread::scope(|s| {
        let others: Vec<_> = (1..w).map(|_| s.spawn(timed)).collect();
        let mine = timed();
        others
            .into_iter()
            .map(|h| {
                h.join()
                    .expect("a copy of the hand-written solver panicked")
            })
            .chain([mine])
            .collect()
    });
    let rate: f64 = times.iter().map(|t| 1.0 / t).sum();
    measure::Sample::new(std::time::Duration::from_secs_f64(1.0 / rate), None)
}

pub fn run_peers(args: &SearchArgs, report: &mut Report) -> String {
    const EXP: &str = "peers";
    let w = args.workers as usize;
    let pools = super::pool(args, w).and_then(|pw| Ok((pw, super::rayon_pool(w)?)));
    let Some((pw, rp)) = report.or_error(EXP, pools) else {
        return String::new();
    };
    let query = BenchQuery::new(Experiment::Peers, args.quick);
    each_case(report, (EXP, &[]), &args.peers_apps, &query, |report, l| {
        peers_item(args, report, l, &pw, &rp)
    });
    format!(
        "magpie's best skeleton vs rayon (best spawn depth), both at {w} workers, median of {} \
         alternating runs, each the mean of back-to-back solves (about {PEERS_SAMPLE} s); target \
         magpie/rayon <= {PEERS_TARGET:.2}",
        args.runs
    )
}

/// The peers item of one case: magpie's best skeleton vs the case's rayon peer at its best
/// spawn depth (`--rayon-depths`, else the case's), both screened.
fn peers_item(
    args: &SearchArgs,
    report: &mut Report,
    loaded: &Loaded,
    pw: &ThreadPool,
    rp: &rayon::ThreadPool,
) -> Result<(), String> {
    const EXP: &str = "peers";
    let (app, instance): (App, &str) = (loaded.app, &loaded.case.label);
    let w = pw.num_workers();
    let mut depths = args
        .rayon_depths
        .clone()
        .unwrap_or_else(|| loaded.case.rayon_depths.to_vec());
    depths.dedup();
    // Every sample is the mean of back-to-back solves of about PEERS_SAMPLE seconds (sized by
    // one rayon solve): single solves of a few milliseconds (brock200_2 takes 1 ms) swing
    // with a timer tick or a worker's wake-up.
    let Some(&first) = depths.first() else {
        return Err("no rayon spawn depth to measure".into());
    };
    // The application's checked answer first (one solve with the first candidate), which
    // the rayon peer's must equal.
    loaded.ensure_answer(Solver::Skeleton(pw, first_candidate(&args.skeletons)))?;
    let reps = measure::reps_for(PEERS_SAMPLE, loaded.run(Solver::Rayon(rp, first))?.time);
    let job = |s| measure::repeated_parallel(reps, loaded.job(s));
    let rayon_job = |d| measure::repeated_parallel(reps, loaded.job(Solver::Rayon(rp, d)));
    let on_pw = |sk| job(Solver::Skeleton(pw, sk));
    let best = screen(args, report, EXP, app, instance, &args.skeletons, w, &on_pw)?;
    let depth = screen_depth(args, report, EXP, app, instance, &depths, w, rayon_job)?;
    let what = format!("{EXP} {app} {instance}");
    let mut cs = vec![
        Contender::new(format!("magpie {best}"), w, job(Solver::Skeleton(pw, best))),
        Contender::new(format!("rayon d={depth}"), w, rayon_job(depth)),
    ];
    measure::measure(&what, &mut cs, args.runs, args.progress())?;
    for c in &cs {
        let mut row = c.row(EXP, app.name(), instance);
        if reps > 1 {
            row.add_note(&format!("mean of {reps} solves a run"));
        }
        report.push(row);
    }
    report.push(ratio_row(
        Row::new(EXP, app.name(), instance, "magpie / rayon", w),
        measure::median(&cs[0]),
        measure::median(&cs[1]),
        Some(Target::AtMost(PEERS_TARGET)),
    ));
    Ok(())
}
