#!/usr/bin/env bash
# Proves the rayon-core replacement (crates/magpie-rayon-core) with rayon's OWN test suites.
#
# Everything comes from the crate registry (crates.io, through cargo; no git clones):
#   1. Reads the versions of rayon and rayon-core from the workspace's Cargo.lock and finds their
#      sources in cargo's registry cache ($CARGO_HOME/registry/src/*/rayon-X.Y.Z); when they are
#      missing, `cargo fetch` brings them.
#   2. Copies them fresh into target/rayon-suite/ (its own CARGO_TARGET_DIR there, so the
#      workspace's build is left alone), makes each a standalone workspace and adds
#          [patch.crates-io] rayon-core = { path = "<repo>/crates/magpie-rayon-core" }
#   3. Checks with `cargo tree -i rayon-core` that the patch took (one rayon-core, at that path),
#      and that each suite builds the workspace's rayon (a crate's shipped Cargo.lock may pin an
#      older one: `cargo update -p rayon --precise` moves it).
#   4. Runs the suites (each: build with --no-run, then the tests, timed apart):
#        rayon       rayon's unit tests, integration tests (tests/*.rs) and doc tests
#        rayon-core  rayon-core's integration tests (tests/*.rs: public API only), in a small
#                    package, rayon-core-tests, with the release's [[test]] tables and
#                    dev-dependencies copied verbatim (rayon-core's unit tests read its
#                    internals, so they cannot run against another implementation)
#        <crate>     for each line of scripts/rayon-suite/crates.txt, a published crate that
#                    uses rayon internally (hashbrown, indexmap), its tests with its rayon
#                    feature on
#   5. Prints a summary table (tests passed/failed/ignored, from cargo's `test result:` lines,
#      build and test seconds) and writes it to target/rayon-suite/summary.json. Exits non-zero
#      when any suite fails. Each suite's whole output is in target/rayon-suite/logs/SUITE.log.
#
# Usage: scripts/rayon-suite.sh [--quick] [--core PATH|upstream] [--only SUITE[,SUITE]]
#                               [--profile NAME] [--timeout SECONDS]
#   --quick     the fixed CI subset (docs/testing.md, "rayon's own test suites"): rayon's unit
#               and integration tests without its doc tests, rayon-core's integration tests,
#               hashbrown's unit tests and tests/rayon.rs, indexmap's unit tests of src/rayon/
#   --core P    the rayon-core to patch in instead of crates/magpie-rayon-core; `upstream`
#               means a copy of the real rayon-core release from the registry (to check the
#               script itself: every suite passes that way)
#   --only S    run only these suites (rayon, rayon-core, or a crate of crates.txt); repeatable
#   --profile   cargo profile for the builds: dev (the default: the fastest whole run on two
#               cores, measured in docs/testing.md), release, or optimized (defined below:
#               opt-level 2 with debug assertions and overflow checks on)
#   --timeout   seconds one suite's build, and then its test run, may take before it counts
#               as failed (default 3600)
# Tests left out are listed in scripts/rayon-suite/skip.txt, with the reason for each.
# Works from any directory.
set -euo pipefail

# shellcheck source=lib/common.sh source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
support="$root/scripts/rayon-suite"
work="$root/target/rayon-suite"
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
export CARGO_TARGET_DIR="$work/target"
export CARGO_TERM_COLOR=never

quick=0
core="$root/crates/magpie-rayon-core"
core_label="crates/magpie-rayon-core"
only=()
profile="dev"
suite_timeout=3600
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=1 ;;
        --core) option_value core "a path (or 'upstream')" "$@" && core_label="$2" && shift ;;
        --profile) option_value profile "a name" "$@" && shift ;;
        --only) option_list only "a suite name" "$@" && shift ;;
        --timeout) option_value suite_timeout "seconds" "$@" && shift ;;
        *) other_argument "$1" ;;
    esac
    shift
done

need_command cargo

# --- Versions (the workspace's Cargo.lock) -------------------------------------------------

rayon_version="$(lock_version rayon "$root/Cargo.lock")"
core_version="$(lock_version rayon-core "$root/Cargo.lock")"
[ -n "$rayon_version" ] || die "no registry package rayon in $root/Cargo.lock"
[ -n "$core_version" ] || die "no registry package rayon-core in $root/Cargo.lock"

