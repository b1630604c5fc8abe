//! Reporting: rows of samples, paired ratios between runtimes, the best schedules, markdown.

use magpie_measure::stats;
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::exec::tail;
use super::{
    Config, Failure, Item, Kind, Runtime, RuntimeInfo, Sample, PROGRAMS, STANDARD_SCHEDULES,
};

/// One (program, params, schedule, threads, runtime)'s result; fields in the module's docs.
#[derive(Debug, Clone, Serialize)]
#[allow(missing_docs)]
pub struct Row {
    #[serde(flatten)]
    pub config: Config,
    pub runtime: &'static str,
    pub metric: &'static str,
    pub unit: &'static str,
    pub runs: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    pub mean_ci95: Option<[f64; 2]>,
    pub values: Vec<f64>,
    pub rounds_of_values: Vec<u32>,
    pub seconds_median: f64,
    pub check: String,
    pub omp_lib: String,
    pub schedule_reported: String,
    pub program_params: Value,
    pub stderr: String,
}

/// The row of one configuration's samples (at least one).
pub fn summarize(item: &Item, threads: usize, runtime: Runtime, samples: &[Sample]) -> Row {
    let values: Vec<f64> = samples.iter().map(|s| s.value).collect();
    let seconds: Vec<f64> = samples.iter().map(|s| s.seconds).collect();
    let mean = stats::mean(&values);
    let mut stderr: Vec<&str> = Vec::new();
    for s in samples {
        if !s.stderr.is_empty() && !stderr.contains(&s.stderr.as_str()) {
            stderr.push(&s.stderr);
        }
    }
    let overheads = item.program.kind == Kind::Overheads;
    let first = &samples[0];
    Row {
        config: item.config(threads),
        runtime: runtime.name(),
        metric: if overheads { "overhead_us" } else { "seconds" },
        unit: if overheads { "us" } else { "s" },
        runs: samples.len(),
        median: stats::median(&values),
        min: values.iter().copied().fold(f64::INFINITY, f64::min),
        max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        mean,
        mean_ci95: stats::ci95_half_width(&values).map(|h| [mean - h, mean + h]),
        values,
        rounds_of_values: samples.iter().map(|s| s.round).collect(),
        seconds_median: stats::median(&seconds),
        check: first.check.clone(),
        omp_lib: first.omp_lib.clone(),
        schedule_reported: first.schedule_reported.clone(),
        program_params: first.params.clone(),
        stderr: tail(&stderr.join("\n---\n"), 2000),
    }
}

/// Two rows compared: the last four fields of a [`Ratio`] and of a [`BestRatio`] (see the
/// module's docs), as [`paired_ratio`] computes them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Paired {
    /// The ratio of the medians (`None` unless both are positive).
    pub ratio: Option<f64>,
    /// The 95% CI of the geometric mean of the paired per-round ratios.
    pub ratio_ci95: Option<[f64; 2]>,
    /// Welch's two-sided p on the two rows' values.
    pub welch_p: Option<f64>,
    /// The paired rounds.
    pub rounds: usize,
}

/// The ratio of two rows' medians (`None` unless both are positive: an overhead lost in the
/// noise has no meaningful ratio), with the CI of the geometric mean of their per-round
/// ratios (rounds where both have a positive value), Welch's p on their values and the
/// paired rounds.
pub fn paired_ratio(num: &Row, den: &Row) -> Paired {
    let per_round = |r: &Row| -> BTreeMap<u32, Vec<f64>> {
        let mut m: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
        for (&round, &v) in r.rounds_of_values.iter().zip(&r.values) {
            m.entry(round).or_default().push(v);
        }
        m
    };
    let (n, d) = (per_round(num), per_round(den));
    let logs: Vec<f64> = n
        .iter()
        .filter_map(|(round, nv)| {
            let (a, b) = (stats::median_of(nv)?, stats::median_of(d.get(round)?)?);
            (a > 0.0 && b > 0.0).then(|| (a / b).ln())
        })
        .collect();
    let ci = stats::ci95_half_width(&logs).map(|h| {
        let m = stats::mean(&logs);
        [(m - h).exp(), (m + h).exp()]
    });
    let p = stats::welch(&num.values, &den.values).map(|w| w.p);
    let ratio = (num.median > 0.0 && den.median > 0.0).then(|| num.median / den.median);
    Paired {
        ratio,
        ratio_ci95: ci,
        welch_p: p,
        rounds: logs.len(),
    }
}

