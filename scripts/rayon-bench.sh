#!/usr/bin/env bash
# One rayon program on rayon's own rayon-core and on magpie's, side by side (issue 32).
#
#   1. Builds bench/rayon-program twice from the same source, each into its own target dir:
#        target/rayon-bench/rayon   cargo build --release --locked          (rayon-core from crates.io)
#        target/rayon-bench/magpie  cargo build --release --config 'patch.crates-io.rayon-core.path="CORE"'
#      CORE is crates/magpie-rayon-core unless --magpie-core says otherwise. The rayon build uses
#      the program's committed Cargo.lock; the magpie build starts from the workspace's Cargo.lock
#      (so magpie and its dependencies are the versions the workspace tests), its own lock is kept
#      as target/rayon-bench/magpie/Cargo.lock, and the program's Cargo.lock is put back as it was.
#   2. Checks with `cargo tree -i rayon-core` that each build uses what it claims (the rayon build:
#      rayon-core from the registry; the magpie build: rayon-core at CORE), and prints what each
#      binary's `info` says it runs on (from its own workers' frames and types).
#   3. Builds magpie-bench (release) and runs
#        magpie-bench rayon-program --rayon target/rayon-bench/rayon/release/rayon-program \
#                                   --magpie target/rayon-bench/magpie/release/rayon-program ARGS...
#      which runs both alternately in rounds and reports, per workload and thread count, the
#      median times, their ratio magpie/rayon with its 95% CI, and the CPU times' ratio
#      (`magpie-bench rayon-program --help`; the JSON fields are in crates/magpie-bench/src/rayon_compat.rs).
#
# Usage: scripts/rayon-bench.sh [--magpie-core PATH|upstream] [--build-only] [ARGS...]
#   --magpie-core P  the rayon-core patched into the "magpie" build instead of
#                    crates/magpie-rayon-core; `upstream` means a copy of rayon's own rayon-core
#                    release from the registry (runs the whole pipeline with ratios near 1, e.g.
#                    while the replacement does not compile; magpie-bench then warns that both
#                    binaries run rayon's core)
#   --build-only     stop after step 2
#   ARGS             for magpie-bench rayon-program: [--workers 1,2] [--rounds N] [--reps R]
#                    [--warmup U] [--quick] [--workloads LIST] [--json FILE] [--timeout SECS]
# Examples:
#   scripts/rayon-bench.sh --quick --rounds 1 --reps 1          # smoke test, about a minute after the builds
#   scripts/rayon-bench.sh --workers 1,2 --rounds 6 --reps 2 --json target/rayon-bench/rows.json
# Works from any directory. Builds and runs one thing at a time (it measures: keep the machine quiet).
set -euo pipefail

# shellcheck source=lib/common.sh source-path=SCRIPTDIR
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
say_fd=2
program="$root/bench/rayon-program"
out="$root/target/rayon-bench"
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
export CARGO_TERM_COLOR=never

core="$root/crates/magpie-rayon-core"
build_only=0
bench_args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --magpie-core) option_value core "a path (or 'upstream')" "$@" && shift ;;
        --build-only) build_only=1 ;;
        -h | --help) usage ;;
        *) bench_args+=("$1") ;;
    esac
    shift
done
need_command cargo
mkdir -p "$out"

# The version of rayon-core the program's lock names (its registry entry).
core_version="$(lock_version rayon-core "$program/Cargo.lock")"
[ -n "$core_version" ] || die "no registry package rayon-core in $program/Cargo.lock"

if [ "$core" = upstream ]; then
    # A fresh copy of rayon's own release, made a workspace of its own (it sits under the
    # repository's directory, whose workspace it is not a member of).
    src="$(registry_src rayon-core "$core_version")" || {
        cargo fetch --locked --manifest-path "$program/Cargo.toml" >&2
        src="$(registry_src rayon-core "$core_version")" ||
            die "rayon-core $core_version is not in $cargo_home/registry/src after cargo fetch"
    }
    core="$out/upstream/rayon-core-$core_version"
    rm -rf "$core"
    mkdir -p "$out/upstream"
    cp -R "$src" "$core"
    chmod -R u+w "$core"
    printf '\n[workspace]\n' >>"$core/Cargo.toml"
    say "the magpie build gets a copy of rayon's own rayon-core $core_version: $core"
