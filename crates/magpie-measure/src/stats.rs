//! Statistics of the measurements: median, mean, sample standard deviation, the Student t
//! distribution (95% confidence intervals and p-values), Welch's t-test and the "aggregated
//! result" of the Pheet thesis.
//!
//! The t distribution comes from [statrs](https://docs.rs/statrs) (its CDF through the
//! regularised incomplete beta function, its quantiles by inverting that function and a few
//! Newton steps on the CDF), so any
//! degrees of freedom work, fractional ones included (Welch's).

use std::time::Duration;

use statrs::distribution::{Continuous, ContinuousCDF, StudentsT};
use statrs::function::beta::beta_reg;

/// The arithmetic mean (`NaN` for an empty slice).
pub fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

/// The population coefficient of variation of `xs`, σ/μ (0 for fewer than two values or a
/// zero mean): the load-imbalance measure of the distributed reports.
///
/// ```
/// assert_eq!(magpie_measure::stats::cov(&[2.0, 2.0]), 0.0);
/// assert!((magpie_measure::stats::cov(&[1.0, 3.0]) - 0.5).abs() < 1e-12);
/// ```
pub fn cov(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 || mean == 0.0 {
        return 0.0;
    }
    (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt() / mean
}

/// The median: the middle value, or the mean of the two middle values (`NaN` if empty).
pub fn median(x: &[f64]) -> f64 {
    if x.is_empty() {
        return f64::NAN;
    }
    let mut v = x.to_vec();
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// Median, fastest and slowest of `times`, in seconds (the median of an even count is the
/// mean of the middle two). All zero for no times.
///
/// ```
/// use std::time::Duration;
/// let ms = |m| Duration::from_millis(m);
/// assert_eq!(magpie_measure::stats::median_min_max(&[ms(30), ms(10), ms(20)]), (0.02, 0.01, 0.03));
/// ```
pub fn median_min_max(times: &[Duration]) -> (f64, f64, f64) {
    if times.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    let s: Vec<f64> = times.iter().map(Duration::as_secs_f64).collect();
    let min = s.iter().copied().fold(f64::INFINITY, f64::min);
    let max = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (median(&s), min, max)
}

/// [`median_min_max`] of times given in seconds (each first rounded to a [`Duration`], a
/// whole number of nanoseconds).
///
/// ```
/// assert_eq!(magpie_measure::stats::median_min_max_s(&[0.03, 0.01, 0.02]), (0.02, 0.01, 0.03));
/// ```
pub fn median_min_max_s(seconds: &[f64]) -> (f64, f64, f64) {
    let d: Vec<Duration> = seconds
        .iter()
        .map(|&s| Duration::from_secs_f64(s))
        .collect();
    median_min_max(&d)
}

/// The median of `x`, `None` for no values.
pub fn median_of(x: &[f64]) -> Option<f64> {
    (!x.is_empty()).then(|| median(x))
}

/// The sample variance (denominator `n − 1`); `None` for fewer than two values.
pub fn variance(x: &[f64]) -> Option<f64> {
    if x.len() < 2 {
        return None;
    }
    let m = mean(x);
    Some(x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (x.len() - 1) as f64)
}

/// The sample standard deviation (denominator `n − 1`); `None` for fewer than two values.
pub fn sd(x: &[f64]) -> Option<f64> {
    variance(x).map(f64::sqrt)
}

/// The half-width of the 95% confidence interval of the mean, `t(0.975, n − 1) · sd / √n`;
/// `None` for fewer than two values.
pub fn ci95_half_width(x: &[f64]) -> Option<f64> {
    let s = sd(x)?;
    let n = x.len() as f64;
    Some(t_quantile(0.975, n - 1.0) * s / n.sqrt())
}

/// Student's t distribution with `df > 0` degrees of freedom (fractional ones included,
/// as Welch's are), from statrs.
fn students_t(df: f64) -> StudentsT {
    StudentsT::new(0.0, 1.0, df).unwrap_or_else(|e| panic!("Student's t with {df} df: {e}"))
}

/// The CDF of Student's t distribution with `df > 0` degrees of freedom.
///
/// ```
/// // df = 1 is the Cauchy distribution: F(1) = 3/4.
/// assert!((magpie_measure::stats::t_cdf(1.0, 1.0) - 0.75).abs() < 1e-12);
/// ```
pub fn t_cdf(t: f64, df: f64) -> f64 {
    students_t(df).cdf(t)
}

/// The two-sided p-value of `t` under Student's t with `df` degrees of freedom:
/// `P(|T| ≥ |t|) = I_{df / (df + t²)}(df / 2, 1 / 2)`.
pub fn t_two_sided_p(t: f64, df: f64) -> f64 {
    assert!(df > 0.0, "t_two_sided_p({t}, {df})");
    beta_reg(df / 2.0, 0.5, df / (df + t * t)).clamp(0.0, 1.0)
}

/// The `p` quantile (`0 < p < 1`) of Student's t with `df > 0` degrees of freedom.
///
/// ```
/// // The two-sided 95% critical value with 4 degrees of freedom, as in every t table.
/// assert!((magpie_measure::stats::t_quantile(0.975, 4.0) - 2.776_445_105).abs() < 1e-6);
/// ```
pub fn t_quantile(p: f64, df: f64) -> f64 {
    assert!(p > 0.0 && p < 1.0 && df > 0.0, "t_quantile({p}, {df})");
    let t = students_t(df);
    // statrs' inverse (through its inverse incomplete beta function) loses accuracy for
    // very many degrees of freedom (1.83 instead of 1.96 for p = 0.975 and 10^7 df, which
    // `t_quantiles_match_the_tables` caught); a few Newton steps on statrs' own CDF polish
    // it, and leave an accurate start as it is.
    let mut x = t.inverse_cdf(p);
    if !x.is_finite() {
        x = 0.0;
    }
    for _ in 0..50 {
        let step = (t.cdf(x) - p) / t.pdf(x);
        if !step.is_finite() {
            break;
        }
        x -= step;
        if step.abs() <= 1e-14 * x.abs().max(1.0) {
            break;
        }
    }
    x
}

/// The result of Welch's t-test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Welch {
    /// `(mean(a) − mean(b)) / sqrt(var(a)/n_a + var(b)/n_b)`.
    pub t: f64,
    /// The Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// The two-sided p-value.
    pub p: f64,
}

impl Welch {
    /// Whether the difference is significant at the 5% level (`|t|` above the 97.5%
    /// quantile of t with `df` degrees of freedom, i.e. `p < 0.05`).
    pub fn significant(&self) -> bool {
        self.p < 0.05
    }
}

/// Welch's unequal-variances t-test of `a` against `b`; `None` if either has fewer than two
/// values or both have zero variance (the statistic is undefined).
pub fn welch(a: &[f64], b: &[f64]) -> Option<Welch> {
    let (va, vb) = (variance(a)?, variance(b)?);
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let (sa, sb) = (va / na, vb / nb);
    let se2 = sa + sb;
    if se2 <= 0.0 || !se2.is_finite() {
        return None;
    }
    let t = (mean(a) - mean(b)) / se2.sqrt();
    let df = se2 * se2 / (sa * sa / (na - 1.0) + sb * sb / (nb - 1.0));
    Some(Welch {
        t,
        df,
        p: t_two_sided_p(t, df),
    })
}

/// The 95% confidence interval of the difference of the means, `mean(a) − mean(b)`, with
/// Welch's standard error and degrees of freedom (`diff ± t(0.975, df) · se`); `None` where
/// [`welch`] is undefined.
///
/// ```
/// // a: mean 3, var 2.5; b: mean 6, var 10 (n = 5 each): se = sqrt(2.5), df = 5.882.
/// let (lo, hi) = magpie_measure::stats::welch_ci95(&[1., 2., 3., 4., 5.], &[2., 4., 6., 8., 10.]).unwrap();
/// assert!((lo + hi) / 2.0 + 3.0 < 1e-12 && lo < -3.0 && hi > 0.0);
/// ```
pub fn welch_ci95(a: &[f64], b: &[f64]) -> Option<(f64, f64)> {
    let (va, vb) = (variance(a)?, variance(b)?);
    let se2 = va / a.len() as f64 + vb / b.len() as f64;
    let w = welch(a, b)?;
    let diff = mean(a) - mean(b);
    let half = t_quantile(0.975, w.df) * se2.sqrt();
    Some((diff - half, diff + half))
}

/// The normal distribution's 97.5% quantile (the two-sided 95% critical value).
pub const Z95: f64 = 1.959_963_984_540_054;

/// The Wilson score 95% interval of a proportion: `k` successes out of `n` trials (the share
/// of configurations where one scheduler is faster, as LCWS reports it); `None` for `n = 0`
/// or `k > n`. Unlike the normal approximation it stays within [0, 1] and is not empty at
/// `k = 0` or `k = n`.
///
/// ```
/// let (lo, hi) = magpie_measure::stats::wilson95(5, 10).unwrap();
/// assert!((lo - 0.236_593).abs() < 1e-6 && (hi - 0.763_407).abs() < 1e-6);
/// ```
pub fn wilson95(k: usize, n: usize) -> Option<(f64, f64)> {
    if n == 0 || k > n {
        return None;
    }
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = Z95 / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Some(((centre - half).max(0.0), (centre + half).min(1.0)))
}

/// The "speedup percentage" of Xie's YewPar thesis (seed 000, §4.3.1, Eq. 4.1), as printed:
/// `(T_base − T_candidate) / T_candidate × 100` (the thesis' `T_DepthPool` and
/// `T_Performance-Driven`). Positive: the candidate is faster.
///
/// Erratum (the digest in `notes/yewpar-performance-policy.md`): the thesis' quoted figures
/// (11.41% at 5 nodes, …) divide by `T_base` instead, which is [`reduction_pct`]; compare
/// with those.
///
/// ```
/// // The thesis' Maxclique at 5 nodes (§4.3.1): PD 61,385 ms, DP 69,292 ms.
/// let eq41 = magpie_measure::stats::speedup_pct(69_292.0, 61_385.0);
/// assert!((eq41 - 12.881_1).abs() < 1e-3);
/// ```
pub fn speedup_pct(t_base: f64, t_candidate: f64) -> f64 {
    (t_base - t_candidate) / t_candidate * 100.0
}

/// The reduction of the run time, `(T_base − T_candidate) / T_base × 100`: the definition
/// behind the YewPar thesis' quoted speed-up figures (seed 000, §4.3–4.4; see
/// [`speedup_pct`] for the printed Eq. 4.1). Positive: the candidate is faster.
///
/// ```
/// // The thesis' quoted 11.41% for Maxclique at 5 nodes (§4.3.1, PD 61,385 ms, DP 69,292 ms).
/// let r = magpie_measure::stats::reduction_pct(69_292.0, 61_385.0);
/// assert!((r - 11.411).abs() < 1e-3);
/// ```
pub fn reduction_pct(t_base: f64, t_candidate: f64) -> f64 {
    (t_base - t_candidate) / t_base * 100.0
}

/// The "variability percentage" of the YewPar thesis (seed 000, §4.3.1, Eq. 4.2):
/// `(max − min) / min × 100` of one configuration's run times; `None` for no values or a
/// minimum of zero.
///
/// ```
/// assert_eq!(magpie_measure::stats::variability_pct(&[2.0, 3.0, 2.5]), Some(50.0));
/// assert_eq!(magpie_measure::stats::variability_pct(&[]), None);
/// ```
pub fn variability_pct(x: &[f64]) -> Option<f64> {
    let min = x.iter().copied().fold(f64::INFINITY, f64::min);
    let max = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (min.is_finite() && min > 0.0).then(|| (max - min) / min * 100.0)
}

/// Each value divided by the mean of the values: one benchmark's times of all
/// configurations, normalised (they average to 1).
pub fn relative(times: &[f64]) -> Vec<f64> {
    let m = mean(times);
    times.iter().map(|t| t / m).collect()
}

/// The "aggregated result" of the Pheet thesis: `times[b][c]` is benchmark `b`'s time
/// under configuration `c`; per benchmark each configuration's time is divided by the mean
/// over configurations ([`relative`]), then averaged over benchmarks. One value per
/// configuration; they average to 1 (below 1: faster than the average configuration).
pub fn aggregated(times: &[Vec<f64>]) -> Vec<f64> {
    let configs = times.first().map_or(0, Vec::len);
    let mut sum = vec![0.0; configs];
    for row in times {
        assert_eq!(
            row.len(),
            configs,
            "every benchmark has every configuration"
        );
        for (s, r) in sum.iter_mut().zip(relative(row)) {
            *s += r;
        }
    }
    sum.iter().map(|s| s / times.len() as f64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} vs {b} (tolerance {tol})");
    }

    #[test]
    fn summary_of_one_to_five() {
        let x = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(mean(&x), 3.0);
        assert_eq!(median(&x), 3.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[7.0]), 7.0);
        assert_eq!(variance(&x), Some(2.5));
        close(sd(&x).unwrap(), 2.5f64.sqrt(), 1e-15);
        // t(0.975, 4) = 2.7764451052; half-width = t · sqrt(2.5) / sqrt(5).
        close(
            ci95_half_width(&x).unwrap(),
            2.776_445_105_2 * (2.5f64 / 5.0).sqrt(),
            1e-9,
        );
        assert_eq!(sd(&[1.0]), None);
        assert_eq!(ci95_half_width(&[1.0]), None);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn log_gamma() {
        // The old hand-written Lanczos log-gamma's checks, now of statrs' (which the t
        // distribution's incomplete beta function uses).
        use statrs::function::gamma::ln_gamma;
        close(ln_gamma(1.0), 0.0, 1e-14);
        close(ln_gamma(2.0), 0.0, 1e-14);
        close(ln_gamma(5.0), 24f64.ln(), 1e-13);
        close(ln_gamma(0.5), std::f64::consts::PI.sqrt().ln(), 1e-14);
        close(ln_gamma(0.1), 2.252_712_651_734_206, 1e-13);
    }

    #[test]
    fn t_distribution_closed_forms() {
        // df = 1 is the Cauchy distribution: F(t) = 1/2 + atan(t)/π.
        for t in [-3.0, -1.0, 0.0, 0.5, 1.0, 10.0] {
            close(
                t_cdf(t, 1.0),
                0.5 + f64::atan(t) / std::f64::consts::PI,
                1e-13,
            );
        }
        close(t_two_sided_p(1.0, 1.0), 0.5, 1e-14);
        // df = 2: F(t) = 1/2 + t / (2 sqrt(2 + t²)).
        for t in [-2.0, 0.3, 1.0, 4.0] {
            close(t_cdf(t, 2.0), 0.5 + t / (2.0 * (2.0 + t * t).sqrt()), 1e-13);
        }
        // Quantiles: df = 1, tan(π (p − 1/2)); df = 2, (2p − 1) sqrt(2 / (4p(1 − p))).
        close(
            t_quantile(0.975, 1.0),
            (std::f64::consts::PI * 0.475).tan(),
            1e-9,
        );
        let p: f64 = 0.975;
        close(
            t_quantile(p, 2.0),
            (2.0 * p - 1.0) * (2.0 / (4.0 * p * (1.0 - p))).sqrt(),
            1e-10,
        );
    }

    #[test]
    fn t_quantiles_match_the_tables() {
        // Two-sided 95% critical values, as printed in every t table.
        for (df, want) in [
            (1.0, 12.706_204_736),
            (2.0, 4.302_652_730),
            (3.0, 3.182_446_305),
            (4.0, 2.776_445_105),
            (9.0, 2.262_157_163),
            (10.0, 2.228_138_852),
            (19.0, 2.093_024_054),
            (30.0, 2.042_272_456),
            (100.0, 1.983_971_519),
            (1e7, 1.959_964_0),
        ] {
            close(t_quantile(0.975, df), want, 1e-6);
        }
        close(t_quantile(0.025, 4.0), -2.776_445_105, 1e-6);
        close(t_quantile(0.5, 7.0), 0.0, 1e-9);
        // A two-sided p-value from a table: P(|T| > 2.0) with 10 df.
        close(t_two_sided_p(2.0, 10.0), 0.073_388_03, 1e-7);
        close(t_two_sided_p(-2.0, 10.0), 0.073_388_03, 1e-7);
        close(t_two_sided_p(0.0, 5.0), 1.0, 1e-12);
    }

    #[test]
    fn welch_by_hand() {
        // a: mean 3, var 2.5; b: mean 6, var 10; n = 5 each.
        // se² = 2.5/5 + 10/5 = 2.5, t = −3 / sqrt(2.5) = −1.8973665961;
        // df = 2.5² / (0.5²/4 + 2²/4) = 6.25 / 1.0625 = 5.8823529412.
        let a = [1.0, 2.0, 3.0, 4.0, 5.0];
        let b = [2.0, 4.0, 6.0, 8.0, 10.0];
        let w = welch(&a, &b).unwrap();
        close(w.t, -3.0 / 2.5f64.sqrt(), 1e-12);
        close(w.df, 6.25 / 1.0625, 1e-12);
        // Two-sided p by numerical integration of the t density with 5.882 df (Simpson,
        // 10^6 intervals): 0.1075312.
        close(w.p, 0.107_531_2, 1e-6);
        assert!(!w.significant());
        let w2 = welch(&b, &a).unwrap();
        close(w2.t, -w.t, 1e-12);
        close(w2.p, w.p, 1e-12);

        // Unequal sizes: a = [10, 11, 12] (mean 11, var 1), b = [1, 2, 3, 4] (mean 2.5,
        // var 5/3): se² = 1/3 + 5/12 = 0.75, t = 8.5 / sqrt(0.75) = 9.8149545,
        // df = 0.5625 / ((1/3)²/2 + (5/12)²/3) = 0.5625 / 0.1134259 = 4.9591837.
        let w = welch(&[10.0, 11.0, 12.0], &[1.0, 2.0, 3.0, 4.0]).unwrap();
        close(w.t, 8.5 / 0.75f64.sqrt(), 1e-12);
        close(w.df, 0.5625 / (1.0 / 18.0 + 25.0 / 432.0), 1e-12);
        // p by the same integration: 0.00019567.
        close(w.p, 0.000_195_67, 1e-7);
        assert!(w.significant(), "{w:?}");

        assert_eq!(welch(&[1.0], &[1.0, 2.0]), None);
        assert_eq!(welch(&[2.0, 2.0], &[3.0, 3.0]), None);
    }

    #[test]
    fn wilson_and_the_thesis_formulas() {
        // Wilson 95%: 0 of 10 → [0, z²/n / (1 + z²/n)] = [0, 0.277533]; 10 of 10 mirrored.
        let (lo, hi) = wilson95(0, 10).unwrap();
        close(lo, 0.0, 1e-15);
        close(hi, 0.384_146 / 1.384_146, 1e-6);
        let (lo, hi) = wilson95(10, 10).unwrap();
        close(lo, 1.0 - 0.384_146 / 1.384_146, 1e-6);
        close(hi, 1.0, 1e-15);
        assert_eq!(wilson95(1, 0), None);
        assert_eq!(wilson95(3, 2), None);
        // The thesis' NS at 20 nodes: PD 8,965 ms, DP 9,968 ms → quoted 10.06% = reduction.
        close(reduction_pct(9_968.0, 8_965.0), 10.062_2, 1e-3);
        close(speedup_pct(9_968.0, 8_965.0), 11.188_0, 1e-3);
        assert_eq!(variability_pct(&[4.0, 5.0]), Some(25.0));
        assert_eq!(variability_pct(&[0.0, 1.0]), None);
        // Welch's CI of the difference: a = [10, 11, 12], b = [1, 2, 3, 4]: diff 8.5,
        // se = sqrt(0.75), df = 4.9591837, t(0.975, 4.959) = 2.5758 (by the quantile above).
        let (lo, hi) = welch_ci95(&[10.0, 11.0, 12.0], &[1.0, 2.0, 3.0, 4.0]).unwrap();
        let half = t_quantile(0.975, 0.5625 / (1.0 / 18.0 + 25.0 / 432.0)) * 0.75f64.sqrt();
        close(lo, 8.5 - half, 1e-12);
        close(hi, 8.5 + half, 1e-12);
        assert!(lo > 6.0 && hi < 11.0, "{lo} {hi}");
    }

    #[test]
    fn aggregated_result_of_a_small_matrix() {
        // Benchmark 1: times 1 and 3 (mean 2) → 0.5, 1.5; benchmark 2: 2 and 2 → 1, 1.
        assert_eq!(relative(&[1.0, 3.0]), vec![0.5, 1.5]);
        assert_eq!(
            aggregated(&[vec![1.0, 3.0], vec![2.0, 2.0]]),
            vec![0.75, 1.25]
        );
        // Three configurations, two benchmarks on very different scales: only the ratios
        // count. Benchmark 1: 2, 4, 6 (mean 4) → 0.5, 1, 1.5; benchmark 2: 300, 100, 200
        // (mean 200) → 1.5, 0.5, 1.
        let agg = aggregated(&[vec![2.0, 4.0, 6.0], vec![300.0, 100.0, 200.0]]);
        for (got, want) in agg.iter().zip([1.0, 0.75, 1.25]) {
            close(*got, want, 1e-12);
        }
        close(mean(&agg), 1.0, 1e-12);
    }
}
