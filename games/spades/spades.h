// Spades, partnership: https://www.pagat.com/auctionwhist/spades.html (see README.md here for
// the wire format).
//
// Four seats, partners opposite (team 0 = seats 0+2, team 1 = seats 1+3), 13 cards each,
// spades always trump. The first dealer is seat 3, so seat 0 bids and leads first; the deal
// passes left every hand.
//
// Phases of a hand:
//   look  (only with the `blind_nil` option) the seat whose turn it is to bid has not seen its
//         cards yet: it either looks ({"action":"look"}) or bids blind nil.
//   bid   once around from the dealer's left: {"action":"bid","tricks":N}, N 0..13, 0 = nil.
//   play  13 tricks, {"action":"play","card":"AS"}; the dealer's left leads the first trick;
//         spades may not be led until broken unless the leader holds only spades.
// After the 13th trick the hand is scored (spades_scoring.h); the game ends when a team has
// reached `target` or fallen to -200 with the scores unequal (equal: another hand).
//   hand_over  the hand is scored and its last trick is still on the table; the next dealer
//         deals the next hand with {"action":"deal"}. This pause is what lets everyone see the
//         last trick and the score before the cards are shuffled back into new hands (a card
//         named by the old hand must not be confused with the same card in a new, hidden hand).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "games/core/game_info.h"
#include "games/spades/spades_scoring.h"
#include "games/tricks/tricks.h"

namespace parlor {

GameInfo spades_info();

namespace spades {

inline constexpr int kSeats = 4;
inline constexpr int kHandSize = 13;
inline constexpr int kLosingScore = -200;

// A position to start a test from (test-only seam): the hands of the hand about to be bid,
// its dealer, and the scores carried in.
struct SpadesSetup {
  std::array<CardSet, kSeats> hands;
  Seat dealer = 3;
  std::array<int, tricks::kTeamCount> points{};
  std::array<int, tricks::kTeamCount> bags{};
  int hand_number = 1;
};

class SpadesGame final : public Game {
 public:
  enum class Phase { kLook, kBid, kPlay, kHandOver, kFinished };

  SpadesGame(const Json& options, std::uint64_t seed);
  // Test-only: starts from `setup` instead of a shuffled first deal (later hands are shuffled).
  static std::unique_ptr<SpadesGame> create_with_setup(const Json& options,
                                                       const SpadesSetup& setup,
                                                       std::uint64_t seed = 1);

  std::string_view kind() const override { return "spades"; }
  int seat_count() const override { return kSeats; }
  std::vector<Seat> to_act() const override;
  Json legal_moves(Seat seat) const override;
  Json prompt(Seat seat) const override;
  MoveResult apply(Seat seat, const Json& move) override;
  // write_view writes view()'s text without building it; write_views writes the text every
  // seat's view shares once, and each seat's hand and `you` around it.
  Json view(Seat seat) const override;
  void write_view(Seat seat, std::string& out) const override;
  void write_views(std::span<const Seat> seats, std::span<std::string* const> outs) const override;
  bool finished() const override { return phase_ == Phase::kFinished; }
  Json result() const override;
  // Both read the one field list visit_state gives (games/core/state_fields.h); the hash
  // reads the typed fields rather than full_state()'s text: the same content, far cheaper,
  // and hashed after every move.
  Json full_state() const override;
  std::uint64_t state_hash() const override;
  std::unique_ptr<Game> clone() const override { return std::make_unique<SpadesGame>(*this); }

  Phase phase() const { return phase_; }
  CardSet hand(Seat seat) const { return hands_[static_cast<std::size_t>(seat)]; }
  int points(int team) const { return points_[static_cast<std::size_t>(team)]; }
  int bags(int team) const { return bags_[static_cast<std::size_t>(team)]; }
  int hand_number() const { return hand_number_; }
  Seat dealer() const { return dealer_; }

 private:
  template <class Fields>
  void visit_state(Fields& fields) const;
  void deal(const std::array<CardSet, kSeats>& hands);
  Seat current_seat() const;
  MoveResult apply_look(Seat seat);
  MoveResult apply_bid(Seat seat, const Json& move);
  MoveResult apply_play(Seat seat, const Json& move);
  MoveResult apply_deal();
  void record_bid(Seat seat, Bid bid, Json& events);
  void finish_hand(Json& events);
  bool spade_lead_forbidden(Seat seat) const;
  Json bid_json(Seat seat) const;
  // write_view in pieces: the keys before "hand", the seat's hand, the keys between "hand"
  // and "you" (json_text::view_you_and_close ends it).
  void write_view_start(std::string& out) const;
  void write_view_hand(std::string& out, Seat seat) const;
  void write_view_middle(std::string& out) const;
  Json contracts_json() const;

  // Options.
  int target_ = 500;
  NilRule nil_rule_ = NilRule::kNoCount;
  bool blind_nil_allowed_ = false;
  std::uint64_t seed_ = 0;

  // The hand in progress.
  Phase phase_ = Phase::kBid;
  int hand_number_ = 1;
  Seat dealer_ = 3;
  std::array<CardSet, kSeats> hands_{};
  std::array<bool, kSeats> looked_{};
  std::array<std::optional<Bid>, kSeats> bids_{};
  int bids_made_ = 0;
  tricks::TrickPlay play_;
  bool spades_broken_ = false;
  std::optional<tricks::CompletedTrick> last_trick_;

  // Across hands.
  std::array<int, tricks::kTeamCount> points_{};
  std::array<int, tricks::kTeamCount> bags_{};
  tricks::ScoreTable table_{tricks::kTeamCount};
  std::vector<Seat> winners_;
};

}  // namespace spades
}  // namespace parlor
