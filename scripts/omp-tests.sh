#!/usr/bin/env bash
# Runs the OpenMP test programs of tests/omp/ (C, C++ and Fortran, built with Debian's GCC 12
# `-fopenmp`, unchanged) on libmagpie_omp.so, magpie's implementation of the GNU OpenMP
# runtime ABI, by LD_PRELOAD; or, with --libgomp, on the system's libgomp (the reference: the
# programs must pass there, which is how they are validated).
#
#   1. Makes sure gcc, g++ and gfortran are there (installs them with apt-get when root on
#      Debian/Ubuntu, as scripts/ensure-mpi.sh does; otherwise names them in one error).
#   2. Builds every tests/omp/*.c, *.cpp, *.f90 into target/omp-tests/NAME_EXT (loops.c ->
#      loops_c) with -O2 -fopenmp -Wall (C++ also -std=c++17).
#   3. Finds the library (magpie mode): $MAGPIE_OMP_LIB if set, else
#      `cargo build --profile test-release -p magpie-omp` and
#      ${CARGO_TARGET_DIR:-target}/test-release/libmagpie_omp.so.
#   4. Magpie mode only: the symbol check (every GOMP_* / omp_* symbol a program imports,
#      `nm -D --undefined-only`, is exported by the library, `nm -D --defined-only`) and the
#      preload check (one run of each program under LD_DEBUG=bindings: the program's GOMP_* /
#      omp_* calls bind to the library, none to libgomp, so a preload that silently did not
#      take cannot pass for magpie).
#   5. Runs every program with OMP_NUM_THREADS = 1, 2, 4; the loop programs (loops_*) also
#      under each OMP_SCHEDULE value below; in magpie mode also under magpie's own schedule
#      names, and each loop program once with OMP_SCHEDULE=bogus, where it must still pass
#      and print exactly one stderr line mentioning `bogus`. Under a valid OMP_SCHEDULE no
#      stderr line other than libgomp's own may mention OMP_SCHEDULE (magpie accepts its
#      names instead of warning and falling back). libgomp.so.1 is still loaded under the
#      preload (the programs link it), and its constructor prints "libgomp: Unknown value for
#      environment variable OMP_SCHEDULE" for magpie's names: that line is expected.
#      A run passes when it exits 0 within the timeout and prints its "NAME: OK:" line. On a
#      failure the program, thread count, schedule, exit status and output are printed, and
#      every run's output stays in target/omp-tests/logs/run.XXXXXX/ (removed after a pass).
#   6. Prints one summary line; exits 1 if anything failed.
#
# Usage: scripts/omp-tests.sh [--libgomp] [--repeat N] [--only NAME[,NAME]] [--threads LIST]
#                             [--timeout SECONDS] [--keep-going]
#   --libgomp     run on the system's libgomp, no preload (validates the programs themselves)
#   --repeat N    the whole run matrix N times (default 1; e.g. 20 under load, docs/testing.md)
#   --only NAMES  only these programs (loops_c, sync_c, tasks_c, tasks_cpp, loops_f90)
#   --threads L   OMP_NUM_THREADS values, comma-separated (default 1,2,4)
#   --timeout S   seconds one run may take before it counts as a hang (default 120)
#   --keep-going  run everything and list every failure at the end (default: stop at the first)
# Env: MAGPIE_OMP_LIB  the library to preload (skips the cargo build).
# Every OMP_* variable of the caller's environment is unset first: the programs check what
# OMP_NUM_THREADS and OMP_SCHEDULE ask for, and assume the defaults of the rest.
# Works from any directory.
set -euo pipefail

# shellcheck source=lib/common.sh source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
src="$root/tests/omp"
out="$root/target/omp-tests"

# The OMP_SCHEDULE values every runtime takes, and magpie's own (libgomp rejects them).
standard_schedules=(static "static,7" dynamic "dynamic,3" guided "guided,5" auto
    "monotonic:dynamic,2" nonmonotonic:guided)
