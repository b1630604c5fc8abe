//! Plain knapsack files: never a panic, memory bounded by the file, errors at FILE:LINE.
#![no_main]
#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use magpie_apps::knapsack;

fuzz_target!(|data: &[u8]| {
    let Some(text) = common::text(data) else {
        return;
    };
    match knapsack::parse_plain(common::FILE, text) {
        Ok(inst) => assert!(inst.len() <= text.len()),
        Err(e) => common::check_file_error(text, &e),
    }
});