/// magpie against a peer in one (program, params, schedule, threads); fields in the
/// module's docs.
#[derive(Debug, Clone, Serialize)]
#[allow(missing_docs)]
pub struct Ratio {
    #[serde(flatten)]
    pub config: Config,
    pub metric: &'static str,
    pub ratio_of: String,
    pub magpie_median: f64,
    pub peer_median: f64,
    #[serde(flatten)]
    pub paired: Paired,
}

/// A runtime's fastest schedule of a loop application; fields in the module's docs.
#[derive(Debug, Clone, Serialize)]
#[allow(missing_docs)]
pub struct Best {
    pub program: String,
    pub params: String,
    pub threads: usize,
    pub runtime: &'static str,
    pub schedule: String,
    pub median: f64,
    pub schedules: usize,
}

/// magpie's best schedule against the best of the peers'; fields in the module's docs.
#[derive(Debug, Clone, Serialize)]
#[allow(missing_docs)]
pub struct BestRatio {
    pub program: String,
    pub params: String,
    pub threads: usize,
    pub magpie_schedule: String,
    pub magpie_median: f64,
    pub peer_runtime: &'static str,
    pub peer_schedule: String,
    pub peer_median: f64,
    pub ratio_of: &'static str,
    #[serde(flatten)]
    pub paired: Paired,
}

/// The whole report (the `--json` object); fields in the module's docs.
#[derive(Debug, Clone, Serialize)]
#[allow(missing_docs)]
pub struct Report {
    pub quick: bool,
    pub rounds: u32,
    pub threads: Vec<usize>,
    pub timeout_s: u64,
    pub env: String,
    pub runtimes: Vec<RuntimeInfo>,
    pub rows: Vec<Row>,
    pub ratios: Vec<Ratio>,
    pub best: Vec<Best>,
    pub best_ratios: Vec<BestRatio>,
    pub failures: Vec<Failure>,
}

/// The ratios magpie/libgomp and magpie/libomp of every configuration both ran.
pub fn ratios(rows: &[Row]) -> Vec<Ratio> {
    let mut out = Vec::new();
    for m in rows.iter().filter(|r| r.runtime == "magpie") {
        for peer in ["libgomp", "libomp"] {
            let Some(p) = rows
                .iter()
                .find(|r| r.runtime == peer && r.config == m.config)
            else {
                continue;
            };
            out.push(Ratio {
                config: m.config.clone(),
                metric: m.metric,
                ratio_of: format!("magpie/{peer}"),
                magpie_median: m.median,
                peer_median: p.median,
                paired: paired_ratio(m, p),
            });
        }
    }
    out
}

/// Each runtime's best schedule per loop application, and magpie's best against the peers'.
pub fn best(rows: &[Row]) -> (Vec<Best>, Vec<BestRatio>) {
    // (program, params, threads, runtime) → its rows with a schedule.
    let mut groups: BTreeMap<(String, String, usize, &'static str), Vec<&Row>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.config.schedule.is_some()) {
        groups
            .entry((
                r.config.program.clone(),
                r.config.params.clone(),
                r.config.threads,
                r.runtime,
            ))
            .or_default()
            .push(r);
    }
    let mut bests = Vec::new();
    let mut chosen: BTreeMap<(String, String, usize), Vec<&Row>> = BTreeMap::new();
    for ((program, params, threads, runtime), rs) in &groups {
        let b = rs
            .iter()
            .copied()
            .min_by(|a, b| a.median.total_cmp(&b.median))
            .expect("a group has a row");
        bests.push(Best {
            program: program.clone(),
            params: params.clone(),
            threads: *threads,
            runtime,
            schedule: b.config.schedule.clone().unwrap_or_default(),
            median: b.median,
            schedules: rs.len(),
        });
        chosen
            .entry((program.clone(), params.clone(), *threads))
            .or_default()
            .push(b);
    }
    let order = |program: &str| PROGRAMS.iter().position(|p| p.name == program);
    bests.sort_by_key(|b| (order(&b.program), b.params.clone(), b.threads));
    let mut ratios = Vec::new();
    for ((program, params, threads), bs) in &chosen {
        let Some(m) = bs.iter().find(|r| r.runtime == "magpie") else {
            continue;
        };
        let Some(p) = bs
            .iter()
            .filter(|r| r.runtime != "magpie")
            .min_by(|a, b| a.median.total_cmp(&b.median))
        else {
            continue;
        };
        ratios.push(BestRatio {
            program: program.clone(),
            params: params.clone(),
            threads: *threads,
            magpie_schedule: m.config.schedule.clone().unwrap_or_default(),
            magpie_median: m.median,
            peer_runtime: p.runtime,
            peer_schedule: p.config.schedule.clone().unwrap_or_default(),
            peer_median: p.median,
            ratio_of: "magpie-best/peer-best",
            paired: paired_ratio(m, p),
        });
    }
    ratios.sort_by_key(|b| (order(&b.program), b.params.clone(), b.threads));
    (bests, ratios)
}

