#include "games/bigtwo/bigtwo.h"

#include <algorithm>
#include <string>

#include "games/core/deck.h"
#include "games/core/json_cards.h"
#include "games/core/json_text.h"
#include "games/core/options.h"
#include "games/core/state_fields.h"

namespace parlor {
namespace bigtwo {
namespace {

constexpr std::string_view kSuitOrderReference = "spades_hearts_clubs_diamonds";
constexpr std::string_view kSuitOrderClubsLow = "spades_hearts_diamonds_clubs";
constexpr std::string_view kStraightsStandard = "standard";
constexpr std::string_view kStraightsNoTwos = "no_twos";
constexpr int kMaxPlaySize = 5;
// Spreads the deal number over the seed so that every deal of a game is a fresh shuffle.
constexpr std::uint64_t kDealSeedStep = 0x9E3779B97F4A7C15ULL;

HandRules rules_from(const Json& options) {
  HandRules rules;
  rules.suit_order = option_string(options, "suit_order") == kSuitOrderClubsLow
                         ? SuitOrder::kSpadesHeartsDiamondsClubs
                         : SuitOrder::kSpadesHeartsClubsDiamonds;
  rules.straights = option_string(options, "straights") == kStraightsNoTwos
                        ? StraightSet::kNoTwos
                        : StraightSet::kStandard;
  return rules;
}

// "3D 4D 5D" in Big Two order, for messages.
std::string describe(CardSet cards, SuitOrder order) {
  std::string out;
  for (Card c : sorted_low_to_high(cards, order)) {
    if (!out.empty()) out += ' ';
    out += c.to_string();
  }
  return out;
}

std::string article_name(Combination combination) {
  std::string name(combination_name(combination));
  std::replace(name.begin(), name.end(), '_', ' ');
  return (combination == Combination::kFourOfAKind ? "" : "a ") + name;
}

std::string why_not_a_combination(CardSet cards, SuitOrder order) {
  const std::string shown = describe(cards, order);
  switch (cards.size()) {
    case 2:
      return shown + " is not a pair: a pair is two cards of the same rank";
    case 3:
      return shown + " is not a triple: a triple is three cards of the same rank";
    case 5:
      return shown +
             " is not a five-card hand: straight, flush, full house, four of a kind plus one "
             "card, or straight flush (a straight never wraps past the two except as "
             "2-3-4-5-6, A-2-3-4-5 or J-Q-K-A-2 where those are allowed)";
    default:
      return std::to_string(cards.size()) + " cards are not a combination: play 1, 2, 3 or 5 cards";
  }
}

// At most 16 characters of client text, ASCII letters, digits and '_' only: a message must
// never echo a long string, nor cut a UTF-8 sequence (the reply would not serialize).
std::string printable_prefix(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (out.size() == 16) return out + "...";
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    out += plain || c == '_' ? c : '?';
  }
  return out;
}

MoveResult reject(std::string code, std::string message) {
  return MoveResult::rejected(std::move(code), std::move(message));
}

// A finished deal as result() and full_state() show it.
Json deal_result_json(const DealResult& result, int seats) {
  const auto count = static_cast<std::size_t>(seats);
  return {{"deal", result.deal},
          {"winner", result.winner},
          {"scores", std::vector<int>(result.points.begin(), result.points.begin() + count)},
          {"cards_left",
           std::vector<int>(result.cards_left.begin(), result.cards_left.begin() + count)}};
}

}  // namespace

int penalty(int cards_left) {
  if (cards_left == kHandSize) return -3 * cards_left;
  if (cards_left >= 10) return -2 * cards_left;
  return -cards_left;
}

BigTwoGame::BigTwoGame(const Json& options, int seats, std::uint64_t seed)
    : rules_(rules_from(options)),
      seats_(seats),
      deals_(static_cast<int>(option_int(options, "deals"))),
      seed_(seed) {
  start_deal(seed_, std::nullopt);
}

std::unique_ptr<BigTwoGame> BigTwoGame::with_hands(const Json& options,
                                                   const std::vector<CardSet>& hands,
                                                   std::uint64_t seed) {
  auto game = std::make_unique<BigTwoGame>(options, static_cast<int>(hands.size()), seed);
  game->set_hands(hands, std::nullopt);
  return game;
}

std::unique_ptr<BigTwoGame> BigTwoGame::with_hands_led_by(const Json& options,
                                                          const std::vector<CardSet>& hands,
                                                          Seat leader, std::uint64_t seed) {
  auto game = std::make_unique<BigTwoGame>(options, static_cast<int>(hands.size()), seed);
  game->set_hands(hands, leader);
  return game;
}

void BigTwoGame::restack_for_test(const std::vector<CardSet>& hands) {
  set_hands(hands, required_.empty() ? std::optional<Seat>(turn_) : std::nullopt);
}

void BigTwoGame::start_deal(std::uint64_t deal_seed, std::optional<Seat> leader) {
  const std::vector<Card> deck = shuffled(standard_deck(), deal_seed);
  std::vector<CardSet> hands(static_cast<std::size_t>(seats_));
  for (std::size_t i = 0; i < static_cast<std::size_t>(seats_) * kHandSize; ++i) {
    hands[i / kHandSize].add(deck[i]);
  }
  set_hands(hands, leader);
}

// Starts play on the given hands: the leader, or else the holder of the lowest dealt card
// (who must then include it).
void BigTwoGame::set_hands(const std::vector<CardSet>& hands, std::optional<Seat> leader) {
  CardSet dealt;
  for (Seat s = 0; s < kMaxSeats; ++s) {
    hands_[s] = s < seats_ ? hands[s] : CardSet();
    dealt.add_all(hands_[s]);
  }
  undealt_ = standard_deck() - dealt;
  played_ = CardSet();
  has_table_ = false;
  passed_ = 0;
  required_ = CardSet();
  if (leader) {
    turn_ = *leader;
  } else {
    const Card lowest = lowest_card(dealt, rules_.suit_order);
    required_.add(lowest);
    for (Seat s = 0; s < seats_; ++s) {
      if (hands_[s].contains(lowest)) turn_ = s;
    }
  }
  leader_ = turn_;
}

std::vector<Seat> BigTwoGame::to_act() const {
  if (finished_) return {};
  return {turn_};
}

// --- validation -------------------------------------------------------------------------

std::optional<MoveResult> BigTwoGame::check_turn(Seat seat) const {
  if (finished_) return reject("game_over", "the game is over");
  if (seat != turn_) {
    return reject("not_your_turn", "it is seat " + std::to_string(turn_) + "'s turn");
  }
  return std::nullopt;
}

bool BigTwoGame::can_pass(Seat seat) const { return !finished_ && seat == turn_ && has_table_; }

std::optional<MoveResult> BigTwoGame::check_pass(Seat seat) const {
  if (auto wrong = check_turn(seat)) return wrong;
  if (!has_table_) {
    return reject(
        "cannot_pass",
        "you lead: the table is empty, so play any combination" +
            (required_.empty() ? std::string()
                               : " that includes " + describe(required_, rules_.suit_order)));
  }
  return std::nullopt;
}

std::optional<MoveResult> BigTwoGame::check_play(Seat seat, CardSet cards, Hand& hand) const {
  if (auto wrong = check_turn(seat)) return wrong;
  if (cards.empty()) {
    return reject("wrong_combination",
                  R"(a play needs at least one card; to pass send {"action":"pass"})");
  }
  if (!hands_[seat].contains_all(cards)) {
    const CardSet missing = cards - hands_[seat];
    return reject("card_not_held", "you do not hold " + describe(missing, rules_.suit_order));
  }
  hand = classify(cards, rules_);
  if (!hand.valid()) {
    return reject("wrong_combination", why_not_a_combination(cards, rules_.suit_order));
  }
  if (!cards.contains_all(required_)) {
    return reject("must_include_lowest", "the first play of the game must include " +
                                             describe(required_, rules_.suit_order) +
                                             ", the lowest card dealt");
  }
  if (has_table_ && !beats(hand, table_.hand)) {
    const Hand& table = table_.hand;
    const std::string on_table =
        article_name(table.combination) + " (" + describe(table_.cards, rules_.suit_order) + ")";
    if (hand.size != table.size) {
      return reject("wrong_combination", "the table holds " + on_table + ": play " +
                                             std::to_string(table.size) + " card" +
                                             (table.size == 1 ? "" : "s") + " or pass");
    }
    return reject("does_not_beat", article_name(hand.combination) + " (" +
                                       describe(cards, rules_.suit_order) + ") does not beat " +
                                       on_table);
  }
  return std::nullopt;
}

// --- state changes ----------------------------------------------------------------------

BigTwoGame::Outcome BigTwoGame::play_checked(Seat seat, CardSet cards, Hand hand) {
  Outcome outcome;
  hands_[seat].remove_all(cards);
  played_.add_all(cards);
  if (!has_table_) leader_ = seat;
  has_table_ = true;
  table_ = {cards, hand};
  table_seat_ = seat;
  passed_ = 0;
  required_ = CardSet();
  if (hands_[seat].empty()) {
    outcome.deal_over = true;
    end_deal(seat);
  } else {
    turn_ = next_seat(seat);
  }
  return outcome;
}

BigTwoGame::Outcome BigTwoGame::pass_checked(Seat seat) {
  Outcome outcome;
  passed_ = static_cast<std::uint8_t>(passed_ | (1U << seat));
  turn_ = next_seat(seat);
  if (turn_ == table_seat_) {  // everyone else passed in succession
    outcome.cleared = true;
    has_table_ = false;
    passed_ = 0;
    leader_ = turn_;
  }
  return outcome;
}

void BigTwoGame::end_deal(Seat winner) {
  DealResult result;
  result.deal = deal_;
  result.winner = winner;
  result.final_play = table_.cards;
  for (Seat s = 0; s < seats_; ++s) {
    result.cards_left[s] = hands_[s].size();
    result.left[s] = hands_[s];
    if (s == winner) continue;
    result.points[s] = penalty(result.cards_left[s]);
    result.points[winner] -= result.points[s];
  }
  for (Seat s = 0; s < seats_; ++s) scores_[s] += result.points[s];
  results_.push_back(result);
  if (deal_ >= deals_) {
    finished_ = true;
    has_table_ = false;
    passed_ = 0;
    return;
  }
  ++deal_;
  start_deal(seed_ + static_cast<std::uint64_t>(deal_ - 1) * kDealSeedStep, winner);
}

// --- JSON faces -------------------------------------------------------------------------

void BigTwoGame::legal_plays(Seat seat, std::vector<Play>& out) const {
  if (finished_ || seat != turn_) return;
  generate_plays(hands_[seat], has_table_ ? &table_.hand : nullptr, required_, rules_, out);
}

Json BigTwoGame::cards_json(CardSet cards) const {
  Json out = Json::array();
  auto& list = out.get_ref<Json::array_t&>();
  list.reserve(static_cast<std::size_t>(cards.size()));
  for_each_low_to_high(cards, rules_.suit_order,
                       [&list](Card c) { list.emplace_back(c.to_string()); });
  return out;
}

Json BigTwoGame::legal_moves(Seat seat) const {
  Json out = Json::array();
  std::vector<Play> plays;
  legal_plays(seat, plays);
  for (const Play& play : plays) {
    Json move = Json::object();
    move["action"] = "play";
    move["cards"] = cards_json(play.cards);
    out.push_back(std::move(move));
  }
  if (can_pass(seat)) out.push_back(Json{{"action", "pass"}});
  return out;
}

Json BigTwoGame::prompt(Seat seat) const {
  std::string text;
  write_prompt(seat, text);
  return Json::parse(text);
}

MoveResult BigTwoGame::apply(Seat seat, const Json& move) {
  if (auto wrong = check_turn(seat)) return std::move(*wrong);
  std::string error;
  const auto action = action_of(move, error);
  if (!action) return reject("illegal_move", error);
  if (*action == "pass") {
    if (auto rejected = check_pass(seat)) return std::move(*rejected);
    return MoveResult::accepted_text(events_text(seat, pass_checked(seat), false));
  }
  if (*action != "play") {
    return reject("illegal_move", "unknown action \"" + printable_prefix(*action) +
                                      R"(": Big Two moves are "play" and "pass")");
  }
  const auto it = move.find("cards");
  if (it == move.end() || !it->is_array()) {
    return reject("illegal_move", R"(a play needs "cards": an array of cards such as ["3D"])");
  }
  if (it->size() > kMaxPlaySize) {
    return reject("wrong_combination", std::to_string(it->size()) +
                                           " cards are not a combination: play 1, 2, 3 or 5 cards");
  }
  CardSet cards;
  for (const Json& item : *it) {
    if (!item.is_string()) return reject("illegal_move", "\"cards\" must hold card strings");
    const auto card = parse_card(item.get_ref<const std::string&>());
    if (!card) {
      return reject("illegal_move", "\"" + printable_prefix(item.get_ref<const std::string&>()) +
                                        "\" is not a card: rank 2-9, T, J, Q, K or A, then suit "
                                        "C, D, H or S, e.g. \"TS\"");
    }
    if (cards.contains(*card)) {
      return reject("illegal_move", "card " + card->to_string() + " appears twice in \"cards\"");
    }
    cards.add(*card);
  }
  Hand hand;
  if (auto rejected = check_play(seat, cards, hand)) return std::move(*rejected);
  const Outcome outcome = play_checked(seat, cards, hand);
  return MoveResult::accepted_text(events_text(seat, outcome, true));
}

// The public events of an accepted play or pass, as the text dump() would write for them
// (keys in sorted order): they go into every player's state push.
std::string BigTwoGame::events_text(Seat seat, const Outcome& outcome, bool played) const {
  namespace jt = json_text;
  std::string out;
  out.reserve(160);
  out += '[';
  if (played) {
    out += '{';
    write_table_fields(out, seat);
    out += R"(,"type":"play"})";
  } else {
    out += '{';
    jt::key(out, "seat");
    jt::integer(out, seat);
    out += R"(,"type":"pass"})";
  }
  if (outcome.cleared) {
    out += R"(,{"leader":)";
    jt::integer(out, turn_);
    out += R"(,"type":"clear"})";
  }
  if (outcome.deal_over) {
    const DealResult& last = results_.back();
    out += R"(,{"cards_left":)";
    write_ints(out, last.cards_left.data(), last.cards_left.data() + seats_);
    out += R"(,"deal":)";
    jt::integer(out, last.deal);
    out += R"(,"hands":)";
    write_hands_left(out, last);
    out += R"(,"scores":)";
    write_ints(out, last.points.data(), last.points.data() + seats_);
    out += R"(,"totals":)";
    write_ints(out, scores_.data(), scores_.data() + seats_);
    out += R"(,"type":"deal_over","winner":)";
    jt::integer(out, last.winner);
    out += '}';
    if (!finished_) {
      out += R"(,{"deal":)";
      jt::integer(out, deal_);
      out += R"(,"leader":)";
      jt::integer(out, turn_);
      out += R"(,"type":"deal"})";
    }
  }
  out += ']';
  return out;
}

// `"cards":[..],"combination":"..","seat":N` of the play on the table: the view's table and
// the play event share them.
void BigTwoGame::write_table_fields(std::string& out, Seat seat) const {
  json_text::key(out, "cards");
  write_cards(out, table_.cards);
  out += ',';
  json_text::key(out, "combination");
  json_text::string(out, combination_name(table_.hand.combination));
  out += ',';
  json_text::key(out, "seat");
  json_text::integer(out, seat);
}

void BigTwoGame::write_cards(std::string& out, CardSet cards) const {
  out += '[';
  json_text::Separator comma;
  for_each_low_to_high(cards, rules_.suit_order, [&](Card c) {
    comma(out);
    json_text::card(out, c);
  });
  out += ']';
}

// `[[cards],...]` per seat: the cards each seat held when the deal ended (the winner's empty).
void BigTwoGame::write_hands_left(std::string& out, const DealResult& result) const {
  out += '[';
  for (Seat s = 0; s < seats_; ++s) {
    if (s > 0) out += ',';
    write_cards(out, result.left[s]);
  }
  out += ']';
}

void BigTwoGame::write_ints(std::string& out, const int* first, const int* last) {
  out += '[';
  json_text::Separator comma;
  for (const int* it = first; it != last; ++it) {
    comma(out);
    json_text::integer(out, *it);
  }
  out += ']';
}

// The view and the prompt are described once, as the text the server sends
// (write_view, write_prompt); their JSON values, for bots, replays and tests, are that text
// parsed. The self-play checker holds the text to what dump() writes for the value, which
// catches a key out of sorted order or written twice.
Json BigTwoGame::view(Seat seat) const {
  std::string text;
  write_view(seat, text);
  return Json::parse(text);
}

// The view as wire text, keys in sorted order (as dump() writes them). A view is the shared text
// around a seat's own pieces (its hand, the card it must play, `you`): written piece by piece here,
// so write_views can write the shared text once.
void BigTwoGame::write_view(Seat seat, std::string& out) const {
  const bool seated = seat >= 0 && seat < seats_;
  write_view_start(out);
  if (seated) write_view_hand(out, seat);
  write_view_middle(out);
  if (seated) write_view_must_include(out, seat);
  write_view_end(out);
  json_text::view_you_and_close(out, seated, seat);
}

void BigTwoGame::write_views(std::span<const Seat> seats,
                             std::span<std::string* const> outs) const {
  std::string shared;
  write_view_start(shared);
  const std::size_t middle = shared.size();
  write_view_middle(shared);
  const std::size_t end = shared.size();
  write_view_end(shared);
  const std::string_view text(shared);
  for (std::size_t i = 0; i < seats.size(); ++i) {
    std::string& out = *outs[i];
    const Seat seat = seats[i];
    const bool seated = seat >= 0 && seat < seats_;
    out += text.substr(0, middle);
    if (seated) write_view_hand(out, seat);
    out += text.substr(middle, end - middle);
    if (seated) write_view_must_include(out, seat);
    out += text.substr(end);
    json_text::view_you_and_close(out, seated, seat);
  }
}

void BigTwoGame::write_view_start(std::string& out) const {
  namespace jt = json_text;
  out += '{';
  jt::key(out, "deal");
  jt::integer(out, deal_);
  out += ',';
  jt::key(out, "deals");
  jt::integer(out, deals_);
}

void BigTwoGame::write_view_hand(std::string& out, Seat seat) const {
  out += ',';
  json_text::key(out, "hand");
  write_cards(out, hands_[seat]);
}

void BigTwoGame::write_view_middle(std::string& out) const {
  namespace jt = json_text;
  auto ints = [&](const auto& values) { write_ints(out, values.data(), values.data() + seats_); };
  out += ',';
  jt::key(out, "hand_counts");
  out += '[';
  for (Seat s = 0; s < seats_; ++s) {
    if (s > 0) out += ',';
    jt::integer(out, hands_[s].size());
  }
  out += "],";
  jt::key(out, "last_deal");
  if (results_.empty()) {
    jt::null(out);
  } else {
    const DealResult& last = results_.back();
    out += '{';
    jt::key(out, "cards_left");
    ints(last.cards_left);
    out += ',';
    jt::key(out, "deal");
    jt::integer(out, last.deal);
    // The counted hands stay in the view once the game is over (a reload still shows them);
    // while a next deal is played its own cards are what the view is about.
    if (finished_) {
      out += ',';
      jt::key(out, "hands");
      write_hands_left(out, last);
    }
    out += ',';
    jt::key(out, "scores");
    ints(last.points);
    out += ',';
    jt::key(out, "winner");
    jt::integer(out, last.winner);
    out += '}';
  }
  out += ',';
  jt::key(out, "leader");
  json_text::integer_or_null(out, !finished_, leader_);
}

// Everyone knows the first play must hold the lowest card dealt; only its holder is told
// which card that is (with 2 or 3 players it would reveal part of a hidden hand).
void BigTwoGame::write_view_must_include(std::string& out, Seat seat) const {
  namespace jt = json_text;
  if (required_.empty() || !hands_[seat].contains_all(required_)) return;
  out += ',';
  jt::key(out, "must_include");
  for_each_low_to_high(required_, rules_.suit_order, [&, first = true](Card c) mutable {
    if (first) jt::card(out, c);
    first = false;
  });
}

void BigTwoGame::write_view_end(std::string& out) const {
  namespace jt = json_text;
  out += ',';
  jt::key(out, "opening");
  jt::boolean(out, !required_.empty());
  out += ',';
  jt::key(out, "passed");
  out += '[';
  jt::Separator comma;
  for (Seat s = 0; s < seats_; ++s) {
    if (passed_ & (1U << s)) {
      comma(out);
      jt::integer(out, s);
    }
  }
  out += "],";
  jt::key(out, "phase");
  out += finished_ ? std::string_view(R"("finished")") : std::string_view(R"("play")");
  out += ',';
  jt::key(out, "scores");
  write_ints(out, scores_.data(), scores_.data() + seats_);
  out += ',';
  jt::key(out, "straights");
  jt::string(out,
             rules_.straights == StraightSet::kStandard ? kStraightsStandard : kStraightsNoTwos);
  out += ',';
  jt::key(out, "suit_order");
  jt::string(out, rules_.suit_order == SuitOrder::kSpadesHeartsClubsDiamonds ? kSuitOrderReference
                                                                             : kSuitOrderClubsLow);
  out += ',';
  jt::key(out, "table");
  if (!has_table_) {
    jt::null(out);
  } else {
    out += '{';
    write_table_fields(out, table_seat_);
    out += '}';
  }
  out += ',';
  jt::key(out, "turn");
  json_text::integer_or_null(out, !finished_, turn_);
}

// The prompt as wire text: {"actions":[...],"legal":[{"action":..,"cards":..}]}, the legal
// plays in the order legal_moves lists them.
void BigTwoGame::write_prompt(Seat seat, std::string& out) const {
  namespace jt = json_text;
  if (finished_ || seat != turn_) return jt::null(out);
  const bool pass = can_pass(seat);
  out += pass ? std::string_view(R"({"actions":["play","pass"],"legal":[)")
              : std::string_view(R"({"actions":["play"],"legal":[)");
  std::vector<Play> plays;
  legal_plays(seat, plays);
  jt::Separator comma;
  for (const Play& play : plays) {
    comma(out);
    out += R"({"action":"play","cards":[)";
    jt::Separator card_comma;
    for_each_low_to_high(play.cards, rules_.suit_order, [&](Card c) {
      card_comma(out);
      jt::card(out, c);
    });
    out += "]}";
  }
  if (pass) {
    comma(out);
    out += R"({"action":"pass"})";
  }
  out += "]}";
}

Json BigTwoGame::result() const {
  if (!finished_) return nullptr;
  const int best = *std::max_element(scores_.begin(), scores_.begin() + seats_);
  Json winners = Json::array();
  for (Seat s = 0; s < seats_; ++s) {
    if (scores_[s] == best) winners.push_back(s);
  }
  Json deals = Json::array();
  for (const DealResult& r : results_) {
    deals.push_back(deal_result_json(r, seats_));
    Json& hands = deals.back()["hands"] = Json::array();
    for (Seat s = 0; s < seats_; ++s) hands.push_back(cards_json(r.left[s]));
  }
  return {{"scores", std::vector<int>(scores_.begin(), scores_.begin() + seats_)},
          {"winners", std::move(winners)},
          {"deals", std::move(deals)}};
}

namespace {

// The fields of full_state() that are more than one value.
struct TableField {  // the play on the table, if any
  const Play* play;  // null after a clear
  Seat seat;
  SuitOrder order;
};
struct DealResultsField {  // every finished deal
  std::span<const DealResult> results;
  int seats;
};

Json state_json(const TableField& table) {
  if (!table.play) return nullptr;
  Json cards = Json::array();
  for_each_low_to_high(table.play->cards, table.order,
                       [&cards](Card c) { cards.push_back(c.to_string()); });
  return {{"seat", table.seat},
          {"cards", std::move(cards)},
          {"combination", combination_name(table.play->hand.combination)}};
}

Json state_json(const DealResultsField& field) {
  Json out = Json::array();
  for (const DealResult& r : field.results) {
    out.push_back(deal_result_json(r, field.seats));
    out.back()["final_play"] = cards_to_json(r.final_play);
    Json& hands = out.back()["hands"] = Json::array();
    for (int s = 0; s < field.seats; ++s) hands.push_back(cards_to_json(r.left[s]));
  }
  return out;
}

// state_hash(): a multiply-xorshift mix per 64-bit word, integer arithmetic only, the same
// on every machine.
class StateMixer : public HashFields<StateMixer> {
 public:
  std::uint64_t hash() const { return hash_; }

