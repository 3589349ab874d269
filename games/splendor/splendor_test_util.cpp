#include "games/splendor/splendor_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace parlor::splendor::testing {
namespace {

// Removes `card` from its deck or face-up slot (the slot is refilled from the deck top).
void lift(State& state, int card) {
  const int level = card_def(card).level - 1;
  auto& deck = state.decks[at(level)];
  if (auto it = std::find(deck.begin(), deck.end(), card); it != deck.end()) {
    deck.erase(it);
    return;
  }
  for (int& slot : state.rows[at(level)]) {
    if (slot == card) {
      slot = 0;
      if (!deck.empty()) {
        slot = deck.back();
        deck.pop_back();
      }
      return;
    }
  }
  throw std::logic_error("card " + std::to_string(card) + " is neither in a deck nor face up");
}

void collect_ints(const Json& value, CardMask& out) {
  if (value.is_number_integer()) {
    const auto id = value.get<std::int64_t>();
    out[at(id >= 1 && id <= kCardCount ? static_cast<int>(id) : 0)] = true;
  }
  if (value.is_structured()) {
    for (const Json& item : value) collect_ints(item, out);
  }
}

void collect_ids(const Json& value, CardMask& out) {
  if (value.is_object()) {
    for (const auto& [key, item] : value.items()) {
      if (key == "card" || key == "rows") {
        collect_ints(item, out);
      } else {
        collect_ids(item, out);
      }
    }
  } else if (value.is_array()) {
    for (const Json& item : value) collect_ids(item, out);
  }
}

}  // namespace

Tokens tokens(int white, int blue, int green, int red, int black, int gold) {
  return {white, blue, green, red, black, gold};
}

void expect_rejected(SplendorGame& game, Seat seat, const Json& move, const std::string& code) {
  const auto before = game.state_hash();
  const auto result = game.apply(seat, move);
  EXPECT_FALSE(result.ok()) << move.dump();
  EXPECT_EQ(result.code(), code) << move.dump() << ": " << result.message();
  EXPECT_FALSE(result.message().empty());
  EXPECT_EQ(game.state_hash(), before) << move.dump();
}

State dealt(int seats, std::uint64_t seed) { return initial_state(seats, seed); }

void put_face_up(State& state, int card, int slot) {
  const int level = card_def(card).level - 1;
  int& target = state.rows[at(level)][at(slot)];
  if (target == card) return;
  lift(state, card);
  // Lifting may have refilled another slot; the card displaced here goes back on the deck.
  if (target != 0) state.decks[at(level)].push_back(target);
  target = card;
}

void put_reserved(State& state, int seat, int card, bool blind) {
  lift(state, card);
  state.player(seat).reserved.push_back({card, blind});
}

void put_bought(State& state, int seat, int card) {
  lift(state, card);
  PlayerState& p = state.player(seat);
  p.bought.push_back(card);
  ++p.bonuses[at(card_def(card).bonus)];
  p.points += card_def(card).points;
}

void give_tokens(State& state, int seat, const Tokens& tokens) {
  for (int t = 0; t < kTokenKinds; ++t) {
    state.bank[at(t)] -= tokens[at(t)];
    state.player(seat).tokens[at(t)] += tokens[at(t)];
    if (state.bank[at(t)] < 0 || state.player(seat).tokens[at(t)] < 0) {
      throw std::logic_error("give_tokens: not enough " + std::string(token_name(t)));
    }
  }
}

void empty_deck(State& state, int level) { state.decks[at(level - 1)].clear(); }

int find_card(int level, const std::string& bonus, int points, const Gems& cost) {
  for (const CardDef& c : catalogue().cards) {
    if (c.level == level && token_name(c.bonus) == bonus && c.points == points && c.cost == cost) {
      return c.id;
    }
  }
  throw std::logic_error("no such card in the data");
}

Json take(std::vector<std::string> gems) { return {{"action", "take"}, {"gems", gems}}; }
Json reserve_card(int card) { return {{"action", "reserve"}, {"card", card}}; }
Json reserve_blind(int level) { return {{"action", "reserve"}, {"level", level}}; }
Json buy(int card) { return {{"action", "buy"}, {"card", card}}; }
Json buy_with_gold(int card, Json gold) {
  return {{"action", "buy"}, {"card", card}, {"gold", std::move(gold)}};
}
Json give_back(Json gems) { return {{"action", "return"}, {"gems", std::move(gems)}}; }
Json choose_noble(int noble) { return {{"action", "noble"}, {"noble", noble}}; }

CardMask card_ids(const Json& value) {
  CardMask out{};
  collect_ids(value, out);
  return out;
}

