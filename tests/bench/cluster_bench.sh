#!/usr/bin/env bash
# Cluster mode's costs on one machine, in pairs within one run (docs/BENCHMARKS.md):
#   1. 100 rooms on one node: SQLite, PostgreSQL, no store, and PostgreSQL in cluster mode
#      (with Redis), alternated ROUNDS times through tests/bench/server_load.sh;
#   2. Redis commands per move in cluster mode (Redis's own INFO commandstats, before/after);
#   3. a takeover: node A serves TAKEOVER_ROOMS rooms in play and is SIGKILLed; node B takes
#      them over; rooms per second from B's log.
# PostgreSQL (fsync on, as in production) and Redis are started here on free loopback ports
# in a temporary directory and stopped by PID at the end.
#
#   tests/bench/cluster_bench.sh BUILD_DIR [ROUNDS] [SECONDS] [TAKEOVER_ROOMS]
set -euo pipefail
build=$(realpath "${1:?build dir}"); rounds=${2:-3}; seconds=${3:-10}; takeover_rooms=${4:-200}
here=$(cd "$(dirname "$0")" && pwd)
pgbin=/usr/lib/postgresql/15/bin
work=$(mktemp -d /tmp/parlor-cluster-bench.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  [[ -n "${pg_pid:-}" ]] && kill -INT "$pg_pid" 2>/dev/null && sleep 1
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
as_pg() { if [[ $(id -u) == 0 ]]; then runuser -u nobody -- "$@"; else "$@"; fi; }

# PostgreSQL: initdb as an unprivileged user when run as root.
mkdir -p "$work/pg" && [[ $(id -u) == 0 ]] && chown nobody "$work/pg"
as_pg "$pgbin/initdb" -D "$work/pg/data" -U parlor --auth=trust >/dev/null
pg_port=$(free_port)
as_pg "$pgbin/postgres" -D "$work/pg/data" -p "$pg_port" -c listen_addresses=127.0.0.1 \
  -c unix_socket_directories="$work/pg" -c fsync=on >"$work/pg.log" 2>&1 &
pg_pid=$!
for _ in $(seq 100); do "$pgbin/pg_isready" -h 127.0.0.1 -p "$pg_port" >/dev/null 2>&1 && break; sleep 0.1; done
fresh_db() { "$pgbin/createdb" -h 127.0.0.1 -p "$pg_port" -U parlor "$1"; echo "postgres://parlor@127.0.0.1:$pg_port/$1"; }

# Redis: nothing persisted.
redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
  --dir "$work" >"$work/redis.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
redis_calls() { redis-cli -p "$redis_port" info commandstats | awk -F'[=,:]' '/^cmdstat_/ {n += $3} END {print n + 0}'; }

echo "== 100 rooms, ${seconds}s each, $rounds rounds (server_cpu_us_per_move, moves/s, p99)"
summary() { python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); print("moves/s %.0f  p50 %.2f ms  p99 %.2f ms" % (d["moves_per_second"], d["latency_ms"]["p50"], d["latency_ms"]["p99"]))' "$1"; }
for round in $(seq "$rounds"); do
  for mode in sqlite postgres none cluster; do
    case $mode in
      sqlite|none) store=$mode; flags="" ;;
      postgres) store=$(fresh_db "r${round}_pg"); flags="" ;;
      cluster) store=$(fresh_db "r${round}_cl"); flags="--cluster redis://127.0.0.1:$redis_port --node-id bench$round --lease-ms 5000" ;;
    esac
    before=$(redis_calls)
    PARLOR_BENCH_SERVER_FLAGS="$flags" "$here/server_load.sh" "$build" 100 0 "$seconds" "$store" \
      >"$work/run.txt" 2>&1
    after=$(redis_calls)
    # parlor-load's JSON report is everything before server_load.sh's own figures.
    sed '/^server_cpu_us_per_move/,$d' "$work/run.txt" >"$work/run.json"
    cpu=$(sed -n 's/server_cpu_us_per_move //p' "$work/run.txt")
    moves=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["moves"]))' "$work/run.json" 2>/dev/null || echo 0)
    extra=""
    if [[ $mode == cluster ]]; then
      extra=$(awk -v c="$((after - before))" -v m="$moves" 'BEGIN {printf "  redis commands %d for %d moves (%.4f per move)", c, m, m ? c / m : 0}')
    fi
    printf "round %d %-8s cpu/move %6s us  %s%s\n" "$round" "$mode" "$cpu" "$(summary "$work/run.json")" "$extra"
  done
done

echo "== takeover of $takeover_rooms rooms in play"
store=$(fresh_db takeover)
start_node() {  # name port -> pid
  "$build/server/parlor-server" --port "$2" --threads 1 --store "$store" \
    --cluster "redis://127.0.0.1:$redis_port" --node-id "$1" --lease-ms 1000 \
    --rate-per-second 1000000 --rate-burst 1000000 --max-connections-per-ip 100000 \
    --max-handshakes-per-ip 100000 --bot-delay-ms 50 >"$work/$1.out" 2>"$work/$1.log" &
  echo $!
}
port_a=$(free_port); port_b=$(free_port)
node_a=$(start_node ta "$port_a"); pids+=("$node_a")
node_b=$(start_node tb "$port_b"); pids+=("$node_b")
sleep 1
# Slow players (think 200 ms): every room is mid-game when A dies.
"$build/bots/parlor-load" --url "ws://127.0.0.1:$port_a/ws" --rooms "$takeover_rooms" --seats 4 \
  --think-ms 200 --duration 30 --ramp-ms 2000 --json >"$work/takeover-load.json" 2>/dev/null &
load=$!
pids+=("$load")
sleep 5
kill -9 "$node_a"
killed=$(date +%s.%N)
deadline=$((SECONDS + 30))
while (( SECONDS < deadline )); do
  taken=$(grep -c "taken over from node \"ta\"" "$work/tb.log" || true)
  (( taken >= takeover_rooms )) && break
  sleep 0.2
done
kill -9 "$load" 2>/dev/null || true
python3 - "$work/tb.log" "$killed" <<'PY'
import re, sys, datetime
lines = [l for l in open(sys.argv[1]) if 'taken over from node "ta"' in l]
if not lines:
    print("no room taken over; the new node's log ends:")
    print("".join(open(sys.argv[1]).readlines()[-15:]))
    sys.exit(1)
def at(line):
    return datetime.datetime.strptime(line.split()[0], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc).timestamp()
first, last = at(lines[0]), at(lines[-1])
moves = sum(int(re.search(r": (\d+) moves replayed", l).group(1)) for l in lines)
killed = float(sys.argv[2])
span = max(last - first, 1e-3)
print(f"{len(lines)} rooms ({moves} moves) taken over; first {first - killed:.2f} s after the kill, "
      f"last {last - killed:.2f} s; {len(lines) / span:.0f} rooms/s once under way")
PY
