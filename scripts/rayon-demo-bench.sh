#!/usr/bin/env bash
# rayon-demo's benchmarks under rayon and under locus, alternated, and their ratio.
#
# Usage: scripts/rayon-demo-bench.sh SCRATCH [ROUNDS]
#
# SCRATCH is a folder in which scripts/rayon-suite.sh made the demos' packages for the
# flavours `rayon` and `locus` (run it first, e.g. with RAYON_SUITE_FLAVOURS="rayon
# locus" RAYON_SUITE_PROFILE=release SCRATCH=...; its CARGO_TARGET_DIR too, so the
# builds are reused). Each demo module's `#[bench]` functions (the unstable `test`
# crate's harness, hence RUSTC_BOOTSTRAP) run ROUNDS times per flavour (default 3), the
# flavours alternated and their order swapped every round. For each benchmark the table
# gives the median ns/iter of each and locus over rayon; the last lines count the
# benchmarks above 1.10 and name the worst. Compare the columns of one run, not runs.
set -u

scratch=${1:-}
rounds=${2:-3}
if [ -z "$scratch" ] || ! compgen -G "$scratch/demo-rayon-*" >/dev/null; then
    echo "rayon-demo-bench: no demo packages in '${scratch}' (run scripts/rayon-suite.sh" \
        "with that SCRATCH and RAYON_SUITE_FLAVOURS=\"rayon locus\" first)" >&2
    exit 2
fi
if ! [[ $rounds =~ ^[1-9][0-9]*$ ]]; then
    echo "rayon-demo-bench: ROUNDS must be a positive whole number, not '$rounds'" >&2
    exit 2
fi
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$scratch/target}
results=$(mktemp)
trap 'rm -f "$results"' EXIT

# Runs the benchmarks of package $1 and appends "flavour module bench ns" lines.
bench() {
    local dir=$1 flavour=$2 module=$3
    (cd "$dir" && RUSTC_BOOTSTRAP=1 cargo bench --offline --lib 2>/dev/null) |
        awk -v f="$flavour" -v m="$module" '
            /^test .* bench: / {
                ns = $0; sub(/.*bench: */, "", ns); sub(/ ns\/iter.*/, "", ns); gsub(/,/, "", ns)
                print f, m, $2, ns
            }' >>"$results"
}

for dir in "$scratch"/demo-rayon-*; do
    module=${dir##*/demo-rayon-}
    other=$scratch/demo-locus-$module
    [ -d "$other" ] || continue
    for ((r = 0; r < rounds; r++)); do
        if ((r % 2 == 0)); then
            bench "$dir" rayon "$module"
            bench "$other" locus "$module"
        else
            bench "$other" locus "$module"
            bench "$dir" rayon "$module"
        fi
    done
done

sort -k2,2 -k3,3 "$results" | awk '
    function median(list,   n, a, i, j, t) {
        n = split(list, a, " ")
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
            t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
        }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    { key = $2 " " $3; keys[key] = 1; runs[$1, key] = runs[$1, key] " " $4 }
    END {
        printf "%-16s %-44s %14s %14s %8s\n", "module", "benchmark", "rayon ns", "locus ns", "ratio"
        n = 0; above = 0; worst = 0
        for (key in keys) {
            if (!((("rayon", key) in runs) && (("locus", key) in runs))) continue
            split(key, k, " ")
            r = median(runs["rayon", key]); l = median(runs["locus", key])
            ratio = r > 0 ? l / r : 0
            printf "R %-16s %-44s %14d %14d %8.2f\n", k[1], k[2], r, l, ratio
            n++; if (ratio > 1.10) above++
            if (ratio > worst) { worst = ratio; worst_key = key }
        }
        printf "S\nS %d benchmarks; %d above 1.10x rayon; worst %.2f (%s)\n", n, above, worst, worst_key
    }' >"$results.table"
head -n 1 "$results.table"
grep '^R ' "$results.table" | sort | cut -c3-
grep '^S' "$results.table" | cut -c3-
rm -f "$results.table"
