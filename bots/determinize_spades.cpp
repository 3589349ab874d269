// Spades worlds: the 52 cards less the seat's hand and the cards played this hand, dealt to the
// other three by their hand counts, no seat getting a suit it failed to follow (or, having led
// a spade before spades were broken, any suit but spades); the hand is then replayed (looks,
// bids, plays) from the deal.
#include <algorithm>
#include <array>
#include <span>
#include <vector>

#include "bots/determinize.h"
#include "bots/hidden_deal.h"
#include "bots/trick_history.h"
#include "bots/view_reading.h"
#include "games/core/deck.h"
#include "games/spades/spades.h"

namespace parlor::bots {
namespace {

using spades::SpadesGame;

Json spades_move(const Json& event) {
  const std::string type = event.value("type", "");
  if (type == "look") return {{"action", "look"}};
  if (type != "bid") return nullptr;
  const Json& bid = field(event, "bid");
  if (bid == "blind_nil") return {{"action", "bid"}, {"blind_nil", true}};
  if (bid == "nil") return {{"action", "bid"}, {"tricks", 0}};
  return {{"action", "bid"}, {"tricks", bid}};
}

// A seat that led a spade before spades were broken held nothing but spades (the rules allow
// that lead only then), so it lacks the other three suits for the rest of the hand: marks
// them in `voids`.
void mark_spade_only_leads(std::span<const Json> events, std::vector<unsigned>& voids) {
  constexpr unsigned kAllButSpades =
      ((1U << kSuitCount) - 1U) & ~(1U << static_cast<int>(Suit::kSpades));
  bool broken = false;
  int plays_in_trick = 0;
  for (const Json& event : current_hand(events)) {
    if (!event.is_object() || event.value("type", "") != "play") continue;
    const auto card = read_card(event.value("card", Json()));
    const Seat seat = read_int(event, "seat", -1);
    if (!card || seat < 0 || seat >= spades::kSeats) continue;
    if (card->suit() == Suit::kSpades) {
      if (plays_in_trick == 0 && !broken) voids[static_cast<std::size_t>(seat)] |= kAllButSpades;
      broken = true;
    }
    plays_in_trick = (plays_in_trick + 1) % spades::kSeats;
  }
}

bool spades_hand_over(const Game& root, const Game& world) {
  const auto& start = static_cast<const SpadesGame&>(root);
  const auto& now = static_cast<const SpadesGame&>(world);
  return now.finished() || now.phase() == SpadesGame::Phase::kHandOver ||
         now.hand_number() != start.hand_number();
}

// Points the seat's team gained over the other team's, squashed into [0, 1]; a hand rarely
// swings more than 250 points between the teams.
double spades_reward(const Game& root, const Game& world, Seat seat) {
  const auto& start = static_cast<const SpadesGame&>(root);
  const auto& now = static_cast<const SpadesGame&>(world);
  const int team = tricks::team_of(seat);
  const int gain =
      (now.points(team) - start.points(team)) - (now.points(1 - team) - start.points(1 - team));
  return std::clamp(0.5 + gain / 500.0, 0.0, 1.0);
}

bool spades_searches(const Json& view) {
  return view.is_object() && view.value("phase", "") == "play";
}

}  // namespace

std::unique_ptr<Game> sample_spades_world(const Json& view, std::span<const Json> events,
                                          Rng& rng) {
  const Seat you = read_int(view, "you", -1);
  if (you < 0 || you >= spades::kSeats || !field(view, "hand").is_array()) return nullptr;
  const CardSet hand = read_cards(field(view, "hand"));
  TrickHandHistory history = read_trick_hand(events, spades::kSeats, spades_move);
  mark_spade_only_leads(events, history.voids);

  CardSet unknown = standard_deck() - hand;
  for (CardSet played : history.played) unknown.remove_all(played);
  const auto hands = deal_hands(unknown, field(view, "hand_counts"), you, hand, history.played,
                                void_cards(history.voids), rng);
  if (!hands) return nullptr;

  spades::SpadesSetup setup;
  std::copy_n(hands->begin(), spades::kSeats, setup.hands.begin());
  setup.dealer = read_int(view, "dealer", 3);
  setup.hand_number = read_int(view, "hand_number", 1);
  for (int team = 0; team < tricks::kTeamCount; ++team) {
    const Json& score = item(field(view, "scores"), static_cast<std::size_t>(team));
    setup.points[static_cast<std::size_t>(team)] = read_int(score, "points", 0);
    setup.bags[static_cast<std::size_t>(team)] = read_int(score, "bags", 0);
  }
  const Json options = world_options(
      "spades", {{"target", view.value("target", 500)}, {"blind_nil", view.contains("looked")}});
  auto world = SpadesGame::create_with_setup(options, setup, rng.next());
  if (!replay_steps(*world, history.steps) || world->hand(you) != hand) return nullptr;
  return world;
}

// Every move is played out on each world: what cards a seat was dealt swings a hand's score
// far more than one card choice does, and comparing the choices on the same worlds cancels
// that. 400 playouts priced at 26 moves: a decision in the first tricks (50-move playouts)
// runs about 200, one in the last tricks all 400 (docs/BENCHMARKS.md, "Search bots").
const IsmctsGame kIsmctsSpades = {.sample = sample_spades_world,
                                  .hand_over = spades_hand_over,
                                  .reward = spades_reward,
                                  .searches = spades_searches,
                                  .iterations = 400,
                                  .every_move_per_world = true,
                                  .playout_moves = 26};

}  // namespace parlor::bots
