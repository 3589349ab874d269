"""Bid Whist rules for the Tamerlane engine contract (docs/ENGINES.md).

Four players in partnerships (seats 0 and 2 against 1 and 3), 52 cards and two jokers.
Each hand: 12 cards each; the 6 cards the deal leaves in the server's deck are the kitty,
dealt to the declarer with a `draw` once the contract is named, so no seat can see them
before. The auction goes round until three have passed (the dealer must bid if nobody
else did); bids are 3 to 7 books over six, uptown, downtown or no trump. The declarer
names trump (or the direction for no trump), takes the kitty, discards six cards (the
discard is the declarer's first book) and leads. Jokers are the top trumps (BJ, LJ) in a
trump contract and never win in no trump. Made: + (books - 6); set: - bid; no trump
doubles. First team to +7 wins; a team at -7 loses.

Pure functions of their inputs: the same state, hands and action give the same answer.
"""

SEATS = 4
HAND_SIZE = 12
KITTY_SIZE = 6
MIN_BID, MAX_BID = 3, 7
BOOK_BASE = 6
TARGET = 7

SUITS = "CDHS"
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
SUIT_BY_NAME = {name: letter for letter, name in SUIT_NAMES.items()}
RANKS = "23456789TJQKA"
JOKERS = ("LJ", "BJ")
BID_TYPES = ("uptown", "downtown", "no trump")
DIRECTIONS = ("uptown", "downtown")
PHASES = ("deal", "bidding", "declaring", "discarding", "playing", "over")


