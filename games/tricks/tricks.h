// Shared trick-taking machinery for Spades, Bid Whist and Agram: following suit, deciding
// who wins a trick, the tricks of a hand, seats and partnerships, dealer rotation, and the
// score table kept across hands.
//
// What differs between the games is supplied as a policy, `TrickRules`:
//   - effective_suit(card): the suit a card belongs to for following, or "no suit". Bid Whist's
//     jokers belong to the trump suit in a trump contract and to no suit in no trump.
//   - strength(card, led): a comparable number; the highest strength wins the trick, a
//     strength of kCannotWin never wins (off-suit cards, a joker in no trump).
// `StandardTrickRules` covers all three games: an optional trump suit, uptown (A K Q ... 2) or
// downtown (A 2 3 ... K, the ace stays highest) order, and jokers as the top trumps (big above
// little) when there is a trump suit, powerless and suitless when there is none.
//
// The led suit of a trick is the effective suit of the first card that has one: normally the
// card led, but when a suitless card is led (a joker in no trump) the first suited card played
// sets it. Until then any card may be played.
//
// Everything here is a plain value (no allocation beyond the hand history vector), so a game
// holding these stays cheap to clone and hash. Seats are 0..n-1, play goes to the left
// (seat + 1), and partners in a four-seat game sit opposite: teams {0, 2} and {1, 3}.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "games/core/card.h"
#include "games/core/card_set.h"
#include "games/core/game.h"
#include "games/core/state_fields.h"

namespace parlor::tricks {

// ---------------------------------------------------------------------------------------------
// State hashing

// The canonical content of a game state as 64-bit words, for overriding Game::state_hash()
// without building full_state() JSON (the self-play checker and the server hash after every
// move). Words are hashed by value, so the hash is the same on every machine.
// The words are folded into the hash as they come (FNV-1a over words), so a writer holds no
// buffer; hash() adds a final avalanche so that nearby states spread.
class StateWriter {
 public:
  void add(std::int64_t value) { add_word(static_cast<std::uint64_t>(value)); }
  void add(CardSet cards) { add_word(cards.bits()); }
  void add(std::string_view text);
  std::uint64_t hash() const {
    std::uint64_t hash = hash_;
    hash ^= hash >> 33;
    hash *= 0xff51afd7ed558ccdULL;
    hash ^= hash >> 33;
    return hash;
  }

 private:
  void add_word(std::uint64_t word) {
    hash_ ^= word;
    hash_ *= 0x100000001b3ULL;
    hash_ ^= hash_ >> 29;
  }

  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

// ---------------------------------------------------------------------------------------------
// Card order policy

class TrickRules {
 public:
  static constexpr int kCannotWin = 0;

  virtual ~TrickRules() = default;
  // The suit `card` belongs to for following suit; nullopt: it belongs to no suit.
  virtual std::optional<Suit> effective_suit(Card card) const = 0;
  // Strength of `card` in a trick whose led suit is `led` (nullopt: no suited card yet).
  // Higher beats lower; equal strengths are won by the earlier card; kCannotWin never wins.
  virtual int strength(Card card, std::optional<Suit> led) const = 0;
};

enum class Direction { kUptown, kDowntown };

class StandardTrickRules final : public TrickRules {
 public:
  StandardTrickRules() = default;
  explicit StandardTrickRules(std::optional<Suit> trump, Direction direction = Direction::kUptown)
      : trump_(trump), direction_(direction) {}

  std::optional<Suit> trump() const { return trump_; }
  Direction direction() const { return direction_; }

  std::optional<Suit> effective_suit(Card card) const override;
  int strength(Card card, std::optional<Suit> led) const override;

  // Order of a suited card's rank within its suit, 1 (lowest) .. 13 (the ace, both ways).
  int rank_order(Rank rank) const;

 private:
  std::optional<Suit> trump_;
  Direction direction_ = Direction::kUptown;
};

// ---------------------------------------------------------------------------------------------
// Seats, partnerships, dealer rotation

inline constexpr Seat next_seat(Seat seat, int seats) { return (seat + 1) % seats; }
// The player on the dealer's left bids and (in most games) leads first.
inline constexpr Seat left_of(Seat seat, int seats) { return next_seat(seat, seats); }
// The dealer of the next hand: the deal passes to the left.
inline constexpr Seat next_dealer(Seat dealer, int seats) { return next_seat(dealer, seats); }
// Four-seat partnership games: teams {0, 2} (team 0) and {1, 3} (team 1).
inline constexpr int team_of(Seat seat) { return seat % 2; }
inline constexpr Seat partner_of(Seat seat) { return (seat + 2) % 4; }
inline constexpr int kTeamCount = 2;

// Deals `per_seat` cards to each of `seats` seats, one at a time round the table starting
// with seat `first`. Cards beyond seats * per_seat are not dealt (the caller keeps them as a
// kitty or the undealt stock). `cards` must hold at least seats * per_seat cards.
std::vector<CardSet> deal_hands(std::span<const Card> cards, int seats, int per_seat,
                                Seat first = 0);

// ---------------------------------------------------------------------------------------------
// Tricks

struct Play {
  Seat seat = 0;
  Card card;
};

class Trick {
 public:
  static constexpr int kMaxPlays = 8;

