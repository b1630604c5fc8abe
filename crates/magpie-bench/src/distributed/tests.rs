use super::*;
use clap::Parser;
use std::time::{Duration, Instant};

/// The words of `line` as arguments (`words("--quick --runs 1")`).
fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: DistributedArgs,
}

fn parse(argv: &[&str]) -> DistributedArgs {
    Cli::try_parse_from(std::iter::once("distributed").chain(argv.iter().copied()))
        .unwrap()
        .args
}

#[test]
fn overhead_shapes() {
    assert_eq!(parse(&[]).overhead_shapes, [(2, 1), (1, 2)]);
    let a = parse(&["--overhead-shapes", "4x4,1x16"]);
    assert_eq!(a.overhead_shapes, [(4, 4), (1, 16)]);
    for bad in ["4", "0x4", "4x", "axb", "4x-1"] {
        assert!(parse_shape(bad).is_err(), "{bad}");
    }
    assert!(Cli::try_parse_from(["distributed", "--overhead-shapes", "2y2"]).is_err());
}

#[test]
fn arguments_and_defaults() {
    let a = parse(&[]);
    assert_eq!(a.experiments, Experiment::ALL);
    assert_eq!(a.policies, ["random", "sticky", "perf"]);
    assert_eq!(a.policy_ranks, 4);
    assert_eq!(a.loads, [Load::Isolated, Load::Contended]);
    assert_eq!(a.loop_ranks, [2, 4]);
    assert_eq!(a.runs, None);
    let a = parse(&words(
        "--runs 7 --experiments policies,loops --policies random,sticky \
         --overhead-apps uts-T1,ns-34,brock400_1 --loads contended --quick",
    ));
    assert_eq!(a.runs, Some(7));
    assert_eq!(a.experiments, [Experiment::Policies, Experiment::Loops]);
    assert_eq!(a.policies, ["random", "sticky"]);
    assert_eq!(
        a.overhead_apps.as_deref(),
        Some(&strings(&["uts-T1", "ns-34", "brock400_1"])[..])
    );
    assert_eq!(a.loads, [Load::Contended]);
    assert!(a.quick);
    assert!(Cli::try_parse_from(["d", "--runs", "0"]).is_err());
    assert!(Cli::try_parse_from(["d", "--experiments", "bogus"]).is_err());
}

