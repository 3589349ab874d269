"""Bid Whist engine tests: the HTTP server in a subprocess, driven by a minimal host.

    python3 -m unittest discover -s engines/bidwhist-tamerlane -p 'test_*.py'
"""
import copy
import http.client
import json
import os
import sys
import unittest
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "testing"))
import whist  # noqa: E402
from table import EngineProcess, Table, request  # noqa: E402

BASE = "/api/v1/whist"
engine = None


def setUpModule():
    global engine
    engine = EngineProcess(os.path.join(HERE, "server.py"), base=BASE).__enter__()


def tearDownModule():
    engine.__exit__(None, None, None)


def answer(table, value):
    """Answers the one open prompt with `value`; returns (status, body)."""
    (player,) = table.prompts
    return table.next({"player": player, "value": value})


def prompt_of(table):
    (prompt,) = table.prompts.values()
    return prompt


def cautious(table, prompt):
    """Passes unless forced, then bids the lowest; plays at random: games of several hands."""
    if prompt.get("name") == "bid":
        if "pass" in prompt["from"] and table.rng.random() < 0.8:
            return ["pass"]
        return [[o for o in prompt["from"] if o != "pass"][0]]
    return table.random_answer(prompt)


def playing_state(declarer, books, kind, trump, direction, won, trick, scores=(0, 0)):
    state = whist.init(["A", "B", "C", "D"])["state"]
    state.update(phase="playing", contract={"declarer": declarer, "books": books, "type": kind,
                                            "trump": trump, "direction": direction},
                 won=list(won), trick=[list(p) for p in trick], scores=list(scores),
                 leader=trick[0][0] if trick else declarer)
    return state


def post(state, hands, action):
    players = [{"id": pid, "team": s % 2, "hand": hands[s]} for s, pid in enumerate("ABCD")]
    return request(engine.url + "/next", {"state": state, "players": players, "action": action})


def with_prompt(state, seat, hand):
    state = copy.deepcopy(state)
    state["prompt"] = {"type": "prompt_play", "player": "ABCD"[seat], "to": f"played{seat}",
                       "count": 1,
                       "from": whist.legal_cards(hand, state["trick"], state["contract"])}
    return state


class ConfigAndInit(unittest.TestCase):
    def test_config(self):
        status, cfg = request(engine.url + "/config")
        self.assertEqual(status, 200)
        self.assertEqual(cfg["deck"], "52JJ")
        self.assertEqual(cfg["player_count"], 4)
        self.assertEqual([s["id"] for s in cfg["stacks"]], ["played0", "played1", "played2",
                                                            "played3"])
        for s in cfg["stacks"]:
            self.assertEqual(set(s), {"id", "label", "orientation", "max-size", "alignment"})
        self.assertIn("contract", [i["id"] for i in cfg["info"]])

    def test_init_partnerships(self):
        status, body = request(engine.url + "/init?players=n,e,s,w")
        self.assertEqual(status, 200)
        self.assertEqual(body["players"], [{"id": "n", "team": 0}, {"id": "e", "team": 1},
                                           {"id": "s", "team": 0}, {"id": "w", "team": 1}])
        self.assertEqual(body["state"]["phase"], "deal")

    def test_init_refuses_wrong_players(self):
        for query in ("players=A,B,C", "players=A,B,C,C", "players=A,,C,D", "nobody=1"):
            status, body = request(engine.url + "/init?" + query)
            self.assertEqual(status, 400, query)
            self.assertIn(body["error"], ("bad_players", "bad_request"))
            self.assertTrue(body["message"])