 private:
  friend class HashFields<StateMixer>;
  void mix(std::uint64_t value) {
    hash_ = (hash_ ^ value) * 0x9E3779B97F4A7C15ULL;
    hash_ ^= hash_ >> 29;
  }
  template <class T>
  requires std::is_integral_v<T>
  void add(T value) {
    mix(static_cast<std::uint64_t>(value));  // signed values sign-extended
  }
  void add(CardSet cards) { mix(cards.bits()); }
  template <class T>
  void add(std::span<const T> values) {
    for (const T& value : values) add(value);
  }
  void add(const TableField& table) {
    mix(table.play != nullptr);
    if (!table.play) return;
    mix(table.play->cards.bits());
    add(table.seat);
  }
  void add(const DealResultsField& field) {
    for (const DealResult& r : field.results) {
      add(r.deal);
      add(r.winner);
      for (Seat s = 0; s < field.seats; ++s) {
        add(r.points[s]);
        add(r.cards_left[s]);
      }
      mix(r.final_play.bits());
      // Not r.left: the cards left follow from the deal and its plays, already mixed in, and
      // leaving them out keeps the hashes that stores recorded before they were kept valid.
    }
  }

  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

}  // namespace

// Every field of the state, once, in the order state_hash() reads them.
template <class Fields>
void BigTwoGame::visit_state(Fields& f) const {
  const auto seats = static_cast<std::size_t>(seats_);
  f.field("suit_order", static_cast<int>(rules_.suit_order));
  f.field("straights", static_cast<int>(rules_.straights));
  f.hash_only(seats_);  // full_state(): the length of hands and scores
  f.field("deals", deals_);
  f.field("seed", seed_);
  f.field("finished", finished_);
  f.field("deal", deal_);
  f.field("hands", std::span<const CardSet>(hands_.data(), seats));
  f.field("undealt", undealt_);
  f.field("played", played_);
  f.field("turn", turn_);
  f.field("leader", leader_);
  f.field("table", TableField{has_table_ ? &table_ : nullptr, table_seat_, rules_.suit_order});
  f.field("passed", passed_);
  f.field("required", required_);
  f.field("scores", std::span<const int>(scores_.data(), seats));
  f.hash_only(results_.size());  // full_state(): the length of deal_results
  f.field("deal_results", DealResultsField{results_, seats_});
}

Json BigTwoGame::full_state() const {
  StateJson out;
  visit_state(out);
  return out.take();
}

std::uint64_t BigTwoGame::state_hash() const {
  StateMixer mixer;
  visit_state(mixer);
  return mixer.hash();
}

}  // namespace bigtwo

GameInfo bigtwo_info() {
  GameInfo info;
  info.kind = "bigtwo";
  info.name = "Big Two";
  info.description =
      "Climbing game: beat the table with a higher single, pair, triple or five-card hand; "
      "first to shed every card wins the deal.";
  info.rules_url = "https://www.pagat.com/climbing/bigtwo.html";
  info.min_seats = 2;
  info.max_seats = bigtwo::kMaxSeats;
  info.default_seats = 4;
  info.options = {
      OptionSpec::integer("deals", 1, 1, 20,
                          "Deals to play; the winner of a deal leads the next with anything"),
      OptionSpec::choice(
          "suit_order",
          {{std::string(bigtwo::kSuitOrderReference),
            "Spades > hearts > clubs > diamonds (reference); 3 of diamonds is lowest"},
           {std::string(bigtwo::kSuitOrderClubsLow),
            "Spades > hearts > diamonds > clubs; 3 of clubs is lowest"}},
          "Suit order, high to low"),
      OptionSpec::choice(
          "straights",
          {{std::string(bigtwo::kStraightsStandard),
            "3-4-5-6-7 up to 10-J-Q-K-A, plus 2-3-4-5-6 < A-2-3-4-5 < J-Q-K-A-2 (highest)"},
           {std::string(bigtwo::kStraightsNoTwos), "Only 3-4-5-6-7 up to 10-J-Q-K-A"}},
          "Which five-card sequences are straights"),
  };
  info.create = [](const Json& options, int seats, std::uint64_t seed) -> std::unique_ptr<Game> {
    return std::make_unique<bigtwo::BigTwoGame>(options, seats, seed);
  };
  return info;
}

}  // namespace parlor
