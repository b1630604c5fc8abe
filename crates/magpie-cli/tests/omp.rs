//! `magpie omp` and the libgomp.so.1 form of libmagpie_omp, end to end: a C OpenMP program
//! compiled here with `gcc -fopenmp` runs through `magpie omp --`, through
//! `LD_LIBRARY_PATH=target/<profile>/magpie-omp` and (the fall-back) under `LD_PRELOAD`,
//! and reports its answer, which file its `GOMP_parallel` and `omp_get_num_threads` are
//! bound to (`dladdr` of their addresses in a PIE: the loader's bindings) and which runtime
//! files are mapped (`/proc/self/maps`).
//!
//! The library is built here with `cargo build -p magpie-omp` for this test's own profile
//! and target folder (both read from the path of the `magpie` binary under test): `cargo
//! test` builds test binaries, not necessarily the cdylib, and this works the same from a
//! clean clone, with a shared `CARGO_TARGET_DIR` or with `--target`. gcc is required: without
//! it the tests fail with one line naming the package, they never skip.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

mod common;
use common::text;

/// The probe: its answer, its team size, the files its `GOMP_parallel` and
/// `omp_get_num_threads` come from, the mapped files of OpenMP runtimes; it exits with the
/// status given as its argument.
const PROBE_C: &str = r#"#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libgomp's entry point for `parallel` (not declared in omp.h). */
void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);

/* The file defining the function at `f`. */
static const char *file_of(void *f) {
    Dl_info info;
    return dladdr(f, &info) && info.dli_fname ? info.dli_fname : "?";
}

int main(int argc, char **argv) {
    int status = argc > 1 ? atoi(argv[1]) : 0;
    long n = 100000, sum = 0;
    int members = 0;
#pragma omp parallel reduction(+ : members)
    members += 1;
#pragma omp parallel for schedule(runtime) reduction(+ : sum)
    for (long i = 1; i <= n; i++)
        sum += i;
    printf("sum %ld\n", sum);
    printf("members %d\n", members);
    /* In a PIE these addresses come from the program's GOT, bound by the loader exactly
       as its calls are (versioned references to libgomp.so.1). */
    printf("GOMP_parallel %s\n", file_of((void *)&GOMP_parallel));
    printf("omp_get_num_threads %s\n", file_of((void *)&omp_get_num_threads));
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096];
    while (maps && fgets(line, sizeof line, maps)) {
        char *path = strchr(line, '/');
        if (path && (strstr(path, "libgomp") || strstr(path, "magpie_omp")))
            printf("mapped %s", path);
    }
    return status;
}
"#;

/// What every test uses: the library built for this profile and the compiled probe.
struct Setup {
    /// `libmagpie_omp.so` next to the `magpie` binary under test (canonical).
    lib: PathBuf,
    /// The folder holding the libgomp.so.1 form (`magpie-omp/`).
    shim_dir: PathBuf,
    /// The compiled probe.
    probe: PathBuf,
    /// This process's scratch folder.
    work: PathBuf,
}

fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| {
        let work = scratch_dir();
        let probe = compile_probe(&work);
        let profile_dir = build_library();
        let lib = profile_dir.join("libmagpie_omp.so");
        let shim_dir = profile_dir.join("magpie-omp");
        assert!(
            shim_dir.join("libgomp.so.1").is_file(),
            "cargo build -p magpie-omp made no {}/libgomp.so.1",
            shim_dir.display()
        );
        Setup {
            lib: lib.canonicalize().expect("the built library"),
            shim_dir: shim_dir
                .canonicalize()
                .expect("the libgomp.so.1 form's folder"),
            probe,
            work,
        }
    })
}

