#include "games/tricks/tricks.h"

#include "games/core/json_cards.h"
#include "games/core/json_text.h"

namespace parlor::tricks {

namespace {
// Strength bands: a trump beats any card of the led suit, which beats nothing else.
constexpr int kLedBand = 100;
constexpr int kTrumpBand = 200;
constexpr int kJokerBand = 300;
}  // namespace

void StateWriter::add(std::string_view text) {
  add(static_cast<std::int64_t>(text.size()));
  std::uint64_t word = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    word |= std::uint64_t{static_cast<unsigned char>(text[i])} << (8 * (i % 8));
    if (i % 8 == 7 || i + 1 == text.size()) {
      add_word(word);
      word = 0;
    }
  }
}

std::optional<Suit> StandardTrickRules::effective_suit(Card card) const {
  if (card.is_joker()) return trump_;
  return card.suit();
}

int StandardTrickRules::rank_order(Rank rank) const {
  const int value = static_cast<int>(rank);  // 2..14
  if (rank == Rank::kAce) return 13;
  // Uptown: 2 -> 1 ... K -> 12. Downtown: K -> 1 ... 2 -> 12.
  return direction_ == Direction::kUptown ? value - 1 : 15 - value - 1;
}

int StandardTrickRules::strength(Card card, std::optional<Suit> led) const {
  if (card.is_joker()) {
    if (!trump_) return kCannotWin;
    return kJokerBand + (card == Card::big_joker() ? 2 : 1);
  }
  const int order = rank_order(card.rank());
  if (trump_ && card.suit() == *trump_) return kTrumpBand + order;
  if (led && card.suit() == *led) return kLedBand + order;
  return kCannotWin;
}

std::vector<CardSet> deal_hands(std::span<const Card> cards, int seats, int per_seat, Seat first) {
  std::vector<CardSet> hands(static_cast<std::size_t>(seats));
  const std::size_t total = static_cast<std::size_t>(seats) * static_cast<std::size_t>(per_seat);
  for (std::size_t i = 0; i < total && i < cards.size(); ++i) {
    const auto seat = (static_cast<std::size_t>(first) + i) % static_cast<std::size_t>(seats);
    hands[seat].add(cards[i]);
  }
  return hands;
}

CardSet Trick::cards() const {
  CardSet out;
  for (const Play& p : plays()) out.add(p.card);
  return out;
}

void Trick::add(Seat seat, Card card, const TrickRules& rules) {
  if (count_ >= kMaxPlays) return;
  plays_[static_cast<std::size_t>(count_++)] = Play{seat, card};
  if (!led_suit_) led_suit_ = rules.effective_suit(card);
}

void Trick::write(StateWriter& out) const {
  out.add(count_ * 64 + leader_ * 8 + (led_suit_ ? static_cast<int>(*led_suit_) : 7));
  // Five plays of 10 bits (seat, card) per word.
  std::int64_t packed = 0;
  for (int i = 0; i < count_; ++i) {
    const Play& p = plays_[static_cast<std::size_t>(i)];
    packed = packed * 1024 + std::int64_t{p.seat} * 64 + p.card.index();
    if (i % 5 == 4 || i + 1 == count_) {
      out.add(packed);
      packed = 0;
    }
  }
}

CardSet cards_of_effective_suit(CardSet hand, Suit suit, const TrickRules& rules) {
  CardSet out;
  for (Card c : hand) {
    if (rules.effective_suit(c) == suit) out.add(c);
  }
  return out;
}

CardSet legal_cards(CardSet hand, const Trick& trick, const TrickRules& rules) {
  if (!trick.led_suit()) return hand;
  const CardSet follow = cards_of_effective_suit(hand, *trick.led_suit(), rules);
  return follow.empty() ? hand : follow;
}

std::string suit_singular(Suit suit) {
  std::string name(suit_name(suit));
  name.pop_back();  // "spades" -> "spade"; every suit name ends in 's'
  return name;
}

std::string card_kind(Card card, const TrickRules& rules) {
  const auto suit = rules.effective_suit(card);
  if (card.is_joker()) {
    return suit ? "a joker (a " + suit_singular(*suit) + " here)" : "a joker (no suit here)";
  }
  return "a " + suit_singular(*suit);
}

