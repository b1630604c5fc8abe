#!/usr/bin/env bash
# Runs every fuzz target of fuzz/ (cargo-fuzz, libFuzzer, nightly) for SECONDS each (default
# 10) on its corpus in fuzz/corpus/TARGET, one after the other. Memory blowups (over 512 MiB)
# and hangs (over 5 s for one input) count as crashes. Exits non-zero on the first crash,
# whose input libFuzzer leaves in fuzz/artifacts/TARGET/.
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (no TARGET: all of them)
# Installs what is missing: the nightly toolchain (rustup) and cargo-fuzz (cargo install).
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

seconds="${1:-10}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(dimacs tsplib knapsack_plain knapsack_pisinger uts_flags policy_spec schedule
        mpi_messages)
fi

rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
cargo fuzz --version >/dev/null 2>&1 || cargo install cargo-fuzz --locked

# -a: debug assertions and overflow checks on, so an arithmetic overflow is a finding too.
cargo +nightly fuzz build -a

for t in "${targets[@]}"; do
    mkdir -p "corpus/$t"
    # TSPLIB's Held-Karp bound costs O(n^3): keep inputs (and so n) small enough that a
    # legitimate instance is not mistaken for a hang.
    max_len=4096
    [ "$t" = tsplib ] && max_len=1024
    echo "== fuzz $t for ${seconds}s"
    cargo +nightly fuzz run -a "$t" "corpus/$t" -- \
        -max_total_time="$seconds" -rss_limit_mb=512 -malloc_limit_mb=512 -timeout=5 \
        -max_len="$max_len" -print_final_stats=1
done
