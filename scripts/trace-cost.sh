#!/usr/bin/env bash
# The cost of tracing a real run, as ratios measured in one run: `locus bench` times
# one locus policy against rayon in the same process, and two configurations take
# turns, process by process, so that both see the same machine:
#
#   bash scripts/trace-cost.sh on ROUNDS -- BENCH-ARGS...
#       tracing off, then on (--trace to a scratch file), with one binary;
#   bash scripts/trace-cost.sh off OLD-LOCUS ROUNDS -- BENCH-ARGS...
#       tracing off in both, OLD-LOCUS (a build without tracing's checks: this source
#       with `self.tracing` replaced by `false` in crates/runtime/src/registry.rs)
#       against this one.
#
# BENCH-ARGS are `locus bench`'s, with a single --policy, e.g.
#   bash scripts/trace-cost.sh on 7 -- fib --size 30,cutoff=0 --policy ws --threads 2
# Each round prints both configurations' ratio to rayon (they take turns going
# first); the last line, the median over rounds of (second / first). LOCUS (default
# target/release/locus) is the binary measured.
set -euo pipefail

mode=${1:?usage: trace-cost.sh on ROUNDS -- ARGS | off OLD-LOCUS ROUNDS -- ARGS}
shift
locus=${LOCUS:-target/release/locus}
case $mode in
  on) first=$locus ;;
  off) first=${1:?the binary without tracing}; shift ;;
  *) echo "trace-cost.sh: mode is on or off, not $mode" >&2; exit 2 ;;
esac
rounds=${1:?the number of rounds}
shift
[ "${1:-}" = "--" ] && shift
policy=$(printf '%s\n' "$@" | awk 'p { print; exit } $0 == "--policy" || $0 == "-p" { p = 1 }')
[ -n "$policy" ] || { echo "trace-cost.sh: give one --policy" >&2; exit 2; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The ratio to rayon of $policy's median in one `locus bench` run.
ratio() {
  "$@" | awk -v p="$policy" '$1 == p { print $3; found = 1 } END { exit !found }'
}

ratios=()
# The second configuration's ratio to rayon in one `locus bench` run.
second() {
  if [ "$mode" = on ]; then
    ratio "$locus" bench "$@" --trace "$scratch/trace.json" 2>/dev/null
  else
    ratio "$locus" bench "$@"
  fi
}

# Odd rounds run the first configuration first, even rounds the second, so that
# neither gains from going first (a warm file cache, a quieter machine).
for ((r = 1; r <= rounds; r++)); do
  if ((r % 2)); then
    a=$(ratio "$first" bench "$@")
    b=$(second "$@")
  else
    b=$(second "$@")
    a=$(ratio "$first" bench "$@")
  fi
  echo "round $r: first $a, second $b of rayon's time"
  ratios+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f", b / a }')")
done
printf '%s\n' "${ratios[@]}" | sort -n |
  awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
        printf "median of second / first over %d rounds: %.3f (range %.3f..%.3f)\n", NR, m, v[1], v[NR] }'
