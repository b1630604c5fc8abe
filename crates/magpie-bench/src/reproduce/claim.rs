//! The claim/verdict machinery of `magpie-bench reproduce`: one [`Claim`] per headline
//! statement of a seed, its measurement's spread, the statistical test, and the
//! [`Verdict`] decided by one of the rules below (pure functions of the samples, unit-tested
//! on synthetic samples). The statistics are `magpie_measure::stats`'.

use magpie_measure::stats;
use serde::Serialize;
use std::fmt::Write as _;

/// Fewer runs than this per side, and a comparison that is not significant is "out of
/// reach" (too few samples to tell) instead of "refuted".
pub const CONCLUSIVE_RUNS: usize = 5;

/// The three verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// magpie's measurement supports the seed's statement.
    #[serde(rename = "reproduced")]
    Reproduced,
    /// magpie's measurement contradicts it (significantly, or with enough samples).
    #[serde(rename = "refuted")]
    Refuted,
    /// It cannot be decided here; the reason says why.
    #[serde(rename = "out of reach here")]
    OutOfReach,
}

impl Verdict {
    /// The verdict as printed and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Reproduced => "reproduced",
            Verdict::Refuted => "refuted",
            Verdict::OutOfReach => "out of reach here",
        }
    }
}

/// A verdict with its reason and the test's p-value and 95% interval (where it has them).
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    /// The verdict.
    pub verdict: Verdict,
    /// Why, in one sentence.
    pub reason: String,
    /// The test's two-sided p-value.
    pub p: Option<f64>,
    /// The test's 95% interval (of a difference, a share or a mean).
    pub ci: Option<[f64; 2]>,
}

impl Judgement {
    /// An out-of-reach judgement without test.
    pub fn out_of_reach(reason: impl Into<String>) -> Judgement {
        Judgement {
            verdict: Verdict::OutOfReach,
            reason: reason.into(),
            p: None,
            ci: None,
        }
    }
}

/// "The candidate is faster than the baseline": Welch's t-test on the run times (seconds,
/// or any lower-is-better measure, such as the sleeps of an idle policy). Significant
/// (p < 0.05) and faster → reproduced; significant and slower → refuted; not significant →
/// refuted with at least [`CONCLUSIVE_RUNS`] runs each, else out of reach (too few runs to
/// tell); fewer than 2 runs on a side, or no variance at all → out of reach. `ci` is the
/// 95% interval of mean(candidate) − mean(baseline).
pub fn faster(candidate: &[f64], baseline: &[f64]) -> Judgement {
    faster_runs(candidate, baseline, candidate.len().min(baseline.len()))
}

/// [`faster`] on samples pooled from several applications (or configurations), each run
/// `runs` times: a difference that is not significant is conclusive (refuted) only with
/// at least [`CONCLUSIVE_RUNS`] runs per configuration, however many samples are pooled.
pub fn faster_runs(candidate: &[f64], baseline: &[f64], runs: usize) -> Judgement {
    let n = candidate.len().min(baseline.len());
    if n < 2 {
        return Judgement::out_of_reach(format!(
            "too few samples: {} and {} run(s), Welch's test needs 2 each",
            candidate.len(),
            baseline.len()
        ));
    }
    let (Some(w), Some(ci)) = (
        stats::welch(candidate, baseline),
        stats::welch_ci95(candidate, baseline),
    ) else {
        return Judgement::out_of_reach("Welch's t is undefined: no variance in either sample");
    };
    let (verdict, reason) = if w.significant() && w.t < 0.0 {
        (
            Verdict::Reproduced,
            format!(
                "significantly lower: faster or fewer (Welch t = {:.2}, p = {:.3})",
                w.t, w.p
            ),
        )
    } else if w.significant() {
        (
            Verdict::Refuted,
            format!(
                "significantly higher: slower or more (Welch t = {:.2}, p = {:.3})",
                w.t, w.p
            ),
        )
    } else if runs >= CONCLUSIVE_RUNS {
        (
            Verdict::Refuted,
            format!(
                "no significant difference with {runs}+ runs each (Welch t = {:.2}, p = {:.3})",
                w.t, w.p
            ),
        )
    } else {
        (
            Verdict::OutOfReach,
            format!(
                "not significant (p = {:.3}) with only {runs} run(s) each: too few samples to \
                 tell",
                w.p
            ),
        )
    };
    Judgement {
        verdict,
        reason,
        p: Some(w.p),
        ci: Some([ci.0, ci.1]),
    }
}

