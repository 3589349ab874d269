// Game options: the schema a game declares (listed by list_games) and the
// validation that turns what a client sent into complete, checked options.
//
// Every divergence from a game's reference rules is a named variant: a choice
// option whose default is the reference rule. The normalized options (defaults
// filled in) are what a room stores, logs and shows in the lobby.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "games/core/game.h"

namespace parlor {

struct OptionChoice {
  std::string value;
  std::string description;
};

struct OptionSpec {  // NOLINT(bugprone-exception-escape): Json's move (games/core/game.h)
  enum class Type { kInteger, kChoice, kBoolean };

  std::string name;
  Type type = Type::kInteger;
  std::string description;
  Json default_value;
  std::int64_t min = 0;               // kInteger only
  std::int64_t max = 0;               // kInteger only
  std::vector<OptionChoice> choices;  // kChoice only; the default is the reference rule
  bool variant = false;               // true when a non-default value changes the rules of play

  static OptionSpec integer(std::string name, std::int64_t default_value, std::int64_t min,
                            std::int64_t max, std::string description);
  static OptionSpec choice(std::string name, std::vector<OptionChoice> choices,
                           std::string description);  // default: the first choice
  static OptionSpec boolean(std::string name, bool default_value, std::string description);
};

// The schema as listed to clients: {"NAME":{"type":"integer","default":1,"min":..,...},...}.
Json options_schema_json(const std::vector<OptionSpec>& specs);

// Checks `given` (an object or null) against `specs` and returns it with every default
// filled in. Unknown keys, wrong types and out-of-range values fail with a message
// naming the option.
std::optional<Json> normalize_options(const std::vector<OptionSpec>& specs, const Json& given,
                                      std::string& error);

// Reads an integer field that has already been range-checked by normalize_options.
std::int64_t option_int(const Json& options, const char* name);
const std::string& option_string(const Json& options, const char* name);

}  // namespace parlor
