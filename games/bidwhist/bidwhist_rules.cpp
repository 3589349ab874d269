#include "games/bidwhist/bidwhist_rules.h"

namespace parlor::bidwhist {

std::string_view bid_type_name(BidType type) {
  switch (type) {
    case BidType::kUptown:
      return "uptown";
    case BidType::kDowntown:
      return "downtown";
    case BidType::kNoTrump:
      return "no_trump";
  }
  return "?";
}

std::optional<BidType> parse_bid_type(std::string_view text) {
  if (text == "uptown") return BidType::kUptown;
  if (text == "downtown") return BidType::kDowntown;
  if (text == "no_trump") return BidType::kNoTrump;
  return std::nullopt;
}

Json Bid::to_json() const { return {{"books", books}, {"type", bid_type_name(type)}}; }

std::string Bid::describe() const {
  const std::string kind =
      type == BidType::kNoTrump ? "no trump" : std::string(bid_type_name(type));
  return std::to_string(books) + " " + kind;
}

std::string_view direction_name(tricks::Direction direction) {
  return direction == tricks::Direction::kUptown ? "uptown" : "downtown";
}

std::optional<tricks::Direction> parse_direction(std::string_view text) {
  if (text == "uptown") return tricks::Direction::kUptown;
  if (text == "downtown") return tricks::Direction::kDowntown;
  return std::nullopt;
}

std::optional<Suit> parse_suit_letter(std::string_view text) {
  if (text.size() != 1) return std::nullopt;
  switch (text[0]) {
    case 'C':
      return Suit::kClubs;
    case 'D':
      return Suit::kDiamonds;
    case 'H':
      return Suit::kHearts;
    case 'S':
      return Suit::kSpades;
    default:
      return std::nullopt;
  }
}

std::string suit_letter(Suit suit) { return std::string(1, suit_char(suit)); }

Json Contract::to_json() const {
  Json out = {{"declarer", declarer}, {"books", bid.books}, {"type", bid_type_name(bid.type)}};
  if (declared) {
    if (trump) out["trump"] = suit_letter(*trump);
    out["direction"] = direction_name(direction);
  }
  return out;
}

int hand_points(const Bid& bid, int declarer_books) {
  const bool made = declarer_books >= kBookBase + bid.books;
  const int points = made ? declarer_books - kBookBase : -bid.books;
  return bid.type == BidType::kNoTrump ? points * 2 : points;
}

}  // namespace parlor::bidwhist
