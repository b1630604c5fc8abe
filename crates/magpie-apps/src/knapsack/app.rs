//! `magpie search knapsack FILE [--instance I]`: loading, searching, checking and reporting
//! a 0/1 knapsack optimum.

use std::path::PathBuf;

use crate::registry::prelude::*;

use super::{read, Instance as Knapsack};
use crate::output::scaled;

/// 0/1 knapsack as a search application
/// ([`crate::registry::SEARCH_APPS`]).
pub static APP: SearchApp = SearchApp {
    name: "knapsack",
    synopsis: "knapsack FILE [--instance I]",
    about: &[
        "0/1 knapsack, plain file or Pisinger .csv (many instances:",
        "I is a name or a number counting from 1; default: the first)",
    ],
    usage: "usage: magpie search knapsack FILE [--instance NAME|NUMBER]",
    takes_file: true,
    options: &[AppOption::value("--instance", "NAME|NUMBER", "knapsack: the instance of a multi-instance file, by name or number (from 1) [default: the first]")],
    goal: Goal::Optimise,
    load,
    bench,
};

/// `magpie-bench search`'s instances: in `overhead`, every instance of a Pisinger file as one
/// sample (`knapPI_9_50_1000.csv`, 100 instances; `--quick` `knapPI_11_20_1000.csv`); in
/// `replicable`, knapPI_3_200_1000_1 ordered with spawn depth 8 (`--quick`
/// knapPI_3_100_1000_1, depth 6: the binary tree needs a deep one for enough tasks); in
/// `sequential`, its item ([`spec_case`]) or knapPI_3_500_1000_1 (knapPI_3_200_1000_1).
fn bench(q: &BenchQuery<'_>) -> Result<Vec<BenchCase>, String> {
    let case = match (q.experiment, q.quick) {
        (Experiment::Overhead, false) => {
            whole_file("pisinger/smallcoeff_pisinger/knapPI_9_50_1000.csv")?
        }
        (Experiment::Overhead, true) => {
            whole_file("pisinger/hardinstances_pisinger/knapPI_11_20_1000.csv")?
        }
        (Experiment::Replicable, false) => spec_case("knapPI_3_200_1000_1")?.skeletons("ordered:8"),
        (Experiment::Replicable, true) => spec_case("knapPI_3_100_1000_1")?.skeletons("ordered:6"),
        // knapsack::solve counts no nodes: the reference is the plain search.
        (Experiment::Sequential, quick) => {
            let default = if quick {
                "knapPI_3_200_1000_1"
            } else {
                "knapPI_3_500_1000_1"
            };
            spec_case(q.item.unwrap_or(default))?.plain_reference()
        }
        _ => return Ok(Vec::new()),
    };
    Ok(vec![case])
}

/// The knapsack instances of `spec` (the `sequential` items): `FILE#NAME` (one instance of
/// a file under `knapsack/` of the instance collection), `FILE` (every instance of it), or
/// `NAME`: the file of that name in `large_scale/` or `low-dimensional/` (checked against
/// its `*-optimum/` file), else the instance of that name in a Pisinger file
/// ([`named_case`]).
fn spec_case(spec: &str) -> Result<BenchCase, String> {
    if let Some((file, name)) = spec.split_once('#') {
        let args = instance_file(&format!("knapsack/{file}"))?.with("--instance", Some(name));
        return Ok(BenchCase::new(spec, args));
    }
    if spec.contains('/') {
        let mut case = whole_file(spec)?;
        case.label = spec.to_string();
        return Ok(case);
    }
    let base = crate::instances::location().join("knapsack");
    for dir in ["large_scale", "low-dimensional"] {
        let path = base.join(dir).join(spec);
        if path.is_file() {
            let optimum = std::fs::read_to_string(base.join(format!("{dir}-optimum")).join(spec))
                .ok()
                .and_then(|t| t.trim().parse::<u64>().ok());
            let inst = read(&path).map_err(|e| e.to_string())?;
            let case = BenchCase::new(spec, AppArgs::new(Some(path)));
            return Ok(match (optimum, inst.first()) {
                (Some(v), Some(i)) => case.expect(key(v * 10u64.pow(i.decimals()))),
                _ => case,
            });
        }
    }
    named_case(spec)
}

/// The instance called `name` of a Pisinger file of the instance collection (under
/// `knapsack/pisinger/`), checked against the optimum its file states.
fn named_case(name: &str) -> Result<BenchCase, String> {
    let base = crate::instances::location().join("knapsack");
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
                    let args = AppArgs::new(Some(p)).with("--instance", Some(name));
                    return Ok(BenchCase::new(name, args));
                }
            }
        }
    }
    Err(crate::instances::missing(
        &format!("knapsack {name} (a pisinger/ file)"),
        &base,
    ))
}

