//! Links `libgomp.so.1`, the libgomp.so.1 form of libmagpie_omp, and gives the cdylib its
//! SONAME (Linux targets only; elsewhere this script does nothing).
//!
//! # Why a second, C shared object
//!
//! A binary built with `gcc -fopenmp` names `libgomp.so.1` as a DT_NEEDED library and asks
//! for versioned symbols from it (`GOMP_parallel@GOMP_4.0`, `omp_get_thread_num@OMP_1.0`,
//! …). glibc's loader starts such a binary only if the object it loads as `libgomp.so.1`
//! defines every version node the binary names; the symbols themselves may then come from
//! any object in the global scope, and an unversioned definition satisfies a versioned
//! reference when its object is not the one the reference names (glibc's `check_match`;
//! `LD_DEBUG=bindings,versions` shows it). The Rust cdylib cannot define those nodes
//! itself: rustc links it with an anonymous version script (`{ global: …; local: *; }`),
//! and GNU ld refuses to combine an anonymous version tag with named ones. So this script
//! links a tiny C object:
//!
//! - SONAME `libgomp.so.1`, version nodes from `shim/libgomp.map` (each with one
//!   placeholder symbol generated here), no code and no libc;
//! - DT_NEEDED `libmagpie_omp.so` and DT_RUNPATH `$ORIGIN/..`: loaded from
//!   `target/<profile>/magpie-omp/`, it brings in `target/<profile>/libmagpie_omp.so`, whose
//!   unversioned `GOMP_*`/`omp_*` definitions every call of the binary binds to.
//!
//! `LD_LIBRARY_PATH=target/release/magpie-omp ./prog` then runs `./prog` on magpie with
//! GCC's libgomp not loaded at all (so its start-up code never reads `OMP_SCHEDULE`).
//!
//! The cdylib does not exist yet when this script runs (it is what the script is built
//! for), so the shim is linked against a stub with the SONAME `libmagpie_omp.so`, built
//! here too; only the name is recorded. The cdylib itself gets the SONAME
//! `libmagpie_omp.so` (`-Wl,-soname`), so that a `libmagpie_omp.so` already loaded (by
//! `LD_PRELOAD`, from any path) satisfies the shim's DT_NEEDED instead of being loaded a
//! second time.
//!
//! # Where it goes
//!
//! Into `OUT_DIR`, and copied to `magpie-omp/libgomp.so.1` in the profile's output folder
//! (`target/<profile>/`, or `target/<triple>/<profile>/`), next to `libmagpie_omp.so`: a
//! path that `magpie omp`, the tests and a user's `LD_LIBRARY_PATH` can name without
//! knowing the build hash, and where the `$ORIGIN/..` run path finds the library. Building
//! it here rather than in `magpie omp` at run time keeps the form usable without the
//! `magpie` binary and without a C compiler on the machine that runs the programs. The
//! folder is found as the parent of the `build` folder above `OUT_DIR` (cargo's layout);
//! if `OUT_DIR` is not laid out that way, the shim stays in `OUT_DIR` with a warning and
//! `magpie omp` falls back to `LD_PRELOAD`.
//!
//! The copy's modification time is set back to that of `shim/libgomp.map`, and the copy is
//! a `rerun-if-changed` path: cargo reruns this script when the copy is deleted (a missing
//! path is always stale), but not on every build (a file written during the run would look
//! newer than the run).
//!
//! A C compiler is needed (the `cc` crate's: `CC`, else `cc`); when there is none the
//! build stops with one line saying so. (On Linux rustc itself links through `cc`.)

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// The version script: the nodes and their placeholder symbols.
const MAP: &str = "shim/libgomp.map";
/// The shim's file name and SONAME: what OpenMP binaries ask the loader for.
const SHIM: &str = "libgomp.so.1";
/// The folder beside the cdylib that holds the shim.
const SHIM_DIR: &str = "magpie-omp";
/// The cdylib's file name and SONAME.
const LIB: &str = "libmagpie_omp.so";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={MAP}");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        // The GNU OpenMP ABI and ELF symbol versions are Linux matters.
        return;
    }
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{LIB}");

    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let map = Path::new(&std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it")).join(MAP);
    let map_text = fs::read_to_string(&map)
        .unwrap_or_else(|e| fail(&format!("cannot read {}: {e}", map.display())));
    let built = link_shim(&out, &map, &map_text);

    match profile_dir(&out) {
        Some(dir) => {
            let dest = dir.join(SHIM_DIR).join(SHIM);
            install(&built, &dest, &map);
            println!("cargo:rerun-if-changed={}", dest.display());
        }
        None => println!(
            "cargo:warning=magpie-omp: OUT_DIR {} is not inside cargo's target/<profile>/build/; \
             libgomp.so.1 stays there and `magpie omp` will use LD_PRELOAD",
            out.display()
        ),
    }
}

