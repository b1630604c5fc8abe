//! What the loom models share (`tests/loom_*.rs`, built with `RUSTFLAGS="--cfg loom"`).

/// Runs each negative control `names` (an `#[ignore]`d model of this test binary) in a child
/// process and checks that loom reports a deadlock. A child process, because after a
/// deadlock loom's clean-up may panic again while unwinding through loom objects, which
/// aborts the whole process instead of failing one test (so `#[should_panic]` would be
/// fragile).
pub fn negative_controls_fail(names: &[&str]) {
    let exe = std::env::current_exe().unwrap();
    for name in names {
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
            text.contains("deadlock"),
            "{name}: failed, but not by a deadlock:\n{text}"
        );
    }
}
