//! What `magpie-bench search` measures of a search application, declared by the
//! application: its bench instances per experiment ([`SearchApp::bench`], a list of
//! [`BenchCase`]s), and, on its [`Instance`](super::Instance), the optional solvers it is
//! compared with: its hand-written sequential solver ([`HandWritten`]) and its rayon-written
//! peer. The plain recursive baseline needs nothing of the application: it is its own
//! `solve` on [`Engine::Plain`](super::Engine::Plain). Every solver returns the answer's
//! canonical key ([`Answer::key`](super::Answer)), so that the bench checks every contender
//! against the same answer without knowing the application.
//!
//! [`SearchApp::bench`]: super::SearchApp::bench

use std::time::{Duration, Instant};

use super::{AppArgs, AppError};

/// The experiments of `magpie-bench search` that measure an application's declared cases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Experiment {
    /// The `Sequential` skeleton vs plain recursion and the hand-written solver.
    Overhead,
    /// The best skeleton at several workers vs one and vs the hand-written solver.
    Speedup,
    /// magpie vs the rayon-written peer.
    Peers,
    /// Replicable node counts (ordered skeletons with a window) vs the shared incumbent.
    Replicable,
    /// The same search at a rising number of workers.
    Scaling,
    /// Long sequential solves, node counts and rates.
    Sequential,
}

/// What `magpie-bench search` asks an application for: its cases in one experiment, at
/// `--quick`'s sizes or the full ones, or the one instance the command line named instead
/// (each application reads the names of its own instances; the bench, which names no
/// application, passes them on).
///
/// ```
/// use magpie_apps::registry::{self, BenchQuery, Experiment};
///
/// let q = BenchQuery::new(Experiment::Overhead, true);
/// let ns = registry::find("ns").unwrap();
/// assert_eq!((ns.bench)(&q).unwrap()[0].label, "genus 22");
/// let q = BenchQuery::new(Experiment::Speedup, true).item(Some("20"));
/// assert_eq!((ns.bench)(&q).unwrap()[0].label, "genus 20");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct BenchQuery<'a> {
    /// The experiment.
    pub experiment: Experiment,
    /// `--quick`: the small instances.
    pub quick: bool,
    /// One instance named on the command line (an `APP:NAME` item: `--items`, or
    /// `sequential`'s), as the application names it (the label of its case for it, or a
    /// short form the application documents); `None`: the application's own cases.
    pub item: Option<&'a str>,
}

impl<'a> BenchQuery<'a> {
    /// The cases of `experiment`, small ones if `quick`, nothing named instead.
    pub fn new(experiment: Experiment, quick: bool) -> Self {
        BenchQuery {
            experiment,
            quick,
            item: None,
        }
    }

    /// This query for the one instance `item` (`None`: the application's own cases).
    pub fn item(mut self, item: Option<&'a str>) -> Self {
        self.item = item;
        self
    }

    /// The size of an instance that is one number (a genus, a board side): the one named
    /// (the `item`, read by `parse`), else what `sizes` gives for the experiment, `(full,
    /// quick)`; `None` for an experiment `sizes` has no instance for.
    ///
    /// ```
    /// use magpie_apps::registry::{BenchQuery, Experiment};
    ///
    /// let sizes = |e| match e {
    ///     Experiment::Overhead => Some((13, 11)),
    ///     Experiment::Speedup => Some((15, 12)),
    ///     _ => None,
    /// };
    /// let parse = |s: &str| s.parse::<u64>().map_err(|e| e.to_string());
    /// let q = BenchQuery::new(Experiment::Speedup, true);
    /// assert_eq!(q.size(sizes, parse), Ok(Some(12)));
    /// assert_eq!(q.clone().item(Some("14")).size(sizes, parse), Ok(Some(14)));
    /// assert!(q.clone().item(Some("x")).size(sizes, parse).is_err());
    /// assert_eq!(BenchQuery::new(Experiment::Peers, true).size(sizes, parse), Ok(None));
    /// ```
    pub fn size(
        &self,
        sizes: impl FnOnce(Experiment) -> Option<(u64, u64)>,
        parse: impl FnOnce(&str) -> Result<u64, String>,
    ) -> Result<Option<u64>, String> {
        let Some((full, quick)) = sizes(self.experiment) else {
            return Ok(None);
        };
        match self.item {
            Some(named) => parse(named).map(Some),
            None => Ok(Some(if self.quick { quick } else { full })),
        }
    }
}

