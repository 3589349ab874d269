#include "games/bigtwo/plays.h"

#include <array>
#include <bit>
#include <cstdint>

namespace parlor::bigtwo {
namespace {

constexpr int kRanks = kRankCount;

// Core rank index (0 = two .. 12 = ace) <-> Big Two rank strength (0 = three .. 12 = two).
constexpr int strength_of_rank_index(int index) { return (index + 12) % kRanks; }
constexpr int rank_index_of_strength(int strength) { return (strength + 1) % kRanks; }

// The hand grouped by rank, each rank's cards in ascending suit strength.
struct ByRank {
  std::array<int, kRanks> count{};
  std::array<std::array<std::uint64_t, 4>, kRanks> bit{};
  std::array<std::array<int, 4>, kRanks> suit_strength{};
};

class Generator {
 public:
  Generator(CardSet hand, const Hand* table, CardSet required, const HandRules& rules,
            std::vector<Play>& out)
      : hand_(hand), table_(table), required_(required.bits()), rules_(rules), out_(out) {
    std::array<Suit, 4> suits{};
    for (int s = 0; s < kSuitCount; ++s) {
      suits[suit_strength(static_cast<Suit>(s), rules.suit_order)] = static_cast<Suit>(s);
    }
    for (int b = 0; b < kRanks; ++b) {
      const int index = rank_index_of_strength(b);
      for (int k = 0; k < 4; ++k) {
        const std::uint64_t bit = std::uint64_t{1} << (static_cast<int>(suits[k]) * kRanks + index);
        if ((hand.bits() & bit) == 0) continue;
        const int n = by_rank_.count[b]++;
        by_rank_.bit[b][n] = bit;
        by_rank_.suit_strength[b][n] = k;
      }
    }
  }

  void run() {
    const int size = table_ ? table_->size : 0;
    if (size == 0 || size == 1) singles();
    if (size == 0 || size == 2) pairs();
    if (size == 0 || size == 3) triples();
    if (size == 0 || size == 5) five_card_hands();
  }

 private:
  void emit(std::uint64_t bits, Combination type, std::uint8_t size, std::uint32_t strength) {
    if (table_ && strength <= table_->strength) return;
    if ((bits & required_) != required_) return;
    out_.push_back({CardSet(bits), Hand{type, size, strength}});
  }

  void singles() {
    for (int b = 0; b < kRanks; ++b) {
      for (int k = 0; k < by_rank_.count[b]; ++k) {
        emit(by_rank_.bit[b][k], Combination::kSingle, 1,
             static_cast<std::uint32_t>(b * 4 + by_rank_.suit_strength[b][k]));
      }
    }
  }

  void pairs() {
    for (int b = 0; b < kRanks; ++b) {
      const int n = by_rank_.count[b];
      for (int high = 1; high < n; ++high) {
        for (int low = 0; low < high; ++low) {
          emit(by_rank_.bit[b][low] | by_rank_.bit[b][high], Combination::kPair, 2,
               static_cast<std::uint32_t>(b * 4 + by_rank_.suit_strength[b][high]));
        }
      }
    }
  }

  // The triples of rank b (each as a mask), returned in `out`; returns how many.
  int triples_of(int b, std::array<std::uint64_t, 4>& out) const {
    const int n = by_rank_.count[b];
    if (n < 3) return 0;
    const auto& bits = by_rank_.bit[b];
    const std::uint64_t all = bits[0] | bits[1] | bits[2] | (n == 4 ? bits[3] : 0);
    if (n == 3) {
      out[0] = all;
      return 1;
    }
    for (int skip = 0; skip < 4; ++skip) out[skip] = all & ~bits[skip];
    return 4;
  }

  void triples() {
    std::array<std::uint64_t, 4> found{};
    for (int b = 0; b < kRanks; ++b) {
      const int n = triples_of(b, found);
      for (int i = 0; i < n; ++i) {
        emit(found[i], Combination::kTriple, 3, static_cast<std::uint32_t>(b));
      }
    }
  }

  void five_card_hands() {
    const Combination floor = table_ ? table_->combination : Combination::kStraight;
    straights(floor > Combination::kStraight);
    if (floor <= Combination::kFlush) flushes();
    if (floor <= Combination::kFullHouse) full_houses();
    if (floor <= Combination::kFourOfAKind) fours();
  }

  // Straights and straight flushes; with `flush_only`, straight flushes alone.
  void straights(bool flush_only) {
    std::uint32_t present = 0;
    for (int s = 0; s < kSuitCount; ++s) present |= hand_.rank_bits(static_cast<Suit>(s));
    const auto list = straights_for(rules_.straights);
    for (std::size_t q = 0; q < list.size(); ++q) {
      const Straight& straight = list[q];
      if ((present & straight.ranks) != straight.ranks) continue;
      std::array<int, 5> b{};  // the sequence's ranks as Big Two strengths
      int top = 0;             // position of the tie-breaking card in b
      int n = 0;
      for (std::uint32_t rest = straight.ranks; rest != 0; rest &= rest - 1) {
        const int index = std::countr_zero(rest);
        if (index == static_cast<int>(straight.top) - 2) top = n;
        b[n++] = strength_of_rank_index(index);
      }
      if (flush_only) {
        straight_flushes(straight, static_cast<int>(q));
      } else {
        straight_product(b, top, static_cast<int>(q));
      }
    }
  }

