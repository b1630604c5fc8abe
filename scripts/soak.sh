#!/usr/bin/env bash
# Soak test: `scripts/soak.sh MINUTES` builds the CLI with MPI and loops random
# configurations (deque x victims x idle x skeleton x 1-16 workers x app, a quarter of the
# runs over 1-4 MPI ranks) against the oracles in ../shared, each run under `timeout`.
# Prints one line per run with its seed; at the end the runs, mismatches, hangs and crashes,
# with each failing command line. Exits 1 on any failure. Not part of CI.
# Replay a run: scripts/soak.sh --replay SEED. Options: scripts/soak.py --help.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
features=()
if command -v mpirun >/dev/null 2>&1; then features=(--features mpi); fi
cargo build --release -p magpie-cli "${features[@]}" >&2
exec python3 scripts/soak.py "$@"
