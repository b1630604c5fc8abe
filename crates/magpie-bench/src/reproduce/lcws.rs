//! `reproduce lcws`: the headline claims of seed 002 (Custódio, Paulino, Rito, "Efficient
//! Synchronization-Light Work Stealing", SPAA'23; digest `notes/lcws.md`).
//!
//! The numbers (the seed's text; the figures are box plots over all PBBS V2 inputs, 10 runs
//! each, 1..=cores workers, machines Intel12, AMD32, Intel16 of Table 1):
//! - §5.2 (Figure 6, 7): the signal-based LCWS has a speedup > 1 over WS "for 65% of the
//!   benchmark executions" on AMD32 and 69% on Intel12 and Intel16 (abstract, §1.2:
//!   "65% to 69% of all benchmarks configurations").
//! - §5.1 (Figure 6): the user-space LCWS, below 50% of the cores, is faster for 50–80%
//!   (AMD32), 68–80% (Intel12), 59–78% (Intel16) of the configurations.
//! - §5.4 (Figures 5, 6): conservative exposure and expose-half: no share in the text;
//!   "very competitive", close to the signal-based version.
//! - §3.3 (Figure 3a, 3b; AMD32, 2 to 64 workers): USLCWS "uses less than 1% of memory
//!   fences and less 40% of CAS operations than WS".
//! - §5.3 (Figure 8a, 8b, 8e, 8f): the signal-based version's fences and CAS are "even
//!   lower than what was observed for USLCWS".
//!
//! magpie's measurement: `magpie-bench forkjoin --json --counters --runtimes magpie` with
//! the classic Chase-Lev deque (the paper's WS) and the four LCWS deques, every kernel of
//! the fork-join registry (`KernelId::ALL`: the PBBS kernels included), workers 1..=P. A configuration is
//! (kernel × workers); the candidate is faster in it when its median time is lower. The
//! fence and CAS ratios are candidate/WS totals over the same timed runs, per configuration
//! with 2 or more workers (as §3.3).
//!
//! Two fence counts: all of them, and the owner's alone. magpie's thieves issue one SeqCst
//! fence per steal attempt in both deques (Rust's memory model needs it between the loads of
//! `top` and of the bottom index). The paper's `pop_top` (Listing 2) has none: its fences are
//! in `pop_public_bottom`, and Parlay's WS has one in every `push_bottom` and `pop_bottom`.
//! So the paper's ratio is the owner-fence ratio, fences − steal attempts (each attempt
//! counts exactly one fence). Idle thieves probe without end, so at 2 workers their fences
//! dominate the all-fences ratio.

use super::claim::{self, Claim, Context, Said, Statement};
use super::{cores, run_child, show, this_exe, Pictures, ReproduceArgs};
use magpie_apps::registry::KernelId;
use magpie_measure::stats;
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Duration;

const DOCUMENT: &str = "002_31aabaed57c1a16a.txt";
/// The paper's WS baseline.
const WS: &str = "chase-lev";
/// The signal-based and user-space deques, compared with each other in §5.3.
const SIGNAL: &str = "lcws-signal";
const USER: &str = "lcws-user";
/// The fewest configurations a share is judged on.
const MIN_CONFIGS: usize = 4;

/// One LCWS variant's claims: its share statement and the seed's lower bound of it.
struct Variant {
    deque: &'static str,
    share_low: f64,
    share_seed: &'static str,
    share_source: &'static str,
    /// The profile claims' source (None: the seed states none for this variant).
    profile_source: Option<&'static str>,
}

const VARIANTS: [Variant; 4] = [
    Variant {
        deque: "lcws-signal",
        share_low: 0.65,
        share_seed: "65–69%",
        share_source: "§5.2 and Figure 6 (AMD32 65%, Intel12 69%, Intel16 69%); abstract, §1.2",
        profile_source: Some("§5.3, Figure 8a/8b/8e/8f: even lower than USLCWS's (§3.3)"),
    },
    Variant {
        deque: "lcws-user",
        share_low: 0.50,
        share_seed: "50–80%",
        share_source: "§5.1 and Figure 6 (below 50% of the cores: AMD32 50–80%, Intel12 \
                       68–80%, Intel16 59–78%)",
        profile_source: Some("§3.3, Figure 3a/3b (AMD32, 2–64 workers)"),
    },
    Variant {
        deque: "lcws-conservative",
        share_low: 0.50,
        share_seed: "> 50% (Fig. 6)",
        share_source: "§5.4, Figures 5 and 6 (no share in the text: 'very competitive')",
        profile_source: None,
    },
    Variant {
        deque: "lcws-half",
        share_low: 0.50,
        share_seed: "> 50% (Fig. 6)",
        share_source: "§5.4, Figures 5 and 6 (no share in the text: close to single-share)",
        profile_source: None,
    },
];

