//! TSPLIB instances and tours: never a panic, memory bounded by the file (or the documented
//! city limit), errors at FILE:LINE.
#![no_main]
#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use magpie_apps::tsp;

fuzz_target!(|data: &[u8]| {
    let Some(text) = common::text(data) else {
        return;
    };
    match tsp::parse(common::FILE, text) {
        Ok(inst) => {
            let n = inst.len();
            assert!(n >= 1);
            for i in 0..n {
                assert_eq!(inst.dist(i, i), 0);
            }
        }
        Err(e) => common::check_file_error(text, &e),
    }
    match tsp::parse_tour(common::FILE, text) {
        Ok(t) => assert!(t.iter().all(|&c| c >= 1)),
        Err(e) => common::check_file_error(text, &e),
    }
});
