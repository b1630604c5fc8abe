//! Locating the shared instances and specs (`shared/`, kept beside the repository), for
//! tests, benchmarks and examples.
//!
//! The directory is [`MAGPIE_SHARED`] when that variable is set, otherwise `../shared`
//! relative to the working directory: the repository's sibling when a command runs from the
//! repository root. Cargo sets `MAGPIE_SHARED` to `<repo>/../shared` for every command of
//! the workspace (`.cargo/config.toml`), so tests find it from any directory.

use std::path::PathBuf;

/// The environment variable naming the shared directory.
pub const MAGPIE_SHARED: &str = "MAGPIE_SHARED";

/// The shared directory without [`MAGPIE_SHARED`], relative to the working directory.
pub const DEFAULT_DIR: &str = "../shared";

/// Where the shared directory should be: [`MAGPIE_SHARED`], or [`DEFAULT_DIR`], without
/// checking that it is there (for a caller that reports a missing file itself; [`dir`]
/// checks).
///
/// ```
/// let d = magpie_apps::shared::location();
/// assert!(d.join("instances").is_dir() || !d.is_dir());
/// ```
pub fn location() -> PathBuf {
    std::env::var_os(MAGPIE_SHARED).map_or_else(|| PathBuf::from(DEFAULT_DIR), PathBuf::from)
}

/// The shared directory: [`location`], or an error saying where it looked (for a command,
/// which reports it as one line; tests use [`dir`]).
///
/// ```
/// match magpie_apps::shared::try_dir() {
///     Ok(d) => assert!(d.is_dir()),
///     Err(e) => assert!(e.starts_with("the shared instances are missing")),
/// }
/// ```
pub fn try_dir() -> Result<PathBuf, String> {
    let shared = location();
    if shared.is_dir() {
        return Ok(shared);
    }
    let source = if std::env::var_os(MAGPIE_SHARED).is_some() {
        MAGPIE_SHARED.to_string()
    } else {
        format!("{DEFAULT_DIR} from the working directory, {MAGPIE_SHARED} being unset")
    };
    Err(format!(
        "the shared instances are missing: expected a directory at {} ({source}; the \
         repository's ../shared)",
        shared.display()
    ))
}

/// The shared directory: [`location`], which must exist.
///
/// # Panics
/// With [`try_dir`]'s message, if the directory is missing: tests that need the instances
/// must fail loudly rather than pass vacuously.
pub fn dir() -> PathBuf {
    try_dir().unwrap_or_else(|e| panic!("{e}"))
}

/// A path under `shared/`, e.g. `path("instances/dimacs/brock200_2.clq")`.
///
/// # Panics
/// If the file is missing (see [`dir`]).
pub fn path(relative: &str) -> PathBuf {
    let p = dir().join(relative);
    assert!(p.exists(), "missing shared file {}", p.display());
    p
}
