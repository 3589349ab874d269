#!/usr/bin/env bash
# Runs clang-tidy (the checked-in .clang-tidy) on the sources of server/, protocol/ and games/
# (their tests excepted), and on the project's headers they include, with BUILD_DIR's
# compile_commands.json, two files at a time, and fails on any finding. About half an hour of
# CPU on this project's two-core machines, two thirds of it the static analyzer (the
# clang-analyzer-* checks clang-tidy runs unless told otherwise).
#
#   tools/run_clang_tidy.sh BUILD_DIR
set -euo pipefail
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
printf '%s\n' "${files[@]}" | xargs -P2 -n4 clang-tidy -p "$build" --quiet \
  --header-filter="^$root/(games|protocol|server|bots|tests)/" \
  --extra-arg=-Wno-unknown-warning-option >"$out" 2>/dev/null || true
if grep -E '(warning|error):' "$out"; then
  echo "run_clang_tidy: findings above, in ${#files[@]} files"
  exit 1
fi
echo "run_clang_tidy: ${#files[@]} files, no findings"
