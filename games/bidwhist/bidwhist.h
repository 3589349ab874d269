// Bid Whist: four players in two partnerships (seats 0+2 and 1+3), 54 cards with two jokers,
// 12 cards each and a 6-card kitty. Rules: https://www.pagat.com/auctionwhist/bidwhist.html.
//
// Phases of a hand (each an ordinary state; `to_act` is always one seat):
//   bidding     once around from the dealer's left, the dealer forced to bid when the first
//               three pass (option auction "until_passed": around until all but one passed);
//   declaring   the high bidder names trump (uptown/downtown bid) or direction (no trump) and
//               takes the kitty in the same move;
//   discarding  the declarer discards 6 of 18 cards; the discard is the declarers' first book;
//   playing     12 tricks on games/tricks, the declarer leading first;
//   hand_over   the hand is scored; the next dealer sends {"action":"deal"} to deal the next
//               hand (the game ends instead when a team reached +target or fell to -target).
// Moves, views, prompts and events are specified in README.md beside this file.
#pragma once

#include <array>
#include <memory>
#include <span>
#include <string>

#include "games/bidwhist/bidwhist_rules.h"
#include "games/core/card_set.h"
#include "games/core/game.h"
#include "games/core/game_info.h"
#include "games/tricks/tricks.h"

namespace parlor {

GameInfo bidwhist_info();

namespace bidwhist {

enum class Phase : std::uint8_t {
  kBidding,
  kDeclaring,
  kDiscarding,
  kPlaying,
  kHandOver,
  kFinished
};
std::string_view phase_name(Phase phase);

enum class Auction : std::uint8_t { kOnceAround, kUntilPassed };

// A scored hand, as the last one is kept for views and events.
struct HandScore {
  int hand = 0;
  Seat declarer = 0;
  Bid bid;
  int books = 0;
  int points = 0;
};
// {"hand","declarer","team","bid","books","made","points":[per team],"scores":`totals`}.
Json hand_score_json(const HandScore& score, const std::vector<int>& totals);

class BidWhistGame final : public Game {
 public:
  BidWhistGame(Auction auction, int target, std::uint64_t seed);

  // Test seam: a game whose first hand is the given stacked deal (later hands are dealt from
  // `seed` as usual). `hands` must hold 12 cards each and `kitty` the other 6.
  static std::unique_ptr<BidWhistGame> create_with_deal(Auction auction, int target, Seat dealer,
                                                        const std::array<CardSet, kSeats>& hands,
                                                        CardSet kitty, std::uint64_t seed = 0);

  std::string_view kind() const override { return "bidwhist"; }
  int seat_count() const override { return kSeats; }
  std::vector<Seat> to_act() const override;
  Json legal_moves(Seat seat) const override;
  Json prompt(Seat seat) const override;
  MoveResult apply(Seat seat, const Json& move) override;
  Json view(Seat seat) const override;
  // write_view writes view()'s text without building it; write_views writes the text every
  // seat's view shares once, and each seat's hand, kitty and `you` around it.
  void write_view(Seat seat, std::string& out) const override;
  void write_views(std::span<const Seat> seats, std::span<std::string* const> outs) const override;
  bool finished() const override { return phase_ == Phase::kFinished; }
  Json result() const override;
  // Both read the one field list visit_state gives (games/core/state_fields.h). The hash is
  // FNV-1a over a fixed-width byte encoding of the fields (plus the hand's trick history),
  // as stable across machines as a hash of the JSON while costing no allocation per field.
  Json full_state() const override;
  std::uint64_t state_hash() const override;
  std::unique_ptr<Game> clone() const override { return std::make_unique<BidWhistGame>(*this); }

  // Read access for tests.
  Phase phase() const { return phase_; }
  Seat dealer() const { return dealer_; }
  CardSet hand(Seat seat) const { return hands_[static_cast<std::size_t>(seat)]; }
  const Contract& contract() const { return contract_; }
  int team_books(int team) const;
  int team_score(int team) const { return scores_.total(team); }

 private:
  // The seat the game waits for, or -1 once finished.
  Seat turn() const;
  void deal_hand(const std::array<CardSet, kSeats>& hands, CardSet kitty);
  void deal_from_seed();

  // Per-phase validation and effects. Each returns a rejection without touching the state, or
  // applies the move and appends its public events.
  MoveResult apply_bid(Seat seat, const Json& move);
  MoveResult apply_pass(Seat seat);
  MoveResult apply_declare(Seat seat, const Json& move);
  MoveResult apply_discard(Seat seat, const Json& move);
  MoveResult apply_play(Seat seat, const Json& move);
  MoveResult apply_deal(Seat seat);

  bool must_bid(Seat seat) const;
  Seat next_bidder(Seat after) const;
  void advance_auction(Json& events);
  void finish_hand(Json& events);

  template <class Fields>
  void visit_state(Fields& fields) const;
  Json bidding_moves(Seat seat) const;
  Json bids_json() const;
  // write_view in pieces: the keys before "hand", the seat's hand, the keys from "hand_counts"
  // to "high_bid", the declarer's kitty while discarding, the keys from "kitty_count" to
  // "turn" (json_text::view_you_and_close ends it).
  void write_view_start(std::string& out) const;
  void write_view_hand(std::string& out, Seat seat) const;
  void write_view_middle(std::string& out) const;
  void write_view_kitty(std::string& out, Seat seat) const;
  void write_view_end(std::string& out) const;

  // Options.
  Auction auction_ = Auction::kOnceAround;
  int target_ = 7;
  std::uint64_t seed_ = 0;

  // The current hand.
  int hand_number_ = 1;
  Seat dealer_ = 0;
  Phase phase_ = Phase::kBidding;
  std::array<CardSet, kSeats> hands_{};
  CardSet kitty_;  // the kitty: undealt until taken, then the cards it brought
  bool kitty_taken_ = false;
  CardSet discarded_;  // the declarer's discard (face down: nobody sees it again)

  // Auction: each seat's latest call (nullopt: not yet called); `passed_` marks seats out.
  std::array<std::optional<Bid>, kSeats> bids_{};
  std::array<bool, kSeats> passed_{};
  std::optional<Bid> high_bid_;
  Seat high_bidder_ = -1;
  Seat bidder_ = 0;  // whose call the auction waits for

  Contract contract_;
  tricks::StandardTrickRules rules_;
  tricks::TrickPlay play_;

  // Across hands.
  tricks::ScoreTable scores_{tricks::kTeamCount};
  // The last scored hand, shown until the next one is scored.
  Json hand_score_json(const HandScore& score) const;
  std::optional<HandScore> last_hand_;
  int winning_team_ = -1;  // set when finished
};

}  // namespace bidwhist
}  // namespace parlor
