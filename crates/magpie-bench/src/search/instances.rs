//! The suite's instances and their oracles: files under the instance directory
//! (`magpie_apps::instances`: `--instances DIR`, `MAGPIE_INSTANCES`, else
//! `../shared/instances`) and the known answers they are checked against.

use magpie_apps::{instances, knapsack, maxclique, tsp};
use std::path::{Path, PathBuf};

/// Clique numbers ω of the DIMACS graphs (the collection's README, section 1; `tests/data/README.md` for the small ones).
const CLIQUE_NUMBERS: &[(&str, usize)] = &[
    ("brock200_1", 21),
    ("brock200_2", 12),
    ("brock200_3", 15),
    ("brock200_4", 17),
    ("brock400_1", 27),
    ("brock400_3", 31),
    ("brock800_1", 23),
    ("brock800_2", 24),
    ("brock800_3", 25),
    ("brock800_4", 26),
    ("C125.9", 34),
    ("C250.9", 44),
    ("keller5", 27),
    ("hamming6-2", 32),
    ("hamming6-4", 4),
    ("hamming10-2", 512),
    ("johnson8-2-4", 4),
    ("johnson8-4-4", 14),
    ("johnson16-2-4", 8),
    ("MANN_a9", 16),
    ("MANN_a27", 126),
    ("MANN_a45", 345),
    ("p_hat300-1", 8),
    ("p_hat500-1", 9),
    ("p_hat700-1", 11),
    ("p_hat1000-1", 10),
    ("san200_0.7_1", 30),
    ("san200_0.9_2", 60),
    ("sanr200_0.7", 18),
    ("sanr400_0.7", 21),
    ("gen200_p0.9_55", 55),
    ("gen400_p0.9_55", 55),
    ("c-fat200-1", 12),
    ("DSJC500_5", 13),
    ("DSJC1000_5", 15),
    ("frb30-15-1", 30),
];

/// Optimal tour lengths of the TSPLIB instances (the collection's README, section 2; `tests/data/README.md`).
const TOUR_OPTIMA: &[(&str, i64)] = &[
    ("burma14", 3323),
    ("ulysses16", 6859),
    ("gr17", 2085),
    ("gr24", 1272),
    ("fri26", 937),
    ("bayg29", 1610),
    ("dantzig42", 699),
    ("swiss42", 1273),
    ("att48", 10628),
    ("gr48", 5046),
    ("eil51", 426),
    ("berlin52", 7542),
    ("st70", 675),
    ("eil76", 538),
];

/// A DIMACS graph with its known clique number.
pub struct Clique {
    pub name: String,
    /// The graph as read (1-based DIMACS ids are `internal + 1`).
    pub graph: maxclique::Graph,
    /// The graph renumbered by non-increasing degree, as `CliqueSpace` and
    /// `max_clique_counted` search it, and the map back (`order[sorted] = original`).
    pub sorted: maxclique::Graph,
    pub order: Vec<usize>,
    pub omega: usize,
}

impl Clique {
    /// Reads `dimacs/<name>.clq` of the instance directory.
    pub fn load(name: &str) -> Result<Clique, String> {
        let omega = CLIQUE_NUMBERS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, w)| w)
            .ok_or_else(|| format!("{name}: no known clique number to check against"))?;
        let path = instances::find(&format!("dimacs/{name}.clq"))?;
        let graph = maxclique::read_dimacs(&path).map_err(|e| e.to_string())?;
        let (sorted, order) = graph.sorted_by_degree();
        Ok(Clique {
            name: name.to_string(),
            graph,
            sorted,
            order,
            omega,
        })
    }

    /// Checks a clique given as 1-based ids of the input graph.
    pub fn check(&self, clique: &[usize]) -> Result<(), String> {
        if clique.len() != self.omega {
            return Err(format!(
                "{}: found a clique of {} vertices, ω is {}",
                self.name,
                clique.len(),
                self.omega
            ));
        }
        if !maxclique::is_clique(&self.graph, clique) {
            return Err(format!("{}: {clique:?} is not a clique", self.name));
        }
        Ok(())
    }

    /// Checks a clique given in the degree-sorted numbering.
    pub fn check_sorted(&self, clique: &[usize]) -> Result<(), String> {
        let mut ids: Vec<usize> = clique.iter().map(|&v| self.order[v] + 1).collect();
        ids.sort_unstable();
        self.check(&ids)
    }
}

/// A TSPLIB instance with its optimum and the heuristic tour's length (the initial bound).
pub struct Tsp {
    pub name: String,
    pub inst: tsp::Instance,
    pub optimum: i64,
    pub heuristic: i64,
}

impl Tsp {
    /// Reads `tsplib/<name>.tsp` of the instance directory; the optimum comes from the README's table
    /// or else the `.opt.tour` file.
    pub fn load(name: &str) -> Result<Tsp, String> {
        let path = instances::find(&format!("tsplib/{name}.tsp"))?;
        let inst = tsp::read(&path).map_err(|e| e.to_string())?;
        let optimum = match TOUR_OPTIMA.iter().find(|(n, _)| *n == name) {
            Some(&(_, o)) => o,
            None => {
                let tour = instances::find(&format!("tsplib/{name}.opt.tour"))
                    .map_err(|_| format!("{name}: no known optimum to check against"))?;
                let cities = tsp::read_tour(tour).map_err(|e| e.to_string())?;
                tsp::tour_length(&inst, &cities)
            }
        };
        let heuristic = tsp::heuristic_tour(&inst).length;
        Ok(Tsp {
            name: name.to_string(),
            inst,
            optimum,
            heuristic,
        })
    }

    /// Checks a tour length.
    pub fn check(&self, length: i64) -> Result<(), String> {
        if length == self.optimum {
            Ok(())
        } else {
            Err(format!(
                "{}: tour of length {length}, the optimum is {}",
                self.name, self.optimum
            ))
        }
    }

    /// Checks a search result with the heuristic tour as the initial bound: `None` means the
    /// heuristic tour was optimal.
    pub fn check_outcome(&self, best: Option<(i64, &tsp::TspNode)>) -> Result<(), String> {
        match best {
            None => self.check(self.heuristic),
            Some((value, node)) => {
                let tour = node.tour(&self.inst);
                if tsp::tour_length(&self.inst, &tour.cities) != -value {
                    return Err(format!(
                        "{}: the tour's length is not the objective {}",
                        self.name, -value
                    ));
                }
                self.check(-value)
            }
        }
    }
}

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
