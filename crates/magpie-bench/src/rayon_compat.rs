//! `magpie-bench rayon-program`: one rayon program, built twice, measured side by side.
//!
//! `bench/rayon-program` is a plain rayon program (par_iter map/sum and map/collect,
//! par_sort and par_sort_unstable of 10M keys, par_chunks_mut, a fine-grained join tree,
//! an irregular map, n-body, a blocked matrix multiply, and bursts of work between sleeps).
//! `scripts/rayon-bench.sh` builds it with rayon's own rayon-core and with magpie's
//! (`crates/magpie-rayon-core`, through `[patch.crates-io]`), and runs this subcommand on the
//! two binaries:
//!
//! ```text
//! magpie-bench rayon-program --rayon BIN --magpie BIN [--workers 1,2] [--rounds 5]
//!     [--reps 3] [--warmup 1] [--quick] [--workloads map-sum,fib,…] [--json FILE]
//!     [--timeout SECS]
//! ```
//!
//! **Identity.** First each binary is asked `BIN info`, which says from the code that runs
//! which core it is (`rayon` or `magpie`: the source files of its workers' frames and the
//! names of rayon-core's types) and what its Cargo.lock said at build time. The `--rayon`
//! binary must run rayon's core (else an error); a `--magpie` binary that runs rayon's core
//! too (the script's `--magpie-core upstream`, to check the pipeline) is a warning: its
//! ratios compare rayon with itself. Both must list the same workloads (`BIN list`).
//!
//! **Runs.** `--rounds` interleaved rounds (`magpie_measure::rounds`); each round runs, for
//! every workload and `--workers` count, both binaries one after the other, rayon's first in
//! odd rounds and magpie's first in even ones, each as one process
//! `BIN WORKLOAD --threads W --reps R --warmup U [--quick]` that prints one JSON line per timed
//! run (`seconds`, `cpu_seconds`: user + system time of the process over the run, `check`,
//! `core`; see the program's own documentation). Children inherit the environment: `MAGPIE_*`
//! variables configure the magpie build's pools. Every check value of a workload — both
//! binaries, every worker count and round — must be the same, and each binary checks its
//! own results (a wrong one exits non-zero); a failed, timed-out or inconsistent process is
//! an error for its (workload, workers) pair, reported at the end (exit status 1) after the
//! others ran.
//!
//! **Report.** Per workload and worker count: the median time of each binary over all its
//! timed runs, the ratio of the medians magpie/rayon (below 1: magpie is faster), the 95%
//! CI of the geometric mean of the per-round ratios (each round's median magpie time over
//! its median rayon time: paired, as the rounds interleave the two; the same log-scale
//! interval as `reproduce`'s ratio claims), Welch's t-test p on the run times, and the same
//! for the CPU time (median CPU seconds and their ratio). `bursts` has a target: magpie's
//! CPU time at most half of rayon's (`cpu_ratio <= 0.5`, PASS or MISS); its `seconds` are
//! the bursts' wall time without the sleeps between them. The table goes to stdout;
//! `--json FILE` writes the rows as a JSON array, one object per (workload, workers):
//!
//! | field | meaning |
//! |---|---|
//! | `workload`, `size`, `workers` | the workload, its size (in the program's unit: `BIN list`), the threads |
//! | `rounds`, `runs` | timed rounds done; timed runs per binary (rounds × `--reps`) |
//! | `rayon_median_s`, `rayon_min_s`, `rayon_max_s` | rayon's run times: median, fastest, slowest |
//! | `magpie_median_s`, `magpie_min_s`, `magpie_max_s` | the same for magpie |
//! | `ratio_of`, `ratio` | `"magpie/rayon"`, `magpie_median_s / rayon_median_s` |
//! | `ratio_ci95` | `[low, high]`: 95% CI of the geometric mean of the per-round ratios (null for fewer than 2 rounds) |
//! | `welch_p` | Welch's two-sided p on the two binaries' run times (null where undefined) |
//! | `rayon_cpu_median_s`, `magpie_cpu_median_s`, `cpu_ratio` | median CPU seconds per run, and their ratio magpie/rayon |
//! | `target`, `verdict` | `"cpu_ratio <= 0.5"` and `"PASS"`/`"MISS"` for bursts; absent otherwise |
//! | `check` | the check value both binaries gave (hex) |
//! | `rayon_core`, `magpie_core` | what each binary's `info` found it runs on: `rayon` or `magpie` |
//! | `magpie_env` | the `MAGPIE_*` variables the children inherited (`NAME=value`, space-separated) |
//! | `rayon_times_s`, `magpie_times_s`, `rayon_cpu_s`, `magpie_cpu_s` | every timed run, in order |