  Trick() = default;
  explicit Trick(Seat leader) : leader_(leader) {}

  Seat leader() const { return leader_; }
  std::span<const Play> plays() const { return {plays_.data(), static_cast<std::size_t>(count_)}; }
  int size() const { return count_; }
  bool empty() const { return count_ == 0; }
  // The effective suit of the first suited card played; nullopt while none has been played.
  std::optional<Suit> led_suit() const { return led_suit_; }
  CardSet cards() const;

  // Records `card` played by `seat`. Checks nothing: legality is the game's job.
  void add(Seat seat, Card card, const TrickRules& rules);

  void write(StateWriter& out) const;

 private:
  std::array<Play, kMaxPlays> plays_{};
  int count_ = 0;
  Seat leader_ = 0;
  std::optional<Suit> led_suit_;
};

// The cards of `hand` that may be played to `trick`: those of the effective led suit when the
// hand holds any, otherwise every card. An empty trick or one without a led suit yet: any card.
CardSet legal_cards(CardSet hand, const Trick& trick, const TrickRules& rules);

// The cards of `hand` whose effective suit is `suit`.
CardSet cards_of_effective_suit(CardSet hand, Suit suit, const TrickRules& rules);

// Why `card` (held in `hand`) may not be played to `trick`, or nullopt when it may. The message
// names only the mover's card and suits, e.g.
// "you must follow suit: hearts were led and you hold hearts; 4S is a spade".
std::optional<std::string> follow_suit_error(CardSet hand, const Trick& trick, Card card,
                                             const TrickRules& rules);

// Validates the card of a {"action":"play","card":C} move by a seat holding `hand` (the
// action itself is the caller's to check). On success returns the card; otherwise fills
// `rejection`: illegal_move (no or malformed card), card_not_held, must_follow_suit.
std::optional<Card> check_play(const Json& move, CardSet hand, const Trick& trick,
                               const TrickRules& rules, MoveResult& rejection);

// [{"action":"play","card":C},...] for every card of `cards`, in card index order.
Json play_moves(CardSet cards);

// The seat whose card wins `trick` (which must not be empty): the highest strength; the
// earliest card among equals. When no card can win (cannot happen with a suited card in the
// trick), the leader's card wins.
Seat trick_winner(const Trick& trick, const TrickRules& rules);

// "a spade", "a heart", "a joker": for messages.
std::string card_kind(Card card, const TrickRules& rules);
// "spade", "heart", ... (singular suit name).
std::string suit_singular(Suit suit);

struct CompletedTrick {
  Trick trick;
  Seat winner = 0;
};

// The tricks of one hand: the trick in progress, the completed ones, and tricks won per seat.
class TrickPlay {
 public:
  TrickPlay() = default;
  TrickPlay(int seats, Seat leader);

  int seats() const { return seats_; }
  // The seat whose card the current trick waits for.
  Seat to_play() const;
  const Trick& current() const { return current_; }
  const std::vector<CompletedTrick>& history() const { return history_; }
  const CompletedTrick* last_completed() const {
    return history_.empty() ? nullptr : &history_.back();
  }
  int completed_count() const { return static_cast<int>(history_.size()); }
  int tricks_won(Seat seat) const { return won_[static_cast<std::size_t>(seat)]; }
  // Tricks won by the two partners of `team` (four seats).
  int team_tricks_won(int team) const { return tricks_won(team) + tricks_won(team + 2); }
  // Every card played this hand, including the trick in progress.
  CardSet played() const { return played_; }

  // Plays `card` for to_play() (checks nothing). When this completes the trick, it is recorded
  // and its winner returned; the winner leads the next trick.
  std::optional<Seat> play(Card card, const TrickRules& rules);

  void write(StateWriter& out) const;

