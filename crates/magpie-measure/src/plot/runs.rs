//! Run times per configuration, read from a `magpie experiment --format json` report or a
//! `magpie-bench forkjoin|loops|search|distributed --json` array (the fields those commands
//! write; nothing renamed).

use std::collections::BTreeSet;

use serde_json::Value;

use super::InputError;

/// One configuration's runs: a box of the box plot, a point of a speedup curve.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The panel: the application (experiment, loops) or kernel (forkjoin); for the search
    /// suite the experiment, app and instance (`speedup uts T1`), for the distributed suite
    /// the experiment, app and load (`policies ns-34 (contended)`).
    pub panel: String,
    /// The configuration without its worker count (`magpie chase-lev`, `park`, `rayon`).
    pub config: String,
    /// Worker threads (for a distributed row, ranks × workers per rank).
    pub workers: usize,
    /// MPI ranks (distributed rows only): `workers` is then spread over them.
    pub ranks: Option<usize>,
    /// A sequential row (the speedup's baseline of its panel).
    pub sequential: bool,
    /// The runs' times in seconds; for an older benchmark report without `times_s`, its
    /// min, median and max.
    pub times: Vec<f64>,
}

impl Sample {
    /// The median of the times.
    pub fn median(&self) -> f64 {
        crate::stats::median(&self.times)
    }

    /// The row's label in the box plots: the configuration and its worker count
    /// (`rayon ×2`), its ranks × workers per rank for a distributed row (`random 4×1`, or
    /// `2×1` where the configuration is named so), the configuration alone for a
    /// sequential row.
    ///
    /// ```
    /// use magpie_measure::plot::Sample;
    /// let mut s = Sample { panel: "fib".into(), config: "rayon".into(), workers: 2,
    ///                      ranks: None, sequential: false, times: vec![1.0] };
    /// assert_eq!(s.label(), "rayon ×2");
    /// s.ranks = Some(2);
    /// assert_eq!(s.label(), "rayon 2×1");
    /// s.config = "2x1".into();
    /// assert_eq!(s.label(), "2×1");
    /// ```
    pub fn label(&self) -> String {
        if self.sequential {
            return self.config.clone();
        }
        match self.ranks {
            Some(r) => {
                let shape = format!("{r}×{}", self.workers / r.max(1));
                if self.config.replace('x', "×") == shape {
                    shape
                } else {
                    format!("{} {shape}", self.config)
                }
            }
            None => format!("{} ×{}", self.config, self.workers),
        }
    }
}

/// Run times of one report.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Runs {
    /// What wrote them: `magpie experiment`, `magpie-bench forkjoin`, `magpie-bench loops`,
    /// `magpie-bench search`, `magpie-bench distributed`.
    pub source: String,
    /// The configurations, in the report's order.
    pub samples: Vec<Sample>,
}

impl Runs {
    /// Reads a report already in memory (as `--plot DIR` has it): an experiment report
    /// object or a benchmark suite's array of rows.
    ///
    /// ```
    /// use magpie_measure::plot::Runs;
    /// let rows = serde_json::json!([
    ///     {"kernel":"fib","runtime":"sequential","variant":"","workers":1,
    ///      "median_s":2.0,"min_s":2.0,"max_s":2.0,"times_s":[2.0]},
    ///     {"kernel":"fib","runtime":"magpie","variant":"chase-lev","workers":1,
    ///      "median_s":2.5,"min_s":2.5,"max_s":2.5,"times_s":[2.5]},
    ///     {"kernel":"fib","runtime":"magpie","variant":"chase-lev","workers":2,
    ///      "median_s":1.0,"min_s":0.9,"max_s":1.2,"times_s":[0.9,1.0,1.2]}]);
    /// let runs = Runs::from_value(&rows).unwrap();
    /// assert_eq!(runs.source, "magpie-bench forkjoin");
    /// assert_eq!(runs.samples[1].config, "magpie chase-lev");
    /// // Against the sequential row: 2.0 / 2.5 at 1 worker, 2.0 / 1.0 at 2.
    /// assert_eq!(runs.speedups()[0].points, [(1, 0.8), (2, 2.0)]);
    /// ```
    pub fn from_value(v: &Value) -> Result<Runs, String> {
        let numbered = |rows: &[Value]| -> Vec<(usize, Value)> {
            rows.iter().cloned().map(|r| (0, r)).collect()
        };
        let result = match v {
            Value::Array(rows) => from_bench_rows(&numbered(rows)),
            Value::Object(o) if o.contains_key("experiment") => match o.get("rows") {
                Some(Value::Array(rows)) => from_experiment_rows(&numbered(rows)),
                _ => return Err("the experiment report has no rows".into()),
            },
            _ => return Err("not an experiment report or a benchmark report".into()),
        };
        result.map_err(|e| e.message)
    }