std::optional<std::string> follow_suit_error(CardSet hand, const Trick& trick, Card card,
                                             const TrickRules& rules) {
  if (legal_cards(hand, trick, rules).contains(card)) return std::nullopt;
  const std::string led(suit_name(*trick.led_suit()));
  return "you must follow suit: " + led + " were led and you hold " + led + "; " +
         card.to_string() + " is " + card_kind(card, rules);
}

std::optional<Card> check_play(const Json& move, CardSet hand, const Trick& trick,
                               const TrickRules& rules, MoveResult& rejection) {
  std::string error;
  const auto card = card_field(move, "card", error);
  if (!card) {
    rejection = MoveResult::rejected("illegal_move", error);
    return std::nullopt;
  }
  if (!hand.contains(*card)) {
    rejection = MoveResult::rejected("card_not_held", "you do not hold " + card->to_string());
    return std::nullopt;
  }
  if (auto follow = follow_suit_error(hand, trick, *card, rules)) {
    rejection = MoveResult::rejected("must_follow_suit", *follow);
    return std::nullopt;
  }
  return card;
}

Json play_moves(CardSet cards) {
  Json out(Json::value_t::array);
  auto& moves = out.get_ref<Json::array_t&>();
  moves.reserve(static_cast<std::size_t>(cards.size()));
  for (Card c : cards) {
    Json move(Json::value_t::object);
    auto& fields = move.get_ref<Json::object_t&>();
    fields.emplace_hint(fields.end(), "action", "play");
    fields.emplace_hint(fields.end(), "card", c.to_string());
    moves.push_back(std::move(move));
  }
  return out;
}

Seat trick_winner(const Trick& trick, const TrickRules& rules) {
  const auto plays = trick.plays();
  Seat best_seat = trick.leader();
  int best = TrickRules::kCannotWin;
  for (const Play& p : plays) {
    const int s = rules.strength(p.card, trick.led_suit());
    if (s > best) {
      best = s;
      best_seat = p.seat;
    }
  }
  return best_seat;
}

TrickPlay::TrickPlay(int seats, Seat leader) : seats_(seats), current_(leader) {}

Seat TrickPlay::to_play() const { return (current_.leader() + current_.size()) % seats_; }

std::optional<Seat> TrickPlay::play(Card card, const TrickRules& rules) {
  current_.add(to_play(), card, rules);
  played_.add(card);
  if (current_.size() < seats_) return std::nullopt;
  const Seat winner = trick_winner(current_, rules);
  history_.push_back(CompletedTrick{current_, winner});
  ++won_[static_cast<std::size_t>(winner)];
  current_ = Trick(winner);
  return winner;
}

void TrickPlay::write(StateWriter& out) const {
  out.add(seats_);
  current_.write(out);
  out.add(static_cast<std::int64_t>(history_.size()));
  for (const CompletedTrick& t : history_) {
    t.trick.write(out);
    out.add(t.winner);
  }
  out.add(played_);
}

Json state_json(const TrickPlayFields& fields) {
  const TrickPlay& play = fields.play;
  return {{"played", cards_to_json(play.played() - play.current().cards())},
          {"tricks_won", tricks_won_to_json(play)},
          {"trick", plays_to_json(play.current())},
          {"leader", play.current().leader()}};
}

// Arrays and objects are filled in place (keys in their sorted order, each inserted at the
// end): views and full_state() carry a trick or two, and brace-initialized JSON copies every
// element once more.
Json plays_to_json(const Trick& trick) {
  Json out(Json::value_t::array);
  auto& plays = out.get_ref<Json::array_t&>();
  plays.reserve(static_cast<std::size_t>(trick.size()));
  for (const Play& p : trick.plays()) {
    Json play(Json::value_t::object);
    auto& fields = play.get_ref<Json::object_t&>();
    fields.emplace_hint(fields.end(), "card", p.card.to_string());
    fields.emplace_hint(fields.end(), "seat", p.seat);
    plays.push_back(std::move(play));
  }
  return out;
}

