#include "games/splendor/splendor.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <string>

#include "games/core/json_text.h"
#include "games/core/state_fields.h"

namespace parlor {
namespace splendor {
namespace {

MoveResult rejected(const char* code, std::string message) {
  return MoveResult::rejected(code, std::move(message));
}

// A short quotation of client input for a message: never the whole of an abusive value.
std::string quote(const Json& value) {
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() <= 24) return text;
  // Cut on a UTF-8 character boundary: the message is sent as JSON, which must stay valid.
  std::size_t cut = 21;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0U) == 0x80U) --cut;
  return text.substr(0, cut) + "...";
}

// The first key of `move` other than "action" and `allowed`, if any.
std::optional<std::string> unexpected_field(const Json& move,
                                            std::initializer_list<std::string_view> allowed) {
  for (const auto& [key, value] : move.items()) {
    if (key == "action") continue;
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      return "unexpected field " + quote(Json(key)) + " in this move";
    }
  }
  return std::nullopt;
}

// An integer in [lo, hi], or nullopt for anything else (wrong type, out of range).
std::optional<int> int_in(const Json& value, int lo, int hi) {
  if (!value.is_number_integer()) return std::nullopt;
  if (value.is_number_unsigned()) {
    // Parsed JSON stores non-negative integers as unsigned: the lower bound applies here too.
    const auto u = value.get<std::uint64_t>();
    if (u < static_cast<std::uint64_t>(lo) || u > static_cast<std::uint64_t>(hi)) {
      return std::nullopt;
    }
    return static_cast<int>(u);
  }
  const auto v = value.get<std::int64_t>();
  if (v < lo || v > hi) return std::nullopt;
  return static_cast<int>(v);
}

// "3 red, 1 black" (or "nothing").
std::string describe(const Tokens& tokens) {
  std::string out;
  for (int t = 0; t < kTokenKinds; ++t) {
    if (tokens[at(t)] == 0) continue;
    if (!out.empty()) out += ", ";
    out += std::to_string(tokens[at(t)]) + " " + std::string(token_name(t));
  }
  return out.empty() ? "nothing" : out;
}

std::string describe(const Gems& gems) {
  Tokens tokens{};
  std::copy(gems.begin(), gems.end(), tokens.begin());
  return describe(tokens);
}

// Token (or gem) indices in the order of their names: the order of an object's keys.
const std::array<int, kTokenKinds>& token_order() {
  static const std::array<int, kTokenKinds> order = [] {
    std::array<int, kTokenKinds> tokens{};
    for (int t = 0; t < kTokenKinds; ++t) tokens[at(t)] = t;
    std::sort(tokens.begin(), tokens.end(),
              [](int a, int b) { return token_name(a) < token_name(b); });
    return tokens;
  }();
  return order;
}

// {name: count} for the first N token kinds, keys inserted in their order (views are built for
// every seat after every move).
template <std::size_t N>
Json counts_json(const std::array<int, N>& counts) {
  Json out(Json::value_t::object);
  auto& fields = out.get_ref<Json::object_t&>();
  for (int t : token_order()) {
    if (t < static_cast<int>(N)) fields.emplace_hint(fields.end(), token_name(t), counts[at(t)]);
  }
  return out;
}

// Every token kind, zeros included: what a client draws as stacks.
Json all_tokens_json(const Tokens& tokens) { return counts_json(tokens); }

Json all_gems_json(const Gems& gems) { return counts_json(gems); }

// {"action":ACTION, FIELD:VALUE}.
Json make_move(const char* action, const char* field, Json value) {
  Json move = Json::object();
  move["action"] = action;
  move[field] = std::move(value);
  return move;
}

const char* phase_name(Phase phase) {
  switch (phase) {
    case Phase::kPlay:
      return "play";
    case Phase::kReturn:
      return "return";
    case Phase::kNoble:
      return "noble";
    case Phase::kFinished:
      return "finished";
  }
  return "finished";
}

}  // namespace

SplendorGame::SplendorGame(int seats, std::uint64_t seed) : state_(initial_state(seats, seed)) {}

SplendorGame::SplendorGame(State state) : state_(std::move(state)) {}

std::vector<Seat> SplendorGame::to_act() const {
  if (finished()) return {};
  return {state_.current};
}

int SplendorGame::excess_tokens() const {
  return std::max(0, state_.player(state_.current).token_count() - kMaxTokens);
}

std::vector<int> SplendorGame::qualifying_nobles() const {
  std::vector<int> out;
  const PlayerState& me = state_.player(state_.current);
  for (int noble : state_.nobles) {
    if (qualifies(me, noble_def(noble))) out.push_back(noble);
  }
  return out;
}

