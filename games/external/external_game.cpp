#include "games/external/external_game.h"

#include <algorithm>
#include <set>

#include "games/core/deck.h"

namespace parlor::external {
namespace {

// An engine must open a prompt or end the game after a few next calls with a null action
// (docs/ENGINES.md); one that never does would keep the room calling it forever. A player
// who cannot play may draw one card per call until one fits (Crazy Eights draws the whole
// stock that way), so the limit is this many calls plus one per card of the deck.
constexpr int kMaxNullCallsBeyondTheDeck = 16;

const char* action_name(Prompt::Kind kind) {
  switch (kind) {
    case Prompt::Kind::kSelect:
      return "select";
    case Prompt::Kind::kPlay:
      return "play";
    case Prompt::Kind::kDiscard:
      return "discard";
  }
  return "select";
}

bool holds(const std::vector<std::string>& cards, const std::string& card) {
  return std::find(cards.begin(), cards.end(), card) != cards.end();
}

// A positive integer field, or nullopt.
std::optional<int> count_field(const Json& event, const char* field) {
  if (!event.contains(field) || !event[field].is_number_integer()) return std::nullopt;
  const auto value = event[field].get<long long>();
  if (value < 1 || value > 1'000'000) return std::nullopt;
  return static_cast<int>(value);
}

std::optional<std::string> string_field(const Json& event, const char* field) {
  if (!event.contains(field) || !event[field].is_string()) return std::nullopt;
  return event[field].get<std::string>();
}

// A list of distinct strings, or nullopt.
std::optional<std::vector<std::string>> distinct_strings(const Json& value) {
  if (!value.is_array()) return std::nullopt;
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const Json& item : value) {
    if (!item.is_string() || !seen.insert(item.get<std::string>()).second) return std::nullopt;
    out.push_back(item.get<std::string>());
  }
  return out;
}

Json strings_json(const std::vector<std::string>& items) {
  Json out = Json::array();
  for (const auto& item : items) out.push_back(item);
  return out;
}

}  // namespace

ExternalGame::ExternalGame(std::string kind, std::shared_ptr<const EngineConfig> config,
                           std::uint64_t seed)
    : kind_(std::move(kind)),
      config_(std::move(config)),
      seed_(seed),
      hands_(static_cast<std::size_t>(config_->player_count)),
      stacks_(config_->stacks.size()),
      decorations_(static_cast<std::size_t>(config_->player_count)),
      prompts_(static_cast<std::size_t>(config_->player_count)) {
  for (const InfoSpec& line : config_->info) info_.push_back({line.id, line.label, line.value});
  shuffle_all();
}

std::string ExternalGame::player_id(Seat seat) { return "seat" + std::to_string(seat); }

void ExternalGame::shuffle_all() {
  // Each deal of a game has its own order, all of them fixed by the room's seed.
  const std::uint64_t seed = seed_ + 0x9E3779B97F4A7C15ULL * static_cast<std::uint64_t>(shuffles_);
  deck_.clear();
  for (Card card : shuffled(deck_card_set(config_->deck), seed)) deck_.push_back(card.to_string());
  discard_.clear();
  for (auto& hand : hands_) hand.clear();
  for (auto& stack : stacks_) stack.clear();
  ++shuffles_;
}

std::vector<Seat> ExternalGame::to_act() const {
  std::vector<Seat> out;
  if (finished_) return out;
  for (std::size_t s = 0; s < prompts_.size(); ++s) {
    if (prompts_[s]) out.push_back(static_cast<Seat>(s));
  }
  return out;
}

Json ExternalGame::legal_moves(Seat seat) const {
  const Json p = prompt(seat);
  if (p.is_object() && p.contains("legal")) return p["legal"];
  return Json::array();
}

Json ExternalGame::prompt(Seat seat) const {
  if (finished_ || seat < 0 || seat >= seat_count()) return nullptr;
  const auto& open = prompts_[static_cast<std::size_t>(seat)];
  if (!open) return nullptr;
  const std::string action = action_name(open->kind);
  const std::vector<std::string>& from =
      open->kind == Prompt::Kind::kDiscard ? hands_[static_cast<std::size_t>(seat)] : open->from;
  Json out = {{"actions", {action}}};
  if (open->kind == Prompt::Kind::kSelect) out["name"] = open->name;
  if (open->kind == Prompt::Kind::kPlay) out["to"] = open->to;
  if (open->count == 1) {
    Json legal = Json::array();
    for (const auto& item : from) legal.push_back({{"action", action}, {"value", {item}}});
    out["legal"] = std::move(legal);
  } else {
    out["choose"] = {{"action", action},
                     {"field", "value"},
                     {"count", open->count},
                     {"from", strings_json(from)}};
  }
  return out;
}

