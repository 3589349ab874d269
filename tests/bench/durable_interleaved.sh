#!/usr/bin/env bash
# Durable against in memory, interleaved: two servers, A (--store none) and B (--store sqlite,
# the default, durable), each with its own parlor-load (100 rooms x 4 flat out), take turns of
# SLICE seconds: while one pair (server and load) runs, the other is stopped (SIGSTOP). Each
# server runs alone in its turns, on CPU 0 with its load on CPU 1 as tests/bench/server_load.sh
# runs it, and the turns alternate every few seconds, so that the machine's drift (on this
# virtual machine 20% and more within a minute) falls on both alike. A turn's CPU per move is
# the server's CPU time in the turn (all its threads, /proc/PID/task/*/schedstat, in ns) over
# the moves it accepted in it (parlor_moves_accepted_total from its /metrics), counted two
# ways: leaving out the first SETTLE seconds after the resume (a server's caches are cold after
# the other pair ran), and the whole turn, from the end of the side's previous one (what a
# server does on waking, a deadline that passed while it was stopped such as the durable
# store's records overdue for SQLite, is then in the turn). Each B turn is compared with the
# mean of the A turns either side of it, both ways (docs/BENCHMARKS.md, "Durable against in
# memory, interleaved").
#
#   tests/bench/durable_interleaved.sh BUILD_DIR [TURNS] [SLICE_SECONDS]
#   e.g. tests/bench/durable_interleaved.sh build/release 12 3
#
# PARLOR_BENCH_A_STORE / PARLOR_BENCH_B_STORE change a side's store (none / sqlite by default),
# PARLOR_BENCH_A_BUILD / PARLOR_BENCH_B_BUILD the build directory of its parlor-server (two
# builds of one store: PARLOR_BENCH_A_STORE=sqlite PARLOR_BENCH_A_BUILD=other/build); both
# loads are BUILD_DIR's parlor-load. PARLOR_BENCH_SERVER_FLAGS adds
# flags to both servers (--store-sync normal: a store without fdatasync),
# PARLOR_BENCH_A_FLAGS / PARLOR_BENCH_B_FLAGS to one side's (one binary against itself with and
# without fdatasync: PARLOR_BENCH_A_STORE=sqlite PARLOR_BENCH_A_FLAGS="--store-sync normal"), and
# PARLOR_BENCH_STORE_CPUS puts a durable server's writer thread (parlor-store) on its own CPU
# list, as in server_load.sh; PARLOR_BENCH_ROOMS changes the rooms of each load (100).
set -euo pipefail
build=${1:?usage: tests/bench/durable_interleaved.sh BUILD_DIR [TURNS] [SLICE_SECONDS]}
turns=${2:-12}
slice=${3:-3}
settle=0.5
rooms=${PARLOR_BENCH_ROOMS:-100}
seats=4
ramp_ms=1000
declare -A server_build=([A]="${PARLOR_BENCH_A_BUILD:-$build}" [B]="${PARLOR_BENCH_B_BUILD:-$build}")
declare -A store=([A]="${PARLOR_BENCH_A_STORE:-none}" [B]="${PARLOR_BENCH_B_STORE:-sqlite}")
declare -A side_flags=([A]="${PARLOR_BENCH_A_FLAGS:-}" [B]="${PARLOR_BENCH_B_FLAGS:-}")
for binary in "${server_build[A]}/server/parlor-server" "${server_build[B]}/server/parlor-server" \
  "$build/bots/parlor-load"; do
  if [ ! -x "$binary" ]; then
    echo "durable_interleaved: $binary is not built" >&2
    exit 1
  fi
done
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -CONT "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# start_server SIDE: the server's PID in $work/SIDE.pid, its port in $work/SIDE.port.
start_server() {
  local side=$1 out=$work/$1.out
  mkdir -p "$work/$side.data"
  taskset -c 0 "${server_build[$side]}/server/parlor-server" --port 0 --threads 1 \
    --store "${store[$side]}" --data-dir "$work/$side.data" --rate-per-second 1000000 \
    --rate-burst 1000000 --max-connections-per-ip 100000 --max-handshakes-per-ip 100000 \
    ${PARLOR_BENCH_SERVER_FLAGS:-} ${side_flags[$side]} >"$out" 2>/dev/null &
  pids+=($!)
  echo $! >"$work/$side.pid"
  for _ in $(seq 50); do grep -q listening "$out" && break; sleep 0.1; done
  sed -n 's/listening on .*:\([0-9]*\)/\1/p' "$out" >"$work/$side.port"
  if [ ! -s "$work/$side.port" ]; then
    echo "durable_interleaved: server $side (${store[$side]}) did not start" >&2
    exit 1
  fi
  if [ -n "${PARLOR_BENCH_STORE_CPUS:-}" ]; then
    local task
    for task in /proc/"$(cat "$work/$side.pid")"/task/*; do
      [ "$(cat "$task/comm")" = parlor-store ] && taskset -pc "$PARLOR_BENCH_STORE_CPUS" "${task##*/}" >/dev/null
    done
  fi
  return 0
}

# start_load SIDE: parlor-load against server SIDE, for longer than the whole measurement.
start_load() {
  local side=$1
  local seconds=$((turns * 2 * (slice + 1) + 60))
  taskset -c 1 "$build/bots/parlor-load" --url "ws://127.0.0.1:$(cat "$work/$side.port")/ws" \
    --game bigtwo --rooms "$rooms" --seats "$seats" --think-ms 0 --duration "$seconds" \
    --ramp-ms "$ramp_ms" --json >"$work/$side.load" 2>&1 &
  pids+=($!)
  echo $! >"$work/$side.load_pid"
}