use magpie_measure::process::{describe, run_to_end, JsonLine};
use magpie_measure::report::{failures, Table};
use magpie_measure::rounds::rounds;
use magpie_measure::stats;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The bursts' target: magpie's CPU time at most this share of rayon's.
const BURSTS_CPU_TARGET: f64 = 0.5;

/// `rayon-program`'s arguments.
#[derive(Debug, clap::Args)]
pub struct RayonProgramArgs {
    /// bench/rayon-program built on rayon's own rayon-core.
    #[arg(long, value_name = "BIN")]
    pub rayon: PathBuf,
    /// The same program built on magpie's (crates/magpie-rayon-core through [patch.crates-io]).
    #[arg(long, value_name = "BIN")]
    pub magpie: PathBuf,
    /// Thread counts (each binary's ThreadPoolBuilder::num_threads).
    #[arg(long, value_delimiter = ',', default_values_t = [1, 2])]
    pub workers: Vec<usize>,
    /// Timed rounds; each runs every (workload, workers) once on each binary.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub rounds: u32,
    /// Timed runs per process (the program's --reps).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub reps: u32,
    /// Untimed runs per process before the timed ones (the program's --warmup).
    #[arg(long, default_value_t = 1)]
    pub warmup: u32,
    /// The workloads' small sizes (a smoke test, not a measurement).
    #[arg(long)]
    pub quick: bool,
    /// Workloads to run, in this order [default: every one the program lists].
    #[arg(long, value_delimiter = ',')]
    pub workloads: Vec<String>,
    /// Also write the rows as a JSON array into FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Seconds one process may run before it is stopped (and its pair counts as failed).
    #[arg(long, default_value_t = 600)]
    pub timeout: u64,
}

/// The two builds, in the order of the arrays below.
const SIDES: [&str; 2] = ["rayon", "magpie"];

/// One timed run, as the program printed it.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The timed round it belongs to (from 1).
    pub round: u32,
    /// The workload it ran.
    pub workload: String,
    /// Its size.
    pub size: u64,
    /// Seconds (bursts: the bursts without the sleeps).
    pub seconds: f64,
    /// User + system seconds of the whole process over the run.
    pub cpu_seconds: f64,
    /// The check value.
    pub check: String,
    /// The core the program said it runs on.
    pub core: String,
}

/// What `BIN info` says.
#[derive(Debug, Clone)]
struct Info {
    core: String,
    evidence: String,
    locked_core: String,
}

