//! `counting-ratio`: compares `forkjoin --json` outputs of the build with magpie's counters
//! (`counted`, the default) and without (`uncounted`), as `scripts/counting-cost.sh` does.

use magpie_measure::stats::median;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

/// One row of a `forkjoin --json` output, as read back.
#[derive(Debug, Deserialize)]
struct RowIn {
    kernel: String,
    runtime: String,
    variant: String,
    workers: usize,
    median_s: f64,
}

type Key = (String, String, String, usize);

fn read(paths: &[PathBuf]) -> Result<BTreeMap<Key, Vec<f64>>, String> {
    let mut out: BTreeMap<Key, Vec<f64>> = BTreeMap::new();
    for p in paths {
        let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        let rows: Vec<RowIn> =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))?;
        for r in rows {
            out.entry((r.kernel, r.runtime, r.variant, r.workers))
                .or_default()
                .push(r.median_s);
        }
    }
    Ok(out)
}

/// The table: for every configuration present in both sets, the median over files of each
/// file's median, counted and uncounted, and their ratio counted/uncounted.
pub fn report(counted: &[PathBuf], uncounted: &[PathBuf]) -> Result<String, String> {
    let c = read(counted)?;
    let mut u = read(uncounted)?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<10} {:<10} {:<17} {:>3} {:>5} {:>12} {:>12} {:>8}",
        "kernel", "runtime", "variant", "w", "files", "counted_s", "uncounted_s", "ratio"
    );
    let mut matched = 0;
    for (key, cv) in c {
        let Some(uv) = u.get_mut(&key) else { continue };
        matched += 1;
        let (cm, um) = (median(&cv), median(uv));
        let _ = writeln!(
            out,
            "{:<10} {:<10} {:<17} {:>3} {:>5} {:>12.5} {:>12.5} {:>8.3}",
            key.0,
            key.1,
            key.2,
            key.3,
            cv.len().min(uv.len()),
            cm,
            um,
            cm / um
        );
    }
    if matched == 0 {
        return Err("no configuration appears in both the counted and uncounted results".into());
    }
    Ok(out)
}
