#!/usr/bin/env bash
# rayon's own integration tests (`tests/*.rs`) and rayon-demo's programs, run under rayon
# and under locus in a scratch project outside this repository, and counted.
#
# Usage: scripts/rayon-suite.sh [RAYON_SOURCES]     (default: $RAYON_SRC)
#
# RAYON_SOURCES is a checkout of rayon (github.com/rayon-rs/rayon). Without one the
# script says so and does nothing. Nothing of rayon's is copied into this repository:
# the port is made in $SCRATCH (default: a fresh folder under /tmp) by rewriting the
# `rayon::` paths of each file to `locus::` paths (sed over the paths, nothing else).
# Each file is built once per flavour: `rayon` (rayon from the local registry,
# offline), `locus` (the ported file against locus, by path) and `dropin` (the file
# unchanged, with `[patch.crates-io] rayon = { path = crates/rayon-compat }`, as a user
# moves a whole dependency tree to locus). For each test file the table gives whether
# it compiles and how many of its tests pass; for each demo module, whether it
# compiles and how many of its tests and benchmarks (run once each, as `cargo test`
# does) pass. The demos get rayon-demo's dependencies from the local registry (offline:
# fetch them once first), nbody also glium and winit (a windowing stack, for its
# visualisation, built and not run); a module that needs a crate the registry lacks is
# marked so under every flavour.
#
# Environment: SCRATCH (the scratch folder), CARGO_TARGET_DIR (shared by all builds
# here; default $SCRATCH/target), RAYON_SUITE_TIMEOUT (seconds per test binary, 300),
# RAYON_SUITE_FLAVOURS (which to build; "rayon locus dropin"), RAYON_SUITE_PROFILE
# (`release` to build optimised), RAYON_SUITE_ONLY (an extended regular expression: only
# the test files and demo modules whose names match it run; all of them by default). A test binary that runs past the limit has each test
# it did not finish run alone, with the same limit; the table marks its count `(limit)`.
set -u

src=${1:-${RAYON_SRC:-}}
if [ -z "$src" ] || [ ! -d "$src/tests" ] || [ ! -f "$src/Cargo.toml" ]; then
    echo "rayon-suite: no rayon sources at '${src}' (pass a rayon checkout): nothing to do"
    exit 0
fi
src=$(cd "$src" && pwd)
repo=$(cd "$(dirname "$0")/.." && pwd)
scratch=${SCRATCH:-$(mktemp -d /tmp/rayon-suite.XXXXXX)}
mkdir -p "$scratch"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$scratch/target}
limit=${RAYON_SUITE_TIMEOUT:-300}
flavours=(${RAYON_SUITE_FLAVOURS:-rayon locus dropin})
only=${RAYON_SUITE_ONLY:-}
profile=()
if [ "${RAYON_SUITE_PROFILE:-}" = release ]; then
    profile=(--release)
fi

# The `rayon::` paths in locus: the same names, except the crate's.
port() {
    sed -E \
        -e 's/\bextern crate rayon\b/extern crate locus as rayon/g' \
        -e 's/\brayon::/locus::/g' \
        "$1" >"$2"
}

# A scratch package `$1` for flavour `$2` (rayon or locus), with extra dependencies $3.
package() {
    local dir=$1 flavour=$2 extra=$3
    mkdir -p "$dir"
    {
        echo '[package]'
        echo "name = \"$(basename "$dir")\""
        echo 'version = "0.0.0"'
        echo 'edition = "2021"'
        echo 'publish = false'
        echo '[dependencies]'
        case $flavour in
        locus) echo "locus = { path = \"$repo/crates/runtime\" }" ;;
        *) echo 'rayon = "1"' ;;
        esac
        printf '%b' "$extra"
        if [ "$flavour" = dropin ]; then
            echo '[patch.crates-io]'
            echo "rayon = { path = \"$repo/crates/rayon-compat\" }"
        fi
        echo '[workspace]'
    } >"$dir/Cargo.toml"
}

# Runs `cargo test` ($2...) in $1: prints "compiles passed/total" or "no".
run_tests() {
    local dir=$1
    shift
    local log=$dir/build.log
    if ! (cd "$dir" && cargo test --offline "${profile[@]}" "$@" --no-run) >"$log" 2>&1; then
        if grep -qE "unresolved (import|module or unlinked crate) .(docopt|cgmath|glium|winit|num|fixedbitset)" "$log"; then
            echo "needs-crate -"
        else
            echo "no -"
        fi
        return
    fi
    local out=$dir/test.log
    (cd "$dir" && timeout "$limit" cargo test --offline "${profile[@]}" "$@" -- --test-threads=1) >"$out" 2>&1
    local passed failed
    passed=$(grep -oE '[0-9]+ passed' "$out" | awk '{s += $1} END {print s + 0}')
    failed=$(grep -oE '[0-9]+ failed' "$out" | awk '{s += $1} END {print s + 0}')
    if grep -q "test result" "$out"; then
        echo "yes $passed/$((passed + failed))"
        return
    fi
    # The binary ran past the limit (or crashed): each test it did not finish runs alone,
    # with the same limit, so that a test that does not end costs only itself.
    local all ok=0 n=0 t
    all=$(cd "$dir" && cargo test --offline "${profile[@]}" "$@" -- --list 2>/dev/null | sed -n 's/: test$//p')
    for t in $all; do
        n=$((n + 1))
        if grep -qE "^test $t \.\.\. ok$" "$out"; then
            ok=$((ok + 1))
        elif ! grep -qE "^test $t \.\.\. (FAILED|ignored)" "$out" &&
            (cd "$dir" && timeout "$limit" cargo test --offline "${profile[@]}" "$@" -- --exact "$t") 2>&1 |
            grep -qE "^test $t \.\.\. ok$"; then
            ok=$((ok + 1))
        fi
    done
    echo "yes $ok/$n(limit)"
}