MoveResult ExternalGame::check_move(Seat seat, const Json& move) const {
  if (finished_) return MoveResult::rejected("game_over", "the game is over");
  if (seat < 0 || seat >= seat_count() || !prompts_[static_cast<std::size_t>(seat)]) {
    return MoveResult::rejected("not_your_turn", "you have no open prompt to answer");
  }
  const Prompt& open = *prompts_[static_cast<std::size_t>(seat)];
  const std::string action = action_name(open.kind);
  if (!move.is_object() || move.value("action", Json()) != action || !move.contains("value")) {
    return MoveResult::rejected(
        "bad_request", R"(your prompt asks for {"action":")" + action + R"(","value":[...]})");
  }
  const auto value = distinct_strings(move["value"]);
  if (!value) {
    return MoveResult::rejected("bad_request", "value must be an array of different strings");
  }
  if (static_cast<int>(value->size()) != open.count) {
    return MoveResult::rejected(
        "illegal_move", "your prompt asks for exactly " + std::to_string(open.count) + " of them");
  }
  const auto& hand = hands_[static_cast<std::size_t>(seat)];
  for (const std::string& item : *value) {
    if (open.kind != Prompt::Kind::kSelect && !holds(hand, item)) {
      return MoveResult::rejected("card_not_held", "you do not hold " + item);
    }
    if (open.kind != Prompt::Kind::kDiscard && !holds(open.from, item)) {
      return MoveResult::rejected("illegal_move",
                                  item + " is not one of the choices of your prompt");
    }
  }
  return MoveResult::accepted();
}

Json ExternalGame::next_request(const Json& action) const {
  Json players = players_;
  for (std::size_t s = 0; s < players.size(); ++s) players[s]["hand"] = strings_json(hands_[s]);
  return {{"state", engine_state_}, {"players", std::move(players)}, {"action", action}};
}

std::optional<EngineCall> ExternalGame::waiting_call() const {
  if (finished_) return std::nullopt;
  if (players_.is_null()) {
    std::string ids;
    for (Seat s = 0; s < seat_count(); ++s) ids += (s > 0 ? "," : "") + player_id(s);
    return EngineCall{false, "/init?players=" + ids, "", kEngineSeat, nullptr};
  }
  if (!to_act().empty()) return std::nullopt;
  return EngineCall{true, "/next", next_request(nullptr).dump(), kEngineSeat, nullptr};
}

std::optional<EngineCall> ExternalGame::call_for_move(Seat seat, const Json& move,
                                                      MoveResult& refusal) const {
  refusal = check_move(seat, move);
  if (!refusal.ok()) return std::nullopt;
  const Json action = {{"player", player_id(seat)}, {"value", move["value"]}};
  return EngineCall{true, "/next", next_request(action).dump(), seat, move};
}

Json ExternalGame::answered(const EngineCall& call, Json answer) {
  if (!call.post) return {{"call", "init"}, {"answer", std::move(answer)}};
  return {{"call", "next"}, {"action", call.move}, {"answer", std::move(answer)}};
}

MoveResult ExternalGame::apply(Seat seat, const Json& move) {
  if (!move.is_object() || !move.contains("answer") || !move.contains("call")) {
    return MoveResult::rejected("bad_request",
                                "moves of this game are answered by its engine first");
  }
  ExternalGame next = *this;  // every check passes before anything changes
  MoveResult result = move["call"] == "init" && seat == kEngineSeat
                          ? next.apply_init(move["answer"])
                      : move["call"] == "next" && move.contains("action")
                          ? next.apply_next(seat, move["action"], move["answer"])
                          : MoveResult::rejected("bad_request", "not a move of this game");
  if (result.ok()) *this = std::move(next);
  return result;
}