/// "The candidate rivals the baseline" (is not slower): [`faster`]'s test, where a
/// difference that is not significant with at least [`CONCLUSIVE_RUNS`] runs each counts
/// as on par (reproduced); significantly slower → refuted.
pub fn not_slower(candidate: &[f64], baseline: &[f64]) -> Judgement {
    let j = faster(candidate, baseline);
    let significant = j.p.is_some_and(|p| p < 0.05);
    match j.verdict {
        Verdict::Refuted if !significant => Judgement {
            verdict: Verdict::Reproduced,
            reason: format!("on par: {}", j.reason),
            ..j
        },
        _ => j,
    }
}

/// "The candidate is faster in a share of the configurations within [`low`, `high`]"
/// (LCWS: 65–69%): `k` of `n` configurations faster. Reproduced when the candidate is
/// faster in most configurations and the Wilson 95% interval of the share reaches `low`;
/// refuted when the interval stays below `low`; out of reach (inconclusive) when the
/// candidate is not faster in most but the interval still reaches `low`, and with fewer
/// than `min_n` configurations.
pub fn share(k: usize, n: usize, low: f64, min_n: usize) -> Judgement {
    if n < min_n.max(1) {
        return Judgement::out_of_reach(format!(
            "too few configurations: {n} (need at least {})",
            min_n.max(1)
        ));
    }
    let (lo, hi) = stats::wilson95(k, n).expect("k <= n, n > 0");
    let s = k as f64 / n as f64;
    let (verdict, reason) = if 2 * k > n && hi >= low {
        (
            Verdict::Reproduced,
            format!(
                "faster in {k} of {n} ({:.0}%), 95% CI {:.0}–{:.0}% reaches the seed's {:.0}%",
                s * 100.0,
                lo * 100.0,
                hi * 100.0,
                low * 100.0
            ),
        )
    } else if hi >= low {
        // Not a majority, but the interval still reaches the seed's share: these
        // configurations cannot tell the two apart.
        (
            Verdict::OutOfReach,
            format!(
                "inconclusive: faster in only {k} of {n} ({:.0}%), but the 95% CI {:.0}–{:.0}% \
                 still reaches the seed's {:.0}%: too few configurations to decide",
                s * 100.0,
                lo * 100.0,
                hi * 100.0,
                low * 100.0
            ),
        )
    } else if 2 * k <= n {
        (
            Verdict::Refuted,
            format!(
                "faster in only {k} of {n} ({:.0}%, 95% CI {:.0}–{:.0}% below the seed's \
                 {:.0}%): not a majority",
                s * 100.0,
                lo * 100.0,
                hi * 100.0,
                low * 100.0
            ),
        )
    } else {
        (
            Verdict::Refuted,
            format!(
                "faster in {k} of {n} ({:.0}%), but the 95% CI {:.0}–{:.0}% stays below the \
                 seed's {:.0}%",
                s * 100.0,
                lo * 100.0,
                hi * 100.0,
                low * 100.0
            ),
        )
    };
    Judgement {
        verdict,
        reason,
        p: None,
        ci: Some([lo, hi]),
    }
}

/// "The ratios are below `bound`" (fences(LCWS)/fences(WS) < 1%), over configurations, on
/// a log scale (ratios are skewed; a ratio of 0 counts as 1e-9): the 95% CI of the mean of
/// ln(ratio) — the geometric mean's CI — entirely below ln(bound) → reproduced; entirely
/// at or above → refuted; straddling it → out of reach (more configurations needed); fewer
/// than 2 ratios → out of reach. `ci` is the geometric mean's interval.
pub fn ratio_below(ratios: &[f64], bound: f64) -> Judgement {
    let logs: Vec<f64> = ratios.iter().map(|r| r.max(1e-9).ln()).collect();
    let Some(half) = stats::ci95_half_width(&logs) else {
        return Judgement::out_of_reach(format!(
            "too few configurations: {} (a CI needs 2)",
            ratios.len()
        ));
    };
    let m = stats::mean(&logs);
    let (lo, hi) = ((m - half).exp(), (m + half).exp());
    let (verdict, reason) = if hi < bound {
        (
            Verdict::Reproduced,
            format!("95% CI of the geometric mean {lo:.4}–{hi:.4} is below {bound}"),
        )
    } else if lo >= bound {
        (
            Verdict::Refuted,
            format!("95% CI of the geometric mean {lo:.4}–{hi:.4} is not below {bound}"),
        )
    } else {
        (
            Verdict::OutOfReach,
            format!(
                "95% CI of the geometric mean {lo:.4}–{hi:.4} contains {bound}: more \
                 configurations needed"
            ),
        )
    };
    Judgement {
        verdict,
        reason,
        p: None,
        ci: Some([lo, hi]),
    }
}

