// Score table of a Spades hand (https://www.pagat.com/auctionwhist/spades.html), both nil rules.
#include "games/spades/spades_scoring.h"

#include <gtest/gtest.h>

#include <vector>

namespace parlor::spades {
namespace {

const Bid kNil = Bid::of_tricks(0);
const Bid kBlind = Bid::blind_nil();
Bid b(int n) { return Bid::of_tricks(n); }

struct Case {
  const char* name;
  NilRule rule;
  Bid bids[2];
  int tricks[2];
  int points;
  int bags;
  bool made;
};

TEST(SpadesScoring, TeamHandTable) {
  constexpr auto kNo = NilRule::kNoCount;
  constexpr auto kFor = NilRule::kCountForPartner;
  const std::vector<Case> cases = {
      {"made exactly", kNo, {b(4), b(3)}, {4, 3}, 70, 0, true},
      {"made with a bag", kNo, {b(4), b(3)}, {5, 3}, 71, 1, true},
      {"one partner carries", kNo, {b(4), b(3)}, {7, 0}, 70, 0, true},
      {"set", kNo, {b(4), b(3)}, {3, 3}, -70, 0, false},
      {"all thirteen", kNo, {b(7), b(6)}, {7, 6}, 130, 0, true},
      {"nil made", kNo, {kNil, b(4)}, {0, 5}, 141, 1, true},
      {"nil made, partner set", kNo, {kNil, b(4)}, {0, 3}, 60, 0, false},
      {"nil failed, no_count, partner made", kNo, {kNil, b(4)}, {2, 4}, -58, 2, true},
      {"nil failed, no_count, partner set", kNo, {kNil, b(5)}, {2, 4}, -148, 2, false},
      {"nil failed, count_for_partner, helps make", kFor, {kNil, b(5)}, {2, 4}, -49, 1, true},
      {"nil failed, count_for_partner, exact", kFor, {kNil, b(4)}, {1, 3}, -60, 0, true},
      {"nil failed, count_for_partner, still set", kFor, {kNil, b(6)}, {1, 3}, -160, 0, false},
      {"nil made, count_for_partner", kFor, {b(4), kNil}, {5, 0}, 141, 1, true},
      {"blind nil made", kNo, {kBlind, b(3)}, {0, 3}, 230, 0, true},
      {"blind nil failed, no_count", kNo, {kBlind, b(3)}, {1, 3}, -169, 1, true},
      {"blind nil failed, count_for_partner", kFor, {kBlind, b(3)}, {1, 3}, -169, 1, true},
      {"both nil made", kNo, {kNil, kNil}, {0, 0}, 200, 0, true},
      {"both nil, one failed, no_count", kNo, {kNil, kNil}, {0, 2}, 2, 2, true},
      {"both nil, one failed, count_for_partner", kFor, {kNil, kNil}, {0, 2}, 2, 2, true},
      {"nil and blind nil both failed", kNo, {kBlind, kNil}, {1, 1}, -298, 2, true},
  };
  for (const auto& tc : cases) {
    const TeamHandScore s = score_team_hand(tc.bids, tc.tricks, tc.rule);
    EXPECT_EQ(s.points, tc.points) << tc.name;
    EXPECT_EQ(s.bags, tc.bags) << tc.name;
    EXPECT_EQ(s.made, tc.made) << tc.name;
    EXPECT_EQ(s.contract_points,
              s.made ? 10 * s.contract + (s.counted_tricks - s.contract) : -10 * s.contract)
        << tc.name;
  }
}

TEST(SpadesScoring, BagsCarryOverAcrossTen) {
  struct BagCase {
    int before, taken, after, penalty;
  };
  const std::vector<BagCase> cases = {
      {0, 0, 0, 0},    {8, 1, 9, 0},    {8, 2, 0, 100}, {9, 5, 4, 100},
      {5, 13, 8, 100}, {0, 20, 0, 200}, {7, 0, 7, 0},   {9, 1, 0, 100},
  };
  for (const auto& tc : cases) {
    const BagUpdate u = add_bags(tc.before, tc.taken);
    EXPECT_EQ(u.bags, tc.after) << tc.before << "+" << tc.taken;
    EXPECT_EQ(u.penalty, tc.penalty) << tc.before << "+" << tc.taken;
  }
}

}  // namespace
}  // namespace parlor::spades
