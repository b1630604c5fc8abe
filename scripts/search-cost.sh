#!/usr/bin/env bash
# Instructions per node of the Sequential skeleton against each app's hand-written solver,
# counted by callgrind (valgrind), which needs no hardware counters (`perf stat` reports
# "<not supported>" on the development VM). Instances: UTS T1 at depth 7, NS genus 22,
# 11-Queens, max clique brock200_4, the 100 knapPI_9_50_1000 knapsack instances
# (crates/magpie-apps/examples/search_cost.rs).
#
#   scripts/search-cost.sh            # needs valgrind (apt-get install valgrind)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "search-cost.sh: valgrind is not installed" >&2; exit 2; }
cargo build --release -q -p magpie-apps --example search_cost
bin=target/release/examples/search_cost
ir() {
    local out
    out=$(mktemp)
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$@" 2>"$out" >/dev/null
    grep -o 'Collected : [0-9]*' "$out" | awk '{print $3}'
    rm -f "$out"
}
base=$(ir none seq)
printf '%-8s %12s %14s %14s %10s %10s %8s\n' app nodes "seq instr" "hand instr" seq/node hand/node ratio
for app in uts ns nqueens maxclique knapsack; do
    nodes=$("$bin" "$app" seq)
    s=$(( $(ir "$app" seq) - base ))
    h=$(( $(ir "$app" hand) - base ))
    awk -v a="$app" -v n="$nodes" -v s="$s" -v h="$h" 'BEGIN {
        printf "%-8s %12d %14d %14d %10.1f %10.1f %8.3f\n", a, n, s, h, s / n, h / n, s / h }'
done
