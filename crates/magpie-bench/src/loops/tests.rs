use super::*;
use clap::Parser;

/// The words of `line` as arguments (`words("--quick --runs 1")`).
fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

#[derive(Debug, Parser)]
struct Cli {
    #[command(flatten)]
    args: LoopsArgs,
}

fn args(extra: &[&str]) -> LoopsArgs {
    let mut argv = vec!["loops"];
    argv.extend_from_slice(extra);
    Cli::try_parse_from(argv).expect("valid arguments").args
}

#[test]
fn quick_suite_runs_and_checks_every_configuration() {
    let a = args(&words(
        "--quick --runs \
         1 --apps mandelbrot,constant,uniform,normal,exponential,gamma",
    ));
    let (rows, text, failed) = measure(&a).expect("the suite runs and every result checks");
    assert!(failed.is_empty(), "{failed:?}");
    let schedules = DEFAULT_SCHEDULES.split(';').count();
    let omp = DEFAULT_OMP.split(';').count();
    let per_app = 2 + schedules + omp + 1;
    assert_eq!(rows.len(), 6 * per_app, "{text}");
    for app in ["mandelbrot", "constant", "exponential"] {
        let of_app: Vec<&Row> = rows.iter().filter(|r| r.app == app).collect();
        assert_eq!(of_app.len(), per_app, "{app}");
        for want in ["ss,1", "ss,64", "rws,fac2", "expert-sel", "static"] {
            assert!(
                of_app
                    .iter()
                    .any(|r| r.kind == "magpie" && r.config == want),
                "{app}: no magpie {want} row"
            );
        }
        for want in ["static", "dynamic,1", "dynamic,64", "guided"] {
            assert!(
                of_app
                    .iter()
                    .any(|r| r.kind == "openmp" && r.config == want),
                "{app}: no OpenMP {want} row"
            );
        }
    }
    for r in &rows {
        assert!(r.checked && r.runs == 1, "{r:?}");
        assert!(
            r.median_s > 0.0 && r.post_warmup_median_s <= r.median_s,
            "{r:?}"
        );
        assert_eq!((r.steps, r.warmup_steps), (4, 2));
        match r.kind {
            "magpie" => {
                assert!(r.chunks.unwrap() >= 4.0, "{r:?}");
                assert!(r.cov.is_some() && r.post_vs_best_fixed.is_some(), "{r:?}");
                assert!(r.vs_best_openmp.is_some() && r.vs_best_fixed.is_some());
            }
            "openmp" => assert!(r.cov.is_some() && r.chunks.is_none(), "{r:?}"),
            _ => assert!(r.cov.is_none(), "{r:?}"),
        }
        assert_eq!(r.selector, SELECTORS.contains(&r.config.as_str()));
    }
    assert!(text.contains("best fixed magpie"));
    assert_eq!(text.matches("expert-sel post-warm-up").count(), 6);
}