class Auction(unittest.TestCase):
    def dealt(self, seed=1):
        table = Table(engine.url, seed)
        status, body = table.next(None)
        self.assertEqual(status, 200, body)
        return table

    def test_deal_leaves_six_hidden_in_the_deck(self):
        table = self.dealt()
        self.assertEqual([len(table.hands[p]) for p in "ABCD"], [12] * 4)
        self.assertEqual(len(table.deck), 6)
        self.assertEqual(table.decorations["D"], {"dealer": "dealer"})
        prompt = prompt_of(table)
        self.assertEqual((prompt["type"], prompt["name"], prompt["player"]),
                         ("prompt_select", "bid", "A"))
        self.assertEqual(prompt["from"][:4], ["pass", "3 uptown", "3 downtown", "3 no trump"])
        self.assertEqual(prompt["from"][-1], "7 no trump")

    def test_bidding_goes_round_until_three_have_passed(self):
        table = self.dealt()
        script = [("A", "3 uptown"), ("B", "pass"), ("C", "4 downtown"), ("D", "pass"),
                  ("A", "4 no trump"), ("C", "5 uptown"), ("A", "pass")]
        for player, bid in script:
            self.assertEqual(prompt_of(table)["player"], player)
            self.assertEqual(answer(table, [bid])[0], 200)
            if bid == "4 no trump":  # a no-trump bid beats the same number in a suit
                self.assertEqual(prompt_of(table)["from"][:2], ["pass", "5 uptown"])
        prompt = prompt_of(table)
        self.assertEqual((prompt["name"], prompt["player"]), ("declare", "C"))
        self.assertEqual(prompt["from"], ["clubs", "diamonds", "hearts", "spades"])
        self.assertEqual(table.state["phase"], "declaring")
        self.assertEqual(table.decorations["A"]["bid"], "pass")

    def test_dealer_must_bid_when_three_pass(self):
        table = self.dealt()
        for player in "ABC":
            self.assertEqual(answer(table, ["pass"])[0], 200)
        prompt = prompt_of(table)
        self.assertEqual(prompt["player"], "D")
        self.assertNotIn("pass", prompt["from"])
        status, body = answer(table, ["pass"])
        self.assertEqual(status, 400)
        self.assertEqual(body["error"], "bad_answer")
        self.assertEqual(answer(table, ["3 no trump"])[0], 200)
        prompt = prompt_of(table)
        self.assertEqual((prompt["name"], prompt["player"], prompt["from"]),
                         ("declare", "D", ["uptown", "downtown"]))

    def test_seven_no_trump_leaves_only_pass(self):
        table = self.dealt()
        answer(table, ["7 no trump"])
        self.assertEqual(prompt_of(table)["from"], ["pass"])

    def test_kitty_goes_to_the_declarer_only(self):
        table = self.dealt(seed=5)
        kitty = list(table.deck)
        answer(table, ["pass"])
        answer(table, ["4 uptown"])
        for _ in range(3):
            answer(table, ["pass"])
        self.assertEqual(prompt_of(table)["player"], "B")
        self.assertEqual(len(table.hands["B"]), 12)
        first = len(table.events)
        self.assertEqual(answer(table, ["hearts"])[0], 200)
        before = json.dumps(table.events[:first])
        self.assertFalse([c for c in kitty if f'"{c}"' in before])  # named by no event
        draws = [e for e in table.events[first:] if e["type"] == "draw"]
        self.assertEqual(draws, [{"type": "draw", "player": "B", "count": 6}])
        self.assertEqual(sorted(kitty), sorted(set(table.hands["B"]) & set(kitty)))
        self.assertEqual([len(table.hands[p]) for p in "ABCD"], [12, 18, 12, 12])
        self.assertEqual(table.info["contract"], "4 uptown, hearts trump")
        prompt = prompt_of(table)
        self.assertEqual(prompt, {"type": "prompt_discard", "player": "B", "count": 6})
        # The discard must be six held cards.
        status, body = answer(table, table.hands["A"][:6])
        self.assertEqual((status, body["error"]), (400, "bad_answer"))
        self.assertEqual(answer(table, table.hands["B"][:5])[0], 400)
        discard = table.hands["B"][:6]
        self.assertEqual(answer(table, discard)[0], 200)
        self.assertEqual(table.discarded, discard)
        self.assertEqual(table.info["books1"], 1)  # the discard is the first book
        prompt = prompt_of(table)
        self.assertEqual((prompt["type"], prompt["player"], prompt["to"]),
                         ("prompt_play", "B", "played1"))
        self.assertEqual(sorted(prompt["from"]), sorted(table.hands["B"]))


