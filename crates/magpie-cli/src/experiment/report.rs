//! Summarises an experiment's measurements and prints them as a table, CSV or JSON.
//!
//! Per (application, configuration) row: the run times (a run's time is the mean over its
//! instances) with median, mean, sample standard deviation, 95% confidence interval of the
//! mean (Student t), min and max; `relative` = the row's mean over the mean of the rows of
//! the same application and worker count; the pool counters summed over every solve
//! (failed steals = attempts − steals); and Welch's t-test of the row's run times against
//! those of the first configuration of the same application and worker count. Per
//! configuration: the aggregated result, `relative` averaged over the applications. The
//! schedules of `--schedule` are configurations too (rows of one application under
//! different schedules are compared with each other). A loop application's rows also name
//! the schedule and give the loop's chunks and loop steals per solve and the mean of the
//! last step's c.o.v.
//!
//! An application that takes no schedule (a search, a kernel) runs once per configuration
//! of the other axes ([`Plan::row_setup`]): its rows have no schedule, and its `relative`
//! and Welch's test compare those configurations only (its rows of the same worker count;
//! the baseline is the first configuration of the other axes). In the aggregated result of
//! a configuration with a schedule, it counts with its row of the same other axes: it adds
//! the same to every schedule, so the schedules' differences come from the applications
//! that take one. Its row's own `aggregated` is the mean over the configurations it stands
//! for.

use std::io::{self, Write};

use magpie_measure::report::{csv_field, Table};
use serde::Serialize;

use super::apps::{Counters, LoopCounters, Measurement};
use super::matrix::{Lists, Setup};
use super::runner::{Plan, Results};
use super::Format;
use crate::stop::Status;
use magpie_measure::stats::{self, Welch};

/// One (application, configuration) row.
pub struct Row {
    app: usize,
    setup: usize,
    /// Per run: the mean over instances, in seconds.
    times: Vec<f64>,
    /// Per run, per instance, in seconds.
    instance_times: Vec<Vec<f64>>,
    median: f64,
    mean: f64,
    sd: Option<f64>,
    ci95: Option<f64>,
    min: f64,
    max: f64,
    relative: f64,
    /// The aggregated result of the configurations the row stands for (their mean: one,
    /// unless the application takes no schedule and the configurations have several).
    aggregated: f64,
    /// Summed over every solve (`None` for a peer runtime).
    counters: Option<Counters>,
    instance_counters: Option<Vec<Vec<Counters>>>,
    /// A loop application's chunks and steals summed over every solve, and the mean of the
    /// solves' last-step c.o.v. (`None` for the other applications).
    loops: Option<LoopCounters>,
    solves: usize,
    baseline: bool,
    welch: Option<Welch>,
    answer: String,
    check: String,
}

/// A summarised experiment, ready to print.
pub struct Experiment<'a> {
    plan: &'a Plan,
    lists: &'a Lists,
    rows: Vec<Row>,
    /// Per setup.
    aggregated: Vec<f64>,
    background_ran_throughout: Option<bool>,
    /// `complete`, or why the runs stopped early.
    status: Status,
    runs_done: usize,
}