class EngineError(Exception):
    """A request the engine refuses: HTTP 400 with {"error": code, "message": message}."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def is_card(text):
    return isinstance(text, str) and (
        text in JOKERS or (len(text) == 2 and text[0] in RANKS and text[1] in SUITS))


def stack_id(seat):
    return f"played{seat}"


def config():
    stacks = [{"id": stack_id(s), "label": f"Seat {s + 1}'s cards", "orientation": "horizontal",
               "max-size": HAND_SIZE, "alignment": "center"} for s in range(SEATS)]
    info = [{"id": "hand", "label": "Hand", "value": 1},
            {"id": "contract", "label": "Contract", "value": ""},
            {"id": "books0", "label": "Books, seats 1 and 3", "value": 0},
            {"id": "books1", "label": "Books, seats 2 and 4", "value": 0},
            {"id": "score0", "label": "Score, seats 1 and 3", "value": 0},
            {"id": "score1", "label": "Score, seats 2 and 4", "value": 0}]
    return {"deck": "52JJ", "player_count": SEATS, "stacks": stacks, "info": info}


def init(ids):
    if len(ids) != SEATS or any(not i for i in ids) or len(set(ids)) != SEATS:
        raise EngineError("bad_players", f"Bid Whist needs {SEATS} distinct, non-empty player ids; "
                          f"got {ids!r}")
    players = [{"id": pid, "team": seat % 2} for seat, pid in enumerate(ids)]
    state = {"phase": "deal", "players": list(ids), "hand": 1, "dealer": SEATS - 1,
             "scores": [0, 0], "passed": [False] * SEATS, "high": None, "bidder": 0,
             "contract": None, "leader": 0, "trick": [], "won": [0] * SEATS, "prompt": None}
    return {"players": players, "state": state}


# ------------------------------------------------------------------------------------------
# Bids and card order

def bid_text(books, kind):
    return f"{books} {kind}"


def parse_bid(text):
    books, _, kind = text.partition(" ")
    return int(books), kind


def strength(books, kind):
    # Uptown and downtown rank equal; no trump beats a suit bid of the same number.
    return books * 2 + (1 if kind == "no trump" else 0)


def bid_options(state, seat):
    high = state["high"]
    options = []
    must_bid = high is None and all(state["passed"][s] for s in range(SEATS) if s != seat)
    if not must_bid:
        options.append("pass")
    for books in range(MIN_BID, MAX_BID + 1):
        for kind in BID_TYPES:
            if high is None or strength(books, kind) > strength(high["books"], high["type"]):
                options.append(bid_text(books, kind))
    return options


def effective_suit(card, contract):
    """The suit a card follows as: jokers are trumps, or have no suit in no trump."""
    if card in JOKERS:
        return contract["trump"]
    return card[1]


def rank_order(rank, direction):
    if rank == "A":
        return 13  # the ace is highest uptown and downtown
    value = RANKS.index(rank) + 2  # 2..13 for 2..K
    return value - 1 if direction == "uptown" else 14 - value


def card_strength(card, led, contract):
    """Higher wins the trick; 0 never wins."""
    trump = contract["trump"]
    if card in JOKERS:
        return 0 if trump is None else 300 + (2 if card == "BJ" else 1)
    order = rank_order(card[0], contract["direction"])
    if trump is not None and card[1] == trump:
        return 200 + order
    if card[1] == led:
        return 100 + order
    return 0


def led_suit(trick, contract):
    """The first suit in the trick: a joker led in no trump leaves it to the next suited card."""
    for _, card in trick:
        suit = effective_suit(card, contract)
        if suit is not None:
            return suit
    return None


def legal_cards(hand, trick, contract):
    led = led_suit(trick, contract)
    if led is None:
        return sorted(hand, key=card_sort_key)
    follow = [c for c in hand if effective_suit(c, contract) == led]
    return sorted(follow or hand, key=card_sort_key)


def trick_winner(trick, contract):
    led = led_suit(trick, contract)
    best_seat, best = trick[0][0], -1
    for seat, card in trick:
        s = card_strength(card, led, contract)
        if s > best:
            best_seat, best = seat, s
    return best_seat


def card_sort_key(card):
    if card in JOKERS:
        return (4, JOKERS.index(card))
    return (SUITS.index(card[1]), RANKS.index(card[0]))


def hand_points(books_bid, kind, declarer_books):
    made = declarer_books >= BOOK_BASE + books_bid
    points = declarer_books - BOOK_BASE if made else -books_bid
    return points * 2 if kind == "no trump" else points


# ------------------------------------------------------------------------------------------
# Requests

def check_state(state):
    if not isinstance(state, dict) or state.get("phase") not in PHASES:
        raise EngineError("bad_state", "state must be the object this engine returned, with a "
                          f"phase among {', '.join(PHASES)}")
    ids = state.get("players")
    if not isinstance(ids, list) or len(ids) != SEATS:
        raise EngineError("bad_state", "state.players must list the 4 player ids")


def read_hands(state, players):
    if not isinstance(players, list) or len(players) != SEATS:
        raise EngineError("bad_players", f"players must be a list of {SEATS} objects "
                          '{"id", "hand"} in seat order')
    hands, seen = [], set()
    for seat, p in enumerate(players):
        if not isinstance(p, dict) or p.get("id") != state["players"][seat]:
            raise EngineError("bad_players", f"players[{seat}] must be the object of player "
                              f"{state['players'][seat]!r}")
        hand = p.get("hand")
        if not isinstance(hand, list) or not all(is_card(c) for c in hand):
            raise EngineError("bad_players", f"players[{seat}].hand must be a list of cards "
                              '("AS", "TD", "LJ", ...)')
        if seen & set(hand) or len(set(hand)) != len(hand):
            raise EngineError("bad_players", f"players[{seat}].hand repeats a card held twice")
        seen |= set(hand)
        hands.append(list(hand))
    return hands


def read_answer(state, hands, action):
    """Checks that `action` answers the open prompt; returns (seat, prompt, value)."""
    if not isinstance(action, dict) or not isinstance(action.get("player"), str) \
            or "value" not in action:
        raise EngineError("bad_action", 'action must be null or {"player": ID, "value": [...]}')
    player, value = action["player"], action["value"]
    prompt = state["prompt"]
    if player not in state["players"]:
        raise EngineError("bad_action", f"{player!r} is not a player of this game")
    if prompt is None or prompt["player"] != player:
        waiting = f"{prompt['player']!r} holds the open prompt" if prompt else "no prompt is open"
        raise EngineError("no_prompt", f"{player!r} has no prompt to answer; {waiting}")
    count = prompt["count"]
    if not isinstance(value, list) or len(value) != count or len(set(map(str, value))) != count:
        raise EngineError("bad_answer", f"answer {prompt['type']} with a list of {count} "
                          f"different entries; got {json_short(value)}")
    seat = state["players"].index(player)
    if prompt["type"] == "prompt_discard":
        pool = hands[seat]
    else:
        pool = prompt["from"]
    missing = [v for v in value if v not in pool]
    if missing:
        where = "your hand" if prompt["type"] == "prompt_discard" else f"{prompt['from']}"
        raise EngineError("bad_answer", f"{json_short(missing[0])} is not one of {where}")
    if prompt["type"] == "prompt_play" and any(c not in hands[seat] for c in value):
        raise EngineError("bad_answer", f"{player!r} does not hold {value}")
    return seat, prompt, value


def json_short(value):
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def next_step(state, players, action):
    """POST /next: returns (new_state, events)."""
    check_state(state)
    hands = read_hands(state, players)
    state = dict(state)
    events = []
    if action is None:
        if state["phase"] != "deal":
            now = "a prompt is open" if state["prompt"] else "the game is over"
            raise EngineError("bad_action", f"action is null only before the first deal; {now}")
        deal(state, events)
        return state, events
    if state["phase"] == "over":
        raise EngineError("no_prompt", "the game is over")
    seat, prompt, value = read_answer(state, hands, action)
    state["prompt"] = None
    name = prompt.get("name", prompt["type"])
    if name == "bid":
        answer_bid(state, seat, value[0], events)
    elif name == "declare":
        answer_declare(state, seat, value[0], events)
    elif name == "prompt_discard":
        answer_discard(state, seat, [c for c in hands[seat] if c not in value], events)
    else:
        for c in value:
            hands[seat].remove(c)
        answer_play(state, seat, value[0], hands, events)
    return state, events


def open_prompt(state, events, prompt):
    state["prompt"] = prompt
    events.append(prompt)


def ids(state):
    return state["players"]


def deal(state, events):
    dealer = state["dealer"]
    state.update(phase="bidding", passed=[False] * SEATS, high=None, contract=None,
                 trick=[], won=[0] * SEATS, bidder=(dealer + 1) % SEATS)
    events.append({"type": "shuffle"})
    events.append({"type": "add_decoration", "player": ids(state)[dealer], "name": "dealer",
                   "value": "dealer"})
    for i in range(1, SEATS + 1):
        events.append({"type": "draw", "player": ids(state)[(dealer + i) % SEATS],
                       "count": HAND_SIZE})
    events.append({"type": "set_info", "id": "hand", "value": state["hand"]})
    events.append({"type": "set_info", "id": "contract", "value": ""})
    for team in (0, 1):
        events.append({"type": "set_info", "id": f"books{team}", "value": 0})
    ask_bid(state, events)


def ask_bid(state, events):
    seat = state["bidder"]
    open_prompt(state, events, {"type": "prompt_select", "name": "bid",
                                "player": ids(state)[seat], "count": 1,
                                "from": bid_options(state, seat)})


def answer_bid(state, seat, choice, events):
    passed = list(state["passed"])
    if choice == "pass":
        passed[seat] = True
    else:
        books, kind = parse_bid(choice)
        state["high"] = {"books": books, "type": kind, "seat": seat}
    state["passed"] = passed
    events.append({"type": "add_decoration", "player": ids(state)[seat], "name": "bid",
                   "value": choice})
    active = [s for s in range(SEATS) if not passed[s]]
    high = state["high"]
    if not active:
        raise EngineError("bad_state", "every player has passed: the dealer cannot pass")
    if high is None or len(active) > 1:
        nxt = (seat + 1) % SEATS
        while passed[nxt]:
            nxt = (nxt + 1) % SEATS
        state["bidder"] = nxt
        ask_bid(state, events)
        return
    state["phase"] = "declaring"
    declarer = high["seat"]
    state["contract"] = {"declarer": declarer, "books": high["books"], "type": high["type"],
                         "trump": None, "direction": None}
    choices = list(DIRECTIONS) if high["type"] == "no trump" else [SUIT_NAMES[s] for s in SUITS]
    open_prompt(state, events, {"type": "prompt_select", "name": "declare",
                                "player": ids(state)[declarer], "count": 1, "from": choices})


def contract_text(contract):
    bid = bid_text(contract["books"], contract["type"])
    if contract["trump"] is None:
        return f"{bid}, {contract['direction']}"
    return f"{bid}, {SUIT_NAMES[contract['trump']]} trump"


def answer_declare(state, seat, choice, events):
    contract = dict(state["contract"])
    if contract["type"] == "no trump":
        contract["direction"] = choice
    else:
        contract["trump"] = SUIT_BY_NAME[choice]
        contract["direction"] = contract["type"]
    state["contract"] = contract
    state["phase"] = "discarding"
    player = ids(state)[seat]
    events.append({"type": "set_info", "id": "contract", "value": contract_text(contract)})
    events.append({"type": "add_decoration", "player": player, "name": "declarer",
                   "value": contract_text(contract)})
    # The kitty: the six cards the deal left in the deck, seen by the declarer only.
    events.append({"type": "draw", "player": player, "count": KITTY_SIZE})
    open_prompt(state, events, {"type": "prompt_discard", "player": player,
                                "count": KITTY_SIZE})


def team_books(state, team):
    contract = state["contract"]
    discard_book = 1 if contract["declarer"] % 2 == team else 0
    return state["won"][team] + state["won"][team + 2] + discard_book


def answer_discard(state, seat, remaining, events):
    state["phase"] = "playing"
    state["leader"] = seat
    state["trick"] = []
    team = seat % 2
    events.append({"type": "set_info", "id": f"books{team}", "value": team_books(state, team)})
    ask_play(state, seat, remaining, events)


def ask_play(state, seat, hand, events):
    open_prompt(state, events, {"type": "prompt_play", "player": ids(state)[seat],
                                "to": stack_id(seat), "count": 1,
                                "from": legal_cards(hand, state["trick"], state["contract"])})


def answer_play(state, seat, card, hands, events):
    trick = [list(p) for p in state["trick"]] + [[seat, card]]
    contract = state["contract"]
    if len(trick) < SEATS:
        state["trick"] = trick
        nxt = (seat + 1) % SEATS
        ask_play(state, nxt, hands[nxt], events)
        return
    winner = trick_winner(trick, contract)
    won = list(state["won"])
    won[winner] += 1
    state.update(won=won, trick=[], leader=winner)
    team = winner % 2
    events.append({"type": "set_info", "id": f"books{team}", "value": team_books(state, team)})
    if sum(won) < HAND_SIZE:
        ask_play(state, winner, hands[winner], events)
        return
    finish_hand(state, events)


def finish_hand(state, events):
    contract = state["contract"]
    team = contract["declarer"] % 2
    points = hand_points(contract["books"], contract["type"], team_books(state, team))
    scores = list(state["scores"])
    scores[team] += points
    state["scores"] = scores
    events.append({"type": "set_info", "id": f"score{team}", "value": scores[team]})
    winning_team = None
    if scores[team] >= TARGET:
        winning_team = team
    elif scores[team] <= -TARGET:
        winning_team = 1 - team
    if winning_team is not None:
        state["phase"] = "over"
        state["winning_team"] = winning_team
        events.append({"type": "end_game",
                       "scores": {pid: scores[s % 2] for s, pid in enumerate(ids(state))}})
        return
    for s, pid in enumerate(ids(state)):
        events.append({"type": "clear_decoration", "player": pid, "name": "bid"})
    events.append({"type": "clear_decoration", "player": ids(state)[contract["declarer"]],
                   "name": "declarer"})
    events.append({"type": "clear_decoration", "player": ids(state)[state["dealer"]],
                   "name": "dealer"})
    state["hand"] += 1
    state["dealer"] = (state["dealer"] + 1) % SEATS
    deal(state, events)
