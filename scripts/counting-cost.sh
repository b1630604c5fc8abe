#!/usr/bin/env bash
# What do magpie's per-worker counters cost? Builds magpie-bench twice — with the counters
# (the default `counted` feature) and without (`--no-default-features --features uncounted`)
# — then runs fib(32) on magpie with every deque at 1 and 2 workers, alternating the two
# builds ROUNDS times, and prints the ratio counted/uncounted of the medians.
#
# Usage: scripts/counting-cost.sh [ROUNDS (default 3)] [RUNS per round (default 5)]
# Env:   WORKERS (default 1,2), KERNELS (default fib), DEQUES (default: all five).
set -euo pipefail

rounds=${1:-3}
runs=${2:-5}
workers=${WORKERS:-1,2}
kernels=${KERNELS:-fib}
deques=${DEQUES:-chase-lev,lcws-user,lcws-signal,lcws-conservative,lcws-half}

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
target=${CARGO_TARGET_DIR:-$root/target}
out=$(mktemp -d "${TMPDIR:-/tmp}/counting-cost.XXXXXX")
trap 'rm -rf "$out"' EXIT

# Uncounted first, so that target/release/magpie-bench is the default (counted) build after.
echo "building the uncounted variant…" >&2
cargo build --release -q -p magpie-bench --no-default-features --features uncounted
cp "$target/release/magpie-bench" "$out/bench-uncounted"
echo "building the counted variant…" >&2
cargo build --release -q -p magpie-bench
cp "$target/release/magpie-bench" "$out/bench-counted"

counted=()
uncounted=()
for round in $(seq 1 "$rounds"); do
    # Alternate which build goes first, so that a drift in machine load hits both alike.
    if (( round % 2 )); then order="counted uncounted"; else order="uncounted counted"; fi
    for variant in $order; do
        echo "round $round/$rounds: $variant" >&2
        file="$out/$variant-$round.json"
        "$out/bench-$variant" forkjoin --json --runtimes magpie --kernels "$kernels" \
            --deques "$deques" --workers "$workers" --runs "$runs" >"$file" 2>"$out/$variant-$round.log" || {
            cat "$out/$variant-$round.log" >&2
            exit 1
        }
        if [[ $variant == counted ]]; then counted+=("$file"); else uncounted+=("$file"); fi
    done
done

join_by_comma() { local IFS=,; echo "$*"; }
echo "ratio = counted median / uncounted median (median over $rounds rounds of $runs runs each)"
"$out/bench-counted" counting-ratio --counted "$(join_by_comma "${counted[@]}")" \
    --uncounted "$(join_by_comma "${uncounted[@]}")"