fi
[ -f "$core/Cargo.toml" ] || die "--magpie-core $core: no Cargo.toml there"
core="$(cd "$core" && pwd -P)"
patch="patch.crates-io.rayon-core.path=\"$core\""

# --- 1. Builds ----------------------------------------------------------------------------------

say "building the program on rayon's core (target/rayon-bench/rayon)"
cargo build --release --locked --manifest-path "$program/Cargo.toml" \
    --target-dir "$out/rayon" >&2

lock="$program/Cargo.lock"
saved="$out/rayon-program.Cargo.lock"
cp -p "$lock" "$saved"
restore() { cp -p "$saved" "$lock"; }
trap restore EXIT
magpie_lock="$out/magpie/Cargo.lock"
mkdir -p "$out/magpie"
# The previous magpie build's lock if it was made for the same core and the workspace's lock has
# not changed since (an unchanged program is not rebuilt), else the workspace's.
if [ -f "$magpie_lock" ] && [ "$magpie_lock" -nt "$root/Cargo.lock" ] &&
    [ "$(cat "$magpie_lock.core" 2>/dev/null)" = "$core" ]; then
    cp -p "$magpie_lock" "$lock"
else
    cp -p "$root/Cargo.lock" "$lock"
fi
say "building the program on $core (target/rayon-bench/magpie)"
cargo build --release --manifest-path "$program/Cargo.toml" --target-dir "$out/magpie" \
    --config "$patch" >&2

# --- 2. What each build uses --------------------------------------------------------------------

magpie_tree="$(cargo tree --manifest-path "$program/Cargo.toml" --config "$patch" \
    -e normal -i rayon-core 2>&1)" || die "cargo tree (magpie build): $magpie_tree"
cp -p "$lock" "$magpie_lock"
echo "$core" >"$magpie_lock.core"
restore
trap - EXIT
rayon_tree="$(cargo tree --locked --manifest-path "$program/Cargo.toml" \
    -e normal -i rayon-core 2>&1)" || die "cargo tree (rayon build): $rayon_tree"
# First lines by parameter expansion, not `| head`: under pipefail, head closing the pipe early
# could kill the writer with SIGPIPE (exit 141).
rayon_first="${rayon_tree%%$'\n'*}"
magpie_first="$(printf '%s\n' "$magpie_tree" | grep -v '^warning' || true)"
magpie_first="${magpie_first%%$'\n'*}"
[ "$rayon_first" = "rayon-core v$core_version" ] ||
    die "the rayon build does not use the registry's rayon-core $core_version: cargo tree -i rayon-core says '$rayon_first'"
[ "$magpie_first" = "rayon-core v$core_version ($core)" ] ||
    die "the magpie build does not use $core: cargo tree -i rayon-core says '$magpie_first' (a patch cargo did not use?)"
say "cargo tree -i rayon-core: rayon build: $rayon_first"
say "cargo tree -i rayon-core: magpie build: $magpie_first"

rayon_bin="$out/rayon/release/rayon-program"
magpie_bin="$out/magpie/release/rayon-program"
say "rayon  build's info: $("$rayon_bin" info)"
say "magpie build's info: $("$magpie_bin" info)"
if [ "$build_only" = 1 ]; then
    exit 0
fi

# --- 3. The comparison --------------------------------------------------------------------------

say "building magpie-bench"
cargo build --release --manifest-path "$root/Cargo.toml" -p magpie-bench >&2
say "$(machine_line)"
exec "$root/target/release/magpie-bench" rayon-program --rayon "$rayon_bin" --magpie "$magpie_bin" \
    ${bench_args[@]+"${bench_args[@]}"}
