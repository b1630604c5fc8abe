//! The repository's test data: the small public instances under `tests/data/` (1.7 MB;
//! their sources and known answers are in `tests/data/README.md`), and hard graphs made on
//! the fly, so that every test passes in a clone of the repository alone.
//!
//! The folder is found from this crate's own source directory (`CARGO_MANIFEST_DIR`), so
//! tests, doctests and examples read it from any working directory. Its layout is that of
//! the full collection ([`crate::instances`]): a command that reads instances by name runs
//! on it with `MAGPIE_INSTANCES` set to [`dir`].

use crate::maxclique::Graph;
use std::path::{Path, PathBuf};

/// The repository's `tests/data/` folder.
///
/// ```
/// assert!(magpie_apps::testdata::dir().join("README.md").is_file());
/// ```
pub fn dir() -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data");
    d.canonicalize().unwrap_or(d)
}

/// The file at `relative` under [`dir`], e.g. `path("dimacs/brock200_1.clq")`.
///
/// # Panics
/// If the file is missing: a test that needs it must fail loudly, never pass vacuously.
///
/// ```
/// let p = magpie_apps::testdata::path("tsplib/burma14.tsp");
/// assert_eq!(magpie_apps::tsp::read(&p).unwrap().len(), 14);
/// ```
pub fn path(relative: &str) -> PathBuf {
    let p = dir().join(relative);
    assert!(
        p.is_file(),
        "missing test data {} (tests/data/README.md lists the files)",
        p.display()
    );
    p
}

/// A seeded random graph G(`n`, `density`) ([`Graph::random`]) written as a DIMACS file in
/// the temporary directory, for tests that need a hard instance (G(400, 0.75) takes
/// minutes to solve on two cores, like brock400_1) without shipping one. The same
/// arguments give the same file, rewritten only if its content is not the graph's.
///
/// ```
/// use magpie_apps::{maxclique, testdata};
/// let p = testdata::random_dimacs(30, 0.5, 7);
/// assert_eq!(maxclique::read_dimacs(&p).unwrap(), maxclique::Graph::random(30, 0.5, 7));
/// ```
pub fn random_dimacs(n: usize, density: f64, seed: u64) -> PathBuf {
    // One name per graph, not per process: every test binary that wants this graph shares
    // the file (its content is fixed by the arguments), and the temporary directory keeps
    // one copy, not one per run.
    let p = std::env::temp_dir().join(format!("magpie-testdata-g{n}-{density}-{seed}.clq"));
    let text = crate::maxclique::to_dimacs(&Graph::random(n, density, seed));
    if std::fs::read_to_string(&p).ok().as_deref() != Some(text.as_str()) {
        // Written under a name of this process and thread, then renamed: a test running
        // beside this one never reads a half-written file.
        let tmp = p.with_extension(format!(
            "{}-{:?}.tmp",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::write(&tmp, text).expect("writes to the temporary directory");
        std::fs::rename(&tmp, &p).expect("renames in the temporary directory");
    }
    p
}
