#!/usr/bin/env bash
# Soak: a durable parlor-server played by bots for SECONDS (default an hour), sampled every
# INTERVAL seconds, then judged on what must not grow. Opt-in: the ctest label `soak`, which
# `make test` leaves out; docs/OPERATIONS.md ("Soak") has a run's figures and how to read them.
#
#   tests/soak/soak.sh BUILD_DIR [SECONDS] [OUT_CSV]     (SECONDS also from PARLOR_SOAK_SECONDS)
#   e.g. tests/soak/soak.sh build/release 3600 soak.csv
#
# The load, all of it through the public protocol on 127.0.0.1:
#   - steady play: parlor-load's ROOMS Big Two tables of 4 (SOAK_ROOMS, default 100) with
#     SOAK_THINK_MS (default 250) between moves, for the whole run, game after game;
#   - churn: every SOAK_CHURN_S seconds (default 20) a short parlor-load run of 20 tables of
#     another game (Spades, Bid Whist, Agram, Gem Merchants in turn), whose players leave
#     afterwards: connections, anonymous players and rooms come and go all the time;
#   - a searching bot: parlor-bot at the hard level (ismcts) plays Agram against a greedy one,
#     game after game, so the bot think pool is busy throughout.
# The server retires finished rooms after 60 s and forgets idle anonymous players after 120 s,
# so those sweeps run many times within the hour.
#
# Each sample (a CSV line) reads /metrics: resident memory, open descriptors, threads,
# connections, players in memory, rooms, the store's queue and moves accepted. tests/soak/
# judge.py then says whether what must stay bounded did (it can judge a kept CSV again).
set -euo pipefail
build=$(cd "${1:?build dir}" && pwd)
seconds=${2:-${PARLOR_SOAK_SECONDS:-3600}}
csv=${3:-$(mktemp --suffix=.csv)}
rooms=${SOAK_ROOMS:-100}
think=${SOAK_THINK_MS:-250}
churn=${SOAK_CHURN_S:-20}
interval=${SOAK_INTERVAL_S:-10}
rss_growth_pct=${SOAK_RSS_GROWTH_PCT:-15}
((seconds >= 60)) || { echo "soak: SECONDS must be at least 60" >&2; exit 2; }

data=$(mktemp -d)
pids=()
stop_all() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$data"
}
trap stop_all EXIT

"$build/server/parlor-server" --port 0 --threads 1 --data-dir "$data" \
  --rate-per-second 1000 --rate-burst 1000 --max-connections-per-ip 100000 \
  --max-handshakes-per-ip 100000 --finished-room-retention-s 60 --replay-retention-hours 1 \
  --token-idle-s 120 >"$data/server.log" 2>&1 &
server=$!
pids+=("$server")
for _ in $(seq 100); do grep -q listening "$data/server.log" && break; sleep 0.1; done
port=$(sed -n 's/.*listening on .*:\([0-9]*\)$/\1/p' "$data/server.log" | head -1)
[ -n "$port" ] || { echo "soak: the server did not start" >&2; cat "$data/server.log" >&2; exit 1; }
url="ws://127.0.0.1:$port/ws"
echo "soak: parlor-server pid $server on port $port for $seconds s; samples in $csv"

"$build/bots/parlor-load" --url "$url" --game bigtwo --rooms "$rooms" --seats 4 \
  --think-ms "$think" --duration "$seconds" --ramp-ms 5000 --seed 1 --json >"$data/steady.json" &
steady=$!
pids+=("$steady")

# Churn: short runs of the other games, one after another, each leaving when it ends.
(
  games=(spades bidwhist agram splendor)
  seats=(4 4 4 2)
  i=0
  while :; do
    g=$((i % 4))
    "$build/bots/parlor-load" --url "$url" --game "${games[$g]}" --rooms 20 --seats "${seats[$g]}" \
      --think-ms 50 --duration "$churn" --ramp-ms 1000 --seed "$((i + 2))" --json \
      >"$data/churn-$i.json" 2>&1 || echo "churn run $i failed" >>"$data/churn-errors"
    i=$((i + 1))
  done
) &
pids+=("$!")

# A searching bot at the table, game after game.
(
  while :; do
    "$build/bots/net/parlor-bot" --url "$url" --create agram --seats 2 --name hard --strategy hard \
      --games 1000 --rematch --quiet >"$data/hard.log" 2>&1 &
    host=$!
    room=""
    for _ in $(seq 50); do
      room=$(sed -n "s/^room \(.*\)$/\1/p" "$data/hard.log" | head -1)
      [ -n "$room" ] && break
      sleep 0.1
    done
    if [ -n "$room" ]; then
      "$build/bots/net/parlor-bot" --url "$url" --room "$room" --name greedy --strategy greedy \
        --games 1000 --rematch --quiet >>"$data/greedy.log" 2>&1 || true
    fi
    kill "$host" 2>/dev/null || true
    wait "$host" 2>/dev/null || true
    sleep 1
  done
) &
pids+=("$!")

metric() { awk -v m="$1" '$1 == m {print $2; exit}' "$data/metrics"; }
echo "t_s,rss_bytes,open_fds,threads,connections,players,rooms,store_queue,moves_accepted" >"$csv"
start=$(date +%s)
while kill -0 "$steady" 2>/dev/null; do
  sleep "$interval"
  curl -s --max-time 5 "http://127.0.0.1:$port/metrics" >"$data/metrics" || continue
  rooms_now=$(awk '/^parlor_rooms[{ ]/ {s += $2} END {print s + 0}' "$data/metrics")
  echo "$(($(date +%s) - start)),$(metric process_resident_memory_bytes),$(metric process_open_fds),$(metric process_threads),$(metric parlor_connections),$(metric parlor_players),$rooms_now,$(metric parlor_store_queue_depth),$(metric parlor_moves_accepted_total)" >>"$csv"
done
wait "$steady" || { echo "soak: the steady load failed" >&2; exit 1; }
kill -0 "$server" 2>/dev/null || { echo "soak: the server died" >&2; tail -20 "$data/server.log" >&2; exit 1; }

cat "$data/steady.json"
errors=0
[ -f "$data/churn-errors" ] && errors=$(wc -l <"$data/churn-errors")
echo "soak: $errors churn runs failed"
python3 "$(dirname "$0")/judge.py" "$csv" --rss-growth-pct "$rss_growth_pct" --failed-churn-runs "$errors"
