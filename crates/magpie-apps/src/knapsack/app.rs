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
};

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
        let Some(out) = run.optimise(&self.inst)? else {
            return Ok(None);
        };
        let inst = &self.inst;
        let (profit, node) = out
            .value
            .ok_or_else(|| AppError::Check("the search returned no selection at all".into()))?;
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
        let answer = Answer::new(format!("profit {sum}"))
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
}
