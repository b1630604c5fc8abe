//! `magpie search sip PATTERN TARGET [--count]` on the built binary: known answers on every
//! skeleton (text and JSON, LAD and DIMACS inputs), the errors (exit 2, one line), the help,
//! `magpie experiment policies --app sip …` and, with the `mpi` feature, `--distributed`.
//!
//! The graphs are written by the tests (no public LAD instances are packaged in a registry
//! this project can use): the Petersen graph, whose 5-cycles (12 of them, 10 maps each) give
//! 120 embeddings of C5 and whose girth 5 rules out a triangle, and K4.

use std::path::PathBuf;

use magpie_apps::maxclique::{read_dimacs, Graph};
use magpie_apps::testdata;
use serde_json::Value;

mod common;
use common::{assert_one_line_error, line_starting, text};

const SKELETONS: &[&[&str]] = &[
    &["--skeleton", "seq"],
    &["--skeleton", "depth-bounded"],
    &["--skeleton", "budget", "--budget", "1"],
    &["--skeleton", "stack-stealing"],
    &["--skeleton", "ordered", "--order", "discrepancy"],
];

const PETERSEN: [(usize, usize); 15] = [
    (0, 1),
    (1, 2),
    (2, 3),
    (3, 4),
    (4, 0),
    (0, 5),
    (1, 6),
    (2, 7),
    (3, 8),
    (4, 9),
    (5, 7),
    (7, 9),
    (9, 6),
    (6, 8),
    (8, 5),
];

/// `g` in the LAD format, each edge listed on both ends.
fn lad(g: &Graph) -> String {
    let mut s = format!("{}\n", g.n());
    for v in 0..g.n() {
        let ns: Vec<String> = g.neighbours(v).iter().map(|w| w.to_string()).collect();
        s += &format!("{} {}\n", ns.len(), ns.join(" "));
    }
    s
}

/// A directory of the test's files, removed when it is dropped.
struct Dir(PathBuf);

