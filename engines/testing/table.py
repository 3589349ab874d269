"""A minimal Tamerlane host for testing engines: the server's side of docs/ENGINES.md.

Table starts an engine's server.py on a free loopback port, owns a seeded shuffled deck,
the hands, the stacks and the hidden discard, carries out every event the engine answers
with, and checks each event's shape as it goes (a bad event raises ContractError).

    with EngineProcess(path_to_server_py) as engine:
        table = Table(engine.url, seed=7)
        table.play(policy)          # answers prompts until end_game
"""
import json
import random
import subprocess
import sys
import urllib.error
import urllib.request

RANKS = "23456789TJQKA"
SUITS = "CDHS"


class ContractError(AssertionError):
    """The engine answered something the contract does not allow."""


def full_deck(kind):
    cards = [r + s for s in SUITS for r in RANKS]
    if kind == "52JJ":
        cards += ["LJ", "BJ"]
    elif kind != "52":
        raise ContractError(f"unknown deck {kind!r}")
    return cards


class EngineProcess:
    """Runs `python3 server.py --port 0` and reads the port from its first line."""

    def __init__(self, server_py, base=""):
        self.server_py = server_py
        self.base = base

    def __enter__(self):
        args = [sys.executable, self.server_py, "--port", "0", "--host", "127.0.0.1"]
        if self.base:
            args += ["--base", self.base]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("listening on "):
            self.proc.kill()
            raise RuntimeError(f"engine did not start: {line!r}")
        self.url = "http://" + line[len("listening on "):] + self.base
        return self

    def __exit__(self, *exc):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self.proc.stdout.close()


