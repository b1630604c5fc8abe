//! `magpie-bench scale-summary DIR --part NAME …`: the bookkeeping of `scripts/scale.sh`,
//! called after each part of the scaling run.
//!
//! It wraps the part's raw reports (`DIR/raw/PART.json`, `DIR/raw/PART-*.json`, the JSON
//! the suites print) with the part's status into `DIR/PART.json`, draws the part's speedup
//! curves (`DIR/PART-speedup.png`: one panel per kernel or app, one line per runtime or
//! configuration) where some configuration ran at several worker counts, and rewrites
//! `DIR/summary.md` from every part file there, in the order the parts finished. The tables:
//! speedups over the baseline per worker count (the sequential row, the hand-written solver,
//! else the configuration's own 1-worker run), the ratio rows a suite printed, the loops'
//! ratios to the best OpenMP schedule, and the `reproduce` claims with their verdicts.
//!
//! ```text
//! magpie-bench scale-summary results --part forkjoin --status ok --seconds 84 \
//!     --workers 1,2,4,8,16 --note ""
//! ```

use magpie_measure::plot::{self, Data, Kind, Runs, Size};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// `scale-summary`'s arguments.
#[derive(Debug, clap::Args)]
pub struct ScaleArgs {
    /// The results folder of the run (raw/ and logs/ inside).
    pub dir: PathBuf,
    /// The part that just ended.
    #[arg(long)]
    pub part: String,
    /// How it ended: ok, timeout (a command reached its cap), failed or skipped.
    #[arg(long)]
    pub status: String,
    /// Its wall time in seconds.
    #[arg(long, default_value_t = 0)]
    pub seconds: u64,
    /// The worker counts of the run.
    #[arg(long, value_delimiter = ',')]
    pub workers: Vec<u64>,
    /// A note for the summary (why a part was skipped).
    #[arg(long, default_value = "")]
    pub note: String,
}

/// Runs `scale-summary`.
pub fn run(args: &ScaleArgs) -> Result<(), String> {
    let dir = &args.dir;
    let part = args.part.as_str();
    if part.is_empty() || !part.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
        return Err(format!("--part {part:?}: letters, digits and '-' only"));
    }
    let (reports, unreadable) = raw_reports(dir, part)?;
    let commands = std::fs::read_to_string(dir.join("logs").join(format!("{part}.commands")))
        .unwrap_or_default();
    let mut note = args.note.clone();
    for (name, e) in &unreadable {
        append(&mut note, &format!("raw/{name}.json unreadable: {e}"));
    }
    // Orders the summary's parts (milliseconds: parts of a tiny run end within a second).
    let finished = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let mut value = json!({
        "part": part,
        "status": args.status,
        "seconds": args.seconds,
        "workers": args.workers,
        "note": note,
        "commands": commands.lines().collect::<Vec<_>>(),
        "finished_unix_ms": finished,
        "reports": reports,
    });
    // Pictures first, so that the part file can name them.
    let picture = dir.join(format!("{part}-speedup.png"));
    if let Some(runs) = runs_of(&reports) {
        if runs.has_speedup() {
            let size = Size::default();
            match plot::draw(&Data::Runs(runs), Kind::Speedup, &picture, size) {
                Ok(()) => value["picture"] = json!(format!("{part}-speedup.png")),
                Err(e) => eprintln!("scale-summary: {part}: no picture: {e}"),
            }
        }
    }
    let text = serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?;
    write(&dir.join(format!("{part}.json")), &text)?;
    let summary = summary(dir)?;
    write(&dir.join("summary.md"), &summary)
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

fn append(note: &mut String, more: &str) {
    if !note.is_empty() {
        note.push_str("; ");
    }
    note.push_str(more);
}

/// The part's raw reports by name (`forkjoin-fib`), and those that are no JSON.
type Raw = (BTreeMap<String, Value>, Vec<(String, String)>);

fn raw_reports(dir: &Path, part: &str) -> Result<Raw, String> {
    let raw = dir.join("raw");
    let mut reports = BTreeMap::new();
    let mut bad = Vec::new();
    let entries = match std::fs::read_dir(&raw) {
        Ok(e) => e,
        Err(_) => return Ok((reports, bad)),
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".json").map(str::to_string))
        .filter(|n| n == part || n.starts_with(&format!("{part}-")))
        .collect();
    names.sort();
    for name in names {
        let path = raw.join(format!("{name}.json"));
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        match serde_json::from_str::<Value>(&text) {
            Ok(v) => {
                reports.insert(name, v);
            }
            Err(e) => bad.push((name, e.to_string())),
        }
    }
    Ok((reports, bad))
}

