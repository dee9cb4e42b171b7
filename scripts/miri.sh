#!/usr/bin/env bash
# Miri over the runtime's unit tests and the integration tests that exercise its
# unsafe code (the deques' and latches' hand-offs, stack jobs, panics crossing joins,
# scopes), on the nightly toolchain. The longer check of docs/development.md; not part
# of scripts/test.sh, which runs on stable. Counts shrink under cfg(miri).
#
# Each flag answers something outside locus:
# - -Zmiri-permissive-provenance, -Zmiri-tree-borrows: crossbeam-epoch casts integers
#   to pointers and its intrusive list breaks Stacked Borrows (crossbeam itself runs
#   under Tree Borrows);
# - -Zmiri-disable-data-race-detector: crossbeam-deque's steal reads a slot the owner
#   may be writing, a documented deliberate race that crossbeam's own Miri runs
#   exclude (races in locus's own synchronisation are the loom models' job, and
#   scripts/tsan.sh's);
# - -Zmiri-ignore-leaks: the global pool's threads live as long as the process;
# - -Zmiri-disable-isolation: the pools read the machine's topology from sysfs.
#
# Usage: bash scripts/miri.sh [FILTER...]   (FILTER: the suite's modules, default below)
set -euo pipefail
cd "$(dirname "$0")/.."
if ! cargo +nightly miri --version >/dev/null 2>&1; then
    echo "scripts/miri.sh: Miri is missing; install it with" \
        "'rustup toolchain install nightly && rustup +nightly component add miri rust-src'" >&2
    exit 2
fi
export MIRIFLAGS="-Zmiri-disable-isolation -Zmiri-permissive-provenance -Zmiri-tree-borrows \
-Zmiri-disable-data-race-detector -Zmiri-ignore-leaks"
modules=("$@")
if [[ ${#modules[@]} -eq 0 ]]; then
    modules=(api:: panics:: stress:: bitier:: cross::)
fi
# The runtime's unit tests, without the loom models (they need --cfg loom).
cargo +nightly miri test -p locus --lib -- --skip loom
cargo +nightly miri test -p locus --test suite -- "${modules[@]}"
