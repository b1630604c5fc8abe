//! `magpie-bench search --plot DIR` (issue 16 §5): the smallest run of the suite that has
//! several worker counts (the speedup experiment on N-Queens n = 12 with one skeleton and
//! one timed run) writes DIR/runtimes.png and DIR/speedup.png, and its `--json` rows carry
//! every run's time (`times_s`) and mark the hand-written baseline.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// Decodes a PNG: its width, height and whether it holds a pixel of `colour`.
fn decode(path: &Path, colour: [u8; 3]) -> (u32, u32, bool) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    let has = buf[..info.buffer_size()].chunks(3).any(|p| p == colour);
    (info.width, info.height, has)
}

#[test]
fn plot_writes_the_box_plots_and_the_speedup_curve() {
    let dir = std::env::temp_dir().join(format!("magpie-bench-search-plot-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_magpie-bench"));
    for var in magpie::ThreadPoolBuilder::ENV_VARS {
        cmd.env_remove(var);
    }
    let out = cmd
        .args([
            "search",
            "--quick",
            "--experiments",
            "speedup",
            "--speedup-apps",
            "nqueens",
            "--skeletons",
            "dbs:2",
            "--runs",
            "1",
            "--json",
            "--quiet",
            "--plot",
        ])
        .arg(&dir)
        .output()
        .expect("runs magpie-bench");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let rows: Value = serde_json::from_slice(&out.stdout).expect("a JSON array on stdout");
    let rows = rows.as_array().unwrap();
    // dbs:2 at 1 and 2 workers, nqueens::count, its 2 copies at once, then 3 ratio rows.
    let configs: Vec<(&str, u64, bool, Option<usize>)> = rows
        .iter()
        .map(|r| {
            (
                r["config"].as_str().unwrap(),
                r["workers"].as_u64().unwrap(),
                r["baseline"].as_bool().unwrap(),
                r["times_s"].as_array().map(Vec::len),
            )
        })
        .collect();
    assert_eq!(
        configs[..4],
        [
            ("dbs:2", 1, false, Some(1)),
            ("dbs:2", 2, false, Some(1)),
            ("nqueens::count", 1, true, Some(1)),
            ("nqueens::count x2 at once", 2, false, Some(1)),
        ]
    );
    assert!(configs[4..].iter().all(|c| c.3.is_none()), "{configs:?}");
    for r in &rows[..4] {
        assert_eq!(
            r["times_s"][0], r["median_s"],
            "one run: its time is the median"
        );
    }
    for name in ["runtimes.png", "speedup.png"] {
        assert!(
            stderr.contains(&format!(
                "magpie-bench: picture {}",
                dir.join(name).display()
            )),
            "{stderr}"
        );
    }
    // One panel of 4 boxes (at least 300 high); dbs:2 is the palette's first colour.
    assert_eq!(
        decode(&dir.join("runtimes.png"), [0x94, 0x67, 0xbd]),
        (1100, 300, true)
    );
    assert_eq!(
        decode(&dir.join("speedup.png"), [0x94, 0x67, 0xbd]),
        (800, 480, true)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `magpie-bench` with its environment cleared of `MAGPIE_*` and `args`.
fn bench(args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_magpie-bench"));
    for var in magpie::ThreadPoolBuilder::ENV_VARS {
        cmd.env_remove(var);
    }
    cmd.env_remove(magpie_apps::instances::MAGPIE_INSTANCES);
    cmd.args(args).output().expect("runs magpie-bench")
}

/// Issue 30: an instance missing from the directory the user named is one line per item,
/// naming the file, where it looked and how to point elsewhere, and exit code 2; the same
/// items run on the repository's test data, and a `--instances` that is not a directory is
/// refused before anything runs.
#[test]
fn instances_come_from_the_named_directory_and_a_missing_one_is_a_clear_error() {
    let empty =
        std::env::temp_dir().join(format!("magpie-bench-no-instances-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let cpeer = [
        "search",
        "--quick",
        "--experiments",
        "cpeer",
        "--runs",
        "1",
        "--quiet",
    ];
    let mut args = vec!["--instances", empty.to_str().unwrap()];
    args.extend(cpeer);
    let out = bench(&args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let missing: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("missing instance knapsack knapPI_3_100_1000_1"))
        .collect();
    assert!(!missing.is_empty(), "{stderr}");
    for line in missing {
        assert!(line.contains(empty.to_str().unwrap()), "{line}");
        assert!(line.contains("--instances DIR"), "{line}");
    }
    assert!(!stderr.contains("panicked"), "{stderr}");

    let data = magpie_apps::testdata::dir();
    let mut args = vec!["--instances", data.to_str().unwrap()];
    args.extend(cpeer);
    let out = bench(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("knapPI_3_200_1000_1"), "{stdout}");

    let file = data.join("README.md");
    let out = bench(&["--instances", file.to_str().unwrap(), "search", "--quick"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        format!(
            "magpie-bench: error: --instances {}: not a directory",
            file.display()
        )
    );
    std::fs::remove_dir_all(&empty).unwrap();
}