/// Runs the subcommand.
pub fn run(args: &RayonProgramArgs) -> Result<(), String> {
    if args.workers.is_empty() || args.workers.contains(&0) {
        return Err("--workers: thread counts must be at least 1".into());
    }
    let bins = [&args.rayon, &args.magpie];
    let timeout = Duration::from_secs(args.timeout);
    let mut infos = Vec::new();
    let mut lists = Vec::new();
    for (side, bin) in SIDES.iter().zip(bins) {
        let info = info(bin, timeout).map_err(|e| format!("--{side} {}: {e}", bin.display()))?;
        eprintln!(
            "rayon-program: --{side} {}: runs on {}'s core ({}); built with {}",
            bin.display(),
            info.core,
            info.evidence,
            info.locked_core
        );
        infos.push(info);
        lists.push(list(bin, timeout).map_err(|e| format!("--{side} {}: {e}", bin.display()))?);
    }
    if infos[0].core != "rayon" {
        return Err(format!(
            "--rayon {}: it runs on {}'s core, not rayon's ({})",
            args.rayon.display(),
            infos[0].core,
            infos[0].evidence
        ));
    }
    if infos[1].core != "magpie" {
        eprintln!(
            "rayon-program: WARNING: --magpie {} runs on {}'s core: its ratios compare that \
             core with rayon's, not magpie's",
            args.magpie.display(),
            infos[1].core
        );
    }
    if lists[0] != lists[1] {
        return Err(format!(
            "the two binaries list different workloads: rayon [{}], magpie [{}]",
            lists[0].join(", "),
            lists[1].join(", ")
        ));
    }
    let workloads = if args.workloads.is_empty() {
        lists[0].clone()
    } else {
        for w in &args.workloads {
            if !lists[0].contains(w) {
                return Err(format!(
                    "--workloads: unknown workload {w} (the program's: {})",
                    lists[0].join(", ")
                ));
            }
        }
        args.workloads.clone()
    };
    let magpie_env = magpie_env();
    if !magpie_env.is_empty() {
        eprintln!("rayon-program: the children inherit {magpie_env}");
    }

    // (workload, workers) → each side's samples; the pairs that failed, with why.
    let mut samples: BTreeMap<(usize, usize), [Vec<Sample>; 2]> = BTreeMap::new();
    let mut failed: BTreeMap<(usize, usize), String> = BTreeMap::new();
    // workload → (the first check value, who gave it).
    let mut checks: BTreeMap<usize, (String, String)> = BTreeMap::new();
    for round in rounds(0, args.rounds) {
        for (wi, workload) in workloads.iter().enumerate() {
            for &workers in &args.workers {
                if failed.contains_key(&(wi, workers)) {
                    continue;
                }
                eprint!("{round} {workload:<14} {workers:>2} thread(s):");
                let order = if round.number() % 2 == 1 {
                    [0, 1]
                } else {
                    [1, 0]
                };
                for side in order {
                    let who = format!("{} ({round}, {workers} thread(s))", SIDES[side]);
                    let got = run_once(bins[side], workload, workers, args, timeout)
                        .and_then(|lines| parse_runs(&lines, round.number()))
                        .and_then(|runs| {
                            check_runs(&runs, workload, args.reps, &infos[side].core)?;
                            for r in &runs {
                                let (first, by) = checks
                                    .entry(wi)
                                    .or_insert_with(|| (r.check.clone(), who.clone()));
                                if *first != r.check {
                                    return Err(format!(
                                        "check value {} differs from {first}, which {by} gave",
                                        r.check
                                    ));
                                }
                            }
                            Ok(runs)
                        });
                    match got {
                        Ok(runs) => {
                            eprint!(" {}", SIDES[side]);
                            for r in &runs {
                                eprint!(" {:.4}", r.seconds);
                            }
                            samples.entry((wi, workers)).or_default()[side].extend(runs);
                        }
                        Err(e) => {
                            eprint!(" {} FAILED", SIDES[side]);
                            failed.insert((wi, workers), format!("{workload} on {who}: {e}"));
                            break;
                        }
                    }
                }
                eprintln!();
            }
        }
    }

    let context = Context {
        rayon_core: infos[0].core.clone(),
        magpie_core: infos[1].core.clone(),
        magpie_env,
    };
    let rows: Vec<Row> = samples
        .iter()
        .filter(|(key, _)| !failed.contains_key(key))
        .map(|(&(wi, workers), [r, m])| summarize(&workloads[wi], workers, r, m, &context))
        .collect();
    print!("{}", table(&rows));
    if let Some(path) = &args.json {
        write_json(path, &rows)?;
        eprintln!("rayon-program: rows written to {}", path.display());
    }
    let failed: Vec<String> = failed.into_values().collect();
    failures("(workload, threads) pair", &failed)
}

