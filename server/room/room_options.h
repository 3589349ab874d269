// The options that belong to a room rather than to its game: who may find it, how long a
// disconnected player keeps a seat, the turn clock and the dev seed. They arrive mixed into
// create_room's `options` and are stored in the room record's `room_options`; this is the
// one place that reads and writes them.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "games/core/game.h"

namespace parlor::server {

// What happens when a seat's turn clock runs out.
enum class OnTimeout {
  kBot,   // the greedy bot (random where there is none) moves for the seat
  kPass,  // pass when the game allows it, else the first legal move the game lists
};

struct RoomOptions {
  bool is_private = false;
  // The `seed` option (accepted by a server started with --dev only): reproducible deals.
  std::optional<std::uint64_t> seed;
  // A disconnected player's seat is played by a bot after this long (until they return).
  std::chrono::seconds grace{60};
  // 0: no turn clock. Otherwise a seat to act gets this long before on_timeout moves for it.
  std::chrono::seconds turn_seconds{0};
  OnTimeout on_timeout = OnTimeout::kBot;
  // Its games update the players' ratings; players may not add bots (docs/ARCHITECTURE.md,
  // "Ratings"). Set by create_room's and quick_play's `rated`, not by `options`.
  bool rated = false;
  // The creator locked the room: join_room seats nobody new (lock_room / unlock_room). Not a
  // create_room option; kept here because it is stored with the others.
  bool locked = false;

  bool operator==(const RoomOptions&) const = default;
};

// The stored form: {"private":B,"grace":S,"turn_seconds":S,"on_timeout":"bot"|"pass"[,"seed":N]
// [,"rated":true][,"locked":true]}.
Json room_options_json(const RoomOptions& options);

// Reads the stored form back; keys it does not hold, or holds with a value of the wrong type
// or out of range, keep their defaults.
RoomOptions room_options_from_json(const Json& stored);

// Takes the room options out of create_room's `options` (which then hold the game's options
// only) into `out`. Returns an error message naming the bad option, or nullopt.
// `allow_seed`: the server runs with --dev.
std::optional<std::string> extract_room_options(Json& options, bool allow_seed, RoomOptions& out);

}  // namespace parlor::server
