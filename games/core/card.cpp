#include "games/core/card.h"

namespace parlor {
namespace {
constexpr std::string_view kRankChars = "23456789TJQKA";
constexpr std::string_view kSuitChars = "CDHS";
}  // namespace

char rank_char(Rank rank) { return kRankChars[static_cast<int>(rank) - 2]; }
char suit_char(Suit suit) { return kSuitChars[static_cast<int>(suit)]; }

std::string_view suit_name(Suit suit) {
  switch (suit) {
    case Suit::kClubs:
      return "clubs";
    case Suit::kDiamonds:
      return "diamonds";
    case Suit::kHearts:
      return "hearts";
    case Suit::kSpades:
      return "spades";
  }
  return "?";
}

std::string Card::to_string() const {
  if (index_ == kLittleJokerIndex) return "LJ";
  if (index_ == kBigJokerIndex) return "BJ";
  return std::string{rank_char(rank()), suit_char(suit())};
}

std::optional<Card> parse_card(std::string_view text, std::string* error) {
  auto fail = [&](std::string message) -> std::optional<Card> {
    if (error) *error = std::move(message);
    return std::nullopt;
  };
  // Quote a short, printable-ASCII prefix: an abusive string never ends up in a message in
  // full, and a cut multi-byte character can never make the message invalid UTF-8.
  auto quoted = [&] {
    std::string out = "\"";
    for (char c : text.substr(0, 8)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
    out.append(text.size() > 8 ? "...\"" : "\"");
    return out;
  };
  if (text.size() != 2) {
    return fail("card " + quoted() +
                " must be two characters: rank (2-9, T, J, Q, K, A) and suit (C, D, H, S), "
                "or LJ/BJ for a joker");
  }
  if (text == "LJ") return Card::little_joker();
  if (text == "BJ") return Card::big_joker();
  const auto rank_pos = kRankChars.find(text[0]);
  if (rank_pos == std::string_view::npos) {
    return fail("card " + quoted() + " has an unknown rank; expected one of 2-9, T, J, Q, K, A");
  }
  const auto suit_pos = kSuitChars.find(text[1]);
  if (suit_pos == std::string_view::npos) {
    return fail("card " + quoted() + " has an unknown suit; expected one of C, D, H, S");
  }
  return Card(static_cast<Rank>(rank_pos + 2), static_cast<Suit>(suit_pos));
}

}  // namespace parlor
