//! `speedup` (the best skeleton at 2 workers vs itself at 1, and vs the app's hand-written
//! sequential solver) and `peers` (magpie's best skeleton vs the same search on rayon, both
//! at 2 workers).

use super::instances::Clique;
use super::jobs::{self, Solver, UtsTree};
use super::measure::{self, Contender, Job};
use super::{ratio_row, rayon_impl, App, Report, Row, SearchArgs, Target};
use magpie::search::Skeleton;
use magpie::ThreadPool;
use magpie_apps::maxclique::CliqueSpace;
use magpie_apps::{nqueens, ns};

/// Speedup targets (1-worker median / 2-worker median).
pub const UTS_TARGET: f64 = 1.85;
pub const NS_TARGET: f64 = 1.85;
pub const CLIQUE_TARGET: f64 = 1.7;
pub const QUEENS_TARGET: f64 = 1.85;
/// Speedup target over the app's hand-written sequential solver (its median / the
/// skeleton's 2-worker median), on every app.
pub const HAND_WRITTEN_TARGET: f64 = 1.85;
/// Peers target (magpie median / rayon median).
pub const PEERS_TARGET: f64 = 0.95;

/// `peers`: seconds of back-to-back solves that make one sample.
const PEERS_SAMPLE: f64 = 0.25;

/// The small UTS tree of `--quick` (geometric, fixed shape, depth 8).
pub(super) const QUICK_UTS: &str = "-t 1 -a 3 -d 8 -b 4 -r 19";

fn uts_tree(quick: bool) -> Result<(String, UtsTree), String> {
    if quick {
        Ok(("T1 at depth 8".into(), UtsTree::load(QUICK_UTS)?))
    } else {
        Ok(("T1".into(), UtsTree::load("T1")?))
    }
}

pub fn run_speedup(args: &SearchArgs, report: &mut Report) -> String {
    const EXP: &str = "speedup";
    let w = args.workers as usize;
    let pools = super::pool(args, 1).and_then(|p1| Ok((p1, super::pool(args, w)?)));
    let (p1, pw) = match pools {
        Ok(p) => p,
        Err(e) => {
            report.error(EXP, "-", "-", e);
            return String::new();
        }
    };
    let mut apps = args.speedup_apps.clone();
    apps.dedup();
    for app in apps {
        match app.name() {
            "uts" => {
                let r = uts_tree(args.quick).and_then(|(label, tree)| {
                    let r = speedup_item(
                        args,
                        report,
                        app,
                        &label,
                        &args.skeletons,
                        (&p1, &pw),
                        |s| jobs::uts(&tree, s),
                        "uts::count",
                        Some(&|| {
                            std::hint::black_box(magpie_apps::uts::count(&tree.params));
                        }),
                        Target::AtLeast(UTS_TARGET),
                        false,
                    );
                    r.map_err(|e| format!("{label}: {e}"))
                });
                if let Err(e) = r {
                    report.error(EXP, app.name(), "-", e);
                }
            }
            "ns" => {
                let g = args.genus.unwrap_or(if args.quick { 26 } else { 34 });
                let hand_written = |t: &ns::Tree| {
                    std::hint::black_box(ns::count_by_genus(t.max_genus()));
                };
                one_instance(
                    args,
                    report,
                    (app, &format!("genus {g}")),
                    (&p1, &pw),
                    ns::Tree::new(g).map_err(|e| e.to_string()),
                    (jobs::ns, "ns::count_by_genus", hand_written),
                    NS_TARGET,
                );
            }
            "maxclique" => {
                let names = args.cliques.clone().unwrap_or_else(|| {
                    if args.quick {
                        vec!["brock200_1".into()]
                    } else {
                        vec!["brock400_1".into(), "brock400_3".into()]
                    }
                });
                for name in names {
                    let r = Clique::load(&name).and_then(|clq| {
                        let space = CliqueSpace::new(&clq.graph);
                        speedup_item(
                            args,
                            report,
                            app,
                            &name,
                            &args.clique_skeletons,
                            (&p1, &pw),
                            |s| jobs::maxclique(&clq, &space, s),
                            "max_clique_counted",
                            // Two more long solves a run: not measured.
                            None,
                            Target::AtLeast(CLIQUE_TARGET),
                            true,
                        )
                    });
                    if let Err(e) = r {
                        report.error(EXP, app.name(), &name, e);
                    }
                }
            }
            "nqueens" => {
                let n = if args.quick { 12 } else { 15 };
                let hand_written = |b: &nqueens::Board| {
                    std::hint::black_box(nqueens::count(b.n()));
                };
                one_instance(
                    args,
                    report,
                    (app, &format!("n = {n}")),
                    (&p1, &pw),
                    nqueens::Board::new(n).map_err(|e| e.to_string()),
                    (jobs::nqueens, "nqueens::count", hand_written),
                    QUEENS_TARGET,
                );
            }
            _ => report.skip(
                EXP,
                app,
                "no speedup workload or hand-written solver in the bench for this app",
            ),
        }
    }
    format!(
        "best skeleton at {w} workers vs itself at 1 and vs the app's hand-written sequential \
         solver (best = fastest of the screened candidates at {w} workers), median of {} \
         alternating runs; speedup = 1w / {w}w and hand-written / {w}w",
        args.runs
    )
}

