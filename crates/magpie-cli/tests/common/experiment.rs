//! What the `magpie experiment` test files (`experiment.rs`, `experiment_apps.rs`) share:
//! running `experiment policies` and reading its JSON and CSV reports.
#![allow(dead_code)]

use serde_json::Value;

use super::{magpie, one_json_line, quiet_stdout};

/// `magpie experiment policies ARGS`: exit 0, nothing on stderr; returns stdout.
pub fn policies(args: &[&str], env: &[(&str, &str)]) -> String {
    let all = [&["experiment", "policies"][..], args].concat();
    quiet_stdout(&format!("{all:?}"), &magpie(&all, env))
}

/// [`policies`] with `--format json`: its one line, parsed.
pub fn policies_json(args: &[&str], env: &[(&str, &str)]) -> Value {
    let all = [&["experiment", "policies"][..], args, &["--format", "json"]].concat();
    one_json_line(&format!("{all:?}"), &magpie(&all, env))
}

pub fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

pub fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// `experiment policies ARGS` exits 2 with one line naming every needle.
pub fn assert_usage_error(args: &[&str], needles: &[&str]) {
    let all = [&["experiment", "policies"][..], args].concat();
    super::assert_one_line_error(&format!("{all:?}"), &magpie(&all, &[]), needles);
}

/// Splits one CSV line (RFC 4180 quoting).
pub fn csv_line(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                fields.last_mut().unwrap().push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(String::new()),
            (c, _) => fields.last_mut().unwrap().push(c),
        }
    }
    fields
}
