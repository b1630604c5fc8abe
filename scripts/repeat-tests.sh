#!/usr/bin/env bash
# Runs test binaries N times in a row on a quiet machine and/or while a background CPU load
# keeps every core busy, to catch tests whose outcome depends on scheduling (issue 13: an
# MPI failure test that passed alone failed under load; issue 30: a priority test that
# passed 20 runs under load failed on an idle machine, where threads wake sooner). Builds
# the binaries once (the test-release profile, as scripts/test-all.sh), runs every binary N
# times per mode (loaded: one busy loop per core, killed on exit), prints one line per run
# and a final "N runs, F failures" line; exits 1 if any run failed. The output of a failed
# run is kept (its path is printed).
#
# Usage: scripts/repeat-tests.sh [--quiet|--loaded|--both] N [FILTER ...]
#   --loaded  with the background load (the default)
#   --quiet   without it (an idle machine: run nothing else meanwhile)
#   --both    N quiet runs, then N loaded runs
#   N       how many times to run each binary (default 20)
#   FILTER  test-name filters passed to every binary (e.g. `a_rank`); default: all its tests
# Env:
#   TESTS  the test targets, PACKAGE:TARGET separated by spaces (default: the distributed
#          ones, "magpie-cli:distributed magpie-cli:distributed_loops"); TARGET `lib` is the
#          package's unit tests (e.g. magpie:lib); magpie-cli targets are built with its
#          `mpi` feature
#   LOAD   busy loops in the background in loaded mode (default: the number of cores)
#   EXACT  set to 1 to pass --exact to the binaries (FILTERs are then whole test names)
set -euo pipefail

modes=(loaded)
case "${1:-}" in
--quiet) modes=(quiet); shift ;;
--loaded) modes=(loaded); shift ;;
--both) modes=(quiet loaded); shift ;;
esac
runs=${1:-20}
shift || true
filters=("$@")
tests=${TESTS:-"magpie-cli:distributed magpie-cli:distributed_loops"}
load=${LOAD:-$(nproc)}

if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
    echo "repeat-tests: error: N must be a positive whole number, not '$runs'" >&2
    exit 2
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
logs=$(mktemp -d "${TMPDIR:-/tmp}/repeat-tests.XXXXXX")

# Build each target once and note its executable and package directory.
binaries=()
dirs=()
names=()
for spec in $tests; do
    package=${spec%%:*}
    target=${spec#*:}
    if [ "$package" = "$spec" ] || [ -z "$target" ]; then
        echo "repeat-tests: error: TESTS entry '$spec' is not PACKAGE:TARGET" >&2
        exit 2
    fi
    features=()
    if [ "$package" = magpie-cli ]; then
        features=(--features magpie-cli/mpi)
    fi
    if [ "$target" = lib ]; then
        select=(--lib)
        kind=lib
    else
        select=(--test "$target")
        kind=test
    fi
    echo "repeat-tests: building $package ${select[*]} (test-release)" >&2
    exe=$(cargo test --profile test-release -q -p "$package" "${features[@]}" "${select[@]}" --no-run \
        --message-format=json |
        jq -r "select(.reason == \"compiler-artifact\" and .profile.test == true
                      and .target.kind[0] == \"$kind\"
                      and (\"$kind\" == \"lib\" or .target.name == \"$target\"))
               | .executable" | tail -n 1)
    if [ -z "$exe" ] || [ ! -x "$exe" ]; then
        echo "repeat-tests: error: no test executable for $spec" >&2
        exit 2
    fi
    manifest=$(cargo metadata --format-version 1 --no-deps |
        jq -r ".packages[] | select(.name == \"$package\") | .manifest_path")
    binaries+=("$exe")
    dirs+=("$(dirname "$manifest")")
    names+=("$spec")
done

# The background load of loaded mode: one busy loop per core, ended however this script ends.
pids=()
stop_load() {
    for p in "${pids[@]}"; do
        kill "$p" 2>/dev/null || true
    done
    pids=()
}
trap stop_load EXIT
echo "repeat-tests: logs of failed runs in $logs" >&2

extra=()
if [ "${EXACT:-0}" = 1 ]; then
    extra=(--exact)
fi
failures=0
total=0
for mode in "${modes[@]}"; do
    if [ "$mode" = loaded ]; then
        for _ in $(seq 1 "$load"); do
            (while :; do :; done) &
            pids+=($!)
        done
        echo "repeat-tests: loaded: $load busy loop(s) in the background" >&2
    else
        echo "repeat-tests: quiet: no background load" >&2
    fi
    for i in $(seq 1 "$runs"); do
        for k in "${!binaries[@]}"; do
            total=$((total + 1))
            log="$logs/$mode-run$i-${names[$k]//[:\/]/-}.log"
            start=$(date +%s%N)
            if (cd "${dirs[$k]}" && "${binaries[$k]}" "${filters[@]}" "${extra[@]}") >"$log" 2>&1; then
                status=ok
                rm -f "$log"
            else
                status="FAILED (log: $log)"
                failures=$((failures + 1))
            fi
            ms=$((($(date +%s%N) - start) / 1000000))
            printf '%s run %d/%d %s: %s (%d.%03d s)\n' "$mode" "$i" "$runs" "${names[$k]}" "$status" \
                $((ms / 1000)) $((ms % 1000))
        done
    done
    stop_load
done
echo "${#modes[@]} mode(s) (${modes[*]}) x $runs runs of ${#names[@]} binaries ($total in all), $failures failures"
[ "$failures" -eq 0 ]
