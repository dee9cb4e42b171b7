#!/usr/bin/env bash
# The whole test suite, as CI runs it: formatting, lints and the API documentation's
# links with warnings as errors, then every test of the workspace (the loom models
# included), then the tests of locus inside MPI ranks (scripts/test-mpi.sh: crates/mpi
# is outside the workspace's members, so that the workspace builds without MPI; the
# script installs Open MPI and libclang with apt-get where they are missing, and fails,
# naming them, where it cannot). The OpenMP layer's tests compile C and Fortran programs
# with the system's gcc and gfortran: installed the same way where missing.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/packages.sh
source scripts/packages.sh
for tool in fmt clippy; do
    if ! cargo "$tool" --version >/dev/null 2>&1; then
        echo "scripts/test.sh: 'cargo $tool' is missing; install it with" \
            "'rustup component add rustfmt clippy'" >&2
        exit 2
    fi
done
# A crate's integration tests under tests/suite/ build as one binary whose main.rs
# declares each file; a file it does not declare would never be compiled or run.
for suite in crates/*/tests/suite; do
    for file in "$suite"/*.rs; do
        module=$(basename "$file" .rs)
        if [[ $module != main ]] && ! grep -qx "mod $module;" "$suite/main.rs"; then
            echo "scripts/test.sh: $file is not declared in $suite/main.rs" \
                "(add 'mod $module;' there)" >&2
            exit 1
        fi
    done
done
cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps
install_missing scripts/test.sh gcc gfortran
cargo test --workspace
bash scripts/test-mpi.sh