Json completed_trick_to_json(const CompletedTrick& t) {
  Json out(Json::value_t::object);
  auto& fields = out.get_ref<Json::object_t&>();
  fields.emplace_hint(fields.end(), "leader", t.trick.leader());
  fields.emplace_hint(fields.end(), "plays", plays_to_json(t.trick));
  fields.emplace_hint(fields.end(), "winner", t.winner);
  return out;
}

Json tricks_won_to_json(const TrickPlay& play) {
  Json out = Json::array();
  for (Seat s = 0; s < play.seats(); ++s) out.push_back(play.tricks_won(s));
  return out;
}

void write_plays(std::string& out, const Trick& trick) {
  namespace jt = json_text;
  out += '[';
  jt::Separator comma;
  for (const Play& p : trick.plays()) {
    comma(out);
    out += '{';
    jt::key(out, "card");
    jt::card(out, p.card);
    out += ',';
    jt::key(out, "seat");
    jt::integer(out, p.seat);
    out += '}';
  }
  out += ']';
}

void write_completed_trick(std::string& out, const CompletedTrick& t) {
  namespace jt = json_text;
  out += '{';
  jt::key(out, "leader");
  jt::integer(out, t.trick.leader());
  out += ',';
  jt::key(out, "plays");
  write_plays(out, t.trick);
  out += ',';
  jt::key(out, "winner");
  jt::integer(out, t.winner);
  out += '}';
}

void write_tricks_won(std::string& out, const TrickPlay& play) {
  out += '[';
  for (Seat s = 0; s < play.seats(); ++s) {
    if (s > 0) out += ',';
    json_text::integer(out, play.tricks_won(s));
  }
  out += ']';
}

void ScoreTable::add_hand(const std::vector<int>& points, Json detail) {
  for (std::size_t i = 0; i < totals_.size() && i < points.size(); ++i) totals_[i] += points[i];
  std::string text = detail.dump();
  rows_.push_back(Row{points, totals_, std::move(detail), std::move(text)});
}

Json ScoreTable::to_json() const { return to_json(hands(), true); }

Json ScoreTable::to_json(int max_rows, bool with_detail) const {
  Json rows = Json::array();
  const int first = hands() > max_rows ? hands() - max_rows : 0;
  for (int i = first; i < hands(); ++i) {
    const Row& row = rows_[static_cast<std::size_t>(i)];
    Json entry = Json::object();
    entry["hand"] = i + 1;
    entry["points"] = row.points;
    entry["totals"] = row.totals;
    if (with_detail && !row.detail.is_null()) entry["detail"] = row.detail;
    rows.push_back(std::move(entry));
  }
  Json out = Json::object();
  out["totals"] = totals_;
  out["hands"] = std::move(rows);
  return out;
}

void ScoreTable::write_json(std::string& out, int max_rows, bool with_detail) const {
  namespace jt = json_text;
  out += '{';
  jt::key(out, "hands");
  out += '[';
  const int first = hands() > max_rows ? hands() - max_rows : 0;
  for (int i = first; i < hands(); ++i) {
    const Row& row = rows_[static_cast<std::size_t>(i)];
    if (i > first) out += ',';
    out += '{';
    if (with_detail && !row.detail.is_null()) {
      jt::key(out, "detail");
      out += row.detail_text;
      out += ',';
    }
    jt::key(out, "hand");
    jt::integer(out, i + 1);
    out += ',';
    jt::key(out, "points");
    jt::integers(out, row.points);
    out += ',';
    jt::key(out, "totals");
    jt::integers(out, row.totals);
    out += '}';
  }
  out += "],";
  jt::key(out, "totals");
  jt::integers(out, totals_);
  out += '}';
}

void ScoreTable::write(StateWriter& out) const {
  out.add(static_cast<std::int64_t>(totals_.size()));
  for (int total : totals_) out.add(total);
  out.add(static_cast<std::int64_t>(rows_.size()));
  for (const Row& row : rows_) {
    for (int p : row.points) out.add(p);
    out.add(row.detail_text);
  }
}

}  // namespace parlor::tricks