# Published crates: name, version, feature.
crate_names=()
declare -A crate_version crate_feature
while read -r name version feature _; do
    case "$name" in "" | "#"*) continue ;; esac
    crate_names+=("$name")
    crate_version[$name]="$version"
    crate_feature[$name]="$feature"
done <"$support/crates.txt"

all_suites=(rayon rayon-core "${crate_names[@]}")
if [ "${#only[@]}" -eq 0 ]; then
    suites=("${all_suites[@]}")
else
    suites=()
    for s in "${only[@]}"; do
        case " ${all_suites[*]} " in
            *" $s "*) suites+=("$s") ;;
            *) die "unknown suite '$s' (suites: ${all_suites[*]})" ;;
        esac
    done
fi

# --- Sources from the registry cache --------------------------------------------------------

# Makes sure every package "NAME VERSION" given is unpacked in the registry cache: first
# `cargo fetch --locked` in the repository (the workspace's own rayon and rayon-core), then a
# throwaway manifest that depends on exactly the missing ones.
ensure_sources() {
    local missing=() pair
    for pair in "$@"; do
        # shellcheck disable=SC2086
        registry_src $pair >/dev/null || missing+=("$pair")
    done
    [ "${#missing[@]}" -gt 0 ] || return 0
    say "fetching from the registry: ${missing[*]}"
    cargo fetch --locked --manifest-path "$root/Cargo.toml" >/dev/null 2>&1 || true
    local still=()
    for pair in "${missing[@]}"; do
        # shellcheck disable=SC2086
        registry_src $pair >/dev/null || still+=("$pair")
    done
    [ "${#still[@]}" -gt 0 ] || return 0
    local fetch="$work/fetch"
    rm -rf "$fetch"
    mkdir -p "$fetch/src"
    : >"$fetch/src/lib.rs"
    {
        printf '[package]\nname = "rayon-suite-fetch"\nversion = "0.0.0"\nedition = "2021"\n\n'
        printf '[dependencies]\n'
        local name version
        for pair in "${still[@]}"; do
            read -r name version <<<"$pair"
            printf '%s-%s = { package = "%s", version = "=%s" }\n' \
                "$name" "${version//./_}" "$name" "$version"
        done
        printf '\n[workspace]\n'
    } >"$fetch/Cargo.toml"
    (cd "$fetch" && cargo fetch) >&2 || true
    for pair in "${still[@]}"; do
        # shellcheck disable=SC2086
        registry_src $pair >/dev/null ||
            die "$pair is not in $cargo_home/registry/src even after cargo fetch (is crates.io reachable?)"
    done
}

needed=("rayon $rayon_version" "rayon-core $core_version")
for name in "${crate_names[@]}"; do
    needed+=("$name ${crate_version[$name]}")
done
mkdir -p "$work"
ensure_sources "${needed[@]}"

# --- The rayon-core to patch in -------------------------------------------------------------

if [ "$core" = "upstream" ]; then
    core="$work/upstream-rayon-core"
    core_label="upstream rayon-core $core_version (registry copy)"
    rm -rf "$core"
    cp -R -p "$(registry_src rayon-core "$core_version")" "$core"
    rm -f "$core/.cargo-ok" "$core/.cargo_vcs_info.json"
fi
[ -f "$core/Cargo.toml" ] || die "--core: no Cargo.toml in '$core'"
core="$(cd "$core" && pwd -P)"
core_name="$(awk '/^\[package\]/{p=1;next} /^\[/{p=0} p && /^name *=/{gsub(/[" ]/,"");sub(/name=/,"");print;exit}' "$core/Cargo.toml")"
[ "$core_name" = "rayon-core" ] ||
    die "$core/Cargo.toml names package '$core_name', not rayon-core: [patch.crates-io] would not match it"

# --- Manifest helpers -----------------------------------------------------------------------

