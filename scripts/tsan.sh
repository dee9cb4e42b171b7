#!/usr/bin/env bash
# ThreadSanitizer over the runtime's concurrency tests (the suite's stress, cross-pool,
# panic, scope and domain tests, and the unit tests of the queues and the sleep
# protocol), with the standard library rebuilt instrumented, on the nightly toolchain.
# The longer check of docs/development.md; not part of scripts/test.sh, which runs on
# stable.
#
# scripts/tsan.supp suppresses crossbeam-deque's deliberate push/steal race (as
# crossbeam's own TSan runs do) and crossbeam-epoch's standalone SeqCst fences, which
# TSan does not model. Reports inside locus's own code are not suppressed.
#
# Usage: bash scripts/tsan.sh [FILTER...]   (FILTER: the suite's modules, default below)
set -euo pipefail
cd "$(dirname "$0")/.."
if ! rustup +nightly component list --installed 2>/dev/null | grep -q '^rust-src'; then
    echo "scripts/tsan.sh: the nightly toolchain with rust-src is missing; install it with" \
        "'rustup toolchain install nightly && rustup +nightly component add rust-src'" >&2
    exit 2
fi
target=$(rustc +nightly -vV | sed -n 's/^host: //p')
export RUSTFLAGS="-Zsanitizer=thread"
export RUSTDOCFLAGS="-Zsanitizer=thread"
export TSAN_OPTIONS="suppressions=$PWD/scripts/tsan.supp halt_on_error=1 second_deadlock_stack=1"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target/tsan}
modules=("$@")
if [[ ${#modules[@]} -eq 0 ]]; then
    modules=(api:: stress:: cross:: panics:: domains:: raw:: events::)
fi
cargo +nightly test -Zbuild-std --target "$target" -p locus --lib -- --skip loom
cargo +nightly test -Zbuild-std --target "$target" -p locus --test suite -- "${modules[@]}"