MoveResult ExternalGame::apply_init(const Json& answer) {
  if (!players_.is_null()) return MoveResult::rejected(kBadAnswerCode, "init answered twice");
  if (!answer.is_object() || !answer.contains("players") || !answer["players"].is_array() ||
      !answer.contains("state") || !answer["state"].is_object() ||
      !answer["state"].contains("phase") || !answer["state"]["phase"].is_string()) {
    return MoveResult::rejected(kBadAnswerCode,
                                R"(init must answer {"players":[...],"state":{"phase":...}})");
  }
  const Json& players = answer["players"];
  if (static_cast<int>(players.size()) != seat_count()) {
    return MoveResult::rejected(kBadAnswerCode, "init answered " + std::to_string(players.size()) +
                                                    " players for " + std::to_string(seat_count()) +
                                                    " seats");
  }
  for (Seat s = 0; s < seat_count(); ++s) {
    const Json& p = players[static_cast<std::size_t>(s)];
    if (!p.is_object() || p.value("id", Json()) != player_id(s) || !p.contains("team") ||
        !p["team"].is_number_integer()) {
      return MoveResult::rejected(kBadAnswerCode, "init's players[" + std::to_string(s) +
                                                      R"(] must be {"id":")" + player_id(s) +
                                                      R"(","team":INTEGER,...})");
    }
  }
  players_ = players;
  for (Json& p : players_) p.erase("hand");  // hands are the server's, set on every call
  engine_state_ = answer["state"];
  phase_ = engine_state_["phase"].get<std::string>();
  Json events = Json::array();
  events.push_back({{"type", "engine_ready"}});
  return MoveResult::accepted(std::move(events));
}

MoveResult ExternalGame::apply_next(Seat seat, const Json& action, const Json& answer) {
  if (players_.is_null()) return MoveResult::rejected(kBadAnswerCode, "next before init");
  if (finished_) return MoveResult::rejected("game_over", "the game is over");
  Json events = Json::array();
  if (action.is_null()) {
    if (seat != kEngineSeat || !to_act().empty()) {
      return MoveResult::rejected("bad_request", "a null action while a prompt is open");
    }
    const int limit = kMaxNullCallsBeyondTheDeck + deck_card_set(config_->deck).size();
    if (++null_calls_ > limit) {
      return MoveResult::rejected(kBadAnswerCode, "the engine opened no prompt in " +
                                                      std::to_string(limit) + " calls in a row");
    }
  } else {
    if (MoveResult check = check_move(seat, action); !check.ok()) return check;
    null_calls_ = 0;
  }
  if (!answer.is_array() || answer.size() != 2 || !answer[0].is_object() ||
      !answer[0].contains("phase") || !answer[0]["phase"].is_string() || !answer[1].is_array()) {
    return MoveResult::rejected(kBadAnswerCode,
                                "next must answer [new_state, events] with a string "
                                "new_state.phase and an array of events");
  }
  if (!action.is_null()) {
    // The answered prompt is carried out first: its cards move, and it closes.
    const Prompt open = *prompts_[static_cast<std::size_t>(seat)];
    auto& hand = hands_[static_cast<std::size_t>(seat)];
    std::vector<std::string> value = action["value"].get<std::vector<std::string>>();
    Json shown = {{"type", action_name(open.kind)}, {"seat", seat}};
    if (open.kind != Prompt::Kind::kSelect) {
      for (const auto& card : value) hand.erase(std::find(hand.begin(), hand.end(), card));
    }
    if (open.kind == Prompt::Kind::kPlay) {
      const auto it = std::find_if(config_->stacks.begin(), config_->stacks.end(),
                                   [&](const StackSpec& s) { return s.id == open.to; });
      auto& stack = stacks_[static_cast<std::size_t>(it - config_->stacks.begin())];
      stack.insert(stack.end(), value.begin(), value.end());
      shown["to"] = open.to;
      shown["cards"] = strings_json(value);
    } else if (open.kind == Prompt::Kind::kDiscard) {
      discard_.insert(discard_.end(), value.begin(), value.end());
      shown["count"] = value.size();
    } else {
      shown["name"] = open.name;
      shown["value"] = strings_json(value);
    }
    prompts_[static_cast<std::size_t>(seat)].reset();
    events.push_back(std::move(shown));
  }
  const Json& list = answer[1];
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (finished_) {
      return MoveResult::rejected(
          kBadAnswerCode, "event " + std::to_string(i) + " comes after end_game, the last event");
    }
    if (std::string fault = carry_out(list[i], events); !fault.empty()) {
      // The faulty event may be anything, its type too (value() would throw on a non-object
      // or a type that is not a string).
      const Json& event = list[i];
      const bool named = event.is_object() && event.contains("type") && event["type"].is_string();
      return MoveResult::rejected(
          kBadAnswerCode, "event " + std::to_string(i) + " (" +
                              (named ? event["type"].get<std::string>() : "?") + "): " + fault);
    }
  }
  engine_state_ = answer[0];
  phase_ = engine_state_["phase"].get<std::string>();
  return MoveResult::accepted(std::move(events));
}

std::optional<Seat> ExternalGame::seat_of_player(const Json& id) const {
  if (!id.is_string()) return std::nullopt;
  for (Seat s = 0; s < seat_count(); ++s) {
    if (id == player_id(s)) return s;
  }
  return std::nullopt;
}

