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

# shellcheck source=scripts/packages.sh
source scripts/packages.sh
install_missing scripts/test-mpi.sh "${packages[@]}"

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
