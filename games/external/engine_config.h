// What an engine's `GET {base}/config` says about its game (docs/ENGINES.md): the deck, the
// number of players, the stacks on the table and the info lines. Read once when the server
// starts; every room of the engine's game shares it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "games/core/card_set.h"
#include "games/core/game.h"

namespace parlor::external {

struct StackSpec {
  std::string id;
  std::string label;
  std::string orientation;  // "horizontal" or "vertical"
  std::string alignment;    // "start", "center" or "end"
  int max_size = 0;
};

struct InfoSpec {
  std::string id;
  std::string label;
  Json value;  // a string or an integer
};

struct EngineConfig {
  std::string deck;  // "52" or "52JJ"
  int player_count = 0;
  std::vector<StackSpec> stacks;
  std::vector<InfoSpec> info;
};

// Checks an engine's /config answer field by field. On a bad answer returns nullopt and, in
// `error`, which field is wrong and why.
std::optional<EngineConfig> parse_engine_config(const Json& answer, std::string& error);

// The cards of `deck` ("52" or "52JJ").
CardSet deck_card_set(const std::string& deck);
// The same as wire strings, in canonical order.
std::vector<std::string> deck_cards(const std::string& deck);

}  // namespace parlor::external
