#!/usr/bin/env bash
# Makes sure the system's MPI is there for magpie-mpi (the `mpi` crate compiles its bindings
# with bindgen against the MPI headers): Open MPI's headers, mpicc and mpirun, and libclang.
# Installs them with apt-get when run as root on Debian/Ubuntu; otherwise names them in one
# error and exits 1.
set -euo pipefail

have_libclang() {
    ldconfig -p 2>/dev/null | grep -q 'libclang[-.0-9]*\.so' ||
        compgen -G '/usr/lib/llvm-*/lib/libclang*.so*' >/dev/null
}

if command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1 && have_libclang; then
    exit 0
fi
packages="libopenmpi-dev openmpi-bin libclang-dev"
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure-mpi: installing $packages (apt-get)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq $packages >/dev/null
    exit 0
fi
echo "ensure-mpi: error: MPI is missing (mpicc, mpirun or libclang not found). Install the" \
    "system's MPI and libclang, on Debian/Ubuntu: sudo apt-get install $packages" >&2
exit 1
