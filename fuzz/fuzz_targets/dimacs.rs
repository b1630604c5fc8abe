//! DIMACS clique files: never a panic, memory bounded by the vertex limit, errors at FILE:LINE.
#![no_main]
#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use magpie_apps::maxclique::parse_dimacs_with_limit;

/// A smaller vertex limit than the CLI's (the matrix of 4096 vertices takes 2 MiB), so that
/// the fuzzer explores rather than allocating the CLI's 512 MiB on every `p` line.
const LIMIT: usize = 4096;

fuzz_target!(|data: &[u8]| {
    let Some(text) = common::text(data) else {
        return;
    };
    match parse_dimacs_with_limit(text, common::FILE, LIMIT) {
        Ok(g) => {
            assert!(g.n() <= LIMIT);
            assert!(g.edge_count() <= g.n() * g.n().saturating_sub(1) / 2);
        }
        Err(e) => common::check_file_error(text, &e),
    }
});
