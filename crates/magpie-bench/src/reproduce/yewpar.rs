//! `reproduce yewpar`: the headline claims of seed 000 (Hao Xie, "Towards Faster
//! Combinatorial Search: Performance-Driven Workstealing Policy in YewPar", MSc, Glasgow
//! 2023; digest `notes/yewpar-performance-policy.md`).
//!
//! The numbers (up to 20 nodes × 15 workers, 10 alternated runs; Maxclique-16 on
//! brock800_2 with DepthBounded d = 2, NS-hivert genus 47 with Budget b = 10^6):
//! - §4.3.1, Figure 4.1: Maxclique, isolated: the performance-driven policy (PD) beats
//!   DepthPool (DP) by 11.41% at 5 nodes down to 0.62% at 15 and 1.11% at 20 (the digest:
//!   not significant, Welch t ≤ 2).
//! - §4.3.2, Figure 4.3: NS isolated: 7.3% (5 nodes) rising to 10.06% (20 nodes).
//! - §4.4.1, Figure 4.5: Maxclique contended: 8.01% at 20 nodes.
//! - §4.4.2, Figure 4.6: NS contended: 9.36% (5 nodes) to 13.46% (20 nodes).
//! - §4.3.1, Eq. 4.2, Figure 4.2: variability (max − min)/min of Maxclique at 10 nodes:
//!   PD 43.98%, DP 23.61%; §4.3.2, Figure 4.4: NS 0.57% (PD), 1.22% (DP).
//!
//! The quoted speed-ups divide by T_DP (11.41% = (69,292 − 61,385)/69,292), not by T_PD as
//! the printed Eq. 4.1 does (erratum in the digest): magpie's value is that reduction
//! (`magpie_measure::stats::reduction_pct`) of the medians; Eq. 4.1 as printed
//! (`stats::speedup_pct`) is in the reason. DepthPool's victim rule is magpie's `sticky`
//! ("biased random"); plain `random` is compared too.
//!
//! magpie's measurement: `magpie-bench distributed --experiments policies` (this
//! executable; it runs the MPI build of `magpie` under mpirun), `perf` vs `sticky` and
//! `random`, ranks × 1 worker, isolated and contended (a background job in a loop), on its
//! NS and max-clique apps ([`FULL_APPS`]), 10 interleaved rounds (2 with --quick).

use super::claim::{self, Claim, Context, Judgement, Said, Statement};
use super::{cores, run_child, show, this_exe, Pictures, ReproduceArgs};
use magpie_measure::stats;
use serde_json::Value;
use std::time::Duration;

const DOCUMENT: &str = "000_ee229214a765eb9e.txt";
const CANDIDATE: &str = "perf";
const OTHERS: [&str; 2] = ["sticky", "random"];
const LOADS: [&str; 2] = ["isolated", "contended"];
/// The policies experiment's apps at full size: NS genus 36 (Budget) and max clique on
/// DSJC500_5 (DepthBounded). The thesis' brock800_2 and genus 47 need its 300 cores; here
/// brock400_1 takes 102 s a run at 4 ranks and sanr400_0.7 26 s, so 66 runs of either do not
/// fit a session. These take about 5.4 s and 0.4 s a run at 4 ranks on 2 cores (measured
/// 2026-11-26), the largest pair whose 10 alternated rounds × 3 policies × 2 loads fit in
/// about 15 minutes. `--quick` keeps the suite's tiny apps.
const FULL_APPS: &str = "ns-36,DSJC500_5";
/// Fewest runs per policy for an Eq. 4.2 comparison.
const MIN_VARIABILITY_RUNS: usize = 5;

/// The two applications: a name prefix test and the seed's numbers per load.
struct App {
    kind: &'static str,
    is: fn(&str) -> bool,
    isolated: (&'static str, &'static str),
    contended: (&'static str, &'static str),
    variability: (&'static str, &'static str, bool),
}