# Prints the TOML tables of FILE whose header line matches the extended regex RE, verbatim.
tables() {
    awk -v re="$2" '
        /^\[/ { keep = ($0 ~ re) }
        keep
    ' "$1"
}

# Prints the non-optional [dependencies.X] (and [target.T.dependencies.X]) tables of FILE as
# [dev-dependencies.X] tables.
normal_deps_as_dev() {
    awk '
        function flush() { if (buf != "" && !optional) printf "%s", buf; buf = ""; optional = 0 }
        /^\[/ {
            flush()
            keep = ($0 ~ /^\[(target\..*\.)?dependencies\./)
            if (keep) { line = $0; sub(/dependencies\./, "dev-dependencies.", line); buf = line "\n" }
            next
        }
        keep { buf = buf $0 "\n"; if ($0 ~ /^optional *= *true/) optional = 1 }
        END { flush() }
    ' "$1"
}

# Deletes from FILE the tables whose header matches RE (dev-dependencies only the benches use).
drop_tables() {
    awk -v re="$2" '
        /^\[/ { drop = ($0 ~ re) }
        !drop
    ' "$1" >"$1.tmp"
    mv "$1.tmp" "$1"
}

# Appends to a copy's manifest what makes it a standalone workspace on the patched rayon-core,
# with the suite's build profile.
append_workspace() {
    cat >>"$1" <<EOF

# Added by scripts/rayon-suite.sh
[workspace]

[patch.crates-io]
rayon-core = { path = "$core" }

# --profile optimized: optimized code that keeps debug assertions and overflow checks, in
# parallel units without LTO (the default is dev, faster overall: the doc tests dominate).
[profile.optimized]
inherits = "release"
opt-level = 2
debug = "line-tables-only"
debug-assertions = true
overflow-checks = true
lto = false
codegen-units = 16
incremental = false
EOF
}

# Copies the registry source of NAME VERSION to DEST, fresh.
copy_source() {
    rm -rf "$3"
    cp -R -p "$(registry_src "$1" "$2")" "$3"
    rm -f "$3/.cargo-ok" "$3/.cargo_vcs_info.json"
    chmod -R u+w "$3"
}

# --- Preparing each suite -------------------------------------------------------------------

# Sets suite_dir, suite_features, cargo_args (cargo test's target selection) and test_args
# (what goes after --) for suite $1, after writing its copy.
prepare() {
    local s="$1"
    suite_features=""
    test_args=()
    case "$s" in
        rayon)
            suite_dir="$work/rayon"
            copy_source rayon "$rayon_version" "$suite_dir"
            append_workspace "$suite_dir/Cargo.toml"
            if [ "$quick" = 1 ]; then
                cargo_args=(--lib --tests)
                suite_scope="unit + integration tests (no doc tests)"
            else
                cargo_args=()
                suite_scope="unit + integration + doc tests"
            fi
            ;;
        rayon-core)
            suite_dir="$work/rayon-core-tests"
            local src
            src="$(registry_src rayon-core "$core_version")"
            rm -rf "$suite_dir"
            mkdir -p "$suite_dir/src"
            cp -R -p "$src/tests" "$suite_dir/tests"
            chmod -R u+w "$suite_dir"
            echo "// Empty: the tests are in tests/, copied from rayon-core $core_version." \
                >"$suite_dir/src/lib.rs"
            local dev tests
            # Its tests see its own dependencies too (crossbeam-utils): the non-optional ones
            # become dev-dependencies here.
            dev="$(normal_deps_as_dev "$src/Cargo.toml")

$(tables "$src/Cargo.toml" '^\[(target\..*\.)?dev-dependencies')"
            tests="$(tables "$src/Cargo.toml" '^\[\[test\]\]')"
            DEV="$dev" TESTS="$tests" VERSION="$core_version" awk '
                { gsub(/@VERSION@/, ENVIRON["VERSION"]) }
                /^@DEV_DEPENDENCIES@$/ { print ENVIRON["DEV"]; next }
                /^@TESTS@$/ { print ENVIRON["TESTS"]; next }
                { print }
            ' "$support/rayon-core-tests.toml" >"$suite_dir/Cargo.toml"
            append_workspace "$suite_dir/Cargo.toml"
            cargo_args=(--tests)
            suite_scope="integration tests (tests/*.rs)"
            ;;
        *)
            suite_dir="$work/$s"
            copy_source "$s" "${crate_version[$s]}" "$suite_dir"
            suite_features="${crate_feature[$s]}"
            case "$s" in
                hashbrown)
                    # criterion (with its HTML reports) serves only the benches, never run here.
                    drop_tables "$suite_dir/Cargo.toml" '^\[(\[bench\]\]|dev-dependencies\.criterion\])'
                    if [ "$quick" = 1 ]; then
                        cargo_args=(--lib --test rayon)
                        suite_scope="unit tests (src/external_trait_impls/rayon/ among them) + tests/rayon.rs"
                    else
                        cargo_args=()
                        suite_scope="all: unit + integration + doc tests"
                    fi
                    ;;
                indexmap)
                    if [ "$quick" = 1 ]; then
                        cargo_args=(--lib)
                        test_args=(rayon::)
                        suite_scope="unit tests of src/rayon/"
                    else
                        cargo_args=()
                        suite_scope="all: unit + integration + doc tests"
                    fi
                    ;;
                *)
                    cargo_args=()
                    suite_scope="all tests"
                    ;;
            esac
            append_workspace "$suite_dir/Cargo.toml"
            # Its shipped Cargo.lock may pin an older rayon: test the workspace's.
            (cd "$suite_dir" && cargo update -p rayon --precise "$rayon_version") \
                >"$work/logs/$s.update.log" 2>&1 ||
                die "$s: cargo update -p rayon --precise $rayon_version failed (see $work/logs/$s.update.log)"
            ;;
    esac
    # The skip list.
    local line sname filter
    while IFS= read -r line; do
        line="${line%%#*}"
        read -r sname filter _ <<<"$line" || true
        if [ "${sname:-}" = "$s" ] && [ -n "${filter:-}" ]; then
            test_args+=(--skip "$filter")
        fi
    done <"$support/skip.txt"
}