fn summarise(app: usize, setup: usize, runs: &[Vec<Measurement>]) -> Row {
    let instance_times: Vec<Vec<f64>> = runs
        .iter()
        .map(|r| r.iter().map(|m| m.seconds).collect())
        .collect();
    let times: Vec<f64> = instance_times.iter().map(|r| stats::mean(r)).collect();
    let all: Vec<&Measurement> = runs.iter().flatten().collect();
    let counters = all
        .iter()
        .map(|m| m.counters)
        .collect::<Option<Vec<Counters>>>()
        .map(|cs| {
            let mut total = Counters::default();
            for c in cs {
                total += c;
            }
            total
        });
    let instance_counters = runs
        .iter()
        .map(|r| r.iter().map(|m| m.counters).collect::<Option<Vec<_>>>())
        .collect::<Option<Vec<_>>>();
    let loops = all
        .iter()
        .map(|m| m.loop_stats)
        .collect::<Option<Vec<LoopCounters>>>()
        .filter(|v| !v.is_empty())
        .map(|v| LoopCounters {
            chunks: v.iter().map(|l| l.chunks).sum(),
            steals: v.iter().map(|l| l.steals).sum(),
            cov: v.iter().map(|l| l.cov).sum::<f64>() / v.len() as f64,
        });
    Row {
        app,
        setup,
        loops,
        median: stats::median(&times),
        mean: stats::mean(&times),
        sd: stats::sd(&times),
        ci95: stats::ci95_half_width(&times),
        min: times.iter().copied().fold(f64::INFINITY, f64::min),
        max: times.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        relative: f64::NAN,
        aggregated: f64::NAN,
        counters,
        instance_counters,
        solves: all.len(),
        baseline: false,
        welch: None,
        answer: all.first().map(|m| m.answer.clone()).unwrap_or_default(),
        check: all.first().map(|m| m.check.clone()).unwrap_or_default(),
        times,
        instance_times,
    }
}

