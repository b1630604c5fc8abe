#!/usr/bin/env bash
# Runs every test of the workspace: unit, integration and doc tests, built with the
# `test-release` profile (release code generation, compiled faster: see Cargo.toml), then the
# loom models: the core's unit tests named loom_* (crates/magpie/src/**/tests/loom_*.rs,
# under cfg(all(test, loom)), so they reach crate-private items), in one run of its lib. The
# workspace tests include the distributed ones (the `mpi` feature of magpie-cli, under
# mpirun): scripts/ensure-mpi.sh installs or names the system MPI they need. Last,
# scripts/scale.sh --smoke runs the scaling script at tiny sizes, scripts/omp-tests.sh the
# OpenMP programs on libmagpie_omp.so, and scripts/rayon-suite.sh runs rayon's own test
# suites against the rayon-core replacement.
# Works from any directory, in a clone of the repository alone: the tests read their data
# from the repository's tests/data, never from ../shared or MAGPIE_INSTANCES.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

step="setup"
on_exit() {
    local rc=$?
    if [ "$rc" -ne 0 ] && [ "$step" != "setup" ]; then
        echo "test-all: FAILED during: $step (exit code $rc)" >&2
    fi
}
trap on_exit EXIT

if ! command -v cargo >/dev/null 2>&1; then
    echo "test-all: error: cargo not found on PATH. Install Rust with rustup:" \
        "curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh  (see https://rustup.rs)," \
        "then open a new shell or run: . \"\$HOME/.cargo/env\"" >&2
    exit 1
fi

# The distributed tests run under mpirun: the system's MPI must be there (installed here
# when possible, else named in one error).
step="ensure-mpi"
"$root/scripts/ensure-mpi.sh"

step="cargo test --workspace --profile test-release --features magpie-cli/mpi"
echo "test-all: $step"
cargo test --workspace --profile test-release --features magpie-cli/mpi

loom_names=()
while IFS= read -r f; do
    loom_names+=("$(basename "$f" .rs)")
done < <(find crates/magpie/src -path '*/tests/loom_*.rs' | sort)
step="loom models (${loom_names[*]:-none})"
echo "test-all: $step"
if [ -n "${MAGPIE_TEST_ALL_NO_LOOM:-}" ]; then
    # .ci/run's second run (a clone with nothing beside it) has run them already.
    loom_summary="loom models skipped (MAGPIE_TEST_ALL_NO_LOOM)"
    echo "test-all: $loom_summary"
elif [ "${#loom_names[@]}" -gt 0 ]; then
    # The filter keeps the loom models (each module is named loom_*); the lib's other unit
    # tests already ran above without loom. Each model's negative controls run in child
    # processes of this test binary (see crates/magpie/src/sync/loom_common.rs).
    RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom \
        cargo test -p magpie --lib --profile test-release -- ::loom_
    loom_summary="${#loom_names[@]} loom model(s) passed: ${loom_names[*]}"
else
    loom_summary="no loom models found (crates/magpie/src/**/tests/loom_*.rs)"
fi

# The 16-core scaling run's script, end to end at tiny sizes (it builds its bundle with the
# test-release profile, runs every part on 1 and 2 workers and checks that each wrote its
# JSON and its summary section): docs/benchmarks.md, "Scaling".
step="scripts/scale.sh --smoke"
echo "test-all: $step"
if [ -n "${MAGPIE_TEST_ALL_NO_SCALE:-}" ]; then
    # .ci/run's second run has run it already.
    scale_summary="scale smoke skipped (MAGPIE_TEST_ALL_NO_SCALE)"
else
    "$root/scripts/scale.sh" --smoke
    scale_summary="scale smoke passed"
fi
# The OpenMP programs of tests/omp (C, C++, Fortran) on libmagpie_omp.so, on 1, 2 and 4
# threads and under every OMP_SCHEDULE value: docs/openmp.md, "Tests".
step="scripts/omp-tests.sh"
echo "test-all: $step"
if [ -n "${MAGPIE_TEST_ALL_NO_OMP:-}" ]; then
    # .ci/run's second run has run them already.
    omp_summary="OpenMP programs skipped (MAGPIE_TEST_ALL_NO_OMP)"
else
    "$root/scripts/omp-tests.sh"
    omp_summary="OpenMP programs passed"
fi
# rayon's own test suites (rayon, rayon-core, and crates built on rayon) against the
# rayon-core replacement: docs/testing.md, "rayon's own test suites".
step="scripts/rayon-suite.sh"
echo "test-all: $step"
if [ -n "${MAGPIE_TEST_ALL_NO_RAYON_SUITE:-}" ]; then
    # .ci/run's second run has run it already.
    rayon_summary="rayon suites skipped (MAGPIE_TEST_ALL_NO_RAYON_SUITE)"
else
    "$root/scripts/rayon-suite.sh"
    rayon_summary="rayon suites passed"
fi
step="summary"
echo "test-all: OK: workspace tests passed (test-release profile); $loom_summary; $scale_summary; $omp_summary; $rayon_summary"
