// Plays a whole game through real WebSocket clients, one seat per client, choosing
// random legal moves from each seat's own prompt, while checking every frame each client
// receives against a mirror of the game (same options, seed and moves):
//   - a frame to seat i never mentions a card in another seat's hand (the leak scan);
//   - a spectator frame never mentions a card in any hand;
//   - every state push has the seq the room is at, and prompts only for seats in to_act.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "games/core/game.h"
#include "tests/support/test_client.h"

namespace parlor::testing {

struct DriveResult {
  bool finished = false;
  int moves = 0;
  std::int64_t last_seq = 0;
  std::string failure;  // empty when every check passed
  Json game_over;
};

// `clients[s]` sits at seat s; `spectators` watch. The room has started, every client has
// received its initial state push (seq `start_seq`), and `mirror` is a fresh game dealt
// with the same options, seats and seed. Stops after `max_moves` moves (0: no limit).
DriveResult drive_game(std::vector<TestClient*> clients, std::vector<TestClient*> spectators,
                       const std::string& room, Game& mirror, std::int64_t start_seq,
                       std::uint64_t seed, int max_moves = 0);

// Reads `client`'s frames until a state push in room `room` whose to_act has `seat`;
// nullopt when none comes within `timeout` of a frame.
std::optional<Json> next_prompt(TestClient& client, const std::string& room, Seat seat,
                                std::chrono::milliseconds timeout = std::chrono::seconds(5));

// Cards held by every seat but `viewer` in `game` (all hands for kSpectator).
std::vector<std::string> hidden_hand_cards(const Game& game, Seat viewer);

// Checks one frame received by `viewer`; returns a description of a leak or "".
std::string scan_frame(const Json& frame, const Game& mirror, Seat viewer);
// The same against the cards `viewer` may not see (when there is no mirror of the game).
std::string scan_frame(const Json& frame, const std::vector<std::string>& hidden, Seat viewer);

}  // namespace parlor::testing
