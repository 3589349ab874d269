#!/usr/bin/env bash
# The sanitizer runs of `make test`, after the release suite:
#
#  1. ASan + UBSan (preset `fuzz`: clang 14, every library also instrumented for libFuzzer).
#     Builds the fuzz targets and the tests labelled `sanitized` (every unit test but the
#     games' self-play, search and non-interference tests, which the release suite runs; the
#     tests of a server in the test's own process; the conformance suite), runs those tests,
#     then runs each fuzz target for SMOKE seconds from its committed corpus and dictionary,
#     two at a time.
#  2. ThreadSanitizer (preset `tsan`: GCC 12). Builds the tests labelled `tsan` (a server in
#     the test's own process with two I/O threads, the ratings test and the conformance suite)
#     and runs them.
#
# Sized for CI, where `make test` must finish within 45 minutes on a fresh two-core machine:
# both configurations are unity builds (a batch of eight server files compiles in 0.58 of the
# CPU time of the eight alone) compiled at -O1, the TLS session and the test programs' own
# sources at -O0; their builds run beside the release suite, the games' self-play tests are left
# to the release suite and each fuzz target runs 10 s, game_moves 30 (docs/ARCHITECTURE.md,
# "Sanitizers in make test", has the measured times, and what is still over the budget).
# `make asan` (every test under ASan and UBSan), `make tsan` (every server test under TSan)
# and `make fuzz` (longer fuzz runs) go further by hand.
#
#   tools/sanitize.sh [build|all] [SMOKE_SECONDS]
#
# `build` only builds both configurations: `make test` runs it at the lowest CPU and I/O
# priority beside the release suite, whose tests leave a core idle much of the time (waiting
# on servers, timers and the browser), then runs `all`, which finds them built. SMOKE_SECONDS
# defaults to 10: each target replays its corpus and mutates for the rest; `make fuzz` fuzzes
# for longer (PARLOR_FUZZ_SMOKE_SECONDS also sets it).
#
# Each fuzz run prints libFuzzer's seed; PARLOR_SEED=N runs every target from seed N.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=all
case "${1:-}" in build | all) mode=$1 && shift ;; esac
smoke=${1:-${PARLOR_FUZZ_SMOKE_SECONDS:-10}}
command -v clang++-14 >/dev/null || {
  echo "sanitize: clang++-14 is not installed (deploy/install-deps.sh installs it)"
  exit 1
}

start=$(date +%s)
stage() { echo "sanitize: $1 ($(($(date +%s) - start)) s in)"; }

stage "ASan+UBSan build (preset fuzz)"
cmake --preset fuzz >/dev/null
cmake --build --preset sanitize
stage "ThreadSanitizer build (preset tsan)"
cmake --preset tsan >/dev/null
cmake --build --preset tsan-ci
[ "$mode" = build ] && stage "built" && exit 0

stage "ASan+UBSan tests"
ctest --preset sanitize -j2 --timeout 900

# game_moves plays a game per input (under two hundred inputs in 10 s) and is the sanitizers'
# reach into the rules, whose self-play tests make test runs in the release build only: it gets
# three times the others' time.
game_moves_smoke=$((smoke * 3))
stage "fuzz smoke: each target ${smoke} s, game_moves ${game_moves_smoke} s"
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
smoke_one() {
  local name=$1 smoke=$2 logs=$3
  if [ "$name" = game_moves ]; then smoke=$4; fi
  # New inputs go to a scratch corpus; the committed one is only read.
  if tools/fuzz_target.sh "$name" "$smoke" "$logs/corpus-$name" "$logs/$name-" \
    >"$logs/$name.log" 2>&1; then
    echo "fuzz smoke: $name passed: $(grep -o 'stat::number_of_executed_units: *[0-9]*' \
      "$logs/$name.log" | grep -o '[0-9]*$') inputs, $(grep -o 'cov: [0-9]*' "$logs/$name.log" |
      tail -1 | grep -o '[0-9]*') edges, $(grep -o 'Seed: [0-9]*' "$logs/$name.log")"
  else
    echo "fuzz smoke: $name FAILED ($(grep -o 'Seed: [0-9]*' "$logs/$name.log"); PARLOR_SEED" \
      "replays it); the end of its log:"
    tail -60 "$logs/$name.log"
    echo "the input that failed: $(ls "$logs/$name-"* 2>/dev/null || echo none kept)"
    return 1
  fi
}
export -f smoke_one
targets=$(for f in tests/fuzz/*_fuzz.cpp; do basename "$f" _fuzz.cpp; done)
failed=0
printf '%s\n' $targets |
  xargs -P2 -I{} bash -c 'smoke_one "$@"' _ {} "$smoke" "$logs" "$game_moves_smoke" || failed=1
if [ "$failed" != 0 ]; then
  # A crash input is left in the scratch directory, which the trap removes: keep it.
  mkdir -p build/fuzz/smoke-failures
  cp "$logs"/*-crash-* "$logs"/*-leak-* "$logs"/*-timeout-* "$logs"/*-oom-* \
    build/fuzz/smoke-failures/ 2>/dev/null || true
  echo "sanitize: a fuzz target failed; its input is in build/fuzz/smoke-failures/"
  exit 1
fi

stage "ThreadSanitizer tests"
ctest --preset tsan-ci -j2 --timeout 900
stage "done"
