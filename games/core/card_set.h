// A set of cards as a 64-bit mask: every deck Parlor deals has at most 54
// cards, so membership, union and "does this hand hold these cards" are single
// instructions and never allocate.
#pragma once

#include <bit>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "games/core/card.h"

namespace parlor {

class CardSet {
 public:
  constexpr CardSet() = default;
  constexpr explicit CardSet(std::uint64_t bits) : bits_(bits) {}
  constexpr CardSet(std::initializer_list<Card> cards) {
    for (Card c : cards) add(c);
  }

  constexpr std::uint64_t bits() const { return bits_; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr int size() const { return std::popcount(bits_); }
  constexpr bool contains(Card c) const { return (bits_ >> c.index()) & 1U; }
  constexpr bool contains_all(CardSet other) const { return (other.bits_ & ~bits_) == 0; }
  constexpr bool intersects(CardSet other) const { return (bits_ & other.bits_) != 0; }

  constexpr void add(Card c) { bits_ |= std::uint64_t{1} << c.index(); }
  constexpr void remove(Card c) { bits_ &= ~(std::uint64_t{1} << c.index()); }
  constexpr void add_all(CardSet other) { bits_ |= other.bits_; }
  constexpr void remove_all(CardSet other) { bits_ &= ~other.bits_; }

  // Lowest card by index (clubs 2 first); the set must not be empty.
  constexpr Card lowest() const { return Card::from_index(std::countr_zero(bits_)); }
  constexpr Card highest() const { return Card::from_index(63 - std::countl_zero(bits_)); }

  // The cards of one suit (never jokers).
  constexpr CardSet of_suit(Suit s) const {
    return CardSet(bits_ & (std::uint64_t{0x1FFF} << (static_cast<int>(s) * kRankCount)));
  }
  // The 13-bit rank mask of one suit: bit (rank-2) set when that rank is present.
  constexpr std::uint32_t rank_bits(Suit s) const {
    return static_cast<std::uint32_t>((bits_ >> (static_cast<int>(s) * kRankCount)) & 0x1FFF);
  }

  friend constexpr CardSet operator|(CardSet a, CardSet b) { return CardSet(a.bits_ | b.bits_); }
  friend constexpr CardSet operator&(CardSet a, CardSet b) { return CardSet(a.bits_ & b.bits_); }
  friend constexpr CardSet operator-(CardSet a, CardSet b) { return CardSet(a.bits_ & ~b.bits_); }
  constexpr bool operator==(const CardSet&) const = default;

  // Iterates cards in index order.
  class Iterator {
   public:
    constexpr explicit Iterator(std::uint64_t bits) : bits_(bits) {}
    constexpr Card operator*() const { return Card::from_index(std::countr_zero(bits_)); }
    constexpr Iterator& operator++() {
      bits_ &= bits_ - 1;
      return *this;
    }
    constexpr bool operator!=(const Iterator& other) const { return bits_ != other.bits_; }

   private:
    std::uint64_t bits_;
  };
  constexpr Iterator begin() const { return Iterator(bits_); }
  constexpr Iterator end() const { return Iterator(0); }

  std::vector<Card> to_vector() const {
    std::vector<Card> out;
    out.reserve(static_cast<std::size_t>(size()));
    for (Card c : *this) out.push_back(c);
    return out;
  }

 private:
  std::uint64_t bits_ = 0;
};

}  // namespace parlor