std::string ExternalGame::carry_out(const Json& event, Json& events) {
  if (!event.is_object() || !event.contains("type") || !event["type"].is_string()) {
    return "an event must be an object with a string type";
  }
  const std::string type = event["type"].get<std::string>();
  const auto needs_player = [&]() -> std::optional<Seat> {
    return seat_of_player(event.value("player", Json()));
  };
  if (type == "draw") {
    const auto seat = needs_player();
    const auto count = count_field(event, "count");
    if (!seat) return "player " + event.value("player", Json()).dump() + " is not in this game";
    if (!count) return "count must be a positive integer";
    if (static_cast<std::size_t>(*count) > deck_.size()) {
      return "draws " + std::to_string(*count) + " cards but the deck holds " +
             std::to_string(deck_.size());
    }
    auto& hand = hands_[static_cast<std::size_t>(*seat)];
    for (int i = 0; i < *count; ++i) {
      hand.push_back(deck_.back());
      deck_.pop_back();
    }
    events.push_back({{"type", "draw"}, {"seat", *seat}, {"count", *count}});
    return {};
  }
  if (type == "shuffle") {
    if (!to_act().empty()) return "a shuffle while a prompt is open";
    shuffle_all();
    events.push_back({{"type", "deal"}});
    return {};
  }
  if (type == "prompt_select" || type == "prompt_play" || type == "prompt_discard") {
    const auto seat = needs_player();
    const auto count = count_field(event, "count");
    if (!seat) return "player " + event.value("player", Json()).dump() + " is not in this game";
    if (!count) return "count must be a positive integer";
    if (prompts_[static_cast<std::size_t>(*seat)]) {
      return "player " + player_id(*seat) + " already holds an open prompt";
    }
    const auto& hand = hands_[static_cast<std::size_t>(*seat)];
    Prompt open;
    open.count = *count;
    if (type == "prompt_discard") {
      open.kind = Prompt::Kind::kDiscard;
      if (static_cast<std::size_t>(*count) > hand.size()) {
        return "asks for " + std::to_string(*count) + " cards of a hand of " +
               std::to_string(hand.size());
      }
    } else {
      const auto from = distinct_strings(event.value("from", Json()));
      if (!from || from->empty()) return "from must be a non-empty array of different strings";
      if (static_cast<std::size_t>(*count) > from->size()) {
        return "asks for " + std::to_string(*count) + " of " + std::to_string(from->size()) +
               " choices";
      }
      open.from = *from;
      if (type == "prompt_select") {
        open.kind = Prompt::Kind::kSelect;
        const auto name = string_field(event, "name");
        if (!name) return "name must be a string";
        open.name = *name;
      } else {
        open.kind = Prompt::Kind::kPlay;
        const auto to = string_field(event, "to");
        const auto stack = std::find_if(config_->stacks.begin(), config_->stacks.end(),
                                        [&](const StackSpec& s) { return to && s.id == *to; });
        if (stack == config_->stacks.end()) return "to names no stack of the config";
        open.to = *to;
        for (const auto& card : open.from) {
          // The card itself stays out of the message: it goes to the operator's log, and
          // the card may be in another player's hand.
          if (!holds(hand, card)) return "from lists a card the player does not hold";
        }
      }
    }
    null_calls_ = 0;
    events.push_back({{"type", "prompt"}, {"seat", *seat}, {"action", action_name(open.kind)}});
    prompts_[static_cast<std::size_t>(*seat)] = std::move(open);
    return {};
  }
  if (type == "add_decoration" || type == "clear_decoration") {
    const auto seat = needs_player();
    const auto name = string_field(event, "name");
    if (!seat) return "player " + event.value("player", Json()).dump() + " is not in this game";
    if (!name) return "name must be a string";
    auto& marks = decorations_[static_cast<std::size_t>(*seat)];
    if (type == "clear_decoration") {
      marks.erase(*name);
      events.push_back({{"type", type}, {"seat", *seat}, {"name", *name}});
      return {};
    }
    const auto value = string_field(event, "value");
    if (!value) return "value must be a string";
    marks[*name] = *value;
    events.push_back({{"type", type}, {"seat", *seat}, {"name", *name}, {"value", *value}});
    return {};
  }
  if (type == "add_info" || type == "set_info") {
    const auto id = string_field(event, "id");
    if (!id || id->empty()) return "id must be a non-empty string";
    auto line =
        std::find_if(info_.begin(), info_.end(), [&](const InfoLine& l) { return l.id == *id; });
    if (type == "add_info") {
      const auto label = string_field(event, "label");
      if (!label) return "label must be a string";
      if (line != info_.end()) return "info line " + *id + " exists already";
      info_.push_back({*id, *label, ""});
      events.push_back({{"type", type}, {"id", *id}, {"label", *label}});
      return {};
    }
    if (line == info_.end()) return "no info line " + *id;
    if (!event.contains("value") ||
        (!event["value"].is_string() && !event["value"].is_number_integer())) {
      return "value must be a string or an integer";
    }
    line->value = event["value"];
    events.push_back({{"type", type}, {"id", *id}, {"value", event["value"]}});
    return {};
  }
  if (type == "end_game") {
    if (!event.contains("scores") || !event["scores"].is_object())
      return "scores must be an object";
    std::vector<long long> scores;
    for (Seat s = 0; s < seat_count(); ++s) {
      const Json score = event["scores"].value(player_id(s), Json());
      if (!score.is_number_integer()) return "scores has no integer for " + player_id(s);
      scores.push_back(score.get<long long>());
    }
    if (event["scores"].size() != scores.size()) return "scores names a player not in this game";
    scores_ = std::move(scores);
    finished_ = true;
    for (auto& open : prompts_) open.reset();  // open prompts close with the game
    events.push_back({{"type", "end_game"}, {"scores", scores_}});
    return {};
  }
  return "no event type " + type;
}