/// `1.234` for a median in its unit (µs with two decimals).
fn fmt_value(v: f64, unit: &str) -> String {
    if unit == "us" {
        format!("{v:.2}")
    } else {
        format!("{v:.4}")
    }
}

/// `0.95 [0.90–1.01]`: a ratio with its CI.
fn fmt_ratio(r: Option<&Ratio>) -> String {
    match r {
        None => "-".into(),
        Some(r) => fmt_ratio_ci(r.paired.ratio, r.paired.ratio_ci95),
    }
}

pub(super) fn fmt_ratio_ci(ratio: Option<f64>, ci: Option<[f64; 2]>) -> String {
    // Three decimals, or three digits and an exponent for the wide CIs of a few rounds.
    let f = |x: f64| {
        if x.abs() < 1000.0 {
            format!("{x:.3}")
        } else {
            format!("{x:.2e}")
        }
    };
    match (ratio, ci) {
        (None, _) => "n/a".into(),
        (Some(r), Some([lo, hi])) => format!("{} [{}–{}]", f(r), f(lo), f(hi)),
        (Some(r), None) => f(r),
    }
}

/// The report as markdown: the runtimes, one table per kind of program, the best schedules,
/// and the failures with their stderr.
pub fn markdown(report: &Report) -> String {
    let mut out = String::from("# OpenMP programs on libgomp, libomp and magpie\n\n");
    let _ = writeln!(
        out,
        "{} round(s), threads {:?}{}; medians of the runs; a ratio is magpie's median over the \
         peer's (below 1: magpie is faster), [95% CI of the geometric mean of the per-round \
         ratios].\n",
        report.rounds,
        report.threads,
        if report.quick {
            ", --quick (a smoke test, not a measurement)"
        } else {
            ""
        }
    );
    for r in &report.runtimes {
        let _ = writeln!(
            out,
            "- {}: {}",
            r.runtime,
            match (&r.reason, &r.lib) {
                (Some(why), _) => format!("**skipped**: {why}"),
                (None, Some(lib)) => format!("LD_PRELOAD={lib}"),
                (None, None) => "as linked".to_string(),
            }
        );
    }
    if !report.env.is_empty() {
        let _ = writeln!(out, "- inherited: `{}`", report.env);
    }
    out.push('\n');

    let row = |r: &Row, rt: &str| -> Option<&Row> {
        let same = |x: &&Row| x.runtime == rt && x.config == r.config;
        report.rows.iter().find(same)
    };
    let ratio = |r: &Row, of: &str| -> Option<&Ratio> {
        let same = |x: &&Ratio| x.ratio_of == of && x.config == r.config;
        report.ratios.iter().find(same)
    };
    // One line per (program, params, schedule, threads), from its first row.
    let mut seen = BTreeSet::new();
    let firsts: Vec<&Row> = report
        .rows
        .iter()
        .filter(|r| seen.insert(&r.config))
        .collect();
    let kind_of = |r: &Row| {
        PROGRAMS
            .iter()
            .find(|p| p.name == r.config.program)
            .map(|p| p.kind)
    };
    let standard = |r: &Row| {
        r.config
            .schedule
            .as_deref()
            .is_none_or(|s| STANDARD_SCHEDULES.contains(&s.split(',').next().unwrap_or_default()))
    };
    type Keep<'a> = Box<dyn Fn(&Row) -> bool + 'a>;
    let sections: [(&str, Keep); 4] = [
        (
            "Construct overheads (µs per construct, EPCC style)",
            Box::new(|r| kind_of(r) == Some(Kind::Overheads)),
        ),
        (
            "Task programs (seconds)",
            Box::new(|r| kind_of(r) == Some(Kind::Tasks)),
        ),
        (
            "Loop applications, OpenMP's schedules (seconds)",
            Box::new(|r| kind_of(r) == Some(Kind::Loop) && standard(r)),
        ),
        (
            "Loop applications, magpie's schedules (seconds, magpie only)",
            Box::new(|r| kind_of(r) == Some(Kind::Loop) && !standard(r)),
        ),
    ];
    for (si, (title, keep)) in sections.iter().enumerate() {
        let lines: Vec<&&Row> = firsts.iter().filter(|r| keep(r)).collect();
        if lines.is_empty() {
            continue;
        }
        let _ = writeln!(out, "## {title}\n");
        if si == 3 {
            out.push_str("| program | params | schedule | threads | magpie | 95% CI of the mean |\n|---|---|---|---|---|---|\n");
            for r in lines {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} |",
                    r.config.cells(),
                    fmt_value(r.median, r.unit),
                    r.mean_ci95.map_or("-".into(), |[lo, hi]| format!(
                        "{}–{}",
                        fmt_value(lo, r.unit),
                        fmt_value(hi, r.unit)
                    ))
                );
            }
        } else {
            out.push_str("| program | params | schedule | threads | libgomp | libomp | magpie | magpie/libgomp | magpie/libomp |\n|---|---|---|---|---|---|---|---|---|\n");
            for r in lines {
                let cell =
                    |rt: &str| row(r, rt).map_or("-".into(), |x| fmt_value(x.median, x.unit));
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {} |",
                    r.config.cells(),
                    cell("libgomp"),
                    cell("libomp"),
                    cell("magpie"),
                    fmt_ratio(ratio(r, "magpie/libgomp")),
                    fmt_ratio(ratio(r, "magpie/libomp")),
                );
            }
        }
        out.push('\n');
    }

    if !report.best.is_empty() {
        out.push_str("## Best schedule per runtime (loop applications)\n\n");
        out.push_str("| program | params | threads | libgomp | libomp | magpie | magpie-best/peer-best |\n|---|---|---|---|---|---|---|\n");
        let mut keys = BTreeSet::new();
        for b in &report.best {
            if !keys.insert((&b.program, &b.params, b.threads)) {
                continue;
            }
            let cell = |rt: &str| {
                report
                    .best
                    .iter()
                    .find(|x| {
                        x.runtime == rt
                            && x.program == b.program
                            && x.params == b.params
                            && x.threads == b.threads
                    })
                    .map_or("-".into(), |x| format!("{} {:.4}", x.schedule, x.median))
            };
            let br = report
                .best_ratios
                .iter()
                .find(|x| x.program == b.program && x.params == b.params && x.threads == b.threads)
                .map_or("-".into(), |x| {
                    format!(
                        "{} (vs {} {})",
                        fmt_ratio_ci(x.paired.ratio, x.paired.ratio_ci95),
                        x.peer_runtime,
                        x.peer_schedule
                    )
                });
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} |",
                b.program,
                b.params,
                b.threads,
                cell("libgomp"),
                cell("libomp"),
                cell("magpie"),
                br
            );
        }
        out.push('\n');
    }

    if !report.failures.is_empty() {
        let _ = writeln!(out, "## Failures ({})\n", report.failures.len());
        for f in &report.failures {
            let _ = writeln!(
                out,
                "- round {}, {}: **{}**\n  `{}`",
                f.round, f.runtime, f.error, f.command
            );
            if !f.stderr.is_empty() {
                let _ = writeln!(out, "\n  ```\n{}\n  ```", f.stderr);
            }
        }
        out.push('\n');
    }
    out
}
