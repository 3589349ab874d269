#!/usr/bin/env bash
# The summary line of the paired benchmarks (durable_ratio.sh, durable_interleaved.sh,
# tools/bench_compare.sh): the median of the ratios in FILE, one a line, and their spread.
#
#   tests/bench/median_spread.sh LABEL UNIT FILE
#   prints "LABEL: median M, spread MIN-MAX over N UNIT"
set -euo pipefail
label=${1:?usage: median_spread.sh LABEL UNIT FILE}
unit=${2:?usage: median_spread.sh LABEL UNIT FILE}
file=${3:?usage: median_spread.sh LABEL UNIT FILE}
sort -n "$file" | awk -v label="$label" -v unit="$unit" '
  { v[NR] = $1 }
  END {
    median = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%s: median %.3f, spread %.3f-%.3f over %d %s\n", label, median, v[1], v[NR], NR, unit
  }'
