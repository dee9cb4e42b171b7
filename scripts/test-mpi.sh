#!/usr/bin/env bash
# The tests of locus inside MPI ranks (crates/mpi), as CI runs them after
# scripts/test.sh: installs what the crate needs from the system when it is missing
# (Open MPI, libclang for bindgen, pkg-config; Debian or Ubuntu, apt-get), then checks
# the crate's formatting and lints and runs its tests, which start `mpirun` with 1, 2
# and 4 ranks. The crate is outside the workspace's members, so `cargo test
# --workspace` builds on a machine without MPI; this script is how its tests run.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's names; the install line the README gives.
packages=(openmpi-bin libopenmpi-dev libclang-dev pkg-config)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if ((${#missing[@]})); then
    echo "scripts/test-mpi.sh: installing ${missing[*]}" >&2
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "scripts/test-mpi.sh: ${missing[*]} missing and there is no apt-get here;" \
            "install Open MPI (mpirun, mpicc and its headers), libclang and pkg-config" \
            "with this system's package manager, then run this script again" >&2
        exit 2
    fi
    sudo=()
    if ((EUID != 0)); then
        if sudo -n true 2>/dev/null; then
            sudo=(sudo -n)
        else
            echo "scripts/test-mpi.sh: ${missing[*]} missing, and installing them needs" \
                "root; run: sudo apt-get install ${packages[*]}" >&2
            exit 2
        fi
    fi
    export DEBIAN_FRONTEND=noninteractive
    if ! { "${sudo[@]}" apt-get update -qq &&
        "${sudo[@]}" apt-get install -y -qq "${missing[@]}"; }; then
        echo "scripts/test-mpi.sh: 'apt-get install ${missing[*]}' failed (see above)" >&2
        exit 2
    fi
fi

for tool in mpirun mpicc pkg-config; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "scripts/test-mpi.sh: '$tool' is not on PATH although" \
            "${packages[*]} are installed" >&2
        exit 2
    fi
done

manifest=crates/mpi/Cargo.toml
# The workspace's target directory: the crates locus-mpi shares with the workspace
# (locus, its kernels, their dependencies) are then built once for scripts/test.sh and
# this script, not twice.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
cargo fmt --manifest-path "$manifest" --check
cargo clippy --manifest-path "$manifest" --locked --all-targets -- -D warnings
cargo test --manifest-path "$manifest" --locked
