#!/usr/bin/env bash
# Durable against in memory: ROUNDS pairs of tests/bench/server_load.sh, one with --store
# sqlite (the default, durable) and one with --store none, 100 rooms x 4 flat out, and the
# ratio of their server CPU per move (docs/BENCHMARKS.md, "Leaner durable moves", which also
# says why pairs at once lean against the durable server).
#
#   tests/bench/durable_ratio.sh BUILD_DIR [ROUNDS] [SECONDS]
#   e.g. tests/bench/durable_ratio.sh build/release 8
#
# The two of a pair run one after the other, alternating which goes first; with
# PARLOR_BENCH_AT_ONCE=1 they run at the same time, each server on CPU 0 with its own load on
# CPU 1, so that the machine's drift falls on both alike (tools/bench_compare.sh says more).
# The other PARLOR_BENCH_* variables of server_load.sh apply to both (the writer on its own
# core: PARLOR_BENCH_STORE_CPUS=1). tests/bench/durable_interleaved.sh has the two servers take
# turns of a few seconds instead, which this machine's drift needs.
set -euo pipefail
build=${1:?usage: tests/bench/durable_ratio.sh BUILD_DIR [ROUNDS] [SECONDS]}
rounds=${2:-8}
seconds=${3:-10}
here="$(cd "$(dirname "$0")" && pwd)"
none_out=$(mktemp)
sqlite_out=$(mktemp)
ratios=$(mktemp)
trap 'rm -f "$none_out" "$sqlite_out" "$ratios"' EXIT
figure() { sed -n "s/^$1 \([0-9.]*\)/\1/p" "$2"; }
rate() { sed -n 's/.*"moves_per_second": *\([0-9.e+]*\).*/\1/p' "$1"; }
printf '%-6s %-7s %14s %10s %16s %12s %7s\n' round first "none us/move" "none mv/s" \
  "sqlite us/move" "sqlite mv/s" ratio
for r in $(seq 1 "$rounds"); do
  if [ "${PARLOR_BENCH_AT_ONCE:-0}" = 1 ]; then
    "$here/server_load.sh" "$build" 100 0 "$seconds" none >"$none_out" &
    none_pid=$!
    "$here/server_load.sh" "$build" 100 0 "$seconds" sqlite >"$sqlite_out" &
    wait "$none_pid" "$!"
    first=both
  elif [ $((r % 2)) = 1 ]; then
    "$here/server_load.sh" "$build" 100 0 "$seconds" none >"$none_out"
    "$here/server_load.sh" "$build" 100 0 "$seconds" sqlite >"$sqlite_out"
    first=none
  else
    "$here/server_load.sh" "$build" 100 0 "$seconds" sqlite >"$sqlite_out"
    "$here/server_load.sh" "$build" 100 0 "$seconds" none >"$none_out"
    first=sqlite
  fi
  none=$(figure server_cpu_us_per_move "$none_out")
  sqlite=$(figure server_cpu_us_per_move "$sqlite_out")
  if [ -z "$none" ] || [ -z "$sqlite" ]; then
    echo "durable_ratio: a run printed no figures:" >&2
    cat "$none_out" "$sqlite_out" >&2
    exit 1
  fi
  ratio=$(awk -v a="$sqlite" -v b="$none" 'BEGIN {printf "%.3f", a / b}')
  echo "$ratio" >>"$ratios"
  printf '%-6s %-7s %14s %10.0f %16s %12.0f %7s\n' "$r" "$first" "$none" "$(rate "$none_out")" \
    "$sqlite" "$(rate "$sqlite_out")" "$ratio"
done
"$here/median_spread.sh" "server CPU per move, sqlite / none" pairs "$ratios"
