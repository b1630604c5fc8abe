#!/usr/bin/env bash
# The scaling run for a many-core machine (issue 31; docs/benchmarks.md, "Scaling").
#
#   scripts/scale.sh --prepare [DIR]   here: build stripped binaries (generic x86-64) and put
#                                      them, libgomp, this script and the instances the run
#                                      reads into DIR (default target/scale, under 64 MiB)
#   DIR/scale.sh [--out DIR] [--pack FILE] [--workers 1,2,4,8,16] [--parts a,b] [--budget S]
#                [--cap-factor N]        (every part's cap times N: to time the parts here)
#                                      there: run every part from DIR alone (no Rust, no
#                                      Python, no ../shared); results in --out (default
#                                      $OUT/scale, else ./scale-results)
#   scripts/scale.sh --smoke           here: prepare (test-release profile) into
#                                      target/scale-smoke, run every part at tiny sizes on 1
#                                      and 2 workers, and check that every part wrote its
#                                      JSON and the summary names every part (under a minute
#                                      after the build; scripts/test-all.sh runs it)
#
# Parts, in order, each under its own time cap (seconds at full size; the whole run stops
# starting parts once --budget, default 470 s, is spent): forkjoin (8 kernels, magpie vs
# rayon vs chili vs sequential at every worker count), search (magpie's best skeleton and
# the rayon peer at every worker count over the hand-written solver: UTS, NS, N-Queens, max
# clique), loops (magpie's schedules vs OpenMP's at the most workers), lcws and pheet (the
# `reproduce` claims that need cores), multiprogrammed (2 and 4 instances at the most
# workers, park vs spin), mpi (4 ranks x 4 workers vs 1 x 16 on UTS and NS, if mpirun runs).
# Each part writes PART.json (its status, commands and the raw reports) and the summary
# (summary.md, speedup pictures) is rewritten after every part, so a run cut short keeps
# every finished part. --pack FILE re-packs the results folder into FILE (a .tar.gz) after
# every part, for a machine that gives back a few files only.
set -euo pipefail

PARTS_ALL=(forkjoin search loops lcws pheet multiprogrammed mpi)

