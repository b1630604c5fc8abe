//! One description per search application, and the one list of them.
//!
//! Each search application's module has a static `APP`, its [`SearchApp`] description: its
//! name on the command line, how its instance is given, what it searches, its own flags
//! ([`AppOption`]), its bench instances. [`SEARCH_APPS`] lists
//! them, in the order `magpie search --help` shows them; `magpie search` dispatches on
//! [`find`], lists the names in its errors and writes its help from it. Adding an
//! application means one module with its `APP` (declared in `lib.rs`) and one line in
//! [`SEARCH_APPS`].
//!
//! The loop applications (`mandelbrot`, `dist`, `histogram`, `spmv`) have the same: a
//! static [`LoopApp`] `APP` each, listed in [`LOOP_APPS`], which builds the application's
//! input from its option values ([`LoopOptions`], the defaults and checks defined once in its
//! module) as a [`LoopInput`] that runs, checks and reports its time steps.
//!
//! The fork-join kernels (fib, …, the PBBS kernels of [`crate::pbbs`]) are the same: a type
//! implementing [`Kernel`] each, listed once in [`KernelId`] (which `magpie-bench forkjoin`
//! reads), their built inputs dispatched by [`KernelInput`].
//!
//! A search application's description also carries its behaviour: [`SearchApp::load`]
//! turns its arguments ([`AppArgs`]) into an [`Instance`], which searches itself on a [`Run`]
//! of an [`Engine`] (a magpie pool, every rank of an MPI job, or rayon for the enumerations),
//! checks what it found and returns it as a [`Solved`] with an [`Answer`] that says how
//! to report it (JSON fields and text lines). `magpie search` (local and distributed) and
//! `magpie experiment` run every application through these alone: the code of an
//! application is its module (the search space, and its `app.rs` with `APP`, the loading,
//! the search, the check and the answer) and its line in [`SEARCH_APPS`].
//!
//! ```
//! use magpie_apps::registry::{self, Goal};
//!
//! let names: Vec<&str> = registry::SEARCH_APPS.iter().map(|a| a.name).collect();
//! assert_eq!(
//!     names,
//!     ["maxclique", "knapsack", "tsp", "bipartition", "uts", "ns", "nqueens", "sip", "mis"]
//! );
//! let tsp = registry::find("tsp").unwrap();
//! assert!(tsp.takes_file);
//! assert_eq!(tsp.goal, Goal::Optimise);
//! assert!(registry::find("nqueens").unwrap().takes("--n"));
//! assert!(registry::find("sudoku").is_none());
//! ```

mod bench;
mod engine;
mod forkjoin;
mod loops;
pub mod plain;
mod search;

pub use bench::{instance_file, no_cases, BenchCase, BenchQuery, Experiment, HandWritten, Solo};
#[cfg(all(test, feature = "rayon"))]
pub(crate) use engine::rayon_pool;
#[cfg(feature = "mpi")]
pub use engine::ClusterEngine;
pub use engine::{Engine, Ran, Run};
pub(crate) use forkjoin::fits;
pub use forkjoin::{
    digest, Fib, Kernel, KernelId, KernelInput, Mergesort, Nqueens, Quicksort, Reduce, TreeSum,
    REDUCE_GRAIN,
};
pub use search::{
    best_or, check, count_down_to, ids, level_pruned, parse_number, partial_count, Answer, AppArgs,
    AppError, Instance, Solved, NOT_CHECKED,
};

/// What every search application's `app.rs` uses of the registry, in one import.
pub(crate) mod prelude {
    pub(crate) use super::search::instance_basics;
    pub(crate) use super::{
        best_or, check, ids, instance_file, level_pruned, parse_number, partial_count, Answer,
        AppArgs, AppError, AppOption, BenchCase, BenchQuery, Experiment, Goal, HandWritten,
        Instance, Run, SearchApp, Solo, Solved, NOT_CHECKED,
    };
}

pub use loops::{
    find_loop, loop_apps_with, LoopApp, LoopError, LoopInput, LoopOptions, LoopOutput, LoopReport,
    DEFAULT_LOOP_SEED, DEFAULT_LOOP_STEPS, LOOP_APPS, LOOP_APP_NAMES,
};

/// What an application's search computes; it decides the options that apply to all of one
/// kind (a depth limit only to enumerations, replicable node counts only to optimisations).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Goal {
    /// The best node of a tree (maxclique, knapsack, tsp); maxclique may also decide.
    Optimise,
    /// A fold over every node of a tree (uts, ns, nqueens).
    Enumerate,
    /// Whether a solution exists, and which (sip; with its `--count`, an enumeration that
    /// counts the solutions): neither a depth limit nor an incumbent applies.
    Decide,
}

