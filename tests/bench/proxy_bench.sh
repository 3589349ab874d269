#!/usr/bin/env bash
# Cluster mode behind its one address, on one machine, in pairs within one run
# (docs/BENCHMARKS.md, "One address"): for each round, a cluster of 1 node and one of 3
# nodes started by deploy/cluster/up.sh (PostgreSQL, Redis, HAProxy, nodes with one I/O
# thread each), and parlor-load through the proxy (ROOMS rooms x 4 seats, closed loop); the
# 3 nodes twice: players wherever the proxy puts them, then players connecting to their
# room's node (parlor-load --follow-room-node, `?node=` in PROTOCOL.md's "Cluster mode"); then
# the same load on one embedded server with its default store (tests/bench/server_load.sh,
# SQLite). Reported per run: moves/s, p50/p99, the nodes' CPU per move (all nodes summed) and
# HAProxy's, the share of moves whose player's connection was on another node than the room
# (requests forwarded / moves), and bytes written to links per move. Everything runs on
# 127.0.0.1 and is stopped at the end of each run.
#
# THINK_MS above 0 paces the players (each move THINK_MS after its prompt) and gives each node
# the same load: ROOMS rooms per node (3 x ROOMS for 3 nodes), ROOMS for the embedded server.
# On two cores a closed loop saturates them, so a node carrying a third of the load sleeps
# between bursts and pays more wake-ups per move than one node carrying all of it; paced and
# per node, every setup is measured at the same load per process, as a deployment with a
# core per node would run.
#
#   tests/bench/proxy_bench.sh BUILD_DIR [ROUNDS] [SECONDS] [ROOMS] [THINK_MS]
set -euo pipefail
build=$(realpath "${1:?build dir}"); rounds=${2:-2}; seconds=${3:-10}; rooms=${4:-100}
think=${5:-0}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
hz=$(getconf CLK_TCK)
dir=""
cleanup() { if [[ -n "$dir" ]]; then "$repo/deploy/cluster/down.sh" "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"; fi; }
trap cleanup EXIT

ticks() { local sum=0; for pid in "$@"; do sum=$((sum + $(awk '{print $14 + $15}' "/proc/$pid/stat"))); done; echo "$sum"; }
# The sum of one counter over the nodes' /metrics.
counter() {
  local name=$1; shift
  local sum=0
  for port in "$@"; do
    sum=$((sum + $(curl -s "http://127.0.0.1:$port/metrics" | awk -v n="$name" '$1 == n {printf "%d", $2}')))
  done
  echo "$sum"
}

run_cluster() {  # nodes [parlor-load flags...]
  local count=$1; shift
  dir=$(mktemp -d /tmp/parlor-proxy-bench.XXXXXX)
  PARLOR_SERVER="$build/server/parlor-server" PARLOR_THREADS=1 \
    "$repo/deploy/cluster/up.sh" --nodes "$count" --port 0 --dir "$dir" >/dev/null 2>"$dir.err" ||
    { cat "$dir.err"; exit 1; }
  local proxy node_pids node_ports haproxy_pid
  proxy=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["proxy"]["port"])' "$dir/cluster.json")
  haproxy_pid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["proxy"]["pid"])' "$dir/cluster.json")
  read -r -a node_pids <<<"$(python3 -c 'import json,sys; print(" ".join(str(n["pid"]) for n in json.load(open(sys.argv[1]))["nodes"]))' "$dir/cluster.json")"
  read -r -a node_ports <<<"$(python3 -c 'import json,sys; print(" ".join(str(n["port"]) for n in json.load(open(sys.argv[1]))["nodes"]))' "$dir/cluster.json")"
  local load_rooms=$((think > 0 ? rooms * count : rooms))
  local ramp_ms=$((load_rooms * 2 > 1000 ? load_rooms * 2 : 1000))
  "$build/bots/parlor-load" --url "ws://127.0.0.1:$proxy/ws" --game bigtwo --rooms "$load_rooms" \
    --seats 4 --think-ms "$think" --duration "$seconds" --ramp-ms "$ramp_ms" --json "$@" \
    >"$dir/load.json" &
  local load=$!
  sleep "$(awk -v r="$ramp_ms" 'BEGIN {print r / 1000 + 0.5}')"
  local n0 h0 f0 b0 m0 n1 h1 f1 b1 m1
  f0=$(counter parlor_cluster_requests_forwarded_total "${node_ports[@]}")
  b0=$(counter parlor_cluster_link_bytes_sent_total "${node_ports[@]}")
  m0=$(counter parlor_moves_accepted_total "${node_ports[@]}")
  n0=$(ticks "${node_pids[@]}"); h0=$(ticks "$haproxy_pid")
  sleep "$((seconds - 1))"
  n1=$(ticks "${node_pids[@]}"); h1=$(ticks "$haproxy_pid")
  f1=$(counter parlor_cluster_requests_forwarded_total "${node_ports[@]}")
  b1=$(counter parlor_cluster_link_bytes_sent_total "${node_ports[@]}")
  m1=$(counter parlor_moves_accepted_total "${node_ports[@]}")
  wait "$load" || true
  python3 - "$dir/load.json" "$count" "$((n1 - n0))" "$((h1 - h0))" "$hz" "$((f1 - f0))" "$((b1 - b0))" "$((m1 - m0))" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
nodes, node_ticks, proxy_ticks, hz, fwd, link_bytes, moves = sys.argv[2], *map(int, sys.argv[3:5]), int(sys.argv[5]), *map(int, sys.argv[6:9])
moves = max(moves, 1)
following = ", following the room's node" if d.get("follow_room_node") else ""
print(f"{nodes} node(s) behind HAProxy{following}, {d['rooms']} rooms: {d['moves_per_second']:.0f} moves/s  p50 {d['latency_ms']['p50']:.2f} ms  "
      f"p99 {d['latency_ms']['p99']:.2f} ms  nodes {node_ticks / hz * 1e6 / moves:.0f} us/move  "
      f"haproxy {proxy_ticks / hz * 1e6 / moves:.0f} us/move  cross-node {100 * fwd / moves:.0f}% of moves  "
      f"link {link_bytes / moves:.0f} B/move")
PY
  "$repo/deploy/cluster/down.sh" "$dir" >/dev/null 2>&1 || true
  rm -rf "$dir" "$dir.err"
  dir=""
}

for round in $(seq "$rounds"); do
  echo "== round $round: $rooms rooms x 4 seats$( ((think > 0)) && echo " per node, think ${think} ms"), ${seconds}s"
  run_cluster 1
  run_cluster 3
  run_cluster 3 --follow-room-node
  printf "embedded (one server, SQLite): "
  "$here/server_load.sh" "$build" "$rooms" "$think" "$seconds" sqlite | python3 -c '
import json, sys
text = sys.stdin.read()
report = json.loads(text[:text.index("server_cpu_us_per_move")])
cpu = text.split("server_cpu_us_per_move")[1].split()[0]
latency = report["latency_ms"]
print("%.0f moves/s  p50 %.2f ms  p99 %.2f ms  server %s us/move" % (report["moves_per_second"], latency["p50"], latency["p99"], cpu))'
done