SplendorGame::Located SplendorGame::locate(int card) const {
  if (card <= 0) return {};  // 0 marks an empty slot, never a card
  for (int level = 0; level < kLevels; ++level) {
    for (int slot = 0; slot < kSlotsPerLevel; ++slot) {
      if (state_.rows[at(level)][at(slot)] == card) return {Where::kTable, level, slot};
    }
  }
  const auto& reserved = state_.player(state_.current).reserved;
  for (std::size_t i = 0; i < reserved.size(); ++i) {
    if (reserved[i].card == card) return {Where::kReserve, 0, static_cast<int>(i)};
  }
  return {};
}

Json SplendorGame::legal_play_moves() const {
  Json moves = Json::array();
  const PlayerState& me = state_.player(state_.current);
  for (const auto& take : take_options(state_.bank)) {
    Json gems = Json::array();
    for (int c : take) gems.push_back(token_name(c));
    moves.push_back(make_move("take", "gems", std::move(gems)));
  }
  if (me.reserved.size() < at(kMaxReserved)) {
    for (const auto& row : state_.rows) {
      for (int card : row) {
        if (card != 0) moves.push_back(make_move("reserve", "card", card));
      }
    }
    for (int level = 0; level < kLevels; ++level) {
      if (!state_.decks[at(level)].empty()) {
        moves.push_back(make_move("reserve", "level", level + 1));
      }
    }
  }
  auto add_buys = [&](int card) {
    const Price price = price_for(me, card_def(card));
    if (!price.affordable) return;
    moves.push_back(make_move("buy", "card", card));
    for (const Gems& gold : extra_gold_choices(price, me.tokens[at(kGold)])) {
      Json move = make_move("buy", "card", card);
      move["gold"] = gems_json(gold);
      moves.push_back(std::move(move));
    }
  };
  for (const auto& row : state_.rows) {
    for (int card : row) {
      if (card != 0) add_buys(card);
    }
  }
  for (const ReservedCard& r : me.reserved) add_buys(r.card);
  if (moves.empty()) {
    Json pass = Json::object();
    pass["action"] = "pass";
    moves.push_back(std::move(pass));
  }
  return moves;
}

Json SplendorGame::legal_moves(Seat seat) const {
  if (finished() || seat != state_.current) return Json::array();
  switch (state_.phase) {
    case Phase::kPlay:
      return legal_play_moves();
    case Phase::kReturn: {
      Json moves = Json::array();
      for (const Tokens& gems : return_options(state_.player(seat).tokens, excess_tokens())) {
        moves.push_back(make_move("return", "gems", tokens_json(gems)));
      }
      return moves;
    }
    case Phase::kNoble: {
      Json moves = Json::array();
      for (int noble : qualifying_nobles()) {
        moves.push_back(make_move("noble", "noble", noble));
      }
      return moves;
    }
    case Phase::kFinished:
      break;
  }
  return Json::array();
}

Json SplendorGame::prompt(Seat seat) const {
  if (finished() || seat != state_.current) return nullptr;
  Json legal = legal_moves(seat);
  Json actions = Json::array();
  for (const Json& move : legal) {
    // Legal moves come grouped by action.
    if (actions.empty() || actions.back() != move["action"]) actions.push_back(move["action"]);
  }
  return {{"actions", std::move(actions)}, {"legal", std::move(legal)}};
}

MoveResult SplendorGame::apply(Seat seat, const Json& move) {
  if (finished()) return rejected("game_over", "the game is over");
  if (seat != state_.current) {
    return rejected("not_your_turn",
                    "it is seat " + std::to_string(state_.current) + "'s turn, not yours");
  }
  if (!move.is_object() || !move.contains("action") || !move["action"].is_string()) {
    return rejected("bad_move", "a move is an object with a string \"action\"");
  }
  const auto& action = move["action"].get_ref<const std::string&>();
  const bool play_action =
      action == "take" || action == "reserve" || action == "buy" || action == "pass";
  if (!play_action && action != "return" && action != "noble") {
    return rejected("unknown_action", "unknown action " + quote(move["action"]) +
                                          "; expected take, reserve, buy, pass, return or noble");
  }
  if (state_.phase == Phase::kReturn && action != "return") {
    return rejected("must_return_tokens", "you hold " +
                                              std::to_string(state_.player(seat).token_count()) +
                                              " tokens: return " + std::to_string(excess_tokens()) +
                                              R"( first ({"action":"return","gems":{...}}))");
  }
  if (state_.phase == Phase::kNoble && action != "noble") {
    return rejected(
        "must_choose_noble",
        R"(several nobles would visit you: choose one first ({"action":"noble","noble":ID}))");
  }
  if (state_.phase == Phase::kPlay && !play_action) {
    return rejected("wrong_phase",
                    "there is nothing to " + action + " now: take gems, reserve or buy a card");
  }
  if (action == "take") return apply_take(move);
  if (action == "reserve") return apply_reserve(move);
  if (action == "buy") return apply_buy(move);
  if (action == "return") return apply_return(move);
  if (action == "noble") return apply_noble(move);
  if (auto bad = unexpected_field(move, {})) return rejected("bad_move", *bad);
  return apply_pass();
}