impl<'a> Experiment<'a> {
    /// Summarises `results` of `plan`.
    pub fn new(plan: &'a Plan, lists: &'a Lists, results: &Results) -> Experiment<'a> {
        let mut rows = Vec::new();
        for (a, per_setup) in results.measured.iter().enumerate() {
            for (s, runs) in per_setup.iter().enumerate() {
                // A pair left out (a peer without this application) has no runs and no row;
                // nor has a pair whose first run an early stop prevented.
                if plan.runs_on(a, s) && !runs.is_empty() {
                    rows.push(summarise(a, s, runs));
                }
            }
        }
        let setups = plan.setups.len();
        let row_index =
            |rows: &[Row], a: usize, s: usize| rows.iter().position(|r| r.app == a && r.setup == s);
        for &w in &lists.workers {
            for a in 0..plan.apps.len() {
                // The comparison group: the rows of this app with `w` workers, in order.
                let group: Vec<usize> = (0..setups)
                    .filter(|&s| plan.setups[s].workers == w)
                    .filter_map(|s| row_index(&rows, a, s))
                    .collect();
                let Some(&first) = group.first() else {
                    continue;
                };
                let means: Vec<f64> = group.iter().map(|&i| rows[i].mean).collect();
                for (&i, r) in group.iter().zip(stats::relative(&means)) {
                    rows[i].relative = r;
                }
                let base = rows[first].times.clone();
                rows[first].baseline = true;
                for &i in &group[1..] {
                    let row = &mut rows[i];
                    row.welch = stats::welch(&row.times, &base);
                }
            }
        }
        // The Pheet thesis' aggregated result: per setup, the mean over the applications of
        // its relative time (`stats::aggregated` when every application ran every setup; a
        // peer's is over the applications it ran). An application without a schedule counts
        // with the row that stands for the setup (the same other axes).
        let aggregated: Vec<f64> = (0..setups)
            .map(|s| {
                let rel: Vec<f64> = (0..plan.apps.len())
                    .filter(|&a| plan.has_version(a, s))
                    .filter_map(|a| row_index(&rows, a, plan.row_setup(a, s)))
                    .map(|i| rows[i].relative)
                    .collect();
                stats::mean(&rel)
            })
            .collect();
        for r in &mut rows {
            let covered: Vec<f64> = (0..setups)
                .filter(|&s| plan.has_version(r.app, s) && plan.row_setup(r.app, s) == r.setup)
                .map(|s| aggregated[s])
                .collect();
            r.aggregated = stats::mean(&covered);
        }
        Experiment {
            plan,
            lists,
            rows,
            aggregated,
            background_ran_throughout: results.background_ran_throughout,
            status: results.status,
            runs_done: results.runs_done,
        }
    }

    /// Prints the report on stdout.
    pub fn print(&self, format: Format) -> io::Result<()> {
        let mut out = io::stdout().lock();
        match format {
            Format::Table => self.table(&mut out)?,
            Format::Csv => self.csv(&mut out)?,
            Format::Json => {
                serde_json::to_writer(&mut out, &self.json())?;
                writeln!(out)?;
            }
        }
        out.flush()
    }

    /// The report as its JSON output (`--format json`), for `--plot`.
    pub fn json_value(&self) -> serde_json::Value {
        serde_json::to_value(self.json()).unwrap_or(serde_json::Value::Null)
    }

    fn setup(&self, row: &Row) -> &Setup {
        &self.plan.setups[row.setup]
    }

    /// The row's schedule: its configuration's (from `--schedule`) for a loop application,
    /// else a loop application's own (`auto`), else none (the application takes none).
    fn schedule(&self, row: &Row) -> Option<&str> {
        let app = &self.plan.apps[row.app];
        self.setup(row)
            .schedule_for(app)
            .or(app.schedule.as_deref())
    }

    /// Whether some application runs once for all schedules of the axis (it takes none).
    fn some_apps_without_schedule(&self) -> bool {
        self.has_schedules() && self.plan.apps.iter().any(|a| !a.is_loop())
    }

    /// Whether the configurations have a schedule axis (`--schedule`).
    fn has_schedules(&self) -> bool {
        !self.lists.schedules.is_empty()
    }

    /// The table columns that name a configuration (`workers` right-aligned), the schedule
    /// among them when there is a schedule axis.
    fn config_headers(&self) -> Vec<(&'static str, bool)> {
        let mut headers = vec![
            ("workers", true),
            ("runtime", false),
            ("deque", false),
            ("victims", false),
            ("idle", false),
        ];
        if self.has_schedules() {
            headers.push(("schedule", false));
        }
        headers
    }

    // -----------------------------------------------------------------------------------
    // Table

    fn table(&self, out: &mut impl Write) -> io::Result<()> {
        let p = self.plan;
        let l = self.lists;
        let configs = p.setups.len() / l.workers.len().max(1);
        writeln!(
            out,
            "magpie experiment policies: {} application{}, {} configuration{} × workers {}, {} run{} each",
            p.apps.len(),
            plural(p.apps.len()),
            configs,
            plural(configs),
            join(&l.workers),
            p.runs,
            plural(p.runs),
        )?;
        if self.status != Status::Complete {
            writeln!(
                out,
                "stopped ({}) after {} runs: the rows below have the runs done",
                self.status.name(),
                self.runs_done
            )?;
        }
        writeln!(
            out,
            "deques {}; victims {}; idle {}{}{}; signal {}, join limit {}",
            l.deques.join(" "),
            l.victims.join(" "),
            l.idle.join(" "),
            if l.schedules.is_empty() {
                String::new()
            } else {
                format!("; schedules {}", l.schedules.join(" "))
            },
            if l.peers.is_empty() {
                String::new()
            } else {
                format!("; peers {}", l.peers.join(" "))
            },
            l.signal,
            l.join_limit,
        )?;
        writeln!(
            out,
            "configurations alternate run by run; {} instance{} per run, each a fresh process, \
             released together by a barrier (a run's time is their mean)",
            p.instances,
            plural(p.instances)
        )?;
        if let Some(c) = &p.background {
            let note = match self.background_ran_throughout {
                Some(false) => " (it ended before the last run)",
                _ => "",
            };
            writeln!(
                out,
                "background: sh -c {c:?}, started before the first run and killed after the last{note}"
            )?;
        }
        writeln!(
            out,
            "times in ms; counters per solve; rel = mean / mean of the rows with the same app and \
             workers; Welch t-test against the first row of each worker count (* p < 0.05)"
        )?;
        for (a, app) in p.apps.iter().enumerate() {
            let rows: Vec<&Row> = self.rows.iter().filter(|r| r.app == a).collect();
            writeln!(out)?;
            let first = rows[0];
            writeln!(
                out,
                "{}: {} (checked: {})",
                app.label, first.answer, first.check
            )?;
            if self.has_schedules() && !app.is_loop() {
                writeln!(
                    out,
                    "(takes no schedule: one row per configuration of the other settings, run \
                     once for all {} schedules)",
                    self.lists.schedules.len()
                )?;
            }
            let mut headers = self.config_headers();
            headers.extend([
                ("median", true),
                ("mean", true),
                ("±95%", true),
                ("min", true),
                ("max", true),
                ("rel", true),
                ("steals", true),
                ("failed", true),
                ("sleeps", true),
                ("sleep ms", true),
                ("parks", true),
                ("park ms", true),
            ]);
            let is_loop = app.is_loop();
            if is_loop {
                headers.extend([("chunks", true), ("loop steals", true), ("c.o.v.", true)]);
            }
            headers.push(("Welch vs first", false));
            let mut t = Table::new(&headers);
            for r in rows {
                let s = self.setup(r);
                let (d, v, i) = s.policies().unwrap_or(("-", "-", "-"));
                let per = |x: u64| format!("{:.1}", x as f64 / r.solves as f64);
                let per_ms = |ns: u64| format!("{:.3}", ns as f64 / 1e6 / r.solves as f64);
                let mut cells = vec![
                    s.workers.to_string(),
                    s.runtime_name().to_string(),
                    d.to_string(),
                    v.to_string(),
                    i.to_string(),
                ];
                if self.has_schedules() {
                    cells.push(self.schedule(r).unwrap_or("-").to_string());
                }
                cells.extend([
                    ms(r.median),
                    ms(r.mean),
                    r.ci95.map_or("-".into(), ms),
                    ms(r.min),
                    ms(r.max),
                    format!("{:.3}", r.relative),
                ]);
                match r.counters {
                    Some(c) => cells.extend([
                        per(c.steals),
                        per(c.steal_attempts.saturating_sub(c.steals)),
                        per(c.sleeps),
                        per_ms(c.sleep_ns),
                        per(c.parks),
                        per_ms(c.parked_ns),
                    ]),
                    None => cells.extend(vec!["-".to_string(); 6]),
                }
                if is_loop {
                    match r.loops {
                        Some(l) => {
                            cells.extend([per(l.chunks), per(l.steals), format!("{:.3}", l.cov)])
                        }
                        None => cells.extend(vec!["-".to_string(); 3]),
                    }
                }
                cells.push(if r.baseline {
                    "(first)".to_string()
                } else {
                    match r.welch {
                        Some(w) => format!(
                            "t {:.2}, df {:.1}, p {:.3}{}",
                            w.t,
                            w.df,
                            w.p,
                            if w.significant() { " *" } else { "" }
                        ),
                        None => "-".to_string(),
                    }
                });
                t.row(cells);
            }
            t.write(out)?;
            for l in p.left_out.iter().filter(|l| l.app == a) {
                writeln!(out, "(no {} row: {})", l.peer, l.reason)?;
            }
        }
        writeln!(out)?;
        writeln!(
            out,
            "aggregated result (per app and worker count, a configuration's mean time divided by \
             the mean over configurations, averaged over the {} app{}{}{}; below 1 is faster):",
            p.apps.len(),
            plural(p.apps.len()),
            if p.left_out.is_empty() {
                ""
            } else {
                ", a peer's over the apps it ran"
            },
            if self.some_apps_without_schedule() {
                ", an app without a schedule with its row of the same other settings in every \
                 schedule"
            } else {
                ""
            }
        )?;
        let mut headers = self.config_headers();
        headers.push(("aggregated", true));
        let mut t = Table::new(&headers);
        for (s, setup) in p.setups.iter().enumerate() {
            let (d, v, i) = setup.policies().unwrap_or(("-", "-", "-"));
            let mut cells = vec![
                setup.workers.to_string(),
                setup.runtime_name().to_string(),
                d.to_string(),
                v.to_string(),
                i.to_string(),
            ];
            if self.has_schedules() {
                cells.push(setup.schedule.clone().unwrap_or("-".into()));
            }
            cells.push(format!("{:.3}", self.aggregated[s]));
            t.row(cells);
        }
        t.write(out)
    }

    // -----------------------------------------------------------------------------------
    // CSV

    fn csv(&self, out: &mut impl Write) -> io::Result<()> {
        for l in &self.plan.left_out {
            eprintln!("magpie: note: no {} rows: {}", l.peer, l.reason);
        }
        writeln!(out, "{}", CSV_COLUMNS.join(","))?;
        for r in &self.rows {
            let s = self.setup(r);
            let (d, v, i) = s.policies().unwrap_or(("", "", ""));
            let f = |x: Option<f64>| x.map_or(String::new(), |x| x.to_string());
            let c = r.counters;
            let n = |get: fn(&Counters) -> u64| {
                c.as_ref().map_or(String::new(), |c| get(c).to_string())
            };
            let cells = [
                self.plan.apps[r.app].label.clone(),
                s.runtime_name().to_string(),
                s.workers.to_string(),
                d.to_string(),
                v.to_string(),
                i.to_string(),
                r.times.len().to_string(),
                self.plan.instances.to_string(),
                r.solves.to_string(),
                r.median.to_string(),
                r.mean.to_string(),
                f(r.sd),
                f(r.ci95.map(|h| r.mean - h)),
                f(r.ci95.map(|h| r.mean + h)),
                r.min.to_string(),
                r.max.to_string(),
                r.relative.to_string(),
                r.aggregated.to_string(),
                n(|c| c.steals),
                n(|c| c.steal_attempts),
                n(|c| c.steal_attempts.saturating_sub(c.steals)),
                n(|c| c.sleeps),
                n(|c| c.sleep_ns),
                n(|c| c.parks),
                n(|c| c.parked_ns),
                n(|c| c.idle_ns),
                (if r.baseline { "true" } else { "false" }).to_string(),
                f(r.welch.map(|w| w.t)),
                f(r.welch.map(|w| w.df)),
                f(r.welch.map(|w| w.p)),
                r.welch
                    .map_or(String::new(), |w| w.significant().to_string()),
                r.answer.clone(),
                self.schedule(r).unwrap_or_default().to_string(),
                r.loops.map_or(String::new(), |l| l.chunks.to_string()),
                r.loops.map_or(String::new(), |l| l.steals.to_string()),
                r.loops.map_or(String::new(), |l| l.cov.to_string()),
            ];
            let line: Vec<String> = cells.iter().map(|c| csv_field(c)).collect();
            writeln!(out, "{}", line.join(","))?;
        }
        Ok(())
    }

    // -----------------------------------------------------------------------------------
    // JSON

    fn json(&self) -> JsonReport<'_> {
        let p = self.plan;
        let l = self.lists;
        let rows = self
            .rows
            .iter()
            .map(|r| {
                let s = self.setup(r);
                let pol = s.policies();
                JsonRow {
                    app: &p.apps[r.app].label,
                    app_name: &p.apps[r.app].name,
                    schedule: self.schedule(r),
                    loop_stats: r.loops.map(|l| JsonLoop {
                        chunks: l.chunks,
                        steals: l.steals,
                        chunks_per_solve: l.chunks as f64 / r.solves as f64,
                        steals_per_solve: l.steals as f64 / r.solves as f64,
                        cov: l.cov,
                    }),
                    runtime: s.runtime_name(),
                    workers: s.workers,
                    deque: pol.map(|x| x.0),
                    victims: pol.map(|x| x.1),
                    idle: pol.map(|x| x.2),
                    answer: &r.answer,
                    check: &r.check,
                    runs: r.times.len(),
                    instances: p.instances,
                    solves: r.solves,
                    times: &r.times,
                    instance_times: &r.instance_times,
                    median: r.median,
                    mean: r.mean,
                    sd: r.sd,
                    ci95: r.ci95.map(|h| JsonCi {
                        low: r.mean - h,
                        high: r.mean + h,
                        half_width: h,
                    }),
                    min: r.min,
                    max: r.max,
                    relative: r.relative,
                    aggregated: r.aggregated,
                    counters: r.counters.map(|c| JsonCounters {
                        steals: c.steals,
                        steal_attempts: c.steal_attempts,
                        failed_steals: c.steal_attempts.saturating_sub(c.steals),
                        sleeps: c.sleeps,
                        sleep_ns: c.sleep_ns,
                        parks: c.parks,
                        parked_ns: c.parked_ns,
                        idle_ns: c.idle_ns,
                    }),
                    instance_counters: r.instance_counters.as_deref(),
                    baseline: r.baseline,
                    welch: r.welch.map(|w| JsonWelch {
                        t: w.t,
                        df: w.df,
                        p: w.p,
                        significant: w.significant(),
                    }),
                }
            })
            .collect();
        let aggregated = p
            .setups
            .iter()
            .enumerate()
            .map(|(s, setup)| {
                let pol = setup.policies();
                JsonAggregated {
                    schedule: setup.schedule.as_deref(),
                    runtime: setup.runtime_name(),
                    workers: setup.workers,
                    deque: pol.map(|x| x.0),
                    victims: pol.map(|x| x.1),
                    idle: pol.map(|x| x.2),
                    aggregated: self.aggregated[s],
                }
            })
            .collect();
        JsonReport {
            experiment: "policies",
            runs: p.runs,
            status: self.status.name(),
            runs_done: self.runs_done,
            instances: p.instances,
            order: "alternating",
            isolation: "one fresh process per instance, released together by a barrier",
            background: p.background.as_deref().map(|c| JsonBackground {
                command: c,
                ran_throughout: self.background_ran_throughout.unwrap_or(false),
            }),
            apps: p.apps.iter().map(|a| a.label.as_str()).collect(),
            workers: &l.workers,
            deques: &l.deques,
            victims: &l.victims,
            idle: &l.idle,
            peers: &l.peers,
            schedules: &l.schedules,
            schedule_apps: if l.schedules.is_empty() {
                Vec::new()
            } else {
                p.apps
                    .iter()
                    .filter(|a| a.is_loop())
                    .map(|a| a.label.as_str())
                    .collect()
            },
            signal: l.signal,
            join_limit: &l.join_limit,
            rows,
            aggregated,
            left_out: p
                .left_out
                .iter()
                .map(|l| JsonLeftOut {
                    app: &p.apps[l.app].label,
                    runtime: l.peer,
                    reason: &l.reason,
                })
                .collect(),
        }
    }
}

