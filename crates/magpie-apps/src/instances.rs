//! Where the benchmark instances are: the directory named by [`MAGPIE_INSTANCES`] (or by a
//! command's `--instances DIR`, which sets it), else [`DEFAULT_DIR`], the `shared/instances`
//! folder beside the repository when it exists.
//!
//! Benchmarks, `magpie-bench reproduce` and the bench's search suite read big instances by
//! name from there (`dimacs/brock400_1.clq`, `knapsack/large_scale/…`); the layout is that
//! of the full collection (`dimacs/`, `tsplib/`, `knapsack/`). Tests never read it: they
//! read the repository's own small files through [`crate::testdata`]. Under cargo,
//! `.cargo/config.toml` sets [`MAGPIE_INSTANCES`] to `<repo>/../shared/instances` unless it
//! is already set, so `cargo run` finds the default from any directory.
//!
//! A missing file is an error of one line ([`find`]) naming the file, where it was looked
//! for and how to point elsewhere; a command prints it and exits with code 2.

use std::path::PathBuf;

/// The environment variable naming the instance directory.
pub const MAGPIE_INSTANCES: &str = "MAGPIE_INSTANCES";

/// The instance directory without [`MAGPIE_INSTANCES`], relative to the working directory:
/// the collection beside the repository when a command runs from the repository root.
pub const DEFAULT_DIR: &str = "../shared/instances";

/// [`MAGPIE_INSTANCES`] when it is set and not empty.
fn from_env() -> Option<PathBuf> {
    std::env::var_os(MAGPIE_INSTANCES)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// Where the instance directory should be: [`MAGPIE_INSTANCES`], or [`DEFAULT_DIR`],
/// without checking that it is there (see [`find`], which does).
///
/// ```
/// let d = magpie_apps::instances::location();
/// assert!(!d.as_os_str().is_empty());
/// ```
pub fn location() -> PathBuf {
    from_env().unwrap_or_else(|| PathBuf::from(DEFAULT_DIR))
}

/// The file at `relative` under the instance directory (e.g. `dimacs/brock400_1.clq`), or
/// a one-line error naming the file, where it looked and how to point elsewhere.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("magpie-doc-instances-{}", std::process::id()));
/// std::fs::create_dir_all(dir.join("dimacs")).unwrap();
/// std::fs::write(dir.join("dimacs/t.clq"), "p edge 2 1\ne 1 2\n").unwrap();
/// std::env::set_var(magpie_apps::instances::MAGPIE_INSTANCES, &dir);
/// assert!(magpie_apps::instances::find("dimacs/t.clq").unwrap().is_file());
/// let e = magpie_apps::instances::find("dimacs/none.clq").unwrap_err();
/// assert!(e.starts_with("missing instance dimacs/none.clq: looked for "), "{e}");
/// assert!(e.contains("--instances DIR"), "{e}");
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn find(relative: &str) -> Result<PathBuf, String> {
    let p = location().join(relative);
    if p.is_file() {
        Ok(p)
    } else {
        Err(missing(relative, &p))
    }
}

/// The one-line error for an instance `relative` not found at `looked`: what, where, and
/// how to point elsewhere (for callers that search several places themselves).
///
/// ```
/// let e = magpie_apps::instances::missing("dimacs/x.clq", std::path::Path::new("/d/dimacs/x.clq"));
/// assert!(e.starts_with("missing instance dimacs/x.clq: looked for /d/dimacs/x.clq ("), "{e}");
/// ```
pub fn missing(relative: &str, looked: &std::path::Path) -> String {
    let source = if from_env().is_some() {
        format!("from {MAGPIE_INSTANCES}")
    } else {
        format!("the default, {MAGPIE_INSTANCES} being unset")
    };
    format!(
        "{MISSING}{relative}: looked for {} ({source}); set {MAGPIE_INSTANCES}=DIR or pass \
         --instances DIR to read the instances from DIR (the repository's tests/data has the \
         small ones)",
        looked.display(),
    )
}

/// How every [`missing`] error starts.
const MISSING: &str = "missing instance ";

/// Whether `error` (a command's error text, which may wrap others) reports a [`missing`]
/// instance: the user's to fix by naming a directory, so a command exits with code 2.
///
/// ```
/// use magpie_apps::instances::{is_missing, missing};
/// let e = format!("2 item(s) failed:\n  {}", missing("dimacs/x.clq", "/d".as_ref()));
/// assert!(is_missing(&e));
/// assert!(!is_missing("the child exited with code 1"));
/// ```
pub fn is_missing(error: &str) -> bool {
    error.contains(MISSING)
}
