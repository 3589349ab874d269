// The named variants of a game, read from its option schema: every non-default value of a
// choice option marked as a variant, and the non-default value of a boolean one (docs/RULES.md
// lists them). The quality report is made once for the default rules and once per variant.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "games/core/game_info.h"

namespace parlor::sim {

struct NamedVariant {
  std::string name;  // the choice's value ("no_twos"), or the boolean option's name ("blind_nil")
  Json options;      // the one option that differs from the defaults: {"straights":"no_twos"}
  std::string description;
};

std::vector<NamedVariant> named_variants(const GameInfo& info);
// The variant called `name`, or null.
const NamedVariant* find_variant(const std::vector<NamedVariant>& variants, std::string_view name);

}  // namespace parlor::sim
