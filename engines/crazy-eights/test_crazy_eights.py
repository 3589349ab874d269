"""Crazy Eights engine tests: the HTTP server in a subprocess, driven by a minimal host.

    python3 -m unittest discover -s engines/crazy-eights -p 'test_*.py'
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "testing"))
import crazy_eights as rules  # noqa: E402
from table import EngineProcess, Table, request  # noqa: E402

engine = None


def setUpModule():
    global engine
    engine = EngineProcess(os.path.join(HERE, "server.py")).__enter__()


def tearDownModule():
    engine.__exit__(None, None, None)


def state_with(**fields):
    state = rules.init(["A", "B", "C", "D"])["state"]
    state.update(phase="playing", stock=10)
    state.update(fields)
    return state


def post(state, hands, action):
    players = [{"id": pid, "team": s, "hand": hands[s]} for s, pid in enumerate("ABCD")]
    return request(engine.url + "/next", {"state": state, "players": players, "action": action})


def play_prompt(player, cards):
    return {"type": "prompt_play", "player": player, "to": "pile", "count": 1, "from": cards}


class Flow(unittest.TestCase):
    def test_deal_then_next_with_null_action_prompts_the_first_player(self):
        table = Table(engine.url, 4)
        self.assertEqual(table.next(None)[0], 200)
        self.assertEqual([len(table.hands[p]) for p in "ABCD"], [5] * 4)
        self.assertEqual(table.prompts, {})  # the deal opens no prompt
        self.assertEqual(table.info["stock"], 32)
        self.assertEqual(table.next(None)[0], 200)
        self.assertEqual(table.prompts["A"], play_prompt("A", sorted(table.hands["A"])))

    def test_matching_suit_or_rank_and_eights(self):
        state = state_with(top="9H", suit="H", turn=1)
        self.assertEqual(rules.playable(state, ["2C", "9S", "KH", "8D", "3D"]),
                         ["8D", "9S", "KH"])

    def test_an_eight_asks_for_a_suit_and_the_next_player_follows_it(self):
        hands = [["8C", "2D"], ["3S", "4H", "KD"], [], []]
        state = state_with(top="5C", suit="C", prompt=play_prompt("A", ["8C"]))
        status, (state, events) = post(state, hands, {"player": "A", "value": ["8C"]})
        self.assertEqual(status, 200)
        self.assertEqual(events, [{"type": "prompt_select", "name": "suit", "player": "A",
                                   "count": 1,
                                   "from": ["clubs", "diamonds", "hearts", "spades"]}])
        hands[0].remove("8C")
        status, (state, events) = post(state, hands, {"player": "A", "value": ["spades"]})
        self.assertEqual(status, 200)
        self.assertEqual(events, [{"type": "add_info", "id": "called", "label": "Suit called"},
                                  {"type": "set_info", "id": "called", "value": "spades"},
                                  play_prompt("B", ["3S"])])
        # Calling again later updates the info line without adding it twice.
        state["prompt"] = {"type": "prompt_select", "name": "suit", "player": "B", "count": 1,
                           "from": ["clubs", "diamonds", "hearts", "spades"]}
        state["turn"] = 1
        status, (state, events) = post(state, hands, {"player": "B", "value": ["hearts"]})
        self.assertEqual([e["type"] for e in events], ["set_info", "draw", "set_info"])

    def test_a_player_who_cannot_play_draws_until_they_can(self):
        hands = [["2C"], ["KD", "4S"], ["3C"], ["4C"]]
        state = state_with(top="5C", suit="C", prompt=play_prompt("A", ["2C"]))
        hands[0] = ["2C", "9H"]
        status, (state, events) = post(state, hands, {"player": "A", "value": ["2C"]})
        self.assertEqual(events, [{"type": "draw", "player": "B", "count": 1},
                                  {"type": "set_info", "id": "stock", "value": 9}])
        self.assertIsNone(state["prompt"])
        hands[0] = ["9H"]
        self.assertEqual(post(state, hands, {"player": "B", "value": ["KD"]})[1]["error"],
                         "no_prompt")
        hands[1].append("JH")  # the card the server dealt: no match, draw again
        status, (state, events) = post(state, hands, None)
        self.assertEqual(events[0], {"type": "draw", "player": "B", "count": 1})
        hands[1].append("7C")
        status, (state, events) = post(state, hands, None)
        self.assertEqual(events, [play_prompt("B", ["7C"])])

    def test_empty_stock_passes_and_a_blocked_round_ends_the_game(self):
        hands = [["KH"], ["2D", "TS"], ["AD"], ["8C"]]
        state = state_with(top="5C", suit="C", stock=0, turn=3, prompt=play_prompt("D", ["8C"]))
        hands[3] = ["8C", "3D"]
        status, (state, events) = post(state, hands, {"player": "D", "value": ["8C"]})
        hands[3] = ["3D"]
        status, (state, events) = post(state, hands, {"player": "D", "value": ["spades"]})
        # A cannot follow spades: passes; B holds TS.
        self.assertIn({"type": "add_decoration", "player": "A", "name": "passed",
                       "value": "passed"}, events)
        self.assertEqual(events[-1], play_prompt("B", ["TS"]))
        state["prompt"] = None
        state["turn"] = 1
        state["passes"] = 0
        hands[1] = ["2D"]
        status, (state, events) = post(state, hands, None)
        self.assertEqual(events[-1], {"type": "end_game",
                                      "scores": {"A": -10, "B": -2, "C": -1, "D": -3}})
        self.assertEqual(state["phase"], "over")

    def test_going_out_wins(self):
        hands = [["7S"], ["8D", "TS"], ["AD"], ["3C"]]
        state = state_with(top="7C", suit="C", prompt=play_prompt("A", ["7S"]))
        status, (state, events) = post(state, hands, {"player": "A", "value": ["7S"]})
        self.assertEqual(events, [{"type": "end_game",
                                   "scores": {"A": 0, "B": -60, "C": -1, "D": -3}}])


class BadRequests(unittest.TestCase):
    def test_refusals_are_400_with_a_message(self):
        hands = [["7S", "9D"], ["8D"], ["AD"], ["3C"]]
        state = state_with(top="7C", suit="C", prompt=play_prompt("A", ["7S"]))
        cases = [({"player": "A", "value": ["9D"]}, "bad_answer"),
                 ({"player": "A", "value": ["7S", "9D"]}, "bad_answer"),
                 ({"player": "A", "value": "7S"}, "bad_answer"),
                 ({"player": "A"}, "bad_action"),
                 ({"player": "Q", "value": ["7S"]}, "bad_action"),
                 ({"player": "B", "value": ["8D"]}, "no_prompt"),
                 (None, "bad_action")]
        for action, code in cases:
            status, body = post(state, hands, action)
            self.assertEqual((status, body["error"]), (400, code), action)
            self.assertTrue(body["message"])
        status, body = post(state, [["7S"], [], [], []], {"player": "A", "value": ["7S"]})
        self.assertEqual(status, 200)  # the server's hands are the truth: A holds 7S
        status, body = post(state, [[], [], [], []], {"player": "A", "value": ["7S"]})
        self.assertEqual((status, body["error"]), (400, "bad_answer"))
        status, body = post({"phase": "nope"}, hands, None)
        self.assertEqual((status, body["error"]), (400, "bad_state"))
        status, body = request(engine.url + "/next", raw=b"[")
        self.assertEqual((status, body["error"]), (400, "bad_request"))
        self.assertEqual(request(engine.url + "/config")[0], 200)


class WholeGames(unittest.TestCase):
    def test_same_inputs_same_answers(self):
        a, b = Table(engine.url, 11), Table(engine.url, 11)
        a.play()
        b.play()
        self.assertEqual(a.events, b.events)
        self.assertEqual(a.state, b.state)

    def test_games_reach_end_game(self):
        winners = 0
        for seed in range(40):
            with self.subTest(seed=seed):
                table = Table(engine.url, seed)
                scores = table.play()
                self.assertEqual(table.state["phase"], "over")
                self.assertTrue(all(v <= 0 for v in scores.values()))
                went_out = [p for p in "ABCD" if not table.hands[p]]
                self.assertEqual([scores[p] for p in went_out], [0] * len(went_out))
                self.assertLessEqual(len(went_out), 1)
                if went_out:
                    winners += 1
                else:  # blocked: the stock ran out and every player passed
                    self.assertEqual(table.info["stock"], 0)
                    self.assertEqual(len(table.deck), 0)
        self.assertGreater(winners, 20)


if __name__ == "__main__":
    unittest.main()