/// The run times of a part's reports together: the benchmark arrays concatenated; an
/// experiment report (an object) keeps its own panels, prefixed by the report's name.
fn runs_of(reports: &BTreeMap<String, Value>) -> Option<Runs> {
    let mut all: Option<Runs> = None;
    for (name, v) in reports {
        if is_claims(v) {
            continue;
        }
        let Ok(mut runs) = Runs::from_value(v) else {
            continue;
        };
        if v.is_object() {
            for s in &mut runs.samples {
                s.panel = format!("{name}: {}", s.panel);
            }
        }
        match &mut all {
            None => all = Some(runs),
            Some(a) => a.samples.extend(runs.samples),
        }
    }
    all
}

/// Whether a report is `reproduce --json`'s array of claims.
fn is_claims(v: &Value) -> bool {
    v.as_array()
        .and_then(|a| a.first())
        .is_some_and(|c| c.get("claim").is_some() && c.get("verdict").is_some())
}

/// summary.md from every part file in `dir`, in the order they finished.
fn summary(dir: &Path) -> Result<String, String> {
    let mut parts: Vec<Value> = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in entries.filter_map(Result::ok) {
        let path = e.path();
        if path.extension().and_then(|x| x.to_str()) != Some("json") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        if let Ok(v) = serde_json::from_str::<Value>(&text) {
            if v.get("part").and_then(Value::as_str).is_some() && v.get("reports").is_some() {
                parts.push(v);
            }
        }
    }
    parts.sort_by_key(|p| p["finished_unix_ms"].as_u64().unwrap_or(0));
    let mut out = String::from("# magpie scaling run\n\n");
    if let Ok(run) = std::fs::read_to_string(dir.join("RUN")) {
        let _ = writeln!(out, "```text\n{}```\n", run);
    }
    out.push_str("| part | status | seconds | note |\n|---|---|---|---|\n");
    for p in &parts {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            p["part"].as_str().unwrap_or("?"),
            p["status"].as_str().unwrap_or("?"),
            p["seconds"],
            cell(p["note"].as_str().unwrap_or(""))
        );
    }
    for p in &parts {
        out.push('\n');
        section(&mut out, p);
    }
    Ok(out)
}

/// Text for a table cell (no `|`, no line breaks).
fn cell(s: &str) -> String {
    s.replace('|', "/").replace('\n', " ")
}

fn section(out: &mut String, p: &Value) {
    let name = p["part"].as_str().unwrap_or("?");
    let _ = writeln!(out, "## {name}\n");
    let _ = writeln!(
        out,
        "Status {}, {} s.{}\n",
        p["status"].as_str().unwrap_or("?"),
        p["seconds"],
        match p["note"].as_str() {
            Some(n) if !n.is_empty() => format!(" {n}."),
            _ => String::new(),
        }
    );
    let empty = serde_json::Map::new();
    let reports_obj = p["reports"].as_object().unwrap_or(&empty);
    let reports: BTreeMap<String, Value> = reports_obj
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if reports.is_empty() {
        out.push_str("No report.\n");
        return;
    }
    for v in reports.values().filter(|v| is_claims(v)) {
        claims_table(out, v);
    }
    let mut loops = String::new();
    for v in reports.values() {
        loops_table(&mut loops, v);
    }
    if let Some(runs) = runs_of(&reports) {
        // The loops' rows run at one worker count: their table below says more than the
        // medians.
        if loops.is_empty() || runs.has_speedup() {
            speedup_table(out, &runs);
        }
    }
    ratio_table(out, reports.values());
    out.push_str(&loops);
    if let Some(pic) = p["picture"].as_str() {
        let _ = writeln!(out, "![{name}: speedup against workers]({pic})\n");
    }
}

fn claims_table(out: &mut String, v: &Value) {
    out.push_str("| claim | the seed | magpie | verdict |\n|---|---|---|---|\n");
    for c in v.as_array().into_iter().flatten() {
        let value = c["magpie_value"].as_f64().map_or("-".into(), |x| {
            format!("{x:.3} {}", c["unit"].as_str().unwrap_or(""))
        });
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            cell(c["claim"].as_str().unwrap_or("")),
            cell(c["seed_value"].as_str().unwrap_or("")),
            cell(value.trim()),
            c["verdict"].as_str().unwrap_or("?"),
        );
    }
    out.push('\n');
}