/// A row left out of the report: the runtime has no version of the application.
#[derive(Serialize)]
struct JsonLeftOut<'a> {
    app: &'a str,
    runtime: &'static str,
    reason: &'a str,
}

const CSV_COLUMNS: [&str; 36] = [
    "app",
    "runtime",
    "workers",
    "deque",
    "victims",
    "idle",
    "runs",
    "instances",
    "solves",
    "median_s",
    "mean_s",
    "sd_s",
    "ci95_low_s",
    "ci95_high_s",
    "min_s",
    "max_s",
    "relative",
    "aggregated",
    "steals",
    "steal_attempts",
    "failed_steals",
    "sleeps",
    "sleep_ns",
    "parks",
    "parked_ns",
    "idle_ns",
    "baseline",
    "welch_t",
    "welch_df",
    "welch_p",
    "significant",
    "answer",
    "schedule",
    "loop_chunks",
    "loop_steals",
    "loop_cov",
];

#[derive(Serialize)]
struct JsonReport<'a> {
    experiment: &'static str,
    runs: usize,
    /// `complete`, or `time-limit` / `interrupted`: the runs stopped early, between two
    /// runs (rows then have the runs done, `runs_done` in all).
    status: &'static str,
    runs_done: usize,
    instances: usize,
    order: &'static str,
    isolation: &'static str,
    background: Option<JsonBackground<'a>>,
    apps: Vec<&'a str>,
    workers: &'a [usize],
    deques: &'a [String],
    victims: &'a [String],
    idle: &'a [String],
    peers: &'a [&'static str],
    /// The schedules of `--schedule`, an axis of the configurations (empty without it).
    schedules: &'a [String],
    /// The applications the schedule axis applies to (the loop applications; empty without
    /// `--schedule`). The others take no schedule: they have one row per configuration of
    /// the other axes, without `schedule`, standing for every schedule.
    schedule_apps: Vec<&'a str>,
    signal: i32,
    join_limit: &'a str,
    rows: Vec<JsonRow<'a>>,
    aggregated: Vec<JsonAggregated<'a>>,
    /// The (application, peer) rows not run: the peer has no version of the application.
    left_out: Vec<JsonLeftOut<'a>>,
}

