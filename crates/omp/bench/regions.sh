#!/usr/bin/env bash
# The cost of a team, locus's libgomp against GCC's: builds regions.c with `gcc -fopenmp`
# and runs it ROUNDS times under each library, alternating (libgomp, then locus, in each
# round), so that both see the same load. Prints each round's times and the ratios
# locus/libgomp for the empty regions and for the barriers, then the median, lowest and
# highest ratio over the rounds (their spread is the noise of this machine).
#
# Usage: crates/omp/bench/regions.sh [N] [R] [ROUNDS]      (defaults: 100000 3 5)
#   N regions and N barriers a run, best of R runs each, ROUNDS rounds.
# Environment: LOCUS (the locus binary; default release/locus under $CARGO_TARGET_DIR,
# else the repository's target/), POLICY (default ws), THREADS (a team size for both
# libraries; default: each library's own).
set -u
n=${1:-100000}
reps=${2:-3}
rounds=${3:-5}
for v in "$n" "$reps" "$rounds"; do
    case $v in '' | *[!0-9]* | 0) echo "regions.sh: '$v' is not a positive count (usage: regions.sh [N] [R] [ROUNDS])" >&2; exit 2 ;; esac
done
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
locus=${LOCUS:-}
if [ -z "$locus" ]; then
    for dir in "${CARGO_TARGET_DIR:-}" "$repo/target"; do
        if [ -n "$dir" ] && [ -x "$dir/release/locus" ]; then locus=$dir/release/locus; break; fi
    done
fi
[ -n "$locus" ] && [ -x "$locus" ] || {
    echo "regions.sh: no locus binary (set LOCUS, or: cargo build --release -p locus-cli -p locus-omp)" >&2
    exit 2
}
policy=${POLICY:-ws}
threads=${THREADS:-}
work=$(mktemp -d /tmp/locus-regions.XXXXXX)
trap 'rm -rf "$work"' EXIT
gcc -fopenmp -O2 "$here/regions.c" -o "$work/regions" || exit 2

# One run: prints "REGIONS_S BARRIERS_S TEAM".
one() {
    local out
    if [ "$1" = libgomp ]; then
        out=$(env ${threads:+OMP_NUM_THREADS=$threads} "$work/regions" "$n" "$reps") || return 1
    else
        out=$("$locus" run --policy "$policy" ${threads:+--threads "$threads"} -- "$work/regions" "$n" "$reps") || return 1
    fi
    echo "$out" | awk '{ print $4, $12, $NF }'
}

echo "N=$n, best of $reps, $rounds rounds, policy $policy, threads ${threads:-default}; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-22s %-22s %-9s %-9s\n' round "libgomp regions/barr s" "locus regions/barr s" "regions" "barriers"
rr=()
rb=()
for k in $(seq 1 "$rounds"); do
    read -r gr gb gt < <(one libgomp) || { echo "regions.sh: the run under libgomp failed" >&2; exit 1; }
    read -r lr lb lt < <(one locus) || { echo "regions.sh: the run under locus failed" >&2; exit 1; }
    [ "$gt" = "$lt" ] || echo "  (teams differ: libgomp $gt, locus $lt)"
    r1=$(awk -v a="$lr" -v b="$gr" 'BEGIN { printf "%.3f", a / b }')
    r2=$(awk -v a="$lb" -v b="$gb" 'BEGIN { printf "%.3f", a / b }')
    rr+=("$r1")
    rb+=("$r2")
    printf '%-6s %-22s %-22s %-9s %-9s\n' "$k" "$gr/$gb" "$lr/$lb" "$r1" "$r2"
done
stats() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "median %.3f (lowest %.3f, highest %.3f)", m, v[1], v[NR] }'; }
echo "locus/libgomp, regions:  $(stats "${rr[@]}")"
echo "locus/libgomp, barriers: $(stats "${rb[@]}")"
