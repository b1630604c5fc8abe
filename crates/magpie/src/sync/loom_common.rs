//! What the loom models share (the crate's `loom_*` unit tests, built with
//! `RUSTFLAGS="--cfg loom"`).

/// Runs each negative control `names` (an `#[ignore]`d model of `module`, the caller's
/// `module_path!()`, in this test binary) in a child
/// process and checks that loom reports a deadlock. A child process, because after a
/// deadlock loom's clean-up may panic again while unwinding through loom objects, which
/// aborts the whole process instead of failing one test (so `#[should_panic]` would be
/// fragile).
pub(crate) fn negative_controls_fail(module: &str, names: &[&str]) {
    negative_controls_fail_with(module, names, "deadlock")
}

/// [`negative_controls_fail`] for models that fail otherwise than by a deadlock (a broken
/// invariant, an assertion): each must fail with `expected` in its output.
pub(crate) fn negative_controls_fail_with(module: &str, names: &[&str], expected: &str) {
    let exe = std::env::current_exe().unwrap();
    // Test names leave out the crate's name.
    let module = module.split_once("::").map_or("", |(_, rest)| rest);
    for name in names {
        let name = &format!("{module}::{name}");
        let out = std::process::Command::new(&exe)
            .args(["--ignored", "--exact", name, "--test-threads=1"])
            .env_remove("LOOM_MAX_PREEMPTIONS")
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("running 1 test"), "{name}: not run:\n{text}");
        assert!(
            !out.status.success(),
            "{name}: the broken model passed:\n{text}"
        );
        assert!(
            text.contains(expected),
            "{name}: failed, but without {expected:?} in its output:\n{text}"
        );
    }
}