/// Links the stub `libmagpie_omp.so` and then `libgomp.so.1` in `out`; returns the latter.
fn link_shim(out: &Path, map: &Path, map_text: &str) -> PathBuf {
    // cc's own output (its lookups and warnings) would bury the one line of `fail`; the
    // variables it reads are named here instead.
    let target = std::env::var("TARGET").unwrap_or_default();
    for var in ["CC", "CFLAGS"] {
        println!("cargo:rerun-if-env-changed={var}");
        println!("cargo:rerun-if-env-changed=TARGET_{var}");
        println!("cargo:rerun-if-env-changed={var}_{target}");
        println!(
            "cargo:rerun-if-env-changed={var}_{}",
            target.replace('-', "_")
        );
    }
    let compiler = cc::Build::new()
        .cargo_metadata(false)
        .cargo_warnings(false)
        .try_get_compiler()
        .unwrap_or_else(|e| fail(&format!("no C compiler for the target: {e}")));
    let stub_dir = out.join("stub");
    fs::create_dir_all(&stub_dir).unwrap_or_else(|e| fail(&format!("{}: {e}", stub_dir.display())));
    let stub = stub_dir.join(LIB);
    shared_object(
        &compiler,
        (
            &stub_dir.join("stub.c"),
            "/* Only its SONAME matters: see build.rs. */\nint magpie_omp_stub;\n",
        ),
        (&stub, LIB),
        &[],
    );

    let shim = out.join(SHIM);
    shared_object(
        &compiler,
        (&out.join("libgomp_shim.c"), &placeholders(map_text)),
        (&shim, SHIM),
        &[
            format!("-Wl,--version-script={}", map.display()).into(),
            // The stub by path: DT_NEEDED gets its SONAME, even though nothing is used.
            "-Wl,--no-as-needed".into(),
            stub.as_os_str().to_owned(),
            "-Wl,-rpath,$ORIGIN/..".into(),
            "-Wl,--enable-new-dtags".into(),
        ],
    );
    shim
}

/// The C source defining each node's placeholder symbol (`global: NAME;` in the map) as a
/// string holding the node's name.
fn placeholders(map_text: &str) -> String {
    let mut c =
        String::from("/* Generated by crates/magpie-omp/build.rs from shim/libgomp.map. */\n");
    let mut n = 0;
    for line in map_text.lines() {
        let line = line.trim();
        let (Some(node), Some(rest)) =
            (line.split_whitespace().next(), line.split("global:").nth(1))
        else {
            continue;
        };
        let symbol = rest.split(';').next().unwrap_or("").trim();
        if symbol.is_empty()
            || !symbol
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            fail(&format!(
                "{MAP}: cannot read the placeholder symbol of the line {line:?}"
            ));
        }
        c.push_str(&format!("const char {symbol}[] = \"{node}\";\n"));
        n += 1;
    }
    if n == 0 {
        fail(&format!(
            "{MAP}: no version node with a `global:` placeholder symbol"
        ));
    }
    c
}

/// Links a shared object `output` from `args` with the `cc` crate's compiler, without the C
/// start files and libraries (neither object has code).
/// Writes `text` into the C file `source` and links it into the shared object `output`
/// whose SONAME is `soname`, with the further linker arguments `extra`.
fn shared_object(
    compiler: &cc::Tool,
    (source, text): (&Path, &str),
    (output, soname): (&Path, &str),
    extra: &[std::ffi::OsString],
) {
    write(source, text);
    let mut args = vec![
        source.as_os_str().to_owned(),
        format!("-Wl,-soname,{soname}").into(),
    ];
    args.extend_from_slice(extra);
    link(compiler, output, &args);
}

fn link(compiler: &cc::Tool, output: &Path, args: &[std::ffi::OsString]) {
    let mut cmd = compiler.to_command();
    cmd.args(["-shared", "-fPIC", "-nostdlib", "-o"])
        .arg(output)
        .args(args);
    let shown = format!("{cmd:?}");
    let result = cmd.output().unwrap_or_else(|e| {
        if e.kind() == ErrorKind::NotFound {
            fail(&format!(
                "building libgomp.so.1 (the libgomp.so.1 form of libmagpie_omp) needs a C \
                 compiler, and {:?} was not found: install one (Debian/Ubuntu: apt-get install \
                 gcc) or name one in CC",
                compiler.path()
            ))
        }
        fail(&format!(
            "cannot run the C compiler {:?}: {e}",
            compiler.path()
        ))
    });
    if !result.status.success() {
        eprint!("{}", String::from_utf8_lossy(&result.stderr));
        fail(&format!(
            "linking {} failed ({}): {shown}",
            output.display(),
            result.status
        ));
    }
}

/// `target/<profile>` (or `target/<triple>/<profile>`): the parent of the `build` folder
/// that holds this package's `OUT_DIR` (`…/<profile>/build/magpie-omp-<hash>/out`).
fn profile_dir(out: &Path) -> Option<PathBuf> {
    out.ancestors()
        .skip(1)
        .find(|a| a.file_name().is_some_and(|n| n == "build"))
        .and_then(Path::parent)
        .map(Path::to_path_buf)
}

/// Copies `built` to `dest` by a rename (a program starting meanwhile sees the old file or
/// the new one, never a half-written one) and dates it as `map` (see the module comment).
fn install(built: &Path, dest: &Path, map: &Path) {
    let dir = dest.parent().expect("dest is in a folder");
    fs::create_dir_all(dir).unwrap_or_else(|e| fail(&format!("{}: {e}", dir.display())));
    let tmp = dir.join(format!(".{SHIM}.{}", std::process::id()));
    fs::copy(built, &tmp).unwrap_or_else(|e| fail(&format!("{}: {e}", tmp.display())));
    let dated = fs::metadata(map).and_then(|m| m.modified()).and_then(|t| {
        fs::OpenOptions::new()
            .write(true)
            .open(&tmp)?
            .set_modified(t)
    });
    if let Err(e) = dated {
        println!(
            "cargo:warning=magpie-omp: cannot set the time of {}: {e}",
            tmp.display()
        );
    }
    fs::rename(&tmp, dest).unwrap_or_else(|e| fail(&format!("{}: {e}", dest.display())));
}

fn write(path: &Path, text: &str) {
    fs::write(path, text).unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
}

/// Stops the build with one line on stderr (cargo shows it under the build script's name).
fn fail(msg: &str) -> ! {
    eprintln!("error: magpie-omp: {msg}");
    std::process::exit(1)
}