MoveResult SplendorGame::apply_take(const Json& move) {
  if (auto bad = unexpected_field(move, {"gems"})) return rejected("bad_move", *bad);
  const auto gems = move.find("gems");
  if (gems == move.end() || !gems->is_array() || gems->empty() || gems->size() > 3) {
    return rejected("bad_move",
                    "take needs \"gems\": 1 to 3 colour names, e.g. [\"white\",\"blue\",\"red\"] "
                    "or [\"green\",\"green\"]");
  }
  Gems count{};
  for (const Json& gem : *gems) {
    const auto token =
        gem.is_string() ? token_from_name(gem.get_ref<const std::string&>()) : std::nullopt;
    if (!token) {
      return rejected("unknown_color", quote(gem) +
                                           " is not a gem colour: use white, blue, green, red "
                                           "or black");
    }
    if (*token == kGold) {
      return rejected("cannot_take_gold", "gold cannot be taken: you get gold by reserving a card");
    }
    ++count[at(*token)];
  }
  const auto most = std::max_element(count.begin(), count.end());
  if (*most >= 2) {
    const int color = static_cast<int>(most - count.begin());
    const std::string name(token_name(color));
    if (gems->size() != 2) {
      return rejected("bad_take",
                      "take three gems of different colours, or exactly two of one colour");
    }
    if (state_.bank[at(color)] < kMinStackForTwo) {
      return rejected("stack_too_small",
                      "two " + name + " gems can be taken only from a stack of at least 4; the " +
                          name + " stack has " + std::to_string(state_.bank[at(color)]));
    }
  } else {
    int available = 0;
    for (int c = 0; c < kColorCount; ++c) {
      if (count[at(c)] > 0 && state_.bank[at(c)] == 0) {
        return rejected("not_enough_gems",
                        "there are no " + std::string(token_name(c)) + " gems left");
      }
      if (state_.bank[at(c)] > 0) ++available;
    }
    const int required = std::min(3, available);
    if (static_cast<int>(gems->size()) < required) {
      return rejected("too_few_gems", std::to_string(available) +
                                          " colours are still available: take " +
                                          std::to_string(required) + " gems of different colours");
    }
  }
  PlayerState& me = state_.player(state_.current);
  for (int c = 0; c < kColorCount; ++c) {
    state_.bank[at(c)] -= count[at(c)];
    me.tokens[at(c)] += count[at(c)];
  }
  state_.passes = 0;
  Json events = Json::array();
  events.push_back({{"type", "take"}, {"seat", state_.current}, {"gems", gems_json(count)}});
  end_of_action(events);
  return MoveResult::accepted(std::move(events));
}

MoveResult SplendorGame::apply_reserve(const Json& move) {
  if (auto bad = unexpected_field(move, {"card", "level"})) return rejected("bad_move", *bad);
  const bool by_card = move.contains("card");
  if (by_card == move.contains("level")) {
    return rejected("bad_move",
                    "reserve needs either \"card\" (a face-up card's id) or \"level\" (1-3, the "
                    "top of that deck, unseen)");
  }
  PlayerState& me = state_.player(state_.current);
  Located where;
  int level = 0;
  if (by_card) {
    const auto card = int_in(move["card"], 1, kCardCount);
    if (!card) {
      return rejected("unknown_card",
                      "there is no card " + quote(move["card"]) + "; cards are numbered 1 to 90");
    }
    where = locate(*card);
    if (where.where != Where::kTable) {
      return rejected("card_not_available",
                      "card " + std::to_string(*card) + " is not face up on the table");
    }
  } else {
    const auto chosen = int_in(move["level"], 1, kLevels);
    if (!chosen) return rejected("bad_level", "level must be 1, 2 or 3");
    level = *chosen;
  }
  if (me.reserved.size() >= at(kMaxReserved)) {
    return rejected("too_many_reserved",
                    "you already hold 3 reserved cards, the most allowed: buy one first");
  }
  if (!by_card && state_.decks[at(level - 1)].empty()) {
    return rejected("empty_deck", "the level " + std::to_string(level) + " deck is empty");
  }
  const int gold = state_.bank[at(kGold)] > 0 ? 1 : 0;
  state_.bank[at(kGold)] -= gold;
  me.tokens[at(kGold)] += gold;
  state_.passes = 0;
  Json events = Json::array();
  if (by_card) {
    const int card = state_.rows[at(where.level)][at(where.index)];
    me.reserved.push_back({card, false});
    events.push_back(
        {{"type", "reserve"}, {"seat", state_.current}, {"card", card}, {"gold", gold}});
    take_from_table(where, events);
  } else {
    auto& deck = state_.decks[at(level - 1)];
    me.reserved.push_back({deck.back(), true});
    deck.pop_back();
    // The card itself stays secret: only its level is public.
    events.push_back(
        {{"type", "reserve"}, {"seat", state_.current}, {"level", level}, {"gold", gold}});
  }
  end_of_action(events);
  return MoveResult::accepted(std::move(events));
}

