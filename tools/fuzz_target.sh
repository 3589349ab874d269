#!/usr/bin/env bash
# Runs one libFuzzer target of the fuzz build (build/fuzz) for SECONDS with the project's
# settings: new inputs go to CORPUS (the first directory, written), the committed corpus
# tests/fuzz/corpus/NAME is only read, the target's dictionary is used when there is one, and
# a failing input is kept as ARTIFACT_PREFIX-crash-* (or -leak-, -timeout-, -oom-). Inputs stop
# at 20000 bytes, past the 16 KiB frame and 8 KiB header limits. PARLOR_SEED=N fixes libFuzzer's
# seed (each run prints the one it used). `make fuzz` and the smoke runs of tools/sanitize.sh
# both run their targets through it.
#
#   tools/fuzz_target.sh NAME SECONDS CORPUS ARTIFACT_PREFIX
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?target name} seconds=${2:?seconds} corpus=${3:?corpus directory} prefix=${4:?artifact prefix}
dict=tests/fuzz/dict/$name.dict
args=(-max_total_time="$seconds" -max_len=20000 -timeout=10 -print_final_stats=1
  -artifact_prefix="$prefix")
[ -f "$dict" ] && args+=(-dict="$dict")
[ -n "${PARLOR_SEED:-}" ] && args+=(-seed="$PARLOR_SEED")
mkdir -p "$corpus"
exec build/fuzz/tests/fuzz/"${name}"_fuzz "$corpus" "tests/fuzz/corpus/$name" "${args[@]}"
