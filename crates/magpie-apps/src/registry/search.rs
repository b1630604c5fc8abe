//! What a search application does, behind one trait: its arguments ([`AppArgs`]) are
//! loaded into an [`Instance`], which searches itself on a [`Run`] (an engine, a skeleton,
//! options), checks what it found and returns a [`Solved`] whose [`Answer`] says how to
//! report it.
//!
//! Each application's module writes this once, in its `app.rs`: `magpie search` (local and
//! `--distributed`), `magpie experiment` (magpie and rayon) and their tests run it through
//! [`SearchApp::load`](super::SearchApp::load) without knowing which application it is.

use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use magpie::search::{SearchSpace, SearchStats};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

#[cfg(feature = "rayon")]
use super::Solo;
use super::{HandWritten, Run, SearchApp};
use crate::input::InputError;

/// Why an application could not be loaded or its answer not be trusted.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AppError {
    /// A bad or missing argument (`nqueens needs --n N; usage: …`): a usage error.
    #[error("{0}")]
    Usage(String),
    /// A bad input file or parameter, naming the file and line.
    #[error(transparent)]
    Input(#[from] InputError),
    /// The search's answer failed its check: a bug in the search, never in the input.
    #[error("{0}")]
    Check(String),
}

/// `Ok(())` if `ok`, else a failed check with `message()`.
///
/// ```
/// use magpie_apps::registry::{check, AppError};
///
/// assert!(check(1 + 1 == 2, || unreachable!()).is_ok());
/// let e = check(false, || "3 nodes, expected 4".to_string()).unwrap_err();
/// assert!(matches!(e, AppError::Check(m) if m == "3 nodes, expected 4"));
/// ```
pub fn check(ok: bool, message: impl FnOnce() -> String) -> Result<(), AppError> {
    if ok {
        Ok(())
    } else {
        Err(AppError::Check(message()))
    }
}

/// Parses a whole number given to `flag`, at least `min`; the error is the usage line every
/// command prints for it.
///
/// ```
/// use magpie_apps::registry::parse_number;
///
/// assert_eq!(parse_number("--n", " 8", 1u64, "a board size"), Ok(8));
/// assert_eq!(
///     parse_number("--budget", "0", 1u64, "a number of backtracks").unwrap_err(),
///     "--budget 0: a number of backtracks must be at least 1"
/// );
/// assert!(parse_number::<u64>("--genus", "-3", 0, "a genus")
///     .unwrap_err()
///     .starts_with("--genus \"-3\": expected a whole number"));
/// ```
pub fn parse_number<T>(flag: &str, value: &str, min: T, what: &str) -> Result<T, String>
where
    T: FromStr + PartialOrd + Display + Copy,
{
    match value.trim().parse::<T>() {
        Ok(v) if v >= min => Ok(v),
        Ok(v) => Err(format!("{flag} {v}: {what} must be at least {min}")),
        Err(_) => Err(format!(
            "{flag} {value:?}: expected a whole number ({what}, at least {min})"
        )),
    }
}

/// An application's own arguments as given on a command line: its input files and the
/// values of its options (`--target 12`), by flag, in the order given.
///
/// ```
/// use magpie_apps::registry::AppArgs;
///
/// let args = AppArgs::new(None).with("--n", Some("8")).with("--tree", None);
/// assert_eq!(args.get("--n"), Some("8"));
/// assert_eq!(args.flags().collect::<Vec<_>>(), ["--n"]);
/// assert_eq!(args.number("--n", 1u64, "a board size").unwrap(), Some(8));
/// assert_eq!(args.number("--genus", 0u64, "a genus").unwrap(), None);
/// ```
#[derive(Debug, Clone, Default)]
pub struct AppArgs {
    inputs: Vec<PathBuf>,
    values: Vec<(&'static str, String)>,
}

impl AppArgs {
    /// Arguments with the input file `input` and no option.
    pub fn new(input: Option<PathBuf>) -> Self {
        AppArgs {
            inputs: input.into_iter().collect(),
            values: Vec::new(),
        }
    }

    /// These arguments and one more input file, if it was given (the second of an
    /// application that takes two, such as `sip PATTERN TARGET`).
    pub fn with_file(mut self, input: Option<PathBuf>) -> Self {
        self.inputs.extend(input);
        self
    }