# Fails unless the copy in $suite_dir resolves rayon-core to $core, once.
check_patch() {
    local feat=() out
    [ -z "$suite_features" ] || feat=(--features "$suite_features")
    if ! out="$(cd "$suite_dir" && cargo tree -i rayon-core -e normal,dev --prefix none \
        "${feat[@]}" 2>"$work/logs/$1.tree.err")"; then
        cat "$work/logs/$1.tree.err" >&2
        die "the patch did not take in $suite_dir: cargo tree -i rayon-core failed (more than one rayon-core?)"
    fi
    if ! head -n 1 <<<"$out" | grep -qF "rayon-core v$core_version ($core)"; then
        echo "$out" | head -n 5 >&2
        grep -i 'patch' "$work/logs/$1.tree.err" >&2 || true
        die "the patch did not take in $suite_dir: rayon-core does not resolve to $core"
    fi
    if [ "$1" != "rayon-core" ]; then
        out="$(cd "$suite_dir" && cargo tree -i rayon -e normal,dev --prefix none --depth 0 \
            "${feat[@]}" 2>>"$work/logs/$1.tree.err")" || true
        head -n 1 <<<"$out" | grep -qE "^rayon v$rayon_version( |\$)" ||
            die "$1 resolves rayon to '$(head -n 1 <<<"$out")', not rayon $rayon_version (Cargo.lock)"
    fi
}

# --- Running --------------------------------------------------------------------------------

declare -A r_status r_passed r_failed r_ignored r_build r_test r_command r_scope r_targets

# Sums the `test result:` lines of log $1: prints "passed failed ignored failed-targets".
count_results() {
    awk '
        /^test result: / {
            for (i = 1; i <= NF; i++) {
                if ($(i) ~ /^passed;?$/) p += $(i - 1)
                if ($(i) ~ /^failed;?$/) f += $(i - 1)
                if ($(i) ~ /^ignored;?$/) g += $(i - 1)
            }
        }
        /^error: test failed, to rerun pass/ { t++ }
        END { printf "%d %d %d %d\n", p, f, g, t }
    ' "$1"
}

