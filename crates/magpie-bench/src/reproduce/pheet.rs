//! `reproduce pheet`: the headline claims of seed 003 (Haselsteiner, "Adaptive
//! Work-Stealing Techniques", MSc thesis, TU Wien 2015; digest `notes/adaptive.md`).
//!
//! The numbers (Mars: 80 cores, Saturn: 48 cores; 20 runs, 95% CIs; multiprogrammed runs
//! start 2 or 4 instances together after a barrier, the time is the mean over instances):
//! - §6.2 and Figure 6.3: "When four instances of the benchmark are running in parallel,
//!   the linear-backoff-scheduler finishes the tasks about 18x faster than the
//!   original-scheduler" (LU decomposition, 1024², Mars); Summary (Ch. 7): "up to 18x
//!   faster than the scheduler using the original exponential backoff".
//! - §6.7, Figures 6.17 and 6.18 (aggregated results, §3.2): the linear backoff performs
//!   best overall; on Mars the yield backoff "performs quite badly" (on Saturn it is on par
//!   with linear); the dynamic quanta algorithm "also outperforms the original scheduler"
//!   (Ch. 7) but not the linear backoff.
//! - Table 5.5: dynamic quanta puts workers to sleep less often than the linear backoff
//!   (LU 81,258 vs 180,209 sleeps; quicksort 11,904 vs 36,147; bipartitioning 1,438 vs
//!   3,789).
//!
//! magpie's measurement: `magpie experiment policies` with `--idle linear,pheet,yield,
//! dynamic-quanta` (`pheet` is magpie's name of the thesis' original backoff; `linear` has
//! the thesis' tuned defaults), `--instances 2` (multiprogrammed, the thesis' "80-2"),
//! `--workers P` (one worker per core, as the thesis), on the thesis' benchmarks magpie has:
//! quicksort (10^7 Gaussian keys, `--data gaussian`), prefix-sum of ones (10^7, the thesis
//! 10^8: a memory choice), UTS T1 (the thesis' UTS-0, geometric, 4,130,071 nodes) and graph
//! bipartitioning of G(35, 0.9) (§3). The
//! comparison pools the runs of all applications as the thesis' aggregated result does:
//! each run time divided by its application's mean over the four policies
//! (`magpie_measure::stats::relative`'s normalisation), then Welch's t-test. LU runs with
//! `--instances 4` (its default 1024² in blocks of 64; `--n 64 --block 16` with --quick).

use super::claim::{self, Claim, Context, Said, Statement};
use super::{cores, magpie_bin, run_child, show, Pictures, ReproduceArgs};
use magpie_measure::stats;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

const DOCUMENT: &str = "003_a5437cdc439614e7.txt";
const LINEAR: &str = "linear";
const ORIGINAL: &str = "pheet";
const YIELD: &str = "yield";
const QUANTA: &str = "dynamic-quanta";

/// One row of the experiment report: an application under one idle policy.
#[derive(Debug, Clone)]
struct Row {
    app: String,
    idle: String,
    /// Per run: the mean time over its instances.
    times: Vec<f64>,
    /// Per run: the timed sleeps summed over its instances.
    sleeps: Vec<f64>,
}

fn parse_rows(v: &Value) -> Result<Vec<Row>, String> {
    let rows = v
        .get("rows")
        .and_then(Value::as_array)
        .ok_or("the experiment report has no rows")?;
    let mut out = Vec::new();
    for r in rows {
        if r.get("runtime").and_then(Value::as_str) != Some("magpie") {
            continue;
        }
        let s = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let times = r
            .get("times")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default();
        let sleeps = r
            .get("instance_counters")
            .and_then(Value::as_array)
            .map(|runs| {
                runs.iter()
                    .map(|inst| {
                        inst.as_array()
                            .map(|is| {
                                is.iter()
                                    .filter_map(|c| c.get("sleeps").and_then(Value::as_f64))
                                    .sum()
                            })
                            .unwrap_or(0.0)
                    })
                    .collect()
            })
            .unwrap_or_default();
        out.push(Row {
            app: s("app"),
            idle: s("idle"),
            times,
            sleeps,
        });
    }
    Ok(out)
}

