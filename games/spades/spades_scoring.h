// Spades hand scoring (https://www.pagat.com/auctionwhist/spades.html), kept apart from the
// engine so the score table can be tested on its own.
//
// Per team and hand: the contract is the sum of the partners' non-nil bids. Made (tricks
// counted toward it >= contract): +10 x contract and +1 per overtrick (a bag). Failed:
// -10 x contract. Nil: +100 when the nil bidder takes no trick, -100 otherwise; blind nil
// +/-200. Which tricks count toward the contract depends on the `failed_nil` rule:
//   - kNoCount (reference): a nil bidder's tricks never count toward the partner's bid; each
//     one is a bag instead (+1 point and one bag).
//   - kCountForPartner: a nil bidder's tricks count toward the partner's bid (and so become
//     bags only as overtricks of a made contract).
// Bags accumulate across hands; every 10 cost 100 points and the excess carries over.
#pragma once

namespace parlor::spades {

enum class NilRule { kNoCount, kCountForPartner };

struct Bid {
  enum class Kind { kTricks, kNil, kBlindNil };
  Kind kind = Kind::kTricks;
  int tricks = 0;  // kTricks only: 1..13 (a bid of 0 is kNil)

  bool is_nil() const { return kind != Kind::kTricks; }
  static Bid of_tricks(int n) { return n == 0 ? Bid{Kind::kNil, 0} : Bid{Kind::kTricks, n}; }
  static Bid blind_nil() { return Bid{Kind::kBlindNil, 0}; }
};

inline constexpr int kNilBonus = 100;
inline constexpr int kBlindNilBonus = 200;
inline constexpr int kBagsPerPenalty = 10;
inline constexpr int kBagPenalty = 100;

struct TeamHandScore {
  int contract = 0;        // sum of non-nil bids
  int counted_tricks = 0;  // tricks counted toward the contract
  bool made = false;
  int contract_points = 0;  // +10c + overtricks, or -10c
  int nil_points = 0;       // nil / blind nil bonuses and penalties
  int bags = 0;             // bags taken this hand (overtricks, plus nil tricks under kNoCount)
  int points = 0;           // everything above, before the bag penalty
};

// Scores one team's hand: the partners' bids and the tricks each took.
TeamHandScore score_team_hand(const Bid (&bids)[2], const int (&tricks)[2], NilRule rule);

struct BagUpdate {
  int bags = 0;     // accumulated bags after the hand (always below 10)
  int penalty = 0;  // points lost this hand: 100 per 10 bags reached
};
BagUpdate add_bags(int bags_before, int bags_taken);

}  // namespace parlor::spades