MoveResult SplendorGame::apply_buy(const Json& move) {
  if (auto bad = unexpected_field(move, {"card", "gold"})) return rejected("bad_move", *bad);
  if (!move.contains("card")) return rejected("bad_move", "buy needs \"card\": a card id");
  const auto card = int_in(move["card"], 1, kCardCount);
  if (!card) {
    return rejected("unknown_card",
                    "there is no card " + quote(move["card"]) + "; cards are numbered 1 to 90");
  }
  const Located where = locate(*card);
  if (where.where == Where::kNowhere) {
    return rejected("card_not_available",
                    "card " + std::to_string(*card) + " is neither face up nor in your reserve");
  }
  PlayerState& me = state_.player(state_.current);
  const CardDef& def = card_def(*card);
  const Price price = price_for(me, def);
  if (!price.affordable) {
    return rejected("cannot_afford", "you cannot afford card " + std::to_string(*card) +
                                         ": after your bonuses it costs " + describe(price.need) +
                                         "; gold would have to cover " +
                                         std::to_string(price.gold_needed) + " and you hold " +
                                         std::to_string(me.tokens[at(kGold)]) + " gold");
  }
  Gems gold = price.shortfall;
  if (move.contains("gold")) {
    const Json& given = move["gold"];
    if (!given.is_object() || given.empty()) {
      return rejected("bad_payment",
                      "\"gold\" is an object: colour -> how many gold stand in for it");
    }
    gold = {};
    for (const auto& [name, count] : given.items()) {
      const auto color = token_from_name(name);
      if (!color || *color == kGold) {
        return rejected("bad_payment", quote(Json(name)) + " is not a gem colour gold can replace");
      }
      const auto n = int_in(count, 1, kGoldTokens);
      if (!n) {
        return rejected("bad_payment", "gold for " + name + " must be a whole number from 1 to 5");
      }
      gold[at(*color)] = *n;
    }
    if (auto error = gold_choice_error(price, gold, me.tokens[at(kGold)])) {
      return rejected("bad_payment", *error);
    }
  }
  const Tokens paid = payment_tokens(price, gold);
  for (int t = 0; t < kTokenKinds; ++t) {
    me.tokens[at(t)] -= paid[at(t)];
    state_.bank[at(t)] += paid[at(t)];
  }
  me.bought.push_back(*card);
  ++me.bonuses[at(def.bonus)];
  me.points += def.points;
  state_.passes = 0;
  Json events = Json::array();
  events.push_back({{"type", "buy"},
                    {"seat", state_.current},
                    {"card", *card},
                    {"from", where.where == Where::kTable ? "table" : "reserve"},
                    {"paid", tokens_json(paid)}});
  if (where.where == Where::kTable) {
    take_from_table(where, events);
  } else {
    me.reserved.erase(me.reserved.begin() + where.index);
  }
  end_of_action(events);
  return MoveResult::accepted(std::move(events));
}

MoveResult SplendorGame::apply_return(const Json& move) {
  if (auto bad = unexpected_field(move, {"gems"})) return rejected("bad_move", *bad);
  PlayerState& me = state_.player(state_.current);
  const int excess = excess_tokens();
  const std::string must = "you hold " + std::to_string(me.token_count()) +
                           " tokens: return exactly " + std::to_string(excess);
  const auto gems = move.find("gems");
  if (gems == move.end() || !gems->is_object() || gems->empty()) {
    return rejected("bad_move",
                    "return needs \"gems\": an object colour -> count, e.g. "
                    "{\"red\":1,\"gold\":1}; " +
                        must);
  }
  Tokens back{};
  int total = 0;
  for (const auto& [name, count] : gems->items()) {
    const auto token = token_from_name(name);
    if (!token) {
      return rejected("unknown_color", quote(Json(name)) + " is not a token colour");
    }
    const auto n = int_in(count, 1, kMaxTokens);
    if (!n) return rejected("bad_return", "the count for " + name + " must be 1 or more");
    if (*n > me.tokens[at(*token)]) {
      return rejected("bad_return",
                      "you hold only " + std::to_string(me.tokens[at(*token)]) + " " + name);
    }
    back[at(*token)] = *n;
    total += *n;
  }
  if (total != excess) return rejected("bad_return", must);
  for (int t = 0; t < kTokenKinds; ++t) {
    me.tokens[at(t)] -= back[at(t)];
    state_.bank[at(t)] += back[at(t)];
  }
  Json events = Json::array();
  events.push_back({{"type", "return"}, {"seat", state_.current}, {"gems", tokens_json(back)}});
  end_of_action(events);
  return MoveResult::accepted(std::move(events));
}