/// The `MAGPIE_*` variables of this process (the children inherit them).
fn magpie_env() -> String {
    let mut vars: Vec<String> = std::env::vars()
        .filter(|(k, _)| k.starts_with("MAGPIE_"))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    vars.sort();
    vars.join(" ")
}

/// Runs `bin` with `args` to its end; its stdout, or an error naming how it ended.
fn output(bin: &Path, args: &[String], timeout: Duration) -> Result<String, String> {
    let mut cmd = Command::new(bin);
    cmd.args(args);
    let done = run_to_end(&mut cmd, timeout).map_err(|e| format!("cannot run it: {e}"))?;
    match done.status {
        Some(s) if s.success() => Ok(done.stdout),
        Some(s) => Err(format!(
            "`{} {}` {}: {}",
            bin.display(),
            args.join(" "),
            describe(s),
            done.stderr.trim()
        )),
        None => Err(format!(
            "`{} {}` was stopped after {} s",
            bin.display(),
            args.join(" "),
            timeout.as_secs()
        )),
    }
}

fn info(bin: &Path, timeout: Duration) -> Result<Info, String> {
    let out = output(bin, &["info".into()], timeout)?;
    let v: Value = serde_json::from_str(out.trim()).map_err(|e| format!("`info`: {e}"))?;
    let field = |k: &str| v[k].as_str().unwrap_or("?").to_string();
    Ok(Info {
        core: field("core"),
        evidence: field("evidence"),
        locked_core: field("locked_core"),
    })
}

/// The workloads `bin list` names (the first column of its lines).
fn list(bin: &Path, timeout: Duration) -> Result<Vec<String>, String> {
    let out = output(bin, &["list".into()], timeout)?;
    Ok(out
        .lines()
        .filter_map(|l| l.split('\t').next())
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect())
}

/// One process: `bin WORKLOAD --threads W --reps R --warmup U [--quick]`; its stdout.
fn run_once(
    bin: &Path,
    workload: &str,
    workers: usize,
    args: &RayonProgramArgs,
    timeout: Duration,
) -> Result<String, String> {
    let mut a: Vec<String> = vec![
        workload.into(),
        "--threads".into(),
        workers.to_string(),
        "--reps".into(),
        args.reps.to_string(),
        "--warmup".into(),
        args.warmup.to_string(),
    ];
    if args.quick {
        a.push("--quick".into());
    }
    output(bin, &a, timeout)
}

/// The timed runs in a process's stdout (its JSON lines; other lines are skipped), as
/// samples of timed round `round`.
pub fn parse_runs(stdout: &str, round: u32) -> Result<Vec<Sample>, String> {
    JsonLine::all(stdout)
        .map(|v| {
            let v = v?;
            Ok(Sample {
                round,
                workload: v.text("workload")?,
                size: v.value()["size"].as_u64().unwrap_or(0),
                seconds: v.num("seconds")?,
                cpu_seconds: v.num("cpu_seconds")?,
                check: v.text("check")?,
                core: v.text("core")?,
            })
        })
        .collect()
}

/// A process's runs are what was asked: `reps` runs of `workload`, on the core its binary's
/// `info` named.
fn check_runs(runs: &[Sample], workload: &str, reps: u32, core: &str) -> Result<(), String> {
    if let Some(r) = runs.iter().find(|r| r.workload != workload) {
        return Err(format!(
            "a run of {} was printed, {workload} asked",
            r.workload
        ));
    }
    if runs.len() != reps as usize {
        return Err(format!(
            "{workload}: {} timed run(s) printed, {reps} asked",
            runs.len()
        ));
    }
    if let Some(r) = runs.iter().find(|r| r.core != core) {
        return Err(format!(
            "a run says it ran on {}'s core, `info` said {core}'s",
            r.core
        ));
    }
    Ok(())
}