Json ExternalGame::view(Seat seat) const {
  Json players = Json::array();
  for (Seat s = 0; s < seat_count(); ++s) {
    const auto index = static_cast<std::size_t>(s);
    Json marks = Json::object();
    for (const auto& [name, value] : decorations_[index]) marks[name] = value;
    players.push_back({{"seat", s},
                       {"team", players_.is_null() ? Json(nullptr) : players_[index]["team"]},
                       {"cards", hands_[index].size()},
                       {"decorations", std::move(marks)},
                       {"prompted", !finished_ && prompts_[index].has_value()}});
  }
  Json stacks = Json::array();
  for (std::size_t i = 0; i < stacks_.size(); ++i) {
    const StackSpec& spec = config_->stacks[i];
    stacks.push_back({{"id", spec.id},
                      {"label", spec.label},
                      {"orientation", spec.orientation},
                      {"alignment", spec.alignment},
                      {"max_size", spec.max_size},
                      {"cards", strings_json(stacks_[i])}});
  }
  Json info = Json::array();
  for (const InfoLine& line : info_) {
    info.push_back({{"id", line.id}, {"label", line.label}, {"value", line.value}});
  }
  Json out = {
      {"phase", phase_},         {"players", std::move(players)}, {"stacks", std::move(stacks)},
      {"info", std::move(info)}, {"deck", deck_.size()},          {"discard", discard_.size()},
      {"finished", finished_}};
  if (seat >= 0 && seat < seat_count()) {
    out["hand"] = strings_json(hands_[static_cast<std::size_t>(seat)]);
  }
  return out;
}

Json ExternalGame::result() const {
  if (!finished_) return nullptr;
  const long long best = *std::max_element(scores_.begin(), scores_.end());
  Json winners = Json::array();
  for (std::size_t s = 0; s < scores_.size(); ++s) {
    if (scores_[s] == best) winners.push_back(s);
  }
  return {{"scores", scores_}, {"winners", std::move(winners)}};
}

Json ExternalGame::full_state() const {
  Json hands = Json::array();
  for (const auto& hand : hands_) hands.push_back(strings_json(hand));
  Json prompts = Json::array();
  for (Seat s = 0; s < seat_count(); ++s) prompts.push_back(prompt(s));
  Json out = view(kSpectator);
  out["seed"] = seed_;
  out["shuffles"] = shuffles_;
  out["deck_cards"] = strings_json(deck_);
  out["discard_cards"] = strings_json(discard_);
  out["hands"] = std::move(hands);
  out["prompts"] = std::move(prompts);
  return out;
}

std::uint64_t ExternalGame::state_hash() const {
  // The engine's state is part of the game (it decides what comes next) but not of
  // full_state, which replays reveal to players.
  return stable_hash(full_state().dump() + engine_state_.dump() + players_.dump());
}

GameInfo external_game_info(const std::string& name,
                            const std::shared_ptr<const EngineConfig>& config) {
  GameInfo info;
  info.kind = name;
  info.name = name;
  info.description = "A game played by the rules engine registered as " + name + ".";
  info.rules_url = "";
  info.min_seats = info.max_seats = info.default_seats = config->player_count;
  info.create = [name, config](const Json&, int, std::uint64_t seed) -> std::unique_ptr<Game> {
    return std::make_unique<ExternalGame>(name, config, seed);
  };
  return info;
}

}  // namespace parlor::external