 private:
  int seats_ = 4;
  Trick current_;
  std::vector<CompletedTrick> history_;
  std::array<int, Trick::kMaxPlays> won_{};
  CardSet played_;
};

// JSON for views and full_state.
Json plays_to_json(const Trick& trick);                 // [{"seat":0,"card":"AS"},...]
Json completed_trick_to_json(const CompletedTrick& t);  // {"leader":0,"plays":[...],"winner":2}
Json tricks_won_to_json(const TrickPlay& play);         // [per seat]
// The same values as wire text appended to `out`: what dump() writes for them
// (games/core/json_text.h), for engines that write their views as text.
void write_plays(std::string& out, const Trick& trick);
void write_completed_trick(std::string& out, const CompletedTrick& t);
void write_tricks_won(std::string& out, const TrickPlay& play);

// ---------------------------------------------------------------------------------------------
// Scores across hands

// One row per hand: the points each team (or seat, in games without partnerships) made that
// hand, the running totals after it, and game-specific detail (bids, bags, ...).
class ScoreTable {
 public:
  ScoreTable() = default;
  explicit ScoreTable(int sides) : totals_(static_cast<std::size_t>(sides), 0) {}

  int sides() const { return static_cast<int>(totals_.size()); }
  int hands() const { return static_cast<int>(rows_.size()); }
  int total(int side) const { return totals_[static_cast<std::size_t>(side)]; }
  const std::vector<int>& totals() const { return totals_; }
  // The detail given with hand `index` (0-based).
  const Json& detail(int index) const { return rows_[static_cast<std::size_t>(index)].detail; }
  // detail(index) as dump() writes it.
  const std::string& detail_text(int index) const {
    return rows_[static_cast<std::size_t>(index)].detail_text;
  }

  // Adds a hand: `points` has one entry per side. `detail` is copied into the row as is.
  void add_hand(const std::vector<int>& points, Json detail = nullptr);

  // {"totals":[...],"hands":[{"points":[...],"totals":[...],"detail":...},...]}
  Json to_json() const;
  // The last `max_rows` hands only, for views that must stay compact; without each row's
  // "detail" when `with_detail` is false.
  Json to_json(int max_rows, bool with_detail = true) const;
  // to_json(max_rows, with_detail) as wire text appended to `out`.
  void write_json(std::string& out, int max_rows, bool with_detail = true) const;

  void write(StateWriter& out) const;

 private:
  struct Row {
    std::vector<int> points;
    std::vector<int> totals;
    Json detail;
    std::string detail_text;  // detail.dump(), kept so hashing never re-serializes old rows
  };
  std::vector<int> totals_;
  std::vector<Row> rows_;
};

// A hand's trick play as a group of full_state() keys (StateJson::fields): "played" (the cards
// of its completed tricks), "tricks_won", "trick" (in progress) and "leader"; hashed whole.
struct TrickPlayFields {
  const TrickPlay& play;
};
Json state_json(const TrickPlayFields& fields);

// ---------------------------------------------------------------------------------------------
// state_hash() from an engine's visit_state (games/core/state_fields.h), through a StateWriter:
// integers and flags as one word each, card sets as their bits, runs of values without their
// length, HashedAs by its hashed part; the trick types by their write(); an engine's own
// composite types through a hash_state(StateWriter&, const T&) of its namespace.

class StateWriterFields : public HashFields<StateWriterFields> {
 public:
  std::uint64_t hash() const { return out_.hash(); }

 private:
  friend class HashFields<StateWriterFields>;
  template <class T>
  requires std::is_integral_v<T>
  void add(const T& value) { out_.add(static_cast<std::int64_t>(value)); }
  void add(CardSet cards) { out_.add(cards); }
  template <class T>
  void add(std::span<const T> values) {
    for (const T& value : values) add(value);
  }
  template <class T>
  void add(const std::vector<T>& values) {
    add(std::span<const T>(values));
  }
  template <class T, std::size_t N>
  void add(const std::array<T, N>& values) {
    add(std::span<const T>(values));
  }
  template <class Hashed, class Shown>
  void add(const HashedAs<Hashed, Shown>& value) {
    add(value.hashed);
  }
  // A trick finished and kept for show: a flag, then the trick and its winner.
  void add(const std::optional<CompletedTrick>& trick) {
    add(trick.has_value());
    if (!trick) return;
    trick->trick.write(out_);
    add(trick->winner);
  }
  void add(const Trick& trick) { trick.write(out_); }
  void add(const TrickPlay& play) { play.write(out_); }
  void add(const TrickPlayFields& fields) { fields.play.write(out_); }
  void add(const ScoreTable& table) { table.write(out_); }
  template <class T>
  void add(const T& value) {
    hash_state(out_, value);
  }

  StateWriter out_;
};

// full_state()'s faces of the trick types.
inline Json state_json(const Trick& trick) { return plays_to_json(trick); }
inline Json state_json(const std::optional<CompletedTrick>& trick) {
  return trick ? completed_trick_to_json(*trick) : Json(nullptr);
}
inline Json state_json(const ScoreTable& table) { return table.to_json(); }

}  // namespace parlor::tricks