impl std::ops::Deref for Dir {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A directory of this test process and `test` with the graphs written in it (one per test:
/// the tests run at once, and one must not rewrite a file that another reads).
fn graphs(test: &str) -> Dir {
    let dir = std::env::temp_dir().join(format!("magpie-sip-cli-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let c5 = Graph::from_edges(5, &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]);
    let k3 = Graph::from_edges(3, &[(0, 1), (1, 2), (0, 2)]);
    let k4 = Graph::from_edges(4, &[(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]);
    for (name, g) in [
        ("petersen.lad", Graph::from_edges(10, &PETERSEN)),
        ("c5.lad", c5),
        ("k3.lad", k3),
        ("k4.lad", k4),
    ] {
        std::fs::write(dir.join(name), lad(&g)).unwrap();
    }
    std::fs::write(dir.join("loop.lad"), "2\n1 0\n0\n").unwrap();
    std::fs::write(dir.join("short.lad"), "5\n1 1\n0\n").unwrap();
    Dir(dir)
}

fn path(dir: &std::path::Path, name: &str) -> String {
    dir.join(name).display().to_string()
}

fn magpie(args: &[&str]) -> std::process::Output {
    common::magpie(args, &[])
}

/// `magpie search sip ARGS --json` (2 workers and the chase-lev deque unless seq): exit 0,
/// one JSON object.
fn sip_json(args: &[&str]) -> Value {
    let mut all = vec!["search", "sip"];
    all.extend_from_slice(args);
    all.push("--json");
    if !args.contains(&"seq") {
        all.extend(["--workers", "2", "--deque", "chase-lev"]);
    }
    let out = magpie(&all);
    let stdout = text(&out.stdout);
    assert!(
        out.status.success(),
        "{all:?}: {}\n{stdout}",
        text(&out.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

#[test]
fn known_answers_on_every_skeleton_in_json() {
    let dir = graphs("known_answers_on_every_skeleton_in_json");
    let (c5, k3, pet) = (
        path(&dir, "c5.lad"),
        path(&dir, "k3.lad"),
        path(&dir, "petersen.lad"),
    );
    let petersen = Graph::from_edges(10, &PETERSEN);
    for sk in SKELETONS {
        let mut args = vec![c5.as_str(), pet.as_str(), "--count"];
        args.extend_from_slice(sk);
        let v = sip_json(&args);
        assert_eq!(v["app"], "sip");
        assert_eq!(v["mode"], "count", "{v}");
        assert_eq!(v["count"], 120, "{sk:?}: {v}");
        assert_eq!(v["found"], true);
        assert_eq!(v["embedding"], Value::Null);
        assert_eq!(
            (v["pattern_vertices"].as_u64(), v["target_edges"].as_u64()),
            (Some(5), Some(15))
        );
        assert!(v["check"].as_str().unwrap().starts_with("each of the 120"));

        let mut args = vec![c5.as_str(), pet.as_str()];
        args.extend_from_slice(sk);
        let v = sip_json(&args);
        assert_eq!(
            (v["mode"].as_str(), v["found"].as_bool()),
            (Some("decide"), Some(true))
        );
        assert_eq!(v["count"], Value::Null);
        let f: Vec<usize> = v["embedding"]
            .as_array()
            .expect("an embedding")
            .iter()
            .map(|x| x.as_u64().unwrap() as usize)
            .collect();
        let mut distinct = f.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 5, "{f:?}");
        for i in 0..5 {
            assert!(petersen.adjacent(f[i], f[(i + 1) % 5]), "{sk:?}: {f:?}");
        }

        let mut args = vec![k3.as_str(), pet.as_str()];
        args.extend_from_slice(sk);
        let v = sip_json(&args);
        assert_eq!(v["found"], false, "{sk:?}: {v}");
        assert_eq!(v["embedding"], Value::Null);
        let mut args = vec![k3.as_str(), pet.as_str(), "--count"];
        args.extend_from_slice(sk);
        assert_eq!(sip_json(&args)["count"], 0);
    }
}

#[test]
fn text_report_and_a_dimacs_target() {
    let dir = graphs("text_report_and_a_dimacs_target");
    let out = magpie(&[
        "search",
        "sip",
        &path(&dir, "c5.lad"),
        &path(&dir, "petersen.lad"),
        "--count",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        line_starting(&stdout, "answer"),
        "answer      120 embeddings"
    );
    assert!(line_starting(&stdout, "instance").contains("(5 vertices, 5 edges, LAD) into"));
    assert!(line_starting(&stdout, "check").starts_with("check       ok: each of the 120"));

    // K4 into MANN_a9 (omega 16, DIMACS: numbered from 1).
    let mann = testdata::path("dimacs/MANN_a9.clq");
    let target = read_dimacs(&mann).unwrap();
    let v = sip_json(&[&path(&dir, "k4.lad"), &mann.display().to_string()]);
    assert_eq!(v["found"], true, "{v}");
    let f: Vec<usize> = v["embedding"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(f.len(), 4);
    for a in 0..4 {
        for b in a + 1..4 {
            assert!((1..=45).contains(&f[a]), "{f:?}");
            assert!(target.adjacent(f[a] - 1, f[b] - 1), "{f:?}");
        }
    }
    let out = magpie(&[
        "search",
        "sip",
        &path(&dir, "k4.lad"),
        &mann.display().to_string(),
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(
        line_starting(&stdout, "answer"),
        "answer      embedding: found"
    );
    // LAD pattern from 0, DIMACS target from 1.
    let e = line_starting(&stdout, "embedding");
    assert!(e.starts_with("embedding   0->"), "{e}");
    assert!(line_starting(&stdout, "instance").contains("(45 vertices, 918 edges, DIMACS)"));
}

#[test]
fn bad_input_and_options_are_one_line_errors() {
    let dir = graphs("bad_input_and_options_are_one_line_errors");
    let (c5, pet) = (path(&dir, "c5.lad"), path(&dir, "petersen.lad"));
    let cases: Vec<(Vec<String>, Vec<&str>)> = vec![
        (
            vec![c5.clone()],
            vec!["sip needs 2 input files, got 1; usage: magpie search sip PATTERN TARGET"],
        ),
        (vec![], vec!["sip needs 2 input files, got 0"]),
        (
            vec![path(&dir, "loop.lad"), pet.clone()],
            vec!["loop.lad:2: loop on vertex 0: loops are not supported"],
        ),
        (
            vec![c5.clone(), path(&dir, "short.lad")],
            vec!["short.lad:1: the header says 5 vertices, but the file has 2 vertex lines"],
        ),
        (
            vec![c5.clone(), path(&dir, "missing.lad")],
            vec!["missing.lad: cannot read"],
        ),
        (
            vec![c5.clone(), pet.clone(), "--max-depth".into(), "2".into()],
            vec!["--max-depth applies to uts, ns, nqueens only, not to sip"],
        ),
        (
            vec![c5.clone(), pet.clone(), "--target".into(), "2".into()],
            vec!["--target applies to maxclique only, not to sip"],
        ),
        (
            vec![
                c5.clone(),
                pet.clone(),
                "--incumbents".into(),
                "x.jsonl".into(),
            ],
            vec!["--incumbents applies to an optimisation"],
        ),
    ];
    for (args, needles) in cases {
        let mut all = vec!["search", "sip"];
        all.extend(args.iter().map(String::as_str));
        assert_one_line_error(&format!("{all:?}"), &magpie(&all), &needles);
    }
    let out = magpie(&["search", "tsp", &c5, &pet]);
    assert_one_line_error(
        "tsp with two files",
        &out,
        &["tsp takes one input file, got 2"],
    );
    let out = magpie(&["search", "nqueens", "--n", "6", "--count"]);
    assert_one_line_error(
        "--count",
        &out,
        &["--count applies to sip only, not to nqueens"],
    );
}

#[test]
fn the_help_lists_sip() {
    let out = magpie(&["search", "--help"]);
    let help = text(&out.stdout);
    assert!(out.status.success());
    assert!(
        help.contains("  sip PATTERN TARGET [--count]  subgraph isomorphism"),
        "{help}"
    );
    assert!(help.contains("--count"), "{help}");
}

#[test]
fn experiment_policies_runs_sip() {
    let dir = graphs("experiment_policies_runs_sip");
    let (c5, pet) = (path(&dir, "c5.lad"), path(&dir, "petersen.lad"));
    let out = magpie(&[
        "experiment",
        "policies",
        "--app",
        "sip",
        &c5,
        &pet,
        "--count",
        "--skeleton",
        "stack-stealing",
        "--app",
        "sip",
        &c5,
        &pet,
        "--runs",
        "1",
        "--workers",
        "2",
        "--format",
        "json",
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    let answers: Vec<&str> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["answer"].as_str().unwrap())
        .collect();
    assert_eq!(answers, ["120 embeddings", "embedding: found"]);
}

/// Over MPI, 2 ranks: the count and the decision of a single process.
#[cfg(feature = "mpi")]
#[test]
fn distributed_sip_counts_and_decides() {
    let dir = graphs("distributed_sip_counts_and_decides");
    let (c5, pet) = (path(&dir, "c5.lad"), path(&dir, "petersen.lad"));
    for sk in ["depth-bounded", "stack-stealing", "budget", "ordered"] {
        let run = |mode: &[&str]| {
            let mut args = vec!["search", "sip", &c5, &pet];
            args.extend(mode);
            args.extend(common::words("--distributed --workers 1 --json --skeleton"));
            args.push(sk);
            common::mpirun_report(2, &args)
        };
        let v = run(&["--count"]);
        assert_eq!(v["count"], 120, "{sk}: {v}");
        let v = run(&[]);
        assert_eq!(v["found"], true, "{sk}: {v}");
    }
}