    /// These arguments and option `flag` with `value`, if it was given.
    pub fn with(mut self, flag: &'static str, value: Option<&str>) -> Self {
        if let Some(v) = value {
            self.values.push((flag, v.to_string()));
        }
        self
    }

    /// The (first) input file, if one was given.
    pub fn input(&self) -> Option<&Path> {
        self.inputs.first().map(PathBuf::as_path)
    }

    /// The value of option `flag`, if it was given.
    pub fn get(&self, flag: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(f, _)| *f == flag)
            .map(|(_, v)| v.as_str())
    }

    /// The options given, in order.
    pub fn flags(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.values.iter().map(|(f, _)| *f)
    }

    /// The input file that `app` needs: a usage error naming it if none was given, or if
    /// more than one was.
    pub fn file(&self, app: &SearchApp) -> Result<&Path, AppError> {
        let [file] = self.files(app)?;
        Ok(file)
    }

    /// The `N` input files that `app` needs, in order: a usage error naming it if another
    /// number was given.
    ///
    /// ```
    /// use std::path::PathBuf;
    /// use magpie_apps::registry::{self, AppArgs};
    ///
    /// let sip = registry::find("sip").unwrap();
    /// let args = AppArgs::new(Some(PathBuf::from("p.lad"))).with_file(Some("t.lad".into()));
    /// let [p, t] = args.files(sip).unwrap();
    /// assert_eq!((p.to_str(), t.to_str()), (Some("p.lad"), Some("t.lad")));
    /// let one = AppArgs::new(Some(PathBuf::from("p.lad")));
    /// assert_eq!(
    ///     one.files::<2>(sip).unwrap_err().to_string(),
    ///     "sip needs 2 input files, got 1; usage: magpie search sip PATTERN TARGET [--count]"
    /// );
    /// let tsp = registry::find("tsp").unwrap();
    /// assert!(args.file(tsp).unwrap_err().to_string().starts_with("tsp takes one input file, got 2"));
    /// ```
    pub fn files<const N: usize>(&self, app: &SearchApp) -> Result<[&Path; N], AppError> {
        let given = self.inputs.len();
        if given == 0 && N == 1 {
            return Err(AppError::Usage(format!(
                "{} needs an input file; {}",
                app.name, app.usage
            )));
        }
        if given != N {
            let wanted = if N == 1 {
                format!("takes one input file, got {given}")
            } else {
                format!("needs {N} input files, got {given}")
            };
            return Err(AppError::Usage(format!(
                "{} {wanted}; {}",
                app.name, app.usage
            )));
        }
        Ok(std::array::from_fn(|i| self.inputs[i].as_path()))
    }

    /// Option `flag` as a whole number of at least `min` ([`parse_number`]), if given.
    pub fn number<T>(&self, flag: &str, min: T, what: &str) -> Result<Option<T>, AppError>
    where
        T: FromStr + PartialOrd + Display + Copy,
    {
        self.get(flag)
            .map(|v| parse_number(flag, v, min, what).map_err(AppError::Usage))
            .transpose()
    }

    /// Option `flag` as [`AppArgs::number`], which `app` needs: if it was not given, a
    /// usage error (`ns needs --genus G; usage: …`, `var` being `G`).
    pub fn required<T>(
        &self,
        app: &SearchApp,
        (flag, var): (&str, &str),
        min: T,
        what: &str,
    ) -> Result<T, AppError>
    where
        T: FromStr + PartialOrd + Display + Copy,
    {
        self.number(flag, min, what)?.ok_or_else(|| {
            AppError::Usage(format!("{} needs {flag} {var}; {}", app.name, app.usage))
        })
    }
}

/// How the check of an answer that could not be compared with anything begins (a count of a
/// tree cut by `--max-depth`, an N-Queens size with no known count): a text report prints
/// it as it is instead of `ok: …`.
pub const NOT_CHECKED: &str = "not checked: ";

/// The check of a count that a stopped search left partial (`SearchStats::stopped`): it
/// cannot be compared with the whole tree's.
///
/// ```
/// use magpie_apps::registry::{partial_count, NOT_CHECKED};
/// assert!(partial_count(1_000).starts_with(NOT_CHECKED));
/// ```
pub fn partial_count(expanded: u64) -> String {
    format!(
        "{NOT_CHECKED}the search was stopped after {expanded} nodes: a count of part of the tree"
    )
}