# The CPU time of every thread of PID, in ns.
cpu_ns() {
  cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{sum += $1} END {printf "%.0f", sum}'
}
# counts SIDE: the moves server SIDE accepted and the commits its store made (0 without one),
# as "MOVES COMMITS".
counts() {
  curl -sf --max-time 5 "http://127.0.0.1:$(cat "$work/$1.port")/metrics" |
    awk '$1 == "parlor_moves_accepted_total" {m = $2} $1 == "parlor_store_batch_size_count" {c = $2}
         END {if (m != "") printf "%d %d\n", m, c}'
}
pause() { kill -STOP "$(cat "$work/$1.pid")" "$(cat "$work/$1.load_pid")"; }
resume() { kill -CONT "$(cat "$work/$1.pid")" "$(cat "$work/$1.load_pid")"; }

# mark SIDE: the CPU time and the moves of server SIDE so far, where its next turn starts
# counting. Read just before the pair is stopped: nothing runs until it is resumed.
declare -A cpu_at moves_at commits_at
mark() {
  cpu_at[$1]=$(cpu_ns "$(cat "$work/$1.pid")")
  read -r "moves_at[$1]" "commits_at[$1]" < <(counts "$1") || true
}

# turn SIDE: runs pair SIDE for one slice after its SETTLE; writes its CPU per move (µs),
# moves/s and moves a commit (a durable store's group commits: the fewer moves share one, the
# more each pays for the fdatasync) after the settle, and its CPU per move over the whole turn,
# to $work/turn.
turn() {
  local side=$1 c0 m0 cs ms ks
  c0=${cpu_at[$side]}
  m0=${moves_at[$side]}
  resume "$side"
  sleep "$settle"
  cs=$(cpu_ns "$(cat "$work/$side.pid")")
  read -r ms ks < <(counts "$side") || true
  sleep "$slice"
  mark "$side"
  pause "$side"
  if [ -z "$m0" ] || [ -z "$ms" ] || [ -z "${moves_at[$side]}" ] ||
    [ "${moves_at[$side]}" -le "$ms" ]; then
    echo "durable_interleaved: server $side accepted no moves in a turn; its load said:" >&2
    cat "$work/$side.load" >&2
    exit 1
  fi
  awk -v c="$((cpu_at[$side] - cs))" -v m="$((moves_at[$side] - ms))" -v s="$slice" \
    -v ca="$((cpu_at[$side] - c0))" -v ma="$((moves_at[$side] - m0))" \
    -v k="$((commits_at[$side] - ks))" \
    'BEGIN {printf "%.2f %.0f %.2f %s\n", c / 1000 / m, m / s, ca / 1000 / ma,
            (k > 0 ? sprintf("%.1f", m / k) : "-")}' >"$work/turn"
}

start_server A
start_server B
# One pair ramps up at a time, so that its rooms open as they do in server_load.sh.
start_load A
sleep "$(awk -v r="$ramp_ms" 'BEGIN {print r / 1000 + 1}')"
mark A
pause A
start_load B
sleep "$(awk -v r="$ramp_ms" 'BEGIN {print r / 1000 + 1}')"
mark B
pause B

# A, B, A, B, ..., A: every B turn has an A turn either side.
declare -a a_us a_rate a_all b_us b_rate b_all b_per_commit
turn A
read -r 'a_us[0]' 'a_rate[0]' 'a_all[0]' _ <"$work/turn"
for i in $(seq 1 "$turns"); do
  turn B
  read -r "b_us[$i]" "b_rate[$i]" "b_all[$i]" "b_per_commit[$i]" <"$work/turn"
  turn A
  read -r "a_us[$i]" "a_rate[$i]" "a_all[$i]" _ <"$work/turn"
done

echo "durable_interleaved: A = ${store[A]} ${side_flags[A]} (${server_build[A]}), B = ${store[B]} ${side_flags[B]} (${server_build[B]})," \
  "$turns turns of $slice s each"
printf '%-5s %12s %10s %12s %10s %9s %7s %7s\n' turn "A us/move" "A mv/s" "B us/move" "B mv/s" \
  "B mv/cmt" "B/A" "whole"
for i in $(seq 1 "$turns"); do
  around=$(awk -v a="${a_us[i - 1]}" -v b="${a_us[i]}" 'BEGIN {printf "%.2f", (a + b) / 2}')
  ratio=$(awk -v s="${b_us[i]}" -v n="$around" 'BEGIN {printf "%.3f", s / n}')
  whole=$(awk -v s="${b_all[i]}" -v a="${a_all[i - 1]}" -v b="${a_all[i]}" \
    'BEGIN {printf "%.3f", s / ((a + b) / 2)}')
  echo "$ratio" >>"$work/ratios"
  echo "$whole" >>"$work/whole_ratios"
  awk -v s="${b_us[i]}" -v n="$around" 'BEGIN {printf "%.2f\n", s - n}' >>"$work/extras"
  printf '%-5s %12s %10s %12s %10s %9s %7s %7s\n' "$i" "$around" "${a_rate[i]}" "${b_us[i]}" \
    "${b_rate[i]}" "${b_per_commit[i]}" "$ratio" "$whole"
done
"$(dirname "$0")/median_spread.sh" \
  "server CPU per move, B (${store[B]}) / A (${store[A]}), whole turns" turns "$work/whole_ratios"
"$(dirname "$0")/median_spread.sh" \
  "server CPU per move, B (${store[B]}) / A (${store[A]}), interleaved" turns "$work/ratios"
# The difference in µs: steadier from hour to hour than the ratio, whose denominator (A's own
# cost a move) this machine's drift moves by up to 2x.
"$(dirname "$0")/median_spread.sh" \
  "server CPU per move, B (${store[B]}) - A (${store[A]}) in us, interleaved" turns \
  "$work/extras"