const APPS: [App; 2] = [
    App {
        kind: "ns",
        is: |a| a.starts_with("ns-"),
        isolated: ("7.3–10.06%", "§4.3.2, Figure 4.3 (5–20 nodes)"),
        contended: ("9.36–13.46%", "§4.4.2, Figure 4.6 (5–20 nodes)"),
        variability: (
            "PD 0.57% < DP 1.22%",
            "§4.3.2, Eq. 4.2, Figure 4.4 (10 nodes)",
            false,
        ),
    },
    App {
        kind: "maxclique",
        is: |a| !a.starts_with("ns-") && !a.starts_with("uts-"),
        isolated: (
            "0.62–11.41%",
            "§4.3.1, Figure 4.1 (5–20 nodes; not significant per the digest)",
        ),
        contended: ("8.01% (20 nodes)", "§4.4.1, Figure 4.5"),
        variability: (
            "PD 43.98% > DP 23.61%",
            "§4.3.1, Eq. 4.2, Figure 4.2 (10 nodes)",
            true,
        ),
    },
];

/// One contender's times from the suite's `time` rows.
#[derive(Debug, Clone)]
struct Times {
    app: String,
    load: String,
    policy: String,
    times: Vec<f64>,
}

fn parse_rows(v: &Value) -> Result<(Vec<Times>, Vec<String>), String> {
    let rows = v.as_array().ok_or("distributed --json printed no array")?;
    let mut times = Vec::new();
    let mut errors = Vec::new();
    for r in rows {
        let s = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        match r.get("row").and_then(Value::as_str) {
            Some("time") if s("experiment") == "policies" => times.push(Times {
                app: s("app"),
                load: s("load"),
                policy: s("contender"),
                times: r
                    .get("times_s")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_f64).collect())
                    .unwrap_or_default(),
            }),
            Some("error") => {
                errors.push(format!("{} {}: {}", s("app"), s("contender"), s("error")))
            }
            _ => {}
        }
    }
    Ok((times, errors))
}

/// The ranks of the policies experiment: all cores, at least 4 (with 2 or 3 ranks every
/// rank has at most 2 remote victims and the policies barely differ).
fn ranks() -> usize {
    cores().max(4)
}

