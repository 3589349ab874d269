#!/usr/bin/env python3
"""Judges a soak's samples (the CSV tests/soak/soak.sh writes): prints each series and fails
if what must stay bounded grew once the server was warm.

    tests/soak/judge.py SAMPLES.csv [--rss-growth-pct 15] [--failed-churn-runs N]

A server under a steady load fills its caches, pools and retention windows over its first
minutes, then holds level: players linger for --token-idle-s after they leave, finished rooms
for --finished-room-retention-s, so both settle at what arrives in those windows, not at what
is connected. So each series is compared with itself: the samples of the second quarter (the
server warm) against those of the last quarter. The run fails if
  - resident memory at the end is above the second quarter's highest by more than
    RSS_GROWTH_PCT percent plus 8 MiB;
  - open descriptors, less the connections open, grew by more than 32 (a descriptor leak);
  - players in memory, or rooms, in the last quarter went above 1.25 times the second
    quarter's highest plus 100 (a table that grows without bound);
  - the store's queue was ever deeper than 10,000 writes, or moves stopped being accepted;
  - a churn run failed.
"""
import argparse
import csv
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("samples")
    parser.add_argument("--rss-growth-pct", type=float, default=15)
    parser.add_argument("--failed-churn-runs", type=int, default=0)
    options = parser.parse_args()
    with open(options.samples) as f:
        rows = [{k: float(v) for k, v in row.items() if v != ""} for row in csv.DictReader(f)]
    rows = [r for r in rows if len(r) == 9]
    if len(rows) < 8:
        sys.exit(f"soak: only {len(rows)} samples")
    quarter = len(rows) // 4
    warm, last = rows[quarter:2 * quarter], rows[3 * quarter:]
    end = rows[-1]

    def most(part, name):
        return max(r[name] for r in part)

    print(f"soak: {len(rows)} samples over {end['t_s']:.0f} s")
    print(f"  {'':12} {'2nd quarter max':>16} {'last quarter max':>17} {'end':>12} {'min':>12} {'max':>12}")
    for name in ("rss_bytes", "open_fds", "threads", "connections", "players", "rooms",
                 "store_queue"):
        values = [r[name] for r in rows]
        print(f"  {name:12} {most(warm, name):>16,.0f} {most(last, name):>17,.0f} "
              f"{end[name]:>12,.0f} {min(values):>12,.0f} {max(values):>12,.0f}")
    moves = end["moves_accepted"] - warm[0]["moves_accepted"]
    seconds = max(end["t_s"] - warm[0]["t_s"], 1)
    print(f"  moves accepted after warm-up: {moves:,.0f} ({moves / seconds:,.0f}/s)")

    failures = []
    rss_limit = most(warm, "rss_bytes") * (1 + options.rss_growth_pct / 100) + 8 * 2**20
    if end["rss_bytes"] > rss_limit:
        failures.append(f"resident memory grew to {end['rss_bytes']:,.0f} bytes "
                        f"(bound {rss_limit:,.0f})")
    spare = [r["open_fds"] - r["connections"] for r in rows]
    if max(spare[3 * quarter:]) > max(spare[quarter:2 * quarter]) + 32:
        failures.append("descriptors beyond the open connections grew")
    for name in ("players", "rooms"):
        if most(last, name) > 1.25 * most(warm, name) + 100:
            failures.append(f"{name} in memory grew: {most(warm, name):,.0f} -> "
                            f"{most(last, name):,.0f}")
    if max(r["store_queue"] for r in rows) > 10000:
        failures.append("the store's queue passed 10,000 writes")
    if moves <= 0:
        failures.append("no moves accepted after warm-up")
    if options.failed_churn_runs:
        failures.append(f"{options.failed_churn_runs} churn runs failed")
    for failure in failures:
        print("soak: FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
