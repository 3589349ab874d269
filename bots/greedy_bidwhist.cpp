// Greedy Bid Whist: count the books a hand should take for each possible contract (top cards
// in the direction of play, trump length and the jokers, voids to ruff with), bid the cheapest
// bid the best contract supports without overcalling a partner, name the trump or direction
// that count likes best, discard the weakest cards (powerless jokers in no trump, low cards of
// short side suits), and in play let a winning partner have the trick, else win cheaply, else
// throw the cheapest card.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>

#include "bots/greedy.h"
#include "bots/trick_sense.h"

namespace parlor::bots {
namespace {

using tricks::Direction;
using tricks::StandardTrickRules;

constexpr std::array<Suit, 4> kSuits = {Suit::kClubs, Suit::kDiamonds, Suit::kHearts,
                                        Suit::kSpades};
constexpr int kBookBase = 6;
constexpr double kPartnerBooks = 2.5;  // what a partner's hand is worth, sight unseen
constexpr double kKittyBooks = 0.5;    // the kitty usually improves the declarer a little

// Tricks this hand should take itself under a contract.
double estimate_tricks(CardSet hand, std::optional<Suit> trump, Direction direction) {
  const StandardTrickRules rules(trump, direction);
  const CardSet jokers = CardSet{Card::little_joker(), Card::big_joker()} & hand;
  double tricks = 0;
  int trump_length = 0;
  if (trump) {
    tricks += jokers.size();
    trump_length = hand.of_suit(*trump).size() + jokers.size();
  }
  for (Suit suit : kSuits) {
    const CardSet cards = hand.of_suit(suit);
    const int length = cards.size();
    // The top three ranks in this direction: order 13 (the ace), 12, 11.
    int tops[3] = {0, 0, 0};
    for (Card card : cards) {
      const int from_top = 13 - rules.rank_order(card.rank());
      if (from_top < 3) tops[from_top] = 1;
    }
    if (trump && suit == *trump) {
      tricks +=
          tops[0] + (length >= 2 ? tops[1] : 0.5 * tops[1]) + (length >= 3 ? 0.7 * tops[2] : 0);
      tricks += std::max(0, trump_length - 4);
      continue;
    }
    tricks += tops[0] + (length >= 2 ? 0.7 * tops[1] : 0) + (length >= 3 ? 0.3 * tops[2] : 0);
    if (trump && trump_length >= 4) tricks += length == 0 ? 0.8 : length == 1 ? 0.4 : 0;
    if (!trump && tops[0]) tricks += 0.7 * std::max(0, length - 4);
  }
  return tricks;
}

struct Choice {
  std::optional<Suit> trump;
  Direction direction = Direction::kUptown;
  double tricks = -1;
};

// The best contract of a type: "uptown" / "downtown" (choosing the trump) or "no_trump"
// (choosing the direction).
Choice best_contract(CardSet hand, std::string_view type) {
  Choice best;
  if (type == "no_trump") {
    for (Direction d : {Direction::kUptown, Direction::kDowntown}) {
      const double t = estimate_tricks(hand, std::nullopt, d);
      if (t > best.tricks) best = {std::nullopt, d, t};
    }
    return best;
  }
  const Direction d = type == "downtown" ? Direction::kDowntown : Direction::kUptown;
  for (Suit suit : kSuits) {
    const double t = estimate_tricks(hand, suit, d);
    if (t > best.tricks) best = {suit, d, t};
  }
  return best;
}

// Books over six the partnership should make with this contract type.
int supported_level(CardSet hand, std::string_view type) {
  const double books = 1 + best_contract(hand, type).tricks + kPartnerBooks + kKittyBooks;
  return static_cast<int>(std::floor(books)) - kBookBase;
}

Json choose_bid(const Json& view, const Json& prompt, CardSet hand, Seat you) {
  const Json* pass = nullptr;
  const Json* cheapest_bid = nullptr;
  for (const Json& move : legal_list(prompt)) {
    if (move.value("action", "") == "pass" && !pass) pass = &move;
    if (move.value("action", "") == "bid" && !cheapest_bid) cheapest_bid = &move;
  }
  // Don't bid over a partner who holds the auction.
  const Json& high = view.value("high_bid", Json());
  if (pass && high.is_object() && high.value("seat", -1) == tricks::partner_of(you)) return *pass;

  // No trump pays double both ways: only worth it when it counts clearly better.
  const int suit_level =
      std::max(supported_level(hand, "uptown"), supported_level(hand, "downtown"));
  const int no_trump_level = supported_level(hand, "no_trump");
  std::string type =
      supported_level(hand, "uptown") >= supported_level(hand, "downtown") ? "uptown" : "downtown";
  int level = suit_level;
  if (no_trump_level > suit_level) {
    type = "no_trump";
    level = no_trump_level;
  }
  for (const Json& move : legal_list(prompt)) {  // weakest first
    if (move.value("action", "") != "bid" || move.value("type", "") != type) continue;
    if (move.value("books", 99) <= level) return move;
  }
  if (pass) return *pass;
  // Forced to bid: the cheapest bid of the type the hand likes, else the cheapest at all.
  for (const Json& move : legal_list(prompt)) {
    if (move.value("action", "") == "bid" && move.value("type", "") == type) return move;
  }
  return cheapest_bid ? *cheapest_bid : legal_list(prompt).front();
}

Json choose_declaration(const Json& view, const Json& prompt, CardSet hand) {
  const Json& contract = view.value("contract", Json());
  const std::string type = contract.is_object() ? contract.value("type", "uptown") : "uptown";
  const Choice best = best_contract(hand, type);
  for (const Json& move : legal_list(prompt)) {
    if (const auto trump = move.find("trump");
        trump != move.end() && best.trump && *trump == std::string(1, suit_char(*best.trump))) {
      return move;
    }
    if (const auto direction = move.find("direction");
        direction != move.end() && !best.trump &&
        *direction == (best.direction == Direction::kUptown ? "uptown" : "downtown")) {
      return move;
    }
  }
  return legal_list(prompt).front();
}

// The contract's card order, from the view.
StandardTrickRules contract_rules(const Json& view) {
  const Json& contract = view.value("contract", Json());
  if (!contract.is_object()) return StandardTrickRules();
  std::optional<Suit> trump;
  if (const auto it = contract.find("trump"); it != contract.end() && it->is_string()) {
    for (Suit suit : kSuits) {
      if (it->get<std::string>() == std::string(1, suit_char(suit))) trump = suit;
    }
  }
  const bool downtown =
      contract.value("direction", "") == "downtown" ||
      (contract.value("type", "") == "downtown" && !contract.contains("direction"));
  return StandardTrickRules(trump, downtown ? Direction::kDowntown : Direction::kUptown);
}

Json choose_discard(const Json& view, const Json& choose) {
  const StandardTrickRules rules = contract_rules(view);
  CardSet kept = read_cards(choose.value("from", Json()));
  const int count = choose.value("count", 6);
  auto keep_score = [&](Card card) {
    if (card.is_joker()) return rules.trump() ? 1000.0 : -100.0;
    const int order = rules.rank_order(card.rank());
    if (rules.trump() && card.suit() == *rules.trump()) return 500.0 + order;
    return order + (order == 13 ? 50.0 : 0.0) + 3.0 * kept.of_suit(card.suit()).size();
  };
  Json cards = Json::array();
  for (int i = 0; i < count && !kept.empty(); ++i) {
    Card worst = kept.lowest();
    for (Card card : kept) {
      if (keep_score(card) < keep_score(worst)) worst = card;
    }
    kept.remove(worst);
    cards.push_back(worst.to_string());
  }
  return {{"action", choose.value("action", "discard")},
          {choose.value("field", "cards"), std::move(cards)}};
}

Card choose_lead(CardSet legal, const StandardTrickRules& rules, bool declaring) {
  const std::optional<Suit> trump = rules.trump();
  if (trump && declaring) {
    // Draw the defenders' trumps while holding the top ones.
    const CardSet trumps =
        legal.of_suit(*trump) | (legal & CardSet{Card::little_joker(), Card::big_joker()});
    if (trumps.size() >= 3 && legal.contains(Card::big_joker())) return Card::big_joker();
    if (trumps.size() >= 4) return dearest(trumps, rules);
  }
  for (Card card : legal) {  // a side ace wins now
    if (!card.is_joker() && card.rank() == Rank::kAce && (!trump || card.suit() != *trump)) {
      return card;
    }
  }
  CardSet side;
  for (Card card : legal) {
    if (!card.is_joker() && (!trump || card.suit() != *trump)) side.add(card);
  }
  if (side.empty()) return trump ? dearest(legal, rules) : cheapest(legal, rules);
  // Trump contract: lead from the shortest side suit (to ruff it later); no trump: from the
  // longest (its low cards become winners).
  Suit pick = Suit::kClubs;
  int pick_length = trump ? 99 : -1;
  for (Suit suit : kSuits) {
    const int length = side.of_suit(suit).size();
    if (length == 0) continue;
    if (trump ? length < pick_length : length > pick_length) {
      pick = suit;
      pick_length = length;
    }
  }
  return cheapest(side.of_suit(pick), rules);
}

class GreedyBidWhist final : public Strategy {
 public:
  std::string_view name() const override { return "greedy"; }