MoveResult SplendorGame::apply_noble(const Json& move) {
  if (auto bad = unexpected_field(move, {"noble"})) return rejected("bad_move", *bad);
  if (!move.contains("noble")) return rejected("bad_move", "noble needs \"noble\": a noble id");
  const auto noble = int_in(move["noble"], 1, kNobleCount);
  if (!noble) {
    return rejected("unknown_noble",
                    "there is no noble " + quote(move["noble"]) + "; nobles are numbered 1 to 10");
  }
  const auto choices = qualifying_nobles();
  if (std::find(choices.begin(), choices.end(), *noble) == choices.end()) {
    const bool on_table =
        std::find(state_.nobles.begin(), state_.nobles.end(), *noble) != state_.nobles.end();
    return rejected("noble_not_eligible",
                    on_table ? "your bonuses do not meet noble " + std::to_string(*noble) +
                                   "'s requirement (" + describe(noble_def(*noble).needs) + ")"
                             : "noble " + std::to_string(*noble) + " is not on the table");
  }
  Json events = Json::array();
  award_noble(*noble, events);
  finish_turn(events);
  return MoveResult::accepted(std::move(events));
}

MoveResult SplendorGame::apply_pass() {
  if (legal_play_moves()[0]["action"] != "pass") {
    return rejected("cannot_pass", "you may pass only when you can neither take, reserve nor buy");
  }
  ++state_.passes;
  Json events = Json::array();
  events.push_back({{"type", "pass"}, {"seat", state_.current}});
  finish_turn(events);
  return MoveResult::accepted(std::move(events));
}

void SplendorGame::take_from_table(const Located& where, Json& events) {
  auto& deck = state_.decks[at(where.level)];
  int& slot = state_.rows[at(where.level)][at(where.index)];
  slot = 0;
  if (deck.empty()) return;
  slot = deck.back();
  deck.pop_back();
  events.push_back(
      {{"type", "refill"}, {"level", where.level + 1}, {"slot", where.index}, {"card", slot}});
}

void SplendorGame::award_noble(int noble, Json& events) {
  PlayerState& me = state_.player(state_.current);
  state_.nobles.erase(std::find(state_.nobles.begin(), state_.nobles.end(), noble));
  me.nobles.push_back(noble);
  me.points += noble_def(noble).points;
  events.push_back({{"type", "noble"}, {"seat", state_.current}, {"noble", noble}});
}

void SplendorGame::end_of_action(Json& events) {
  if (excess_tokens() > 0) {
    state_.phase = Phase::kReturn;
    return;
  }
  const auto nobles = qualifying_nobles();
  if (nobles.size() > 1) {
    state_.phase = Phase::kNoble;
    return;
  }
  if (nobles.size() == 1) award_noble(nobles[0], events);
  finish_turn(events);
}

void SplendorGame::finish_turn(Json& events) {
  ++state_.turns;
  if (!state_.final_round) {
    for (const PlayerState& p : state_.players) {
      if (p.points >= kWinningPoints) state_.final_round = true;
    }
    if (state_.final_round) events.push_back({{"type", "final_round"}, {"seat", state_.current}});
  }
  // A whole round of passes means nobody can ever move again.
  state_.stalemate = state_.passes >= state_.seats;
  if (state_.stalemate || (state_.final_round && state_.current == state_.seats - 1)) {
    state_.phase = Phase::kFinished;
    Json over = result();
    over["type"] = "game_over";
    events.push_back(std::move(over));
    return;
  }
  state_.current = (state_.current + 1) % state_.seats;
  state_.phase = Phase::kPlay;
}

