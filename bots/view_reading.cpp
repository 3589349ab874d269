#include "bots/view_reading.h"

namespace parlor::bots {

std::optional<Card> read_card(const Json& value) {
  if (!value.is_string()) return std::nullopt;
  return parse_card(value.get_ref<const std::string&>());
}

CardSet read_cards(const Json& value) {
  CardSet cards;
  if (!value.is_array()) return cards;
  for (const Json& item : value) {
    if (auto card = read_card(item)) cards.add(*card);
  }
  return cards;
}

int read_int(const Json& view, const char* field, int fallback) {
  if (!view.is_object()) return fallback;
  const auto it = view.find(field);
  if (it == view.end() || !it->is_number_integer()) return fallback;
  return it->get<int>();
}

const Json& field(const Json& object, const char* key) {
  static const Json kNull;
  if (!object.is_object()) return kNull;
  const auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

const Json& item(const Json& array, std::size_t index) {
  static const Json kNull;
  if (!array.is_array() || index >= array.size()) return kNull;
  return array[index];
}

int read_int_at(const Json& array, std::size_t index, int fallback) {
  const Json& value = item(array, index);
  return value.is_number_integer() ? value.get<int>() : fallback;
}

const Json::array_t& legal_list(const Json& prompt) {
  static const Json::array_t kEmpty;
  if (!prompt.is_object()) return kEmpty;
  const auto it = prompt.find("legal");
  if (it == prompt.end() || !it->is_array()) return kEmpty;
  return it->get_ref<const Json::array_t&>();
}

std::vector<TrickCard> read_trick(const Json& view) {
  std::vector<TrickCard> out;
  if (!view.is_object()) return out;
  const auto it = view.find("trick");
  if (it == view.end() || !it->is_array()) return out;
  for (const Json& play : *it) {
    if (!play.is_object()) continue;
    const auto card = read_card(play.value("card", Json()));
    const auto seat = play.find("seat");
    if (!card || seat == play.end() || !seat->is_number_integer()) continue;
    out.push_back({seat->get<Seat>(), *card});
  }
  return out;
}

const Json* move_with_card(const Json& prompt, const char* field, Card card) {
  for (const Json& move : legal_list(prompt)) {
    const auto it = move.find(field);
    if (it == move.end()) continue;
    if (auto c = read_card(*it); c && *c == card) return &move;
  }
  return nullptr;
}

}  // namespace parlor::bots