/// The description of one search application: what `magpie search` needs to parse, check
/// and explain its command line. Each application module defines one as `APP`.
#[derive(Debug)]
#[non_exhaustive]
pub struct SearchApp {
    /// Its name on the command line (`maxclique`).
    pub name: &'static str,
    /// How its instance is given, after `magpie search` (`maxclique FILE [--target K]`).
    pub synopsis: &'static str,
    /// What it searches: the lines of its entry in `magpie search --help`.
    pub about: &'static [&'static str],
    /// The usage line of an error about its input
    /// (`usage: magpie search maxclique FILE.clq [--target K]`).
    pub usage: &'static str,
    /// Whether its instance is given as files (the command's FILE argument, and a second one
    /// where the application takes two: it asks for them with [`AppArgs::files`]).
    pub takes_file: bool,
    /// The options of its own (`--target`), each declared here once: `magpie search` and
    /// `magpie experiment` build their command-line flags and help from these; the others of
    /// the command's application options do not apply to it.
    pub options: &'static [AppOption],
    /// What its search computes.
    pub goal: Goal,
    /// Loads its instance from its arguments (reads the file, builds the tree or board):
    /// usage errors for missing or bad options, input errors naming the file and line.
    pub load: fn(&AppArgs) -> Result<Box<dyn Instance>, AppError>,
    /// Its instances in each experiment of `magpie-bench search` (the smaller ones of
    /// `--quick` when the flag is `true`); no case, no row but a skipped one. An instance
    /// file that is missing is an error naming it.
    pub bench: fn(&BenchQuery<'_>) -> Result<Vec<BenchCase>, String>,
}

impl SearchApp {
    /// Whether `flag` (`--target`) is one of its options.
    pub fn takes(&self, flag: &str) -> bool {
        self.options.iter().any(|o| o.flag == flag)
    }
}

/// One option of a search application: its flag, the name of its value (none for a
/// switch) and its help, declared once in the application's `APP`. Where two applications
/// take the same flag, they declare the same value name and their help lines are joined
/// (see [`app_options`]).
///
/// ```
/// use magpie_apps::registry::{self, AppOption};
///
/// let target: &AppOption = &registry::find("maxclique").unwrap().options[0];
/// assert_eq!((target.flag, target.value), ("--target", Some("K")));
/// let count = &registry::find("sip").unwrap().options[0];
/// assert_eq!((count.flag, count.value), ("--count", None));
/// assert!(count.help.starts_with("sip: "));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct AppOption {
    /// The flag, with its dashes (`--target`).
    pub flag: &'static str,
    /// The name of its value in the help (`K`), or `None` for a switch (`--count`).
    pub value: Option<&'static str>,
    /// Its help, naming the application first (`maxclique: decide whether ...`).
    pub help: &'static str,
}

impl AppOption {
    /// An option that takes a value named `value`.
    pub const fn value(flag: &'static str, value: &'static str, help: &'static str) -> Self {
        AppOption {
            flag,
            value: Some(value),
            help,
        }
    }

    /// An option without a value.
    pub const fn switch(flag: &'static str, help: &'static str) -> Self {
        AppOption {
            flag,
            value: None,
            help,
        }
    }
}

/// Every distinct flag of the search applications, in [`SEARCH_APPS`] order of first use,
/// with its value name and the help of every application taking it, joined with `; `.
///
/// ```
/// use magpie_apps::registry::app_options;
///
/// let n = app_options().iter().find(|o| o.flag == "--n").unwrap();
/// assert_eq!(n.value, Some("N"));
/// assert!(n.help.contains("bipartition: ") && n.help.contains("nqueens: "));
/// ```
pub fn app_options() -> &'static [AppOption] {
    static ALL: std::sync::OnceLock<Vec<AppOption>> = std::sync::OnceLock::new();
    ALL.get_or_init(merge_options)
}

