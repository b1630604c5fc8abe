//! Bakes the resolution of this very build into the binary: cargo writes Cargo.lock before it
//! runs build scripts, so the lock's `rayon-core` entry is the one being compiled in. Its
//! `source` is `registry+…` for the crates.io release and absent for a path (a
//! `[patch.crates-io]` to magpie's replacement, or to any local copy).

use std::path::Path;

fn main() {
    let lock = Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    println!("cargo:rerun-if-changed=build.rs");
    let text = std::fs::read_to_string(&lock).unwrap_or_default();
    let mut found = Vec::new();
    for package in text.split("[[package]]").skip(1) {
        let field = |key: &str| {
            package.lines().find_map(|l| {
                let (k, v) = l.split_once('=')?;
                (k.trim() == key).then(|| v.trim().trim_matches('"').to_string())
            })
        };
        if field("name").as_deref() == Some("rayon-core") {
            let version = field("version").unwrap_or_default();
            let source = match field("source") {
                Some(s) if s.contains("crates.io-index") => "crates.io".to_string(),
                Some(s) => s,
                None => "path".to_string(),
            };
            found.push(format!("rayon-core {version} from {source}"));
        }
    }
    let value = match found.len() {
        0 => "unknown (no rayon-core in Cargo.lock)".to_string(),
        _ => found.join(" + "),
    };
    println!("cargo:rustc-env=RAYON_PROGRAM_LOCKED_CORE={value}");
}