/// "`target` is the best of the contenders" (lowest run times): reproduced when it has the
/// lowest median and is significantly faster than the runner-up (Welch); refuted when it
/// is significantly slower than the best; otherwise out of reach (indistinguishable at
/// this sample size). `others` are (name, times).
pub fn best(target: &[f64], others: &[(String, Vec<f64>)]) -> Judgement {
    let Some((best_name, best_times)) = others
        .iter()
        .filter(|(_, t)| !t.is_empty())
        .min_by(|a, b| stats::median(&a.1).total_cmp(&stats::median(&b.1)))
    else {
        return Judgement::out_of_reach("no other contender measured");
    };
    if target.is_empty() {
        return Judgement::out_of_reach("the target was not measured");
    }
    let target_is_best = stats::median(target) <= stats::median(best_times);
    let j = faster(target, best_times);
    let mut out = match (target_is_best, j.verdict) {
        (true, Verdict::Reproduced) => Judgement {
            reason: format!("lowest median, and {} than {best_name}", j.reason),
            ..j
        },
        (false, Verdict::Refuted) if j.p.is_some_and(|p| p < 0.05) => Judgement {
            reason: format!("{best_name} is best; the target is {}", j.reason),
            ..j
        },
        _ => Judgement {
            verdict: Verdict::OutOfReach,
            reason: format!(
                "{} median; vs {best_name}: {} (indistinguishable here)",
                if target_is_best {
                    "lowest"
                } else {
                    "not the lowest"
                },
                j.reason
            ),
            ..j
        },
    };
    if out.p.is_none() {
        out.verdict = Verdict::OutOfReach;
    }
    out
}

/// "`a` is greater (or, with `expect_greater` false, smaller) than `b`" for two single
/// numbers without a sampling distribution (the YewPar thesis' Eq. 4.2 variability, one
/// per policy): the direction decides, with at least `min_n` runs behind each number
/// (`n`), else out of reach. There is no test: the reason says so.
pub fn direction(a: f64, b: f64, expect_greater: bool, n: usize, min_n: usize) -> Judgement {
    if n < min_n {
        return Judgement::out_of_reach(format!(
            "only {n} run(s) per policy: a max/min spread needs at least {min_n}"
        ));
    }
    let holds = if expect_greater { a > b } else { a < b };
    Judgement {
        verdict: if holds {
            Verdict::Reproduced
        } else {
            Verdict::Refuted
        },
        reason: format!(
            "{a:.2} vs {b:.2}: {} as the seed says (a direction, no significance test)",
            if holds {
                "the same order"
            } else {
                "not the order"
            }
        ),
        p: None,
        ci: None,
    }
}

/// A measurement's spread: median, 95% CI of the mean (Student t), min, max.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread {
    /// Values.
    pub n: usize,
    /// Median.
    pub median: f64,
    /// Mean.
    pub mean: f64,
    /// 95% CI of the mean, low end (absent for fewer than 2 values).
    pub ci95_low: Option<f64>,
    /// 95% CI of the mean, high end.
    pub ci95_high: Option<f64>,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
}

impl Spread {
    /// The spread of `x`; `None` when empty.
    pub fn of(x: &[f64]) -> Option<Spread> {
        if x.is_empty() {
            return None;
        }
        let mean = stats::mean(x);
        let half = stats::ci95_half_width(x);
        Some(Spread {
            n: x.len(),
            median: stats::median(x),
            mean,
            ci95_low: half.map(|h| mean - h),
            ci95_high: half.map(|h| mean + h),
            min: x.iter().copied().fold(f64::INFINITY, f64::min),
            max: x.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        })
    }