class Tricks(unittest.TestCase):
    def test_jokers_are_top_trumps(self):
        contract = {"trump": "S", "direction": "uptown"}
        self.assertEqual(whist.trick_winner([[0, "AS"], [1, "LJ"], [2, "BJ"], [3, "KS"]],
                                            contract), 2)
        self.assertEqual(whist.trick_winner([[0, "AH"], [1, "2S"], [2, "LJ"], [3, "KH"]],
                                            contract), 2)
        # A joker follows trump: with a joker and no spades, a spade lead must take the joker.
        self.assertEqual(whist.legal_cards(["LJ", "AH"], [[0, "3S"]], contract), ["LJ"])

    def test_jokers_are_powerless_in_no_trump(self):
        contract = {"trump": None, "direction": "uptown"}
        self.assertEqual(whist.trick_winner([[0, "BJ"], [1, "3H"], [2, "2H"], [3, "LJ"]],
                                            contract), 1)
        # After a joker lead every card is playable; the first suited card sets the suit.
        self.assertEqual(whist.legal_cards(["AS", "2H"], [[0, "BJ"]], contract), ["2H", "AS"])
        self.assertEqual(whist.legal_cards(["AS", "2H", "LJ"], [[0, "BJ"], [1, "9H"]],
                                           contract), ["2H"])

    def test_downtown_order_keeps_the_ace_high(self):
        contract = {"trump": None, "direction": "downtown"}
        self.assertEqual(whist.trick_winner([[0, "KC"], [1, "2C"], [2, "5C"], [3, "3C"]],
                                            contract), 1)
        self.assertEqual(whist.trick_winner([[0, "KC"], [1, "2C"], [2, "AC"], [3, "3C"]],
                                            contract), 2)

    def test_no_trump_joker_trick_over_http(self):
        hands = [["5C"], ["7D"], ["QH"], ["LJ", "3D"]]
        state = playing_state(0, 3, "no trump", None, "uptown", [2, 1, 3, 4],
                              [[0, "BJ"], [1, "3H"], [2, "AH"]])
        state = with_prompt(state, 3, hands[3])
        self.assertEqual(state["prompt"]["from"], ["3D", "LJ"])  # no heart held: anything
        status, (new, events) = post(state, hands, {"player": "D", "value": ["LJ"]})
        self.assertEqual(status, 200)
        self.assertEqual(new["won"], [2, 1, 4, 4])  # C's ace of hearts wins
        self.assertIn({"type": "set_info", "id": "books0", "value": 7}, events)
        self.assertEqual(events[-1]["player"], "C")

    def test_play_must_follow_suit(self):
        hands = [["5C"], ["7D", "9S"], ["QH"], ["2S"]]
        state = playing_state(0, 3, "uptown", "S", "uptown", [2, 1, 3, 4], [[0, "3D"]])
        state = with_prompt(state, 1, hands[1])
        self.assertEqual(state["prompt"]["from"], ["7D"])
        status, body = post(state, hands, {"player": "B", "value": ["9S"]})
        self.assertEqual((status, body["error"]), (400, "bad_answer"))
        self.assertIn("9S", body["message"])


class Scoring(unittest.TestCase):
    def test_hand_points(self):
        self.assertEqual(whist.hand_points(4, "uptown", 10), 4)
        self.assertEqual(whist.hand_points(4, "downtown", 12), 6)
        self.assertEqual(whist.hand_points(4, "uptown", 9), -4)
        self.assertEqual(whist.hand_points(3, "no trump", 9), 6)
        self.assertEqual(whist.hand_points(5, "no trump", 10), -10)

    def last_trick(self, declarer, books, kind, trump, won, scores):
        hands = [[], [], [], ["2C"]]
        state = playing_state(declarer, books, kind, trump, "uptown", won,
                              [[0, "AC"], [1, "3C"], [2, "4C"]], scores)
        return post(with_prompt(state, 3, hands[3]), hands, {"player": "D", "value": ["2C"]})

    def test_reaching_seven_ends_the_game(self):
        status, (state, events) = self.last_trick(0, 4, "uptown", "S", [7, 1, 3, 0], (2, 0))
        self.assertEqual(status, 200)
        self.assertEqual(state["phase"], "over")
        self.assertEqual(events[-1], {"type": "end_game",
                                      "scores": {"A": 8, "B": 0, "C": 8, "D": 0}})

    def test_minus_seven_loses_and_no_trump_doubles(self):
        status, (state, events) = self.last_trick(1, 5, "no trump", None, [3, 3, 3, 2], (0, 0))
        self.assertEqual(status, 200)
        self.assertIn({"type": "set_info", "id": "score1", "value": -10}, events)
        self.assertEqual(state["winning_team"], 0)
        self.assertEqual(events[-1], {"type": "end_game",
                                      "scores": {"A": 0, "B": -10, "C": 0, "D": -10}})

    def test_a_hand_short_of_seven_deals_again(self):
        status, (state, events) = self.last_trick(0, 4, "uptown", "S", [5, 1, 3, 2], (0, 0))
        self.assertEqual(status, 200)
        self.assertEqual((state["phase"], state["hand"], state["dealer"], state["scores"]),
                         ("bidding", 2, 0, [4, 0]))
        kinds = [e["type"] for e in events]
        self.assertEqual(kinds.count("draw"), 4)
        self.assertLess(kinds.index("clear_decoration"), kinds.index("shuffle"))
        self.assertEqual(events[-1]["player"], "B")  # left of the new dealer bids first


