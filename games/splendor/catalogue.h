// The published Splendor components (90 development cards, 10 nobles) and the
// gem colours, read once from the data compiled into the binary
// (splendor.json, embedded at build time by CMake) so no engine ever opens a file.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "games/core/game.h"

namespace parlor::splendor {

inline constexpr int kColorCount = 5;  // white, blue, green, red, black
inline constexpr int kGold = 5;        // token index of gold
inline constexpr int kTokenKinds = 6;  // the five colours plus gold
inline constexpr int kLevels = 3;
inline constexpr int kCardCount = 90;
inline constexpr int kNobleCount = 10;

using Gems = std::array<int, kColorCount>;    // per colour: a cost, bonuses, a requirement
using Tokens = std::array<int, kTokenKinds>;  // per colour plus gold: a bank or a purse

// "white", "blue", "green", "red", "black", "gold" (index kGold).
std::string_view token_name(int token);
// The token index of a name, including "gold"; nullopt for anything else.
std::optional<int> token_from_name(std::string_view name);

struct CardDef {
  int id = 0;     // 1..90, the data's own id
  int level = 0;  // 1..3
  int bonus = 0;  // colour index
  int points = 0;
  Gems cost{};
};

struct NobleDef {
  int id = 0;  // 1..10, the data's own id
  int points = 0;
  Gems needs{};  // bonuses required
};

struct Catalogue {
  std::string source;            // the data's attribution
  std::vector<CardDef> cards;    // index id - 1
  std::vector<NobleDef> nobles;  // index id - 1
};

// The embedded splendor.json, byte for byte (generated source, see CMakeLists.txt).
std::string_view embedded_data_json();

// Parses data in the splendor.json format; throws on a malformed file (a build bug: the
// data test checks the embedded copy).
Catalogue parse_catalogue(std::string_view json_text);

// The catalogue of the embedded data, parsed on first use and immutable afterwards.
const Catalogue& catalogue();

// The static table clients render cards and nobles from (views name them by id):
// {"colors":[...],"cards":[{"id","level","bonus","points","cost"}...],"nobles":[{"id",
// "points","requires"}...]}, i.e. splendor.json without its "source".
Json catalogue_json();

inline const CardDef& card_def(int id) {
  return catalogue().cards[static_cast<std::size_t>(id - 1)];
}
inline const NobleDef& noble_def(int id) {
  return catalogue().nobles[static_cast<std::size_t>(id - 1)];
}

// {"white":n,...} with only the non-zero counts, in colour order.
Json gems_json(const Gems& gems);
Json tokens_json(const Tokens& tokens);  // includes "gold"

}  // namespace parlor::splendor
