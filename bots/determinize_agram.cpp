// Agram worlds: the 35 cards less the seat's hand and the cards played this deal, dealt to the
// others by their hand counts (no seat getting a suit it failed to follow); what is left stays
// undealt, as the real undealt cards do. The deal's plays are then replayed.
#include <vector>

#include "bots/determinize.h"
#include "bots/hidden_deal.h"
#include "bots/trick_history.h"
#include "bots/view_reading.h"
#include "games/agram/agram.h"

namespace parlor::bots {
namespace {

using agram::AgramGame;

Json no_move(const Json&) { return nullptr; }  // every Agram move is a play or the deal

bool agram_hand_over(const Game& root, const Game& world) {
  const auto& start = static_cast<const AgramGame&>(root);
  const auto& now = static_cast<const AgramGame&>(world);
  return now.finished() || now.phase() == AgramGame::Phase::kDealOver ||
         now.deal_number() != start.deal_number();
}

// Only the sixth trick scores: 1 for taking it, 0 otherwise.
double agram_reward(const Game& root, const Game& world, Seat seat) {
  const auto& start = static_cast<const AgramGame&>(root);
  const auto& now = static_cast<const AgramGame&>(world);
  return now.score(seat) > start.score(seat) ? 1.0 : 0.0;
}

bool agram_searches(const Json& view) {
  return view.is_object() && view.value("phase", "") == "play";
}

}  // namespace

std::unique_ptr<Game> sample_agram_world(const Json& view, std::span<const Json> events, Rng& rng) {
  const Seat you = read_int(view, "you", -1);
  const Json& counts = field(view, "hand_counts");
  const auto seats = static_cast<int>(counts.size());
  if (you < 0 || you >= seats || seats < agram::kMinSeats || !field(view, "hand").is_array()) {
    return nullptr;
  }
  const CardSet hand = read_cards(field(view, "hand"));
  const TrickHandHistory history = read_trick_hand(events, seats, no_move);

  CardSet unknown = agram::agram_deck() - hand;
  for (CardSet played : history.played) unknown.remove_all(played);
  const auto hands =
      deal_hands(unknown, counts, you, hand, history.played, void_cards(history.voids), rng);
  if (!hands) return nullptr;
  const Json options = world_options("agram", {{"target", view.value("target", 1)}});
  auto world = AgramGame::create_with_hands(options, *hands, read_int(view, "dealer", seats - 1),
                                            rng.next());
  if (!replay_steps(*world, history.steps) || world->hand(you) != hand) return nullptr;
  return world;
}

// Priced at 16 moves a playout: two-handed, a deal's playouts are never longer (12 moves), so
// every decision runs all 400; four-handed, the first trick's 24-move playouts run 267.
const IsmctsGame kIsmctsAgram = {.sample = sample_agram_world,
                                 .hand_over = agram_hand_over,
                                 .reward = agram_reward,
                                 .searches = agram_searches,
                                 .iterations = 400,
                                 .playout_moves = 16};

}  // namespace parlor::bots
