#!/usr/bin/env bash
# Runs every test of the workspace: unit, integration and doc tests in release, then the
# loom models: the core's unit tests named loom_* (crates/magpie/src/**/tests/loom_*.rs,
# under cfg(all(test, loom)), so they reach crate-private items), in one run of its lib. The
# workspace tests include the distributed ones (the `mpi` feature of magpie-cli, under
# mpirun): scripts/ensure-mpi.sh installs or names the system MPI they need.
# Works from any directory; set CI=1 to make a missing ../shared an error.
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

# Tests will read problem instances from ../shared (next to the repository).
if [ ! -d "$root/../shared" ]; then
    if [ -n "${CI:-}" ]; then
        echo "test-all: error: $root/../shared is missing (CI is set); the tests need its instances" >&2
        exit 1
    fi
    echo "test-all: warning: $root/../shared is missing; tests that need its instances will be skipped or fail" >&2
fi

# The distributed tests run under mpirun: the system's MPI must be there (installed here
# when possible, else named in one error).
step="ensure-mpi"
"$root/scripts/ensure-mpi.sh"

step="cargo test --workspace --release --features magpie-cli/mpi"
echo "test-all: $step"
cargo test --workspace --release --features magpie-cli/mpi

loom_names=()
while IFS= read -r f; do
    loom_names+=("$(basename "$f" .rs)")
done < <(find crates/magpie/src -path '*/tests/loom_*.rs' | sort)
step="loom models (${loom_names[*]:-none})"
echo "test-all: $step"
if [ "${#loom_names[@]}" -gt 0 ]; then
    # The filter keeps the loom models (each module is named loom_*); the lib's other unit
    # tests already ran above without loom. Each model's negative controls run in child
    # processes of this test binary (see crates/magpie/src/sync/loom_common.rs).
    RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom \
        cargo test -p magpie --lib --release -- ::loom_
fi

step="summary"
if [ "${#loom_names[@]}" -eq 0 ]; then
    loom_summary="no loom models found (crates/magpie/src/**/tests/loom_*.rs)"
else
    loom_summary="${#loom_names[@]} loom model(s) passed: ${loom_names[*]}"
fi
echo "test-all: OK: workspace tests passed (release); $loom_summary"
