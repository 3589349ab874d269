#!/usr/bin/env bash
# Fails when a tracked C++ file differs from what clang-format makes of it with the checked-in
# .clang-format, and names the files. The files go to clang-format in batches, two processes at
# a time: one process per file spent most of the check starting clang-format.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "check_format: clang-format is not installed (deploy/install-deps.sh)"; exit 1; }
mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.cc' '*.hpp')
report=$(mktemp)
trap 'rm -f "$report"' EXIT
# --dry-run --Werror reports each difference as "FILE:LINE:COL: error: ..." on stderr.
printf '%s\n' "${files[@]}" | xargs -r -d '\n' -n 40 -P2 clang-format --dry-run --Werror \
  >/dev/null 2>"$report" || true
mapfile -t bad < <(sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' "$report" | sort -u)
if ((${#bad[@]})); then
  printf 'check_format: not formatted (run clang-format -i on them):\n'
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
# Any other complaint (a file clang-format cannot read or parse) fails the check too.
if grep -q . "$report"; then
  cat "$report"
  echo "check_format: clang-format failed"
  exit 1
fi
echo "check_format: ${#files[@]} files formatted"