/// Every instance of the knapsack file `relative` (under `knapsack/` of the instance
/// collection), solved one after the other as one sample: `NAME.csv (all N)`.
fn whole_file(relative: &str) -> Result<BenchCase, String> {
    let file = instance_file(&format!("knapsack/{relative}"))?;
    let path = file.input().map(PathBuf::from).unwrap_or_default();
    let count = read(&path).map_err(|e| e.to_string())?.len();
    let args = (1..=count)
        .map(|i| file.clone().with("--instance", Some(&i.to_string())))
        .collect();
    let name = relative.rsplit('/').next().unwrap_or(relative);
    Ok(BenchCase::batch(format!("{name} (all {count})"), args))
}

/// The key of an optimum worth `profit`.
fn key(profit: u64) -> String {
    format!("profit {profit}")
}

/// One instance of a knapsack file.
struct Chosen {
    path: PathBuf,
    inst: Knapsack,
    /// Its 1-based position in the file.
    number: usize,
}

fn load(args: &AppArgs) -> Result<Box<dyn Instance>, AppError> {
    let path = args.file(&APP)?.to_path_buf();
    let all = read(&path)?;
    let number = match args.get("--instance").map(str::trim) {
        None => 1,
        Some(v) => match all.iter().position(|i| i.name() == v) {
            Some(i) => i + 1,
            None => match v.parse::<usize>() {
                Ok(k) if (1..=all.len()).contains(&k) => k,
                _ => {
                    let first = all.first().map_or("", |i| i.name());
                    return Err(AppError::Usage(format!(
                        "{}: --instance {v:?}: no instance of that name, and not a number in \
                         1..={} (the first instance is {first:?})",
                        path.display(),
                        all.len()
                    )));
                }
            },
        },
    };
    let inst = all.into_iter().nth(number - 1).expect("number checked");
    Ok(Box::new(Chosen { path, inst, number }))
}

impl Instance for Chosen {
    instance_basics!(APP, label: |i| i.path.display().to_string(), space: |i| &i.inst);

    fn solve(&self, run: Run<'_>) -> Result<Option<Solved>, AppError> {
        // Children come include-first, which does not order their bounds: no prune-level.
        let Some(out) = run.optimum(&self.inst, "selection")? else {
            return Ok(None);
        };
        let inst = &self.inst;
        let (profit, node) = out.value;
        // The node keeps no selection: a selection worth its profit, made now.
        let items = inst
            .certificate(node.profit)
            .ok_or_else(|| AppError::Check(format!("no selection is worth the reported {profit}")))?
            .items;
        let (sum, weight) = inst.evaluate(&items);
        check(
            profit >= 0 && sum == profit as u64 && weight <= inst.capacity(),
            || {
                format!(
                    "items {items:?} weigh {weight} (capacity {}) and are worth {sum}, not the \
                     reported {profit}",
                    inst.capacity()
                )
            },
        )?;
        let dec = inst.decimals();
        let mut what = format!(
            "the {} items weigh {} <= capacity {} and are worth {}",
            items.len(),
            scaled(weight, dec),
            scaled(inst.capacity(), dec),
            scaled(sum, dec)
        );
        // A stopped search's best packing need not be the optimum.
        if let Some(z) = inst.stated_optimum().filter(|_| !out.stats.stopped) {
            check(z == sum, || {
                format!("the search found profit {sum} but the file states the optimum {z}")
            })?;
            what.push_str(", the optimum stated in the file");
        }
        let answer = Answer::new(key(sum))
            .field("instance_name", inst.name())
            .field("instance_number", self.number)
            .field("items_in_instance", inst.len())
            .field("capacity", inst.capacity())
            .field("decimals", dec)
            .field("profit", sum)
            .field("weight", weight)
            .line(
                "instance",
                format!(
                    "{} ({:?}, number {}: {} items, capacity {})",
                    self.label(),
                    inst.name(),
                    self.number,
                    inst.len(),
                    scaled(inst.capacity(), dec)
                ),
            )
            .line(
                "answer",
                format!(
                    "{} profit {} (weight {})",
                    best_or("maximum", out.stats.stopped),
                    scaled(sum, dec),
                    scaled(weight, dec)
                ),
            )
            .line("items", format!("{} (0-based, file order)", ids(&items)))
            .field("items", items);
        Ok(Some(Solved::new(answer, what, out.stats)))
    }

    fn hand_written(&self) -> Option<HandWritten<'_>> {
        Some(HandWritten::new("knapsack::solve", || {
            let inst = &self.inst;
            let mut sol = None;
            let s = Solo::timed(|| {
                let found = super::solve(inst);
                let key = key(found.profit);
                sol = Some(found);
                (key, None)
            });
            let sol = sol.ok_or_else(|| AppError::Check("knapsack::solve did not run".into()))?;
            let (profit, weight) = inst.evaluate(&sol.items);
            check(profit == sol.profit && weight <= inst.capacity(), || {
                format!(
                    "knapsack::solve: items {:?} weigh {weight} and are worth {profit}, not {}",
                    sol.items, sol.profit
                )
            })?;
            Ok(s)
        }))
    }
}
