#include "games/external/engine_config.h"

#include <set>

#include "games/core/deck.h"

namespace parlor::external {
namespace {

constexpr int kMaxPlayers = 16;  // a seat count a room can hold
constexpr int kMaxStacks = 64;
constexpr int kMaxInfo = 64;

bool is_string_field(const Json& object, const char* field) {
  return object.contains(field) && object[field].is_string() &&
         !object[field].get_ref<const std::string&>().empty();
}

}  // namespace

CardSet deck_card_set(const std::string& deck) {
  return deck == "52JJ" ? deck_with_jokers() : standard_deck();
}

std::vector<std::string> deck_cards(const std::string& deck) {
  std::vector<std::string> out;
  for (Card card : deck_card_set(deck)) out.push_back(card.to_string());
  return out;
}

std::optional<EngineConfig> parse_engine_config(const Json& answer, std::string& error) {
  if (!answer.is_object()) {
    error = "config is not a JSON object";
    return std::nullopt;
  }
  EngineConfig config;
  if (!answer.contains("deck") || !answer["deck"].is_string() ||
      (answer["deck"] != "52" && answer["deck"] != "52JJ")) {
    error = R"(config.deck must be "52" or "52JJ")";
    return std::nullopt;
  }
  config.deck = answer["deck"].get<std::string>();
  if (!answer.contains("player_count") || !answer["player_count"].is_number_integer() ||
      answer["player_count"].get<int>() < 1 || answer["player_count"].get<int>() > kMaxPlayers) {
    error = "config.player_count must be an integer from 1 to " + std::to_string(kMaxPlayers);
    return std::nullopt;
  }
  config.player_count = answer["player_count"].get<int>();

  const Json stacks = answer.value("stacks", Json::array());
  if (!stacks.is_array() || stacks.size() > kMaxStacks) {
    error = "config.stacks must be an array of at most " + std::to_string(kMaxStacks) + " stacks";
    return std::nullopt;
  }
  std::set<std::string> stack_ids;
  for (std::size_t i = 0; i < stacks.size(); ++i) {
    const Json& s = stacks[i];
    const std::string where = "config.stacks[" + std::to_string(i) + "]";
    if (!s.is_object() || !is_string_field(s, "id") || !is_string_field(s, "label")) {
      error = where + " must be an object with a non-empty string id and label";
      return std::nullopt;
    }
    // Read as JSON first: an engine may send any type, and a number is an error to name, not
    // an exception.
    const Json orientation = s.value("orientation", Json("horizontal"));
    const Json alignment = s.value("alignment", Json("center"));
    StackSpec spec{s["id"].get<std::string>(), s["label"].get<std::string>(), "", "", 0};
    if (!stack_ids.insert(spec.id).second) {
      error = where + ".id \"" + spec.id + "\" is used twice";
      return std::nullopt;
    }
    if (orientation != "horizontal" && orientation != "vertical") {
      error = where + R"(.orientation must be "horizontal" or "vertical")";
      return std::nullopt;
    }
    if (alignment != "start" && alignment != "center" && alignment != "end") {
      error = where + R"(.alignment must be "start", "center" or "end")";
      return std::nullopt;
    }
    spec.orientation = orientation.get<std::string>();
    spec.alignment = alignment.get<std::string>();
    if (!s.contains("max-size") || !s["max-size"].is_number_integer() ||
        s["max-size"].get<int>() < 1) {
      error = where + ".max-size must be a positive integer";
      return std::nullopt;
    }
    spec.max_size = s["max-size"].get<int>();
    config.stacks.push_back(std::move(spec));
  }

  const Json info = answer.value("info", Json::array());
  if (!info.is_array() || info.size() > kMaxInfo) {
    error = "config.info must be an array of at most " + std::to_string(kMaxInfo) + " lines";
    return std::nullopt;
  }
  std::set<std::string> info_ids;
  for (std::size_t i = 0; i < info.size(); ++i) {
    const Json& line = info[i];
    const std::string where = "config.info[" + std::to_string(i) + "]";
    if (!line.is_object() || !is_string_field(line, "id") || !is_string_field(line, "label")) {
      error = where + " must be an object with a non-empty string id and label";
      return std::nullopt;
    }
    const Json value = line.value("value", Json(""));
    if (!value.is_string() && !value.is_number_integer()) {
      error = where + ".value must be a string or an integer";
      return std::nullopt;
    }
    if (!info_ids.insert(line["id"].get<std::string>()).second) {
      error = where + ".id \"" + line["id"].get<std::string>() + "\" is used twice";
      return std::nullopt;
    }
    config.info.push_back({line["id"].get<std::string>(), line["label"].get<std::string>(), value});
  }
  return config;
}

}  // namespace parlor::external
