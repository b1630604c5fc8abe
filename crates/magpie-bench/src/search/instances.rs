//! The `cpeer` experiment's knapsack instances and their optima: files under the instance
//! directory (`magpie_apps::instances`: `--instances DIR`, `MAGPIE_INSTANCES`, else
//! `../shared/instances`). The other experiments' instances and oracles are the
//! applications' own (`SearchApp::bench`).

use magpie_apps::{instances, knapsack};
use std::path::{Path, PathBuf};

/// Knapsack instances (one file, or one instance of a Pisinger file) with their optima.
pub struct Knapsack {
    pub instances: Vec<(knapsack::Instance, u64)>,
}

impl Knapsack {
    /// `spec` is a path under `knapsack/` of the instance directory (a Pisinger `.csv` means all its
    /// instances; `FILE#NAME` one of them), or an instance name looked up in `large_scale/`,
    /// `low-dimensional/` and the Pisinger files.
    pub fn load(spec: &str) -> Result<Knapsack, String> {
        let base = "knapsack";
        let (file, only) = match spec.split_once('#') {
            Some((f, n)) => (f.to_string(), Some(n.to_string())),
            None => (spec.to_string(), None),
        };
        let (path, only) = if file.contains('/') {
            (instances::find(&format!("{base}/{file}"))?, only)
        } else {
            let dir = instances::location();
            let plain = ["large_scale", "low-dimensional"]
                .iter()
                .map(|d| dir.join(format!("{base}/{d}/{file}")))
                .find(|p| p.is_file());
            match plain {
                Some(p) => (p, None),
                None => (
                    find_in_pisinger(&dir.join(base), &file)?,
                    Some(file.clone()),
                ),
            }
        };
        let all = knapsack::read(&path).map_err(|e| e.to_string())?;
        let mut instances = Vec::new();
        for inst in all {
            if only.as_ref().is_some_and(|n| n != inst.name()) {
                continue;
            }
            let opt = optimum(&path, &inst)?;
            instances.push((inst, opt));
        }
        if instances.is_empty() {
            return Err(format!("{spec}: no such knapsack instance"));
        }
        Ok(Knapsack { instances })
    }
}

/// The Pisinger file holding an instance called `name`.
fn find_in_pisinger(base: &Path, name: &str) -> Result<PathBuf, String> {
    let mut stack = vec![base.join("pisinger")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "csv") {
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                if text.lines().any(|l| l.trim() == name) {
                    return Ok(p);
                }
            }
        }
    }
    Err(instances::missing(
        &format!("knapsack {name} (large_scale/, low-dimensional/ or a pisinger/ file)"),
        base,
    ))
}

/// The optimum of `inst` (read from `path`): the file's stated `z`, else the matching file in
/// the `*-optimum/` folder, else dynamic programming where that is small.
fn optimum(path: &Path, inst: &knapsack::Instance) -> Result<u64, String> {
    if let Some(z) = inst.stated_optimum() {
        return Ok(z);
    }
    let dir = path.parent().and_then(|d| d.file_name());
    if let (Some(dir), Some(file)) = (dir, path.file_name()) {
        let opt = path.parent().and_then(Path::parent).map(|p| {
            p.join(format!("{}-optimum", dir.to_string_lossy()))
                .join(file)
        });
        if let Some(text) = opt.and_then(|p| std::fs::read_to_string(p).ok()) {
            let t = text.trim();
            if let Ok(v) = t.parse::<u64>() {
                return Ok(v * 10u64.pow(inst.decimals()));
            }
        }
    }
    if (inst.len() as u128) * (inst.capacity() as u128 + 1) <= 1 << 28 {
        return Ok(knapsack::solve_dp(inst).profit);
    }
    Err(format!(
        "{}: no known optimum to check against",
        inst.name()
    ))
}

/// Checks a knapsack answer (profit, and the chosen items' profit and weight).
pub fn check_knapsack(
    inst: &knapsack::Instance,
    want: u64,
    profit: u64,
    items: &[usize],
) -> Result<(), String> {
    let (p, w) = inst.evaluate(items);
    if profit != want || p != profit || w > inst.capacity() {
        return Err(format!(
            "{}: profit {profit} (items give {p}, weight {w} of {}), the optimum is {want}",
            inst.name(),
            inst.capacity()
        ));
    }
    Ok(())
}
