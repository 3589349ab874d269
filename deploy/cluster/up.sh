#!/usr/bin/env bash
# Starts a whole Parlor cluster on this machine, everything on 127.0.0.1:
#
#   deploy/cluster/up.sh [--nodes N] [--port P] [--dir D]
#
#   --nodes N  parlor-server nodes (default 3)
#   --port P   the proxy's port, the cluster's one public address (default 8080; 0 picks a
#              free one)
#   --dir D    where the cluster keeps its files, logs and cluster.json (default
#              ./cluster-run); created if missing. What a previous cluster left there is
#              replaced, unless that cluster still runs (then up.sh refuses)
#
# It starts a redis-server, a PostgreSQL 15 (a fresh initdb under D), N nodes
# (`--node-id node-K --advertise 127.0.0.1:PORT --store postgres://... --cluster redis://...`,
# serving client-web/dist when it is built) and HAProxy in front (deploy/haproxy/parlor.cfg.in),
# waits until every node's /readyz answers 200 and the proxy answers, writes D/cluster.json
#
#   {"proxy":{"pid":..,"port":..},"redis":{"pid":..,"port":..},"postgres":{"pid":..,"port":..},
#    "nodes":[{"name":"node-1","pid":..,"port":..},...]}
#
# and prints `cluster listening on 127.0.0.1:P` on stdout (progress goes to stderr), then
# exits 0, leaving the cluster running: deploy/cluster/down.sh D stops it. On any failure it
# stops what it started and exits 1, naming what failed with the end of its log.
#
# Environment: PARLOR_SERVER (the binary; default build/release/server/parlor-server),
# HAPROXY (default haproxy), REDIS_SERVER (default redis-server), PG_BIN (default
# /usr/lib/postgresql/15/bin). Every PARLOR_* setting of parlor-server in the environment
# (PARLOR_LEASE_MS, PARLOR_DEV, ...) reaches every node.
#
# Files under D: cluster.json; store.url (the database URL with its password, mode 600);
# haproxy.cfg and haproxy.sock (the proxy's runtime API); redis/, postgres/ (the data
# directory, owned by the user PostgreSQL runs as); logs/NAME.log for every process.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
nodes=3
proxy_port=8080
dir=./cluster-run

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; }
die_usage() {
  echo "up.sh: $1" >&2
  echo "usage: deploy/cluster/up.sh [--nodes N] [--port P] [--dir D]" >&2
  exit 2
}
while (($#)); do
  case "$1" in
    --nodes) nodes="${2:-}"; shift 2 || die_usage "--nodes needs a value" ;;
    --nodes=*) nodes="${1#*=}"; shift ;;
    --port) proxy_port="${2:-}"; shift 2 || die_usage "--port needs a value" ;;
    --port=*) proxy_port="${1#*=}"; shift ;;
    --dir) dir="${2:-}"; shift 2 || die_usage "--dir needs a value" ;;
    --dir=*) dir="${1#*=}"; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die_usage "unknown argument $1" ;;
  esac