/// One magpie row of the forkjoin report.
#[derive(Debug, Clone)]
struct Row {
    kernel: String,
    deque: String,
    workers: u64,
    times: Vec<f64>,
    fences: Option<f64>,
    /// Fences less the thieves' (one per steal attempt): the owner's alone.
    owner_fences: Option<f64>,
    cas: Option<f64>,
    /// Tasks moved to the public part, and those of them the owner took back (unstolen).
    exposed: Option<f64>,
    unstolen: Option<f64>,
}

fn parse_rows(v: &Value) -> Result<Vec<Row>, String> {
    let rows = v.as_array().ok_or("forkjoin --json printed no array")?;
    let mut out = Vec::new();
    for r in rows {
        if r.get("runtime").and_then(Value::as_str) != Some("magpie") {
            continue;
        }
        let s = |k: &str| r.get(k).and_then(Value::as_str).map(str::to_string);
        let total = r.pointer("/profile/total");
        let count = |k: &str| total.and_then(|t| t.get(k)).and_then(Value::as_f64);
        out.push(Row {
            kernel: s("kernel").ok_or("a row without kernel")?,
            deque: s("variant").ok_or("a row without variant")?,
            workers: r
                .get("workers")
                .and_then(Value::as_u64)
                .ok_or("a row without workers")?,
            times: r
                .get("times_s")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_f64).collect())
                .unwrap_or_default(),
            fences: count("fences"),
            owner_fences: match (count("fences"), count("steals"), count("failed")) {
                (Some(f), Some(s), Some(x)) => Some((f - s - x).max(0.0)),
                _ => None,
            },
            cas: count("cas"),
            exposed: count("exposed"),
            unstolen: count("unstolen"),
        });
    }
    Ok(out)
}