/// What every row carries besides its samples (its fields are the row's own, in the JSON).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Context {
    /// The core `info` found rayon's binary runs on.
    pub rayon_core: String,
    /// The core `info` found magpie's binary runs on.
    pub magpie_core: String,
    /// The `MAGPIE_*` variables the children inherited.
    pub magpie_env: String,
}

/// One (workload, workers) pair's result; the fields are documented in the module's table.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub workload: String,
    pub size: u64,
    pub workers: usize,
    pub rounds: usize,
    pub runs: usize,
    pub rayon_median_s: f64,
    pub rayon_min_s: f64,
    pub rayon_max_s: f64,
    pub magpie_median_s: f64,
    pub magpie_min_s: f64,
    pub magpie_max_s: f64,
    pub ratio_of: &'static str,
    pub ratio: f64,
    pub ratio_ci95: Option<[f64; 2]>,
    pub welch_p: Option<f64>,
    pub rayon_cpu_median_s: f64,
    pub magpie_cpu_median_s: f64,
    pub cpu_ratio: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<&'static str>,
    pub check: String,
    /// `rayon_core`, `magpie_core`, `magpie_env`.
    #[serde(flatten)]
    pub context: Context,
    pub rayon_times_s: Vec<f64>,
    pub magpie_times_s: Vec<f64>,
    pub rayon_cpu_s: Vec<f64>,
    pub magpie_cpu_s: Vec<f64>,
}

/// The row of one (workload, workers) pair from each side's samples (neither empty).
pub fn summarize(
    workload: &str,
    workers: usize,
    rayon: &[Sample],
    magpie: &[Sample],
    context: &Context,
) -> Row {
    let seconds = |s: &[Sample]| s.iter().map(|r| r.seconds).collect::<Vec<f64>>();
    let cpu = |s: &[Sample]| s.iter().map(|r| r.cpu_seconds).collect::<Vec<f64>>();
    let (r_med, r_min, r_max) = stats::median_min_max_s(&seconds(rayon));
    let (m_med, m_min, m_max) = stats::median_min_max_s(&seconds(magpie));
    // The paired per-round ratios, on a log scale: the CI of their geometric mean.
    let mut round_numbers: Vec<u32> = rayon.iter().map(|r| r.round).collect();
    round_numbers.dedup();
    let log_ratios: Vec<f64> = round_numbers
        .iter()
        .filter_map(|&n| {
            let of = |s: &[Sample]| {
                stats::median_of(
                    &s.iter()
                        .filter(|r| r.round == n)
                        .map(|r| r.seconds)
                        .collect::<Vec<f64>>(),
                )
            };
            Some((of(magpie)? / of(rayon)?).ln())
        })
        .collect();
    let ratio_ci95 = stats::ci95_half_width(&log_ratios).map(|half| {
        let m = stats::mean(&log_ratios);
        [(m - half).exp(), (m + half).exp()]
    });
    let (r_cpu, m_cpu) = (stats::median(&cpu(rayon)), stats::median(&cpu(magpie)));
    let cpu_ratio = m_cpu / r_cpu;
    let bursts = workload == "bursts";
    Row {
        workload: workload.to_string(),
        size: rayon.first().map_or(0, |r| r.size),
        workers,
        rounds: log_ratios.len(),
        runs: rayon.len().min(magpie.len()),
        rayon_median_s: r_med,
        rayon_min_s: r_min,
        rayon_max_s: r_max,
        magpie_median_s: m_med,
        magpie_min_s: m_min,
        magpie_max_s: m_max,
        ratio_of: "magpie/rayon",
        ratio: m_med / r_med,
        ratio_ci95,
        welch_p: stats::welch(&seconds(magpie), &seconds(rayon)).map(|w| w.p),
        rayon_cpu_median_s: r_cpu,
        magpie_cpu_median_s: m_cpu,
        cpu_ratio,
        target: bursts.then(|| format!("cpu_ratio <= {BURSTS_CPU_TARGET}")),
        verdict: bursts.then_some(if cpu_ratio <= BURSTS_CPU_TARGET {
            "PASS"
        } else {
            "MISS"
        }),
        check: rayon.first().map_or_else(String::new, |r| r.check.clone()),
        context: context.clone(),
        rayon_times_s: seconds(rayon),
        magpie_times_s: seconds(magpie),
        rayon_cpu_s: cpu(rayon),
        magpie_cpu_s: cpu(magpie),
    }
}