die() {
    echo "scale: error: $*" >&2
    exit 2
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# ----------------------------------------------------------------------------------------
# --prepare: build the bundle
prepare() {
    local dest=$1 profile=$2
    local root
    root=$(cd "$here/.." && pwd)
    [ -f "$root/Cargo.toml" ] || die "--prepare runs from the repository (scripts/scale.sh)"
    cd "$root"
    case "${RUSTFLAGS:-}${CARGO_ENCODED_RUSTFLAGS:-}" in
    *native*) die "RUSTFLAGS asks for target-cpu=native: the bundle must run on another x86-64" ;;
    esac
    local out=target/$profile
    [ "$profile" = dev ] && out=target/debug
    echo "scale: building the MPI magpie ($profile profile)" >&2
    ./scripts/ensure-mpi.sh >&2
    cargo build -q --profile "$profile" -p magpie-cli --features magpie-cli/mpi
    rm -rf "$dest"
    mkdir -p "$dest/bin" "$dest/lib" "$dest/instances/dimacs"
    cp "$out/magpie" "$dest/bin/magpie-mpi"
    # Built without MPI in a cargo invocation of their own (features unify within one): they
    # start where no MPI library is installed.
    echo "scale: building magpie and magpie-bench without MPI" >&2
    cargo build -q --profile "$profile" -p magpie-cli -p magpie-bench
    cp "$out/magpie" "$out/magpie-bench" "$dest/bin/"
    strip "$dest"/bin/*
    for b in magpie magpie-bench; do
        if ldd "$dest/bin/$b" | grep -q libmpi; then
            die "$dest/bin/$b links libmpi: it would not start on a machine without MPI"
        fi
    done
    # The OpenMP runtime the loops' C peer links; the other machine may have none.
    local gomp
    gomp=$(${CC:-cc} -print-file-name=libgomp.so.1)
    if [ -f "$gomp" ]; then
        cp -L "$gomp" "$dest/lib/"
    else
        echo "scale: warning: no libgomp.so.1 found to bundle ($gomp)" >&2
    fi
    # The instances the run reads: the repository's small graphs and one from the big
    # collection when it is there (the search part's max clique; it falls back otherwise).
    cp tests/data/dimacs/brock200_4.clq tests/data/dimacs/brock200_1.clq "$dest/instances/dimacs/"
    local big=${MAGPIE_INSTANCES:-$root/../shared/instances}
    if [ -f "$big/dimacs/DSJC500_5.clq" ]; then
        cp "$big/dimacs/DSJC500_5.clq" "$dest/instances/dimacs/"
    fi
    cp "$here/scale.sh" "$dest/scale.sh"
    chmod -R u+w "$dest"
    {
        echo "commit $(git rev-parse HEAD)$(git diff --quiet HEAD || echo ' (with uncommitted changes)')"
        echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -m), profile $profile, no target-cpu flags"
        rustc --version
        ${CC:-cc} --version | head -n 1
    } >"$dest/BUILD"
    local size
    size=$(du -sm "$dest" | cut -f1)
    echo "scale: prepared $dest (${size} MiB): $(ls "$dest/bin" | tr '\n' ' ')" >&2
    [ "$size" -lt 64 ] || die "$dest is ${size} MiB, over the 64 MiB a device call carries"
}

# ----------------------------------------------------------------------------------------
# The run
out=""
pack=""
workers=""
parts=""
budget=470
factor=1
smoke=0
mode=run
while [ $# -gt 0 ]; do
    case "$1" in
    --prepare)
        mode=prepare
        dest=${2:-}
        [ $# -ge 2 ] && shift
        ;;
    --smoke) mode=smoke ;;
    --tiny) smoke=1 ;;
    --out) out=$2; shift ;;
    --pack) pack=$2; shift ;;
    --workers) workers=$2; shift ;;
    --parts) parts=$2; shift ;;
    --budget) budget=$2; shift ;;
    --cap-factor) factor=$2; shift ;;
    -h | --help)
        sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    *) die "unknown argument '$1' (--help lists them)" ;;
    esac
    shift
done

if [ "$mode" = prepare ]; then
    prepare "${dest:-$(cd "$here/.." && pwd)/target/scale}" release
    exit 0
fi
if [ "$mode" = smoke ]; then
    root=$(cd "$here/.." && pwd)
    bundle=$root/target/scale-smoke
    prepare "$bundle" test-release
    results=$(mktemp -d "${TMPDIR:-/tmp}/scale-smoke.XXXXXX")
    start=$SECONDS
    "$bundle/scale.sh" --tiny --workers 1,2 --out "$results" --pack "$results.tar.gz"
    echo "scale: smoke run took $((SECONDS - start)) s; checking $results" >&2
    missing=()
    for p in "${PARTS_ALL[@]}"; do
        [ -s "$results/$p.json" ] || missing+=("$p.json")
        grep -q "^## $p\b" "$results/summary.md" || missing+=("the summary's section $p")
    done
    tar -tzf "$results.tar.gz" >"$results.list" || true
    grep -q '/summary.md$' "$results.list" || missing+=("summary.md in the pack")
    if [ ${#missing[@]} -gt 0 ]; then
        echo "scale: smoke FAILED: missing ${missing[*]} (results in $results)" >&2
        exit 1
    fi
    # Every part but mpi (which may note that MPI is missing) must have run to the end.
    if grep -E '^\| (forkjoin|search|loops|lcws|pheet|multiprogrammed) \|' "$results/summary.md" |
        grep -v '| ok |'; then
        echo "scale: smoke FAILED: a part did not finish (above; logs in $results/logs)" >&2
        exit 1
    fi
    echo "scale: smoke ok: every part wrote its JSON and the summary names every part" >&2
    rm -rf "$results" "$results.tar.gz" "$results.list"
    exit 0
fi

# Run from the bundle.
B=$here/bin/magpie-bench
M=$here/bin/magpie
[ -x "$B" ] && [ -x "$M" ] ||
    die "no bundle beside this script: run scripts/scale.sh --prepare, then target/scale/scale.sh"
export LD_LIBRARY_PATH=$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export MAGPIE_INSTANCES=$here/instances MAGPIE_BIN=$M
unset MAGPIE_NUM_WORKERS MAGPIE_DEQUE MAGPIE_VICTIMS MAGPIE_IDLE MAGPIE_JOIN_LIMIT
out=${out:-${OUT:+$OUT/scale}}
out=${out:-scale-results}
mkdir -p "$out/raw" "$out/logs"
out=$(cd "$out" && pwd)
cores=$(nproc)
if [ -z "$workers" ]; then
    workers=1
    w=2
    while [ "$w" -le "$cores" ]; do
        workers="$workers,$w"
        w=$((w * 2))
    done
    case ",$workers," in *",$cores,"*) ;; *) workers="$workers,$cores" ;; esac
fi
[[ "$workers" =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--workers: '$workers' is not a list of counts"
[[ "$budget" =~ ^[1-9][0-9]*$ ]] || die "--budget: '$budget' is not a number of seconds"
[[ "$factor" =~ ^[1-9][0-9]*$ ]] || die "--cap-factor: '$factor' is not a whole number"
wmax=$(tr ',' '\n' <<<"$workers" | sort -n | tail -n 1)
[ -n "$parts" ] || parts=$(IFS=,; echo "${PARTS_ALL[*]}")
for p in ${parts//,/ }; do
    [[ " ${PARTS_ALL[*]} " == *" $p "* ]] || die "--parts: unknown part '$p' (${PARTS_ALL[*]})"
done
run_start=$SECONDS
{
    echo "host $(uname -n), $cores CPU(s): $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //')"
    echo "started $(date -u +%Y-%m-%dT%H:%M:%SZ); workers $workers; budget ${budget} s$([ $smoke = 1 ] && echo '; tiny sizes (smoke test)')"
    cat "$here/BUILD" 2>/dev/null || true
} >"$out/RUN"
echo "scale: $cores CPU(s), workers $workers, parts $parts, results in $out" >&2

# Sizes: full, or tiny with --tiny.
if [ $smoke = 1 ]; then
    RUNS=1
    QUICK=(--quick)
    FJ_KERNELS=fib,tree,quicksort,mergesort,reduce,integer-sort,comparison-sort,histogram
    UTS_TREE="-t 1 -a 3 -d 6 -b 4 -r 19"
    SEARCH_ITEMS=("ns 60 --items ns:18" "nqueens 45 --items nqueens:8" "maxclique 30 --items maxclique:brock200_4")
    LOOP_ARGS=(--quick --apps mandelbrot,exponential --steps 2)
    LCWS_KERNELS=fib,reduce
    MP_APP=(--app uts --flags="-t 1 -a 3 -d 6 -b 4 -r 19")
    MPI_APPS=uts-d6,ns-18
else
    RUNS=2
    QUICK=()
    FJ_KERNELS=fib,tree,quicksort,mergesort,reduce,integer-sort,comparison-sort,histogram
    clique=DSJC500_5
    [ -f "$here/instances/dimacs/$clique.clq" ] || clique=brock200_1
    # T1's shape to depth 11: 16,526,523 nodes, about 2 s sequentially on the 2-core VM.
    UTS_TREE="-t 1 -a 3 -d 11 -b 4 -r 19"
    # Each item: app, cap in seconds, options (caps from the 2-worker times, see
    # docs/benchmarks.md).
    SEARCH_ITEMS=("ns 110 --items ns:34" "nqueens 45 --items nqueens:15" "maxclique 30 --items maxclique:$clique")
    LOOP_ARGS=(--apps mandelbrot,exponential,gamma,constant --steps 6)
    LCWS_KERNELS=fib,tree,quicksort,mergesort,reduce
    MP_APP=(--app uts --tree T1)
    MPI_APPS=uts-d11,ns-34
fi

# cap SECONDS: the part's cap (times --cap-factor), cut to what is left of the budget (at
# least 5 s).
cap() {
    local left=$((budget - (SECONDS - run_start)))
    local c=$(($1 * factor))
    [ "$c" -gt "$left" ] && c=$left
    [ "$c" -lt 5 ] && c=5
    echo "$c"
}

# step NAME CAP CMD...: runs one command of a part with its own cap; its stdout (a JSON
# report) into raw/NAME.json, stderr into logs/NAME.log. Records a failure or a timeout.
step_status=ok
step() {
    local name=$1 c
    c=$(cap "$2")
    shift 2
    echo "scale:   $name (cap ${c} s): $*" >&2
    echo "$*" >>"$out/logs/$part.commands"
    local rc=0 t0=$SECONDS
    timeout --kill-after=10 "$c" "$@" >"$out/raw/$name.json" 2>"$out/logs/$name.log" || rc=$?
    echo "scale:   $name: $((SECONDS - t0)) s (exit $rc)" >&2
    if [ $rc = 124 ] || [ $rc = 137 ]; then
        echo "scale:   $name: stopped at its cap (${c} s)" >&2
        step_status=timeout
    elif [ $rc != 0 ]; then
        echo "scale:   $name: failed (exit $rc; logs/$name.log): $(tail -n 2 "$out/logs/$name.log" | tr '\n' ' ')" >&2
        [ "$step_status" = ok ] && step_status=failed
    fi
    [ -s "$out/raw/$name.json" ] || rm -f "$out/raw/$name.json"
}

# finish PART START [NOTE]: writes PART.json and the summary, re-packs.
finish() {
    local p=$1 start=$2 note=${3:-}
    local status=$step_status
    [ -n "$note" ] && [ "$status" = ok ] && [ "$(ls "$out/raw/$p"*.json 2>/dev/null | wc -l)" = 0 ] && status=skipped
    "$B" scale-summary "$out" --part "$p" --status "$status" --seconds $((SECONDS - start)) \
        --workers "$workers" --note "$note" 2>>"$out/logs/summary.log" ||
        echo "scale: warning: the summary failed (logs/summary.log)" >&2
    if [ -n "$pack" ]; then
        tar -czf "$pack.tmp" -C "$(dirname "$out")" "$(basename "$out")" && mv "$pack.tmp" "$pack"
    fi
    echo "scale: part $p: $status in $((SECONDS - start)) s (total $((SECONDS - run_start)) s)" >&2
}

for part in ${parts//,/ }; do
    step_status=ok
    start=$SECONDS
    : >"$out/logs/$part.commands"
    note=""
    if [ $((SECONDS - run_start)) -ge "$budget" ]; then
        step_status=skipped
        finish "$part" "$start" "the budget of ${budget} s was spent"
        continue
    fi
    echo "scale: part $part" >&2
    case $part in
    forkjoin)
        # One kernel a command, so that a kernel over its cap loses only itself.
        for k in ${FJ_KERNELS//,/ }; do
            step "forkjoin-$k" 40 "$B" forkjoin --json --quiet --kernels "$k" --workers "$workers" \
                --runs "$RUNS" --deques lcws-user "${QUICK[@]}"
        done
        ;;
    search)
        scaling=("$B" search --json --quiet --experiments scaling --scaling-workers "$workers"
            --runs "$RUNS" "${QUICK[@]}")
        step search-uts 45 "${scaling[@]}" --scaling-apps uts --items="uts:$UTS_TREE"
        for item in "${SEARCH_ITEMS[@]}"; do
            read -r app c rest <<<"$item"
            # shellcheck disable=SC2086 # $rest is the item's options, word by word
            step "search-$app" "$c" "${scaling[@]}" --scaling-apps "$app" $rest
        done
        ;;
    loops)
        if [ -f "$here/lib/libgomp.so.1" ] || ldconfig -p 2>/dev/null | grep -q libgomp.so.1; then
            step loops 45 "$B" loops --json --quiet --workers "$wmax" --runs "$RUNS" \
                --schedules 'static;ss,k;gss;fac2;awf-b;af;static-steal;rws;auto' \
                "${LOOP_ARGS[@]}"
        else
            note="no libgomp.so.1 here or in the bundle: OpenMP peer skipped"
        fi
        ;;
    lcws)
        step lcws 100 "$B" reproduce lcws --json --runs "$RUNS" --workers "$workers" \
            --kernels "$LCWS_KERNELS" "${QUICK[@]}" --timeout "$(cap 100)"
        ;;
    pheet)
        step pheet 50 "$B" reproduce pheet --json --runs "$RUNS" --workers "$wmax" \
            "${QUICK[@]}" --timeout "$(cap 50)"
        ;;
    multiprogrammed)
        for k in 2 4; do
            step "multiprogrammed-$k" 12 "$M" experiment policies "${MP_APP[@]}" \
                --idle park,spin --workers "$wmax" --instances "$k" --runs "$RUNS" \
                --format json --quiet
        done
        ;;
    mpi)
        if ! command -v mpirun >/dev/null 2>&1; then
            note="no mpirun on this machine: 4 ranks x 4 workers vs 1 x 16 not measured"
        elif ! "$here/bin/magpie-mpi" info >/dev/null 2>"$out/logs/mpi-probe.log"; then
            note="the MPI build of magpie does not start here ($(head -n 1 "$out/logs/mpi-probe.log"))"
        else
            r=4
            [ "$wmax" -lt 16 ] && r=2
            [ "$wmax" -lt 2 ] && r=1
            shape="${r}x$((wmax / r > 0 ? wmax / r : 1))"
            MAGPIE_BIN=$here/bin/magpie-mpi step mpi 40 "$B" distributed --json --quiet \
                --experiments overhead --overhead-shapes "$shape,1x$wmax" \
                --overhead-apps "$MPI_APPS" --runs "$RUNS" --timeout "$(cap 40)"
        fi
        ;;
    esac
    finish "$part" "$start" "$note"
done
echo "scale: done in $((SECONDS - run_start)) s; summary: $out/summary.md" >&2