/// The speedup item of an app measured on one instance, `loaded` (or the reason it could
/// not be): its `job`, its hand-written solver's name and one solve of it (for the copies
/// at once), and its target; a failure is an ERROR row under `label`.
fn one_instance<T: Sync>(
    args: &SearchArgs,
    report: &mut Report,
    (app, label): (App, &str),
    pools: (&ThreadPool, &ThreadPool),
    loaded: Result<T, String>,
    (job, hand_written, solve): (
        for<'b> fn(&'b T, Solver<'b>) -> Job<'b>,
        &str,
        impl Fn(&T) + Sync,
    ),
    target: f64,
) {
    let r = loaded.and_then(|inst| {
        speedup_item(
            args,
            report,
            app,
            label,
            &args.skeletons,
            pools,
            |s| job(&inst, s),
            hand_written,
            Some(&|| solve(&inst)),
            Target::AtLeast(target),
            false,
        )
    });
    if let Err(e) = r {
        report.error("speedup", app.name(), label, e);
    }
}

/// Measures each candidate at the pool's worker count and returns the fastest (no
/// measurement when there is only one).
#[allow(clippy::too_many_arguments)]
pub(super) fn screen<'a>(
    args: &SearchArgs,
    report: &mut Report,
    exp: &str,
    app: App,
    instance: &str,
    candidates: &[Skeleton],
    pool: &'a ThreadPool,
    job: &impl Fn(Solver<'a>) -> Job<'a>,
) -> Result<Skeleton, String> {
    let mut candidates = candidates.to_vec();
    candidates.dedup();
    match candidates.as_slice() {
        [] => return Err("no skeleton to measure".into()),
        [only] => return Ok(*only),
        _ => {}
    }
    let w = pool.num_workers();
    let mut cs: Vec<Contender> = candidates
        .iter()
        .map(|s| Contender::new(s.to_string(), w, job(Solver::Skeleton(pool, *s))))
        .collect();
    let what = (exp, app, instance, "screening");
    let best = fastest(args, report, what, &mut cs)?;
    eprintln!(
        "{exp} {app} {instance}: best at {w} workers: {}",
        candidates[best]
    );
    Ok(candidates[best])
}