    /// Whether some configuration ran at several worker counts (a speedup curve).
    pub fn has_speedup(&self) -> bool {
        !self.speedups().is_empty()
    }

    /// The panels in order of first appearance.
    pub fn panels(&self) -> Vec<&str> {
        first_seen(self.samples.iter().map(|s| s.panel.as_str()))
    }

    /// The configurations (without workers) in order of first appearance: the colours.
    pub fn configs(&self) -> Vec<&str> {
        first_seen(self.samples.iter().map(|s| s.config.as_str()))
    }

    /// The speedup curves: per panel and non-sequential configuration run at two or more
    /// worker counts, (workers, baseline median / median) in order of workers. The baseline
    /// is the panel's first sequential row, else the configuration's own run at 1 worker,
    /// else its run at its fewest workers (a relative speedup: the curve starts at 1 there,
    /// and the curve's `base` says where).
    pub fn speedups(&self) -> Vec<Curve> {
        let mut out = Vec::new();
        for panel in self.panels() {
            let in_panel: Vec<&Sample> = self.samples.iter().filter(|s| s.panel == panel).collect();
            let sequential = in_panel.iter().find(|s| s.sequential).map(|s| s.median());
            for config in self.configs() {
                let mut mine: Vec<&Sample> = in_panel
                    .iter()
                    .copied()
                    .filter(|s| s.config == config && !s.sequential)
                    .collect();
                mine.sort_by_key(|s| s.workers);
                mine.dedup_by_key(|s| s.workers);
                if mine.len() < 2 {
                    continue;
                }
                let own = mine.iter().find(|s| s.workers == 1).map(|s| s.median());
                let (base, at) = match sequential.or(own) {
                    Some(b) => (b, 1),
                    None => (mine[0].median(), mine[0].workers),
                };
                out.push(Curve {
                    panel: panel.to_string(),
                    config: config.to_string(),
                    base: at,
                    points: mine
                        .iter()
                        .map(|s| (s.workers, base / s.median()))
                        .collect(),
                });
            }
        }
        out
    }

    /// What the speedup pictures' worker axis counts: `workers`, or for the distributed
    /// suite `workers (ranks × workers per rank)`.
    pub fn workers_axis(&self) -> &'static str {
        if self.source == DISTRIBUTED {
            "workers (ranks × workers per rank)"
        } else {
            "workers"
        }
    }
}

/// One speedup curve.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// The panel (application or kernel).
    pub panel: String,
    /// The configuration.
    pub config: String,
    /// The worker count the speedups are relative to: 1 (a sequential row or the
    /// configuration's own 1-worker run), or the configuration's fewest workers.
    pub base: usize,
    /// (workers, speedup), in order of workers.
    pub points: Vec<(usize, f64)>,
}

fn text<'a>(row: &'a Value, key: &str) -> Option<&'a str> {
    row.get(key).and_then(Value::as_str)
}

fn workers(line: usize, row: &Value) -> Result<usize, InputError> {
    row.get("workers")
        .and_then(Value::as_u64)
        .filter(|&w| w >= 1)
        .map(|w| w as usize)
        .ok_or_else(|| InputError::at(line, "a row without a whole number \"workers\" (>= 1)"))
}

