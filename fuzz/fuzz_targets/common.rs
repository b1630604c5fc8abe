//! What every target checks about an error: it names where the problem is and what it is.
#![allow(dead_code)]

use magpie_apps::input::InputError;

/// The name the readers are given for the fuzzed "file".
pub const FILE: &str = "fuzz.in";

/// A reader's error must name `FILE` and a line of the input (1..=number of lines, or 1 for
/// an empty input), and say what is wrong.
pub fn check_file_error(text: &str, e: &InputError) {
    let lines = text.lines().count().max(1);
    assert_eq!(e.path.to_str(), Some(FILE), "error names another file: {e}");
    match e.line {
        Some(l) => assert!((1..=lines).contains(&l), "line {l} of {lines}: {e}"),
        None => panic!("error without a line: {e}"),
    }
    assert!(!e.message.trim().is_empty(), "error without a message: {e}");
    assert!(
        e.to_string()
            .starts_with(&format!("{FILE}:{}: ", e.line.unwrap())),
        "not FILE:LINE: {e}"
    );
}

/// Input bytes as text, as `std::fs::read_to_string` would accept them.
pub fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}