/// One item of an experiment: the arguments of one instance (or of several, solved one
/// after the other as one sample, such as every instance of a knapsack file), its label in
/// the report and what the experiment needs to know about it.
///
/// ```
/// use magpie_apps::registry::{AppArgs, BenchCase};
///
/// let case = BenchCase::new("n = 11", AppArgs::new(None).with("--n", Some("11")))
///     .expect("2680 solutions");
/// assert_eq!(case.expect.as_deref(), Some("2680 solutions"));
/// assert_eq!(case.args.len(), 1);
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct BenchCase {
    /// The instance as the report names it (`T1`, `genus 28`, `brock200_1`).
    pub label: String,
    /// The arguments of each instance solved in one sample (usually one).
    pub args: Vec<AppArgs>,
    /// The known answer key, where the application's own check does not compare with a
    /// known answer (a clique number, an optimal tour's length).
    pub expect: Option<String>,
    /// The skeletons to measure it with instead of the experiment's candidates
    /// (`Skeleton`'s spec strings: `dbs:2`, `ordered:8`).
    pub skeletons: Option<&'static str>,
    /// Its solves are long (minutes): `speedup` times one run first to tell how long the
    /// item will take, and runs no copies of the hand-written solver at once.
    pub long: bool,
    /// The spawn depths of its rayon peer to screen (`peers`).
    pub rayon_depths: &'static [usize],
    /// Its speedup target (1 worker / many), where it is not the experiment's default.
    pub target: Option<f64>,
    /// Its hand-written solver counts no nodes, or not the skeleton's: `sequential`'s
    /// reference solver is the plain search instead (labelled `plain B&B`).
    pub plain_reference: bool,
}

impl BenchCase {
    /// The instance of `args`, labelled `label`.
    pub fn new(label: impl Into<String>, args: AppArgs) -> Self {
        BenchCase::batch(label, vec![args])
    }

    /// The instances of `args`, solved one after the other as one sample.
    pub fn batch(label: impl Into<String>, args: Vec<AppArgs>) -> Self {
        BenchCase {
            label: label.into(),
            args,
            ..BenchCase::default()
        }
    }

    /// This case, whose answer's key must be `key`.
    pub fn expect(mut self, key: impl Into<String>) -> Self {
        self.expect = Some(key.into());
        self
    }

    /// This case, measured with the skeletons `spec` (comma-separated).
    pub fn skeletons(mut self, spec: &'static str) -> Self {
        self.skeletons = Some(spec);
        self
    }

    /// This case, whose solves take minutes.
    pub fn long(mut self) -> Self {
        self.long = true;
        self
    }

    /// This case, its rayon peer screened at `depths`.
    pub fn rayon_depths(mut self, depths: &'static [usize]) -> Self {
        self.rayon_depths = depths;
        self
    }

    /// This case, whose `sequential` reference is the plain search.
    pub fn plain_reference(mut self) -> Self {
        self.plain_reference = true;
        self
    }

    /// This case, with the speedup target `target`.
    pub fn target(mut self, target: f64) -> Self {
        self.target = Some(target);
        self
    }
}

/// The bench cases of an application with none: no experiment measures it.
pub fn no_cases(_: &BenchQuery<'_>) -> Result<Vec<BenchCase>, String> {
    Ok(Vec::new())
}

/// The file `relative` of the instance collection ([`crate::instances::find`]) as an
/// application's input.
pub fn instance_file(relative: &str) -> Result<AppArgs, String> {
    crate::instances::find(relative).map(|p| AppArgs::new(Some(p)))
}

/// One solve outside magpie's engines (a hand-written solver, a rayon peer): the answer's
/// canonical key, the nodes it counted (if it counts them, the same way as the skeleton's
/// `expanded`) and its own time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Solo {
    /// The answer in the form of [`Answer::key`](super::Answer).
    pub key: String,
    /// The search-tree nodes it counted, if it counts them.
    pub nodes: Option<u64>,
    /// The solve's wall-clock time.
    pub time: Duration,
}

impl Solo {
    /// Times `solve`, which returns the answer's key and the nodes it counted.
    ///
    /// ```
    /// use magpie_apps::registry::Solo;
    ///
    /// let s = Solo::timed(|| ("92 solutions".to_string(), Some(2057)));
    /// assert_eq!((s.key.as_str(), s.nodes), ("92 solutions", Some(2057)));
    /// ```
    pub fn timed(solve: impl FnOnce() -> (String, Option<u64>)) -> Solo {
        let start = Instant::now();
        let (key, nodes) = solve();
        Solo {
            key,
            nodes,
            time: start.elapsed(),
        }
    }
}

/// An application's hand-written sequential solver of one instance: its name in the report
/// (`uts::count`) and a solve of it, whose answer the application checks as it checks its
/// search's (a known count, a valid certificate) where it can. The solve may run on several threads at once (the
/// `speedup` experiment's copies at once).
pub struct HandWritten<'a> {
    /// The solver's name (`max_clique_counted`).
    pub name: &'static str,
    /// One solve: its answer's key, the nodes it counted, its time.
    pub solve: Box<dyn Fn() -> Result<Solo, AppError> + Sync + 'a>,
}

impl<'a> HandWritten<'a> {
    /// The solver `name`, which `solve` runs.
    pub fn new(name: &'static str, solve: impl Fn() -> Result<Solo, AppError> + Sync + 'a) -> Self {
        HandWritten {
            name,
            solve: Box::new(solve),
        }
    }
}
