//! Compiles `csrc/loops_omp.c` (the OpenMP peer of the `loops` suite) and
//! `csrc/knapsack_bb.c` (the C branch-and-bound peer of the knapsack search, `-O3`, no
//! OpenMP) with the `cc` crate.
//!
//! Before building it, a tiny OpenMP program is compiled and linked with the same compiler
//! and `-fopenmp`: a compiler without OpenMP (or without its runtime library) stops the
//! build here with one message naming what to install, not with a linker error later.

use std::env;
use std::path::PathBuf;
use std::process::Command;

const SOURCE: &str = "csrc/loops_omp.c";
/// The loop bodies `SOURCE` shares with the OpenMP programs of bench/omp.
const BODIES: &str = "csrc/loop_bodies.h";
const KNAPSACK: &str = "csrc/knapsack_bb.c";

const PROBE: &str = r#"#include <omp.h>
int main(void) {
    int n = 0;
#pragma omp parallel num_threads(2) reduction(+ : n)
    n += omp_get_num_threads() > 0;
    return n > 0 ? 0 : 1;
}
"#;

fn main() {
    println!("cargo:rerun-if-changed={SOURCE}");
    println!("cargo:rerun-if-changed={BODIES}");
    println!("cargo:rerun-if-changed={KNAPSACK}");
    println!("cargo:rerun-if-changed=build.rs");

    let mut build = cc::Build::new();
    build
        .file(SOURCE)
        .opt_level(2)
        .flag("-fopenmp")
        .flag("-ffp-contract=off")
        .warnings(true);

    let compiler = build.get_compiler();
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    probe_openmp(&compiler, &out_dir);

    build.compile("loops_omp");

    cc::Build::new()
        .file(KNAPSACK)
        .opt_level(3)
        .warnings(true)
        .compile("knapsack_bb");

    // `-fopenmp` at compile time does not bring the runtime into rustc's link line.
    let runtime = if compiler.is_like_clang() {
        "omp"
    } else {
        "gomp"
    };
    println!("cargo:rustc-link-lib=dylib={runtime}");
}

/// Compiles and links [`PROBE`] with `-fopenmp`; panics with an install hint if that fails.
fn probe_openmp(compiler: &cc::Tool, out_dir: &std::path::Path) {
    let src = out_dir.join("omp_probe.c");
    let exe = out_dir.join("omp_probe");
    std::fs::write(&src, PROBE).expect("write the OpenMP probe into OUT_DIR");

    let mut cmd: Command = compiler.to_command();
    cmd.arg("-fopenmp").arg(&src).arg("-o").arg(&exe);
    let result = cmd.output();
    let failure = match result {
        Ok(out) if out.status.success() => return,
        Ok(out) => String::from_utf8_lossy(&out.stderr).trim().to_string(),
        Err(e) => format!("could not run {}: {e}", compiler.path().display()),
    };
    panic!(
        "\n\nmagpie-bench needs a C compiler with OpenMP for its OpenMP loop peer \
         (csrc/loops_omp.c), and `{} -fopenmp` could not build a tiny OpenMP program.\n\
         Install GCC and its OpenMP runtime (Debian/Ubuntu: `apt-get install gcc libgomp1`), \
         or point CC at a compiler with OpenMP.\n\ncompiler output:\n{failure}\n\n",
        compiler.path().display()
    );
}
