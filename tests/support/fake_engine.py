#!/usr/bin/env python3
"""A rules engine for the adapter's contract tests: a tiny two-player game over HTTP that
misbehaves on request (docs/ENGINES.md describes the contract it bends).

    python3 fake_engine.py --port 0 [--bad-config]

The game: each player is dealt three cards; they take turns playing one card onto the stack
`pile`; after four plays the game ends and each scores the number of cards they played.

POST /fault {"kind": KIND, "count": N} makes the next N calls of `next` misbehave:
  slow            answers after 3 s
  status500       answers 500
  invalid_json    answers 200 with a body that is not JSON
  unknown_player  deals a card to a player not in the game
  empty_from      opens a prompt_select with an empty `from`
  overdraw        draws more cards than the deck holds
  refuse          refuses the call with 400 bad_answer
  end_mid_trick   (an answer to a play) prompts the next player, then ends the game
  together        (the first prompt of the game) prompts both players at once to select
                  "ready"; play starts once both have answered
GET /calls answers {"next": N, "init": N}: how many calls of each the engine received.
"""
import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

CONFIG = {
    "deck": "52",
    "player_count": 2,
    "stacks": [{"id": "pile", "label": "Pile", "orientation": "horizontal", "max-size": 52,
                "alignment": "center"}],
    "info": [{"id": "plays", "label": "Plays", "value": 0}],
}

lock = threading.Lock()
faults = []  # kinds still to inject, oldest first
calls = {"next": 0, "init": 0}


def take_fault(body):
    with lock:
        calls["next"] += 1
        if not faults:
            return None
        if faults[0] == "end_mid_trick" and body["action"] is None:
            return None
        if faults[0] == "together" and (body["action"] is not None
                                        or body["state"]["phase"] != "play"):
            return None
        return faults.pop(0)


def rules_next(state, players, action):
    ids = [p["id"] for p in players]
    hands = {p["id"]: p["hand"] for p in players}
    if state["phase"] == "deal":
        state = dict(state, phase="play")
        return state, [{"type": "draw", "player": pid, "count": 3} for pid in ids]
    if state["phase"] == "ready":
        ready = state["ready"] + [action["player"]]
        if len(ready) < len(ids):
            return dict(state, ready=ready), []
        state, action = dict(state, phase="play", ready=ready), None
    if action is None:
        turn = ids[state["turn"]]
        return dict(state, prompt=turn), [
            {"type": "prompt_play", "player": turn, "to": "pile", "count": 1, "from": hands[turn]}]
    if action["player"] != state.get("prompt") or action["value"][0] not in hands[action["player"]]:
        raise ValueError("bad_answer")
    plays = state["plays"] + 1
    scored = dict(state["scored"])
    scored[action["player"]] = scored.get(action["player"], 0) + 1
    turn = (state["turn"] + 1) % len(ids)
    state = dict(state, plays=plays, turn=turn, prompt=None, scored=scored)
    events = [{"type": "set_info", "id": "plays", "value": plays}]
    if plays == 4:
        state["phase"] = "over"
        events.append({"type": "end_game", "scores": {pid: scored.get(pid, 0) for pid in ids}})
        return state, events
    state["prompt"] = ids[turn]
    events.append({"type": "prompt_play", "player": ids[turn], "to": "pile", "count": 1,
                   "from": hands[ids[turn]]})
    return state, events


def make_handler(bad_config):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):
            pass

        def send(self, status, data):
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def send_json(self, status, body):
            self.send(status, json.dumps(body).encode())

        def do_GET(self):
            url = urlsplit(self.path)
            if url.path == "/config":
                config = dict(CONFIG, deck="32") if bad_config else CONFIG
                return self.send_json(200, config)
            if url.path == "/calls":
                with lock:
                    return self.send_json(200, dict(calls))
            if url.path == "/init":
                with lock:
                    calls["init"] += 1
                ids = parse_qs(url.query)["players"][0].split(",")
                return self.send_json(200, {
                    "players": [{"id": pid, "team": i} for i, pid in enumerate(ids)],
                    "state": {"phase": "deal", "turn": 0, "plays": 0, "scored": {}, "prompt": None}})
            self.send_json(404, {"error": "not_found", "message": url.path})

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            url = urlsplit(self.path)
            if url.path == "/fault":
                with lock:
                    faults.extend([body["kind"]] * body.get("count", 1))
                return self.send_json(200, {"ok": True})
            if url.path != "/next":
                return self.send_json(404, {"error": "not_found", "message": url.path})
            fault = take_fault(body)
            if fault == "together":
                ids = [p["id"] for p in body["players"]]
                return self.send_json(200, [dict(body["state"], phase="ready", ready=[]), [
                    {"type": "prompt_select", "name": "ready", "player": pid, "count": 1,
                     "from": ["ready"]} for pid in ids]])
            if fault == "slow":
                time.sleep(3)
            if fault == "status500":
                return self.send_json(500, {"error": "internal", "message": "boom"})
            if fault == "invalid_json":
                return self.send(200, b'[{"phase": "play"}, [')
            if fault == "refuse":
                return self.send_json(400, {"error": "bad_answer", "message": "not that card"})
            try:
                state, events = rules_next(body["state"], body["players"], body["action"])
            except ValueError as e:
                return self.send_json(400, {"error": str(e), "message": "that does not fit"})
            if fault == "unknown_player":
                events = [{"type": "draw", "player": "seat9", "count": 1}]
            elif fault == "empty_from":
                events = [{"type": "prompt_select", "name": "x", "player": "seat0", "count": 1,
                           "from": []}]
            elif fault == "overdraw":
                events = [{"type": "draw", "player": "seat0", "count": 60}]
            elif fault == "end_mid_trick":
                events = [e for e in events if e["type"] != "end_game"]
                events.append({"type": "end_game", "scores": {"seat0": 7, "seat1": 3}})
            self.send_json(200, [state, events])

    return Handler


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--bad-config", action="store_true")
    args = parser.parse_args()
    httpd = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(args.bad_config))
    httpd.daemon_threads = True
    print(f"listening on 127.0.0.1:{httpd.server_address[1]}", flush=True)
    httpd.serve_forever()