/// The runs of `idle`, each divided by its application's mean over every policy measured
/// (of `field`), pooled over the applications.
fn pooled(rows: &[Row], idle: &str, field: fn(&Row) -> &Vec<f64>) -> Vec<f64> {
    let mut by_app: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for r in rows {
        by_app.entry(&r.app).or_default().push(r);
    }
    let mut out = Vec::new();
    for rs in by_app.values() {
        let all: Vec<f64> = rs.iter().flat_map(|r| field(r).iter().copied()).collect();
        let m = stats::mean(&all);
        if m.is_nan() || m <= 0.0 {
            continue;
        }
        for r in rs.iter().filter(|r| r.idle == idle) {
            out.extend(field(r).iter().map(|t| t / m));
        }
    }
    out
}

/// The applications of the multiprogrammed comparison: the thesis' quicksort of Gaussian
/// keys, prefix sum of ones, UTS-0 (magpie's T1) and its graph bipartitioning (G(35, 0.9)).
fn apps(quick: bool) -> Vec<Vec<String>> {
    let v = |x: &[&str]| x.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let size = if quick { "20000" } else { "10000000" };
    vec![
        v(&["quicksort", "--size", size, "--data", "gaussian"]),
        v(&["prefix-sum", "--size", size]),
        if quick {
            v(&["uts", "--flags", "-t 1 -a 3 -d 5 -b 4 -r 19"])
        } else {
            v(&["uts", "--tree", "T1"])
        },
        if quick {
            v(&["bipartition", "--n", "12", "--density", "0.9"])
        } else {
            v(&["bipartition", "--n", "35", "--density", "0.9"])
        },
    ]
}

/// `magpie experiment policies` on `apps` with `idles`, `instances` at once; its report.
fn experiment(
    bin: &Path,
    args: &ReproduceArgs,
    apps: &[Vec<String>],
    idles: &[&str],
    instances: usize,
) -> (String, Result<Value, String>) {
    let mut child: Vec<String> = vec!["experiment".into(), "policies".into()];
    for a in apps {
        child.push("--app".into());
        child.extend(a.iter().cloned());
    }
    for (k, v) in [
        ("--idle", idles.join(",")),
        ("--workers", largest(args).to_string()),
        ("--runs", args.runs().to_string()),
        ("--instances", instances.to_string()),
        ("--format", "json".into()),
    ] {
        child.push(k.into());
        child.push(v);
    }
    child.push("--quiet".into());
    let by = show(bin, &child);
    let report = run_child(bin, &child, Duration::from_secs(args.timeout), false)
        .and_then(|out| serde_json::from_str::<Value>(&out).map_err(|e| e.to_string()))
        .map_err(|e| format!("the experiment failed: {e}"));
    (by, report)
}

/// The workers of every instance: the largest of `--workers`, else one per core.
fn largest(args: &ReproduceArgs) -> usize {
    args.worker_counts(cores()).last().copied().unwrap_or(1)
}