Json SplendorGame::player_view(int seat, Seat viewer) const {
  // Filled in place, keys in their sorted order each inserted at the end: views are made for
  // every seat after every move, and nlohmann's initializer lists cost an extra allocation
  // per key.
  const PlayerState& p = state_.player(seat);
  Json reserved(Json::value_t::array);
  auto& cards = reserved.get_ref<Json::array_t&>();
  cards.reserve(p.reserved.size());
  for (const ReservedCard& r : p.reserved) {
    Json entry(Json::value_t::object);
    auto& fields = entry.get_ref<Json::object_t&>();
    fields.emplace_hint(fields.end(), "blind", r.blind);
    fields.emplace_hint(fields.end(), "card",
                        !r.blind || viewer == seat ? Json(r.card) : Json(nullptr));
    fields.emplace_hint(fields.end(), "level", card_def(r.card).level);
    cards.push_back(std::move(entry));
  }
  Json out(Json::value_t::object);
  auto& fields = out.get_ref<Json::object_t&>();
  fields.emplace_hint(fields.end(), "bonuses", all_gems_json(p.bonuses));
  fields.emplace_hint(fields.end(), "cards_bought", p.bought.size());
  fields.emplace_hint(fields.end(), "nobles", p.nobles);
  fields.emplace_hint(fields.end(), "points", p.points);
  fields.emplace_hint(fields.end(), "reserved", std::move(reserved));
  fields.emplace_hint(fields.end(), "reserved_count", p.reserved.size());
  fields.emplace_hint(fields.end(), "seat", seat);
  fields.emplace_hint(fields.end(), "token_count", p.token_count());
  fields.emplace_hint(fields.end(), "tokens", all_tokens_json(p.tokens));
  return out;
}

Json SplendorGame::view(Seat seat) const {
  const bool seated = seat >= 0 && seat < state_.seats;
  Json rows(Json::value_t::array);
  for (const auto& row : state_.rows) {
    Json cards(Json::value_t::array);
    for (int card : row) cards.push_back(card != 0 ? Json(card) : Json(nullptr));
    rows.push_back(std::move(cards));
  }
  Json decks(Json::value_t::array);
  for (const auto& deck : state_.decks) decks.push_back(deck.size());
  Json players(Json::value_t::array);
  for (int s = 0; s < state_.seats; ++s) players.push_back(player_view(s, seated ? seat : -1));
  // Keys in their sorted order, each inserted at the end.
  Json out(Json::value_t::object);
  auto& fields = out.get_ref<Json::object_t&>();
  fields.emplace_hint(fields.end(), "bank", all_tokens_json(state_.bank));
  fields.emplace_hint(fields.end(), "decks", std::move(decks));
  fields.emplace_hint(fields.end(), "final_round", state_.final_round);
  if (state_.phase == Phase::kNoble) {
    fields.emplace_hint(fields.end(), "noble_choices", qualifying_nobles());
  }
  fields.emplace_hint(fields.end(), "nobles", state_.nobles);
  fields.emplace_hint(fields.end(), "phase", phase_name(state_.phase));
  fields.emplace_hint(fields.end(), "players", std::move(players));
  if (finished()) fields.emplace_hint(fields.end(), "result", result());
  if (state_.phase == Phase::kReturn) {
    fields.emplace_hint(fields.end(), "return_count", excess_tokens());
  }
  fields.emplace_hint(fields.end(), "round", state_.turns / state_.seats + 1);
  fields.emplace_hint(fields.end(), "rows", std::move(rows));
  fields.emplace_hint(fields.end(), "turn", finished() ? Json(nullptr) : Json(state_.current));
  fields.emplace_hint(fields.end(), "you", seated ? Json(seat) : Json(nullptr));
  return out;
}

// view(seat) as wire text, keys in sorted order (as dump() writes them), without building the
// JSON tree: the server writes every seat's view after every move. The self-play checker holds
// the text to view(seat).dump() after every move of its seeded games.
void SplendorGame::write_view(Seat seat, std::string& out) const {
  const bool seated = seat >= 0 && seat < state_.seats;
  write_view_start(out);
  write_view_players(out, seated ? seat : -1);
  write_view_end(out);
  json_text::view_you_and_close(out, seated, seat);
}

void SplendorGame::write_views(std::span<const Seat> seats,
                               std::span<std::string* const> outs) const {
  std::string start;
  write_view_start(start);
  // The players as a spectator sees them; a seat sees the same unless it holds a blind reserve.
  std::string players;
  write_view_players(players, -1);
  std::string end;
  write_view_end(end);
  for (std::size_t i = 0; i < seats.size(); ++i) {
    std::string& out = *outs[i];
    const Seat seat = seats[i];
    const bool seated = seat >= 0 && seat < state_.seats;
    out += start;
    if (seated &&
        std::any_of(state_.player(seat).reserved.begin(), state_.player(seat).reserved.end(),
                    [](const ReservedCard& r) { return r.blind; })) {
      write_view_players(out, seat);
    } else {
      out += players;
    }
    out += end;
    json_text::view_you_and_close(out, seated, seat);
  }
}