/// Speedup per worker count, a row per (panel, configuration); without curves, the medians.
fn speedup_table(out: &mut String, runs: &Runs) {
    let curves = runs.speedups();
    if curves.is_empty() {
        out.push_str("| panel | configuration | median s |\n|---|---|---|\n");
        for s in &runs.samples {
            let _ = writeln!(
                out,
                "| {} | {} | {:.4} |",
                cell(&s.panel),
                cell(&s.label()),
                s.median()
            );
        }
        out.push('\n');
        return;
    }
    let mut counts: Vec<usize> = curves
        .iter()
        .flat_map(|c| c.points.iter().map(|p| p.0))
        .collect();
    counts.sort_unstable();
    counts.dedup();
    let head: Vec<String> = counts.iter().map(|w| format!("{w}w")).collect();
    let _ = writeln!(
        out,
        "Speedup over the baseline (its median over the configuration's):\n\n| panel | \
         configuration | baseline | {} |\n|---|---|---|{}",
        head.join(" | "),
        "---|".repeat(counts.len())
    );
    for c in &curves {
        let cells: Vec<String> = counts
            .iter()
            .map(|w| {
                c.points
                    .iter()
                    .find(|p| p.0 == *w)
                    .map_or("-".into(), |p| format!("{:.2}", p.1))
            })
            .collect();
        let base = if c.base == 1 {
            "sequential / 1w".to_string()
        } else {
            format!("own {}w", c.base)
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            cell(&c.panel),
            cell(&c.config),
            base,
            cells.join(" | ")
        );
    }
    out.push('\n');
}

/// The ratio rows of the search and distributed suites (`ratio` with a `config` or
/// `ratio_of`).
fn ratio_table<'a>(out: &mut String, reports: impl Iterator<Item = &'a Value>) {
    let rows: Vec<&Value> = reports
        .filter_map(Value::as_array)
        .flatten()
        .filter(|r| r.get("ratio").and_then(Value::as_f64).is_some())
        .collect();
    if rows.is_empty() {
        return;
    }
    out.push_str("| item | ratio of | workers | ratio |\n|---|---|---|---|\n");
    for r in rows {
        let item = [&r["experiment"], &r["app"], &r["instance"]]
            .iter()
            .filter_map(|x| x.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        let of = r["ratio_of"]
            .as_str()
            .or(r["config"].as_str())
            .unwrap_or("?");
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.3} |",
            cell(&item),
            cell(of),
            r["workers"].as_u64().map_or("-".into(), |w| w.to_string()),
            r["ratio"].as_f64().unwrap_or(f64::NAN)
        );
    }
    out.push('\n');
}

