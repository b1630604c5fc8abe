//! `reproduce lb4omp`: the headline claims of seed 004 (Wetten, "Dynamic Scheduling in HPC
//! using a Distributed Data Approach", MSc, Basel 2022; digest `notes/lb4omp-lb4mpi.md`).
//! The thesis gives no numbers in its text, only plots; the claims are its statements:
//! - §8.4.1, Figure 8.11 (Dist/Dist-D, 8 nodes × 20 ranks, 400,000 iterations, 20 time
//!   steps): RWS on distributed data (LB4MPI-WS) "has a lower parallel execution time
//!   across the board when compared to static scheduling with the replicated version".
//! - Ch. 9: for Dist-D, RWS "can rival the work-sharing algorithms that were used in the
//!   replicated version" (STATIC and GSS).
//! - §8.4.1, Figures 8.11 and 8.13: "Out of the steal ratios 25% performs the best in terms
//!   of c.o.v. and parallel execution time in the exponential and the uniform loop"
//!   (ratios 15, 25, 35, 45%, Table 8.2); Ch. 9: the ratio "does not play a very
//!   significant role".
//!
//! magpie's measurement: the distributed Dist loop, `mpirun -np R magpie loop dist --dist D
//! --distributed --workers 1`, as the distributed suite launches it: `--mode share
//! --schedule static` and `--schedule gss` (a coordinator hands out chunks, data
//! replicated) vs `--mode steal --steal-amount N%` for N in 15, 25, 35, 45 (each rank owns
//! its block and its data; the coordinator relays steal requests), on the exponential and
//! uniform loops, in interleaved rounds (one warm-up, then --runs timed); the time is the
//! loop's `time_s` (the computation, without MPI's start-up).

use super::claim::{self, Claim, Context, Said, Statement};
use super::{cores, Pictures, ReproduceArgs};
use crate::distributed::{parse_output, Kind, Launcher};
use magpie_measure::rounds::rounds;
use magpie_measure::stats;
use serde_json::{json, Value};
use std::time::Duration;

const DOCUMENT: &str = "004_4bfae717dccce06d.txt";
const RATIOS: [&str; 4] = ["15%", "25%", "35%", "45%"];
/// The thesis' default and best ratio.
const BEST: &str = "25%";

/// One contender: its name and the tail of its `magpie` command line.
struct Contender {
    name: String,
    tail: Vec<String>,
    times: Vec<f64>,
    error: Option<String>,
}

/// The ranks: all cores, at least 4 (rank 0 coordinates; with 2 ranks there is no one to
/// steal from).
fn ranks() -> usize {
    cores().max(4)
}

fn dists(quick: bool) -> &'static [&'static str] {
    if quick {
        &["exponential"]
    } else {
        &["exponential", "uniform"]
    }
}

