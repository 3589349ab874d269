// Cards, suits and ranks as they appear in every deck Parlor deals.
//
// A card is a small integer (0..53) so that sets of cards fit one 64-bit mask
// (see card_set.h). On the wire a card is two characters: rank 2-9 T J Q K A
// then suit C D H S ("3D", "TS", "AH"); the jokers are "LJ" (little) and "BJ"
// (big).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace parlor {

enum class Suit : std::uint8_t { kClubs = 0, kDiamonds = 1, kHearts = 2, kSpades = 3 };
inline constexpr int kSuitCount = 4;

// Ranks carry their face value; the ace is 14 so that "A high" is the natural order.
enum class Rank : std::uint8_t {
  kTwo = 2,
  kThree,
  kFour,
  kFive,
  kSix,
  kSeven,
  kEight,
  kNine,
  kTen,
  kJack,
  kQueen,
  kKing,
  kAce
};
inline constexpr int kRankCount = 13;

class Card {
 public:
  static constexpr std::uint8_t kLittleJokerIndex = 52;
  static constexpr std::uint8_t kBigJokerIndex = 53;
  static constexpr int kIndexCount = 54;

  constexpr Card() = default;
  constexpr Card(Rank rank, Suit suit)
      : index_(static_cast<std::uint8_t>(static_cast<int>(suit) * kRankCount +
                                         (static_cast<int>(rank) - 2))) {}
  static constexpr Card from_index(int index) {
    Card c;
    c.index_ = static_cast<std::uint8_t>(index);
    return c;
  }
  static constexpr Card little_joker() { return from_index(kLittleJokerIndex); }
  static constexpr Card big_joker() { return from_index(kBigJokerIndex); }

  constexpr int index() const { return index_; }
  constexpr bool is_joker() const { return index_ >= kLittleJokerIndex; }
  // Only meaningful for non-jokers.
  constexpr Suit suit() const { return static_cast<Suit>(index_ / kRankCount); }
  constexpr Rank rank() const { return static_cast<Rank>(index_ % kRankCount + 2); }

  std::string to_string() const;

  constexpr auto operator<=>(const Card&) const = default;

 private:
  std::uint8_t index_ = 0;
};

// Parses a wire card. On failure returns nullopt and, when `error` is given,
// a message that says what was wrong with the text.
std::optional<Card> parse_card(std::string_view text, std::string* error = nullptr);

char rank_char(Rank rank);
char suit_char(Suit suit);
std::string_view suit_name(Suit suit);  // "clubs", "diamonds", ...

}  // namespace parlor