#[test]
fn app_specs() {
    let dir = std::env::temp_dir().join(format!("magpie-bench-dist-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("dimacs")).unwrap();
    std::fs::write(dir.join("dimacs/g1.clq"), "p edge 1 0\n").unwrap();
    let a = parse_app("uts-T1", Some(5000), 2, &dir).unwrap();
    assert_eq!(
        a.args,
        strings(&words(
            "search uts --tree T1 --skeleton budget --budget 5000 --distributed"
        ))
    );
    let a = parse_app("uts-d7", None, 2, &dir).unwrap();
    assert_eq!(
        a.args[2..4],
        strings(&["--flags", "-t 1 -a 3 -d 7 -b 4 -r 19"])
    );
    let a = parse_app("ns-34", None, 2, &dir).unwrap();
    assert_eq!(
        a.args,
        strings(&words(
            "search ns --genus 34 --skeleton budget --distributed"
        ))
    );
    let a = parse_app("maxclique-g1", None, 3, &dir).unwrap();
    assert_eq!(a.args[1], "maxclique");
    assert!(a.args[2].ends_with("g1.clq"));
    assert_eq!(
        a.args[3..],
        strings(&words(
            "--skeleton depth-bounded --spawn-depth 3 --distributed"
        ))
    );
    assert!(parse_app("g2", None, 2, &dir)
        .unwrap_err()
        .contains("missing instance dimacs/g2.clq"));
    assert!(parse_app("ns-x", None, 2, &dir).is_err());
    assert!(parse_app("uts-", None, 2, &dir).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
    // The repository's test data has the small graphs the suite names.
    for name in ["brock200_1", "brock200_4"] {
        parse_app(name, None, 2, &magpie_apps::testdata::dir()).unwrap();
    }
}

/// Captured from `mpirun -np 2 magpie search uts --tree T3 --skeleton budget
/// --distributed --workers 1 --json` (after a line of other output).
const SEARCH_SAMPLE: &str = r#"some other line
{"app":"uts","instance":"T3","flags":"-t 0 -b 2000 -q 0.124875 -m 8 -r 42","nodes":4112897,"leaves":3599034,"depth":1572,"check":"the published counts of T3","skeleton":"budget","skeleton_params":{"budget":10000},"max_depth":null,"workers":1,"deque":"lcws-user","seconds":0.373404514,"expanded":4112897,"stats":{"expanded":4112897,"pruned":0,"backtracks":0,"tasks":484,"steals":484,"per_worker":[4083965,28932],"seconds":0.373404514},"ranks_count":2,"remote_victims":"random","ranks":[{"rank":0,"workers":1,"nodes":4083965,"tasks_sent":484,"tasks_received":0,"requests_sent":1,"requests_received":486,"steals_ok":0,"steals_failed":0,"bytes_sent":25168,"bytes_received":0,"bounds_sent":0,"bounds_received":0,"busy_seconds":0.372297485,"idle_seconds":0.000030715},{"rank":1,"workers":1,"nodes":28932,"tasks_sent":0,"tasks_received":484,"requests_sent":487,"requests_received":1,"steals_ok":484,"steals_failed":2,"bytes_sent":0,"bytes_received":25168,"bounds_sent":0,"bounds_received":0,"busy_seconds":0.002731757,"idle_seconds":0.297557915}],"nodes_cov":0.9859310845858771}
"#;

const LOOP_SAMPLE: &str = r#"{"app":"dist","time_s":0.5,"cov":0.031,"ranks":[{"rank":0,"steals_ok":2},{"rank":1,"steals_ok":5}]}"#;

#[test]
fn json_of_the_children() {
    let s = parse_output(Kind::Search, SEARCH_SAMPLE).unwrap();
    // serde_json's default float parsing may be off by one ulp.
    assert!((s.time - 0.373_404_514).abs() < 1e-12, "{s:?}");
    assert_eq!(s.expanded, Some(4_112_897.0));
    assert!(
        (s.cov.unwrap() - 0.985_931_084_585_877).abs() < 1e-12,
        "{s:?}"
    );
    assert_eq!(s.steals, None);
    let l = parse_output(Kind::Loop, LOOP_SAMPLE).unwrap();
    assert_eq!(
        l,
        Sample {
            time: 0.5,
            expanded: None,
            cov: Some(0.031),
            steals: Some(7.0)
        }
    );
    assert!(parse_output(Kind::Search, "no json\n")
        .unwrap_err()
        .contains("no JSON"));
    assert!(parse_output(Kind::Search, LOOP_SAMPLE)
        .unwrap_err()
        .contains("`seconds`"));
    assert!(parse_output(Kind::Loop, r#"{"time_s":1.0,"cov":0.1}"#)
        .unwrap_err()
        .contains("`ranks`"));
}

fn contender(name: &str, times: &[f64]) -> Contender {
    Contender {
        name: name.into(),
        ranks: 4,
        workers: 1,
        argv: Vec::new(),
        samples: times
            .iter()
            .map(|&time| Sample {
                time,
                expanded: None,
                cov: None,
                steals: None,
            })
            .collect(),
        failed: false,
    }
}

fn launcher(mpirun: &str, timeout: Duration) -> Launcher {
    Launcher {
        mpirun: mpirun.into(),
        bin: PathBuf::from("/x/magpie"),
        as_root: true,
        timeout,
        remove_env: vec!["MAGPIE_DEQUE".into()],
    }
}

#[test]
fn command_lines() {
    let l = launcher("mpirun", Duration::from_secs(1));
    let argv = l.argv(2, 1, &strings(&["search", "ns"]));
    assert_eq!(
        argv,
        strings(&words(
            "--oversubscribe --bind-to none --allow-run-as-root -np 2 \
             /x/magpie search ns --workers 1 --json"
        ))
    );
    assert_eq!(l.show(&strings(&["a b", "c"])), "mpirun 'a b' c");
    let c = l.command(&argv);
    assert!(c
        .get_envs()
        .any(|(k, v)| k == "MAGPIE_DEQUE" && v.is_none()));
}

#[test]
fn failing_children_are_errors() {
    let sh = launcher("sh", Duration::from_secs(20));
    let out = sh.run(&strings(&["-c", "echo '{\"seconds\":1}'"])).unwrap();
    assert_eq!(out.trim(), "{\"seconds\":1}");
    let e = sh
        .run(&strings(&["-c", "echo 'magpie: error: boom' >&2; exit 3"]))
        .unwrap_err();
    assert!(
        e.contains("exit status: 3") && e.contains("magpie: error: boom"),
        "{e}"
    );
    let quick = launcher("sh", Duration::from_millis(100));
    let start = Instant::now();
    let e = quick.run(&strings(&["-c", "sleep 30"])).unwrap_err();
    assert!(e.contains("--timeout"), "{e}");
    assert!(start.elapsed() < Duration::from_secs(15));
}

#[test]
fn stderr_excerpt() {
    let banner = "------\nmpirun detected that one or more processes exited\n------\n";
    let e = format!("{banner}error: unexpected argument '--distributed' found\n  tip: x\n");
    assert_eq!(
        stderr_tail(&e),
        "; stderr: error: unexpected argument '--distributed' found"
    );
    assert_eq!(
        stderr_tail(banner),
        "; stderr: mpirun detected that one or more processes exited"
    );
    assert_eq!(stderr_tail(""), "");
    let twice = "magpie: error: x\nmagpie: error: x\n---\nmpirun: error y\n";
    assert_eq!(
        stderr_tail(twice),
        "; stderr: magpie: error: x | mpirun: error y"
    );
}

#[test]
fn reduction_and_welch() {
    assert!((reduction_pct(10.0, 9.0) - 10.0).abs() < 1e-12);
    assert!((reduction_pct(37_651.0, 34_903.0) - 7.298).abs() < 1e-3);
    assert!(reduction_pct(1.0, 2.0) < 0.0);
    let perf = contender("perf", &[2.0, 4.0, 6.0, 8.0, 10.0]);
    let random = contender("random", &[1.0, 2.0, 3.0, 4.0, 5.0]);
    let row = compare_row("ns-34", Load::Isolated, &perf, &random).unwrap();
    // Medians 6 and 3: the candidate is twice as slow.
    assert_eq!(row.reduction_pct, -100.0);
    // Welch by hand: t = 3 / sqrt(2.5), p = 0.1075312 (see magpie_measure::stats).
    assert!((row.welch_t.unwrap() - 3.0 / 2.5f64.sqrt()).abs() < 1e-12);
    assert!((row.welch_p.unwrap() - 0.107_531_2).abs() < 1e-6);
    let mut failed = contender("sticky", &[1.0, 2.0]);
    failed.failed = true;
    assert!(compare_row("x", Load::Contended, &perf, &failed).is_none());
    assert!(
        compare_row("x", Load::Isolated, &perf, &contender("one", &[1.0]))
            .unwrap()
            .welch_t
            .is_none()
    );
}

#[test]
fn plot_draws_the_time_rows_of_every_kind_of_report() {
    // The rows as the suite makes them (no MPI needed): a ratio, a comparison and an
    // error are left out of the pictures; the loops at 2 and 4 ranks give the speedup.
    let time = |experiment: &str, contender: &str, ranks: u32, times: &[f64]| {
        Row::Time(TimeRow {
            experiment: experiment.into(),
            app: "exponential".into(),
            load: String::new(),
            contender: contender.into(),
            ranks,
            workers: 1,
            median_s: stats::median(times),
            min_s: times[0],
            max_s: times[times.len() - 1],
            times_s: times.to_vec(),
            expanded: None,
            cov: Some(0.1),
            steals: Some(3.0),
        })
    };
    let perf = contender("perf", &[2.0, 4.0]);
    let rows = vec![
        time("loops", "steal", 2, &[0.8, 0.9]),
        time("loops", "steal", 4, &[0.4, 0.5]),
        Row::Ratio(RatioRow {
            experiment: "loops".into(),
            app: "exponential@2".into(),
            ratio_of: "steal/share".into(),
            ratio: 0.9,
            target: None,
            met: None,
        }),
        Row::Compare(compare_row("ns-20", Load::Isolated, &perf, &perf).unwrap()),
        Row::Error(ErrorRow {
            experiment: "overhead".into(),
            app: "uts-d7".into(),
            contender: "2x1".into(),
            command: "mpirun …".into(),
            error: "exited with 1".into(),
        }),
    ];
    let value = serde_json::to_value(&rows).unwrap();
    let runs = magpie_measure::plot::Runs::from_value(&value).unwrap();
    assert_eq!(runs.source, "magpie-bench distributed");
    assert_eq!(runs.samples.len(), 2);
    let curves = runs.speedups();
    assert_eq!(curves.len(), 1);
    // Relative to 2 ranks: the median at 2 over the median at 4 (0.85 / 0.45).
    let at4 = stats::median(&[0.8, 0.9]) / stats::median(&[0.4, 0.5]);
    assert!((at4 - 0.85 / 0.45).abs() < 1e-12);
    assert_eq!(curves[0].points, [(2, 1.0), (4, at4)]);
    let dir = std::env::temp_dir().join(format!("magpie-bench-dist-plot-{}", std::process::id()));
    let written = magpie_measure::plot::plot_report(&rows, &dir).unwrap();
    assert_eq!(written, [dir.join("runtimes.png"), dir.join("speedup.png")]);
    assert!(written.iter().all(|p| p.is_file()));
    std::fs::remove_dir_all(&dir).unwrap();
}