#[allow(clippy::too_many_arguments)]
fn speedup_item<'a>(
    args: &SearchArgs,
    report: &mut Report,
    app: App,
    instance: &str,
    candidates: &[Skeleton],
    (p1, pw): (&'a ThreadPool, &'a ThreadPool),
    job: impl Fn(Solver<'a>) -> Job<'a>,
    hand_written: &str,
    ceiling: Option<&'a (dyn Fn() + Sync)>,
    target: Target,
    probe_first: bool,
) -> Result<(), String> {
    const EXP: &str = "speedup";
    let w = pw.num_workers();
    let best = screen(args, report, EXP, app, instance, candidates, pw, &job)?;
    let what = format!("{EXP} {app} {instance}");
    let mut cs = vec![
        Contender::new(best.to_string(), 1, job(Solver::Skeleton(p1, best))),
        Contender::new(best.to_string(), w, job(Solver::Skeleton(pw, best))),
        Contender::new(hand_written, 1, job(Solver::Reference)),
    ];
    if let Some(solve) = ceiling {
        cs.push(Contender::new(
            format!("{hand_written} x{w} at once"),
            w,
            move || Ok(copies_at_once(solve, w)),
        ));
    }
    if probe_first {
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
        row.baseline = i == 2;
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
    report.push(ratio(
        format!("speedup {best} 1w / {w}w"),
        0,
        1,
        Some(target),
    ));
    report.push(ratio(
        format!("speedup {hand_written} / {best} {w}w"),
        2,
        1,
        Some(Target::AtLeast(HAND_WRITTEN_TARGET)),
    ));
    if ceiling.is_some() {
        report.push(ratio(
            format!("ceiling {hand_written} / x{w} at once"),
            2,
            3,
            None,
        ));
    }
    Ok(())
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
    let (pw, rp) = match pools {
        Ok(p) => p,
        Err(e) => {
            report.error(EXP, "-", "-", e);
            return String::new();
        }
    };
    let mut apps = args.peers_apps.clone();
    apps.dedup();
    for app in apps {
        let r = match app.name() {
            "uts" => uts_tree(args.quick).and_then(|(label, tree)| {
                let depths = args.rayon_depths.clone().unwrap_or(vec![2, 4, 6]);
                peers_item(
                    args,
                    report,
                    app,
                    &label,
                    &pw,
                    |s| jobs::uts(&tree, s),
                    &depths,
                    |d| rayon_impl::uts(&tree, &rp, d as u32),
                )
                .map_err(|e| format!("{label}: {e}"))
            }),
            "nqueens" => {
                let n = if args.quick { 11 } else { 14 };
                nqueens::Board::new(n)
                    .map_err(|e| e.to_string())
                    .and_then(|board| {
                        let depths = args.rayon_depths.clone().unwrap_or(vec![2, 3, 4]);
                        peers_item(
                            args,
                            report,
                            app,
                            &format!("n = {n}"),
                            &pw,
                            |s| jobs::nqueens(&board, s),
                            &depths,
                            |d| rayon_impl::nqueens(n as u32, &rp, d),
                        )
                    })
                    .map_err(|e| format!("n = {n}: {e}"))
            }
            "ns" => {
                let g = if args.quick { 26 } else { 34 };
                ns::Tree::new(g)
                    .map_err(|e| e.to_string())
                    .and_then(|tree| {
                        let depths = args.rayon_depths.clone().unwrap_or(vec![8, 12, 16, 20]);
                        peers_item(
                            args,
                            report,
                            app,
                            &format!("genus {g}"),
                            &pw,
                            |s| jobs::ns(&tree, s),
                            &depths,
                            |d| rayon_impl::ns(&tree, &rp, d),
                        )
                    })
                    .map_err(|e| format!("genus {g}: {e}"))
            }
            "maxclique" => {
                let names: &[&str] = if args.quick {
                    &["brock200_4"]
                } else {
                    &["brock200_1", "brock200_2", "brock200_3", "brock200_4"]
                };
                for &name in names {
                    let r = Clique::load(name).and_then(|clq| {
                        let space = CliqueSpace::new(&clq.graph);
                        let depths = args.rayon_depths.clone().unwrap_or(vec![1, 2, 3]);
                        peers_item(
                            args,
                            report,
                            app,
                            name,
                            &pw,
                            |s| jobs::maxclique(&clq, &space, s),
                            &depths,
                            |d| rayon_impl::maxclique(&clq, &rp, d),
                        )
                    });
                    // One failed graph does not stop the others.
                    if let Err(e) = r {
                        report.error(EXP, app.name(), name, e);
                    }
                }
                Ok(())
            }
            _ => {
                report.skip(
                    EXP,
                    app,
                    "no peers workload or rayon peer in the bench for this app",
                );
                Ok(())
            }
        };
        if let Err(e) = r {
            report.error(EXP, app.name(), "-", e);
        }
    }
    format!(
        "magpie's best skeleton vs rayon (best spawn depth), both at {w} workers, median of {} \
         alternating runs, each the mean of back-to-back solves (about {PEERS_SAMPLE} s); target \
         magpie/rayon <= {PEERS_TARGET:.2}",
        args.runs
    )
}

#[allow(clippy::too_many_arguments)]
fn peers_item<'a>(
    args: &SearchArgs,
    report: &mut Report,
    app: App,
    instance: &str,
    pw: &'a ThreadPool,
    job: impl Fn(Solver<'a>) -> Job<'a>,
    rayon_depths: &[usize],
    rayon_job: impl Fn(usize) -> Job<'a>,
) -> Result<(), String> {
    const EXP: &str = "peers";
    let w = pw.num_workers();
    let mut depths = rayon_depths.to_vec();
    depths.dedup();
    // Every sample is the mean of back-to-back solves of about PEERS_SAMPLE seconds (sized by
    // one rayon solve): single solves of a few milliseconds (brock200_2 takes 1 ms) swing
    // with a timer tick or a worker's wake-up.
    let Some(&first) = depths.first() else {
        return Err("no rayon spawn depth to measure".into());
    };
    let reps = measure::reps_for(PEERS_SAMPLE, rayon_job(first)()?.time);
    let job = |s| measure::repeated_parallel(reps, job(s));
    let rayon_job = |d| measure::repeated_parallel(reps, rayon_job(d));
    let best = screen(args, report, EXP, app, instance, &args.skeletons, pw, &job)?;
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
