use super::*;
use serde_json::Value;
use std::path::Path;

fn program(name: &str) -> &'static Program {
    PROGRAMS.iter().find(|p| p.name == name).unwrap()
}

#[test]
fn schedules_parse_with_either_separator_and_chunks_attach() {
    let s = parse_schedules("static,dynamic,64;fac2; guided,8").unwrap();
    let shown: Vec<String> = s.iter().map(Schedule::to_string).collect();
    assert_eq!(shown, ["static", "dynamic,64", "fac2", "guided,8"]);
    assert!(s[0].is_standard() && !s[2].is_standard());
    for (bad, error) in [
        ("64", "follows no schedule"),
        ("dynamic,0", "at least 1"),
        ("dynamic,1,2", "follows no schedule"),
        ("bogus", "unknown schedule bogus"),
        ("fac2;FAC2", "twice"),
    ] {
        assert!(parse_schedules(bad).unwrap_err().contains(error), "{bad}");
    }
    let all = parse_schedules(DEFAULT_SCHEDULES).unwrap();
    assert_eq!(all.len(), 4 + MAGPIE_SCHEDULES.len());
}

#[test]
fn items_and_their_runtimes() {
    let schedules = parse_schedules("static;fac2").unwrap();
    let mut sets = BTreeMap::new();
    sets.insert("fib".to_string(), vec!["n=20".to_string()]);
    let items = items(
        &[program("overheads"), program("dist"), program("fib")],
        &["barrier".into(), "task".into()],
        &schedules,
        &sets,
    );
    let labels: Vec<String> = items.iter().map(Item::label).collect();
    assert_eq!(
        labels,
        [
            "overheads construct=barrier",
            "overheads construct=task",
            "dist OMP_SCHEDULE=static",
            "dist OMP_SCHEDULE=fac2",
            "fib n=20"
        ]
    );
    let all = [Runtime::Libgomp, Runtime::Libomp, Runtime::Magpie];
    assert_eq!(items[2].runtimes(&all), all);
    assert_eq!(items[3].runtimes(&all), [Runtime::Magpie]);
    assert!(items[3].runtimes(&[Runtime::Libgomp]).is_empty());
    assert_eq!(items[2].check_group(), items[3].check_group());
}

/// A failure's command line is the child's environment and arguments as it was run.
#[test]
fn a_child_s_command_line_shows_its_environment_and_arguments() {
    let schedules = parse_schedules("fac2").unwrap();
    let items = items(&[program("dist")], &[], &schedules, &BTreeMap::new());
    let bin = Path::new("/b/dist");
    assert_eq!(
        exec::command_line(&items[0], bin, 4, Some(Path::new("/l/m.so")), true),
        "OMP_NUM_THREADS=4 OMP_SCHEDULE=fac2 LD_PRELOAD=/l/m.so /b/dist --quick"
    );
    assert_eq!(
        exec::command_line(&items[0], bin, 2, None, false),
        "OMP_NUM_THREADS=2 OMP_SCHEDULE=fac2 /b/dist"
    );
}

#[test]
fn a_program_s_line_parses_and_its_library_is_checked() {
    let out = "noise\n{\"program\":\"overheads\",\"params\":{\"construct\":\"task\"},\
                   \"threads\":2,\"seconds\":0.25,\"check\":\"ok\",\"omp_lib\":\"/lib/libgomp.so.1\",\
                   \"schedule\":\"dynamic,1\",\"overhead_us\":1.5}\n";
    let s = parse_output(out, program("overheads"), 3).unwrap();
    assert_eq!((s.round, s.value, s.seconds), (3, 1.5, 0.25));
    assert_eq!(s.schedule_reported, "dynamic,1");
    assert_eq!(s.params["construct"], "task");
    let fib = parse_output(&out.replace("overheads", "fib"), program("fib"), 1).unwrap();
    assert_eq!(fib.value, 0.25);
    assert!(parse_output(out, program("fib"), 1)
        .unwrap_err()
        .contains("not fib's"));
    assert!(parse_output("", program("fib"), 1)
        .unwrap_err()
        .contains("no JSON line"));
    assert!(
        parse_output(&format!("{out}{out}"), program("overheads"), 1)
            .unwrap_err()
            .contains("2 JSON lines")
    );
    assert!(check_identity(None, "/lib/libgomp.so.1").is_ok());
    assert!(check_identity(None, "/usr/lib/libomp.so")
        .unwrap_err()
        .contains("not libgomp"));
    let lib = Path::new("/nonexistent/libmagpie_omp.so");
    assert!(check_identity(Some(lib), "/nonexistent/libmagpie_omp.so").is_ok());
    assert!(check_identity(Some(lib), "/lib/libgomp.so.1")
        .unwrap_err()
        .contains("did not take effect"));
}