done
[[ "$nodes" =~ ^[1-9][0-9]?$ ]] || die_usage "--nodes must be a number from 1 to 99, not \"$nodes\""
if ! [[ "$proxy_port" =~ ^[0-9]{1,5}$ ]] || ((10#$proxy_port > 65535)); then
  die_usage "--port must be a port number (0 picks a free one), not \"$proxy_port\""
fi
proxy_port=$((10#$proxy_port))
[ -n "$dir" ] || die_usage "--dir must not be empty"

server_bin="${PARLOR_SERVER:-$repo/build/release/server/parlor-server}"
# Absolute, since up.sh works from inside D (and PostgreSQL from inside D/postgres).
[[ "$server_bin" == /* ]] || server_bin="$PWD/$server_bin"
haproxy_bin="${HAPROXY:-haproxy}"
redis_bin="${REDIS_SERVER:-redis-server}"
pg_bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
static_dir="$repo/client-web/dist"

say() { echo "up.sh: $*" >&2; }
# Something accepts connections on 127.0.0.1:PORT.
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# ---- what was started, stopped again on failure --------------------------------------------
started_names=()
started_pids=()
succeeded=0

# Stops `pid` with `signal`, then SIGKILL after `bound` seconds. A zombie counts as gone: once
# up.sh has exited, whoever adopts the processes may be slow to reap them. /proc/PID/stat is
# read once: testing that /proc/PID exists and then reading its state separately could see
# the zombie reaped in between and take the failed read for a live process.
alive() {
  local stat
  { read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
  [[ "${stat##*) }" != Z* ]]
}
stop_pid() {
  local pid="$1" signal="$2" bound="$3" waited=0
  alive "$pid" || return 0
  kill "-$signal" "$pid" 2>/dev/null || return 0
  while alive "$pid" && ((waited < bound * 10)); do
    sleep 0.1
    waited=$((waited + 1))
  done
  if alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
}
# Counts a process as started the moment it is spawned, so that a failure or an interrupt
# at any point after stops it; untrack forgets one that is gone (a start that was retried).
track() {
  started_names+=("$1")
  started_pids+=("$2")
}
untrack() {
  local i names=() pids=()
  for ((i = 0; i < ${#started_pids[@]}; i++)); do
    [ "${started_pids[$i]}" = "$1" ] && continue
    names+=("${started_names[$i]}")
    pids+=("${started_pids[$i]}")
  done
  started_names=("${names[@]}")
  started_pids=("${pids[@]}")
}
stop_started() {
  local i stoppers=()
  # Nodes first, side by side (each drains, then commits its writes), then the proxy, Redis
  # and PostgreSQL. Only the stoppers are waited for: the daemons are children too.
  for ((i = ${#started_pids[@]} - 1; i >= 0; i--)); do
    case "${started_names[$i]}" in
      node-*)
        stop_pid "${started_pids[$i]}" TERM 15 &
        stoppers+=($!)
        ;;
    esac
  done
  ((${#stoppers[@]} == 0)) || wait "${stoppers[@]}"
  for ((i = ${#started_pids[@]} - 1; i >= 0; i--)); do
    case "${started_names[$i]}" in
      proxy) stop_pid "${started_pids[$i]}" TERM 5 ;;
      redis) stop_pid "${started_pids[$i]}" TERM 5 ;;
      postgres) stop_pid "${started_pids[$i]}" INT 15 ;;  # fast shutdown
    esac
  done
}
on_exit() {
  local status=$?
  if ((succeeded == 0)); then
    # An error that `fail` did not report (set -e) must not end up.sh silently.
    ((reported)) || echo "up.sh: FAILED: unexpected error (status $status) near line ${error_line:-?}" >&2
    ((${#started_pids[@]})) && say "stopping what was started: ${started_names[*]}"
    stop_started
    ((status != 0)) || status=1
  fi
  exit "$status"
}
reported=0
error_line=""
set -o errtrace
trap 'error_line=$LINENO' ERR
trap on_exit EXIT
trap 'reported=1; say "interrupted (SIGINT)"; exit 130' INT
trap 'reported=1; say "interrupted (SIGTERM)"; exit 143' TERM

# Says what failed with the end of its log, and exits (the trap stops the rest).
fail() {
  local message="$1" log="${2:-}"
  reported=1
  echo "up.sh: FAILED: $message" >&2
  if [ -n "$log" ] && [ -f "$log" ]; then
    echo "up.sh: the end of $log:" >&2
    tail -n 20 "$log" | sed 's/^/    /' >&2
  fi
  exit 1
}

# ---- checks before anything starts ------------------------------------------------------
[ -x "$server_bin" ] ||
  fail "no parlor-server at $server_bin: build it (cmake --preset release && cmake --build --preset release, or make cluster) or set PARLOR_SERVER"
command -v "$haproxy_bin" >/dev/null || fail "$haproxy_bin is not installed (bash deploy/install-deps.sh)"
command -v "$redis_bin" >/dev/null || fail "$redis_bin is not installed (bash deploy/install-deps.sh)"
for tool in initdb postgres pg_isready createdb; do
  [ -x "$pg_bin/$tool" ] || fail "$pg_bin/$tool is missing: install postgresql-15 (bash deploy/install-deps.sh) or set PG_BIN"
done
command -v curl >/dev/null || fail "curl is not installed (bash deploy/install-deps.sh)"
command -v python3 >/dev/null || fail "python3 is not installed (bash deploy/install-deps.sh)"
# Checked again when the proxy starts; here so as not to start everything else in vain.
if ((proxy_port != 0)) && port_busy "$proxy_port"; then
  fail "port $proxy_port is already in use on 127.0.0.1: stop what listens there or choose --port"
fi

mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
if [ -f "$dir/cluster.json" ]; then
  # A cluster started here before: refuse while any of its processes lives.
  if python3 - "$dir/cluster.json" <<'EOF'; then
import json, os, sys
c = json.load(open(sys.argv[1]))
pids = [c[k]["pid"] for k in ("proxy", "redis", "postgres") if k in c] + [n["pid"] for n in c.get("nodes", [])]
def alive(pid):
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
sys.exit(0 if any(alive(p) for p in pids) else 1)
EOF
    fail "a cluster already runs from $dir (see $dir/cluster.json); stop it with deploy/cluster/down.sh $dir"
  fi
fi
# Only what up.sh itself puts there is removed.
rm -rf "$dir/cluster.json" "$dir/store.url" "$dir/haproxy.cfg" "$dir/haproxy.sock" \
  "$dir/redis" "$dir/postgres" "$dir/logs"
mkdir -p "$dir/logs" "$dir/redis"
cd "$dir"
if ((${#dir} > 90)); then
  fail "$dir is too long a path for the proxy's socket (at most 90 characters); choose a shorter --dir"
fi

# Free ports on 127.0.0.1, distinct: all bound at once, then released for the servers to
# take. Another process could take one in between; each start below then fails to bind and
# is tried again on a new port.
free_ports() {
  python3 -c '
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
' "$1"
}
http_status() { curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$1$2" || true; }

# Starts a daemon in a session of its own (so that a Ctrl-C in the terminal that ran up.sh
# reaches none of them: down.sh stops them in order), its output appended to `log`. setsid
# and setpriv exec rather than fork here, so $! is the daemon's own PID.
spawn() {
  local log="$1"
  shift
  setsid "$@" </dev/null >>"$log" 2>&1 &
  spawned=$!
}

# ---- Redis ------------------------------------------------------------------------------
# Parlor keeps nothing in Redis that must survive it (nodes register again, rooms are
# recorded again), so it persists nothing: no RDB snapshots, no append-only file.
redis_log="$dir/logs/redis.log"
redis_pid=""
for attempt in 1 2 3; do
  redis_port="$(free_ports 1)"
  spawn "$redis_log" "$redis_bin" --bind 127.0.0.1 --port "$redis_port" --dir "$dir/redis" \
    --save "" --appendonly no --daemonize no --protected-mode yes --loglevel notice
  redis_pid=$spawned
  track redis "$redis_pid"
  for _ in $(seq 100); do
    alive "$redis_pid" || break
    [ "$(redis-cli -h 127.0.0.1 -p "$redis_port" ping 2>/dev/null)" = PONG ] && break
    sleep 0.1
  done
  if alive "$redis_pid" && [ "$(redis-cli -h 127.0.0.1 -p "$redis_port" ping 2>/dev/null)" = PONG ]; then
    break
  fi
  stop_pid "$redis_pid" KILL 1
  untrack "$redis_pid"
  redis_pid=""
  grep -qi "address already in use" "$redis_log" || break
  say "redis: port $redis_port was taken meanwhile, trying another (attempt $attempt)"
done
[ -n "$redis_pid" ] || fail "redis-server did not start on 127.0.0.1:$redis_port" "$redis_log"
say "redis-server on 127.0.0.1:$redis_port (pid $redis_pid)"

# ---- PostgreSQL ---------------------------------------------------------------------------
# PostgreSQL refuses to run as root; then the data directory belongs to `nobody` and initdb
# and postgres run as that user (as the store's tests do). setpriv execs, keeping the PID.
pg_dir="$dir/postgres"
pg_log="$dir/logs/postgres.log"
mkdir -p "$pg_dir"
as_pg=()
if [ "$(id -u)" -eq 0 ]; then
  as_pg=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
  chown nobody:nogroup "$pg_dir"
  if ! "${as_pg[@]}" test -w "$pg_dir"; then
    # mktemp -d makes a directory only root may enter: let others pass through it (not list it).
    chmod o+x "$dir"
    "${as_pg[@]}" test -w "$pg_dir" ||
      fail "PostgreSQL runs as nobody, who cannot reach $pg_dir: make $dir and its parents searchable (chmod o+x) or use a --dir under /tmp"
  fi
fi
pg_password="$(head -c 24 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 24)"
(umask 077 && printf '%s\n' "$pg_password" >"$pg_dir/pwfile")
[ ${#as_pg[@]} -eq 0 ] || chown nobody:nogroup "$pg_dir/pwfile"
# scram-sha-256 over TCP; no Unix socket at all (unix_socket_directories below is empty), so
# nothing depends on the length of D's path.
# From inside the data's directory: `nobody` may not enter the directory up.sh was run from.
cd "$pg_dir"
if ! "${as_pg[@]}" "$pg_bin/initdb" -D "$pg_dir/data" -U parlor --pwfile="$pg_dir/pwfile" \
  --auth-host=scram-sha-256 --auth-local=peer --locale=C --encoding=UTF8 --no-sync \
  >"$dir/logs/initdb.log" 2>&1; then
  fail "initdb of $pg_dir/data failed" "$dir/logs/initdb.log"
fi
rm -f "$pg_dir/pwfile"
pg_pid=""
for attempt in 1 2 3; do
  pg_port="$(free_ports 1)"
  spawn "$pg_log" "${as_pg[@]}" "$pg_bin/postgres" -D "$pg_dir/data" -p "$pg_port" \
    -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c max_connections=200
  pg_pid=$spawned
  track postgres "$pg_pid"
  for _ in $(seq 300); do
    alive "$pg_pid" || break
    "$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port" && break
    sleep 0.1
  done
  if alive "$pg_pid" && "$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port"; then break; fi
  stop_pid "$pg_pid" KILL 1
  untrack "$pg_pid"
  pg_pid=""
  grep -qi "could not bind\|address already in use" "$pg_log" || break
  say "postgres: port $pg_port was taken meanwhile, trying another (attempt $attempt)"
done
cd "$dir"
[ -n "$pg_pid" ] || fail "PostgreSQL did not start on 127.0.0.1:$pg_port" "$pg_log"
if ! PGPASSWORD="$pg_password" "$pg_bin/createdb" -h 127.0.0.1 -p "$pg_port" -U parlor parlor \
  >>"$pg_log" 2>&1; then
  fail "could not create the database parlor on 127.0.0.1:$pg_port" "$pg_log"
fi
store_url="postgres://parlor:$pg_password@127.0.0.1:$pg_port/parlor"
(umask 077 && printf '%s\n' "$store_url" >"$dir/store.url")
say "PostgreSQL on 127.0.0.1:$pg_port (pid $pg_pid), database parlor (URL in $dir/store.url)"

# ---- the nodes ----------------------------------------------------------------------------
# The store's URL goes in the environment (PARLOR_STORE), not on the command line, where any
# local user could read its password. Every client of a node comes through the proxy, from
# 127.0.0.1: the per-address limits are the proxy's (deploy/haproxy/parlor.cfg.in), and the
# nodes' own are raised out of the way.
node_flags=(--bind 127.0.0.1 --cluster "redis://127.0.0.1:$redis_port"
  --max-connections-per-ip 1000000 --max-handshakes-per-ip 1000000)
[ -d "$static_dir" ] && node_flags+=(--static-dir "$static_dir")

node_ports=()
node_pids=()
node_tries=()
# Spawns node K on a free port (no waiting) and counts it as started at once, so that a
# failure anywhere later stops it too.
launch_node() {
  local k="$1" port
  [ -z "${node_pids[k - 1]:-}" ] || untrack "${node_pids[k - 1]}"
  port="$(free_ports 1)"
  PARLOR_STORE="$store_url" spawn "$dir/logs/node-$k.log" "$server_bin" --port "$port" \
    --node-id "node-$k" --advertise "127.0.0.1:$port" "${node_flags[@]}"
  node_pids[k - 1]=$spawned
  node_ports[k - 1]=$port
  node_tries[k - 1]=$((${node_tries[k - 1]:-0} + 1))
  track "node-$k" "$spawned"
}
# Waits until nodes FIRST..LAST answer /readyz with 200 (30 s at most: a start opens the
# store, creating its tables the first time). A node that exits because its port was taken
# meanwhile is launched again on another, up to three times.
wait_nodes() {
  local first="$1" last="$2" k pending waited=0 log
  while ((waited < 300)); do
    pending=0
    for ((k = first; k <= last; k++)); do
      [ "$(http_status "${node_ports[k - 1]}" /readyz)" = 200 ] && continue
      pending=1
      alive "${node_pids[k - 1]}" && continue
      log="$dir/logs/node-$k.log"
      if grep -qi "address already in use" "$log" && ((node_tries[k - 1] < 3)); then
        say "node-$k: port ${node_ports[k - 1]} was taken meanwhile, trying another"
        launch_node "$k"
      else
        fail "node-$k exited at start (on 127.0.0.1:${node_ports[k - 1]})" "$log"
      fi
    done
    ((pending)) || return 0
    sleep 0.1
    waited=$((waited + 1))
  done
  for ((k = first; k <= last; k++)); do
    [ "$(http_status "${node_ports[k - 1]}" /readyz)" = 200 ] ||
      fail "node-$k did not answer /readyz with 200 on 127.0.0.1:${node_ports[k - 1]} within 30 s" \
        "$dir/logs/node-$k.log"
  done
}
# The first node alone creates the store's tables; the others then start side by side.
launch_node 1
wait_nodes 1 1
for ((k = 2; k <= nodes; k++)); do launch_node "$k"; done
wait_nodes 2 "$nodes"
for ((k = 1; k <= nodes; k++)); do
  say "node-$k on 127.0.0.1:${node_ports[k - 1]} (pid ${node_pids[k - 1]})"
done

# ---- the proxy ----------------------------------------------------------------------------
proxy_log="$dir/logs/haproxy.log"
proxy_cfg="$dir/haproxy.cfg"
proxy_pid=""
for attempt in 1 2 3; do
  port="$proxy_port"
  if ((proxy_port == 0)); then
    port="$(free_ports 1)"
  elif port_busy "$port"; then
    fail "port $port is already in use on 127.0.0.1: stop what listens there or choose --port"
  fi
  sed -e "s|@BIND@|127.0.0.1:$port|" -e "s|@STATS_SOCKET@|$dir/haproxy.sock|" \
    "$repo/deploy/haproxy/parlor.cfg.in" >"$proxy_cfg"
  for ((k = 1; k <= nodes; k++)); do
    printf '    server node-%d 127.0.0.1:%d\n' "$k" "${node_ports[k - 1]}" >>"$proxy_cfg"
    # A client that names a node (`/ws?node=node-K`, from a room's "node") reaches it while
    # it is up; the server names match the nodes' --node-id for that reason.
    printf '    use-server node-%d if { urlp(node) -m str node-%d }\n' "$k" "$k" >>"$proxy_cfg"
  done
  "$haproxy_bin" -c -q -f "$proxy_cfg" >>"$proxy_log" 2>&1 ||
    fail "HAProxy refused its configuration $proxy_cfg" "$proxy_log"
  # -db: in the foreground, not daemonized, so that its PID is the one spawned.
  spawn "$proxy_log" "$haproxy_bin" -db -f "$proxy_cfg"
  proxy_pid=$spawned
  track proxy "$proxy_pid"
  for _ in $(seq 100); do
    alive "$proxy_pid" || break
    [ "$(http_status "$port" /readyz)" = 200 ] && break
    sleep 0.1
  done
  if alive "$proxy_pid" && [ "$(http_status "$port" /readyz)" = 200 ]; then break; fi
  stop_pid "$proxy_pid" KILL 1
  untrack "$proxy_pid"
  proxy_pid=""
  if ((proxy_port != 0)) || ! grep -qi "cannot bind\|address already in use" "$proxy_log"; then
    break
  fi
  say "proxy: port $port was taken meanwhile, trying another (attempt $attempt)"
done
[ -n "$proxy_pid" ] || fail "HAProxy did not answer /readyz with 200 on 127.0.0.1:$port" "$proxy_log"
proxy_port="$port"

# ---- cluster.json, then the line --------------------------------------------------------
{
  printf '{"proxy":{"pid":%d,"port":%d},' "$proxy_pid" "$proxy_port"
  printf '"redis":{"pid":%d,"port":%d},' "$redis_pid" "$redis_port"
  printf '"postgres":{"pid":%d,"port":%d},' "$pg_pid" "$pg_port"
  printf '"nodes":['
  for ((k = 1; k <= nodes; k++)); do
    ((k > 1)) && printf ','
    printf '{"name":"node-%d","pid":%d,"port":%d}' "$k" "${node_pids[k - 1]}" "${node_ports[k - 1]}"
  done
  printf ']}\n'
} >"$dir/cluster.json.tmp"
mv "$dir/cluster.json.tmp" "$dir/cluster.json"
succeeded=1
say "$nodes nodes behind HAProxy; stop with: deploy/cluster/down.sh $dir"
echo "cluster listening on 127.0.0.1:$proxy_port"