magpie_schedules=(ss gss tss fac fac2 fac2a mfac wf awf awf_b awf_c awf_d awf_e af
    static_steal rws laws random_sel exhaustive_sel binary_sel expert_sel "tss,4" "fac2,8")

libgomp=0
repeat=1
only=()
threads=(1 2 4)
run_timeout=120
keep_going=0
while [ $# -gt 0 ]; do
    case "$1" in
        --libgomp) libgomp=1 ;;
        --keep-going) keep_going=1 ;;
        --repeat) option_value repeat "a number" "$@" && shift ;;
        --only) option_list only "program names" "$@" && shift ;;
        --threads) threads=() && option_list threads "a list" "$@" && shift ;;
        --timeout) option_value run_timeout "seconds" "$@" && shift ;;
        *) other_argument "$1" ;;
    esac
    shift
done
[[ "$repeat" =~ ^[1-9][0-9]*$ ]] || die "--repeat must be a positive whole number, not '$repeat'"
[[ "$run_timeout" =~ ^[1-9][0-9]*$ ]] || die "--timeout must be a positive whole number of seconds"
for t in "${threads[@]}"; do
    [[ "$t" =~ ^[1-9][0-9]*$ ]] || die "--threads: '$t' is not a positive whole number"
done

# --- Compilers -------------------------------------------------------------------------------

ensure_compilers() {
    local missing=() c
    for c in gcc g++ gfortran; do
        command -v "$c" >/dev/null 2>&1 || missing+=("$c")
    done
    [ "${#missing[@]}" -gt 0 ] || return 0
    apt_install "missing: ${missing[*]}" gcc g++ gfortran ||
        die "${missing[*]} not found. Install the GNU compilers with OpenMP, on Debian/Ubuntu:" \
            "sudo apt-get install gcc g++ gfortran"
}
ensure_compilers
for tool in nm timeout; do
    need_command "$tool" "binutils, coreutils"
done

# The runs see none of the caller's OMP_* / GOMP_* settings, nor its LD_PRELOAD.
for v in $(compgen -e); do
    case "$v" in OMP_* | GOMP_*) unset "$v" ;; esac
done
unset LD_PRELOAD

# --- Build -------------------------------------------------------------------------------------