def request(url, body=None, raw=None):
    """Returns (status, parsed JSON body). body: JSON to POST; raw: bytes to POST as is."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(url, data=data, method="GET" if data is None else "POST")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


class Table:
    def __init__(self, url, seed, names=None):
        self.url = url
        self.rng = random.Random(seed)
        status, self.config = request(url + "/config")
        if status != 200:
            raise ContractError(f"config answered {status}: {self.config}")
        count = self.config["player_count"]
        names = names or [chr(ord("A") + i) for i in range(count)]
        status, body = request(url + "/init?players=" + ",".join(names))
        if status != 200:
            raise ContractError(f"init answered {status}: {body}")
        self.players = body["players"]
        self.state = body["state"]
        if [p["id"] for p in self.players] != names or "phase" not in self.state:
            raise ContractError(f"init answered {body}")
        self.ids = names
        self.deck = full_deck(self.config["deck"])
        self.rng.shuffle(self.deck)
        self.hands = {pid: [] for pid in names}
        self.stacks = {s["id"]: [] for s in self.config["stacks"]}
        self.max_size = {s["id"]: s["max-size"] for s in self.config["stacks"]}
        self.discarded = []
        self.prompts = {}
        self.decorations = {pid: {} for pid in names}
        self.info = {i["id"]: i["value"] for i in self.config["info"]}
        self.labels = {i["id"]: i["label"] for i in self.config["info"]}
        self.scores = None
        self.events = []  # every event carried out, in order
        self.calls = 0

    # --------------------------------------------------------------------------------------
    # Calls

    def body(self, action):
        players = [dict(p, hand=list(self.hands[p["id"]])) for p in self.players]
        return {"state": self.state, "players": players, "action": action}

    def next(self, action):
        """Calls next; on 200 carries out the answer's card move and the events."""
        status, answer = request(self.url + "/next", self.body(action))
        self.calls += 1
        if status != 200:
            return status, answer
        if not (isinstance(answer, list) and len(answer) == 2 and isinstance(answer[1], list)):
            raise ContractError(f"next answered {answer!r}, not [state, events]")
        state, events = answer
        if not isinstance(state, dict) or not isinstance(state.get("phase"), str):
            raise ContractError(f"state without a phase: {state!r}")
        if action is not None:
            self.carry_out_answer(action)
        self.state = state
        for e in events:
            self.carry_out(e)
        return status, answer

    def carry_out_answer(self, action):
        prompt = self.prompts.pop(action["player"])
        hand = self.hands[action["player"]]
        if prompt["type"] in ("prompt_play", "prompt_discard"):
            for card in action["value"]:
                hand.remove(card)
            if prompt["type"] == "prompt_play":
                self.stacks[prompt["to"]].extend(action["value"])
                if len(self.stacks[prompt["to"]]) > self.max_size[prompt["to"]]:
                    raise ContractError(f"stack {prompt['to']} beyond its max-size")
            else:
                self.discarded.extend(action["value"])

    def carry_out(self, e):
        if self.scores is not None:
            raise ContractError(f"event after end_game: {e}")
        kind = e.get("type")
        self.events.append(e)
        if kind == "shuffle":
            everything = self.deck + self.discarded
            for pid in self.ids:
                everything += self.hands[pid]
                self.hands[pid] = []
            for sid in self.stacks:
                everything += self.stacks[sid]
                self.stacks[sid] = []
            self.discarded = []
            if self.prompts:
                raise ContractError("shuffle while prompts are open")
            self.deck = sorted(everything)
            self.rng.shuffle(self.deck)
        elif kind == "draw":
            self.need(e, player=str, count=int)
            self.player(e)
            if not 0 < e["count"] <= len(self.deck):
                raise ContractError(f"draw of {e['count']} with {len(self.deck)} in the deck")
            self.hands[e["player"]] += self.deck[:e["count"]]
            del self.deck[:e["count"]]
        elif kind == "prompt_select":
            self.need(e, name=str, player=str, count=int, **{"from": list})
            self.open(e, len(e["from"]))
        elif kind == "prompt_discard":
            self.need(e, player=str, count=int)
            self.open(e, len(self.hands[e["player"]]))
        elif kind == "prompt_play":
            self.need(e, player=str, to=str, count=int, **{"from": list})
            if e["to"] not in self.stacks:
                raise ContractError(f"prompt_play to unknown stack: {e}")
            if not set(e["from"]) <= set(self.hands[e["player"]]):
                raise ContractError(f"prompt_play from cards not held: {e}")
            self.open(e, len(e["from"]))
        elif kind == "add_decoration":
            self.need(e, player=str, name=str, value=str)
            self.player(e)
            self.decorations[e["player"]][e["name"]] = e["value"]
        elif kind == "clear_decoration":
            self.need(e, player=str, name=str)
            self.player(e)
            self.decorations[e["player"]].pop(e["name"], None)
        elif kind == "add_info":
            self.need(e, id=str, label=str)
            if e["id"] in self.info:
                raise ContractError(f"add_info of an existing id: {e}")
            self.info[e["id"]] = ""
            self.labels[e["id"]] = e["label"]
        elif kind == "set_info":
            self.need(e, id=str)
            if e["id"] not in self.info or not isinstance(e.get("value"), (str, int)):
                raise ContractError(f"set_info of an unknown id or without a value: {e}")
            self.info[e["id"]] = e["value"]
        elif kind == "end_game":
            self.need(e, scores=dict)
            if sorted(e["scores"]) != sorted(self.ids):
                raise ContractError(f"end_game scores must name every player: {e}")
            self.scores = e["scores"]
            self.prompts.clear()
        else:
            raise ContractError(f"unknown event {e!r}")

    def need(self, e, **fields):
        for name, kind in fields.items():
            if not isinstance(e.get(name), kind) or isinstance(e.get(name), bool):
                raise ContractError(f"{e.get('type')} needs {name} ({kind.__name__}): {e}")

    def player(self, e):
        if e["player"] not in self.hands:
            raise ContractError(f"unknown player in {e}")

    def open(self, e, pool):
        self.player(e)
        if e["player"] in self.prompts:
            raise ContractError(f"second prompt for {e['player']}: {e}")
        if not 0 < e["count"] <= pool:
            raise ContractError(f"prompt count {e['count']} with {pool} to choose from: {e}")
        self.prompts[e["player"]] = e

    # --------------------------------------------------------------------------------------
    # Playing

    def legal_answers_pool(self, prompt):
        if prompt["type"] == "prompt_discard":
            return list(self.hands[prompt["player"]])
        return list(prompt["from"])

    def random_answer(self, prompt):
        return self.rng.sample(self.legal_answers_pool(prompt), prompt["count"])

    def step(self, policy=None):
        """One call: next(null) when no prompt is open, else answers the first open prompt."""
        if not self.prompts:
            status, answer = self.next(None)
        else:
            player = sorted(self.prompts, key=self.ids.index)[0]
            prompt = self.prompts[player]
            value = (policy or (lambda t, p: t.random_answer(p)))(self, prompt)
            status, answer = self.next({"player": player, "value": value})
        if status != 200:
            raise ContractError(f"next answered {status}: {answer}")
        self.check_cards()

    def check_cards(self):
        held = self.deck + self.discarded
        for pid in self.ids:
            held += self.hands[pid]
        for sid in self.stacks:
            held += self.stacks[sid]
        if sorted(held) != sorted(full_deck(self.config["deck"])):
            raise ContractError("cards were lost or duplicated")

    def play(self, policy=None, max_calls=5000):
        while self.scores is None:
            if self.calls >= max_calls:
                raise ContractError(f"no end_game after {max_calls} calls")
            self.step(policy)
        return self.scores