/// The loops suite: per app and worker count, the best magpie schedule and the best OpenMP
/// one, and their ratio.
fn loops_table(out: &mut String, v: &Value) {
    let rows: Vec<&Value> = v
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r.get("vs_best_openmp").is_some() && r.get("kind").is_some())
        .collect();
    if rows.is_empty() {
        return;
    }
    // (loop, workers) → the fastest (schedule, median) of magpie and of OpenMP.
    type Best = [Option<(String, f64)>; 2];
    let mut best: BTreeMap<(String, u64), Best> = BTreeMap::new();
    for r in rows {
        let slot = match r["kind"].as_str() {
            Some("magpie") => 0,
            Some("openmp") => 1,
            _ => continue,
        };
        let (Some(app), Some(w), Some(t)) = (
            r["app"].as_str(),
            r["workers"].as_u64(),
            r["median_s"].as_f64(),
        ) else {
            continue;
        };
        let e = &mut best.entry((app.to_string(), w)).or_default()[slot];
        if e.as_ref().is_none_or(|(_, b)| t < *b) {
            *e = Some((r["config"].as_str().unwrap_or("").to_string(), t));
        }
    }
    out.push_str(
        "| loop | workers | best magpie schedule | s | best OpenMP schedule | s | magpie / OpenMP |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for ((app, w), [m, o]) in best {
        let f = |x: &Option<(String, f64)>| {
            x.as_ref()
                .map_or(("-".to_string(), "-".to_string()), |(c, t)| {
                    (c.clone(), format!("{t:.4}"))
                })
        };
        let ratio = match (&m, &o) {
            (Some((_, a)), Some((_, b))) => format!("{:.3}", a / b),
            _ => "-".into(),
        };
        let (mc, mt) = f(&m);
        let (oc, ot) = f(&o);
        let _ = writeln!(out, "| {app} | {w} | {mc} | {mt} | {oc} | {ot} | {ratio} |");
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("magpie-scale-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("raw")).unwrap();
        std::fs::create_dir_all(d.join("logs")).unwrap();
        d
    }

    fn args(dir: &Path, part: &str, status: &str) -> ScaleArgs {
        ScaleArgs {
            dir: dir.to_path_buf(),
            part: part.into(),
            status: status.into(),
            seconds: 3,
            workers: vec![1, 2],
            note: String::new(),
        }
    }

    #[test]
    fn parts_are_wrapped_and_summarised_with_speedups_and_claims() {
        let dir = tmp("summary");
        let fj = json!([
            {"kernel":"fib","runtime":"sequential","variant":"","workers":1,
             "median_s":2.0,"min_s":2.0,"max_s":2.0,"times_s":[2.0]},
            {"kernel":"fib","runtime":"rayon","variant":"","workers":1,
             "median_s":2.5,"min_s":2.5,"max_s":2.5,"times_s":[2.5]},
            {"kernel":"fib","runtime":"rayon","variant":"","workers":2,
             "median_s":1.0,"min_s":1.0,"max_s":1.0,"times_s":[1.0]}]);
        std::fs::write(dir.join("raw/forkjoin-fib.json"), fj.to_string()).unwrap();
        std::fs::write(dir.join("raw/forkjoin-tree.json"), "not json").unwrap();
        std::fs::write(
            dir.join("logs/forkjoin.commands"),
            "magpie-bench forkjoin\n",
        )
        .unwrap();
        run(&args(&dir, "forkjoin", "ok")).unwrap();
        let claims = json!([{"claim":"signal share","seed_value":"65%","magpie_value":50.0,
                             "unit":"%","verdict":"refuted"}]);
        std::fs::write(dir.join("raw/lcws.json"), claims.to_string()).unwrap();
        run(&args(&dir, "lcws", "timeout")).unwrap();
        let mut skipped = args(&dir, "mpi", "skipped");
        skipped.note = "no mpirun".into();
        run(&skipped).unwrap();

        let part: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("forkjoin.json")).unwrap())
                .unwrap();
        assert_eq!(part["status"], "ok");
        assert_eq!(part["reports"]["forkjoin-fib"], fj);
        assert_eq!(part["commands"], json!(["magpie-bench forkjoin"]));
        assert!(part["note"]
            .as_str()
            .unwrap()
            .contains("forkjoin-tree.json unreadable"));
        assert_eq!(part["picture"], "forkjoin-speedup.png");
        assert!(dir.join("forkjoin-speedup.png").is_file());

        let md = std::fs::read_to_string(dir.join("summary.md")).unwrap();
        for p in ["forkjoin", "lcws", "mpi"] {
            assert!(md.contains(&format!("\n## {p}\n")), "{md}");
        }
        assert!(md.contains("| forkjoin | ok | 3 |"), "{md}");
        assert!(md.contains("| lcws | timeout | 3 |"), "{md}");
        assert!(md.contains("| mpi | skipped | 3 | no mpirun |"), "{md}");
        // rayon: 2.0 / 2.5 at 1 worker, 2.0 / 1.0 at 2.
        assert!(
            md.contains("| fib | rayon | sequential / 1w | 0.80 | 2.00 |"),
            "{md}"
        );
        assert!(
            md.contains("| signal share | 65% | 50.000 % | refuted |"),
            "{md}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn loops_rows_give_the_best_of_each_side() {
        let rows = json!([
            {"app":"gamma","kind":"magpie","config":"fac2","workers":2,"median_s":1.0,"vs_best_openmp":0.5},
            {"app":"gamma","kind":"magpie","config":"ss,1","workers":2,"median_s":3.0,"vs_best_openmp":1.5},
            {"app":"gamma","kind":"openmp","config":"guided","workers":2,"median_s":2.0,"vs_best_openmp":1.0},
            {"app":"gamma","kind":"rayon","config":"","workers":2,"median_s":0.1,"vs_best_openmp":0.05}]);
        let mut out = String::new();
        loops_table(&mut out, &rows);
        assert!(
            out.contains("| gamma | 2 | fac2 | 1.0000 | guided | 2.0000 | 0.500 |"),
            "{out}"
        );
    }

    #[test]
    fn a_bad_part_name_is_refused() {
        let dir = tmp("bad");
        let e = run(&args(&dir, "../x", "ok")).unwrap_err();
        assert!(e.contains("--part"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
