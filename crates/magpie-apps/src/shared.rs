//! Locating `../shared` (instances and specs) next to the repository, for tests and benchmarks.

use std::path::PathBuf;

/// The `shared/` directory beside the repository root (`<repo>/../shared`).
///
/// # Panics
/// With a message saying where it looked, if the directory is missing: tests that need the
/// instances must fail loudly rather than pass vacuously.
pub fn dir() -> PathBuf {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let shared = repo.join("../shared");
    assert!(
        shared.is_dir(),
        "the shared instances are missing: expected a directory at {} (the repository's ../shared)",
        shared.display()
    );
    shared
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