/// The claims of `reproduce yewpar`.
pub fn claims(args: &ReproduceArgs, mut ctx: Context, pictures: &mut Pictures) -> Vec<Claim> {
    let p = cores();
    let r = ranks();
    ctx.scale = format!(
        "scale: {r} ranks × 1 worker on {p} core(s) here{}; the thesis: 5–20 nodes × 15 \
         workers, brock800_2 and NS genus 47",
        if r > p { " (oversubscribed)" } else { "" }
    );
    let mut child: Vec<String> = vec![
        "distributed".into(),
        "--experiments".into(),
        "policies".into(),
        "--json".into(),
        "--quiet".into(),
        "--policies".into(),
        format!("{},{}", OTHERS.join(","), CANDIDATE),
        "--candidate".into(),
        CANDIDATE.into(),
        "--policy-ranks".into(),
        r.to_string(),
        "--runs".into(),
        args.runs().to_string(),
        "--timeout".into(),
        args.timeout.to_string(),
    ];
    if args.quick {
        child.push("--quick".into());
    } else {
        child.push("--policy-apps".into());
        child.push(FULL_APPS.into());
    }
    let measured = this_exe().and_then(|exe| {
        let by = show(&exe, &child);
        // The suite runs its children with their own timeout; this one bounds the whole.
        let whole = Duration::from_secs(args.timeout.saturating_mul(4));
        run_child(&exe, &child, whole, true)
            .and_then(|out| serde_json::from_str::<Value>(&out).map_err(|e| e.to_string()))
            .map(|v| (by, v))
            .map_err(|e| format!("the distributed suite failed (MPI and the mpi build of magpie are needed): {e}"))
    });
    let (by, times, errors) = match measured.and_then(|(by, v)| {
        pictures.add("yewpar-policies", &v);
        parse_rows(&v).map(|(t, e)| (by, t, e))
    }) {
        Ok(x) => x,
        Err(e) => return claim::all_unmeasured(statements(), &ctx, &e),
    };
    let find = |app: &App, load: &str, policy: &str| -> Vec<f64> {
        times
            .iter()
            .filter(|t| (app.is)(&t.app) && t.load == load && t.policy == policy)
            .flat_map(|t| t.times.iter().copied())
            .collect()
    };
    let missing = |what: String| -> String {
        if errors.is_empty() {
            format!("{what} was not measured")
        } else {
            format!("{what} was not measured: {}", errors.join("; "))
        }
    };
    let mut st = statements().into_iter();
    let mut out = Vec::new();
    for app in &APPS {
        for load in LOADS {
            let cand = find(app, load, CANDIDATE);
            for other in OTHERS {
                let s = st.next().expect("statement");
                let base = find(app, load, other);
                if cand.is_empty() || base.is_empty() {
                    let why = missing(format!("{} {load} ({CANDIDATE} or {other})", app.kind));
                    out.push(s.unmeasured(&ctx, &why, &by));
                    continue;
                }
                let (tb, tc) = (stats::median(&base), stats::median(&cand));
                let mut j = claim::faster(&cand, &base);
                j.reason = format!(
                    "{}; Eq. 4.1 as printed: {:.2}%",
                    j.reason,
                    stats::speedup_pct(tb, tc)
                );
                let value = Some(stats::reduction_pct(tb, tc));
                out.push(s.judged(&ctx, value, &cand, j, &by));
            }
        }
        // Eq. 4.2, isolated, perf vs DepthPool (sticky).
        let s = st.next().expect("statement");
        let (cand, base) = (
            find(app, "isolated", CANDIDATE),
            find(app, "isolated", OTHERS[0]),
        );
        match (stats::variability_pct(&cand), stats::variability_pct(&base)) {
            (Some(vc), Some(vb)) => {
                let j = claim::direction(
                    vc,
                    vb,
                    app.variability.2,
                    cand.len().min(base.len()),
                    MIN_VARIABILITY_RUNS,
                );
                out.push(s.judged(&ctx, Some(vc), &cand, j, &by));
            }
            _ => {
                let why = missing(format!("{} isolated", app.kind));
                out.push(s.judged(&ctx, None, &[], Judgement::out_of_reach(why), &by));
            }
        }
    }
    out
}

/// The statements, in the order [`claims`] judges them.
fn statements() -> Vec<Statement> {
    let mut out = Vec::new();
    for app in &APPS {
        for load in LOADS {
            let (value, source) = if load == "isolated" {
                app.isolated
            } else {
                app.contended
            };
            for other in OTHERS {
                let vs = if other == "sticky" {
                    "DepthPool's biased random (sticky)".to_string()
                } else {
                    "plain random victims (the thesis' number is vs DepthPool)".to_string()
                };
                out.push(Statement {
                    said: Said {
                        seed: "yewpar",
                        document: DOCUMENT,
                        claim: format!("yewpar.{}.{load}.perf-vs-{other}", app.kind),
                        statement: format!(
                            "{}, {load}: the performance-driven policy is faster than {vs}",
                            app.kind
                        ),
                        source: source.into(),
                        seed_value: value.into(),
                    },
                    unit: "%",
                    test: "Welch's t on the run times; value: (T_other − T_perf)/T_other of \
                           the medians (the thesis' quoted figures)",
                });
            }
        }
        out.push(Statement {
            said: Said {
                seed: "yewpar",
                document: DOCUMENT,
                claim: format!("yewpar.{}.variability", app.kind),
                statement: format!(
                    "{}, isolated: Eq. 4.2 variability (max − min)/min of the performance-driven \
                 policy is {} than DepthPool's",
                    app.kind,
                    if app.variability.2 {
                        "larger"
                    } else {
                        "smaller"
                    }
                ),
                source: app.variability.1.into(),
                seed_value: app.variability.0.into(),
            },
            unit: "%",
            test: "Eq. 4.2 of perf vs sticky (one number each, no significance test); value: \
                   perf's",
        });
    }
    out
}