/// The positive finite times of `key`, an array of numbers (absent or `null`: `None`).
fn times(line: usize, row: &Value, key: &str) -> Result<Option<Vec<f64>>, InputError> {
    let Some(v) = row.get(key).filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let bad = || {
        InputError::at(
            line,
            format!("\"{key}\" is not an array of times (numbers >= 0)"),
        )
    };
    let arr = v.as_array().ok_or_else(bad)?;
    let t: Vec<f64> = arr
        .iter()
        .map(|x| {
            x.as_f64()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or_else(bad)
        })
        .collect::<Result<_, _>>()?;
    if t.is_empty() {
        return Err(InputError::at(line, format!("\"{key}\" is empty")));
    }
    Ok(Some(t))
}

/// The rows of `magpie experiment policies --format json`: `app`, `runtime`, `workers`,
/// `deque`, `victims`, `idle`, `schedule` and `times`. A configuration's label is made of
/// the settings that differ between the rows (`park`, `yield`, `rayon`).
pub(crate) fn from_experiment_rows(rows: &[(usize, Value)]) -> Result<Runs, InputError> {
    // The settings that differ between magpie's rows (a peer's row is its runtime's name).
    const AXES: [&str; 4] = ["deque", "victims", "idle", "schedule"];
    let varying: Vec<&str> = AXES
        .into_iter()
        .filter(|k| {
            rows.iter()
                .filter(|(_, r)| text(r, "runtime").unwrap_or("magpie") == "magpie")
                .map(|(_, r)| text(r, k))
                .collect::<BTreeSet<_>>()
                .len()
                > 1
        })
        .collect();
    let mut samples = Vec::new();
    for (line, row) in rows {
        let line = *line;
        let panel = text(row, "app")
            .ok_or_else(|| InputError::at(line, "an experiment row without \"app\""))?;
        let runtime = text(row, "runtime").unwrap_or("magpie");
        let times = times(line, row, "times")?
            .ok_or_else(|| InputError::at(line, "an experiment row without \"times\""))?;
        let config = if runtime != "magpie" {
            runtime.to_string()
        } else {
            let parts: Vec<&str> = varying.iter().filter_map(|k| text(row, k)).collect();
            if parts.is_empty() {
                runtime.to_string()
            } else {
                parts.join(" ")
            }
        };
        samples.push(Sample {
            panel: panel.to_string(),
            config,
            workers: workers(line, row)?,
            ranks: None,
            sequential: false,
            times,
        });
    }
    Ok(Runs {
        source: "magpie experiment".into(),
        samples,
    })
}

/// The source of the distributed suite's rows.
const DISTRIBUTED: &str = "magpie-bench distributed";

/// What one benchmark row is: its suite, panel, configuration, whether it is a sequential
/// baseline, and its ranks (distributed).
struct Shape {
    suite: &'static str,
    panel: String,
    config: String,
    sequential: bool,
    ranks: Option<usize>,
}