/// The text table of the rows, with its legend.
pub fn table(rows: &[Row]) -> String {
    let mut t = Table::new(&[
        ("workload", false),
        ("size", true),
        ("w", true),
        ("runs", true),
        ("rayon_s", true),
        ("magpie_s", true),
        ("magpie/rayon", true),
        ("95% CI", true),
        ("p", true),
        ("rayon_cpu_s", true),
        ("magpie_cpu_s", true),
        ("cpu ratio", true),
        ("target", false),
    ]);
    for r in rows {
        t.row(vec![
            r.workload.clone(),
            r.size.to_string(),
            r.workers.to_string(),
            r.runs.to_string(),
            format!("{:.4}", r.rayon_median_s),
            format!("{:.4}", r.magpie_median_s),
            format!("{:.3}", r.ratio),
            r.ratio_ci95
                .map_or("-".into(), |[lo, hi]| format!("{lo:.3}–{hi:.3}")),
            r.welch_p.map_or("-".into(), |p| format!("{p:.3}")),
            format!("{:.4}", r.rayon_cpu_median_s),
            format!("{:.4}", r.magpie_cpu_median_s),
            format!("{:.3}", r.cpu_ratio),
            match (&r.target, r.verdict) {
                (Some(t), Some(v)) => format!("{t}: {v}"),
                _ => String::new(),
            },
        ]);
    }
    let mut out = Vec::new();
    t.write(&mut out).expect("writing to a Vec");
    let mut text = String::from_utf8(out).expect("the table is UTF-8");
    text.push_str(
        "rayon_s, magpie_s: median seconds per run; magpie/rayon: their ratio (below 1: magpie \
         is faster); 95% CI: of the geometric mean of the per-round ratios; p: Welch's t-test \
         on the run times; *_cpu_s: median user+system seconds per run (the whole process)\n",
    );
    text
}

