# Helpers shared by scripts/omp-tests.sh, omp-bench.sh, rayon-suite.sh and rayon-bench.sh.
# Sourced (never run) right after `set -euo pipefail`:
#
#     . "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
#
# It sets `root` (the repository, absolute, links resolved) and `script_name` (the sourcing
# script's file name without .sh: the prefix of every line die and say print), and defines
# the functions below. say writes to stdout; a script that keeps stdout for results sets
# say_fd=2 after sourcing.
# shellcheck shell=bash

common_script="${BASH_SOURCE[1]}"
script_name="$(basename "$common_script" .sh)"
root="$(cd "$(dirname "$common_script")/.." && pwd -P)"
say_fd=1

die() {
    echo "$script_name: error: $*" >&2
    exit 1
}
say() {
    echo "$script_name: $*" >&"$say_fd"
}

# The sourcing script's header comment (line 2 up to `set -euo pipefail`) as its --help, and
# exit 0.
usage() {
    sed -n '2,/^set -euo/p' "$common_script" | sed '$d; s/^# \{0,1\}//'
    exit 0
}

# In an option loop, for what no case of the script's took: -h/--help prints the usage;
# anything else is an error.
other_argument() {
    case "$1" in
        -h | --help) usage ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
}

# option_value VAR WHAT "$@": sets VAR to the argument after the option $1 (the caller then
# shifts once more), or dies saying that the option needs WHAT.
option_value() {
    local var="$1" what="$2"
    shift 2
    [ $# -ge 2 ] || die "$1 needs $what"
    printf -v "$var" '%s' "$2"
}

# option_list ARRAY WHAT "$@": as option_value, for a comma-separated list appended to ARRAY.
option_list() {
    local -n option_list_into="$1"
    local value items
    option_value value "$2" "${@:3}"
    IFS=',' read -r -a items <<<"$value"
    option_list_into+=("${items[@]}")
}

# need_command NAME [HINT]: dies unless NAME is on PATH (HINT says where to get it).
need_command() {
    command -v "$1" >/dev/null 2>&1 || die "$1 not found on PATH${2:+ ($2)}"
}

# apt_install NOTE PACKAGE...: as root on a system with apt-get (Debian/Ubuntu), installs the
# packages quietly, saying so on stderr (with NOTE, if any, after "apt-get; "); elsewhere
# installs nothing and returns 1.
apt_install() {
    local note="${1:+; $1}"
    shift
    if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then return 1; fi
    echo "$script_name: installing $* (apt-get$note)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# lock_version NAME LOCKFILE: the version of the registry package NAME in a Cargo.lock (not
# a path package of the same name); nothing if there is none.
lock_version() {
    awk -v want="$1" '
        /^\[\[package\]\]/ { name = ""; version = ""; next }
        /^name = /    { name = $3; gsub(/"/, "", name) }
        /^version = / { version = $3; gsub(/"/, "", version) }
        /^source = "registry\+/ { if (name == want) { print version; exit } }
    ' "$2"
}

# registry_src NAME VERSION: the unpacked source folder of NAME-VERSION in cargo's registry
# cache ($CARGO_HOME/registry/src), if it is there; returns 1 if not.
registry_src() {
    local d
    for d in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"$1-$2"; do
        if [ -f "$d/Cargo.toml" ]; then
            echo "$d"
            return 0
        fi
    done
    return 1
}

# One line for a measurement's record: the UTC time, the commit and the CPUs.
machine_line() {
    echo "$(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
}