/// Tells the suites' rows apart: `kernel` (forkjoin), `row` (distributed: only its `time`
/// rows have run times; the others are `None`), `experiment` with `instance` (search),
/// `app` with `kind` (loops).
fn shape(line: usize, row: &Value) -> Result<Option<Shape>, InputError> {
    let shape = |suite, panel: &str, config: String, sequential| Shape {
        suite,
        panel: panel.to_string(),
        config,
        sequential,
        ranks: None,
    };
    if let Some(kernel) = text(row, "kernel") {
        let runtime = text(row, "runtime").unwrap_or("?");
        let variant = text(row, "variant").unwrap_or("");
        let config = if variant.is_empty() {
            runtime.to_string()
        } else {
            format!("{runtime} {variant}")
        };
        return Ok(Some(shape(
            "forkjoin",
            kernel,
            config,
            runtime == "sequential",
        )));
    }
    if let Some(kind) = text(row, "row") {
        if kind != "time" {
            return Ok(None);
        }
        let (Some(experiment), Some(app), Some(contender)) = (
            text(row, "experiment"),
            text(row, "app"),
            text(row, "contender"),
        ) else {
            return Err(InputError::at(
                line,
                "a distributed time row without \"experiment\", \"app\" or \"contender\"",
            ));
        };
        let ranks = row
            .get("ranks")
            .and_then(Value::as_u64)
            .filter(|&r| r >= 1)
            .ok_or_else(|| InputError::at(line, "a row without a whole number \"ranks\" (>= 1)"))?;
        let panel = match text(row, "load").unwrap_or("") {
            "" => format!("{experiment} {app}"),
            load => format!("{experiment} {app} ({load})"),
        };
        let mut s = shape("distributed", &panel, contender.to_string(), false);
        s.ranks = Some(ranks as usize);
        return Ok(Some(s));
    }
    if let (Some(experiment), Some(instance)) = (text(row, "experiment"), text(row, "instance")) {
        let app = text(row, "app").unwrap_or("");
        let config = text(row, "config").unwrap_or("?").to_string();
        let baseline = row.get("baseline").and_then(Value::as_bool) == Some(true);
        let panel = format!("{experiment} {app} {instance}");
        return Ok(Some(shape("search", &panel, config, baseline)));
    }
    if let (Some(app), Some(kind)) = (text(row, "app"), text(row, "kind")) {
        let config = match text(row, "config").unwrap_or("") {
            "" => kind.to_string(),
            c => format!("{kind} {c}"),
        };
        return Ok(Some(shape(
            "loops",
            app,
            config,
            kind.starts_with("sequential"),
        )));
    }
    Err(InputError::at(
        line,
        "not a row of magpie-bench forkjoin (kernel, runtime), loops (app, kind, config), \
         search (experiment, app, instance, config) or distributed (row, experiment, app, \
         contender)",
    ))
}

/// The rows of `magpie-bench forkjoin --json` (`kernel`, `runtime`, `variant`),
/// `magpie-bench loops --json` (`app`, `kind`, `config`), `magpie-bench search --json`
/// (`experiment`, `app`, `instance`, `config`; `baseline` marks the speedup experiment's
/// hand-written sequential solver) or `magpie-bench distributed --json` (its `time` rows:
/// `experiment`, `app`, `load`, `contender`, `ranks`), with `workers` and `times_s` (or, in
/// older reports, only `min_s`, `median_s`, `max_s`). The search and distributed suites'
/// rows without run times (ratios, comparisons, errors, an item that did not finish) are
/// left out.
pub(crate) fn from_bench_rows(rows: &[(usize, Value)]) -> Result<Runs, InputError> {
    let mut source = None;
    let mut samples = Vec::new();
    for (line, row) in rows {
        let line = *line;
        let Some(shape) = shape(line, row)? else {
            continue;
        };
        let suite = shape.suite;
        if *source.get_or_insert(suite) != suite {
            return Err(InputError::at(
                line,
                format!(
                    "rows of two suites mixed ({} and {suite})",
                    source.unwrap_or("")
                ),
            ));
        }
        let times = match times(line, row, "times_s")? {
            Some(t) => t,
            None => {
                let n = |k: &str| row.get(k).and_then(Value::as_f64);
                match (n("min_s"), n("median_s"), n("max_s")) {
                    (Some(a), Some(b), Some(c)) => vec![a, b, c],
                    // A search row without times: a ratio, an error, an item not finished.
                    _ if suite == "search" => continue,
                    _ => {
                        return Err(InputError::at(
                            line,
                            "a row without \"times_s\" (or \"min_s\", \"median_s\", \"max_s\")",
                        ))
                    }
                }
            }
        };
        let mut workers = workers(line, row)?;
        if let Some(r) = shape.ranks {
            workers *= r;
        }
        samples.push(Sample {
            panel: shape.panel,
            config: shape.config,
            workers,
            ranks: shape.ranks,
            sequential: shape.sequential,
            times,
        });
    }
    Ok(Runs {
        source: format!("magpie-bench {}", source.unwrap_or("")),
        samples,
    })
}

