#!/usr/bin/env bash
# The paired server benchmark of this tree against another commit: the regression guard for
# the move path (docs/BENCHMARKS.md, "Comparing two commits").
#
#   tools/bench_compare.sh BASE [ROUNDS] [ROOMS] [THINK_MS] [SECONDS] [STORE]
#   e.g. tools/bench_compare.sh HEAD~3            # 5 rounds, 100 rooms x 4, flat out, no store
#        tools/bench_compare.sh main 5 100 0 10 sqlite
#
# BASE is checked out into build/bench-compare/src-<sha> (a detached git worktree) and its
# parlor-server and parlor-load are built there with the release preset; this tree's are built
# in build/release. Then each round runs tests/bench/server_load.sh (this tree's copy, for both:
# the same load and the same measurement) once per build, back to back, alternating which goes
# first so that a machine's drift during a round falls on both sides. Both servers are pinned to
# CPU 0 and both loads to CPU 1, as in every server benchmark here.
#
# PARLOR_BENCH_AT_ONCE=1 runs the two of a round at the same time instead, each
# server_load.sh with its own server and load (both servers still on CPU 0, both loads on CPU
# 1): each server then gets about half a core, but whatever the machine does during the round
# (a virtual machine's steal, its interrupts' cost) falls on both alike. On a machine whose
# speed drifts from run to run that is what makes a difference of a percent or two visible:
# rounds run one after the other can differ by 20% between two runs of one binary.
#
# Prints each round's server CPU per move and moves/s for both, the ratio this/BASE per round,
# and the median ratio with its spread (min-max). A ratio is only worth what the machine's
# quiet is: run it with nothing else busy, and read the spread before the median.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
base_ref=${1:?usage: tools/bench_compare.sh BASE [ROUNDS] [ROOMS] [THINK_MS] [SECONDS] [STORE]}
rounds=${2:-5}
rooms=${3:-100}
think=${4:-0}
seconds=${5:-10}
store=${6:-none}
base_sha=$(git rev-parse --verify "$base_ref^{commit}")
head_sha=$(git rev-parse --short HEAD)
short=${base_sha:0:10}

# Objects of files that are the same in both trees come from ccache (when installed): paths
# are taken relative to the tree, so a build of another checkout hits this one's entries.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1

work="$root/build/bench-compare"
src="$work/src-$short"
mkdir -p "$work"
if [ ! -d "$src" ]; then
  git worktree add --detach "$src" "$base_sha" >/dev/null
fi
echo "bench-compare: building $short (BASE) in $src/build/release"
(cd "$src" && cmake --preset release >/dev/null &&
  cmake --build --preset release --target parlor-server parlor-load)
echo "bench-compare: building this tree ($head_sha$(git diff --quiet HEAD || echo ', with local changes')) in build/release"
cmake --preset release >/dev/null
cmake --build --preset release --target parlor-server parlor-load

# One run: prints "CPU_US_PER_MOVE MOVES_PER_SECOND" (of the run whose output is in $2 when
# given, else of a run made here).
run() {
  local out
  if [ -n "${2:-}" ]; then
    out=$(cat "$2")
  else
    out=$(tests/bench/server_load.sh "$1" "$rooms" "$think" "$seconds" "$store")
  fi
  local cpu rate
  cpu=$(sed -n 's/^server_cpu_us_per_move \([0-9.]*\)/\1/p' <<<"$out")
  rate=$(sed -n 's/.*"moves_per_second": *\([0-9.e+]*\).*/\1/p' <<<"$out")
  if [ -z "$cpu" ] || [ -z "$rate" ]; then
    echo "bench-compare: a run of $1 printed no figures:" >&2
    echo "$out" >&2
    exit 1
  fi
  echo "$cpu $rate"
}

results=$(mktemp)
base_out=$(mktemp)
this_out=$(mktemp)
trap 'rm -f "$results" "$base_out" "$this_out"' EXIT
at_once=${PARLOR_BENCH_AT_ONCE:-0}
echo "bench-compare: $rounds rounds of $rooms rooms x 4, think $think ms, $seconds s, store $store$(
  [ "$at_once" = 1 ] && echo ', the two of a round at once')"
printf '%-6s %-8s %14s %12s %14s %12s %8s\n' round first "BASE us/move" "BASE mv/s" \
  "this us/move" "this mv/s" ratio
for r in $(seq 1 "$rounds"); do
  if [ "$at_once" = 1 ]; then
    tests/bench/server_load.sh "$src/build/release" "$rooms" "$think" "$seconds" "$store" \
      >"$base_out" &
    base_pid=$!
    tests/bench/server_load.sh build/release "$rooms" "$think" "$seconds" "$store" >"$this_out" &
    this_pid=$!
    wait "$base_pid" "$this_pid"
    base_run=$(run "$src/build/release" "$base_out")
    this_run=$(run build/release "$this_out")
    first=both
  elif [ $((r % 2)) = 1 ]; then
    base_run=$(run "$src/build/release")
    this_run=$(run build/release)
    first=BASE
  else
    this_run=$(run build/release)
    base_run=$(run "$src/build/release")
    first=this
  fi
  read -r base_cpu base_rate <<<"$base_run"
  read -r this_cpu this_rate <<<"$this_run"
  ratio=$(awk -v a="$this_cpu" -v b="$base_cpu" 'BEGIN {printf "%.3f", a / b}')
  echo "$ratio" >>"$results"
  printf '%-6s %-8s %14s %12.0f %14s %12.0f %8s\n' "$r" "$first" "$base_cpu" "$base_rate" \
    "$this_cpu" "$this_rate" "$ratio"
done
"$root/tests/bench/median_spread.sh" \
  "server CPU per move, this ($head_sha) / BASE ($short)" pairs "$results"