#[derive(Serialize)]
struct JsonBackground<'a> {
    command: &'a str,
    ran_throughout: bool,
}

#[derive(Serialize)]
struct JsonRow<'a> {
    app: &'a str,
    app_name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    schedule: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    loop_stats: Option<JsonLoop>,
    runtime: &'static str,
    workers: usize,
    deque: Option<&'a str>,
    victims: Option<&'a str>,
    idle: Option<&'a str>,
    answer: &'a str,
    check: &'a str,
    runs: usize,
    instances: usize,
    solves: usize,
    times: &'a [f64],
    instance_times: &'a [Vec<f64>],
    median: f64,
    mean: f64,
    sd: Option<f64>,
    ci95: Option<JsonCi>,
    min: f64,
    max: f64,
    relative: f64,
    /// The aggregated result of the row's configuration; for an application without a
    /// schedule under `--schedule`, the mean over the schedules its row stands for.
    aggregated: f64,
    counters: Option<JsonCounters>,
    instance_counters: Option<&'a [Vec<Counters>]>,
    baseline: bool,
    welch: Option<JsonWelch>,
}

#[derive(Serialize)]
struct JsonLoop {
    /// Summed over every solve (and every time step of each).
    chunks: u64,
    steals: u64,
    chunks_per_solve: f64,
    steals_per_solve: f64,
    /// The mean over the solves of the last step's c.o.v. of busy times.
    cov: f64,
}

#[derive(Serialize)]
struct JsonCi {
    low: f64,
    high: f64,
    half_width: f64,
}

#[derive(Serialize)]
struct JsonCounters {
    steals: u64,
    steal_attempts: u64,
    failed_steals: u64,
    sleeps: u64,
    sleep_ns: u64,
    parks: u64,
    parked_ns: u64,
    idle_ns: u64,
}

#[derive(Serialize)]
struct JsonWelch {
    t: f64,
    df: f64,
    p: f64,
    significant: bool,
}

#[derive(Serialize)]
struct JsonAggregated<'a> {
    runtime: &'static str,
    workers: usize,
    deque: Option<&'a str>,
    victims: Option<&'a str>,
    idle: Option<&'a str>,
    /// The configuration's schedule (from `--schedule`).
    #[serde(skip_serializing_if = "Option::is_none")]
    schedule: Option<&'a str>,
    aggregated: f64,
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn join(v: &[usize]) -> String {
    v.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
}

fn ms(seconds: f64) -> String {
    format!("{:.3}", seconds * 1e3)
}

#[cfg(test)]
mod tests;