  void straight_flushes(const Straight& straight, int index) {
    for (int s = 0; s < kSuitCount; ++s) {
      const auto suit = static_cast<Suit>(s);
      if ((hand_.rank_bits(suit) & straight.ranks) != straight.ranks) continue;
      const std::uint64_t bits = std::uint64_t{straight.ranks} << (s * kRanks);
      emit(bits, Combination::kStraightFlush, 5,
           five_card_strength(Combination::kStraightFlush,
                              straight_within(index, suit_strength(suit, rules_.suit_order))));
    }
  }

  // Every choice of one card per rank of the sequence.
  void straight_product(const std::array<int, 5>& b, int top, int index) {
    const auto& bit = by_rank_.bit;
    const auto& count = by_rank_.count;
    std::array<int, 5> k{};
    for (k[0] = 0; k[0] < count[b[0]]; ++k[0]) {
      for (k[1] = 0; k[1] < count[b[1]]; ++k[1]) {
        for (k[2] = 0; k[2] < count[b[2]]; ++k[2]) {
          for (k[3] = 0; k[3] < count[b[3]]; ++k[3]) {
            for (k[4] = 0; k[4] < count[b[4]]; ++k[4]) {
              const std::uint64_t bits = bit[b[0]][k[0]] | bit[b[1]][k[1]] | bit[b[2]][k[2]] |
                                         bit[b[3]][k[3]] | bit[b[4]][k[4]];
              const int top_suit = by_rank_.suit_strength[b[top]][k[top]];
              const Combination type =
                  one_suit(bits) ? Combination::kStraightFlush : Combination::kStraight;
              emit(bits, type, 5, five_card_strength(type, straight_within(index, top_suit)));
            }
          }
        }
      }
    }
  }

  static bool one_suit(std::uint64_t bits) {
    for (int s = 0; s < kSuitCount; ++s) {
      const std::uint64_t suit_mask = std::uint64_t{0x1FFF} << (s * kRanks);
      if ((bits & ~suit_mask) == 0) return true;
    }
    return false;
  }

  // Five cards of one suit that are not a straight (those are straight flushes).
  void flushes() {
    for (int s = 0; s < kSuitCount; ++s) {
      const auto suit = static_cast<Suit>(s);
      const std::uint32_t ranks = hand_.rank_bits(suit);
      const int n = std::popcount(ranks);
      if (n < 5) continue;
      std::array<std::uint32_t, kRanks> single{};
      int m = 0;
      for (std::uint32_t rest = ranks; rest != 0; rest &= rest - 1) single[m++] = rest & -rest;
      const int strength = suit_strength(suit, rules_.suit_order);
      for (int a = 0; a < n; ++a) {
        for (int b = a + 1; b < n; ++b) {
          for (int c = b + 1; c < n; ++c) {
            for (int d = c + 1; d < n; ++d) {
              for (int e = d + 1; e < n; ++e) {
                const std::uint32_t chosen =
                    single[a] | single[b] | single[c] | single[d] | single[e];
                if (straight_index(chosen, rules_.straights) >= 0) continue;
                emit(std::uint64_t{chosen} << (s * kRanks), Combination::kFlush, 5,
                     five_card_strength(Combination::kFlush, flush_within(chosen, strength)));
              }
            }
          }
        }
      }
    }
  }

  void full_houses() {
    std::array<std::uint64_t, 4> found{};
    for (int three = 0; three < kRanks; ++three) {
      const int triple_count = triples_of(three, found);
      if (triple_count == 0) continue;
      const std::uint32_t strength =
          five_card_strength(Combination::kFullHouse, static_cast<std::uint32_t>(three));
      for (int two = 0; two < kRanks; ++two) {
        const int n = by_rank_.count[two];
        if (two == three || n < 2) continue;
        for (int high = 1; high < n; ++high) {
          for (int low = 0; low < high; ++low) {
            const std::uint64_t pair = by_rank_.bit[two][low] | by_rank_.bit[two][high];
            for (int t = 0; t < triple_count; ++t) {
              emit(found[t] | pair, Combination::kFullHouse, 5, strength);
            }
          }
        }
      }
    }
  }

  void fours() {
    for (int b = 0; b < kRanks; ++b) {
      if (by_rank_.count[b] != 4) continue;
      const auto& bits = by_rank_.bit[b];
      const std::uint64_t four = bits[0] | bits[1] | bits[2] | bits[3];
      const std::uint32_t strength =
          five_card_strength(Combination::kFourOfAKind, static_cast<std::uint32_t>(b));
      for (std::uint64_t rest = hand_.bits() & ~four; rest != 0; rest &= rest - 1) {
        emit(four | (rest & -rest), Combination::kFourOfAKind, 5, strength);
      }
    }
  }

  CardSet hand_;
  const Hand* table_;
  std::uint64_t required_;
  const HandRules& rules_;
  std::vector<Play>& out_;
  ByRank by_rank_;
};

}  // namespace

void generate_plays(CardSet hand, const Hand* table, CardSet required, const HandRules& rules,
                    std::vector<Play>& out) {
  Generator(hand, table, required, rules, out).run();
}

}  // namespace parlor::bigtwo
