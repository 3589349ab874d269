// Big Two worlds: the 52 cards less the seat's hand and the cards played this deal, dealt to
// the others by their hand counts (with fewer than four seats the rest stay undealt, as the
// real undealt cards do, and on the first deal so do the cards below the lowest card dealt,
// which its leader had to play). The deal's plays and passes are then replayed from its first
// lead.
#include <algorithm>
#include <optional>
#include <vector>

#include "bots/determinize.h"
#include "bots/hidden_deal.h"
#include "bots/trick_history.h"
#include "bots/view_reading.h"
#include "games/bigtwo/bigtwo.h"
#include "games/core/deck.h"

namespace parlor::bots {
namespace {

using bigtwo::BigTwoGame;
using bigtwo::SuitOrder;

struct DealHistory {
  std::optional<Seat> leader;  // who led the deal; none for the first (the lowest card leads)
  std::vector<ReplayStep> steps;
  std::vector<CardSet> played;  // per seat
};

DealHistory read_deal(std::span<const Json> events, int seats) {
  DealHistory history;
  history.played.assign(static_cast<std::size_t>(seats), CardSet());
  for (const Json& event : events) {
    if (!event.is_object()) continue;
    const std::string type = event.value("type", "");
    const Seat seat = read_int(event, "seat", -1);
    if (type == "deal") {
      history = DealHistory();
      history.played.assign(static_cast<std::size_t>(seats), CardSet());
      history.leader = read_int(event, "leader", 0);
    } else if (type == "play" && seat >= 0 && seat < seats) {
      history.played[static_cast<std::size_t>(seat)].add_all(read_cards(field(event, "cards")));
      history.steps.push_back({seat, {{"action", "play"}, {"cards", field(event, "cards")}}});
    } else if (type == "pass" && seat >= 0 && seat < seats) {
      history.steps.push_back({seat, {{"action", "pass"}}});
    }
  }
  return history;
}

// The lowest card dealt in the first deal, when the seat knows it: the lowest card of the
// deal's first play (it had to include it), or before that play the card the seat's view says
// it must include (only its holder is told).
std::optional<Card> lowest_dealt(const Json& view, const DealHistory& history, SuitOrder order) {
  if (!history.steps.empty()) {
    const CardSet first = read_cards(field(history.steps.front().move, "cards"));
    if (first.empty()) return std::nullopt;
    return bigtwo::lowest_card(first, order);
  }
  return read_card(field(view, "must_include"));
}

// Every card below `card` in Big Two order.
CardSet cards_below(Card card, SuitOrder order) {
  CardSet below;
  for (Card c : standard_deck()) {
    if (bigtwo::card_strength(c, order) < bigtwo::card_strength(card, order)) below.add(c);
  }
  return below;
}

bool bigtwo_hand_over(const Game& root, const Game& world) {
  const auto& start = static_cast<const BigTwoGame&>(root);
  const auto& now = static_cast<const BigTwoGame&>(world);
  return now.finished() || now.deal() != start.deal();
}

// The deal's points for the seat (the winner gains what the others lose, a loser loses more
// the more cards it kept), squashed into [0, 1].
double bigtwo_reward(const Game& root, const Game& world, Seat seat) {
  const auto& start = static_cast<const BigTwoGame&>(root);
  const auto& now = static_cast<const BigTwoGame&>(world);
  const int gain =
      now.scores()[static_cast<std::size_t>(seat)] - start.scores()[static_cast<std::size_t>(seat)];
  return std::clamp(0.5 + gain / 80.0, 0.0, 1.0);
}

bool bigtwo_searches(const Json& view) {
  return view.is_object() && view.value("phase", "") == "play";
}

}  // namespace

std::unique_ptr<Game> sample_bigtwo_world(const Json& view, std::span<const Json> events,
                                          Rng& rng) {
  const Seat you = read_int(view, "you", -1);
  const Json& counts = field(view, "hand_counts");
  const auto seats = static_cast<int>(counts.size());
  if (you < 0 || you >= seats || !field(view, "hand").is_array()) return nullptr;
  const CardSet hand = read_cards(field(view, "hand"));
  const DealHistory history = read_deal(events, seats);
  const SuitOrder order = view.value("suit_order", "") == "spades_hearts_diamonds_clubs"
                              ? SuitOrder::kSpadesHeartsDiamondsClubs
                              : SuitOrder::kSpadesHeartsClubsDiamonds;

  CardSet unknown = standard_deck() - hand;
  for (CardSet played : history.played) unknown.remove_all(played);
  // On the first deal the holder of the lowest card dealt leads and must play it, so no hidden
  // hand holds a lower card (with fewer than four seats, those cards were not dealt). Before
  // that play only the leader knows the card, and a world is built for the seat to act.
  std::vector<CardSet> excluded;
  if (!history.leader) {
    const auto lowest = lowest_dealt(view, history, order);
    if (!lowest) return nullptr;
    excluded.assign(static_cast<std::size_t>(seats), cards_below(*lowest, order));
  }
  const auto hands = deal_hands(unknown, counts, you, hand, history.played, excluded, rng);
  if (!hands) return nullptr;
  const Json options = world_options("bigtwo", {{"deals", view.value("deals", 1)},
                                                {"suit_order", view.value("suit_order", "")},
                                                {"straights", view.value("straights", "")}});
  auto world = history.leader
                   ? BigTwoGame::with_hands_led_by(options, *hands, *history.leader, rng.next())
                   : BigTwoGame::with_hands(options, *hands, rng.next());
  if (!replay_steps(*world, history.steps) || world->hand(you) != hand) return nullptr;
  return world;
}

const IsmctsGame kIsmctsBigTwo = {sample_bigtwo_world, bigtwo_hand_over, bigtwo_reward,
                                  bigtwo_searches, 250};

}  // namespace parlor::bots
