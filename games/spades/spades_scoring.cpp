#include "games/spades/spades_scoring.h"

namespace parlor::spades {

TeamHandScore score_team_hand(const Bid (&bids)[2], const int (&tricks)[2], NilRule rule) {
  TeamHandScore s;
  int nil_tricks = 0;
  for (int i = 0; i < 2; ++i) {
    const Bid& bid = bids[i];
    if (!bid.is_nil()) {
      s.contract += bid.tricks;
      s.counted_tricks += tricks[i];
      continue;
    }
    const int bonus = bid.kind == Bid::Kind::kBlindNil ? kBlindNilBonus : kNilBonus;
    s.nil_points += tricks[i] == 0 ? bonus : -bonus;
    if (rule == NilRule::kCountForPartner) {
      s.counted_tricks += tricks[i];
    } else {
      nil_tricks += tricks[i];
    }
  }
  s.made = s.counted_tricks >= s.contract;
  if (s.made) {
    const int overtricks = s.counted_tricks - s.contract;
    s.contract_points = 10 * s.contract + overtricks;
    s.bags = overtricks;
  } else {
    s.contract_points = -10 * s.contract;
  }
  // Under the reference rule a nil bidder's tricks are bags whether or not the contract is made.
  s.bags += nil_tricks;
  s.points = s.contract_points + s.nil_points + nil_tricks;
  return s;
}

BagUpdate add_bags(int bags_before, int bags_taken) {
  BagUpdate u;
  u.bags = bags_before + bags_taken;
  while (u.bags >= kBagsPerPenalty) {
    u.bags -= kBagsPerPenalty;
    u.penalty += kBagPenalty;
  }
  return u;
}

}  // namespace parlor::spades