    fn short(&self) -> String {
        match (self.ci95_low, self.ci95_high) {
            (Some(lo), Some(hi)) => format!(
                "med {} (CI {}–{}, n={})",
                num(self.median),
                num(lo),
                num(hi),
                self.n
            ),
            _ => format!("med {} (n={})", num(self.median), self.n),
        }
    }
}

/// A number in 4 significant digits.
fn num(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let digits = (3 - x.abs().log10().floor() as i32).clamp(0, 9) as usize;
    format!("{x:.digits$}")
}

/// One headline claim of a seed, measured and judged. The JSON object of `--json`.
#[derive(Debug, Clone, Serialize)]
pub struct Claim {
    /// What the seed says (the first fields of the JSON object).
    #[serde(flatten)]
    pub said: Said,
    /// magpie's number (unit in `unit`), absent when not measured.
    pub magpie_value: Option<f64>,
    /// The unit of `magpie_value` (`%`, `x`, `s`, `ratio`, …).
    pub unit: String,
    /// The spread of the samples behind `magpie_value` (absent when not measured).
    pub spread: Option<Spread>,
    /// The statistical test.
    pub test: String,
    /// The test's two-sided p-value.
    pub p: Option<f64>,
    /// The test's 95% interval (of a difference of means, a share, or a mean).
    pub ci: Option<[f64; 2]>,
    /// The verdict.
    pub verdict: Verdict,
    /// Why (for out of reach: what is missing here).
    pub reason: String,
    /// The command that re-runs this claim.
    pub command: String,
    /// The child command that measured it (empty if none ran).
    pub measured_by: String,
    /// Whether this is a `--quick` row (tiny sizes: a smoke test, not a result).
    pub quick: bool,
}

/// What a seed says in one claim: the part of a [`Statement`] its [`Claim`] keeps as is.
#[derive(Debug, Clone, Serialize)]
pub struct Said {
    /// `lcws`, `pheet`, `yewpar` or `lb4omp`.
    pub seed: &'static str,
    /// The seed document (in `../shared/seeds/`).
    pub document: &'static str,
    /// The claim's id, e.g. `lcws.share-faster.lcws-signal`.
    pub claim: String,
    /// The seed's statement.
    pub statement: String,
    /// Where the seed says it (section, figure or table).
    pub source: String,
    /// The seed's number, as the seed gives it.
    pub seed_value: String,
}

/// What a claim states, before it is measured.
#[derive(Debug, Clone)]
pub struct Statement {
    /// What the seed says.
    pub said: Said,
    /// The unit of magpie's number.
    pub unit: &'static str,
    /// The statistical test.
    pub test: &'static str,
}

/// The context every claim of a run shares.
#[derive(Debug, Clone)]
pub struct Context {
    /// `--quick`.
    pub quick: bool,
    /// The command that re-runs the seed's claims.
    pub command: String,
    /// One sentence on this machine's scale vs the seed's (appended to every reason).
    pub scale: String,
}

impl Statement {
    /// The claim with its measurement and judgement.
    pub fn judged(
        self,
        ctx: &Context,
        magpie_value: Option<f64>,
        samples: &[f64],
        j: Judgement,
        measured_by: &str,
    ) -> Claim {
        let mut reason = j.reason;
        if !ctx.scale.is_empty() {
            let _ = write!(reason, "; {}", ctx.scale);
        }
        if ctx.quick {
            reason.push_str("; --quick: tiny sizes, a smoke test, not a result");
        }
        Claim {
            said: self.said,
            magpie_value,
            unit: self.unit.to_string(),
            spread: Spread::of(samples),
            test: self.test.to_string(),
            p: j.p,
            ci: j.ci,
            verdict: j.verdict,
            reason,
            command: ctx.command.clone(),
            measured_by: measured_by.to_string(),
            quick: ctx.quick,
        }
    }

    /// The claim when nothing could be measured.
    pub fn unmeasured(self, ctx: &Context, reason: &str, measured_by: &str) -> Claim {
        self.judged(ctx, None, &[], Judgement::out_of_reach(reason), measured_by)
    }
}