#[test]
fn rows_keep_every_run_and_plot_draws_them() {
    let dir = std::env::temp_dir().join(format!("magpie-bench-plot-{}", std::process::id()));
    let a = args(&[
        "--quick",
        "--runs",
        "3",
        "--apps",
        "constant",
        "--workers",
        "1,2",
        "--schedules",
        "static;gss",
        "--peers",
        "seq-rust",
        "--plot",
        dir.to_str().unwrap(),
    ]);
    let (rows, _, failed) = measure(&a).expect("the suite runs");
    assert!(failed.is_empty(), "{failed:?}");
    // sequential-rust once, magpie static and gss at 1 and 2 workers.
    assert_eq!(rows.len(), 5);
    for r in &rows {
        assert_eq!(r.times_s.len(), 3, "{r:?}");
        assert_eq!(
            r.median_s,
            magpie_measure::stats::median(&r.times_s),
            "{r:?}"
        );
    }
    crate::plot_pictures(&rows, a.plot.as_deref()).expect("pictures written");
    for name in ["runtimes.png", "speedup.png"] {
        let png = std::fs::read(dir.join(name)).expect(name);
        assert!(png.starts_with(b"\x89PNG"), "{name}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn chunk_placeholder_and_parse_errors() {
    assert_eq!(with_chunk("ss,k", 7), "ss,7");
    assert_eq!(with_chunk("ss,1", 7), "ss,1");
    assert_eq!(with_chunk("gss", 7), "gss");
    let s = magpie_schedules(&["ss,k".into(), " fac2 ".into(), String::new()], 9).unwrap();
    assert_eq!(
        s,
        [
            ("ss,9".to_string(), Schedule::Ss { chunk: 9 }),
            ("fac2".to_string(), Schedule::Fac2 { min_chunk: 1 })
        ]
    );
    assert!(magpie_schedules(&["fastest".into()], 1).is_err());
    let o = omp_schedules(&["dynamic,k".into(), "guided".into(), "none".into()], 5).unwrap();
    assert_eq!(o, [(OmpSchedule::Dynamic, 5), (OmpSchedule::Guided, 0)]);
    assert!(omp_schedules(&["auto".into()], 1).is_err());
    assert!(omp_schedules(&["static,0".into()], 1).is_err());
}

#[test]
fn bad_options_are_errors() {
    assert!(measure(&args(&["--quick", "--workers", "0"])).is_err());
    assert!(measure(&args(&["--quick", "--steps", "2", "--warmup", "2"])).is_err());
    assert!(measure(&args(&["--quick", "--peers", "openmp"])).is_err());
    let e = measure(&args(&["--quick", "--apps", "poisson"]))
        .err()
        .unwrap();
    assert!(e.contains("poisson"), "{e}");
}

#[test]
fn a_wrong_result_is_an_error_naming_the_configuration() {
    let a = args(&words("--quick --schedules ss,k --peers rayon --omp none"));
    let schedules = magpie_schedules(&a.schedules, a.chunk).unwrap();
    let peer = |p: &str| a.peers.iter().any(|q| q == p);
    let pools = Pools::new(&a.workers).unwrap();
    let bar = RunsBar::new(magpie_measure::progress::Mode::Off, "test", 2);
    for name in ["mandelbrot", "exponential"] {
        let mut app = build_app(name, &a, 3).unwrap();
        let mut configs = configurations(&a, &schedules, &[], &peer);
        assert!(rounds(&app, &mut configs, 1, 1, &pools, &bar)
            .unwrap()
            .is_empty());
        match &mut app.reference {
            LoopOutput::Image(image) => image[0] ^= 1,
            LoopOutput::Sum(sum) => *sum ^= 1,
            other => unreachable!("{other:?}"),
        }
        let mut configs = configurations(&a, &schedules, &[], &peer);
        let e = rounds(&app, &mut configs, 1, 1, &pools, &bar).unwrap_err();
        assert!(
            e.contains(&format!("{name} on magpie ss,64 (2 worker(s))")),
            "{e}"
        );
        assert!(e.contains("warm-up"), "{e}");
    }
}

#[test]
fn a_subset_of_rows() {
    let a = args(&words(
        "--quick --runs 2 --apps gamma:k=4 --schedules ss,k;awf-c --omp \
         none --peers seq-c --chunk 16 --steps 3 --warmup 1",
    ));
    let (rows, _, _) = measure(&a).unwrap();
    let names: Vec<(&str, &str)> = rows.iter().map(|r| (r.kind, r.config.as_str())).collect();
    assert_eq!(
        names,
        [
            ("sequential-c", ""),
            ("magpie", "ss,16"),
            ("magpie", "awf-c")
        ]
    );
    assert!(rows.iter().all(|r| r.app == "gamma:k=4" && r.runs == 2));
    assert!(rows.iter().all(|r| r.vs_best_openmp.is_none()));
}
