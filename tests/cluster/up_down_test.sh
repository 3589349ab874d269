#!/usr/bin/env bash
# deploy/cluster/up.sh and down.sh, end to end, on 127.0.0.1 only: starts a 2-node cluster
# behind HAProxy in a fresh directory, checks what up.sh promises (its line, cluster.json,
# live processes), talks to the cluster through the proxy (/readyz, /api/games, /cluster/
# refused), plays a game of two parlor-bots through it, stops it with down.sh and checks
# that every process is gone. Bounded: every step has a timeout; the directory is removed.
#
# Environment: PARLOR_SERVER and PARLOR_BOT (the binaries; default build/release/...).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bot="${PARLOR_BOT:-$repo/build/release/bots/net/parlor-bot}"
export PARLOR_SERVER="${PARLOR_SERVER:-$repo/build/release/server/parlor-server}"
dir="$(mktemp -d)"
started=$SECONDS
checks=0

cleanup() {
  local status=$?
  if [ -f "$dir/cluster.json" ]; then timeout 60 "$repo/deploy/cluster/down.sh" "$dir" 2>/dev/null || true; fi
  if ((status != 0)) && [ -d "$dir/logs" ]; then
    for log in "$dir"/logs/*.log; do
      echo "--- the end of $(basename "$log"):" >&2
      tail -n 15 "$log" >&2
    done
  fi
  rm -rf "$dir"
  exit "$status"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  echo "0 passed, 1 failed" >&2
  exit 1
}
ok() {
  checks=$((checks + 1))
  echo "ok: $* ($((SECONDS - started)) s)"
}
# Running and not a zombie (the processes' adopter may be slow to reap them). One read of
# /proc/PID/stat: a zombie reaped between an existence test and a separate read of its state
# would otherwise pass for a live process.
alive() {
  local stat
  { read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
  [[ "${stat##*) }" != Z* ]]
}
status_of() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$1" || true; }

[ -x "$bot" ] || fail "no parlor-bot at $bot (build it, or set PARLOR_BOT)"

# ---- up ---------------------------------------------------------------------------------
if ! out="$(timeout 240 "$repo/deploy/cluster/up.sh" --nodes 2 --port 0 --dir "$dir")"; then
  fail "up.sh failed; stdout: $out"
fi
[[ "$out" =~ ^cluster\ listening\ on\ 127\.0\.0\.1:([0-9]+)$ ]] ||
  fail "up.sh printed \"$out\", not exactly \"cluster listening on 127.0.0.1:PORT\""
port="${BASH_REMATCH[1]}"
ok "up.sh: cluster listening on 127.0.0.1:$port"

# cluster.json: every field, of the right type, agreeing with the line; "NAME PID PORT" out.
processes="$(python3 - "$dir/cluster.json" "$port" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
def check(cond, what):
    if not cond:
        sys.exit(f"cluster.json: {what}: {json.dumps(c)}")
check(set(c) == {"proxy", "redis", "postgres", "nodes"}, "keys")
for role in ("proxy", "redis", "postgres"):
    check(set(c[role]) == {"pid", "port"}, f"{role}'s keys")
    check(all(type(c[role][k]) is int and c[role][k] > 0 for k in ("pid", "port")), role)
check(c["proxy"]["port"] == int(sys.argv[2]), "the proxy's port is not the one printed")
check(len(c["nodes"]) == 2, "two nodes")
for i, n in enumerate(c["nodes"], 1):
    check(set(n) == {"name", "pid", "port"}, "a node's keys")
    check(n["name"] == f"node-{i}", "node names")
    check(type(n["pid"]) is int and type(n["port"]) is int, "a node's pid and port")
everything = [("proxy", c["proxy"]), ("redis", c["redis"]), ("postgres", c["postgres"])]
everything += [(n["name"], n) for n in c["nodes"]]
check(len({p["port"] for _, p in everything}) == 5, "ports are distinct")
check(len({p["pid"] for _, p in everything}) == 5, "pids are distinct")
for name, p in everything:
    print(name, p["pid"], p["port"])
EOF
)" || fail "$processes"
ok "cluster.json has the proxy, Redis, PostgreSQL and two nodes"
pids=()
while read -r name pid node_port; do
  alive "$pid" || fail "$name (pid $pid) is not running"
  pids+=("$pid")
  if [[ "$name" == node-* ]]; then
    [ "$(status_of "http://127.0.0.1:$node_port/readyz")" = 200 ] || fail "$name's own /readyz"
  fi
done <<<"$processes"
ok "all ${#pids[@]} processes run; each node's /readyz answers 200"

# ---- through the proxy ------------------------------------------------------------------
base="http://127.0.0.1:$port"
[ "$(status_of "$base/readyz")" = 200 ] || fail "/readyz through the proxy"
[ "$(status_of "$base/api/games")" = 200 ] || fail "/api/games through the proxy"
games="$(curl -s --max-time 5 "$base/api/games" || true)"
[[ "$games" == *'"bigtwo"'* ]] || fail "/api/games lists no bigtwo: $games"
ok "/readyz and /api/games answer 200 through the proxy"
# The nodes' internal endpoint stays internal, however the path is spelled.
for path in /cluster/link /cluster/ //cluster/link /%63luster/link /CLUSTER/link; do
  code="$(status_of "$base$path")"
  [ "$code" = 403 ] || [ "$code" = 404 ] || fail "$path through the proxy answered $code, not 403/404"
done
ok "/cluster/ paths are refused by the proxy"

# A game of two parlor-bots through the proxy. Leastconn sends the second bot's connection
# to the node that does not hold the room: the room is played across nodes (its requests
# forwarded, its pushes sent back over a link between them).
creator_out="$dir/creator.out"
# Made here, not by the background job's redirection, which may not have run yet when the
# loop below first reads it (set -e would end the test on sed's "can't read").
: >"$creator_out"
timeout 90 "$bot" --url "ws://127.0.0.1:$port/ws" --create bigtwo --seats 2 --name ann \
  --strategy greedy --max-seconds 60 --quiet >"$creator_out" 2>"$dir/creator.err" &
creator=$!
room=""
for _ in $(seq 300); do
  room="$(sed -n 's/^room \([0-9a-zA-Z_-]*\)$/\1/p' "$creator_out")"
  [ -n "$room" ] && break
  alive "$creator" || break
  sleep 0.1
done
[ -n "$room" ] || fail "the creating bot printed no room: $(cat "$dir/creator.err")"
timeout 90 "$bot" --url "ws://127.0.0.1:$port/ws" --room "$room" --name ben --quiet \
  >"$dir/joiner.out" 2>"$dir/joiner.err" || fail "the joining bot failed: $(cat "$dir/joiner.err" "$dir/joiner.out")"
wait "$creator" || fail "the creating bot failed: $(cat "$dir/creator.err" "$creator_out")"
for out_file in "$creator_out" "$dir/joiner.out"; do
  grep -q "games=1 .*result=ok" "$out_file" || fail "a bot did not finish its game: $(cat "$out_file")"
done
player_of() { sed -n 's/.*player=\([0-9a-zA-Z]*\).*/\1/p' "$1" | head -1; }
creator_player="$(player_of "$creator_out")"
joiner_player="$(player_of "$dir/joiner.out")"
creator_node="$(grep -l "player $creator_player joined" "$dir"/logs/node-*.log | head -1)"
joiner_node="$(grep -l "player $joiner_player joined" "$dir"/logs/node-*.log | head -1)"
[ -n "$creator_node" ] && [ -n "$joiner_node" ] || fail "the players' nodes are not in the logs"
[ "$creator_node" != "$joiner_node" ] ||
  fail "both bots landed on $(basename "$creator_node"): the game did not cross nodes"
ok "two parlor-bots on $(basename "$creator_node" .log) and $(basename "$joiner_node" .log) played Big Two room $room to the end through the proxy"

# ---- down -------------------------------------------------------------------------------
timeout 90 "$repo/deploy/cluster/down.sh" "$dir" || fail "down.sh exited $?"
for pid in "${pids[@]}"; do
  ! alive "$pid" || fail "pid $pid still runs after down.sh: $(cat "/proc/$pid/stat" 2>&1)"
done
ok "down.sh stopped all ${#pids[@]} processes"
timeout 30 "$repo/deploy/cluster/down.sh" "$dir" 2>/dev/null || fail "a second down.sh exited $?"
ok "a second down.sh exits 0"
echo "$checks passed, 0 failed"