/// A fresh scratch folder for this process under cargo's test tmp folder; those of
/// processes no longer running are removed.
fn scratch_dir() -> PathBuf {
    let base = Path::new(env!("CARGO_TARGET_TMPDIR"));
    if let Ok(entries) = std::fs::read_dir(base) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(pid) = name.strip_prefix("magpie-cli-omp-") {
                if !Path::new("/proc").join(pid).exists() {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
    }
    let dir = base.join(format!("magpie-cli-omp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("creates the scratch folder");
    dir
}

/// `gcc -O2 -fopenmp` of the probe; one line naming the package when gcc is missing.
fn compile_probe(work: &Path) -> PathBuf {
    let src = work.join("probe.c");
    std::fs::write(&src, PROBE_C).expect("writes probe.c");
    let probe = work.join("probe");
    let out = Command::new("gcc")
        // A PIE, so that the probe's function addresses are the loader's bindings.
        .args(["-O2", "-fopenmp", "-Wall", "-fPIE", "-pie", "-o"])
        .arg(&probe)
        .arg(&src)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "gcc cannot be run ({e}): this test compiles an OpenMP program; install the \
                 package gcc (Debian/Ubuntu: apt-get install gcc)"
            )
        });
    assert!(
        out.status.success(),
        "gcc -fopenmp failed (it needs GCC's OpenMP support, Debian package gcc):\n{}",
        text(&out.stderr)
    );
    probe
}

/// `cargo build -p magpie-omp` for the profile and target folder of the `magpie` binary
/// under test (`<target>/<profile>/magpie` or `<target>/<triple>/<profile>/magpie`); returns
/// its `<profile>` folder.
fn build_library() -> PathBuf {
    let exe = Path::new(env!("CARGO_BIN_EXE_magpie"));
    let profile_dir = exe.parent().expect("the binary's folder").to_path_buf();
    let dir_name = profile_dir
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    // cargo's output folder for the `dev` and `test` profiles is `debug`, and `bench`'s is
    // `release`; every other profile's is its name.
    let profile = match dir_name.as_str() {
        "debug" => "dev".to_string(),
        other => other.to_string(),
    };
    let is_target = |d: &Path| d.join("CACHEDIR.TAG").is_file();
    let parent = profile_dir.parent().expect("the target folder");
    let (target_dir, triple) = if is_target(parent) {
        (parent.to_path_buf(), None)
    } else {
        let grand = parent
            .parent()
            .filter(|g| is_target(g))
            .unwrap_or_else(|| panic!("{} is not in a cargo target folder", exe.display()));
        (grand.to_path_buf(), parent.file_name())
    };
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml");
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "-p", "magpie-omp", "--profile", &profile])
        .arg("--manifest-path")
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&target_dir);
    if let Some(t) = triple {
        cmd.arg("--target").arg(t);
    }
    let out = cmd.output().expect("runs cargo");
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        text(&out.stderr)
    );
    profile_dir
}

/// A command with none of the caller's OpenMP, preload or magpie settings.
fn clean(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut cmd = Command::new(program);
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy();
        if k.starts_with("OMP_") || k.starts_with("GOMP_") || k.starts_with("MAGPIE_") {
            cmd.env_remove(&*k);
        }
    }
    cmd.env_remove("LD_PRELOAD");
    cmd
}

/// `magpie ARGS` (see [`clean`]).
fn magpie(args: &[&str]) -> Command {
    let mut cmd = clean(env!("CARGO_BIN_EXE_magpie"));
    cmd.args(args);
    cmd
}

