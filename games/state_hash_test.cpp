// Stored games carry state-hash checkpoints that crash recovery checks (games/core/replay.h):
// an engine whose state_hash changed would freeze every stored room of its kind. These
// tests pin, for every registered game, the hashes and the full_state text along seeded
// games of legal moves, so a change to either is a deliberate one. (full_state is not
// stored: Big Two's deal results gained the hands counted at each deal's end, and its
// hashes stayed as they were.)
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "games/core/rng.h"
#include "games/registry.h"

namespace parlor {
namespace {

struct Digest {
  std::uint64_t hashes = 0xcbf29ce484222325ULL;  // every state_hash along the games, folded
  std::uint64_t states = 0xcbf29ce484222325ULL;  // every full_state text, folded
  int moves = 0;
};

void fold(std::uint64_t& into, std::uint64_t value) { into = (into ^ value) * 0x100000001b3ULL; }

// Plays `games` seeded games of `kind` with `seats` seats, choosing moves with the seed's Rng
// (a "choose" prompt takes the first `count` items offered).
Digest play(std::string_view kind, const Json& given, int seats, int games) {
  const GameInfo* info = find_game(kind);
  Digest digest;
  if (!info) {
    ADD_FAILURE() << "no game " << kind;
    return digest;
  }
  for (std::uint64_t seed = 1; seed <= static_cast<std::uint64_t>(games); ++seed) {
    std::string error;
    Json options;
    auto game = create_game(*info, given, seats, seed, &options, error);
    if (!game) {
      ADD_FAILURE() << error;
      return digest;
    }
    Rng rng(seed);
    fold(digest.hashes, game->state_hash());
    fold(digest.states, stable_hash(game->full_state().dump()));
    for (int step = 0; !game->finished() && step < 5000; ++step) {
      const Seat seat = game->to_act().at(0);
      const Json legal = game->legal_moves(seat);
      Json move;
      if (!legal.empty()) {
        move = legal[rng.uniform(legal.size())];
      } else {
        const Json choose = game->prompt(seat).at("choose");
        Json picked = Json::array();
        for (std::size_t i = 0; i < choose.at("count").get<std::size_t>(); ++i) {
          picked.push_back(choose.at("from").at(i));
        }
        move = {{"action", choose.at("action")}, {choose.at("field").get<std::string>(), picked}};
      }
      const MoveResult result = game->apply(seat, move);
      if (!result.ok()) {
        ADD_FAILURE() << kind << " seed " << seed << ": " << move.dump() << " refused";
        return digest;
      }
      ++digest.moves;
      fold(digest.hashes, game->state_hash());
      fold(digest.states, stable_hash(game->full_state().dump()));
    }
  }
  return digest;
}

struct Pinned {
  const char* kind;
  const char* options;  // JSON text
  int seats;
  std::uint64_t hashes;
  std::uint64_t states;
  int moves;
};

TEST(StateHash, PinnedAlongSeededGames) {
  constexpr int kGames = 3;
  const Pinned pinned[] = {
      {"agram", "{}", 2, 0xb147fe20786efa45ULL, 0x0b87b0bc3c1d89edULL, 36},
      {"agram", "{}", 5, 0x2a710f30972bef7dULL, 0x7b55172c735fa7b9ULL, 90},
      {"bidwhist", "{}", 4, 0xed55794244676462ULL, 0xf8fcb7fe7f64598fULL, 162},
      {"bigtwo", "{}", 2, 0x217f58365ccc5086ULL, 0x19d9df86b5715f4aULL, 70},
      {"bigtwo", "{}", 3, 0xa07d4ff9dc96332aULL, 0xb4503a2770621ee6ULL, 160},
      {"bigtwo", "{}", 4, 0xeded8557feddc029ULL, 0x3aa2f61d729ee8e8ULL, 224},
      {"bigtwo", R"({"deals":3,"suit_order":"spades_hearts_diamonds_clubs","straights":"no_twos"})",
       4, 0xb638d80b1db98022ULL, 0x35d90a65bd550b45ULL, 653},
      {"spades", "{}", 4, 0x64648f23776c5cf7ULL, 0xbc7272aba293567dULL, 339},
      {"splendor", "{}", 2, 0x5fef3658f68975a1ULL, 0x468fe88c8e315ba7ULL, 264},
      {"splendor", "{}", 4, 0x6797b01318416e3dULL, 0x5e0e788fcbd4105eULL, 489},
  };
  for (const Pinned& p : pinned) {
    const Digest d = play(p.kind, Json::parse(p.options), p.seats, kGames);
    EXPECT_EQ(d.moves, p.moves) << p.kind << " " << p.seats;
    EXPECT_EQ(d.hashes, p.hashes) << p.kind << " " << p.seats << " state_hash changed";
    EXPECT_EQ(d.states, p.states) << p.kind << " " << p.seats << " full_state changed";
  }
}

}  // namespace
}  // namespace parlor
