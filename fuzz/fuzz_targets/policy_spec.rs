//! Policy specs (`name:key=value,…`) through the victim and idle constructors, without
//! starting a pool: never a panic; an error names the policy (or the bad name) and the problem.
#![no_main]

use libfuzzer_sys::fuzz_target;
use magpie::policy::{idle, victim, PolicySpec};

fuzz_target!(|data: &[u8]| {
    let Ok(spec) = std::str::from_utf8(data) else {
        return;
    };
    let name = spec
        .trim()
        .split_once(':')
        .map_or(spec.trim(), |(n, _)| n.trim())
        .to_ascii_lowercase();
    let check = |e: String| {
        assert!(!e.trim().is_empty());
        // The empty name is reported with the whole spec.
        assert!(
            e.contains(&name)
                || e.contains(&format!("{name:?}"))
                || (name.is_empty() && e.contains("empty")),
            "error does not name the policy {name:?}: {e}"
        );
    };
    if let Err(e) = victim::by_name(spec) {
        check(e.to_string());
    }
    if let Err(e) = idle::by_name(spec) {
        check(e.to_string());
    }
    if let Ok(s) = spec.parse::<PolicySpec>() {
        // Display writes a spec that parses back to the same spec.
        assert_eq!(s.to_string().parse::<PolicySpec>().as_ref(), Ok(&s));
    }
});