/// The claims of `reproduce pheet`.
pub fn claims(args: &ReproduceArgs, mut ctx: Context, pictures: &mut Pictures) -> Vec<Claim> {
    let p = cores();
    let w = largest(args);
    ctx.scale = format!(
        "scale: {p} core(s) here, {w} worker(s) per instance; the thesis: Mars 80 cores, \
         Saturn 48 cores, one worker per core"
    );
    let bin = match magpie_bin() {
        Ok(b) => b,
        Err(e) => return claim::all_unmeasured(statements(), &ctx, &e),
    };
    let mut st = statements().into_iter();
    let mut out = Vec::new();

    // Multiprogrammed with 2 instances: linear vs original and yield, dynamic quanta vs
    // original, sleeps.
    let (by, report) = experiment(
        &bin,
        args,
        &apps(args.quick),
        &[LINEAR, ORIGINAL, YIELD, QUANTA],
        2,
    );
    let rows = report.and_then(|v| {
        pictures.add("pheet-multiprogrammed", &v);
        parse_rows(&v)
    });
    let comparisons = [(LINEAR, ORIGINAL), (LINEAR, YIELD), (QUANTA, ORIGINAL)];
    match &rows {
        Ok(rows) => {
            for (cand, base) in comparisons {
                let c = pooled(rows, cand, |r| &r.times);
                let b = pooled(rows, base, |r| &r.times);
                let j = claim::faster_runs(&c, &b, args.runs() as usize);
                let value =
                    (!c.is_empty() && !b.is_empty()).then(|| stats::mean(&b) / stats::mean(&c));
                out.push(
                    st.next()
                        .expect("statement")
                        .judged(&ctx, value, &c, j, &by),
                );
            }
            let q = pooled(rows, QUANTA, |r| &r.sleeps);
            let l = pooled(rows, LINEAR, |r| &r.sleeps);
            let total = |idle: &str| -> f64 {
                rows.iter()
                    .filter(|r| r.idle == idle)
                    .flat_map(|r| r.sleeps.iter())
                    .sum()
            };
            let value = (total(LINEAR) > 0.0).then(|| total(QUANTA) / total(LINEAR));
            let j = claim::faster_runs(&q, &l, args.runs() as usize);
            out.push(
                st.next()
                    .expect("statement")
                    .judged(&ctx, value, &q, j, &by),
            );
        }
        Err(e) => {
            for _ in 0..comparisons.len() + 1 {
                out.push(st.next().expect("statement").unmeasured(&ctx, e, &by));
            }
        }
    }

    // LU with 4 instances.
    let lu_statement = st.next().expect("statement");
    {
        let lu: Vec<String> = if args.quick {
            ["lu", "--n", "64", "--block", "16"]
                .iter()
                .map(|s| s.to_string())
                .collect()
        } else {
            vec!["lu".into()]
        };
        let (by, report) = experiment(&bin, args, &[lu], &[LINEAR, ORIGINAL], 4);
        match report.and_then(|v| {
            pictures.add("pheet-lu", &v);
            parse_rows(&v)
        }) {
            Ok(rows) => {
                let times = |idle: &str| -> Vec<f64> {
                    rows.iter()
                        .filter(|r| r.idle == idle)
                        .flat_map(|r| r.times.iter().copied())
                        .collect()
                };
                let (l, o) = (times(LINEAR), times(ORIGINAL));
                let value =
                    (!l.is_empty() && !o.is_empty()).then(|| stats::median(&o) / stats::median(&l));
                let j = claim::faster(&l, &o);
                out.push(lu_statement.judged(&ctx, value, &l, j, &by));
            }
            Err(e) => out.push(lu_statement.unmeasured(&ctx, &e, &by)),
        }
    }
    out
}

/// The statements, in the order [`claims`] judges them.
fn statements() -> Vec<Statement> {
    let s = |claim: &str, statement: &str, source: &str, seed_value: &str, unit, test| Statement {
        said: Said {
            seed: "pheet",
            document: DOCUMENT,
            claim: claim.into(),
            statement: statement.into(),
            source: source.into(),
            seed_value: seed_value.into(),
        },
        unit,
        test,
    };
    const POOLED: &str = "Welch's t on the runs pooled over the applications (each \
                          divided by its app's mean over the policies); value: \
                          mean(baseline)/mean(candidate)";
    vec![
        s(
            "pheet.linear-vs-original.2-instances",
            "the tuned linear backoff is faster than Pheet's original backoff, 2 instances \
             at once",
            "§6.7, Figures 6.17/6.18 (aggregated results); Ch. 7",
            "linear first",
            "x",
            POOLED,
        ),
        s(
            "pheet.linear-vs-yield.2-instances",
            "the tuned linear backoff is faster than the yield backoff, 2 instances at once",
            "§6.7, Figure 6.17 (Mars: yield 'quite badly'; Saturn, Figure 6.18: on par)",
            "linear first (Mars)",
            "x",
            POOLED,
        ),
        s(
            "pheet.dynquanta-vs-original.2-instances",
            "dynamic quanta is faster than Pheet's original backoff, 2 instances at once",
            "Ch. 7 ('outperforms the original scheduler'), Figures 6.17/6.18",
            "faster",
            "x",
            POOLED,
        ),
        s(
            "pheet.dynquanta-sleeps",
            "dynamic quanta puts workers to sleep less often than the linear backoff",
            "Table 5.5 (LU 81,258 vs 180,209; quicksort 11,904 vs 36,147; bipartitioning \
             1,438 vs 3,789)",
            "0.33–0.45",
            "ratio",
            "Welch's t on the sleeps per run (summed over instances), pooled over the apps \
             (each divided by its app's mean); value: total sleeps dynamic-quanta/linear",
        ),
        s(
            "pheet.lu-original-vs-linear.4-instances",
            "with 4 instances of LU at once, the linear backoff is about 18x faster than the \
             original backoff",
            "§6.2, Figure 6.3 (LU 1024², Mars); Ch. 7 ('up to 18x')",
            "≈ 18x",
            "x",
            "Welch's t on the run times (mean over the 4 instances); value: \
             median(original)/median(linear)",
        ),
    ]
}