/// The distinct values of `values`, in order of first appearance.
fn first_seen<'a>(values: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for v in values {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn numbered(v: Value) -> Vec<(usize, Value)> {
        v.as_array()
            .unwrap()
            .iter()
            .cloned()
            .map(|r| (1, r))
            .collect()
    }

    #[test]
    fn experiment_labels_name_what_differs_and_speedup_is_against_one_worker() {
        let rows = numbered(json!([
            {"app":"fib","runtime":"magpie","workers":1,"deque":"chase-lev","victims":"random","idle":"park","times":[4.0,4.0]},
            {"app":"fib","runtime":"magpie","workers":1,"deque":"chase-lev","victims":"random","idle":"yield","times":[6.0]},
            {"app":"fib","runtime":"magpie","workers":2,"deque":"chase-lev","victims":"random","idle":"park","times":[1.0,3.0]},
            {"app":"fib","runtime":"magpie","workers":2,"deque":"chase-lev","victims":"random","idle":"yield","times":[2.0]},
            {"app":"fib","runtime":"rayon","workers":2,"deque":null,"victims":null,"idle":null,"times":[1.0]}
        ]));
        let r = from_experiment_rows(&rows).unwrap();
        let labels: Vec<&str> = r.samples.iter().map(|s| s.config.as_str()).collect();
        assert_eq!(labels, ["park", "yield", "park", "yield", "rayon"]);
        let curves = r.speedups();
        assert_eq!(curves.len(), 2);
        assert_eq!(curves[0].points, [(1, 1.0), (2, 2.0)]);
        assert_eq!(curves[1].points, [(1, 1.0), (2, 3.0)]);
    }

    #[test]
    fn loops_rows_use_the_sequential_row_as_baseline() {
        let rows = numbered(json!([
            {"app":"gamma","kind":"sequential-rust","config":"","workers":1,"times_s":[8.0]},
            {"app":"gamma","kind":"magpie","config":"gss","workers":2,"times_s":[5.0,4.0,3.0]},
            {"app":"gamma","kind":"magpie","config":"gss","workers":4,"times_s":[2.0]},
            {"app":"gamma","kind":"openmp","config":"static","workers":2,"median_s":4.0,"min_s":3.0,"max_s":5.0}
        ]));
        let r = from_bench_rows(&rows).unwrap();
        assert_eq!(r.source, "magpie-bench loops");
        assert_eq!(r.samples[3].times, [3.0, 4.0, 5.0]);
        assert_eq!(r.samples[1].config, "magpie gss");
        let c = r.speedups();
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].points, [(2, 2.0), (4, 4.0)]);
        let bad = vec![(9, json!({"kernel":"fib","runtime":"rayon","workers":0}))];
        assert_eq!(
            from_bench_rows(&bad).unwrap_err().to_string(),
            "line 9: a row without \"times_s\" (or \"min_s\", \"median_s\", \"max_s\")"
        );
    }

    #[test]
    fn search_rows_leave_out_ratios_and_use_the_hand_written_baseline() {
        let rows = numbered(json!([
            {"experiment":"speedup","app":"uts","instance":"T1","config":"dbs:2","workers":1,
             "runs":2,"median_s":4.0,"min_s":4.0,"max_s":4.0,"times_s":[4.0,4.0],"baseline":false},
            {"experiment":"speedup","app":"uts","instance":"T1","config":"dbs:2","workers":2,
             "runs":2,"median_s":2.5,"min_s":2.0,"max_s":3.0,"times_s":[2.0,3.0],"baseline":false},
            {"experiment":"speedup","app":"uts","instance":"T1","config":"uts::count","workers":1,
             "runs":1,"median_s":5.0,"min_s":5.0,"max_s":5.0,"times_s":[5.0],"baseline":true},
            {"experiment":"speedup","app":"uts","instance":"T1","config":"speedup dbs:2 1w / 2w",
             "workers":2,"runs":0,"median_s":null,"min_s":null,"max_s":null,"ratio":1.6,
             "times_s":null,"baseline":false},
            {"experiment":"overhead","app":"tsp","instance":"bayg29","config":"-","workers":0,
             "runs":0,"median_s":null,"verdict":"ERROR"},
            // An older report: no times_s.
            {"experiment":"overhead","app":"ns","instance":"genus 22","config":"plain","workers":1,
             "runs":3,"median_s":2.0,"min_s":1.0,"max_s":3.0}
        ]));
        let r = from_bench_rows(&rows).unwrap();
        assert_eq!(r.source, "magpie-bench search");
        assert_eq!(r.panels(), ["speedup uts T1", "overhead ns genus 22"]);
        assert_eq!(r.samples.len(), 4);
        assert_eq!(r.samples[3].times, [1.0, 2.0, 3.0]);
        assert_eq!(r.samples[2].label(), "uts::count");
        // Against the hand-written solver's 5.0: 5 / 4 at 1 worker, 5 / 2.5 at 2.
        let c = r.speedups();
        assert_eq!(c.len(), 1);
        assert_eq!((c[0].config.as_str(), c[0].base), ("dbs:2", 1));
        assert_eq!(c[0].points, [(1, 1.25), (2, 2.0)]);
    }

    #[test]
    fn distributed_time_rows_count_ranks_times_workers() {
        let rows = numbered(json!([
            {"row":"time","experiment":"overhead","app":"uts-d7","load":"","contender":"2x1",
             "ranks":2,"workers":1,"median_s":1.0,"min_s":1.0,"max_s":1.0,"times_s":[1.0]},
            {"row":"time","experiment":"overhead","app":"uts-d7","load":"","contender":"1x2",
             "ranks":1,"workers":2,"median_s":0.9,"min_s":0.9,"max_s":0.9,"times_s":[0.9]},
            {"row":"ratio","experiment":"overhead","app":"uts-d7","ratio_of":"2x1/1x2","ratio":1.1},
            {"row":"compare","app":"ns-20","load":"isolated","candidate":"perf","other":"random"},
            {"row":"error","experiment":"loops","app":"x","contender":"","command":"","error":"e"},
            {"row":"time","experiment":"policies","app":"ns-20","load":"contended",
             "contender":"perf","ranks":4,"workers":1,"median_s":2.0,"min_s":2.0,"max_s":2.0,
             "times_s":[2.0,2.0]},
            {"row":"time","experiment":"loops","app":"exponential","load":"","contender":"steal",
             "ranks":2,"workers":1,"median_s":3.0,"min_s":3.0,"max_s":3.0,"times_s":[3.0]},
            {"row":"time","experiment":"loops","app":"exponential","load":"","contender":"steal",
             "ranks":4,"workers":1,"median_s":2.0,"min_s":2.0,"max_s":2.0,"times_s":[2.0]}
        ]));
        let r = from_bench_rows(&rows).unwrap();
        assert_eq!(r.source, "magpie-bench distributed");
        assert_eq!(r.workers_axis(), "workers (ranks × workers per rank)");
        assert_eq!(
            r.panels(),
            [
                "overhead uts-d7",
                "policies ns-20 (contended)",
                "loops exponential"
            ]
        );
        let labels: Vec<String> = r.samples.iter().map(Sample::label).collect();
        assert_eq!(labels, ["2×1", "1×2", "perf 4×1", "steal 2×1", "steal 4×1"]);
        assert_eq!(r.samples[2].workers, 4);
        // No run at 1 rank: relative to 2 ranks, 3 / 2 at 4.
        let c = r.speedups();
        assert_eq!(c.len(), 1);
        assert_eq!(
            (c[0].base, c[0].points.clone()),
            (2, vec![(2, 1.0), (4, 1.5)])
        );
        let bad = vec![(
            4,
            json!({"row":"time","experiment":"loops","app":"a","contender":"c","workers":1}),
        )];
        assert_eq!(
            from_bench_rows(&bad).unwrap_err().to_string(),
            "line 4: a row without a whole number \"ranks\" (>= 1)"
        );
        let mixed = numbered(
            json!([rows[0].1, {"kernel":"fib","runtime":"rayon","workers":1,"times_s":[1.0]}]),
        );
        assert!(from_bench_rows(&mixed)
            .unwrap_err()
            .message
            .contains("rows of two suites mixed (distributed and forkjoin)"));
    }
}