namespace {

// The token keys' text ("black":) in the order of token_order().
const std::array<std::string, kTokenKinds>& token_keys() {
  static const std::array<std::string, kTokenKinds> keys = [] {
    std::array<std::string, kTokenKinds> text;
    for (int i = 0; i < kTokenKinds; ++i) {
      json_text::string(text[at(i)], token_name(token_order()[at(i)]));
      text[at(i)] += ':';
    }
    return text;
  }();
  return keys;
}

// all_tokens_json (every token kind) or all_gems_json (the colours only) as text.
template <std::size_t N>
void write_counts(std::string& out, const std::array<int, N>& counts) {
  out += '{';
  json_text::Separator comma;
  for (int i = 0; i < kTokenKinds; ++i) {
    const int token = token_order()[at(i)];
    if (token >= static_cast<int>(N)) continue;
    comma(out);
    out += token_keys()[at(i)];
    json_text::integer(out, counts[at(token)]);
  }
  out += '}';
}

}  // namespace

void SplendorGame::write_view_start(std::string& out) const {
  namespace jt = json_text;
  out += '{';
  jt::key(out, "bank");
  write_counts(out, state_.bank);
  out += ',';
  jt::key(out, "decks");
  out += '[';
  jt::Separator comma;
  for (const auto& deck : state_.decks) {
    comma(out);
    jt::integer(out, static_cast<std::int64_t>(deck.size()));
  }
  out += "],";
  jt::key(out, "final_round");
  jt::boolean(out, state_.final_round);
  if (state_.phase == Phase::kNoble) {
    out += ',';
    jt::key(out, "noble_choices");
    jt::integers(out, qualifying_nobles());
  }
  out += ',';
  jt::key(out, "nobles");
  jt::integers(out, state_.nobles);
  out += ',';
  jt::key(out, "phase");
  jt::string(out, phase_name(state_.phase));
}

// player_view(seat, viewer) of every seat, as text.
void SplendorGame::write_view_players(std::string& out, Seat viewer) const {
  namespace jt = json_text;
  out += ',';
  jt::key(out, "players");
  out += '[';
  for (int seat = 0; seat < state_.seats; ++seat) {
    const PlayerState& p = state_.player(seat);
    if (seat > 0) out += ',';
    out += '{';
    jt::key(out, "bonuses");
    write_counts(out, p.bonuses);
    out += ',';
    jt::key(out, "cards_bought");
    jt::integer(out, static_cast<std::int64_t>(p.bought.size()));
    out += ',';
    jt::key(out, "nobles");
    jt::integers(out, p.nobles);
    out += ',';
    jt::key(out, "points");
    jt::integer(out, p.points);
    out += ',';
    jt::key(out, "reserved");
    out += '[';
    jt::Separator comma;
    for (const ReservedCard& r : p.reserved) {
      comma(out);
      out += '{';
      jt::key(out, "blind");
      jt::boolean(out, r.blind);
      out += ',';
      jt::key(out, "card");
      if (!r.blind || viewer == seat) {
        jt::integer(out, r.card);
      } else {
        jt::null(out);
      }
      out += ',';
      jt::key(out, "level");
      jt::integer(out, card_def(r.card).level);
      out += '}';
    }
    out += "],";
    jt::key(out, "reserved_count");
    jt::integer(out, static_cast<std::int64_t>(p.reserved.size()));
    out += ',';
    jt::key(out, "seat");
    jt::integer(out, seat);
    out += ',';
    jt::key(out, "token_count");
    jt::integer(out, p.token_count());
    out += ',';
    jt::key(out, "tokens");
    write_counts(out, p.tokens);
    out += '}';
  }
  out += ']';
}

void SplendorGame::write_view_end(std::string& out) const {
  namespace jt = json_text;
  if (finished()) {
    out += ',';
    jt::key(out, "result");
    out += result().dump(-1, ' ', false, Json::error_handler_t::replace);
  }
  if (state_.phase == Phase::kReturn) {
    out += ',';
    jt::key(out, "return_count");
    jt::integer(out, excess_tokens());
  }
  out += ',';
  jt::key(out, "round");
  jt::integer(out, state_.turns / state_.seats + 1);
  out += ',';
  jt::key(out, "rows");
  out += '[';
  jt::Separator rows;
  for (const auto& row : state_.rows) {
    rows(out);
    out += '[';
    jt::Separator cards;
    for (int card : row) {
      cards(out);
      if (card != 0) {
        jt::integer(out, card);
      } else {
        jt::null(out);
      }
    }
    out += ']';
  }
  out += "],";
  jt::key(out, "turn");
  if (finished()) {
    jt::null(out);
  } else {
    jt::integer(out, state_.current);
  }
}

