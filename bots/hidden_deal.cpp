#include "bots/hidden_deal.h"

#include <algorithm>
#include <numeric>
#include <utility>

#include "bots/view_reading.h"

namespace parlor::bots {
namespace {

// Random attempts before dealing by construction. A deal whose constraints are loose succeeds
// at the first attempt; one that fails a few times is tight (say the unknown cards exactly
// fill the hands and only one hand may hold a whole suit) and random attempts rarely succeed
// there, so construct_deal takes over.
constexpr int kTries = 8;

// One attempt: hands in order of most excluded cards first, each filled with a uniform draw
// from the cards it may still take. Cards of a tightly constrained hand are drawn before
// looser hands can use them up.
std::optional<std::vector<CardSet>> try_deal(CardSet unknown, std::span<const HiddenHand> hands,
                                             std::span<const std::size_t> order, Rng& rng) {
  std::vector<CardSet> dealt(hands.size());
  CardSet left = unknown;
  for (std::size_t i : order) {
    std::vector<Card> allowed = (left - hands[i].excluded).to_vector();
    const auto count = static_cast<std::size_t>(hands[i].count);
    if (allowed.size() < count) return std::nullopt;
    for (std::size_t k = 0; k < count; ++k) {
      std::swap(allowed[k], allowed[k + rng.uniform(allowed.size() - k)]);
      dealt[i].add(allowed[k]);
      left.remove(allowed[k]);
    }
  }
  return dealt;
}

// The deal as a transportation problem. Bins are the hands that get cards plus, last, the
// cards left undealt; every unknown card has the mask of the bins it may go to, and only the
// number of cards of each mask matters for whether the rest can still be dealt.
struct Bins {
  std::vector<std::size_t> hand;  // the hand of each bin but the last (undealt)
  std::vector<int> room;          // cards each bin still takes
  std::vector<int> cards_of;      // per mask: unknown cards not yet dealt with that mask

  unsigned mask_of(Card card, std::span<const HiddenHand> hands) const {
    unsigned mask = 1U << hand.size();  // a card may always stay undealt (if there is room)
    for (std::size_t b = 0; b < hand.size(); ++b) {
      if (!hands[hand[b]].excluded.contains(card)) mask |= 1U << b;
    }
    return mask;
  }

  // Hall's condition: every set of bins has at least as many cards that may go to one of them
  // as it has room. With as many cards as room in all, that is exactly when the rest of the
  // deal can be completed.
  bool completable() const {
    const auto subsets = static_cast<unsigned>(cards_of.size());
    for (unsigned set = 1; set < subsets; ++set) {
      int room_of_set = 0;
      for (std::size_t b = 0; b < room.size(); ++b) {
        if ((set >> b) & 1U) room_of_set += room[b];
      }
      int cards = 0;
      for (unsigned mask = 1; mask < subsets; ++mask) {
        if ((mask & set) != 0) cards += cards_of[mask];
      }
      if (cards < room_of_set) return false;
    }
    return true;
  }
};

// More bins than this (hands to deal, and the undealt cards) are not supported: their masks
// would not fit, and no game has nearly so many hands.
constexpr std::size_t kMaxBins = 12;

// The bins of a deal, or nullopt when no deal exists (or there are too many hands).
std::optional<Bins> dealable_bins(CardSet unknown, std::span<const HiddenHand> hands) {
  Bins bins;
  int dealt = 0;
  for (std::size_t i = 0; i < hands.size(); ++i) {
    if (hands[i].count < 0) return std::nullopt;
    if (hands[i].count == 0) continue;
    bins.hand.push_back(i);
    bins.room.push_back(hands[i].count);
    dealt += hands[i].count;
  }
  bins.room.push_back(unknown.size() - dealt);
  if (bins.room.back() < 0 || bins.room.size() > kMaxBins) return std::nullopt;
  bins.cards_of.assign(std::size_t{1} << bins.room.size(), 0);
  for (Card card : unknown) ++bins.cards_of[bins.mask_of(card, hands)];
  if (!bins.completable()) return std::nullopt;
  return bins;
}

// A deal built card by card, in random order: each card goes to a bin that may take it, with
// odds in proportion to the bin's room left (as in an unconstrained deal), among the bins
// after which the rest can still be dealt. It never fails on bins from dealable_bins.
std::vector<CardSet> construct_deal(CardSet unknown, std::span<const HiddenHand> hands, Bins bins,
                                    Rng& rng) {
  std::vector<CardSet> dealt(hands.size());
  std::vector<Card> cards = unknown.to_vector();
  rng.shuffle(std::span<Card>(cards));
  for (Card card : cards) {
    const unsigned mask = bins.mask_of(card, hands);
    --bins.cards_of[mask];
    unsigned candidates = mask;
    for (;;) {
      int room = 0;
      for (std::size_t b = 0; b < bins.room.size(); ++b) {
        if ((candidates >> b) & 1U) room += bins.room[b];
      }
      if (room == 0) break;  // unreachable while the deal stays completable
      auto pick = static_cast<int>(rng.uniform(static_cast<std::uint64_t>(room)));
      std::size_t bin = 0;
      for (; bin < bins.room.size(); ++bin) {
        if (((candidates >> bin) & 1U) == 0) continue;
        if (pick < bins.room[bin]) break;
        pick -= bins.room[bin];
      }
      --bins.room[bin];
      if (bins.completable()) {
        if (bin < bins.hand.size()) dealt[bins.hand[bin]].add(card);
        break;
      }
      ++bins.room[bin];
      candidates &= ~(1U << bin);
    }
  }
  return dealt;
}

}  // namespace

std::optional<std::vector<CardSet>> deal_hidden(CardSet unknown, std::span<const HiddenHand> hands,
                                                Rng& rng) {
  std::vector<std::size_t> order(hands.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return (unknown & hands[a].excluded).size() > (unknown & hands[b].excluded).size();
  });
  auto bins = dealable_bins(unknown, hands);
  if (!bins) return std::nullopt;
  for (int attempt = 0; attempt < kTries; ++attempt) {
    if (auto dealt = try_deal(unknown, hands, order, rng)) return dealt;
  }
  return construct_deal(unknown, hands, std::move(*bins), rng);
}

std::vector<CardSet> void_cards(std::span<const unsigned> voids) {
  std::vector<CardSet> cards;
  for (unsigned seat_voids : voids) cards.push_back(cards_of_suits(seat_voids));
  return cards;
}

std::optional<std::vector<CardSet>> deal_hands(CardSet unknown, const Json& hand_counts, Seat you,
                                               CardSet hand, std::span<const CardSet> played,
                                               std::span<const CardSet> excluded, Rng& rng) {
  std::vector<HiddenHand> hidden(played.size());
  for (std::size_t s = 0; s < hidden.size(); ++s) {
    if (static_cast<Seat>(s) == you) continue;
    hidden[s].count = read_int_at(hand_counts, s, 0);
    if (s < excluded.size()) hidden[s].excluded = excluded[s];
  }
  auto hands = deal_hidden(unknown, hidden, rng);
  if (!hands) return std::nullopt;
  for (std::size_t s = 0; s < hands->size(); ++s) {
    if (static_cast<Seat>(s) == you) (*hands)[s] = hand;
    (*hands)[s].add_all(played[s]);
  }
  return hands;
}

CardSet cards_of_suits(unsigned voids) {
  CardSet cards;
  for (int s = 0; s < kSuitCount; ++s) {
    if ((voids >> s) & 1U) cards.add_all(CardSet(std::uint64_t{0x1FFF} << (s * kRankCount)));
  }
  return cards;
}

}  // namespace parlor::bots
