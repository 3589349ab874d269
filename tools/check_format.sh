#!/usr/bin/env bash
# Fails when a tracked C++ file differs from what clang-format makes of it with the checked-in
# .clang-format, and names the files.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check_format: clang-format is not installed (deploy/install-deps.sh)"; exit 1; }
mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.cc' '*.hpp')
bad=()
for f in "${files[@]}"; do
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if ((${#bad[@]})); then
  printf 'check_format: not formatted (run clang-format -i on them):\n'
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "check_format: ${#files[@]} files formatted"