/// How an optimisation's answer begins: `maximum` (or `shortest`, …) for a finished search,
/// `best found` for one its monitor stopped, whose answer is a checked solution whose
/// optimality is not claimed.
///
/// ```
/// use magpie_apps::registry::best_or;
/// assert_eq!(best_or("maximum", false), "maximum");
/// assert_eq!(best_or("maximum", true), "best found (stopped; not proven optimal):");
/// ```
pub fn best_or(optimal: &'static str, stopped: bool) -> &'static str {
    if stopped {
        "best found (stopped; not proven optimal):"
    } else {
        optimal
    }
}

/// What a search found, ready to report: a canonical key, the fields of the JSON report and
/// the lines of the text report. Serialises as the map of its fields, in order (the report
/// flattens it into its own object).
///
/// ```
/// use magpie_apps::registry::Answer;
///
/// let a = Answer::new("8 solutions")
///     .field("n", 8)
///     .field("solutions", 92)
///     .line("answer", "92 solutions of 8-Queens");
/// assert_eq!(serde_json::to_string(&a).unwrap(), r#"{"n":8,"solutions":92}"#);
/// assert_eq!(a.lines, [("answer", "92 solutions of 8-Queens".to_string())]);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The answer in a short canonical form that every correct run of the same search gives
    /// (the optimum's value, not which optimal node was found): `omega 12`,
    /// `nodes 1732, leaves 1313, depth 6`, … Runs are compared by it.
    pub key: String,
    /// The fields of the JSON report, in order.
    pub fields: Vec<(&'static str, Value)>,
    /// The lines of the text report after `app` (`instance`, `answer`, `clique`, …): key and
    /// value.
    pub lines: Vec<(&'static str, String)>,
}

impl Answer {
    /// An answer whose canonical form is `key`, with no field and no line yet.
    pub fn new(key: impl Into<String>) -> Self {
        Answer {
            key: key.into(),
            fields: Vec::new(),
            lines: Vec::new(),
        }
    }

    /// This answer with the JSON field `name` set to `value`.
    pub fn field(mut self, name: &'static str, value: impl Into<Value>) -> Self {
        self.fields.push((name, value.into()));
        self
    }

    /// This answer with the text line `key: value` added.
    pub fn line(mut self, key: &'static str, value: impl Into<String>) -> Self {
        self.lines.push((key, value.into()));
        self
    }
}

impl Serialize for Answer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.fields.len()))?;
        for (k, v) in &self.fields {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// One checked search.
#[derive(Debug, Clone)]
pub struct Solved {
    /// What was found.
    pub answer: Answer,
    /// What was checked (every answer is checked before it is reported); begins with
    /// [`NOT_CHECKED`] where nothing could be compared.
    pub check: String,
    /// What the search did; `time` is its own wall-clock time.
    pub stats: SearchStats,
}

impl Solved {
    /// A search's `answer`, what was checked, and its statistics.
    pub fn new(answer: Answer, check: impl Into<String>, stats: SearchStats) -> Self {
        Solved {
            answer,
            check: check.into(),
            stats,
        }
    }
}

/// A loaded search application: an instance of one, ready to search on any [`Run`].
/// [`SearchApp::load`](super::SearchApp::load) makes one from the [`AppArgs`]. An
/// application's `impl` names its application, label and space with `instance_basics!`
/// and writes `solve`.
///
/// ```
/// use magpie::search::{Options, Skeleton};
/// use magpie_apps::registry::{self, AppArgs, Engine, Run};
///
/// let app = registry::find("nqueens").unwrap();
/// let board = (app.load)(&AppArgs::new(None).with("--n", Some("8"))).unwrap();
/// assert_eq!(board.label(), "8x8 board");
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
/// let sk = Skeleton::DepthBounded { spawn_depth: 2 };
/// let opts = Options::default();
/// let solved = board.solve(Run::new(&Engine::Pool(&pool), sk, &opts)).unwrap().unwrap();
/// assert_eq!(solved.answer.key, "92 solutions");
/// assert_eq!(solved.check, "the known count (OEIS A000170)");
/// ```
pub trait Instance: Send + Sync {
    /// Its application's description.
    fn app(&self) -> &'static SearchApp;

    /// The instance as reported: the file, or the parameters (`genus 20`, `T1`).
    fn label(&self) -> String;

    /// The nodes at depths 1..=`depth` of its search space without pruning (at least as
    /// many as a search visits), or `None` once there are more than `cap`: what the ordered
    /// skeleton would materialise. [`count_down_to`] on its space.
    fn nodes_down_to(&self, depth: usize, cap: u64) -> Option<u64>;

    /// Searches it on `run` (the application adds its own options, such as a start bound,
    /// with [`Run::with_options`]), checks what was found and returns it; `Ok(None)` on an
    /// MPI rank other than 0, which has no result to report.
    fn solve(&self, run: Run<'_>) -> Result<Option<Solved>, AppError>;

    /// Its application's hand-written sequential solver on it, if it has one: what
    /// `magpie-bench search` compares the skeletons with (its answer has the key that
    /// `solve`'s has).
    fn hand_written(&self) -> Option<HandWritten<'_>> {
        None
    }

    /// Its search written on rayon as a rayon user would (tasks above `spawn_depth`,
    /// sequential code below), run on `pool`, if the application has one: `magpie-bench
    /// search`'s `peers` contender (its answer has the key that `solve`'s has).
    #[cfg(feature = "rayon")]
    fn rayon_peer(
        &self,
        _pool: &rayon::ThreadPool,
        _spawn_depth: usize,
    ) -> Option<Result<Solo, AppError>> {
        None
    }
}

/// The [`Instance`] methods that only name things, as an application's `impl Instance`
/// writes them: `app` (the application `$app`), `label` (`$label` of the instance `$l`) and
/// `nodes_down_to` ([`count_down_to`] on `$space`, the search space of the instance `$s`).
macro_rules! instance_basics {
    ($app:expr, label: |$l:ident| $label:expr, space: |$s:ident| $space:expr $(,)?) => {
        fn app(&self) -> &'static $crate::registry::SearchApp {
            &$app
        }

        fn label(&self) -> String {
            let $l = self;
            $label
        }

        fn nodes_down_to(&self, depth: usize, cap: u64) -> Option<u64> {
            let $s = self;
            $crate::registry::count_down_to($space, depth, cap)
        }
    };
}
pub(crate) use instance_basics;

