#!/usr/bin/env bash
# Runs magpie's deque unit tests (the smoke test deque::tests::smoke among them; not the
# stress suite, far too long under Miri), the multi-threaded pool smoke test
# (tests/miri_smoke.rs) and the
# search walk's unit test under Miri, which checks them for undefined behaviour (data races,
# use-after-free, invalid reads). Needs a nightly toolchain with the miri and rust-src
# components: installed here through rustup if missing. Not part of CI (nightly moves); run it
# after touching unsafe code.
# Signal-based tests are skipped: Miri cannot run sigaction/pthread_kill.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! command -v rustup >/dev/null 2>&1; then
    echo "miri.sh: error: rustup not found; Miri needs a rustup-managed nightly toolchain (https://rustup.rs)" >&2
    exit 1
fi
if ! cargo +nightly miri --version >/dev/null 2>&1; then
    echo "miri.sh: installing nightly with miri and rust-src…" >&2
    rustup toolchain install nightly --profile minimal --component miri,rust-src
fi

export CARGO_TARGET_DIR=target/miri
export MIRIFLAGS="${MIRIFLAGS:--Zmiri-disable-isolation}"
cargo +nightly miri test -p magpie --lib -- deque:: --skip signal --skip half_handler \
    --skip deque::tests::stress
cargo +nightly miri test -p magpie --test miri_smoke
# The splittable search walk's side table (raw pointers into a fixed buffer): about 5 minutes.
cargo +nightly miri test -p magpie --lib -- search::engine::walk::
echo "miri.sh: OK: no undefined behaviour found"