  Json choose(const Json& view, const Json& prompt, Rng& rng) override {
    if (!view.is_object()) return random_move(prompt, rng);  // no view: no judgement
    if (prompt.is_object() && prompt.contains("choose") && prompt["choose"].is_object()) {
      return choose_discard(view, prompt["choose"]);
    }
    const auto& legal = legal_list(prompt);
    if (legal.empty()) return random_move(prompt, rng);
    const std::string phase = view.value("phase", "");
    const CardSet hand = read_cards(view.value("hand", Json()));
    const Seat you = read_int(view, "you", 0);
    if (phase == "bidding") return choose_bid(view, prompt, hand, you);
    if (phase == "declaring") return choose_declaration(view, prompt, hand);
    if (phase != "playing") return legal.front();

    CardSet playable;
    for (const Json& move : legal) {
      if (auto card = read_card(move.value("card", Json()))) playable.add(*card);
    }
    if (playable.empty()) return legal.front();
    const StandardTrickRules rules = contract_rules(view);
    const auto trick = read_trick(view);
    const Json& contract = view.value("contract", Json());
    const int declarer = contract.is_object() ? contract.value("declarer", -1) : -1;
    const bool declaring = declarer >= 0 && tricks::team_of(declarer) == tricks::team_of(you);
    const Card card = trick.empty()
                          ? choose_lead(playable, rules, declaring)
                          : follow_card(playable, trick, {&rules, you, tricks::partner_of(you), 4});
    const Json* move = move_with_card(prompt, "card", card);
    return move ? *move : legal.front();
  }
};

}  // namespace

std::unique_ptr<Strategy> make_greedy_bidwhist() { return std::make_unique<GreedyBidWhist>(); }

}  // namespace parlor::bots