/// Every claim of `statements` unmeasured, for `reason`: what a seed's claims are when its
/// experiments cannot start at all (no program to run, no MPI, a failed child).
pub fn all_unmeasured(
    statements: impl IntoIterator<Item = Statement>,
    ctx: &Context,
    reason: &str,
) -> Vec<Claim> {
    statements
        .into_iter()
        .map(|s| s.unmeasured(ctx, reason, ""))
        .collect()
}

/// The text table of `claims`: one line per claim, its reason and source indented below.
pub fn table(claims: &[Claim]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<44} {:<20} {:>12} {:<34} {:<18}",
        "claim", "seed", "magpie", "spread", "verdict"
    );
    for c in claims {
        let value = c
            .magpie_value
            .map(|v| format!("{} {}", num(v), c.unit))
            .unwrap_or_else(|| "-".into());
        let spread = c.spread.map(|s| s.short()).unwrap_or_else(|| "-".into());
        let _ = writeln!(
            out,
            "{:<44} {:<20} {:>12} {:<34} {:<18}{}",
            c.said.claim,
            c.said.seed_value,
            value,
            spread,
            c.verdict.name(),
            if c.quick { " (quick)" } else { "" }
        );
        let _ = writeln!(out, "    {} [{}]", c.said.statement, c.said.source);
        let test = match (c.p, c.ci) {
            (Some(p), Some([lo, hi])) => {
                format!("{}: p = {p:.3}, 95% CI {}–{}", c.test, num(lo), num(hi))
            }
            (None, Some([lo, hi])) => format!("{}: 95% CI {}–{}", c.test, num(lo), num(hi)),
            _ => c.test.clone(),
        };
        let _ = writeln!(out, "    test: {test}");
        let _ = writeln!(out, "    why: {}", c.reason);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn around(centre: f64, n: usize) -> Vec<f64> {
        // Deterministic jitter of ±1%.
        (0..n)
            .map(|i| centre * (1.0 + 0.01 * ((i % 5) as f64 - 2.0) / 2.0))
            .collect()
    }

    #[test]
    fn clearly_faster_is_reproduced_clearly_slower_refuted() {
        let fast = around(1.0, 10);
        let slow = around(2.0, 10);
        let j = faster(&fast, &slow);
        assert_eq!(j.verdict, Verdict::Reproduced, "{j:?}");
        let [lo, hi] = j.ci.unwrap();
        assert!(lo < -0.9 && hi > -1.1 && hi < 0.0, "{lo} {hi}");
        assert!(j.p.unwrap() < 1e-6);
        let j = faster(&slow, &fast);
        assert_eq!(j.verdict, Verdict::Refuted, "{j:?}");
    }

    #[test]
    fn too_few_samples_are_out_of_reach() {
        assert_eq!(faster(&[1.0], &[2.0, 2.1]).verdict, Verdict::OutOfReach);
        assert_eq!(faster(&[], &[]).verdict, Verdict::OutOfReach);
        // No variance at all: Welch's t is undefined.
        assert_eq!(
            faster(&[1.0, 1.0], &[2.0, 2.0]).verdict,
            Verdict::OutOfReach
        );
        // Not significant with 3 runs: out of reach; with 10 identical-looking runs: refuted.
        let a = [1.0, 1.2, 0.9];
        let b = [1.05, 0.95, 1.1];
        assert_eq!(faster(&a, &b).verdict, Verdict::OutOfReach);
        let a = around(1.0, 10);
        let mut b = around(1.0, 10);
        b.reverse();
        assert_eq!(faster(&a, &b).verdict, Verdict::Refuted);
        // The same 10 samples pooled from configurations run twice each: too few runs.
        assert_eq!(faster_runs(&a, &b, 2).verdict, Verdict::OutOfReach);
        assert_eq!(ratio_below(&[0.005], 0.01).verdict, Verdict::OutOfReach);
        assert_eq!(share(1, 1, 0.65, 2).verdict, Verdict::OutOfReach);
    }

    #[test]
    fn not_slower_rules() {
        let a = around(1.0, 10);
        let mut b = around(1.0, 10);
        b.reverse();
        assert_eq!(not_slower(&a, &b).verdict, Verdict::Reproduced);
        assert_eq!(
            not_slower(&around(1.0, 10), &around(2.0, 10)).verdict,
            Verdict::Reproduced
        );
        assert_eq!(
            not_slower(&around(2.0, 10), &around(1.0, 10)).verdict,
            Verdict::Refuted
        );
        assert_eq!(
            not_slower(&[1.0, 1.2, 0.9], &[1.05, 0.95, 1.1]).verdict,
            Verdict::OutOfReach
        );
    }

    #[test]
    fn share_rules() {
        // 9 of 12 (75%), Wilson 95% CI 46.8–91.1%: reproduced.
        let j = share(9, 12, 0.65, 4);
        assert_eq!(j.verdict, Verdict::Reproduced, "{j:?}");
        let [lo, hi] = j.ci.unwrap();
        assert!(
            (lo - 0.467_7).abs() < 1e-3 && (hi - 0.911_1).abs() < 1e-3,
            "{lo} {hi}"
        );
        // 6 of 12 (CI 25.4–74.6%): not a majority, but the CI reaches 65%: undecided.
        assert_eq!(share(6, 12, 0.65, 4).verdict, Verdict::OutOfReach);
        // 10 of 40 (CI 14.2–40.2%): not a majority, and the CI stays below 65%.
        assert_eq!(share(10, 40, 0.65, 4).verdict, Verdict::Refuted);
        // 55 of 100 (CI 45.2–64.4%): a majority, but the CI stays below 65%.
        assert_eq!(share(55, 100, 0.65, 4).verdict, Verdict::Refuted);
        assert_eq!(share(2, 3, 0.65, 4).verdict, Verdict::OutOfReach);
    }

    #[test]
    fn ratio_below_rules() {
        let j = ratio_below(&[0.002, 0.008], 1.0);
        // ln 0.002 = −6.2146, ln 0.008 = −4.8283: mean −5.5215 (geometric mean 0.004),
        // sd 0.98026, half-width 12.7062 · 0.98026 / √2 = 8.8073.
        let [lo, hi] = j.ci.unwrap();
        assert!((lo - (-5.521_461 - 8.807_3f64).exp()).abs() < 1e-8, "{lo}");
        assert!((hi - (-5.521_461 + 8.807_3f64).exp()).abs() < 1e-3, "{hi}");
        assert_eq!(j.verdict, Verdict::OutOfReach);
        assert_eq!(
            ratio_below(&[0.002, 0.003, 0.004], 0.01).verdict,
            Verdict::Reproduced
        );
        assert_eq!(
            ratio_below(&[0.5, 0.6, 0.55], 0.4).verdict,
            Verdict::Refuted
        );
        assert_eq!(
            ratio_below(&[0.001, 0.05], 0.01).verdict,
            Verdict::OutOfReach
        );
        assert_eq!(
            ratio_below(&[0.0, 0.0, 0.0], 0.01).verdict,
            Verdict::Reproduced
        );
    }

    #[test]
    fn best_rules() {
        let others = vec![
            ("15%".to_string(), around(2.0, 8)),
            ("35%".to_string(), around(1.5, 8)),
        ];
        assert_eq!(best(&around(1.0, 8), &others).verdict, Verdict::Reproduced);
        assert_eq!(best(&around(3.0, 8), &others).verdict, Verdict::Refuted);
        assert_eq!(best(&around(1.5, 2), &others).verdict, Verdict::OutOfReach);
        assert_eq!(best(&[], &others).verdict, Verdict::OutOfReach);
    }

    #[test]
    fn direction_rules() {
        assert_eq!(
            direction(44.0, 23.6, true, 10, 5).verdict,
            Verdict::Reproduced
        );
        assert_eq!(direction(0.57, 1.22, true, 10, 5).verdict, Verdict::Refuted);
        assert_eq!(
            direction(0.57, 1.22, false, 10, 5).verdict,
            Verdict::Reproduced
        );
        assert_eq!(
            direction(44.0, 23.6, true, 2, 5).verdict,
            Verdict::OutOfReach
        );
    }

    #[test]
    fn verdict_names_are_the_allowed_ones() {
        for (v, name) in [
            (Verdict::Reproduced, "reproduced"),
            (Verdict::Refuted, "refuted"),
            (Verdict::OutOfReach, "out of reach here"),
        ] {
            assert_eq!(v.name(), name);
            assert_eq!(serde_json::to_value(v).unwrap(), name);
        }
    }
}