/// The claims of `reproduce lb4omp`.
pub fn claims(args: &ReproduceArgs, mut ctx: Context, pictures: &mut Pictures) -> Vec<Claim> {
    let p = cores();
    let r = ranks();
    ctx.scale = format!(
        "scale: {r} ranks × 1 worker on {p} core(s) here{}; the thesis: 8 nodes × 20 ranks",
        if r > p { " (oversubscribed)" } else { "" }
    );
    let launcher = match Launcher::with("mpirun".into(), Duration::from_secs(args.timeout))
        .and_then(|l| l.preflight().map(|()| l))
    {
        Ok(l) => l,
        Err(e) => {
            let why = format!("MPI is needed: {e}");
            let all = dists(args.quick).iter().flat_map(|d| statements(d));
            return claim::all_unmeasured(all, &ctx, &why);
        }
    };
    let mut out = Vec::new();
    for dist in dists(args.quick) {
        let mut base = vec![
            "loop".to_string(),
            "dist".into(),
            "--dist".into(),
            dist.to_string(),
        ];
        if args.quick {
            for (k, v) in [
                ("--iterations", "20000"),
                ("--mean-units", "20"),
                ("--steps", "2"),
            ] {
                base.extend([k.to_string(), v.to_string()]);
            }
        }
        base.push("--distributed".into());
        let with = |extra: &[&str]| -> Vec<String> {
            let mut t = base.clone();
            t.extend(extra.iter().map(|s| s.to_string()));
            t
        };
        let mut cs: Vec<Contender> = [
            ("static", with(&["--mode", "share", "--schedule", "static"])),
            ("gss", with(&["--mode", "share", "--schedule", "gss"])),
        ]
        .into_iter()
        .chain(
            RATIOS
                .iter()
                .map(|&ratio| (ratio, with(&["--mode", "steal", "--steal-amount", ratio]))),
        )
        .map(|(name, tail)| Contender {
            name: name.to_string(),
            tail,
            times: Vec::new(),
            error: None,
        })
        .collect();
        let warmup = u32::from(!args.quick);
        for round in rounds(warmup, args.runs()) {
            for c in cs.iter_mut().filter(|c| c.error.is_none()) {
                let argv = launcher.argv(r as u32, 1, &c.tail);
                match launcher
                    .run(&argv)
                    .and_then(|o| parse_output(Kind::Loop, &o))
                {
                    Ok(s) if round.is_timed() => c.times.push(s.time),
                    Ok(_) => {}
                    Err(e) => c.error = Some(format!("`{}`: {e}", launcher.show(&argv))),
                }
            }
        }
        // The pictures: the contenders as rows of the distributed suite's shape.
        let rows: Vec<Value> = cs
            .iter()
            .filter(|c| !c.times.is_empty())
            .map(|c| {
                let (median, min, max) = (
                    stats::median(&c.times),
                    c.times.iter().copied().fold(f64::INFINITY, f64::min),
                    c.times.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                );
                json!({"row": "time", "experiment": "loops", "app": dist, "load": "",
                       "contender": c.name, "ranks": r, "workers": 1, "median_s": median,
                       "min_s": min, "max_s": max, "times_s": c.times})
            })
            .collect();
        if !rows.is_empty() {
            pictures.add(&format!("lb4omp-{dist}"), &Value::Array(rows));
        }
        let get = |name: &str| cs.iter().find(|c| c.name == name).expect("contender");
        let by = |name: &str| launcher.show(&launcher.argv(r as u32, 1, &get(name).tail));
        let ws = get(BEST);
        let mut st = statements(dist).into_iter();
        for (other, rule) in [
            (
                "static",
                claim::faster as fn(&[f64], &[f64]) -> claim::Judgement,
            ),
            ("gss", claim::not_slower),
        ] {
            let s = st.next().expect("statement");
            let o = get(other);
            let measured_by = format!("{} vs {}", by(BEST), by(other));
            if let Some(e) = ws.error.as_ref().or(o.error.as_ref()) {
                out.push(s.unmeasured(&ctx, e, &measured_by));
                continue;
            }
            let value = (!ws.times.is_empty() && !o.times.is_empty())
                .then(|| stats::median(&o.times) / stats::median(&ws.times));
            out.push(s.judged(
                &ctx,
                value,
                &ws.times,
                rule(&ws.times, &o.times),
                &measured_by,
            ));
        }
        let s = st.next().expect("statement");
        let others: Vec<(String, Vec<f64>)> = cs
            .iter()
            .filter(|c| RATIOS.contains(&c.name.as_str()) && c.name != BEST)
            .map(|c| (c.name.clone(), c.times.clone()))
            .collect();
        let errors: Vec<&str> = cs
            .iter()
            .filter(|c| RATIOS.contains(&c.name.as_str()))
            .filter_map(|c| c.error.as_deref())
            .collect();
        let measured_by = by(BEST);
        if !errors.is_empty() {
            out.push(s.unmeasured(&ctx, &errors.join("; "), &measured_by));
        } else {
            let value = (!ws.times.is_empty()).then(|| stats::median(&ws.times));
            out.push(s.judged(
                &ctx,
                value,
                &ws.times,
                claim::best(&ws.times, &others),
                &measured_by,
            ));
        }
    }
    out
}

/// The statements of one distribution, in the order [`claims`] judges them.
fn statements(dist: &str) -> Vec<Statement> {
    let s =
        |claim: String, statement: String, source: &str, seed_value: &str, unit, test| Statement {
            said: Said {
                seed: "lb4omp",
                document: DOCUMENT,
                claim,
                statement,
                source: source.into(),
                seed_value: seed_value.into(),
            },
            unit,
            test,
        };
    vec![
        s(
            format!("lb4omp.{dist}.ws-vs-static"),
            format!(
                "Dist {dist}: LB4MPI-WS (RWS, 25%, distributed data) is faster than STATIC on \
                 replicated data"
            ),
            "§8.4.1, Figure 8.11 ('lower parallel execution time across the board')",
            "faster (plot only)",
            "x",
            "Welch's t on the loop times; value: median(static)/median(rws 25%)",
        ),
        s(
            format!("lb4omp.{dist}.ws-vs-gss"),
            format!(
                "Dist {dist}: LB4MPI-WS (RWS, 25%, distributed data) rivals GSS on replicated \
                 data"
            ),
            "Ch. 9 ('can rival the work-sharing algorithms'); §8.4.1, Figure 8.11",
            "on par (plot only)",
            "x",
            "Welch's t, not significantly slower; value: median(gss)/median(rws 25%)",
        ),
        s(
            format!("lb4omp.{dist}.best-steal-ratio"),
            format!("Dist {dist}: of the steal ratios 15/25/35/45%, 25% is the fastest"),
            "§8.4.1, Figures 8.11, 8.13; Table 8.2 (ratios)",
            "25% (plot only)",
            "s",
            "lowest median and Welch's t vs the runner-up; value: median time at 25%",
        ),
    ]
}