fn write_json(path: &Path, rows: &[Row]) -> Result<(), String> {
    let json = serde_json::to_string_pretty(rows).map_err(|e| e.to_string())?;
    std::fs::write(path, json + "\n").map_err(|e| format!("--json {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(round: u32, seconds: f64, cpu_seconds: f64) -> Sample {
        Sample {
            round,
            workload: "fib".into(),
            size: 100,
            seconds,
            cpu_seconds,
            check: "0x2a".into(),
            core: "rayon".into(),
        }
    }

    #[test]
    fn the_program_s_lines_parse_and_other_lines_are_skipped() {
        let out = "note: warming up\n\
            {\"workload\":\"fib\",\"size\":32,\"threads\":2,\"run\":1,\"seconds\":0.25,\
             \"cpu_seconds\":0.5,\"wall_seconds\":0.25,\"check\":\"0x213d05\",\"core\":\"magpie\"}\n\
            {\"workload\":\"fib\",\"size\":32,\"threads\":2,\"run\":2,\"seconds\":0.5,\
             \"cpu_seconds\":1,\"wall_seconds\":0.5,\"check\":\"0x213d05\",\"core\":\"magpie\"}\n";
        let runs = parse_runs(out, 3).unwrap();
        assert_eq!(runs.len(), 2);
        assert_eq!(
            runs[1],
            Sample {
                round: 3,
                workload: "fib".into(),
                size: 32,
                seconds: 0.5,
                cpu_seconds: 1.0,
                check: "0x213d05".into(),
                core: "magpie".into(),
            }
        );
        assert!(check_runs(&runs, "fib", 2, "magpie").is_ok());
        assert!(check_runs(&runs, "fib", 3, "magpie")
            .unwrap_err()
            .contains("3 asked"));
        assert!(check_runs(&runs, "fib", 2, "rayon")
            .unwrap_err()
            .contains("magpie's core"));
        assert!(check_runs(&runs, "sort", 2, "magpie")
            .unwrap_err()
            .contains("of fib"));
        let bad = "{\"workload\":\"fib\",\"seconds\":\"fast\"}";
        assert!(parse_runs(bad, 1).unwrap_err().contains("`seconds`"));
    }

    #[test]
    fn rows_are_medians_their_ratio_and_the_rounds_ci() {
        // Three rounds of two runs. rayon: 1.0 s every run (CPU 2.0); magpie: rounds of
        // 0.5/0.5, 0.4/0.6 and 0.25/0.75 → medians per round 0.5, 0.5, 0.5: ratio 0.5 each,
        // a zero-width CI; over all runs magpie's median is 0.5.
        let rayon: Vec<Sample> = (1..=3)
            .flat_map(|r| [sample(r, 1.0, 2.0), sample(r, 1.0, 2.0)])
            .collect();
        // (round, its two runs' seconds, their CPU seconds)
        let magpie: Vec<Sample> = [
            (1, [0.5, 0.5], [0.4, 0.6]),
            (2, [0.4, 0.6], [0.5, 0.5]),
            (3, [0.25, 0.75], [0.5, 0.5]),
        ]
        .into_iter()
        .flat_map(|(r, s, c)| [sample(r, s[0], c[0]), sample(r, s[1], c[1])])
        .collect();
        let ctx = Context {
            rayon_core: "rayon".into(),
            magpie_core: "magpie".into(),
            magpie_env: String::new(),
        };
        let row = summarize("fib", 2, &rayon, &magpie, &ctx);
        assert_eq!((row.rounds, row.runs, row.size), (3, 6, 100));
        assert_eq!(row.rayon_median_s, 1.0);
        assert_eq!(row.magpie_median_s, 0.5);
        assert_eq!((row.magpie_min_s, row.magpie_max_s), (0.25, 0.75));
        assert_eq!(row.ratio, 0.5);
        let [lo, hi] = row.ratio_ci95.unwrap();
        assert!(
            (lo - 0.5).abs() < 1e-12 && (hi - 0.5).abs() < 1e-12,
            "{lo} {hi}"
        );
        assert_eq!(row.rayon_cpu_median_s, 2.0);
        assert_eq!(row.magpie_cpu_median_s, 0.5);
        assert_eq!(row.cpu_ratio, 0.25);
        // rayon's times have no variance, magpie's do: Welch is defined, and far from 0.
        assert!(row.welch_p.unwrap() < 0.01);
        assert_eq!((row.target.as_deref(), row.verdict), (None, None));
        assert_eq!(row.check, "0x2a");

        // Per-round ratios 0.5 and 2: geometric mean 1, a CI around it; bursts get a target.
        let rayon = vec![sample(1, 1.0, 1.0), sample(2, 1.0, 1.0)];
        let magpie = vec![sample(1, 0.5, 0.6), sample(2, 2.0, 0.6)];
        let row = summarize("bursts", 1, &rayon, &magpie, &ctx);
        let [lo, hi] = row.ratio_ci95.unwrap();
        assert!(lo < 1.0 && hi > 1.0 && ((lo * hi).sqrt() - 1.0).abs() < 1e-12);
        assert_eq!(row.ratio, 1.25);
        assert!(row.welch_p.unwrap() > 0.5, "{:?}", row.welch_p);
        assert_eq!(row.target.as_deref(), Some("cpu_ratio <= 0.5"));
        assert_eq!(row.verdict, Some("MISS"));
        let passing = summarize("bursts", 1, &rayon, &[sample(1, 1.0, 0.5)], &ctx);
        assert_eq!((passing.verdict, passing.rounds), (Some("PASS"), 1));
        assert_eq!(passing.ratio_ci95, None);

        let text = table(&[row]);
        assert!(text.contains("magpie/rayon") && text.contains("cpu_ratio <= 0.5: MISS"));
    }

    /// A stand-in for the program: a shell script that answers `info` and `list` and prints
    /// fixed runs, `seconds` and `check` given by the script's name.
    fn fake(dir: &Path, name: &str, core: &str, seconds: &str, check: &str) -> PathBuf {
        let path = dir.join(name);
        let script = format!(
            r#"#!/bin/sh
case "$1" in
list) printf 'alpha\tn\t10\t2\tthe first\nbursts\tn\t10\t2\tthe second\n' ;;
info) echo '{{"core":"{core}","evidence":"a script","crates":[],"locked_core":"none"}}' ;;
*) w=$1; shift; t=0; r=0
   while [ $# -gt 0 ]; do case "$1" in --threads) t=$2; shift;; --reps) r=$2; shift;; esac; shift; done
   i=1
   while [ $i -le $r ]; do
     echo "{{\"workload\":\"$w\",\"size\":10,\"threads\":$t,\"run\":$i,\"seconds\":{seconds},\"cpu_seconds\":{seconds},\"check\":\"{check}\",\"core\":\"{core}\"}}"
     i=$((i+1))
   done ;;
esac
"#
        );
        std::fs::write(&path, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn args(rayon: PathBuf, magpie: PathBuf, json: PathBuf) -> RayonProgramArgs {
        RayonProgramArgs {
            rayon,
            magpie,
            workers: vec![1, 2],
            rounds: 2,
            reps: 2,
            warmup: 0,
            quick: true,
            workloads: Vec::new(),
            json: Some(json),
            timeout: 60,
        }
    }

    #[test]
    fn the_subcommand_runs_both_programs_and_writes_its_rows() {
        let dir = std::env::temp_dir().join(format!("rayon-compat-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let rayon = fake(&dir, "rayon", "rayon", "0.4", "0x2a");
        let magpie = fake(&dir, "magpie", "magpie", "0.1", "0x2a");
        let json = dir.join("rows.json");
        run(&args(rayon.clone(), magpie.clone(), json.clone())).unwrap();
        let rows: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let rows = rows.as_array().unwrap();
        assert_eq!(rows.len(), 4, "{rows:?}"); // 2 workloads × 2 thread counts
        for r in rows {
            assert_eq!(r["ratio"].as_f64(), Some(0.25));
            assert_eq!(r["runs"].as_u64(), Some(4));
            assert_eq!(r["rounds"].as_u64(), Some(2));
            assert_eq!(r["magpie_core"], "magpie");
        }
        assert_eq!(rows[2]["workload"], "bursts");
        assert_eq!(rows[2]["verdict"], "PASS");

        // A check value that differs between the builds fails its pairs.
        let wrong = fake(&dir, "wrong", "magpie", "0.1", "0x2b");
        let e = run(&args(rayon.clone(), wrong, json.clone())).unwrap_err();
        assert!(e.contains("4 (workload, threads) pair(s) failed"), "{e}");
        assert!(e.contains("check value 0x2b differs from 0x2a"), "{e}");
        // The --rayon binary must run rayon's core.
        let e = run(&args(magpie.clone(), rayon, json)).unwrap_err();
        assert!(e.contains("runs on magpie's core, not rayon's"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
