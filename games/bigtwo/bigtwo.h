// Big Two, the climbing game — rules: https://www.pagat.com/climbing/bigtwo.html, with
// the defaults and variants pinned in docs/RULES.md.
//
// Phases: "play" (one deal after another; within a deal the seat to act plays a
// combination that beats the table or passes) and "finished". Each deal: 13 cards each
// (with 2 or 3 players the rest stay undealt and hidden). The holder of the lowest dealt
// card leads the first deal and that play must contain it; the winner of a deal leads
// the next with anything. Passing never locks a player out; when every other player has
// passed in succession the table clears and the last player to play leads anything.
// The deal ends when someone runs out of cards; the others lose 1 point per card left (2
// per card with 10-12 left, 3 per card with 13 left) and the winner gains what they lost.
//
// Moves: {"action":"play","cards":["3D","4D","5D","6D","7D"]} (one card: a one-element
// array) and {"action":"pass"}. Cards are sets: their order in a move does not matter.
// The combination logic lives in hands.h, the typed play generator in plays.h; this file
// is the state machine and its JSON faces. README.md documents the wire formats.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "games/bigtwo/hands.h"
#include "games/bigtwo/plays.h"
#include "games/core/game.h"
#include "games/core/game_info.h"

namespace parlor {

GameInfo bigtwo_info();

namespace bigtwo {

inline constexpr int kMaxSeats = 4;
inline constexpr int kHandSize = 13;

// Points a losing seat scores with `cards_left` cards in hand (negative or zero).
int penalty(int cards_left);

struct DealResult {
  int deal = 0;
  Seat winner = 0;
  std::array<int, kMaxSeats> points{};      // this deal's score per seat
  std::array<int, kMaxSeats> cards_left{};  // cards each seat still held
  CardSet final_play;                       // the winner's last play (public when made)
  // The cards each seat still held, laid face up to be counted when the deal ended: public
  // from then on (the deal_over event, the finished game's view and result).
  std::array<CardSet, kMaxSeats> left{};
};

class BigTwoGame final : public Game {
 public:
  // `options` must be normalized (every field present and checked): see bigtwo_info().
  BigTwoGame(const Json& options, int seats, std::uint64_t seed);

  // Test seam: a game whose first deal is `hands` (one per seat, at most 13 cards each,
  // disjoint) instead of a shuffle; later deals are shuffled from `seed` as usual.
  static std::unique_ptr<BigTwoGame> with_hands(const Json& options,
                                                const std::vector<CardSet>& hands,
                                                std::uint64_t seed = 1);
  // The same, for a deal after the first: `leader` leads it with no card required. Search bots
  // rebuild a later deal this way (bots/determinize_bigtwo.cpp).
  static std::unique_ptr<BigTwoGame> with_hands_led_by(const Json& options,
                                                       const std::vector<CardSet>& hands,
                                                       Seat leader, std::uint64_t seed = 1);
  // Test seam: replaces the hands of the current deal; the seat to act keeps the lead
  // (on the first deal's opening lead, the holder of the new lowest card takes it).
  void restack_for_test(const std::vector<CardSet>& hands);

  std::string_view kind() const override { return "bigtwo"; }
  int seat_count() const override { return seats_; }
  std::vector<Seat> to_act() const override;
  Json legal_moves(Seat seat) const override;
  Json prompt(Seat seat) const override;
  MoveResult apply(Seat seat, const Json& move) override;
  Json view(Seat seat) const override;
  void write_view(Seat seat, std::string& out) const override;
  void write_views(std::span<const Seat> seats, std::span<std::string* const> outs) const override;
  void write_prompt(Seat seat, std::string& out) const override;
  bool finished() const override { return finished_; }
  Json result() const override;
  // Both read the one field list visit_state gives (games/core/state_fields.h). The hash
  // reads the typed fields, not full_state()'s text: the self-play checker and the server
  // hash after every move, and this is 100x cheaper.
  Json full_state() const override;
  std::uint64_t state_hash() const override;
  std::unique_ptr<Game> clone() const override { return std::make_unique<BigTwoGame>(*this); }

  // Typed faces, used by the JSON layer above and by benchmarks and tests.
  const HandRules& rules() const { return rules_; }
  CardSet hand(Seat seat) const { return hands_[seat]; }
  Seat turn() const { return turn_; }
  int deal() const { return deal_; }
  const std::array<int, kMaxSeats>& scores() const { return scores_; }
  const std::vector<DealResult>& deal_results() const { return results_; }
  // The current table, or null after a clear and at the start of a deal.
  const Play* table() const { return has_table_ ? &table_ : nullptr; }
  Seat table_seat() const { return table_seat_; }
  // The card the next play must contain (the opening lead of the first deal), else empty.
  CardSet required() const { return required_; }

  // Appends every legal play for `seat` (passing excluded) to `out`.
  void legal_plays(Seat seat, std::vector<Play>& out) const;
  bool can_pass(Seat seat) const;
  // Validation without any change: a rejection, or nullopt with `hand` classified.
  std::optional<MoveResult> check_play(Seat seat, CardSet cards, Hand& hand) const;
  std::optional<MoveResult> check_pass(Seat seat) const;

  // What a checked move did, for the event list.
  struct Outcome {
    bool cleared = false;    // every other seat passed: the table cleared
    bool deal_over = false;  // the mover ran out of cards
  };
  // Apply a move that check_play / check_pass accepted.
  Outcome play_checked(Seat seat, CardSet cards, Hand hand);
  Outcome pass_checked(Seat seat);

 private:
  template <class Fields>
  void visit_state(Fields& fields) const;
  void start_deal(std::uint64_t deal_seed, std::optional<Seat> leader);
  void set_hands(const std::vector<CardSet>& hands, std::optional<Seat> leader);
  void end_deal(Seat winner);
  Seat next_seat(Seat seat) const { return (seat + 1) % seats_; }
  std::optional<MoveResult> check_turn(Seat seat) const;
  Json cards_json(CardSet cards) const;
  std::string events_text(Seat seat, const Outcome& outcome, bool played) const;
  // `[card,...]` low to high, and `[n,...]`, as dump() writes them.
  void write_cards(std::string& out, CardSet cards) const;
  // The pieces of a view, in order; the hand, must_include and `you` are the seat's own.
  void write_view_start(std::string& out) const;
  void write_view_hand(std::string& out, Seat seat) const;
  void write_view_middle(std::string& out) const;
  void write_view_must_include(std::string& out, Seat seat) const;
  void write_view_end(std::string& out) const;
  void write_table_fields(std::string& out, Seat seat) const;
  void write_hands_left(std::string& out, const DealResult& result) const;
  static void write_ints(std::string& out, const int* first, const int* last);

  HandRules rules_;
  int seats_ = 4;
  int deals_ = 1;
  std::uint64_t seed_ = 0;
  bool finished_ = false;
  int deal_ = 1;
  std::array<CardSet, kMaxSeats> hands_{};
  CardSet undealt_;
  CardSet played_;  // cards played so far this deal
  Seat turn_ = 0;
  Seat leader_ = 0;  // who led the current round (onto the empty table)
  bool has_table_ = false;
  Play table_;
  Seat table_seat_ = 0;
  std::uint8_t passed_ = 0;  // bit per seat: passed since the last play
  CardSet required_;
  std::array<int, kMaxSeats> scores_{};
  std::vector<DealResult> results_;
};

}  // namespace bigtwo
}  // namespace parlor
