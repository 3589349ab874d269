#include "bots/hidden_deal.h"

#include <algorithm>
#include <numeric>

#include "bots/view_reading.h"

namespace parlor::bots {
namespace {

// Restarts before giving up. Void constraints rarely make a random deal fail more than a few
// times; a deal that fails this often is almost certainly impossible.
constexpr int kTries = 64;

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

}  // namespace

std::optional<std::vector<CardSet>> deal_hidden(CardSet unknown, std::span<const HiddenHand> hands,
                                                Rng& rng) {
  std::vector<std::size_t> order(hands.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return (unknown & hands[a].excluded).size() > (unknown & hands[b].excluded).size();
  });
  for (int attempt = 0; attempt < kTries; ++attempt) {
    if (auto dealt = try_deal(unknown, hands, order, rng)) return dealt;
  }
  return std::nullopt;
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
