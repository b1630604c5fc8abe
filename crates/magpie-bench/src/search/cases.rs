//! The applications' own bench cases (`SearchApp::bench`), loaded and turned into the jobs
//! every experiment measures, without naming an application: each solver is the
//! application's `solve` on an engine (plain recursion, a magpie pool) or one of the
//! optional solvers its instance declares (its hand-written solver, its rayon peer). Every
//! answer is compared by its key with the case's known answer, else with the first answer
//! the application checked itself.

use std::num::NonZeroUsize;
use std::sync::OnceLock;
use std::time::Duration;

use magpie::search::{Options, SearchStats, Skeleton};
use magpie::ThreadPool;
use magpie_apps::registry::{
    AppError, BenchCase, BenchQuery, Engine, Experiment, HandWritten, Instance, Run, Solo,
};

use super::measure::{Job, Sample};
use super::{App, Report};

/// Which solver a job runs.
#[derive(Clone, Copy)]
pub enum Solver<'p> {
    /// The application's search on plain recursion (`Engine::Plain`).
    Plain,
    /// The application's hand-written sequential solver.
    HandWritten,
    /// `magpie::search` with this skeleton, on this pool.
    Skeleton(&'p ThreadPool, Skeleton),
    /// The same with `Options::replicable_window` set to this window.
    Replicable(&'p ThreadPool, Skeleton, NonZeroUsize),
    /// The application's rayon peer on this pool, at this spawn depth.
    Rayon(&'p rayon::ThreadPool, usize),
}

impl Solver<'_> {
    /// Whether the application checks this solver's answer itself (its `solve`, its
    /// hand-written solver's checks); a rayon peer's is only compared with such an answer.
    fn checked_by_the_app(self) -> bool {
        !matches!(self, Solver::Rayon(..))
    }
}

/// An application's bench case with its instances loaded.
pub struct Loaded {
    pub app: App,
    pub case: BenchCase,
    instances: Vec<Box<dyn Instance>>,
    /// The answer every solver must give: the case's known one, else the first answer the
    /// application checked.
    answer: OnceLock<String>,
}

/// One solve of one instance: its answer's key and what it counted.
struct One {
    key: String,
    time: Duration,
    nodes: Option<u64>,
    per_worker: Option<Vec<u64>>,
}

impl One {
    fn searched(key: String, stats: SearchStats, skeleton: bool) -> One {
        One {
            key,
            time: stats.time,
            nodes: Some(stats.expanded),
            per_worker: skeleton.then_some(stats.per_worker),
        }
    }

    fn solo(s: Solo) -> One {
        One {
            key: s.key,
            time: s.time,
            nodes: s.nodes,
            per_worker: None,
        }
    }
}

/// An instance named on the command line, `APP:NAME` (`--items`, `--sequential-items`): an
/// application of the registry (`clique:` is `maxclique:`) and the instance as the
/// application names it in its cases (`maxclique:brock400_1`, `ns:36`, `uts:T1L`,
/// `nqueens:14`, `knapsack:knapPI_3_500_1000_1`, `tsp:eil51`).
#[derive(Debug, Clone)]
pub struct Item {
    pub app: App,
    pub name: String,
}

impl Item {
    pub fn parse(s: &str) -> Result<Item, String> {
        let (kind, name) = s
            .split_once(':')
            .ok_or_else(|| format!("item `{s}`: expected APP:NAME"))?;
        let kind = if kind == "clique" { "maxclique" } else { kind };
        let app = App::find(kind).ok_or_else(|| {
            format!(
                "item `{s}`: unknown application `{kind}` (one of {})",
                magpie_apps::registry::names(|_| true).join(", ")
            )
        })?;
        Ok(Item {
            app,
            name: name.to_string(),
        })
    }

    /// Its `sequential` case, loaded.
    pub fn load(&self) -> Result<Loaded, String> {
        let query = BenchQuery::new(Experiment::Sequential, false).item(Some(&self.name));
        let case = Loaded::cases(self.app, &query)?
            .into_iter()
            .next()
            .ok_or_else(|| format!("{}: no sequential case {:?}", self.app, self.name))?;
        Loaded::load(self.app, case)
    }
}

impl Loaded {
    /// The cases `app` declares for `query`.
    pub fn cases(app: App, query: &BenchQuery<'_>) -> Result<Vec<BenchCase>, String> {
        (app.0.bench)(query).map_err(|e| format!("{app}: {e}"))
    }

    /// The cases of `app` for `query`: one per item of `named` that names `app` (in the
    /// experiment's form), else the application's own.
    pub fn cases_named(
        app: App,
        query: &BenchQuery<'_>,
        named: &[Item],
    ) -> Result<Vec<BenchCase>, String> {
        let mine: Vec<&Item> = named.iter().filter(|i| i.app == app).collect();
        if mine.is_empty() {
            return Loaded::cases(app, query);
        }
        let mut cases = Vec::new();
        for item in mine {
            cases.extend(Loaded::cases(app, &query.clone().item(Some(&item.name)))?);
        }
        Ok(cases)
    }

    /// Loads every instance of `case`.
    pub fn load(app: App, case: BenchCase) -> Result<Loaded, String> {
        let instances = case
            .args
            .iter()
            .map(|a| (app.0.load)(a).map_err(|e| format!("{}: {e}", case.label)))
            .collect::<Result<Vec<_>, _>>()?;
        let answer = OnceLock::new();
        if let Some(k) = &case.expect {
            let _ = answer.set(k.clone());
        }
        Ok(Loaded {
            app,
            case,
            instances,
            answer,
        })
    }

    /// The name of its hand-written solver, if its instances have one.
    pub fn hand_written(&self) -> Option<&'static str> {
        self.hand_written_solver().map(|h| h.name)
    }

    /// Its (first) instance's hand-written solver, if it has one.
    pub fn hand_written_solver(&self) -> Option<HandWritten<'_>> {
        self.instances.first()?.hand_written()
    }

    /// One solve of one instance by `solver`.
    fn solve(&self, inst: &dyn Instance, solver: Solver<'_>) -> Result<One, AppError> {
        let skeleton = |engine: &Engine<'_>, sk: Skeleton, window: Option<NonZeroUsize>| {
            let opts = Options {
                replicable_window: window,
                ..Options::default()
            };
            let solved = inst
                .solve(Run::new(engine, sk, &opts))?
                .ok_or_else(|| AppError::Check("the search returned no result".into()))?;
            Ok(One::searched(
                solved.answer.key,
                solved.stats,
                !matches!(engine, Engine::Plain),
            ))
        };
        let none = |what: &str| AppError::Usage(format!("{} has no {what}", self.app));
        match solver {
            Solver::Plain => skeleton(&Engine::Plain, Skeleton::Sequential, None),
            Solver::Skeleton(pool, sk) => skeleton(&Engine::Pool(pool), sk, None),
            Solver::Replicable(pool, sk, w) => skeleton(&Engine::Pool(pool), sk, Some(w)),
            Solver::HandWritten => {
                let h = inst
                    .hand_written()
                    .ok_or_else(|| none("hand-written solver"))?;
                (h.solve)().map(One::solo)
            }
            Solver::Rayon(pool, depth) => inst
                .rayon_peer(pool, depth)
                .ok_or_else(|| none("rayon peer"))?
                .map(One::solo),
        }
    }

    /// One timed, checked sample of `solver`: every instance solved once, the times (each
    /// solve's own) and nodes added up; the answers compared with the case's.
    pub fn run(&self, solver: Solver<'_>) -> Result<Sample, String> {
        let mut keys = Vec::new();
        let mut sample = Sample::new(Duration::ZERO, Some(0));
        for inst in &self.instances {
            let one = self
                .solve(inst.as_ref(), solver)
                .map_err(|e| format!("{}: {e}", inst.label()))?;
            keys.push(one.key);
            sample.time += one.time;
            sample.nodes = sample.nodes.zip(one.nodes).map(|(a, b)| a + b);
            sample.per_worker = match (sample.per_worker.take(), one.per_worker) {
                (None, w) => w,
                (Some(mut a), Some(b)) => {
                    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                    Some(a)
                }
                (Some(a), None) => Some(a),
            };
        }
        let key = keys.join("; ");
        let want = if solver.checked_by_the_app() {
            self.answer.get_or_init(|| key.clone())
        } else {
            self.answer.get().ok_or_else(|| {
                format!(
                    "{}: no answer checked by the application to compare with",
                    self.case.label
                )
            })?
        };
        if key != *want {
            return Err(format!(
                "{}: answer {key:?}, expected {want:?}",
                self.case.label
            ));
        }
        Ok(sample)
    }

    /// Makes sure the answer the other solvers are compared with is known: unless the case
    /// states it or an application-checked solve has run, one solve by `checked` (a solver
    /// the application checks: plain or a skeleton) sets it.
    pub fn ensure_answer(&self, checked: Solver<'_>) -> Result<(), String> {
        if self.answer.get().is_none() {
            self.run(checked)?;
        }
        Ok(())
    }

    /// [`Loaded::run`] as a job.
    pub fn job<'a>(&'a self, solver: Solver<'a>) -> Job<'a> {
        Box::new(move || self.run(solver))
    }
}

/// For each application `apps` chose ([`App::chosen`]), the cases it declares for `query`
/// (or those of the items `named` for it), each loaded and given to `item` (a failure is an
/// ERROR row of its case); an app with none gets a skipped row saying so.
pub(super) fn each_case(
    report: &mut Report,
    (exp, named): (&str, &[Item]),
    apps: &Option<Vec<App>>,
    query: &BenchQuery<'_>,
    mut item: impl FnMut(&mut Report, &Loaded) -> Result<(), String>,
) {
    for app in App::chosen(apps, query) {
        let cases = match Loaded::cases_named(app, query, named) {
            Ok(c) => c,
            Err(e) => {
                report.error(exp, app.name(), "-", e);
                continue;
            }
        };
        if cases.is_empty() {
            report.skip(exp, app, &format!("the application declares no {exp} case"));
        }
        for case in cases {
            let label = case.label.clone();
            if let Err(e) = Loaded::load(app, case).and_then(|l| item(report, &l)) {
                report.error(exp, app.name(), &label, e);
            }
        }
    }
}