std::string invariants(const SplendorGame& game) {
  const State& s = game.state();
  // Tokens: bank plus purses is the initial bank, per kind.
  Tokens total = s.bank;
  for (const PlayerState& p : s.players) {
    for (int t = 0; t < kTokenKinds; ++t) {
      if (p.tokens[at(t)] < 0) return "negative token count";
      total[at(t)] += p.tokens[at(t)];
    }
  }
  if (total != initial_bank(s.seats)) return "tokens not conserved";
  for (int t = 0; t < kTokenKinds; ++t) {
    if (s.bank[at(t)] < 0) return "negative bank";
  }
  // Cards: each of the 90 exactly once, decks and rows holding their own level.
  std::vector<int> seen(kCardCount + 1, 0);
  for (int level = 0; level < kLevels; ++level) {
    for (int card : s.decks[at(level)]) {
      if (card_def(card).level != level + 1) return "card in the wrong deck";
      ++seen[at(card)];
    }
    for (int card : s.rows[at(level)]) {
      if (card == 0) {
        if (!s.decks[at(level)].empty()) return "empty slot while its deck has cards";
        continue;
      }
      if (card_def(card).level != level + 1) return "card in the wrong row";
      ++seen[at(card)];
    }
  }
  std::vector<int> nobles_seen(kNobleCount + 1, 0);
  for (int noble : s.nobles) ++nobles_seen[at(noble)];
  for (int seat = 0; seat < s.seats; ++seat) {
    const PlayerState& p = s.player(seat);
    Gems bonuses{};
    int points = 0;
    for (int card : p.bought) {
      ++seen[at(card)];
      ++bonuses[at(card_def(card).bonus)];
      points += card_def(card).points;
    }
    for (const ReservedCard& r : p.reserved) ++seen[at(r.card)];
    for (int noble : p.nobles) {
      ++nobles_seen[at(noble)];
      points += noble_def(noble).points;
    }
    if (bonuses != p.bonuses) return "bonuses disagree with bought cards";
    if (points != p.points) return "points disagree with cards and nobles";
    if (p.reserved.size() > at(kMaxReserved)) return "more than 3 reserved";
    const bool mid_turn = seat == s.current && s.phase == Phase::kReturn;
    if (!mid_turn && p.token_count() > kMaxTokens) return "more than 10 tokens outside a return";
    if (mid_turn && p.token_count() <= kMaxTokens) return "return phase without excess";
  }
  for (int card = 1; card <= kCardCount; ++card) {
    if (seen[at(card)] != 1) return "card " + std::to_string(card) + " not conserved";
  }
  int nobles = 0;
  for (int n = 1; n <= kNobleCount; ++n) {
    if (nobles_seen[at(n)] > 1) return "noble duplicated";
    nobles += nobles_seen[at(n)];
  }
  if (nobles != s.seats + 1) return "nobles not conserved";
  return {};
}

std::string leaks(const SplendorGame& game, Seat viewer) {
  return leaks(game, viewer, game.view(viewer), game.prompt(viewer));
}

std::string leaks(const SplendorGame& game, Seat viewer, const Json& view, const Json& prompt) {
  const State& s = game.state();
  CardMask visible{};
  for (const auto& row : s.rows) {
    for (int card : row) visible[at(card)] = card != 0;
  }
  for (int seat = 0; seat < s.seats; ++seat) {
    for (const ReservedCard& r : s.player(seat).reserved) {
      if (!r.blind || seat == viewer) visible[at(r.card)] = true;
    }
  }
  for (const Json* shown : {&view, &prompt}) {
    const CardMask ids = card_ids(*shown);
    for (int card = 0; card <= kCardCount; ++card) {
      if (ids[at(card)] && !visible[at(card)]) {
        return "seat " + std::to_string(viewer) + " is shown hidden card " + std::to_string(card);
      }
    }
  }
  return {};
}

std::string leaks(const SplendorGame& game) {
  for (Seat viewer = kSpectator; viewer < game.seat_count(); ++viewer) {
    if (auto leak = leaks(game, viewer); !leak.empty()) return leak;
  }
  return {};
}

std::string event_leaks(const SplendorGame& game, const Json& events) {
  const State& s = game.state();
  CardMask hidden{};
  for (const auto& deck : s.decks) {
    for (int card : deck) hidden[at(card)] = true;
  }
  for (const PlayerState& p : s.players) {
    for (const ReservedCard& r : p.reserved) hidden[at(r.card)] = hidden[at(r.card)] || r.blind;
  }
  const CardMask ids = card_ids(events);
  for (int card = 1; card <= kCardCount; ++card) {
    if (ids[at(card)] && hidden[at(card)]) return "event shows hidden card " + std::to_string(card);
  }
  return {};
}

}  // namespace parlor::splendor::testing
