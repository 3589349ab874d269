#include "bots/determinize.h"

#include <string>

#include "games/registry.h"

namespace parlor::bots {

const IsmctsGame* find_ismcts_game(std::string_view kind) {
  if (kind == "spades") return &kIsmctsSpades;
  if (kind == "agram") return &kIsmctsAgram;
  if (kind == "bigtwo") return &kIsmctsBigTwo;
  if (kind == "bidwhist") return &kIsmctsBidWhist;
  if (kind == "splendor") return &kIsmctsSplendor;
  return nullptr;
}

Json world_options(std::string_view kind, const Json& given) {
  const GameInfo* info = find_game(kind);
  if (!info) return Json::object();
  std::string error;
  if (auto options = normalize_options(info->options, given, error)) return *options;
  return normalize_options(info->options, nullptr, error).value_or(Json::object());
}

}  // namespace parlor::bots