# This invocation's logs (each run's output, the symbol lists): kept on a failure, removed
# when everything passed; its own folder, so concurrent invocations do not mix them up.
mkdir -p "$out/logs"
logs="$(mktemp -d "$out/logs/run.XXXXXX")"
programs=()
declare -A prog_src
shopt -s nullglob
for f in "$src"/*.c "$src"/*.cpp "$src"/*.f90; do
    base="$(basename "$f")"
    name="${base%.*}_${base##*.}"
    prog_src[$name]="$f"
    programs+=("$name")
done
shopt -u nullglob
[ "${#programs[@]}" -gt 0 ] || die "no test programs in $src"
if [ "${#only[@]}" -gt 0 ]; then
    for p in "${only[@]}"; do
        [ -n "${prog_src[$p]:-}" ] || die "--only: no program '$p' (programs: ${programs[*]})"
    done
    programs=("${only[@]}")
fi

say "building ${programs[*]} into ${out#"$root"/}/"
build_start=$(date +%s)
for p in "${programs[@]}"; do
    f="${prog_src[$p]}"
    # Built under a temporary name, then renamed: a concurrent invocation still running the
    # previous binary keeps it.
    tmp="$logs/$p.bin"
    case "$f" in
        *.c) cmd=(gcc -O2 -fopenmp -Wall -o "$tmp" "$f") ;;
        *.cpp) cmd=(g++ -O2 -fopenmp -Wall -std=c++17 -o "$tmp" "$f") ;;
        *.f90) cmd=(gfortran -O2 -fopenmp -Wall -J "$logs" -o "$tmp" "$f") ;;
    esac
    if ! "${cmd[@]}" >"$logs/$p.build.log" 2>&1; then
        cat "$logs/$p.build.log" >&2
        die "building $p failed: ${cmd[*]}"
    fi
    mv -f "$tmp" "$out/$p"
    if [ -s "$logs/$p.build.log" ]; then
        say "warnings building $p:"
        cat "$logs/$p.build.log"
    fi
done
say "built in $(($(date +%s) - build_start)) s"

# --- The library -------------------------------------------------------------------------------

lib=""
if [ "$libgomp" = 1 ]; then
    label="libgomp (system, no preload)"
else
    if [ -n "${MAGPIE_OMP_LIB:-}" ]; then
        lib="$MAGPIE_OMP_LIB"
        [ -f "$lib" ] || die "MAGPIE_OMP_LIB=$lib: no such file"
    else
        command -v cargo >/dev/null 2>&1 || die "cargo not found on PATH (or set MAGPIE_OMP_LIB)"
        [ -f "$root/crates/magpie-omp/Cargo.toml" ] ||
            die "crates/magpie-omp does not exist yet: set MAGPIE_OMP_LIB or use --libgomp"
        say "cargo build --profile test-release -p magpie-omp"
        (cd "$root" && cargo build --profile test-release -p magpie-omp) ||
            die "cargo build -p magpie-omp failed"
        lib="${CARGO_TARGET_DIR:-$root/target}/test-release/libmagpie_omp.so"
        [ -f "$lib" ] || die "the build did not produce $lib"
    fi
    lib="$(cd "$(dirname "$lib")" && pwd -P)/$(basename "$lib")"
    label="$(basename "$lib") ($lib)"
fi
say "runtime: $label"

# --- Symbol and preload checks (magpie mode) ---------------------------------------------------

# GOMP_* / omp_* names, version suffixes (@GOMP_4.0) dropped.
omp_names() { sed 's/@.*//' | grep -E '^(GOMP_|omp_)' | sort -u; }

if [ -n "$lib" ]; then
    nm -D --defined-only "$lib" | awk '{print $3}' | omp_names >"$logs/exported.txt"
    missing_any=0
    for p in "${programs[@]}"; do
        nm -D --undefined-only "$out/$p" | awk '{print $2}' | omp_names >"$logs/$p.imports.txt"
        lacking="$(comm -23 "$logs/$p.imports.txt" "$logs/exported.txt")"
        if [ -n "$lacking" ]; then
            echo "omp-tests: $p imports symbols $(basename "$lib") does not export:" >&2
            while read -r sym; do echo "    $sym"; done <<<"$lacking" >&2
            missing_any=1
        fi
    done
    [ "$missing_any" = 0 ] || die "symbol check failed: the library lacks symbols the programs use"
    say "symbol check: every GOMP_*/omp_* import of the programs is exported ($(sort -u "$logs"/*.imports.txt | wc -l) distinct)"

    for p in "${programs[@]}"; do
        rm -f "$logs/$p.bindings".*
        LD_DEBUG=bindings LD_DEBUG_OUTPUT="$logs/$p.bindings" LD_PRELOAD="$lib" \
            OMP_NUM_THREADS=2 timeout -k 10 "$run_timeout" "$out/$p" >/dev/null 2>&1 || true
        # "PID: binding file PROG [0] to LIB [0]: normal symbol `NAME' [VERSION]", for the program.
        cat "$logs/$p.bindings".* 2>/dev/null |
            awk -v prog="$out/$p" '$2 == "binding" && $4 == prog' |
            grep -E "symbol \`(GOMP_|omp_)" >"$logs/$p.bindings.txt" || true
        rm -f "$logs/$p.bindings".[0-9]*
        to_gomp="$(grep -E ' to [^ ]*libgomp\.so' "$logs/$p.bindings.txt" || true)"
        if [ -n "$to_gomp" ]; then
            echo "$to_gomp" | head -n 10 >&2
            die "preload check: $p calls into libgomp, not $(basename "$lib") (log: $logs/$p.bindings.txt)"
        fi
        grep -qF " to $lib " "$logs/$p.bindings.txt" ||
            die "preload check: no GOMP_*/omp_* call of $p bound to $lib (did the preload take? log: $logs/$p.bindings.txt)"
    done
    say "preload check: the programs' GOMP_*/omp_* calls bind to $(basename "$lib"), none to libgomp"