/// A finished run: status and output.
struct Run {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

/// Runs `cmd` to completion, killing it (and failing) after 60 s: a hang is a failure, not
/// a stuck test run.
fn run(mut cmd: Command) -> Run {
    let shown = format!("{cmd:?}");
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{shown}: {e}"));
    let pipe = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            let _ = r.read_to_end(&mut s);
            text(&s)
        })
    };
    let out = pipe(Box::new(child.stdout.take().unwrap()));
    let err = pipe(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("waits") {
            break s;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{shown}: no exit within 60 s");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Run {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

/// What the probe reported.
#[derive(Debug)]
struct Report {
    sum: i64,
    members: i64,
    /// The file the program's `GOMP_parallel` is bound to (canonical).
    gomp_parallel: PathBuf,
    /// The file the program's `omp_get_num_threads` is bound to (canonical).
    omp_api: PathBuf,
    /// The mapped files named like an OpenMP runtime (canonical, as the kernel shows them).
    mapped: BTreeSet<PathBuf>,
}

fn report(r: &Run) -> Report {
    let value = |key: &str| {
        r.stdout
            .lines()
            .find_map(|l| l.strip_prefix(key).map(|v| v.trim().to_string()))
            .unwrap_or_else(|| panic!("no {key} line:\n{}\nstderr:\n{}", r.stdout, r.stderr))
    };
    let number = |key: &str| value(key).parse::<i64>().expect("a number");
    let file = |key: &str| {
        let f = value(key);
        Path::new(&f)
            .canonicalize()
            .unwrap_or_else(|e| panic!("{key}in {f:?}: {e}"))
    };
    Report {
        sum: number("sum "),
        members: number("members "),
        gomp_parallel: file("GOMP_parallel "),
        omp_api: file("omp_get_num_threads "),
        mapped: r
            .stdout
            .lines()
            .filter_map(|l| l.strip_prefix("mapped "))
            .map(|p| PathBuf::from(p.trim()))
            .collect(),
    }
}

/// The checks of a run on magpie in the libgomp.so.1 form: the right answer from `members`
/// threads, exit status `status`, `GOMP_parallel` in the library, no libgomp mapped but the
/// shim, and no message from libgomp.
fn assert_libgomp_form(what: &str, r: &Run, members: i64, status: i32) {
    let s = setup();
    let all = format!("{what}:\nstdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    assert_eq!(r.status.code(), Some(status), "{all}");
    let rep = report(r);
    assert_eq!(rep.sum, 100_000 * 100_001 / 2, "{all}");
    assert_eq!(rep.members, members, "{all}");
    assert_eq!(rep.gomp_parallel, s.lib, "{all}");
    assert_eq!(rep.omp_api, s.lib, "{all}");
    let shim = s.shim_dir.join("libgomp.so.1").canonicalize().unwrap();
    let expected: BTreeSet<PathBuf> = [s.lib.clone(), shim].into();
    assert_eq!(
        rep.mapped, expected,
        "GCC's libgomp must not be mapped: {all}"
    );
    assert!(
        !r.stderr.lines().any(|l| l.starts_with("libgomp")),
        "no message from GCC's libgomp: {all}"
    );
}

/// `magpie omp -- PROG`: the libgomp.so.1 form next to the binary; a magpie-only schedule
/// is accepted without a word from libgomp; the exit status passes through.
#[test]
fn magpie_omp_runs_the_program_in_the_libgomp_form() {
    let s = setup();
    let mut cmd = magpie(&["omp", "--"]);
    cmd.arg(&s.probe)
        .arg("7")
        .env("OMP_NUM_THREADS", "3")
        .env("OMP_SCHEDULE", "fac2");
    assert_libgomp_form("magpie omp", &run(cmd), 3, 7);
}

/// The libgomp.so.1 form without `magpie`: `LD_LIBRARY_PATH=target/<profile>/magpie-omp`.
#[test]
fn ld_library_path_alone_loads_magpie_as_libgomp() {
    let s = setup();
    for (threads, schedule, status) in [("2", "fac2", 0), ("4", "awf_b,4", 42)] {
        let mut cmd = clean(&s.probe);
        let mut path = s.shim_dir.clone().into_os_string();
        if let Some(old) = std::env::var_os("LD_LIBRARY_PATH").filter(|o| !o.is_empty()) {
            path.push(":");
            path.push(old);
        }
        cmd.arg(status.to_string())
            .env("LD_LIBRARY_PATH", path)
            .env("OMP_NUM_THREADS", threads)
            .env("OMP_SCHEDULE", schedule);
        let what = format!("LD_LIBRARY_PATH, OMP_SCHEDULE={schedule}");
        assert_libgomp_form(&what, &run(cmd), threads.parse().unwrap(), status);
    }
}

/// The global pool options reach the library: `--workers 2` is `OMP_NUM_THREADS=2`.
#[test]
fn global_workers_option_sets_the_team_size() {
    let s = setup();
    let mut cmd = magpie(&["--workers", "2", "omp", "-v"]);
    cmd.arg(&s.probe).env("OMP_NUM_THREADS", "4");
    let r = run(cmd);
    assert_libgomp_form("magpie --workers 2 omp", &r, 2, 0);
    assert!(
        r.stderr.starts_with("magpie: omp: ") && r.stderr.contains("OMP_NUM_THREADS=2"),
        "-v names the variables set: {}",
        r.stderr
    );
}

/// A library with no libgomp.so.1 form beside it is preloaded: the calls still bind to it,
/// while GCC's libgomp is loaded too and complains about magpie's schedule names (which is
/// what the libgomp.so.1 form avoids, and shows that the checks above can see it).
#[test]
fn a_library_without_its_libgomp_form_is_preloaded() {
    let s = setup();
    let alone = s.work.join("preload");
    std::fs::create_dir_all(&alone).unwrap();
    let copy = alone.join("libmagpie_omp.so");
    std::fs::copy(&s.lib, &copy).unwrap();
    let mut cmd = magpie(&["omp", "--lib"]);
    cmd.arg(&copy)
        .arg("--")
        .arg(&s.probe)
        .arg("5")
        .env("OMP_NUM_THREADS", "2")
        .env("OMP_SCHEDULE", "fac2");
    let r = run(cmd);
    let all = format!("stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    assert_eq!(r.status.code(), Some(5), "{all}");
    let rep = report(&r);
    assert_eq!(rep.sum, 100_000 * 100_001 / 2, "{all}");
    assert_eq!(rep.members, 2, "{all}");
    assert_eq!(rep.gomp_parallel, copy.canonicalize().unwrap(), "{all}");
    assert_eq!(rep.omp_api, copy.canonicalize().unwrap(), "{all}");
    assert!(
        rep.mapped
            .iter()
            .any(|p| p.to_string_lossy().contains("libgomp") && !p.starts_with(&s.shim_dir)),
        "GCC's libgomp is loaded under LD_PRELOAD: {all}"
    );
    assert!(
        r.stderr
            .contains("libgomp: Unknown value for environment variable OMP_SCHEDULE"),
        "{all}"
    );
}

/// A signal that ends the program ends `magpie omp` the same way (magpie execs it).
#[test]
fn exit_by_signal_passes_through() {
    use std::os::unix::process::ExitStatusExt;
    setup();
    let r = run(magpie(&["omp", "--", "sh", "-c", "kill -TERM $$"]));
    assert_eq!(r.status.signal(), Some(libc::SIGTERM), "{}", r.stderr);
}

/// Exactly one line on stderr starting `magpie: error: `, containing every needle.
fn assert_one_line(r: &Run, code: i32, needles: &[&str]) {
    assert_eq!(r.status.code(), Some(code), "{}", r.stderr);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(r.stderr.starts_with("magpie: error: "), "{}", r.stderr);
    for n in needles {
        assert!(r.stderr.contains(n), "{n:?} missing: {}", r.stderr);
    }
    assert!(r.stdout.is_empty(), "{}", r.stdout);
}

/// No library: one line saying what to build; a program that cannot be found: 127.
#[test]
fn missing_library_or_program_is_one_line() {
    let s = setup();
    let mut cmd = magpie(&["omp", "--", "true"]);
    cmd.env("MAGPIE_OMP_LIB", s.work.join("nowhere/libmagpie_omp.so"));
    assert_one_line(
        &run(cmd),
        2,
        &[
            "MAGPIE_OMP_LIB",
            "nowhere",
            "cargo build --release -p magpie-omp",
        ],
    );

    // A magpie with no library beside it (a copy alone in a folder).
    let alone = s.work.join("alone");
    std::fs::create_dir_all(&alone).unwrap();
    let exe = alone.join("magpie");
    std::fs::copy(env!("CARGO_BIN_EXE_magpie"), &exe).unwrap();
    let mut cmd = clean(&exe);
    cmd.args(["omp", "--", "true"]);
    assert_one_line(
        &run(cmd),
        2,
        &[
            "libmagpie_omp.so is not built",
            "cargo build --release -p magpie-omp",
        ],
    );
    let mut cmd = clean(&exe);
    cmd.arg("info");
    let r = run(cmd);
    assert!(r.status.success(), "{}", r.stderr);
    let line = common::line_starting(&r.stdout, "omp ");
    assert!(line.contains("not built"), "{line}");

    let mut cmd = magpie(&["omp", "--"]);
    cmd.arg(s.work.join("no-such-program"));
    assert_one_line(&run(cmd), 127, &["cannot run", "no-such-program"]);
}

/// `magpie info` names the library next to it and its libgomp.so.1 form.
#[test]
fn info_prints_the_library() {
    let s = setup();
    let r = run(magpie(&["info"]));
    assert!(r.status.success(), "{}", r.stderr);
    let line = common::line_starting(&r.stdout, "omp ");
    assert!(line.contains(&*s.lib.to_string_lossy()), "{line}");
    assert!(
        line.contains(&*s.shim_dir.to_string_lossy()) && line.contains("libgomp.so.1 form"),
        "{line}"
    );
}
