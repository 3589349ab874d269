#!/usr/bin/env bash
# Runs clang-tidy (the checked-in .clang-tidy) on the sources of server/, protocol/ and games/
# (their tests excepted), and on the project's headers they include, and fails on any finding.
#
# Two passes, two processes at a time:
#
# 1. Every check but the static analyzer, on unity batches: a second configuration of the
#    project, BUILD_DIR/clang-tidy-unity (configured, never built), groups each library's
#    sources by eight, and clang-tidy reads a batch as one translation unit. Most of a file's
#    time is spent matching the checks over Beast's, Asio's and the standard library's
#    templates, which a batch instantiates once for its eight files: the pass takes about a
#    quarter of the time it takes file by file. A source that is in no batch of library
#    sources only is checked on its own, with its own compile command.
# 2. The static analyzer (the clang-analyzer-* checks), file by file with per-file compile
#    commands (below): it analyzes the functions of the main file only, which in a batch is the
#    generated file. It runs in its shallow mode, which follows fewer calls into other
#    functions and explores fewer paths per function, and still finds a null dereference, a
#    leak or a use after move within a function. `--deep` runs the analyzer's default,
#    interprocedural mode instead (about 10 minutes more on two cores): run it before merging
#    a change to the server's or a game's core.
#
# Both passes together take about 6 minutes of this project's two-core machines (2026-11-29,
# quiet: pass 1 165 s, pass 2 205 s; the last line says each run's), against about 13 for all
# checks file by file in the analyzer's default mode, which keeps `make test` within its
# budget. Pass 1 leaves out the TLS session's file (below: its code is the plain session's).
#
#   tools/run_clang_tidy.sh [--deep] BUILD_DIR
set -euo pipefail
analyzer_mode=(--extra-arg=-Xclang --extra-arg=-analyzer-config --extra-arg=-Xclang --extra-arg=mode=shallow)
mode="shallow"
if [ "${1:-}" = --deep ]; then
  analyzer_mode=()
  mode="default (deep)"
  shift
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:?build dir}" && pwd)"
command -v clang-tidy >/dev/null || { echo "run_clang_tidy: clang-tidy is not installed (deploy/install-deps.sh)"; exit 1; }
cd "$root"
mapfile -t files < <(git ls-files 'server/*.cpp' 'protocol/*.cpp' 'games/*.cpp' |
  grep -v -e '_test\.cpp$' -e '_fuzz\.cpp$' -e '_bench\.cpp$')
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
# Headers are matched by their full path, as clang names them: the project's, not the system's.
# GCC's flags that clang does not know (-Wno-restrict) are not findings.
common=(--quiet --header-filter="^$root/(games|protocol|server|bots|tests)/"
  --extra-arg=-Wno-unknown-warning-option)

started=$SECONDS
# ---- pass 1: the checks but the analyzer, by unity batch ---------------------------------
unity="$build/clang-tidy-unity"
generator="$(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$build/CMakeCache.txt")"
build_type="$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt")"
# configure DIR ON|OFF: a configuration of the project for clang-tidy's compile commands only.
configure() {
  cmake -S "$root" -B "$1" -G "${generator:-Ninja}" -DCMAKE_BUILD_TYPE="${build_type:-Release}" \
    -DCMAKE_UNITY_BUILD="$2" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DPARLOR_BUILD_BENCHMARKS=OFF \
    >"$out" 2>&1 || { cat "$out"; echo "run_clang_tidy: configuring $1 failed"; exit 1; }
}
configure "$unity" ON
# The per-file compile commands of passes 1 (the sources in no batch) and 2: BUILD_DIR's, or,
# when BUILD_DIR is itself a unity build (the release preset), a configuration of its own
# without batches (BUILD_DIR/clang-tidy-files, configured, never built).
files_db="$build"
unity_build="$(sed -n 's/^CMAKE_UNITY_BUILD:[A-Z]*=//p' "$build/CMakeCache.txt")"
if [[ "${unity_build^^}" =~ ^(ON|TRUE|YES|Y|1)$ ]]; then
  files_db="$build/clang-tidy-files"
  configure "$files_db" OFF
fi
declare -A linted=() covered=()
for f in "${files[@]}"; do linted["$root/$f"]=1; done
batches=()
# A batch is taken when it includes only linted sources (and files generated in the build
# tree), and at least one not yet covered by another batch.
while read -r batch; do
  mapfile -t included < <(sed -n 's/^#include "\(.*\)"$/\1/p' "$batch")
  pure=1
  fresh=0
  for source in "${included[@]}"; do
    if [ -n "${linted[$source]:-}" ]; then
      [ -z "${covered[$source]:-}" ] && fresh=1
    elif [[ "$source" != "$unity"/* ]]; then
      pure=0
    fi
  done
  [ "$pure" = 1 ] && [ "$fresh" = 1 ] || continue
  batches+=("$batch")
  for source in "${included[@]}"; do covered["$source"]=1; done
done < <(grep -o '"file": "[^"]*/Unity/unity_[0-9]*_cxx\.cxx"' "$unity/compile_commands.json" |
  sed 's/^"file": "//; s/"$//' | sort -u)
# The TLS session only instantiates the session's template (ws_session_impl.h) over TLS: its
# code is the plain session's, which pass 1 reads through ws_session_plain.cpp, and matching
# every check over the instantiations of Beast's operations over TLS took pass 1 two and a
# half minutes of one core, more than any other batch. The analyzer still reads it (pass 2).
first_pass_skips=(server/ws_session_tls.cpp)
alone=()
for f in "${files[@]}"; do
  [ -n "${covered[$root/$f]:-}" ] && continue
  [[ " ${first_pass_skips[*]} " == *" $f "* ]] && continue
  alone+=("$f")
done
: >"$out"
printf '%s\n' "${batches[@]}" | xargs -r -P2 -n1 clang-tidy -p "$unity" "${common[@]}" \
  '--checks=-clang-analyzer-*' >>"$out" 2>/dev/null || true
if ((${#alone[@]})); then
  printf '%s\n' "${alone[@]}" | xargs -r -P2 -n2 clang-tidy -p "$files_db" "${common[@]}" \
    '--checks=-clang-analyzer-*' >>"$out" 2>/dev/null || true
fi

pass1=$((SECONDS - started))
# ---- pass 2: the static analyzer, file by file -------------------------------------------
printf '%s\n' "${files[@]}" | xargs -P2 -n4 clang-tidy -p "$files_db" "${common[@]}" \
  '--checks=-*,clang-analyzer-*' "${analyzer_mode[@]}" >>"$out" 2>/dev/null || true

# A batch names its sources in #include lines, which bugprone-suspicious-include reports in
# the generated file: not a finding in the project's.
if grep -E '(warning|error):' "$out" | grep -v -F -e "$unity/" ; then
  echo "run_clang_tidy: findings above, in ${#files[@]} files"
  exit 1
fi
echo "run_clang_tidy: ${#files[@]} files (${#batches[@]} unity batches, ${#alone[@]} alone), no findings; the analyzer in its $mode mode; pass 1 took ${pass1} s, pass 2 $((SECONDS - started - pass1)) s"
