// Bid Whist worlds, during trick play: the 54 cards less the seat's hand, the cards played this
// hand and (for the declarer) its own discard, dealt to the other three by their hand counts
// with no seat getting a suit it failed to follow (a seat out of trumps has no joker either in
// a trump contract). What is left over is the declarer's face-down discard. The hand is rebuilt
// with the discard as the kitty — the declarer took the kitty and laid six cards down, and
// which six it took is never seen — and the auction, declaration, discard and plays replayed.
#include <algorithm>
#include <array>
#include <string>

#include "bots/determinize.h"
#include "bots/hidden_deal.h"
#include "bots/trick_history.h"
#include "bots/view_reading.h"
#include "games/bidwhist/bidwhist.h"
#include "games/bidwhist/bidwhist_rules.h"
#include "games/core/deck.h"
#include "games/core/json_cards.h"

namespace parlor::bots {
namespace {

using bidwhist::BidWhistGame;
using bidwhist::kSeats;

// The discard's cards are filled in by the sampler: the event does not name them.
Json bidwhist_move(const Json& event) {
  const std::string type = event.value("type", "");
  if (type == "bid") {
    return {{"action", "bid"},
            {"books", read_int(field(event, "bid"), "books", 0)},
            {"type", field(field(event, "bid"), "type")}};
  }
  if (type == "pass") return {{"action", "pass"}};
  if (type == "declare") {
    if (event.contains("trump")) return {{"action", "declare"}, {"trump", field(event, "trump")}};
    return {{"action", "declare"}, {"direction", event.value("direction", "")}};
  }
  if (type == "discard") return {{"action", "discard"}, {"cards", nullptr}};
  return nullptr;
}

// The seat's own discard this hand, from the note its strategy keeps of its own moves.
CardSet own_discard(std::span<const Json> events) {
  CardSet discard;
  for (const Json& event : events) {
    if (!event.is_object()) continue;
    const std::string type = event.value("type", "");
    if (type == "deal") discard = CardSet();
    if (type == kOwnMoveNote && field(field(event, "move"), "action") == "discard") {
      discard = read_cards(field(field(event, "move"), "cards"));
    }
  }
  return discard;
}

bool bidwhist_hand_over(const Game& /*root*/, const Game& world) {
  const auto phase = static_cast<const BidWhistGame&>(world).phase();
  return phase == bidwhist::Phase::kHandOver || phase == bidwhist::Phase::kFinished;
}

// Half the game points the seat's team gained over the other team's (a hand moves the scores
// by at most 14), half the books it took over theirs, squashed into [0, 1]. The score alone is
// a step — a playout's contract is made or set by one book — so most playouts of two cards land
// on the same step; a book more is always better in Bid Whist (there are no bags), so counting
// books grades the playouts finer without ranking them differently.
double bidwhist_reward(const Game& root, const Game& world, Seat seat) {
  const auto& start = static_cast<const BidWhistGame&>(root);
  const auto& now = static_cast<const BidWhistGame&>(world);
  const int team = tricks::team_of(seat);
  const int gain = (now.team_score(team) - start.team_score(team)) -
                   (now.team_score(1 - team) - start.team_score(1 - team));
  const int books = (now.team_books(team) - start.team_books(team)) -
                    (now.team_books(1 - team) - start.team_books(1 - team));
  return std::clamp(0.5 + gain / 56.0 + books / 52.0, 0.0, 1.0);
}

bool bidwhist_searches(const Json& view) {
  return view.is_object() && view.value("phase", "") == "playing";
}

}  // namespace

std::unique_ptr<Game> sample_bidwhist_world(const Json& view, std::span<const Json> events,
                                            Rng& rng) {
  const Seat you = read_int(view, "you", -1);
  const Json& contract = view.value("contract", Json());
  if (you < 0 || you >= kSeats || !field(view, "hand").is_array() || !contract.is_object()) {
    return nullptr;
  }
  const Seat declarer = read_int(contract, "declarer", -1);
  if (declarer < 0 || declarer >= kSeats) return nullptr;
  const std::optional<Suit> trump = bidwhist::parse_suit_letter(contract.value("trump", ""));
  const tricks::StandardTrickRules rules(trump, contract.value("direction", "") == "downtown"
                                                    ? tricks::Direction::kDowntown
                                                    : tricks::Direction::kUptown);
  const CardSet hand = read_cards(field(view, "hand"));
  const TrickHandHistory history = read_trick_hand(events, kSeats, bidwhist_move, &rules);
  const CardSet my_discard = you == declarer ? own_discard(events) : CardSet();
  if (you == declarer && my_discard.size() != bidwhist::kKittySize) return nullptr;

  CardSet unknown = deck_with_jokers() - hand - my_discard;
  for (CardSet played : history.played) unknown.remove_all(played);
  std::vector<CardSet> excluded = void_cards(history.voids);
  for (std::size_t i = 0; i < excluded.size(); ++i) {
    if (trump && ((history.voids[i] >> static_cast<int>(*trump)) & 1U)) {
      excluded[i].add(Card::little_joker());
      excluded[i].add(Card::big_joker());
    }
  }
  const auto dealt =
      deal_hands(unknown, field(view, "hand_counts"), you, hand, history.played, excluded, rng);
  if (!dealt) return nullptr;
  std::array<CardSet, kSeats> hands{};
  std::copy_n(dealt->begin(), kSeats, hands.begin());
  for (const CardSet dealt_hand : hands) unknown.remove_all(dealt_hand);
  // What no hand holds is face down: the discard.
  const CardSet discard = you == declarer ? my_discard : unknown;
  if (discard.size() != bidwhist::kKittySize) return nullptr;

  std::vector<ReplayStep> steps = history.steps;
  for (ReplayStep& step : steps) {
    if (step.move.value("action", "") == "discard") step.move["cards"] = cards_to_json(discard);
  }
  const int target = view.value("target", 7);
  const std::uint64_t seed = rng.next();
  // The auction rule is not in the view: the one under which the public calls replay is it.
  for (auto auction : {bidwhist::Auction::kOnceAround, bidwhist::Auction::kUntilPassed}) {
    auto world = BidWhistGame::create_with_deal(auction, target, read_int(view, "dealer", 0), hands,
                                                discard, seed);
    if (replay_steps(*world, steps) && world->hand(you) == hand) return world;
  }
  return nullptr;
}

// As Spades: every move played out on each world, 400 playouts priced at 24 moves (a hand's
// twelve tricks are 48 moves). Against greedy this measures even, within 0.2 game points a
// deal; the UCB1 search at 100 iterations it replaced measured below greedy, if not
// significantly (docs/BENCHMARKS.md, "Search bots").
const IsmctsGame kIsmctsBidWhist = {.sample = sample_bidwhist_world,
                                    .hand_over = bidwhist_hand_over,
                                    .reward = bidwhist_reward,
                                    .searches = bidwhist_searches,
                                    .iterations = 400,
                                    .every_move_per_world = true,
                                    .playout_moves = 24};

}  // namespace parlor::bots