fn row(runtime: &'static str, schedule: &str, values: &[f64]) -> Row {
    let item = Item {
        program: program("dist"),
        params: Vec::new(),
        schedule: Some(parse_schedules(schedule).unwrap().remove(0)),
    };
    let rt = match runtime {
        "libgomp" => Runtime::Libgomp,
        "libomp" => Runtime::Libomp,
        _ => Runtime::Magpie,
    };
    let samples: Vec<Sample> = values
        .iter()
        .enumerate()
        .map(|(i, &v)| Sample {
            round: i as u32 + 1,
            value: v,
            seconds: v,
            check: "0x1".into(),
            omp_lib: "lib".into(),
            schedule_reported: schedule.into(),
            params: Value::Null,
            stderr: String::new(),
        })
        .collect();
    summarize(&item, 2, rt, &samples)
}

#[test]
fn rows_ratios_and_best_schedules() {
    let rows = vec![
        row("libgomp", "static", &[1.0, 1.0, 1.0]),
        row("libgomp", "dynamic", &[0.8, 0.8, 0.8]),
        row("libomp", "static", &[0.9, 0.9, 0.9]),
        row("magpie", "static", &[0.5, 0.6, 0.4]),
        row("magpie", "fac2", &[0.4, 0.4, 0.4]),
    ];
    assert_eq!(rows[3].median, 0.5);
    assert_eq!((rows[3].min, rows[3].max), (0.4, 0.6));
    let [lo, hi] = rows[3].mean_ci95.unwrap();
    assert!(lo < 0.5 && hi > 0.5);
    let r = ratios(&rows);
    // magpie static against libgomp's and libomp's static; fac2 has no peer.
    assert_eq!(r.len(), 2);
    assert_eq!(r[0].ratio_of, "magpie/libgomp");
    assert_eq!(r[0].paired.ratio, Some(0.5));
    assert_eq!(r[0].paired.rounds, 3);
    let [lo, hi] = r[0].paired.ratio_ci95.unwrap();
    assert!(lo < 0.5 && hi > 0.5, "{lo} {hi}");
    assert!((r[1].paired.ratio.unwrap() - 0.5 / 0.9).abs() < 1e-12);
    let (bests, br) = best(&rows);
    let b = |rt: &str| bests.iter().find(|b| b.runtime == rt).unwrap();
    assert_eq!(
        (b("libgomp").schedule.as_str(), b("libgomp").schedules),
        ("dynamic", 2)
    );
    assert_eq!(b("magpie").schedule, "fac2");
    assert_eq!(br.len(), 1);
    assert_eq!(
        (br[0].peer_runtime, br[0].peer_schedule.as_str()),
        ("libgomp", "dynamic")
    );
    assert!((br[0].paired.ratio.unwrap() - 0.5).abs() < 1e-12);
    let [lo, hi] = br[0].paired.ratio_ci95.unwrap();
    assert!(
        (lo - 0.5).abs() < 1e-12 && (hi - 0.5).abs() < 1e-12,
        "{lo} {hi}"
    );
    // A non-positive value (an overhead lost in the noise) leaves its round out.
    let neg = row("magpie", "static", &[-0.1, 0.5, 0.5]);
    let Paired { ratio, rounds, .. } = paired_ratio(&neg, &rows[0]);
    assert_eq!((ratio, rounds), (Some(0.5), 2));
    let neg = row("magpie", "static", &[-0.1, -0.2, 0.5]);
    let Paired {
        ratio,
        ratio_ci95: ci,
        rounds,
        ..
    } = paired_ratio(&neg, &rows[0]);
    assert_eq!((ratio, ci, rounds), (None, None, 1));
    assert_eq!(fmt_ratio_ci(ratio, ci), "n/a");
    assert_eq!(
        fmt_ratio_ci(Some(0.5), Some([1e-4, 76883.9])),
        "0.500 [0.000–7.69e4]"
    );
}

