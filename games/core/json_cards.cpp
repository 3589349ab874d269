#include "games/core/json_cards.h"

namespace parlor {

Json card_to_json(Card card) { return card.to_string(); }

Json cards_to_json(const std::vector<Card>& cards) {
  Json out = Json::array();
  for (Card c : cards) out.push_back(c.to_string());
  return out;
}

Json cards_to_json(CardSet cards) {
  Json out(Json::value_t::array);
  auto& list = out.get_ref<Json::array_t&>();
  list.reserve(static_cast<std::size_t>(cards.size()));
  for (Card c : cards) list.emplace_back(c.to_string());
  return out;
}

std::optional<Card> card_field(const Json& move, std::string_view field, std::string& error) {
  const std::string key(field);
  if (!move.is_object() || !move.contains(key)) {
    error = R"(move needs a ")" + key + R"(" field with a card such as "AS")";
    return std::nullopt;
  }
  const Json& value = move[key];
  if (!value.is_string()) {
    error = '"' + key + R"(" must be a card string such as "AS")";
    return std::nullopt;
  }
  return parse_card(value.get_ref<const std::string&>(), &error);
}

std::optional<CardSet> cards_field(const Json& move, std::string_view field, int max_count,
                                   std::string& error) {
  const std::string key(field);
  if (!move.is_object() || !move.contains(key)) {
    error = "move needs a \"" + key + "\" field with an array of cards";
    return std::nullopt;
  }
  const Json& value = move[key];
  if (!value.is_array()) {
    error = "\"" + key + "\" must be an array of card strings";
    return std::nullopt;
  }
  if (static_cast<int>(value.size()) > max_count) {
    error = "\"" + key + "\" has " + std::to_string(value.size()) + " cards; at most " +
            std::to_string(max_count) + " are allowed";
    return std::nullopt;
  }
  CardSet cards;
  for (const Json& item : value) {
    if (!item.is_string()) {
      error = "\"" + key + "\" must contain only card strings";
      return std::nullopt;
    }
    auto card = parse_card(item.get_ref<const std::string&>(), &error);
    if (!card) return std::nullopt;
    if (cards.contains(*card)) {
      error = "card " + card->to_string() + " appears twice in \"" + key + "\"";
      return std::nullopt;
    }
    cards.add(*card);
  }
  return cards;
}

std::optional<std::string> action_of(const Json& move, std::string& error) {
  if (!move.is_object()) {
    error = "a move must be a JSON object with an \"action\"";
    return std::nullopt;
  }
  auto it = move.find("action");
  if (it == move.end() || !it->is_string()) {
    error = "a move needs a string \"action\"";
    return std::nullopt;
  }
  return it->get<std::string>();
}

}  // namespace parlor
