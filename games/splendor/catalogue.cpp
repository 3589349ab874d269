#include "games/splendor/catalogue.h"

#include <stdexcept>

namespace parlor::splendor {
namespace {

constexpr std::array<std::string_view, kTokenKinds> kTokenNames = {"white", "blue",  "green",
                                                                   "red",   "black", "gold"};

Gems parse_gems(const Json& object) {
  Gems gems{};
  for (const auto& [name, count] : object.items()) {
    const auto color = token_from_name(name);
    if (!color || *color == kGold) throw std::runtime_error("splendor data: bad colour " + name);
    gems[static_cast<std::size_t>(*color)] = count.get<int>();
  }
  return gems;
}

}  // namespace

std::string_view token_name(int token) { return kTokenNames[static_cast<std::size_t>(token)]; }

std::optional<int> token_from_name(std::string_view name) {
  for (int i = 0; i < kTokenKinds; ++i) {
    if (kTokenNames[static_cast<std::size_t>(i)] == name) return i;
  }
  return std::nullopt;
}

Json gems_json(const Gems& gems) {
  Json out = Json::object();
  for (int c = 0; c < kColorCount; ++c) {
    if (gems[static_cast<std::size_t>(c)] != 0) {
      out[std::string(token_name(c))] = gems[static_cast<std::size_t>(c)];
    }
  }
  return out;
}

Json tokens_json(const Tokens& tokens) {
  Json out = Json::object();
  for (int t = 0; t < kTokenKinds; ++t) {
    if (tokens[static_cast<std::size_t>(t)] != 0) {
      out[std::string(token_name(t))] = tokens[static_cast<std::size_t>(t)];
    }
  }
  return out;
}

Catalogue parse_catalogue(std::string_view json_text) {
  const Json data = Json::parse(json_text);
  Catalogue cat;
  cat.source = data.at("source").get<std::string>();
  for (const Json& c : data.at("cards")) {
    CardDef card;
    card.id = c.at("id").get<int>();
    card.level = c.at("level").get<int>();
    const auto bonus = token_from_name(c.at("bonus").get<std::string>());
    if (!bonus || *bonus == kGold) throw std::runtime_error("splendor data: bad bonus");
    card.bonus = *bonus;
    card.points = c.at("points").get<int>();
    card.cost = parse_gems(c.at("cost"));
    if (card.id != static_cast<int>(cat.cards.size()) + 1) {
      throw std::runtime_error("splendor data: card ids must run 1..90 in order");
    }
    cat.cards.push_back(card);
  }
  for (const Json& n : data.at("nobles")) {
    NobleDef noble;
    noble.id = n.at("id").get<int>();
    noble.points = n.at("points").get<int>();
    noble.needs = parse_gems(n.at("requires"));
    if (noble.id != static_cast<int>(cat.nobles.size()) + 1) {
      throw std::runtime_error("splendor data: noble ids must run 1..10 in order");
    }
    cat.nobles.push_back(noble);
  }
  return cat;
}

const Catalogue& catalogue() {
  // Immutable after first use (thread-safe static initialisation): shared data, not state.
  static const Catalogue cat = parse_catalogue(embedded_data_json());
  return cat;
}

Json catalogue_json() {
  Json data = Json::parse(embedded_data_json());
  data.erase("source");
  return data;
}

}  // namespace parlor::splendor