/// [`app_options`], built once.
fn merge_options() -> Vec<AppOption> {
    let mut all: Vec<(AppOption, Vec<&'static str>)> = Vec::new();
    for o in SEARCH_APPS.iter().flat_map(|a| a.options) {
        match all.iter_mut().find(|(seen, _)| seen.flag == o.flag) {
            Some((_, helps)) => helps.push(o.help),
            None => all.push((*o, vec![o.help])),
        }
    }
    all.into_iter()
        .map(|(o, helps)| AppOption {
            help: Box::leak(helps.join("; ").into_boxed_str()),
            ..o
        })
        .collect()
}

/// Every search application, in the order of `magpie search --help`.
pub static SEARCH_APPS: &[&SearchApp] = &[
    &crate::maxclique::APP,
    &crate::knapsack::APP,
    &crate::tsp::APP,
    &crate::bipartition::APP,
    &crate::uts::APP,
    &crate::ns::APP,
    &crate::nqueens::APP,
    &crate::sip::APP,
    &crate::mis::APP,
];

/// The application named `name`, if there is one.
pub fn find(name: &str) -> Option<&'static SearchApp> {
    SEARCH_APPS.iter().copied().find(|a| a.name == name)
}

/// The names of the applications, in [`SEARCH_APPS`] order, that `applies` selects.
///
/// ```
/// use magpie_apps::registry::{names, Goal};
///
/// assert_eq!(names(|a| a.goal == Goal::Enumerate), ["uts", "ns", "nqueens"]);
/// ```
pub fn names(applies: impl Fn(&SearchApp) -> bool) -> Vec<&'static str> {
    SEARCH_APPS
        .iter()
        .filter(|a| applies(a))
        .map(|a| a.name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_states_the_limits_the_code_enforces() {
        let ns = find("ns").unwrap().about.join(" ");
        assert!(
            ns.contains(&format!("G <= {}", crate::ns::MAX_GENUS)),
            "{ns}"
        );
        let nq = find("nqueens").unwrap().about.join(" ");
        assert!(nq.contains(&format!("N <= {}", crate::NQUEENS_MAX)), "{nq}");
    }

    #[test]
    fn names_are_unique_and_every_option_is_a_flag() {
        let mut seen = std::collections::HashSet::new();
        for a in SEARCH_APPS {
            assert!(seen.insert(a.name), "{} twice", a.name);
            assert!(a
                .usage
                .starts_with(&format!("usage: magpie search {}", a.name)));
            assert!(a.synopsis.starts_with(a.name));
            assert!(a.options.iter().all(|o| o.flag.starts_with("--")));
            assert!(a
                .options
                .iter()
                .all(|o| o.help.starts_with(&format!("{}: ", a.name))));
        }
        let mut seen = std::collections::HashSet::new();
        for a in LOOP_APPS {
            assert!(seen.insert(a.name), "{} twice", a.name);
            assert!(a.options.iter().all(|o| o.starts_with("--")));
            assert_eq!(find_loop(a.name).map(|f| f.name), Some(a.name));
        }
    }

    /// Two applications that take the same flag agree on its value (a switch for both, or
    /// the same value name), so the one command-line flag built for it fits both.
    #[test]
    fn applications_sharing_a_flag_agree_on_its_value() {
        for a in SEARCH_APPS {
            for o in a.options {
                for b in SEARCH_APPS {
                    for p in b.options.iter().filter(|p| p.flag == o.flag) {
                        assert_eq!(o.value, p.value, "{} of {} and {}", o.flag, a.name, b.name);
                    }
                }
            }
        }
        let flags: Vec<&str> = app_options().iter().map(|o| o.flag).collect();
        let mut unique = flags.clone();
        unique.dedup();
        assert_eq!(flags.len(), unique.len());
    }

    /// Every application, loaded from its arguments and solved on a pool with two
    /// skeletons, gives the known answer (the oracles of `tests/data/README.md`, OEIS
    /// and the UTS spec); `--target` makes maxclique a decision both ways.
    #[test]
    fn every_application_loads_solves_and_checks_through_the_registry() {
        use magpie::search::{Options, Skeleton};

        let data = |p: &str| Some(crate::testdata::path(p));
        // sip: the path P3 (DIMACS) and the triangle K3 (LAD) into K4 (LAD).
        let dir = std::env::temp_dir().join(format!("magpie-registry-sip-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("p3.clq"), "p edge 3 2\ne 1 2\ne 2 3\n").unwrap();
        std::fs::write(dir.join("k3.lad"), "3\n2 1 2\n1 2\n0\n").unwrap();
        std::fs::write(dir.join("k4.lad"), "4\n3 1 2 3\n2 2 3\n1 3\n0\n").unwrap();
        let sip = |p: &str| AppArgs::new(Some(dir.join(p))).with_file(Some(dir.join("k4.lad")));
        let cases = [
            (
                "maxclique",
                AppArgs::new(data("dimacs/MANN_a9.clq")),
                "omega 16",
            ),
            (
                "maxclique",
                AppArgs::new(data("dimacs/MANN_a9.clq")).with("--target", Some("17")),
                "clique of 17: none",
            ),
            (
                "knapsack",
                AppArgs::new(data("knapsack/low-dimensional/f3_l-d_kp_4_20")),
                "profit 35",
            ),
            (
                "tsp",
                AppArgs::new(data("tsplib/burma14.tsp")),
                "length 3323",
            ),
            (
                "bipartition",
                AppArgs::new(None)
                    .with("--n", Some("14"))
                    .with("--density", Some("0.5"))
                    .with("--seed", Some("3")),
                "cut 13",
            ),
            (
                "uts",
                AppArgs::new(None).with("--tree", Some("default")),
                "nodes 1732, leaves 1050, depth 6",
            ),
            (
                "ns",
                AppArgs::new(None).with("--genus", Some("10")),
                "counts 1 1 2 4 7 12 23 39 67 118 204",
            ),
            (
                "nqueens",
                AppArgs::new(None).with("--n", Some("8")),
                "92 solutions",
            ),
            ("sip", sip("p3.clq"), "embedding: found"),
            (
                "sip",
                sip("p3.clq").with("--count", Some("")),
                "24 embeddings",
            ),
            (
                "sip",
                sip("k3.lad").with("--count", Some("")),
                "24 embeddings",
            ),
        ];
        let pool = magpie::ThreadPoolBuilder::new()
            .num_workers(2)
            .build()
            .unwrap();
        for (name, args, want) in cases {
            let app = find(name).unwrap();
            let inst = (app.load)(&args).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(inst.app().name, name);
            for sk in [
                Skeleton::Sequential,
                Skeleton::DepthBounded { spawn_depth: 2 },
            ] {
                let s = inst
                    .solve(Run::new(&Engine::Pool(&pool), sk, &Options::default()))
                    .unwrap_or_else(|e| panic!("{name} {sk}: {e}"))
                    .expect("a pool has its result");
                assert_eq!(s.answer.key, want, "{name} {sk}");
                assert!(!s.check.starts_with(NOT_CHECKED), "{name}: {}", s.check);
                assert!(!s.answer.fields.is_empty() && !s.answer.lines.is_empty());
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_arguments_are_usage_or_input_errors_that_name_the_problem() {
        let load = |name: &str, args: AppArgs| match (find(name).unwrap().load)(&args) {
            Ok(_) => panic!("{name} loaded"),
            Err(e) => e,
        };
        let e = load("nqueens", AppArgs::new(None));
        assert!(
            matches!(&e, AppError::Usage(m) if m == "nqueens needs --n N; usage: magpie search nqueens --n N"),
            "{e}"
        );
        let e = load("ns", AppArgs::new(None).with("--genus", Some("x")));
        assert!(
            e.to_string()
                .starts_with("--genus \"x\": expected a whole number"),
            "{e}"
        );
        let e = load("maxclique", AppArgs::new(None));
        assert!(
            e.to_string()
                .starts_with("maxclique needs an input file; usage: "),
            "{e}"
        );
        let e = load(
            "uts",
            AppArgs::new(None)
                .with("--tree", Some("T1"))
                .with("--flags", Some("-t 1")),
        );
        assert_eq!(e.to_string(), "uts takes --tree or --flags, not both");
        let missing = std::env::temp_dir().join("magpie-no-such-graph.clq");
        let e = load("maxclique", AppArgs::new(Some(missing.clone())));
        assert!(matches!(&e, AppError::Input(i) if i.path == missing), "{e}");
    }

    /// rayon runs the enumerations and is checked the same way; it refuses optimisations.
    #[cfg(feature = "rayon")]
    #[test]
    fn rayon_runs_the_enumerations_only() {
        use magpie::search::{Options, Skeleton};

        let pool = crate::registry::rayon_pool(2);
        let engine = Engine::Rayon {
            pool: &pool,
            spawn_depth: 2,
        };
        let sk = Skeleton::DepthBounded { spawn_depth: 2 };
        let q =
            (find("nqueens").unwrap().load)(&AppArgs::new(None).with("--n", Some("8"))).unwrap();
        let opts = Options::default();
        let s = q.solve(Run::new(&engine, sk, &opts)).unwrap().unwrap();
        assert_eq!(s.answer.key, "92 solutions");
        assert_eq!(s.check, "the known count (OEIS A000170)");
        let t = (find("tsp").unwrap().load)(&AppArgs::new(Some(crate::testdata::path(
            "tsplib/burma14.tsp",
        ))))
        .unwrap();
        assert!(matches!(
            t.solve(Run::new(&engine, sk, &opts)),
            Err(AppError::Usage(_))
        ));
    }
}