/// The claims of `reproduce lcws`.
pub fn claims(args: &ReproduceArgs, mut ctx: Context, pictures: &mut Pictures) -> Vec<Claim> {
    let p = cores();
    let counts = args.worker_counts(if args.quick { p.min(2) } else { p });
    let max_workers = counts.last().copied().unwrap_or(1);
    let workers: Vec<String> = counts.iter().map(usize::to_string).collect();
    ctx.scale = format!(
        "scale: {p} core(s) here, workers {}, magpie's fork-join kernels; the seed: 12–32 \
         cores (Table 1), 1..=cores workers, all PBBS V2 inputs",
        workers.join(",")
    );
    let counted = cfg!(feature = "counted");
    let deques: Vec<&str> = std::iter::once(WS)
        .chain(VARIANTS.iter().map(|v| v.deque))
        .collect();
    let kernels: Vec<&str> = match &args.kernels {
        Some(k) => k.iter().map(|k| k.name()).collect(),
        None => KernelId::ALL.iter().map(|k| k.name()).collect(),
    };
    let kernels = kernels.join(",");
    let mut child: Vec<String> = [
        "forkjoin",
        "--json",
        "--quiet",
        "--runtimes",
        "magpie",
        "--deques",
        &deques.join(","),
        "--workers",
        &workers.join(","),
        "--runs",
        &args.runs().to_string(),
        "--kernels",
        &kernels,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if counted {
        child.push("--counters".into());
    }
    if args.quick {
        child.push("--quick".into());
    }
    let measured = this_exe().and_then(|exe| {
        let by = show(&exe, &child);
        run_child(&exe, &child, Duration::from_secs(args.timeout), false)
            .and_then(|out| serde_json::from_str::<Value>(&out).map_err(|e| e.to_string()))
            .map(|v| (by, v))
            .map_err(|e| format!("the forkjoin child failed: {e}"))
    });
    let (by, rows) = match measured.and_then(|(by, v)| {
        pictures.add("lcws-forkjoin", &v);
        parse_rows(&v).map(|r| (by, r))
    }) {
        Ok(x) => x,
        Err(e) => return claim::all_unmeasured(statements(), &ctx, &e),
    };
    // (kernel, workers) → deque → row
    let mut by_config: BTreeMap<(String, u64), BTreeMap<String, Row>> = BTreeMap::new();
    for r in rows {
        by_config
            .entry((r.kernel.clone(), r.workers))
            .or_default()
            .insert(r.deque.clone(), r);
    }
    // A profile claim: `ratio` of each configuration with 2+ workers (as §3.3), its 95% CI
    // of the geometric mean judged against `bound`.
    type Ratio<'a> = dyn Fn(&BTreeMap<String, Row>) -> Option<f64> + 'a;
    let judge_ratios = |st: Statement, bound: f64, ratio: &Ratio| -> Claim {
        if !counted {
            return st.unmeasured(
                &ctx,
                "this magpie-bench was built without magpie's counters (the uncounted build)",
                &by,
            );
        }
        let ratios: Vec<f64> = by_config
            .iter()
            .filter(|((_, w), _)| *w >= 2)
            .filter_map(|(_, rows)| ratio(rows))
            .collect();
        let j = if max_workers < 2 {
            claim::Judgement::out_of_reach(format!(
                "{p} core(s): the seed's profile is at 2 or more workers"
            ))
        } else {
            claim::ratio_below(&ratios, bound)
        };
        let value = (!ratios.is_empty()).then(|| stats::median(&ratios) * 100.0);
        st.judged(&ctx, value, &ratios, j, &by)
    };
    let mut out = Vec::new();
    let mut statements = statements().into_iter();
    for v in &VARIANTS {
        // The share of configurations where v is faster than WS.
        let st = statements.next().expect("one share statement per variant");
        let mut speedups = Vec::new();
        for rows in by_config.values() {
            if let (Some(ws), Some(c)) = (rows.get(WS), rows.get(v.deque)) {
                if !ws.times.is_empty() && !c.times.is_empty() {
                    speedups.push(stats::median(&ws.times) / stats::median(&c.times));
                }
            }
        }
        let k = speedups.iter().filter(|&&s| s > 1.0).count();
        let n = speedups.len();
        let j = claim::share(k, n, v.share_low, MIN_CONFIGS);
        let value = (n > 0).then(|| 100.0 * k as f64 / n as f64);
        out.push(st.judged(&ctx, value, &speedups, j, &by));
        if v.profile_source.is_none() {
            continue;
        }
        // Fences and CAS relative to WS.
        for (bound, get) in [
            (0.01, (|r: &Row| r.fences) as fn(&Row) -> Option<f64>),
            (0.40, |r: &Row| r.cas),
            (0.01, |r: &Row| r.owner_fences),
        ] {
            let st = statements.next().expect("profile statements");
            out.push(judge_ratios(st, bound, &|rows| {
                let ws = get(rows.get(WS)?)?;
                let c = get(rows.get(v.deque)?)?;
                (ws > 0.0).then(|| c / ws)
            }));
        }
    }
    // §5.3: the signal-based version against the user-space one: (signal + 1)/(user + 1)
    // of each count (+1: a count of 0 on either side still gives a ratio).
    let share_unstolen = |r: &Row| -> Option<f64> {
        let (e, u) = (r.exposed?, r.unstolen?);
        Some(if e > 0.0 { 100.0 * u / e } else { 0.0 })
    };
    for get in [
        (|r: &Row| r.owner_fences) as fn(&Row) -> Option<f64>,
        |r: &Row| r.cas,
        share_unstolen,
    ] {
        let st = statements.next().expect("signal-vs-user statements");
        out.push(judge_ratios(st, 1.0, &|rows| {
            let s = get(rows.get(SIGNAL)?)?;
            let u = get(rows.get(USER)?)?;
            Some((s + 1.0) / (u + 1.0))
        }));
    }
    out
}

/// The statements, in the order [`claims`] judges them: per variant its share, then (where
/// the seed gives a profile) its fences, CAS and owner-fence ratios.
fn statements() -> Vec<Statement> {
    let mut out = Vec::new();
    for v in &VARIANTS {
        out.push(Statement {
            said: Said {
                seed: "lcws",
                document: DOCUMENT,
                claim: format!("lcws.share-faster.{}", v.deque),
                statement: format!(
                    "{} is faster than the classic deque (WS) in {} of the (benchmark × \
                 workers) configurations",
                    v.deque, v.share_seed
                ),
                source: v.share_source.to_string(),
                seed_value: v.share_seed.to_string(),
            },
            unit: "%",
            test: "share of configurations with a lower median (Wilson 95% CI); spread: \
                   speedups WS/candidate per configuration",
        });
        if let Some(src) = v.profile_source {
            out.push(Statement {
                said: Said {
                    seed: "lcws",
                    document: DOCUMENT,
                    claim: format!("lcws.fences.{}", v.deque),
                    statement: format!(
                        "{} issues less than 1% of WS's memory fences (2+ workers)",
                        v.deque
                    ),
                    source: src.to_string(),
                    seed_value: "< 1%".into(),
                },
                unit: "%",
                test: "fences(candidate)/fences(WS) per configuration: 95% CI of the \
                       geometric mean below 0.01",
            });
            out.push(Statement {
                said: Said {
                    seed: "lcws",
                    document: DOCUMENT,
                    claim: format!("lcws.cas.{}", v.deque),
                    statement: format!(
                        "{} issues less than 40% of WS's CAS operations (2+ workers)",
                        v.deque
                    ),
                    source: src.to_string(),
                    seed_value: "< 40%".into(),
                },
                unit: "%",
                test: "cas(candidate)/cas(WS) per configuration: 95% CI of the \
                       geometric mean below 0.40",
            });
            out.push(Statement {
                said: Said {
                    seed: "lcws",
                    document: DOCUMENT,
                    claim: format!("lcws.owner-fences.{}", v.deque),
                    statement: format!(
                        "{} issues less than 1% of WS's memory fences, counted as the seed \
                     does: the owner's only (its pop_top has none; 2+ workers)",
                        v.deque
                    ),
                    source: format!("{src}; Listing 2 (no fence in pop_top)"),
                    seed_value: "< 1%".into(),
                },
                unit: "%",
                test: "(fences − steal attempts)(candidate)/(same)(WS) per configuration: \
                       95% CI of the geometric mean below 0.01",
            });
        }
    }
    const PER_CONFIG: &str = "(signal + 1)/(user + 1) per configuration: 95% CI of the \
                              geometric mean below 1; value: the median ratio";
    for (suffix, what, figure, test) in [
        ("owner-fences", "owner fences", "Figure 8e", PER_CONFIG),
        ("cas", "CAS operations", "Figure 8f", PER_CONFIG),
        (
            "unstolen",
            "unstolen exposures (exposed tasks their owner took back, as a share of those \
             exposed)",
            "Figure 8h",
            "(signal + 1)/(user + 1) of the unstolen share (%) per configuration: 95% CI of \
             the geometric mean below 1; value: the median ratio",
        ),
    ] {
        out.push(Statement {
            said: Said {
                seed: "lcws",
                document: DOCUMENT,
                claim: format!("lcws.signal-vs-user.{suffix}"),
                statement: format!(
                "the signal-based version has fewer {what} than the user-space one (2+ workers)"
            ),
                source: format!(
                    "§5.3, {figure}: 'even lower than what was observed for USLCWS'; 'avoid \
                 unnecessary work exposures'"
                ),
                seed_value: "lower".into(),
            },
            unit: "%",
            test,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_fences_are_the_fences_less_one_per_steal_attempt() {
        let v: Value = serde_json::json!([
            {"runtime": "magpie", "kernel": "fib", "variant": "chase-lev", "workers": 2,
             "times_s": [1.0], "profile": {"total": {"fences": 110, "steals": 4, "failed": 6, "cas": 5}}},
            {"runtime": "magpie", "kernel": "fib", "variant": "lcws-user", "workers": 2,
             "times_s": [1.0], "profile": {"total": {"fences": 9, "steals": 3, "failed": 6, "cas": 3,
                                   "exposed": 8, "unstolen": 2}}},
            {"runtime": "rayon", "kernel": "fib", "workers": 2, "times_s": [1.0]},
            {"runtime": "magpie", "kernel": "fib", "variant": "chase-lev", "workers": 1,
             "times_s": [1.0]}
        ]);
        let rows = parse_rows(&v).unwrap();
        assert_eq!(rows.len(), 3, "the rayon row is skipped");
        assert_eq!(rows[0].fences, Some(110.0));
        assert_eq!(rows[0].owner_fences, Some(100.0));
        assert_eq!(rows[1].owner_fences, Some(0.0));
        assert_eq!(rows[1].cas, Some(3.0));
        assert_eq!((rows[1].exposed, rows[1].unstolen), (Some(8.0), Some(2.0)));
        assert_eq!(rows[0].exposed, None);
        assert_eq!(rows[2].owner_fences, None, "no counters, no count");
    }
}
