"""Crazy Eights for the Tamerlane engine contract: the worked example of docs/ENGINES.md.

Four players, 52 cards, 5 each. The first player starts the pile with any card. After
that a card may go on the pile if it matches the suit to follow or the rank of the top
card; an eight goes on anything and its player names the suit to follow. A player with
nothing to play draws from the stock, one card at a time, until they can play; with the
stock empty they pass. The first to empty their hand ends the game, as does a round in
which every player passed. Each player scores minus the value of the cards left in hand
(eight 50, king/queen/jack/ten 10, ace 1, others their number), so the winner has 0.
"""

SEATS = 4
HAND_SIZE = 5
DECK_SIZE = 52
SUITS = "CDHS"
RANKS = "23456789TJQKA"
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
SUIT_BY_NAME = {name: letter for letter, name in SUIT_NAMES.items()}
PHASES = ("deal", "playing", "over")


class EngineError(Exception):
    """A request the engine refuses: HTTP 400 with {"error": code, "message": message}."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def is_card(text):
    return isinstance(text, str) and len(text) == 2 and text[0] in RANKS and text[1] in SUITS


# ------------------------------------------------------------------------------------------
# GET /config and GET /init

def config():
    return {"deck": "52", "player_count": SEATS,
            "stacks": [{"id": "pile", "label": "Pile", "orientation": "horizontal",
                        "max-size": DECK_SIZE, "alignment": "center"}],
            "info": [{"id": "stock", "label": "Stock", "value": DECK_SIZE}]}


def init(ids):
    if len(ids) != SEATS or any(not i for i in ids) or len(set(ids)) != SEATS:
        raise EngineError("bad_players", f"Crazy Eights needs {SEATS} distinct, non-empty "
                          f"player ids; got {ids!r}")
    players = [{"id": pid, "team": seat} for seat, pid in enumerate(ids)]
    state = {"phase": "deal", "players": list(ids), "turn": 0, "top": None, "suit": None,
             "stock": DECK_SIZE, "passes": 0, "called": False, "prompt": None}
    return {"players": players, "state": state}


# ------------------------------------------------------------------------------------------
# POST /next

def next_step(state, players, action):
    """Returns (new_state, events)."""
    if not isinstance(state, dict) or state.get("phase") not in PHASES:
        raise EngineError("bad_state", "state must be the object this engine returned")
    hands = read_hands(state, players)
    state = dict(state)
    events = []
    if action is None:
        if state["prompt"] is not None or state["phase"] == "over":
            raise EngineError("bad_action", "action is null only while no prompt is open")
        if state["phase"] == "deal":
            deal(state, events)
        else:
            take_turn(state, hands, events)
        return state, events
    seat, prompt, value = read_answer(state, hands, action)
    state["prompt"] = None
    if prompt["type"] == "prompt_play":
        hands[seat].remove(value[0])
        play(state, seat, value[0], hands, events)
    else:
        call_suit(state, SUIT_BY_NAME[value[0]], hands, events)
    return state, events


def read_hands(state, players):
    ids = state["players"]
    if not isinstance(players, list) or [p.get("id") if isinstance(p, dict) else None
                                         for p in players] != ids:
        raise EngineError("bad_players", f"players must be the objects of {ids} in that order")
    hands = []
    for p in players:
        hand = p.get("hand")
        if not isinstance(hand, list) or not all(is_card(c) for c in hand):
            raise EngineError("bad_players", f"the hand of {p['id']!r} must be a list of cards")
        hands.append(list(hand))
    return hands


def read_answer(state, hands, action):
    if not isinstance(action, dict) or not isinstance(action.get("player"), str) \
            or "value" not in action:
        raise EngineError("bad_action", 'action must be null or {"player": ID, "value": [...]}')
    if action["player"] not in state["players"]:
        raise EngineError("bad_action", f"{action['player']!r} is not a player of this game")
    prompt = state["prompt"]
    if prompt is None or prompt["player"] != action["player"]:
        raise EngineError("no_prompt", f"{action['player']!r} has no prompt to answer")
    value = action["value"]
    if not isinstance(value, list) or len(value) != 1 or value[0] not in prompt["from"]:
        raise EngineError("bad_answer", f"answer with one of {prompt['from']}; got {value!r}")
    seat = state["players"].index(action["player"])
    if prompt["type"] == "prompt_play" and value[0] not in hands[seat]:
        raise EngineError("bad_answer", f"{action['player']!r} does not hold {value[0]}")
    return seat, prompt, value


def deal(state, events):
    for pid in state["players"]:
        events.append({"type": "draw", "player": pid, "count": HAND_SIZE})
    state["stock"] -= SEATS * HAND_SIZE
    state["phase"] = "playing"
    events.append({"type": "set_info", "id": "stock", "value": state["stock"]})
    # No prompt: the cards are not known yet, so the server calls next again (action null).


def playable(state, hand):
    top = state["top"]
    if top is None:
        return sorted(hand)
    return sorted(c for c in hand if c[0] == "8" or c[1] == state["suit"] or c[0] == top[0])


def take_turn(state, hands, events):
    """Prompts the player to move, drawing for them first if they cannot play."""
    while True:
        seat = state["turn"]
        pid = state["players"][seat]
        cards = playable(state, hands[seat])
        if cards:
            prompt = {"type": "prompt_play", "player": pid, "to": "pile", "count": 1,
                      "from": cards}
            state["prompt"] = prompt
            events.append(prompt)
            return
        if state["stock"] > 0:
            # Draw one; the server deals it and calls next again to see the new card.
            state["stock"] -= 1
            events.append({"type": "draw", "player": pid, "count": 1})
            events.append({"type": "set_info", "id": "stock", "value": state["stock"]})
            return
        state["passes"] += 1
        events.append({"type": "add_decoration", "player": pid, "name": "passed",
                       "value": "passed"})
        if state["passes"] >= SEATS:
            end_game(state, hands, events)
            return
        state["turn"] = (seat + 1) % SEATS


def play(state, seat, card, hands, events):
    pid = state["players"][seat]
    if state["passes"]:
        for other in state["players"]:
            events.append({"type": "clear_decoration", "player": other, "name": "passed"})
        state["passes"] = 0
    after_eight = state["top"] is not None and state["top"][0] == "8"
    state["top"] = card
    if not hands[seat]:
        end_game(state, hands, events)
        return
    if card[0] == "8":
        prompt = {"type": "prompt_select", "name": "suit", "player": pid, "count": 1,
                  "from": [SUIT_NAMES[s] for s in SUITS]}
        state["prompt"] = prompt
        events.append(prompt)
        return
    if after_eight:  # the called suit is answered
        events.append({"type": "set_info", "id": "called", "value": ""})
    state["suit"] = card[1]
    state["turn"] = (seat + 1) % SEATS
    take_turn(state, hands, events)


def call_suit(state, suit, hands, events):
    if not state["called"]:
        events.append({"type": "add_info", "id": "called", "label": "Suit called"})
        state["called"] = True
    events.append({"type": "set_info", "id": "called", "value": SUIT_NAMES[suit]})
    state["suit"] = suit
    state["turn"] = (state["turn"] + 1) % SEATS
    take_turn(state, hands, events)


def card_points(card):
    if card[0] == "8":
        return 50
    if card[0] in "TJQK":
        return 10
    if card[0] == "A":
        return 1
    return int(card[0])


def end_game(state, hands, events):
    state["phase"] = "over"
    state["prompt"] = None
    scores = {pid: -sum(card_points(c) for c in hands[s])
              for s, pid in enumerate(state["players"])}
    events.append({"type": "end_game", "scores": scores})