fi

# --- Runs --------------------------------------------------------------------------------------

runs=0
failures=()

# run PROG THREADS SCHEDULE(- for unset) [bogus]
run_one() {
    local p="$1" t="$2" s="$3" mode="${4:-}" rc=0 why=""
    local tag="$p t=$t sched=$s"
    local log="$logs/$p.t$t.${s//[^A-Za-z0-9_]/_}"
    local envs=(OMP_NUM_THREADS="$t")
    [ "$s" = "-" ] || envs+=(OMP_SCHEDULE="$s")
    [ -z "$lib" ] || envs+=(LD_PRELOAD="$lib")
    runs=$((runs + 1))
    timeout -k 10 "$run_timeout" env "${envs[@]}" "$out/$p" >"$log.out" 2>"$log.err" || rc=$?
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        why="timed out after $run_timeout s (a hang?)"
    elif [ "$rc" -ne 0 ]; then
        why="exit status $rc"
    elif ! grep -qE "^[a-z0-9-]+: OK: " "$log.out"; then
        why="exit status 0 but no OK line on stdout"
    elif grep -qE "cannot be preloaded" "$log.err"; then
        why="the preload failed"
    elif [ "$mode" = bogus ]; then
        local n
        n="$(grep -c 'bogus' "$log.err" || true)"
        [ "$n" -eq 1 ] || why="stderr has $n lines mentioning 'bogus', want exactly 1"
    elif [ "$s" != "-" ] && grep -v '^libgomp: ' "$log.err" | grep -q 'OMP_SCHEDULE'; then
        why="stderr complains about a valid OMP_SCHEDULE"
    fi
    [ -n "$why" ] || return 0
    echo "omp-tests: FAIL: $p, OMP_NUM_THREADS=$t, OMP_SCHEDULE=$([ "$s" = - ] && echo '(unset)' || echo "$s"): $why" >&2
    echo "--- stdout (last 40 lines of $log.out) ---" >&2
    tail -n 40 "$log.out" >&2
    echo "--- stderr (last 40 lines of $log.err) ---" >&2
    tail -n 40 "$log.err" >&2
    echo "---" >&2
    failures+=("$tag: $why")
    if [ "$keep_going" = 0 ]; then
        die "stopped at the first failure ($runs runs; --keep-going runs everything)"
    fi
}

schedules=("${standard_schedules[@]}")
if [ -n "$lib" ]; then
    schedules+=("${magpie_schedules[@]}")
fi

start=$(date +%s)
for ((r = 1; r <= repeat; r++)); do
    [ "$repeat" -eq 1 ] || say "repeat $r of $repeat"
    for p in "${programs[@]}"; do
        p_start=$(date +%s)
        p_runs=$runs
        for t in "${threads[@]}"; do
            run_one "$p" "$t" -
            case "$p" in
                loops_*)
                    for s in "${schedules[@]}"; do
                        run_one "$p" "$t" "$s"
                    done
                    ;;
            esac
        done
        case "$p" in
            loops_*) [ -z "$lib" ] || run_one "$p" "${threads[-1]}" bogus bogus ;;
        esac
        say "$p: $((runs - p_runs)) runs in $(($(date +%s) - p_start)) s"
    done
done
total=$(($(date +%s) - start))

if [ "${#failures[@]}" -gt 0 ]; then
    echo "omp-tests: FAILED: ${#failures[@]} of $runs runs under $label (logs: $logs):" >&2
    printf '    %s\n' "${failures[@]}" >&2
    exit 1
fi
rm -rf "$logs"
say "OK: ${#programs[@]} programs, $runs runs (threads ${threads[*]}, repeat $repeat) passed under $label in $total s"