Json SplendorGame::result() const {
  if (!finished()) return nullptr;
  Json scores = Json::array();
  Json bought = Json::array();
  Json nobles = Json::array();
  int best_points = -1;
  std::size_t fewest_cards = 0;
  for (const PlayerState& p : state_.players) {
    scores.push_back(p.points);
    bought.push_back(p.bought.size());
    nobles.push_back(p.nobles.size());
    if (p.points > best_points || (p.points == best_points && p.bought.size() < fewest_cards)) {
      best_points = p.points;
      fewest_cards = p.bought.size();
    }
  }
  Json winners = Json::array();
  for (int s = 0; s < state_.seats; ++s) {
    const PlayerState& p = state_.player(s);
    if (p.points == best_points && p.bought.size() == fewest_cards) winners.push_back(s);
  }
  return {{"scores", std::move(scores)},
          {"winners", std::move(winners)},
          {"cards_bought", std::move(bought)},
          {"nobles", std::move(nobles)},
          {"ended_by", state_.stalemate ? "stalemate" : "points"}};
}

// A player's fields, once, for full_state()'s player objects and the hash. These and the
// state_json faces stay outside the unnamed namespace below, so that argument-dependent
// lookup finds them.
template <class Fields>
static void visit_player(const PlayerState& p, Fields& f) {
  f.field("tokens", p.tokens);
  f.field("bonuses", p.bonuses);
  f.field("points", p.points);
  f.field("bought", p.bought);
  f.field("reserved", p.reserved);
  f.field("nobles", p.nobles);
}

static Json state_json(const ReservedCard& r) { return {r.card, r.blind}; }
static Json state_json(const PlayerState& p) {
  StateJson out;
  visit_player(p, out);
  return out.take();
}

namespace {

// state_hash(): the fields as 32-bit little-endian words through FNV-1a, equal on every
// machine. A run of numbers (or of reserved cards) is its length then its items; a run of
// runs or of players is its items.
class WordFields : public HashFields<WordFields> {
 public:
  std::uint64_t hash() const { return hash_; }

 private:
  friend class HashFields<WordFields>;
  template <class T>
  requires std::is_integral_v<T>
  void add(T value) {
    const auto word = static_cast<std::uint32_t>(value);
    for (int shift = 0; shift < 32; shift += 8) {
      hash_ ^= (word >> shift) & 0xFFU;
      hash_ *= 0x100000001b3ULL;
    }
  }
  template <class Hashed, class Shown>
  void add(const HashedAs<Hashed, Shown>& value) {
    add(value.hashed);
  }
  template <class T>
  requires std::is_integral_v<T>
  void add(std::span<const T> values) {
    add(values.size());
    for (T value : values) add(value);
  }
  template <class T, std::size_t N>
  void add(const std::array<T, N>& values) {
    if constexpr (std::is_integral_v<T>) {
      add(std::span<const T>(values));
    } else {
      for (const T& value : values) add(value);
    }
  }
  void add(const std::vector<int>& values) { add(std::span<const int>(values)); }
  void add(const std::vector<ReservedCard>& reserved) {
    add(reserved.size());
    for (const ReservedCard& r : reserved) add(r.card * 2 + (r.blind ? 1 : 0));
  }
  void add(const std::vector<PlayerState>& players) {
    for (const PlayerState& p : players) visit_player(p, *this);
  }

  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

}  // namespace

// Every field of the state, once, in the order state_hash() reads them.
template <class Fields>
void SplendorGame::visit_state(Fields& f) const {
  f.field("seats", state_.seats);
  f.field("phase", HashedAs{static_cast<int>(state_.phase), phase_name(state_.phase)});
  f.field("current", state_.current);
  f.field("turns", state_.turns);
  f.field("passes", state_.passes);
  f.field("final_round", state_.final_round);
  f.field("stalemate", state_.stalemate);
  f.field("bank", state_.bank);
  f.field("decks", state_.decks);
  f.field("rows", state_.rows);
  f.field("nobles", state_.nobles);
  f.field("players", state_.players);
}

Json SplendorGame::full_state() const {
  StateJson out;
  visit_state(out);
  return out.take();
}

std::uint64_t SplendorGame::state_hash() const {
  WordFields out;
  visit_state(out);
  return out.hash();
}

std::unique_ptr<Game> SplendorGame::clone() const { return std::make_unique<SplendorGame>(*this); }

}  // namespace splendor

GameInfo splendor_info() {
  GameInfo info;
  info.kind = "splendor";
  info.name = "Gem Merchants";
  info.description =
      "Collect gems, buy development cards and win the favour of nobles: the first to 15 "
      "prestige ends the round, and the richest merchant wins.";
  info.rules_url = "https://rules.dized.com/game/vdDSzuu4RsC8F45PsW0TKw/faq";
  info.min_seats = 2;
  info.max_seats = 4;
  info.default_seats = 4;
  info.create = [](const Json& /*options*/, int seats,
                   std::uint64_t seed) -> std::unique_ptr<Game> {
    return std::make_unique<splendor::SplendorGame>(seats, seed);
  };
  return info;
}

}  // namespace parlor