run_suite() {
    local s="$1" log="$work/logs/$1.log" feat=() t0 t1 t2 rc=0
    say "=== $s ==="
    prepare "$s"
    [ -z "$suite_features" ] || feat=(--features "$suite_features")
    check_patch "$s"
    say "$s: rayon-core resolves to $core (patch took); running $suite_scope"
    local cmd=(cargo test --profile "$profile" --no-fail-fast "${feat[@]}" "${cargo_args[@]}")
    [ "${#test_args[@]}" -eq 0 ] || cmd+=(-- "${test_args[@]}")
    r_command[$s]="cd ${suite_dir#"$root"/} && ${cmd[*]}"
    r_scope[$s]="$suite_scope"
    : >"$log"
    t0=$(date +%s)
    # The build (every test binary; doc tests compile as they run, in the test step).
    local build=(cargo test --profile "$profile" --no-run "${feat[@]}")
    local a
    for a in "${cargo_args[@]}"; do [ "$a" = "--doc" ] || build+=("$a"); done
    if ! (cd "$suite_dir" && timeout "$suite_timeout" "${build[@]}") >>"$log" 2>&1; then
        t1=$(date +%s)
        tail -n 40 "$log" >&2
        r_status[$s]="BUILD FAILED"
        r_passed[$s]=0 r_failed[$s]=0 r_ignored[$s]=0 r_targets[$s]=0
        r_build[$s]=$((t1 - t0)) r_test[$s]=0
        say "$s: build FAILED (log: $log)"
        return 0
    fi
    t1=$(date +%s)
    say "$s: built in $((t1 - t0)) s; testing: ${r_command[$s]}"
    local statuses
    set +e
    (cd "$suite_dir" && timeout "$suite_timeout" "${cmd[@]}") 2>&1 | tee -a "$log" |
        grep --line-buffered -E '^ +(Running|Doc-tests) |^test result: |FAILED|panicked at|has been running for|^error'
    statuses=("${PIPESTATUS[@]}")
    set -e
    rc=${statuses[0]}
    t2=$(date +%s)
    local p f g t
    read -r p f g t < <(count_results "$log")
    r_passed[$s]=$p r_failed[$s]=$f r_ignored[$s]=$g r_targets[$s]=$t
    r_build[$s]=$((t1 - t0)) r_test[$s]=$((t2 - t1))
    if [ "$rc" -eq 0 ]; then
        r_status[$s]="ok"
    elif [ "$rc" -eq 124 ]; then
        r_status[$s]="TIMEOUT"
    else
        r_status[$s]="FAILED"
        # The failures' messages, as libtest prints them (names and panic messages).
        awk '/^failures:$/ {p = 1} /^test result: / {p = 0} p' "$log" | head -n 200
    fi
    say "$s: ${r_status[$s]}: $p passed, $f failed, $g ignored, tests in $((t2 - t1)) s (log: $log)"
}

json_str() {
    local v="${1//\\/\\\\}"
    v="${v//\"/\\\"}"
    printf '"%s"' "$v"
}

mkdir -p "$work/logs"
rm -f "$work/summary.json"
mode="full"
[ "$quick" = 0 ] || mode="quick"
say "rayon $rayon_version and rayon-core $core_version (from Cargo.lock), mode $mode, profile $profile"
say "rayon-core patched in: $core_label ($core)"
say "suites: ${suites[*]}; work dir $work"
start=$(date +%s)
for s in "${suites[@]}"; do
    run_suite "$s"
done
total=$(($(date +%s) - start))

failed_any=0
echo
printf '%-12s %-13s %7s %7s %8s %8s %8s  %s\n' suite status passed failed ignored build_s test_s scope
for s in "${suites[@]}"; do
    printf '%-12s %-13s %7s %7s %8s %8s %8s  %s\n' "$s" "${r_status[$s]}" "${r_passed[$s]}" \
        "${r_failed[$s]}" "${r_ignored[$s]}" "${r_build[$s]}" "${r_test[$s]}" "${r_scope[$s]}"
    [ "${r_status[$s]}" = "ok" ] || failed_any=1
done
echo "total: $total s (mode $mode, profile $profile, rayon-core: $core_label)"

{
    echo "["
    n=0
    for s in "${suites[@]}"; do
        [ "$n" -eq 0 ] || echo ","
        n=$((n + 1))
        printf '  {"suite": %s, "status": %s, "passed": %d, "failed": %d, "ignored": %d, ' \
            "$(json_str "$s")" "$(json_str "${r_status[$s]}")" "${r_passed[$s]}" "${r_failed[$s]}" "${r_ignored[$s]}"
        printf '"failed_targets": %d, "seconds": %d, "build_seconds": %d, "test_seconds": %d, ' \
            "${r_targets[$s]}" "$((r_build[$s] + r_test[$s]))" "${r_build[$s]}" "${r_test[$s]}"
        printf '"mode": %s, "profile": %s, "scope": %s, "rayon_core": %s, "command": %s}' \
            "$(json_str "$mode")" "$(json_str "$profile")" "$(json_str "${r_scope[$s]}")" \
            "$(json_str "$core")" "$(json_str "${r_command[$s]}")"
    done
    echo
    echo "]"
} >"$work/summary.json"
say "summary: $work/summary.json"

if [ "$failed_any" -ne 0 ]; then
    say "FAILED: at least one suite failed (see the logs in $work/logs)"
    exit 1
fi
say "all suites passed"
