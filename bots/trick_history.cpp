#include "bots/trick_history.h"

#include <optional>

#include "bots/view_reading.h"

namespace parlor::bots {

std::span<const Json> current_hand(std::span<const Json> events) {
  for (std::size_t i = events.size(); i > 0; --i) {
    const Json& event = events[i - 1];
    if (event.is_object() && event.value("type", "") == "deal") return events.subspan(i);
  }
  return events;
}

TrickHandHistory read_trick_hand(std::span<const Json> events, int seats,
                                 Json (*translate)(const Json& event),
                                 const tricks::TrickRules* rules) {
  TrickHandHistory history;
  history.played.assign(static_cast<std::size_t>(seats), CardSet());
  history.voids.assign(static_cast<std::size_t>(seats), 0U);
  constexpr int kNoSuit = -1;
  int plays_in_trick = 0;
  int led = kNoSuit;  // the suit led, as a number (no suit yet: a joker led in no trump)
  for (const Json& event : current_hand(events)) {
    if (!event.is_object()) continue;
    const Seat seat = read_int(event, "seat", -1);
    if (event.value("type", "") == "play") {
      const auto card = read_card(event.value("card", Json()));
      if (!card || seat < 0 || seat >= seats) continue;
      history.played[static_cast<std::size_t>(seat)].add(*card);
      history.steps.push_back({seat, {{"action", "play"}, {"card", field(event, "card")}}});
      if (plays_in_trick == 0) led = kNoSuit;
      const std::optional<Suit> effective = rules ? rules->effective_suit(*card) : card->suit();
      const int suit = effective ? static_cast<int>(*effective) : kNoSuit;
      if (led == kNoSuit) {
        led = suit;
      } else if (suit != led) {
        history.voids[static_cast<std::size_t>(seat)] |= 1U << led;
      }
      plays_in_trick = (plays_in_trick + 1) % seats;
      continue;
    }
    Json move = translate(event);
    if (!move.is_null() && seat >= 0 && seat < seats) {
      history.steps.push_back({seat, std::move(move)});
    }
  }
  return history;
}

bool replay_steps(Game& game, std::span<const ReplayStep> steps) {
  for (const ReplayStep& step : steps) {
    if (!game.apply(step.seat, step.move).ok()) return false;
  }
  return true;
}

}  // namespace parlor::bots
