#!/usr/bin/env bash
# Server benchmark on loopback: parlor-server on CPU 0 (one I/O thread), parlor-load on CPU 1
# (both settable, below).
# Prints parlor-load's report plus the server's CPU time per accepted move, its RSS, and its RSS
# per connected client: (RSS under load - RSS before the load) / (ROOMS x SEATS).
#
#   tests/bench/server_load.sh BUILD_DIR ROOMS THINK_MS SECONDS STORE [SEATS] [GAME]
#   e.g. tests/bench/server_load.sh build/release 100 0 10 none
# STORE is sqlite, none or a postgres:// URL; PARLOR_BENCH_SERVER_FLAGS adds server flags
# (cluster mode: "--cluster redis://127.0.0.1:PORT --node-id bench"), PARLOR_BENCH_LOAD_FLAGS
# parlor-load flags (rooms of thinking server bots beside the measured ones:
# "--bot-rooms 4 --bot-strategy hard --bot-game spades"). PARLOR_BENCH_THREADS sets the server's
# I/O threads (1), PARLOR_BENCH_SERVER_CPUS and PARLOR_BENCH_LOAD_CPUS the CPU lists the two are
# pinned to (0 and 1; "0,1" for both to share both cores, as the threads measurement does), and
# PARLOR_BENCH_STORE_CPUS moves the store's writer thread (parlor-store) off the server's CPUs
# onto its own list (the durable-store measurement, "writer on its own core").
# Besides the whole server's CPU per move it prints the I/O threads' (parlor-io-*) and the
# store writer's (parlor-store) separately.
# The server takes every other setting from PARLOR_* variables, e.g. an external game:
#   PARLOR_ENGINE=whist=http://127.0.0.1:9001 tests/bench/server_load.sh build/release 100 0 10 none 4 whist
set -euo pipefail
build=${1:?build dir}; rooms=${2:?rooms}; think=${3:?think ms}; seconds=${4:?seconds}
store=${5:?sqlite or none}; seats=${6:-4}; game=${7:-bigtwo}
data=$(mktemp -d)
out=$(mktemp)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$data" "$out"' EXIT
taskset -c "${PARLOR_BENCH_SERVER_CPUS:-0}" "$build/server/parlor-server" --port 0 \
  --threads "${PARLOR_BENCH_THREADS:-1}" --store "$store" --data-dir "$data" \
  --rate-per-second 1000000 --rate-burst 1000000 --max-connections-per-ip 100000 \
  --max-handshakes-per-ip 100000 ${PARLOR_BENCH_SERVER_FLAGS:-} >"$out" 2>/dev/null &
server=$!
for _ in $(seq 50); do grep -q listening "$out" && break; sleep 0.1; done
port=$(sed -n 's/listening on .*:\([0-9]*\)/\1/p' "$out")
ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }
# The CPU ticks of the server's threads whose name starts with $1.
thread_ticks() {
  local sum=0 task
  for task in /proc/"$server"/task/*; do
    case "$(cat "$task/comm" 2>/dev/null)" in
      "$1"*) sum=$((sum + $(awk '{print $14 + $15}' "$task/stat" 2>/dev/null || echo 0))) ;;
    esac
  done
  echo "$sum"
}
if [ -n "${PARLOR_BENCH_STORE_CPUS:-}" ]; then
  for task in /proc/"$server"/task/*; do
    [ "$(cat "$task/comm")" = parlor-store ] && taskset -pc "$PARLOR_BENCH_STORE_CPUS" "${task##*/}" >/dev/null
  done
fi
rss_before=$(awk '/VmRSS/ {print $2}' "/proc/$server/status")
ramp_ms=$((rooms * 2 > 1000 ? rooms * 2 : 1000))
taskset -c "${PARLOR_BENCH_LOAD_CPUS:-1}" "$build/bots/parlor-load" --url "ws://127.0.0.1:$port/ws" --game "$game" --rooms "$rooms" \
  --seats "$seats" --think-ms "$think" --duration "$seconds" --ramp-ms "$ramp_ms" \
  ${PARLOR_BENCH_LOAD_FLAGS:-} --json >"$out.load" &
load=$!
# Measure the server's CPU inside the load's measured window (after its ramp-up), and divide by
# the moves the load counted per second: asking the server itself (/metrics) while it is
# saturated would land late and skew the window.
sleep "$(awk -v r="$ramp_ms" 'BEGIN {print r / 1000 + 0.5}')"
t0=$(ticks); io0=$(thread_ticks parlor-io-); store0=$(thread_ticks parlor-store)
sleep "$((seconds - 1))"
t1=$(ticks); io1=$(thread_ticks parlor-io-); store1=$(thread_ticks parlor-store)
rss=$(awk '/VmRSS/ {print $2}' "/proc/$server/status")
wait "$load" || true
cat "$out.load"
hz=$(getconf CLK_TCK)
rate=$(sed -n 's/.*"moves_per_second": *\([0-9.e+]*\).*/\1/p' "$out.load")
awk -v t="$((t1 - t0))" -v r="$rate" -v hz="$hz" -v s="$((seconds - 1))" 'BEGIN {
  printf "server_cpu_us_per_move %.1f\nserver_cpu_share %.2f\n", t * 1e6 / hz / (r * s), t / hz / s }'
awk -v io="$((io1 - io0))" -v st="$((store1 - store0))" -v r="$rate" -v hz="$hz" -v s="$((seconds - 1))" 'BEGIN {
  printf "io_threads_cpu_us_per_move %.1f\nstore_writer_cpu_us_per_move %.1f\n", io * 1e6 / hz / (r * s), st * 1e6 / hz / (r * s) }'
echo "server_rss_kib $rss"
echo "server_rss_before_kib $rss_before"
awk -v a="$rss" -v b="$rss_before" -v n="$((rooms * seats))" 'BEGIN {
  printf "server_rss_per_client_bytes %.0f\n", (a - b) * 1024 / n }'
rm -f "$out.load"
