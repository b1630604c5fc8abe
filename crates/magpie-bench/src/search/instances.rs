//! The `cpeer` experiment's knapsack instances and their optima: files under the instance
//! directory (`magpie_apps::instances`: `--instances DIR`, `MAGPIE_INSTANCES`, else
//! `../shared/instances`). The other experiments' instances and oracles are the
//! applications' own (`SearchApp::bench`).

use magpie_apps::knapsack;
use magpie_apps::registry::{BenchQuery, Experiment};
use std::path::Path;

/// Knapsack instances (one file, or one instance of a Pisinger file) with their optima.
pub struct Knapsack {
    pub instances: Vec<(knapsack::Instance, u64)>,
}

impl Knapsack {
    /// The instances of `spec`, as the knapsack application's `sequential` items name them
    /// (a path under `knapsack/` of the instance directory, a Pisinger `.csv` meaning all its
    /// instances; `FILE#NAME` one of them; or an instance name looked up in `large_scale/`,
    /// `low-dimensional/` and the Pisinger files), each with its optimum.
    pub fn load(spec: &str) -> Result<Knapsack, String> {
        let app = magpie_apps::registry::find("knapsack").ok_or("no knapsack application")?;
        let query = BenchQuery::new(Experiment::Sequential, false).item(Some(spec));
        let case = (app.bench)(&query)?
            .into_iter()
            .next()
            .ok_or_else(|| format!("{spec}: no such knapsack instance"))?;
        let mut instances = Vec::new();
        for args in &case.args {
            let path = args.input().ok_or_else(|| format!("{spec}: no file"))?;
            let all = knapsack::read(path).map_err(|e| e.to_string())?;
            for (i, inst) in all.into_iter().enumerate() {
                let number = (i + 1).to_string();
                if args
                    .get("--instance")
                    .is_none_or(|w| w == inst.name() || w == number)
                {
                    let opt = optimum(path, &inst)?;
                    instances.push((inst, opt));
                }
            }
        }
        if instances.is_empty() {
            return Err(format!("{spec}: no such knapsack instance"));
        }
        Ok(Knapsack { instances })
    }
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