class BadRequests(unittest.TestCase):
    def setUp(self):
        self.table = Table(engine.url, 3)
        self.table.next(None)

    def expect(self, status, body, code):
        self.assertEqual(status, 400, body)
        self.assertEqual(body["error"], code)
        self.assertIsInstance(body["message"], str)
        self.assertTrue(body["message"])

    def test_malformed_bodies(self):
        url = engine.url + "/next"
        self.expect(*request(url, raw=b"{not json"), "bad_request")
        self.expect(*request(url, body=[1, 2]), "bad_request")
        self.expect(*request(url, body={"state": {}, "players": []}), "bad_request")
        self.expect(*request(url, raw="\xff".encode("latin-1")), "bad_request")

    def test_bad_state_and_players(self):
        body = self.table.body(None)
        body["state"] = {"phase": "dancing"}
        self.expect(*request(engine.url + "/next", body), "bad_state")
        body = self.table.body({"player": "A", "value": ["pass"]})
        body["state"]["prompt"] = "garbage"
        self.expect(*request(engine.url + "/next", body), "bad_state")
        body = self.table.body({"player": "A", "value": ["pass"]})
        body["players"][1]["hand"].append("ZZ")
        self.expect(*request(engine.url + "/next", body), "bad_players")
        body = self.table.body({"player": "A", "value": ["pass"]})
        body["players"][1]["hand"].append(body["players"][0]["hand"][0])
        self.expect(*request(engine.url + "/next", body), "bad_players")

    def test_answers_that_do_not_fit_the_prompt(self):
        t = self.table
        self.expect(*t.next({"player": "B", "value": ["pass"]}), "no_prompt")
        self.expect(*t.next({"player": "Z", "value": ["pass"]}), "bad_action")
        self.expect(*t.next({"player": "A"}), "bad_action")
        self.expect(*t.next({"player": "A", "value": "pass"}), "bad_answer")
        self.expect(*t.next({"player": "A", "value": ["pass", "3 uptown"]}), "bad_answer")
        self.expect(*t.next({"player": "A", "value": ["8 uptown"]}), "bad_answer")
        self.expect(*t.next({"player": "A", "value": [{"x": 1}]}), "bad_answer")
        self.expect(*t.next(None), "bad_action")
        self.assertEqual(t.next({"player": "A", "value": ["pass"]})[0], 200)

    def test_paths_and_methods(self):
        self.assertEqual(request(engine.url + "/nothing")[0], 404)
        self.assertEqual(request(engine.url + "/next")[0], 405)
        self.assertEqual(request(engine.url + "/config", body={})[0], 405)
        req = urllib.request.Request(engine.url + "/next", data=b"", method="POST")
        req.add_header("Content-Length", "abc")
        try:
            urllib.request.urlopen(req, timeout=5)
            self.fail("a bad Content-Length was accepted")
        except urllib.error.HTTPError as e:
            self.assertEqual(e.code, 400)
        self.assertEqual(request(engine.url + "/config")[0], 200)  # still serving

    def test_a_kept_alive_connection_survives_refusals(self):
        url = urllib.parse.urlsplit(engine.url)
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=5)
        try:
            for method, path, body, status in [("POST", "/config", b'{"x": 1}', 405),
                                               ("POST", "/next", b"{oops", 400),
                                               ("POST", "/elsewhere", b"[]", 404),
                                               ("GET", "/config", None, 200)]:
                conn.request(method, url.path + path, body=body)
                resp = conn.getresponse()
                data = json.loads(resp.read())
                self.assertEqual(resp.status, status, (method, path, data))
                self.assertEqual("error" in data, status != 200)
        finally:
            conn.close()


class WholeGames(unittest.TestCase):
    def check_end(self, table):
        scores = table.scores
        self.assertEqual(table.state["phase"], "over")
        self.assertEqual((scores["A"], scores["B"]), (scores["C"], scores["D"]))
        team = table.state["winning_team"]
        mine, theirs = (scores["A"], scores["B"]) if team == 0 else (scores["B"], scores["A"])
        self.assertTrue(mine >= 7 or theirs <= -7, scores)
        self.assertEqual([table.info["score0"], table.info["score1"]],
                         [scores["A"], scores["B"]])

    def test_random_games_reach_end_game(self):
        for seed in range(30):
            with self.subTest(seed=seed):
                table = Table(engine.url, seed)
                table.play()
                self.check_end(table)

    def test_long_games_deal_many_hands(self):
        hands = []
        for seed in range(100, 110):
            with self.subTest(seed=seed):
                table = Table(engine.url, seed)
                table.play(cautious)
                self.check_end(table)
                hands.append(table.state["hand"])
        self.assertGreater(max(hands), 2)

    def test_same_inputs_same_answers(self):
        a, b = Table(engine.url, 9), Table(engine.url, 9)
        a.play()
        b.play()
        self.assertEqual(a.events, b.events)
        self.assertEqual(a.state, b.state)


if __name__ == "__main__":
    unittest.main()
