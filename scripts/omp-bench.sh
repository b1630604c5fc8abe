#!/usr/bin/env bash
# The OpenMP programs of bench/omp on GCC's libgomp, LLVM's libomp and magpie's libmagpie_omp.
#
#   1. Makes sure LLVM's libomp is there (the `libomp` peer, preloaded into the gcc binaries):
#      installs libomp-dev with apt-get when run as root on Debian/Ubuntu; otherwise says so in
#      one line and runs without that peer (magpie-bench records why).
#   2. Builds bench/omp/*.c with gcc -O2 -fopenmp into target/omp-bench/ (one binary each).
#   3. Builds libmagpie_omp.so (cargo build --release -p magpie-omp; without crates/magpie-omp,
#      it says so and runs without magpie) and magpie-bench.
#   4. Runs
#        magpie-bench omp-program --bin-dir target/omp-bench \
#            --magpie-lib target/release/libmagpie_omp.so --libomp auto \
#            --json target/omp-bench/results.json --summary target/omp-bench/summary.md ARGS...
#      which runs every binary unchanged under each runtime (LD_PRELOAD for libomp and magpie)
#      in interleaved rounds and reports medians, the ratios magpie/libgomp and magpie/libomp
#      with 95% CIs, and each runtime's best schedule of the loop applications
#      (`magpie-bench omp-program --help`; the JSON fields are in
#      crates/magpie-bench/src/omp_program.rs). The summary is printed too.
#
# Usage: scripts/omp-bench.sh [--quick] [--build-only] [ARGS...]
#   --quick       the programs' small sizes and one round (unless --rounds is given): a smoke
#                 test, a minute or two on two cores
#   --build-only  stop after step 3
#   ARGS          for magpie-bench omp-program: [--threads 1,2] [--rounds N] [--programs LIST]
#                 [--schedules LIST] [--constructs LIST] [--runtimes LIST] [--set PROG:k=v]
#                 [--timeout SECS]
# The full run (5 rounds, threads 1 and 2, every schedule) takes about 25 minutes on two cores.
# Works from any directory. Measures: keep the machine quiet (the construct overheads most).
set -euo pipefail

# shellcheck source=lib/common.sh source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
say_fd=2
out="$root/target/omp-bench"
export CARGO_TERM_COLOR=never

quick=0
build_only=0
rounds_given=0
bench_args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=1 ;;
        --build-only) build_only=1 ;;
        --rounds | --rounds=*)
            rounds_given=1
            bench_args+=("$1")
            ;;
        -h | --help) usage ;;
        *) bench_args+=("$1") ;;
    esac
    shift
done
need_command gcc "Debian: apt-get install gcc"
need_command cargo
mkdir -p "$out"

# --- 1. LLVM's libomp ---------------------------------------------------------------------------

have_libomp() {
    compgen -G '/usr/lib/llvm-*/lib/libomp.so' >/dev/null ||
        compgen -G '/usr/lib/*-linux-gnu/libomp.so*' >/dev/null
}
if ! have_libomp && ! apt_install "" libomp-dev; then
    say "LLVM's libomp is missing (Debian/Ubuntu: sudo apt-get install libomp-dev): running without the libomp peer"
fi

# --- 2. The programs ----------------------------------------------------------------------------

# -ffp-contract=off as for the loops suite's OpenMP peer (crates/magpie-bench/build.rs), whose
# loop bodies the loop programs share.
cflags=(-O2 -fopenmp -ffp-contract=off -Wall -Wextra)
built=0
for src in "$root"/bench/omp/*.c; do
    name="$(basename "$src" .c)"
    gcc "${cflags[@]}" -o "$out/$name" "$src" -lm || die "gcc could not build $src"
    built=$((built + 1))
done
say "built $built programs into $out (gcc ${cflags[*]}, $(gcc -dumpfullversion))"

# --- 3. libmagpie_omp and magpie-bench ----------------------------------------------------------

magpie_lib="$root/target/release/libmagpie_omp.so"
if [ -f "$root/crates/magpie-omp/Cargo.toml" ]; then
    say "building libmagpie_omp (cargo build --release -p magpie-omp)"
    cargo build --release --manifest-path "$root/Cargo.toml" -p magpie-omp >&2 ||
        die "cargo build --release -p magpie-omp failed"
    [ -f "$magpie_lib" ] || die "the magpie-omp build did not produce $magpie_lib"
else
    say "crates/magpie-omp does not exist: running without magpie"
    magpie_lib="$out/no-magpie-omp-crate/libmagpie_omp.so"
fi
say "building magpie-bench"
cargo build --release --manifest-path "$root/Cargo.toml" -p magpie-bench >&2
if [ "$build_only" = 1 ]; then
    exit 0
fi

# --- 4. The comparison --------------------------------------------------------------------------

extra=()
if [ "$quick" = 1 ]; then
    extra+=(--quick)
    [ "$rounds_given" = 1 ] || extra+=(--rounds 1)
fi
say "$(machine_line)"
exec "$root/target/release/magpie-bench" omp-program --bin-dir "$out" \
    --magpie-lib "$magpie_lib" --libomp auto \
    --json "$out/results.json" --summary "$out/summary.md" \
    ${extra[@]+"${extra[@]}"} ${bench_args[@]+"${bench_args[@]}"}
