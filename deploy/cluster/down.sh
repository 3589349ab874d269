#!/usr/bin/env bash
# Stops the cluster that deploy/cluster/up.sh started from directory D:
#
#   deploy/cluster/down.sh D
#
# by the PIDs in D/cluster.json, in order: the nodes (SIGTERM, all at once: each drains for
# its --drain-ms, closes its connections with 1012, commits its writes and leaves the
# cluster; SIGKILL after 20 s), then HAProxy, Redis, and PostgreSQL (a fast shutdown). A PID
# is signalled only while it is still the program up.sh started there (PIDs are reused).
# Idempotent: what is already gone is skipped. Exits 0 once every process is gone, 1 if one
# outlived even SIGKILL (2 for a wrong command line). Without D/cluster.json there is nothing
# to stop: 0. D's files (logs, data) stay.
set -euo pipefail

if (($# != 1)) || [ "$1" = -h ] || [ "$1" = --help ]; then
  echo "usage: deploy/cluster/down.sh D   (the --dir given to deploy/cluster/up.sh)" >&2
  exit 2
fi
dir="$1"
json="$dir/cluster.json"
if [ ! -f "$json" ]; then
  # Nothing up.sh started is known there (it writes cluster.json once all is up, and stops
  # what it started when it fails): nothing to stop.
  echo "down.sh: no $json: nothing to stop" >&2
  exit 0
fi

# "ROLE NAME PID" per process, in the order they are stopped.
processes="$(python3 - "$json" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
for n in c.get("nodes", []):
    print("node", n["name"], int(n["pid"]))
for role in ("proxy", "redis", "postgres"):
    if role in c:
        print(role, role, int(c[role]["pid"]))
EOF
)"

# The program each role runs, as /proc/PID/comm shows it (at most 15 characters).
declare -A expected_comm=([node]=parlor-server [proxy]=haproxy [redis]=redis-server
  [postgres]=postgres)
# Alive and still ours: a zombie is gone (its adopter may be slow to reap it), and a PID that
# now runs another program is not ours to signal.
ours() {
  local role="$1" pid="$2" stat comm
  { read -r stat <"/proc/$pid/stat"; } 2>/dev/null || return 1
  comm="${stat#*(}"
  comm="${comm%)*}"
  [[ "${stat##*) }" != Z* ]] || return 1
  [ "$comm" = "${expected_comm[$role]}" ]
}

# Signals one process and waits up to `bound` seconds for it to go, then SIGKILLs it.
stop_one() {
  local role="$1" name="$2" pid="$3" signal="$4" bound="$5" waited=0
  if ! ours "$role" "$pid"; then
    echo "down.sh: $name (pid $pid) is not running" >&2
    return 0
  fi
  kill "-$signal" "$pid" 2>/dev/null || true
  while ours "$role" "$pid" && ((waited < bound * 10)); do
    sleep 0.1
    waited=$((waited + 1))
  done
  if ours "$role" "$pid"; then
    echo "down.sh: $name (pid $pid) still runs after ${bound} s: SIGKILL" >&2
    kill -KILL "$pid" 2>/dev/null || true
    waited=0
    while ours "$role" "$pid" && ((waited < 50)); do
      sleep 0.1
      waited=$((waited + 1))
    done
  fi
  if ours "$role" "$pid"; then
    echo "down.sh: $name (pid $pid) outlived SIGKILL" >&2
    return 1
  fi
  echo "down.sh: stopped $name (pid $pid)" >&2
}

status=0
# The nodes side by side: each one's drain then takes the same two seconds, not N times two.
stoppers=()
while read -r role name pid; do
  [ "$role" = node ] || continue
  stop_one node "$name" "$pid" TERM 20 &
  stoppers+=($!)
done <<<"$processes"
for stopper in "${stoppers[@]}"; do wait "$stopper" || status=1; done
while read -r role name pid; do
  case "$role" in
    proxy) stop_one proxy HAProxy "$pid" TERM 5 || status=1 ;;
    redis) stop_one redis redis-server "$pid" TERM 5 || status=1 ;;
    # SIGINT: PostgreSQL's fast shutdown (sessions ended, a checkpoint, exit).
    postgres) stop_one postgres PostgreSQL "$pid" INT 20 || status=1 ;;
  esac
done <<<"$processes"
rm -f "$dir/haproxy.sock"
exit "$status"
