//! The global pool's rules, in a test binary of its own (the global pool is per process):
//! `RAYON_NUM_THREADS` sizes it, it is built on first use, `build_global` fails after that
//! with rayon's message, and a bad `MAGPIE_*` variable makes the implicit global pool say so
//! in one line on stderr and run with the defaults (checked in a child process).

use std::process::Command;

const CHILD: &str = "MAGPIE_RAYON_CORE_GLOBAL_CHILD";

#[test]
fn global_pool_rules() {
    if std::env::var_os(CHILD).is_some() {
        // The child: a bad MAGPIE_DEQUE, and the global pool used implicitly.
        let sum: u64 = rayon_core::join(|| (0..10u64).sum::<u64>(), || 1).0;
        assert_eq!(sum, 45);
        // The defaults it falls back to still take rayon's thread count.
        assert_eq!(rayon_core::current_num_threads(), 1);
        return;
    }
    std::env::set_var("RAYON_NUM_THREADS", "3");
    assert_eq!(rayon_core::current_num_threads(), 3);
    // magpie's own view of the same global pool.
    assert_eq!(magpie::current_pool_stats().workers.len(), 3);
    let err = rayon_core::ThreadPoolBuilder::new()
        .build_global()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "The global thread pool has already been initialized."
    );
    // A bad configuration of the implicit global pool: one line, then the defaults.
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "global_pool_rules",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .env("RAYON_NUM_THREADS", "1")
        .env("MAGPIE_DEQUE", "nonsense")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "child failed: {stderr}");
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("MAGPIE_DEQUE"))
        .collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].contains("nonsense") && lines[0].contains("chase-lev"),
        "{stderr}"
    );
}
