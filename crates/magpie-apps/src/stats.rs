//! Pure statistics shared by `magpie experiment` (magpie-cli) and `magpie-bench`: median,
//! mean, sample standard deviation, the Student t distribution (for 95% confidence intervals
//! and p-values), Welch's t-test and the "aggregated result" of the Pheet thesis.
//!
//! The t distribution is computed, not tabled: its CDF through the regularised incomplete
//! beta function (a continued fraction, with a Lanczos log-gamma), and its quantiles by
//! bisection on the CDF, so any degrees of freedom work, fractional ones included (Welch's).

/// The arithmetic mean (`NaN` for an empty slice).
pub fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

/// The population coefficient of variation of `xs`, σ/μ (0 for fewer than two values or a
/// zero mean): the load-imbalance measure of the distributed reports.
///
/// ```
/// assert_eq!(magpie_apps::stats::cov(&[2.0, 2.0]), 0.0);
/// assert!((magpie_apps::stats::cov(&[1.0, 3.0]) - 0.5).abs() < 1e-12);
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

/// `ln Γ(x)` for `x > 0` (Lanczos, g = 7, nine coefficients: about 15 significant digits).
pub fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1 − x) = π / sin(πx).
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + G + 0.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The regularised incomplete beta function `I_x(a, b)` for `a, b > 0`, `0 ≤ x ≤ 1`.
pub fn incomplete_beta(x: f64, a: f64, b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let front = ln_front.exp();
    // The continued fraction converges fast for x < (a + 1) / (a + b + 2); use the
    // symmetry I_x(a, b) = 1 − I_{1−x}(b, a) otherwise.
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(x, a, b) / a
    } else {
        1.0 - front * beta_fraction(1.0 - x, b, a) / b
    }
}

/// The continued fraction of the incomplete beta function (modified Lentz).
fn beta_fraction(x: f64, a: f64, b: f64) -> f64 {
    const TINY: f64 = 1e-300;
    const EPS: f64 = 1e-16;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..=10_000 {
        let m = m as f64;
        let m2 = 2.0 * m;
        // Even step.
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        h *= d * c;
        // Odd step.
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let delta = d * c;
        h *= delta;
        if (delta - 1.0).abs() < EPS {
            break;
        }
    }
    h
}

/// The CDF of Student's t distribution with `df > 0` degrees of freedom.
pub fn t_cdf(t: f64, df: f64) -> f64 {
    // P(|T| > |t|) = I_{df / (df + t²)}(df / 2, 1 / 2).
    let tail = 0.5 * incomplete_beta(df / (df + t * t), df / 2.0, 0.5);
    if t > 0.0 {
        1.0 - tail
    } else {
        tail
    }
}

/// The two-sided p-value of `t` under Student's t with `df` degrees of freedom:
/// `P(|T| ≥ |t|)`.
pub fn t_two_sided_p(t: f64, df: f64) -> f64 {
    incomplete_beta(df / (df + t * t), df / 2.0, 0.5).clamp(0.0, 1.0)
}

/// The `p` quantile (`0 < p < 1`) of Student's t with `df > 0` degrees of freedom, by
/// bisection on [`t_cdf`] to about 1e-12.
pub fn t_quantile(p: f64, df: f64) -> f64 {
    assert!(p > 0.0 && p < 1.0 && df > 0.0, "t_quantile({p}, {df})");
    if p < 0.5 {
        return -t_quantile(1.0 - p, df);
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while t_cdf(hi, df) < p {
        lo = hi;
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if t_cdf(mid, df) < p {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-12 * hi.max(1.0) {
            break;
        }
    }
    0.5 * (lo + hi)
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
