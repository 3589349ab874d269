// Bid Whist's pure rules, kept apart from the state machine so each can be tested by table:
// bids and how they rank, contracts and the card order they impose, and the score of a hand.
//
// Rules source: https://www.pagat.com/auctionwhist/bidwhist.html (see README.md beside this
// file for the choices made where house rules differ).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "games/core/card.h"
#include "games/core/game.h"
#include "games/tricks/tricks.h"

namespace parlor::bidwhist {

inline constexpr int kSeats = 4;
inline constexpr int kHandSize = 12;
inline constexpr int kKittySize = 6;
inline constexpr int kMinBid = 3;
inline constexpr int kMaxBid = 7;
// Books a contract needs on top of its bid: a bid of N promises 6 + N of the 13 books.
inline constexpr int kBookBase = 6;
inline constexpr int kBooksPerHand = 13;

enum class BidType : std::uint8_t { kUptown, kDowntown, kNoTrump };

std::string_view bid_type_name(BidType type);  // "uptown", "downtown", "no_trump"
std::optional<BidType> parse_bid_type(std::string_view text);

struct Bid {
  int books = kMinBid;  // books over six, kMinBid..kMaxBid
  BidType type = BidType::kUptown;

  // Uptown and downtown rank equal; no trump beats a suit bid of the same number.
  int strength() const { return books * 2 + (type == BidType::kNoTrump ? 1 : 0); }
  bool beats(const Bid& other) const { return strength() > other.strength(); }

  Json to_json() const;          // {"books":4,"type":"no_trump"}
  std::string describe() const;  // "4 no trump"
  bool operator==(const Bid&) const = default;
};

// What the auction's winner plays: the bid, then (once declared) the trump suit for an uptown
// or downtown bid, or the direction for no trump.
struct Contract {
  Seat declarer = 0;
  Bid bid;
  bool declared = false;
  std::optional<Suit> trump;  // set for uptown/downtown once declared
  tricks::Direction direction = tricks::Direction::kUptown;

  bool no_trump() const { return bid.type == BidType::kNoTrump; }
  // The card order of the contract, once declared.
  tricks::StandardTrickRules trick_rules() const {
    return tricks::StandardTrickRules(trump, direction);
  }
  Json to_json() const;
};

std::string_view direction_name(tricks::Direction direction);  // "uptown", "downtown"
std::optional<tricks::Direction> parse_direction(std::string_view text);
// "C", "D", "H", "S" on the wire.
std::optional<Suit> parse_suit_letter(std::string_view text);
std::string suit_letter(Suit suit);

// Points the declaring team scores for a hand in which it took `declarer_books` books (the
// discard book included): + (books - 6) when it made 6 + bid, otherwise - bid; no trump doubles
// either way. The defenders score nothing.
int hand_points(const Bid& bid, int declarer_books);

}  // namespace parlor::bidwhist