/// The nodes at depths 1..=`depth` of `space` (without pruning), or `None` once there are
/// more than `cap`.
///
/// ```
/// use magpie_apps::{nqueens::Board, registry::count_down_to};
///
/// // 8-Queens: 8 nodes at depth 1, 42 at depth 2, 140 at depth 3.
/// let board = Board::new(8).unwrap();
/// assert_eq!(count_down_to(&board, 0, 10), Some(0));
/// assert_eq!(count_down_to(&board, 3, 1000), Some(8 + 42 + 140));
/// assert_eq!(count_down_to(&board, 3, 189), None);
/// ```
pub fn count_down_to<S: SearchSpace + ?Sized>(space: &S, depth: usize, cap: u64) -> Option<u64> {
    if depth == 0 {
        return Some(0);
    }
    let mut count = 0u64;
    let mut stack = vec![space.children(&space.root())];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(child) => {
                count += 1;
                if count > cap {
                    return None;
                }
                if stack.len() < depth {
                    let children = space.children(&child);
                    stack.push(children);
                }
            }
            None => {
                stack.pop();
            }
        }
    }
    Some(count)
}

/// `opts` with `prune_level` on: for spaces whose children come in non-increasing bound
/// order (the clique spaces' colour order), where a child that fails its bound rules out
/// its later siblings too.
///
/// ```
/// use magpie::search::Options;
/// use magpie_apps::registry::level_pruned;
///
/// let opts = level_pruned(&Options { initial_bound: Some(3), ..Options::default() });
/// assert!(opts.prune_level);
/// assert_eq!(opts.initial_bound, Some(3));
/// ```
pub fn level_pruned(opts: &magpie::search::Options) -> magpie::search::Options {
    magpie::search::Options {
        prune_level: true,
        ..opts.clone()
    }
}

/// Space-separated numbers (`1 4 9`), as the text reports list vertices, cities and counts.
///
/// ```
/// assert_eq!(magpie_apps::registry::ids([1u64, 4, 9]), "1 4 9");
/// ```
pub fn ids<T: Display>(v: impl IntoIterator<Item = T>) -> String {
    v.into_iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}