/// A stand-in for every program: a shell script printing one JSON line whose `omp_lib`
/// is $LD_PRELOAD (or libgomp's), its `seconds` 0.5 under magpie and 1.0 otherwise; under
/// magpie with OMP_SCHEDULE=fac2 it fails with a message on stderr.
fn fake_bin_dir(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for p in PROGRAMS {
        let metric = if p.kind == Kind::Overheads {
            r#",\"overhead_us\":$s"#
        } else {
            ""
        };
        let script = format!(
            r#"#!/bin/sh
lib=${{LD_PRELOAD:-/lib/x86_64-linux-gnu/libgomp.so.1}}
s=1.0
case "$lib" in *magpie*) s=0.5
  if [ "$OMP_SCHEDULE" = fac2 ]; then echo "magpie: fac2 exploded" >&2; exit 3; fi ;; esac
echo "{{\"program\":\"{name}\",\"params\":{{}},\"threads\":$OMP_NUM_THREADS,\"seconds\":$s,\"check\":\"42\",\"omp_lib\":\"$lib\",\"schedule\":\"${{OMP_SCHEDULE:-none}}\"{metric}}}"
"#,
            name = p.name,
        );
        let path = dir.join(p.name);
        std::fs::write(&path, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

fn args(dir: &Path) -> OmpProgramArgs {
    OmpProgramArgs {
        bin_dir: dir.join("bin"),
        magpie_lib: dir.join("libmagpie_omp.so"),
        libomp: dir.join("libomp.so").display().to_string(),
        runtimes: vec![Runtime::Libgomp, Runtime::Libomp, Runtime::Magpie],
        threads: vec![1, 2],
        rounds: 2,
        schedules: Some("static;fac2".into()),
        programs: vec!["overheads".into(), "dist".into(), "fib".into()],
        constructs: vec!["barrier".into()],
        sets: Vec::new(),
        quick: true,
        json: Some(dir.join("out.json")),
        summary: Some(dir.join("out.md")),
        timeout: 60,
    }
}

#[test]
fn the_subcommand_runs_every_runtime_and_reports_failures_with_their_stderr() {
    let dir = std::env::temp_dir().join(format!("omp-program-{}", std::process::id()));
    fake_bin_dir(&dir.join("bin"));
    std::fs::write(dir.join("libomp.so"), "").unwrap();
    std::fs::write(dir.join("libmagpie_omp.so"), "").unwrap();
    let a = args(&dir);
    let e = run(&a).unwrap_err();
    // fac2 under magpie fails at both thread counts (once each: not re-run).
    assert!(e.contains("2 configuration(s) failed"), "{e}");
    assert!(e.contains("OMP_SCHEDULE=fac2"), "{e}");
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out.json")).unwrap()).unwrap();
    let rows = v["rows"].as_array().unwrap();
    // (overheads barrier, dist static, fib) × 2 thread counts × 3 runtimes.
    assert_eq!(rows.len(), 18, "{rows:#?}");
    assert!(rows.iter().all(|r| r["runs"] == 2));
    let ratios = v["ratios"].as_array().unwrap();
    assert_eq!(ratios.len(), 12);
    assert!(ratios.iter().all(|r| r["ratio"].as_f64() == Some(0.5)));
    let f = &v["failures"][0];
    assert_eq!(f["runtime"], "magpie");
    assert_eq!(f["schedule"], "fac2");
    // (ld.so says first that the empty stand-in library cannot be preloaded.)
    assert!(f["stderr"]
        .as_str()
        .unwrap()
        .ends_with("magpie: fac2 exploded"));
    assert!(f["error"].as_str().unwrap().contains("status 3"));
    assert_eq!(v["best_ratios"][0]["ratio"].as_f64(), Some(0.5));
    assert_eq!(v["runtimes"][1]["available"], true);
    let md = std::fs::read_to_string(dir.join("out.md")).unwrap();
    assert!(
        md.contains("magpie: fac2 exploded") && md.contains("## Failures (2)"),
        "{md}"
    );
    assert!(
        md.contains("| overheads | construct=barrier |  | 1 | 1.00 | 1.00 | 0.50 |"),
        "{md}"
    );

    // Without the libraries: libgomp only, the others skipped with their reasons.
    std::fs::remove_file(dir.join("libmagpie_omp.so")).unwrap();
    let mut a = args(&dir);
    a.libomp = "none".into();
    a.schedules = Some("static".into());
    run(&a).unwrap();
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out.json")).unwrap()).unwrap();
    assert_eq!(v["rows"].as_array().unwrap().len(), 6);
    assert_eq!(v["runtimes"][1]["reason"], "--libomp none");
    assert!(v["runtimes"][2]["reason"]
        .as_str()
        .unwrap()
        .contains("does not exist"));

    // A preload that does not take effect is a failure, not a row.
    std::fs::write(dir.join("libmagpie_omp.so"), "").unwrap();
    let script = dir.join("bin/fib");
    let text = std::fs::read_to_string(&script).unwrap();
    std::fs::write(
        &script,
        text.replace("lib=${LD_PRELOAD:-", "lib=${NOTHING:-"),
    )
    .unwrap();
    let mut a = args(&dir);
    a.programs = vec!["fib".into()];
    a.threads = vec![1];
    let e = run(&a).unwrap_err();
    assert!(e.contains("did not take effect"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