header=$(printf '%-28s' file)
for flavour in "${flavours[@]}"; do
    header+=$(printf ' %-9s %-14s' "$flavour" "$flavour-pass")
done
echo "$header"

# rayon's tests: one package per flavour, the test files ported (or not) into it.
for flavour in "${flavours[@]}"; do
    dir=$scratch/tests-$flavour
    package "$dir" "$flavour" '[dev-dependencies]\nrand = "0.10"\n'
    mkdir -p "$dir/src" "$dir/tests"
    : >"$dir/src/lib.rs"
    for f in "$src"/tests/*.rs; do
        if [ "$flavour" = locus ]; then
            port "$f" "$dir/tests/$(basename "$f")"
        else
            cp "$f" "$dir/tests/"
        fi
    done
done
declare -A total
for f in "$src"/tests/*.rs; do
    name=$(basename "$f" .rs)
    [[ -n $only && ! $name =~ $only ]] && continue
    ntests=$((${ntests:-0} + 1))
    line=$(printf '%-28s' "tests/$name")
    for flavour in "${flavours[@]}"; do
        read -r built pass < <(run_tests "$scratch/tests-$flavour" --test "$name")
        line+=$(printf ' %-9s %-14s' "$built" "$pass")
        if [ "$built" = yes ]; then
            total[$flavour-built]=$((${total[$flavour-built]:-0} + 1))
            if [[ $pass == */* ]]; then
                total[$flavour-pass]=$((${total[$flavour-pass]:-0} + ${pass%/*}))
            fi
        fi
    done
    echo "$line"
done

# rayon-demo: each program's module alone in a library, with the dependencies the
# offline registry has.
demos=()
if [ -d "$src/rayon-demo/src" ]; then
    for m in "$src"/rayon-demo/src/*; do
        name=$(basename "$m" .rs)
        case $name in main | lib | cpu_time) continue ;; esac
        [[ -n $only && ! $name =~ $only ]] && continue
        demos+=("$name")
    done
fi
for name in "${demos[@]}"; do
    line=$(printf '%-28s' "rayon-demo/$name")
    for flavour in "${flavours[@]}"; do
        dir=$scratch/demo-$flavour-$name
        extra='rand = "0.10"\nregex = "1"\nlibc = "0.2"\nserde = { version = "1", features = ["derive"] }\ndocopt = "1"\ncgmath = "0.18"\nfixedbitset = "0.5"\nnum = "0.4"\n'
        if [ "$name" = nbody ]; then
            extra+='glium = "0.36"\nwinit = "0.30"\n'
        fi
        package "$dir" "$flavour" "$extra"
        rm -rf "$dir/src"
        mkdir -p "$dir/src"
        # `sort` compares against rayon-demo's own `mergesort` and `quicksort` modules.
        mods=("$name")
        if [ "$name" = sort ]; then
            mods+=(mergesort quicksort)
        fi
        # The demos' input files (`tsp` reads data/tsp/ beside its manifest).
        if [ -d "$src/rayon-demo/data" ] && [ ! -e "$dir/data" ]; then
            cp -r "$src/rayon-demo/data" "$dir/data"
        fi
        (cd "$src/rayon-demo/src" && for m in "${mods[@]}"; do find "$m" "$m.rs" -name '*.rs'; done
            find cpu_time -name '*.rs') 2>/dev/null |
            while read -r f; do
                mkdir -p "$dir/src/$(dirname "$f")"
                if [ "$flavour" = locus ]; then
                    port "$src/rayon-demo/src/$f" "$dir/src/$f"
                else
                    cp "$src/rayon-demo/src/$f" "$dir/src/$f"
                fi
            done
        {
            echo '#![feature(test)]'
            echo '#![allow(dead_code, unused_imports)]'
            echo 'extern crate test;'
            echo 'mod cpu_time;'
            for m in "${mods[@]}"; do echo "pub mod $m;"; done
            # The helpers the modules take from rayon-demo's main.rs (`seeded_rng`).
            awk '/^(pub )?fn seeded_rng/,/^}/' "$src/rayon-demo/src/main.rs"
        } >"$dir/src/lib.rs"
        # rayon-demo's benchmarks use the unstable `test` crate. (Set here only: proc-macro2
        # rebuilds when RUSTC_BOOTSTRAP changes, and with it every crate above it.)
        read -r built pass < <(RUSTC_BOOTSTRAP=1 run_tests "$dir" --lib)
        line+=$(printf ' %-9s %-14s' "$built" "$pass")
        if [ "$built" = yes ]; then
            total[$flavour-demo]=$((${total[$flavour-demo]:-0} + 1))
        fi
    done
    echo "$line"
done

echo
for flavour in "${flavours[@]}"; do
    echo "$flavour: test files compiling ${total[$flavour-built]:-0} of ${ntests:-0}," \
        "tests passing ${total[$flavour-pass]:-0}, demo modules compiling ${total[$flavour-demo]:-0} of ${#demos[@]}"
done
echo "scratch: $scratch"
