// Agram: https://www.pagat.com/last/agram.html (see README.md here for the wire format).
//
// 35 cards: A 10 9 8 7 6 5 4 3 of each suit without the ace of spades, ace high. 2-5 players,
// 6 cards each; the rest stay undealt and hidden from everyone. No trump: a player must follow
// suit if able but need not beat, off-suit cards never win, the winner of a trick leads the
// next. Only the sixth trick counts: its winner wins the deal (1 point). Deals are played until
// someone has `target` points. The first dealer is the last seat, so seat 0 leads first; the
// deal passes left.
//
// Phases: play (six tricks, {"action":"play","card":"AS"}), deal_over (the deal is scored and
// its last trick still shows; the next dealer deals with {"action":"deal"}), finished.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "games/core/game_info.h"
#include "games/tricks/tricks.h"

namespace parlor {

GameInfo agram_info();

namespace agram {

inline constexpr int kHandSize = 6;
inline constexpr int kMinSeats = 2;
inline constexpr int kMaxSeats = 5;

CardSet agram_deck();  // the 35 cards

class AgramGame final : public Game {
 public:
  enum class Phase { kPlay, kDealOver, kFinished };

  AgramGame(const Json& options, int seats, std::uint64_t seed);
  // Test-only: replaces the first deal with `hands` (6 cards each) dealt by `dealer`; the rest of
  // the 35 cards are undealt. Later deals are shuffled from the seed.
  static std::unique_ptr<AgramGame> create_with_hands(const Json& options,
                                                      const std::vector<CardSet>& hands,
                                                      Seat dealer, std::uint64_t seed = 1);

  std::string_view kind() const override { return "agram"; }
  int seat_count() const override { return seats_; }
  std::vector<Seat> to_act() const override;
  Json legal_moves(Seat seat) const override;
  Json prompt(Seat seat) const override;
  MoveResult apply(Seat seat, const Json& move) override;
  Json view(Seat seat) const override;
  // write_view writes view()'s text without building it; write_views writes the text every
  // seat's view shares once, and each seat's hand and `you` around it.
  void write_view(Seat seat, std::string& out) const override;
  void write_views(std::span<const Seat> seats, std::span<std::string* const> outs) const override;
  bool finished() const override { return phase_ == Phase::kFinished; }
  Json result() const override;
  // Both read the one field list visit_state gives (games/core/state_fields.h); the hash
  // reads the typed fields, not full_state()'s text (cheaper, same content).
  Json full_state() const override;
  std::uint64_t state_hash() const override;
  std::unique_ptr<Game> clone() const override { return std::make_unique<AgramGame>(*this); }

  Phase phase() const { return phase_; }
  CardSet hand(Seat seat) const { return hands_[static_cast<std::size_t>(seat)]; }
  int score(Seat seat) const { return scores_[static_cast<std::size_t>(seat)]; }
  int deal_number() const { return deal_number_; }
  Seat dealer() const { return dealer_; }

 private:
  // write_view in pieces: the keys before "hand", the seat's hand, the keys between "hand"
  // and "you" (json_text::view_you_and_close ends it).
  void write_view_start(std::string& out) const;
  void write_view_hand(std::string& out, Seat seat) const;
  void write_view_middle(std::string& out) const;
  template <class Fields>
  void visit_state(Fields& fields) const;
  void deal(std::vector<CardSet> hands);
  Seat current_seat() const;
  MoveResult apply_play(Seat seat, const Json& move);
  MoveResult apply_deal();

  int seats_ = 4;
  int target_ = 1;
  std::uint64_t seed_ = 0;

  Phase phase_ = Phase::kPlay;
  int deal_number_ = 1;
  Seat dealer_ = 0;
  std::vector<CardSet> hands_;
  CardSet undealt_;
  tricks::TrickPlay play_;
  std::optional<tricks::CompletedTrick> last_trick_;
  std::optional<Seat> last_deal_winner_;
  std::vector<int> scores_;
  std::vector<Seat> winners_;
};

}  // namespace agram
}  // namespace parlor
