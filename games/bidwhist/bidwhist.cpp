#include "games/bidwhist/bidwhist.h"

#include <algorithm>
#include <string_view>

#include "games/core/deck.h"
#include "games/core/json_cards.h"
#include "games/core/json_text.h"
#include "games/core/state_fields.h"

namespace parlor {
namespace bidwhist {
namespace {

MoveResult reject(std::string code, std::string message) {
  return MoveResult::rejected(std::move(code), std::move(message));
}

// Each hand is shuffled from its own seed so that a hand's deal depends only on (seed, hand
// number), never on how many random numbers earlier hands used. SplitMix64 finalizer.
std::uint64_t hand_seed(std::uint64_t seed, int hand_number) {
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * static_cast<std::uint64_t>(hand_number);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// A client-supplied string quoted in a message, cut short so abuse never fills a message.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  out.append(text, 0, 16);
  out.append(text.size() > 16 ? "...\"" : "\"");
  return out;
}

std::string seat_name(Seat seat) { return "seat " + std::to_string(seat); }

// The lowest bid that beats `high` (nullopt: nothing does).
std::optional<Bid> lowest_bid_above(const std::optional<Bid>& high) {
  for (int books = kMinBid; books <= kMaxBid; ++books) {
    for (BidType type : {BidType::kUptown, BidType::kNoTrump}) {
      const Bid bid{books, type};
      if (!high || bid.beats(*high)) return bid;
    }
  }
  return std::nullopt;
}

// move["books"] when it is an integer bid size (3..7), checked before any get<> so that huge,
// negative or fractional numbers are refused rather than converted.
std::optional<int> bid_books(const Json& move) {
  const auto it = move.find("books");
  if (it == move.end() || !it->is_number_integer()) return std::nullopt;
  if (it->is_number_unsigned()) {
    const auto books = it->get<std::uint64_t>();
    if (books > kMaxBid) return std::nullopt;
    return static_cast<int>(books) >= kMinBid ? std::optional<int>(static_cast<int>(books))
                                              : std::nullopt;
  }
  const auto books = it->get<std::int64_t>();
  if (books < kMinBid || books > kMaxBid) return std::nullopt;
  return static_cast<int>(books);
}

// Each seat's latest call: "pass", its bid, or null before it calls.
Json bids_to_json(const std::array<std::optional<Bid>, kSeats>& bids,
                  const std::array<bool, kSeats>& passed) {
  Json out = Json::array();
  for (std::size_t s = 0; s < kSeats; ++s) {
    if (passed[s]) {
      out.push_back("pass");
    } else if (bids[s]) {
      out.push_back(bids[s]->to_json());
    } else {
      out.push_back(nullptr);
    }
  }
  return out;
}

}  // namespace

std::string_view phase_name(Phase phase) {
  switch (phase) {
    case Phase::kBidding:
      return "bidding";
    case Phase::kDeclaring:
      return "declaring";
    case Phase::kDiscarding:
      return "discarding";
    case Phase::kPlaying:
      return "playing";
    case Phase::kHandOver:
      return "hand_over";
    case Phase::kFinished:
      return "finished";
  }
  return "?";
}

BidWhistGame::BidWhistGame(Auction auction, int target, std::uint64_t seed)
    : auction_(auction), target_(target), seed_(seed) {
  // Seat 3 deals first so that seat 0 speaks first (as in Spades); the deal then passes left.
  dealer_ = kSeats - 1;
  deal_from_seed();
}

std::unique_ptr<BidWhistGame> BidWhistGame::create_with_deal(
    Auction auction, int target, Seat dealer, const std::array<CardSet, kSeats>& hands,
    CardSet kitty, std::uint64_t seed) {
  auto game = std::make_unique<BidWhistGame>(auction, target, seed);
  game->dealer_ = dealer;
  game->deal_hand(hands, kitty);
  return game;
}

void BidWhistGame::deal_from_seed() {
  const std::vector<Card> cards = shuffled(deck_with_jokers(), hand_seed(seed_, hand_number_));
  const std::vector<CardSet> dealt =
      tricks::deal_hands(cards, kSeats, kHandSize, tricks::left_of(dealer_, kSeats));
  std::array<CardSet, kSeats> hands{};
  std::copy(dealt.begin(), dealt.end(), hands.begin());
  CardSet kitty;
  for (std::size_t i = std::size_t{kSeats} * kHandSize; i < cards.size(); ++i) kitty.add(cards[i]);
  deal_hand(hands, kitty);
}

void BidWhistGame::deal_hand(const std::array<CardSet, kSeats>& hands, CardSet kitty) {
  phase_ = Phase::kBidding;
  hands_ = hands;
  kitty_ = kitty;
  kitty_taken_ = false;
  discarded_ = CardSet();
  bids_ = {};
  passed_ = {};
  high_bid_.reset();
  high_bidder_ = -1;
  bidder_ = tricks::left_of(dealer_, kSeats);
  contract_ = Contract();
  rules_ = tricks::StandardTrickRules();
  play_ = tricks::TrickPlay(kSeats, bidder_);
}

// ---------------------------------------------------------------------------------------------
// Whose turn, what is legal

Seat BidWhistGame::turn() const {
  switch (phase_) {
    case Phase::kBidding:
      return bidder_;
    case Phase::kDeclaring:
    case Phase::kDiscarding:
      return contract_.declarer;
    case Phase::kPlaying:
      return play_.to_play();
    case Phase::kHandOver:
      return tricks::next_dealer(dealer_, kSeats);
    case Phase::kFinished:
      return -1;
  }
  return -1;
}

std::vector<Seat> BidWhistGame::to_act() const {
  if (phase_ == Phase::kFinished) return {};
  return {turn()};
}

bool BidWhistGame::must_bid(Seat seat) const {
  if (high_bid_) return false;
  for (Seat s = 0; s < kSeats; ++s) {
    if (s != seat && !passed_[static_cast<std::size_t>(s)]) return false;
  }
  return true;
}

Json BidWhistGame::bidding_moves(Seat seat) const {
  Json moves = Json::array();
  if (!must_bid(seat)) moves.push_back({{"action", "pass"}});
  for (int books = kMinBid; books <= kMaxBid; ++books) {
    for (BidType type : {BidType::kUptown, BidType::kDowntown, BidType::kNoTrump}) {
      const Bid bid{books, type};
      if (high_bid_ && !bid.beats(*high_bid_)) continue;
      moves.push_back({{"action", "bid"}, {"books", books}, {"type", bid_type_name(type)}});
    }
  }
  return moves;
}

Json BidWhistGame::legal_moves(Seat seat) const {
  Json moves = Json::array();
  if (phase_ == Phase::kFinished || seat != turn()) return moves;
  switch (phase_) {
    case Phase::kBidding:
      return bidding_moves(seat);
    case Phase::kDeclaring:
      if (contract_.no_trump()) {
        for (auto d : {tricks::Direction::kUptown, tricks::Direction::kDowntown}) {
          moves.push_back({{"action", "declare"}, {"direction", direction_name(d)}});
        }
      } else {
        for (int s = 0; s < kSuitCount; ++s) {
          moves.push_back({{"action", "declare"}, {"trump", suit_letter(static_cast<Suit>(s))}});
        }
      }
      return moves;
    case Phase::kDiscarding:
      return moves;  // any 6 of 18: see prompt()'s "choose"
    case Phase::kPlaying:
      for (Card c : tricks::legal_cards(hands_[seat], play_.current(), rules_)) {
        moves.push_back({{"action", "play"}, {"card", c.to_string()}});
      }
      return moves;
    case Phase::kHandOver:
      moves.push_back({{"action", "deal"}});
      return moves;
    case Phase::kFinished:
      return moves;
  }
  return moves;
}

Json BidWhistGame::prompt(Seat seat) const {
  if (phase_ == Phase::kFinished || seat != turn()) return nullptr;
  Json actions = Json::array();
  switch (phase_) {
    case Phase::kBidding:
      if (lowest_bid_above(high_bid_)) actions.push_back("bid");
      if (!must_bid(seat)) actions.push_back("pass");
      break;
    case Phase::kDeclaring:
      actions.push_back("declare");
      break;
    case Phase::kDiscarding:
      return {{"actions", {"discard"}},
              {"choose",
               {{"action", "discard"},
                {"field", "cards"},
                {"count", kKittySize},
                {"from", cards_to_json(hands_[seat])}}}};
    case Phase::kPlaying:
      actions.push_back("play");
      break;
    case Phase::kHandOver:
      actions.push_back("deal");
      break;
    case Phase::kFinished:
      break;
  }
  return {{"actions", std::move(actions)}, {"legal", legal_moves(seat)}};
}

// ---------------------------------------------------------------------------------------------
// Moves

MoveResult BidWhistGame::apply(Seat seat, const Json& move) {
  if (phase_ == Phase::kFinished) return reject("game_over", "the game is over");
  const Seat waiting = turn();
  if (seat != waiting) {
    return reject("not_your_turn", "it is " + seat_name(waiting) + "'s turn (" +
                                       std::string(phase_name(phase_)) + ")");
  }
  std::string error;
  const auto action = action_of(move, error);
  if (!action) return reject("illegal_move", error);

  struct Route {
    std::string_view action;
    Phase phase;
  };
  static constexpr Route kRoutes[] = {
      {"bid", Phase::kBidding},        {"pass", Phase::kBidding}, {"declare", Phase::kDeclaring},
      {"discard", Phase::kDiscarding}, {"play", Phase::kPlaying}, {"deal", Phase::kHandOver}};
  const Route* route = nullptr;
  for (const Route& r : kRoutes) {
    if (r.action == *action) route = &r;
  }
  if (!route) {
    return reject("illegal_move", "unknown action " + quoted(*action) +
                                      "; Bid Whist moves are bid, pass, declare, discard, "
                                      "play and deal");
  }
  if (route->phase != phase_) {
    return reject("wrong_phase", "\"" + std::string(route->action) +
                                     "\" is not possible now: " + "the game is in the " +
                                     std::string(phase_name(phase_)) + " phase");
  }
  if (*action == "bid") return apply_bid(seat, move);
  if (*action == "pass") return apply_pass(seat);
  if (*action == "declare") return apply_declare(seat, move);
  if (*action == "discard") return apply_discard(seat, move);
  if (*action == "play") return apply_play(seat, move);
  return apply_deal(seat);
}

MoveResult BidWhistGame::apply_bid(Seat seat, const Json& move) {
  const auto books = bid_books(move);
  if (!books) {
    const auto it = move.find("books");
    return reject("illegal_bid", "a bid needs \"books\": an integer from 3 to 7 (books over six)" +
                                     std::string(it != move.end() && it->is_number()
                                                     ? "; got " + it->dump().substr(0, 24)
                                                     : ""));
  }
  const auto type_it = move.find("type");
  const auto type = type_it != move.end() && type_it->is_string()
                        ? parse_bid_type(type_it->get_ref<const std::string&>())
                        : std::nullopt;
  if (!type) {
    return reject("illegal_bid",
                  R"(a bid needs "type": "uptown", "downtown" or "no_trump")" +
                      std::string(type_it != move.end() && type_it->is_string()
                                      ? "; got " + quoted(type_it->get<std::string>())
                                      : ""));
  }
  const Bid bid{*books, *type};
  if (high_bid_ && !bid.beats(*high_bid_)) {
    const auto lowest = lowest_bid_above(high_bid_);
    return reject("bid_too_low", "a bid of " + bid.describe() + " does not beat the high bid, " +
                                     high_bid_->describe() + " by " + seat_name(high_bidder_) +
                                     (lowest ? "; the lowest bid now is " + lowest->describe()
                                             : "; nothing beats it, so you can only pass"));
  }
  Json events = Json::array();
  bids_[static_cast<std::size_t>(seat)] = bid;
  high_bid_ = bid;
  high_bidder_ = seat;
  events.push_back({{"type", "bid"}, {"seat", seat}, {"bid", bid.to_json()}});
  advance_auction(events);
  return MoveResult::accepted(std::move(events));
}

MoveResult BidWhistGame::apply_pass(Seat seat) {
  if (must_bid(seat)) {
    return reject("must_bid",
                  "the other three players passed: as dealer you must bid (3 to 7 books, "
                  "uptown, downtown or no_trump)");
  }
  Json events = Json::array();
  passed_[static_cast<std::size_t>(seat)] = true;
  events.push_back({{"type", "pass"}, {"seat", seat}});
  advance_auction(events);
  return MoveResult::accepted(std::move(events));
}

Seat BidWhistGame::next_bidder(Seat after) const {
  Seat s = tricks::next_seat(after, kSeats);
  if (auction_ == Auction::kUntilPassed) {
    while (passed_[static_cast<std::size_t>(s)]) s = tricks::next_seat(s, kSeats);
  }
  return s;
}

void BidWhistGame::advance_auction(Json& events) {
  bool over = false;
  if (auction_ == Auction::kOnceAround) {
    over = bidder_ == dealer_;
  } else {
    const auto active = std::count(passed_.begin(), passed_.end(), false);
    over = high_bid_ && active == 1;
  }
  if (!over) {
    bidder_ = next_bidder(bidder_);
    return;
  }
  contract_ = Contract();
  contract_.declarer = high_bidder_;
  contract_.bid = *high_bid_;
  phase_ = Phase::kDeclaring;
  events.push_back(
      {{"type", "auction_won"}, {"seat", high_bidder_}, {"bid", high_bid_->to_json()}});
}

MoveResult BidWhistGame::apply_declare(Seat seat, const Json& move) {
  const bool has_trump = move.contains("trump");
  const bool has_direction = move.contains("direction");
  const std::string contract_name = contract_.bid.describe();
  if (contract_.no_trump()) {
    const auto& field = has_direction ? move["direction"] : Json();
    const auto direction =
        field.is_string() ? parse_direction(field.get_ref<const std::string&>()) : std::nullopt;
    if (has_trump || !direction) {
      return reject("illegal_move", "a " + contract_name +
                                        " contract has no trump: declare the direction, "
                                        "{\"action\":\"declare\",\"direction\":\"uptown\"} or "
                                        "\"downtown\"");
    }
    contract_.direction = *direction;
  } else {
    const auto& field = has_trump ? move["trump"] : Json();
    const auto trump =
        field.is_string() ? parse_suit_letter(field.get_ref<const std::string&>()) : std::nullopt;
    if (has_direction || !trump) {
      return reject("illegal_move", "a " + contract_name +
                                        " contract names a trump suit: "
                                        "{\"action\":\"declare\",\"trump\":\"S\"} with C, D, H "
                                        "or S (the direction comes with the bid)");
    }
    contract_.trump = *trump;
    contract_.direction = contract_.bid.type == BidType::kUptown ? tricks::Direction::kUptown
                                                                 : tricks::Direction::kDowntown;
  }
  contract_.declared = true;
  rules_ = contract_.trick_rules();
  // The declarer takes the kitty with the declaration: 18 cards, then discards 6.
  hands_[static_cast<std::size_t>(seat)].add_all(kitty_);
  kitty_taken_ = true;
  phase_ = Phase::kDiscarding;
  Json declared = {
      {"type", "declare"}, {"seat", seat}, {"direction", direction_name(contract_.direction)}};
  if (contract_.trump) declared["trump"] = suit_letter(*contract_.trump);
  Json events = Json::array();
  events.push_back(std::move(declared));
  events.push_back({{"type", "kitty_taken"}, {"seat", seat}, {"count", kKittySize}});
  return MoveResult::accepted(std::move(events));
}

MoveResult BidWhistGame::apply_discard(Seat seat, const Json& move) {
  const auto it = move.find("cards");
  if (it != move.end() && it->is_array() && it->size() != kKittySize) {
    return reject("wrong_discard_count",
                  "discard exactly 6 cards; you sent " + std::to_string(it->size()));
  }
  std::string error;
  const auto cards = cards_field(move, "cards", kKittySize, error);
  if (!cards) return reject("illegal_move", error);
  CardSet& hand = hands_[static_cast<std::size_t>(seat)];
  if (!hand.contains_all(*cards)) {
    return reject("card_not_held", "you do not hold " + (*cards - hand).lowest().to_string() +
                                       "; discard 6 of your 18 cards");
  }
  hand.remove_all(*cards);
  discarded_ = *cards;
  phase_ = Phase::kPlaying;
  play_ = tricks::TrickPlay(kSeats, seat);
  Json events = Json::array();
  events.push_back({{"type", "discard"}, {"seat", seat}, {"count", kKittySize}});
  return MoveResult::accepted(std::move(events));
}

MoveResult BidWhistGame::apply_play(Seat seat, const Json& move) {
  std::string error;
  const auto card = card_field(move, "card", error);
  if (!card) return reject("illegal_move", error);
  CardSet& hand = hands_[static_cast<std::size_t>(seat)];
  if (!hand.contains(*card)) return reject("card_not_held", "you do not hold " + card->to_string());
  if (auto why = tricks::follow_suit_error(hand, play_.current(), *card, rules_)) {
    return reject("must_follow_suit", *why);
  }
  hand.remove(*card);
  Json events = Json::array();
  events.push_back({{"type", "play"}, {"seat", seat}, {"card", card->to_string()}});
  if (const auto winner = play_.play(*card, rules_)) {
    events.push_back({{"type", "trick"},
                      {"winner", *winner},
                      {"plays", tricks::plays_to_json(play_.last_completed()->trick)}});
    if (play_.completed_count() == kHandSize) finish_hand(events);
  }
  return MoveResult::accepted(std::move(events));
}

void BidWhistGame::finish_hand(Json& events) {
  const int team = tricks::team_of(contract_.declarer);
  const int books = team_books(team);
  const int points = hand_points(contract_.bid, books);
  std::vector<int> row(tricks::kTeamCount, 0);
  row[static_cast<std::size_t>(team)] = points;
  last_hand_ = HandScore{hand_number_, contract_.declarer, contract_.bid, books, points};
  scores_.add_hand(
      row, {{"declarer", contract_.declarer}, {"bid", contract_.bid.to_json()}, {"books", books}});
  Json scored = hand_score_json(*last_hand_);
  scored["type"] = "hand_scored";
  events.push_back(std::move(scored));

  const int total = scores_.total(team);
  if (total >= target_) winning_team_ = team;
  if (total <= -target_) winning_team_ = 1 - team;
  if (winning_team_ < 0) {
    phase_ = Phase::kHandOver;
    return;
  }
  phase_ = Phase::kFinished;
  events.push_back({{"type", "game_over"}, {"winners", result()["winners"]}});
}

MoveResult BidWhistGame::apply_deal(Seat seat) {
  ++hand_number_;
  dealer_ = seat;
  deal_from_seed();
  Json events = Json::array();
  events.push_back({{"type", "deal"}, {"hand", hand_number_}, {"dealer", dealer_}});
  return MoveResult::accepted(std::move(events));
}

// ---------------------------------------------------------------------------------------------
// Views

int BidWhistGame::team_books(int team) const {
  const bool discard_book = !discarded_.empty() && tricks::team_of(contract_.declarer) == team;
  return play_.team_tricks_won(team) + (discard_book ? 1 : 0);
}

Json BidWhistGame::bids_json() const { return bids_to_json(bids_, passed_); }

Json BidWhistGame::view(Seat seat) const {
  const bool seated = seat >= 0 && seat < kSeats;
  const bool in_auction = phase_ == Phase::kBidding;
  Json v = {{"phase", phase_name(phase_)}, {"you", seated ? Json(seat) : Json(nullptr)}};
  if (seated) v["hand"] = cards_to_json(hands_[static_cast<std::size_t>(seat)]);
  Json counts = Json::array();
  for (CardSet h : hands_) counts.push_back(h.size());
  v["hand_counts"] = std::move(counts);
  v["hand_number"] = hand_number_;
  v["dealer"] = dealer_;
  v["turn"] = phase_ == Phase::kFinished ? Json(nullptr) : Json(turn());
  v["target"] = target_;
  v["bids"] = bids_json();
  Json high_bid = nullptr;
  if (high_bid_) {
    high_bid = high_bid_->to_json();
    high_bid["seat"] = high_bidder_;
  }
  v["high_bid"] = std::move(high_bid);
  v["contract"] = in_auction ? Json(nullptr) : contract_.to_json();
  v["kitty_count"] = kitty_taken_ ? 0 : kKittySize;
  if (seated && phase_ == Phase::kDiscarding && seat == contract_.declarer) {
    v["kitty"] = cards_to_json(kitty_ & hands_[static_cast<std::size_t>(seat)]);
  }
  const tricks::Trick& trick = play_.current();
  v["trick"] = tricks::plays_to_json(trick);
  v["leader"] = phase_ == Phase::kPlaying ? Json(trick.leader()) : Json(nullptr);
  v["led_suit"] = trick.led_suit() ? Json(suit_letter(*trick.led_suit())) : Json(nullptr);
  const auto* last = play_.last_completed();
  v["last_trick"] = last ? tricks::completed_trick_to_json(*last) : Json(nullptr);
  v["tricks_won"] = tricks::tricks_won_to_json(play_);
  v["books"] = {team_books(0), team_books(1)};
  v["scores"] = scores_.totals();
  v["last_hand"] = last_hand_ ? hand_score_json(*last_hand_) : Json(nullptr);
  return v;
}

// view(seat) as wire text, keys in sorted order (as dump() writes them), without building the
// JSON tree: the server writes every seat's view after every move. The self-play checker holds
// the text to view(seat).dump() after every move of its seeded games.
void BidWhistGame::write_view(Seat seat, std::string& out) const {
  const bool seated = seat >= 0 && seat < kSeats;
  write_view_start(out);
  if (seated) write_view_hand(out, seat);
  write_view_middle(out);
  if (seated) write_view_kitty(out, seat);
  write_view_end(out);
  json_text::view_you_and_close(out, seated, seat);
}

void BidWhistGame::write_views(std::span<const Seat> seats,
                               std::span<std::string* const> outs) const {
  std::string shared;
  write_view_start(shared);
  const std::size_t middle = shared.size();
  write_view_middle(shared);
  const std::size_t end = shared.size();
  write_view_end(shared);
  const std::string_view text(shared);
  for (std::size_t i = 0; i < seats.size(); ++i) {
    std::string& out = *outs[i];
    const Seat seat = seats[i];
    const bool seated = seat >= 0 && seat < kSeats;
    out += text.substr(0, middle);
    if (seated) write_view_hand(out, seat);
    out += text.substr(middle, end - middle);
    if (seated) write_view_kitty(out, seat);
    out += text.substr(end);
    json_text::view_you_and_close(out, seated, seat);
  }
}

namespace {

// Bid::to_json() as text, with the bidder's seat when `seat` is given (the view's high_bid).
void write_bid(std::string& out, const Bid& bid, std::optional<Seat> seat = std::nullopt) {
  namespace jt = json_text;
  out += '{';
  jt::key(out, "books");
  jt::integer(out, bid.books);
  out += ',';
  if (seat) {
    jt::key(out, "seat");
    jt::integer(out, *seat);
    out += ',';
  }
  jt::key(out, "type");
  jt::string(out, bid_type_name(bid.type));
  out += '}';
}

}  // namespace

void BidWhistGame::write_view_start(std::string& out) const {
  namespace jt = json_text;
  out += '{';
  jt::key(out, "bids");
  out += '[';
  for (std::size_t s = 0; s < kSeats; ++s) {
    if (s > 0) out += ',';
    if (passed_[s]) {
      out += R"("pass")";
    } else if (bids_[s]) {
      write_bid(out, *bids_[s]);
    } else {
      jt::null(out);
    }
  }
  out += "],";
  jt::key(out, "books");
  out += '[';
  jt::integer(out, team_books(0));
  out += ',';
  jt::integer(out, team_books(1));
  out += "],";
  jt::key(out, "contract");
  if (phase_ == Phase::kBidding) {
    jt::null(out);
  } else {  // Contract::to_json()
    out += '{';
    jt::key(out, "books");
    jt::integer(out, contract_.bid.books);
    out += ',';
    jt::key(out, "declarer");
    jt::integer(out, contract_.declarer);
    if (contract_.declared) {
      out += ',';
      jt::key(out, "direction");
      jt::string(out, direction_name(contract_.direction));
    }
    if (contract_.declared && contract_.trump) {
      out += ',';
      jt::key(out, "trump");
      jt::string(out, suit_letter(*contract_.trump));
    }
    out += ',';
    jt::key(out, "type");
    jt::string(out, bid_type_name(contract_.bid.type));
    out += '}';
  }
  out += ',';
  jt::key(out, "dealer");
  jt::integer(out, dealer_);
}

void BidWhistGame::write_view_hand(std::string& out, Seat seat) const {
  out += ',';
  json_text::key(out, "hand");
  json_text::cards(out, hands_[static_cast<std::size_t>(seat)]);
}

void BidWhistGame::write_view_middle(std::string& out) const {
  namespace jt = json_text;
  out += ',';
  jt::key(out, "hand_counts");
  out += '[';
  for (std::size_t s = 0; s < kSeats; ++s) {
    if (s > 0) out += ',';
    jt::integer(out, hands_[s].size());
  }
  out += "],";
  jt::key(out, "hand_number");
  jt::integer(out, hand_number_);
  out += ',';
  jt::key(out, "high_bid");
  if (high_bid_) {
    write_bid(out, *high_bid_, high_bidder_);
  } else {
    jt::null(out);
  }
}

void BidWhistGame::write_view_kitty(std::string& out, Seat seat) const {
  if (phase_ != Phase::kDiscarding || seat != contract_.declarer) return;
  out += ',';
  json_text::key(out, "kitty");
  json_text::cards(out, kitty_ & hands_[static_cast<std::size_t>(seat)]);
}

void BidWhistGame::write_view_end(std::string& out) const {
  namespace jt = json_text;
  out += ',';
  jt::key(out, "kitty_count");
  jt::integer(out, kitty_taken_ ? 0 : kKittySize);
  out += ',';
  jt::key(out, "last_hand");
  if (last_hand_) {  // hand_score_json()
    const HandScore& score = *last_hand_;
    const int team = tricks::team_of(score.declarer);
    out += '{';
    jt::key(out, "bid");
    write_bid(out, score.bid);
    out += ',';
    jt::key(out, "books");
    jt::integer(out, score.books);
    out += ',';
    jt::key(out, "declarer");
    jt::integer(out, score.declarer);
    out += ',';
    jt::key(out, "hand");
    jt::integer(out, score.hand);
    out += ',';
    jt::key(out, "made");
    jt::boolean(out, score.books >= kBookBase + score.bid.books);
    out += ',';
    jt::key(out, "points");
    out += '[';
    jt::integer(out, team == 0 ? score.points : 0);
    out += ',';
    jt::integer(out, team == 1 ? score.points : 0);
    out += "],";
    jt::key(out, "scores");
    jt::integers(out, scores_.totals());
    out += ',';
    jt::key(out, "team");
    jt::integer(out, team);
    out += '}';
  } else {
    jt::null(out);
  }
  const tricks::Trick& trick = play_.current();
  out += ',';
  jt::key(out, "last_trick");
  if (const auto* last = play_.last_completed()) {
    tricks::write_completed_trick(out, *last);
  } else {
    jt::null(out);
  }
  out += ',';
  jt::key(out, "leader");
  if (phase_ == Phase::kPlaying) {
    jt::integer(out, trick.leader());
  } else {
    jt::null(out);
  }
  out += ',';
  jt::key(out, "led_suit");
  if (trick.led_suit()) {
    jt::string(out, suit_letter(*trick.led_suit()));
  } else {
    jt::null(out);
  }
  out += ',';
  jt::key(out, "phase");
  jt::string(out, phase_name(phase_));
  out += ',';
  jt::key(out, "scores");
  jt::integers(out, scores_.totals());
  out += ',';
  jt::key(out, "target");
  jt::integer(out, target_);
  out += ',';
  jt::key(out, "trick");
  tricks::write_plays(out, trick);
  out += ',';
  jt::key(out, "tricks_won");
  tricks::write_tricks_won(out, play_);
  out += ',';
  jt::key(out, "turn");
  if (phase_ == Phase::kFinished) {
    jt::null(out);
  } else {
    jt::integer(out, turn());
  }
}

Json BidWhistGame::hand_score_json(const HandScore& score) const {
  return bidwhist::hand_score_json(score, scores_.totals());
}

Json hand_score_json(const HandScore& score, const std::vector<int>& totals) {
  const int team = tricks::team_of(score.declarer);
  Json points = Json::array({0, 0});
  points[static_cast<std::size_t>(team)] = score.points;
  return {{"hand", score.hand},
          {"declarer", score.declarer},
          {"team", team},
          {"bid", score.bid.to_json()},
          {"books", score.books},
          {"made", score.books >= kBookBase + score.bid.books},
          {"points", std::move(points)},
          {"scores", totals}};
}

Json BidWhistGame::result() const {
  if (phase_ != Phase::kFinished) return nullptr;
  Json scores = Json::array();
  Json winners = Json::array();
  for (Seat s = 0; s < kSeats; ++s) {
    scores.push_back(scores_.total(tricks::team_of(s)));
    if (tricks::team_of(s) == winning_team_) winners.push_back(s);
  }
  return {{"scores", std::move(scores)},
          {"winners", std::move(winners)},
          {"team_scores", scores_.totals()},
          {"winning_team", winning_team_},
          {"hands", scores_.hands()}};
}

// full_state()'s faces of the auction's types (outside the unnamed namespace below, so that
// argument-dependent lookup finds them).
static Json state_json(const Bid& bid) { return bid.to_json(); }
static Json state_json(const Contract& contract) { return contract.to_json(); }

namespace {

// An integer the hash writes in N bytes.
template <int N, class T>
struct Bytes {
  T value;
};
template <int N, class T>
Bytes<N, T> bytes(T value) {
  return {value};
}
template <int N, class T>
Json state_json(const Bytes<N, T>& value) {
  return Json(value.value);
}

// Groups of full_state() keys that the hash reads as one run of bytes.
struct KittyFields {  // "kitty" (undealt until taken) and "kitty_taken" (the cards it brought)
  CardSet kitty;
  bool taken;
};
struct AuctionSeatFields {  // "bids": each seat's latest call, "pass" or null
  const std::array<std::optional<Bid>, kSeats>& bids;
  const std::array<bool, kSeats>& passed;
};
struct PlayFields {  // "trick", "leader", "played", "last_trick", "tricks_won"
  const tricks::TrickPlay& play;
};

struct LastHandField {  // the last scored hand, shown with the totals after it
  const std::optional<HandScore>& score;
  const std::vector<int>& totals;
};

Json state_json(const LastHandField& last) {
  return last.score ? hand_score_json(*last.score, last.totals) : Json(nullptr);
}
Json state_json(const KittyFields& kitty) {
  const Json cards = cards_to_json(kitty.kitty);
  return {{"kitty", kitty.taken ? Json::array() : cards},
          {"kitty_taken", kitty.taken ? cards : Json::array()}};
}
Json state_json(const AuctionSeatFields& auction) {
  return {{"bids", bids_to_json(auction.bids, auction.passed)}};
}
Json state_json(const PlayFields& fields) {
  const tricks::TrickPlay& play = fields.play;
  return {
      {"trick", tricks::plays_to_json(play.current())},
      {"leader", play.current().leader()},
      {"played", cards_to_json(play.played())},
      {"last_trick", play.last_completed() ? tricks::completed_trick_to_json(*play.last_completed())
                                           : Json(nullptr)},
      {"tricks_won", tricks::tricks_won_to_json(play)}};
}

// state_hash(): the fields as little-endian fixed-width bytes (negative values in two's
// complement) through FNV-1a. At most ~100 fixed bytes plus 12 tricks of 10 bytes and the
// trick in progress.
class ByteFields : public HashFields<ByteFields> {
 public:
  std::uint64_t hash() const { return stable_hash(std::string_view(bytes_.data(), size_)); }

  template <int N, class T>
  void add(const Bytes<N, T>& value) {
    put(static_cast<std::int64_t>(value.value), N);
  }
  template <class Hashed, class Shown>
  void add(const HashedAs<Hashed, Shown>& value) {
    add(value.hashed);
  }
  void add(CardSet cards) { put(static_cast<std::int64_t>(cards.bits()), 8); }
  template <std::size_t N>
  void add(const std::array<CardSet, N>& sets) {
    for (CardSet cards : sets) add(cards);
  }
  void add(const Bid& bid) {
    put(bid.books, 1);
    put(static_cast<int>(bid.type), 1);
  }
  void add(const std::optional<Bid>& bid) {
    put(bid.has_value(), 1);
    if (bid) add(*bid);
  }
  void add(const Contract& contract) {
    put(contract.declarer, 1);
    add(contract.bid);
    put(contract.declared, 1);
    put(contract.trump ? static_cast<int>(*contract.trump) : -1, 1);
    put(static_cast<int>(contract.direction), 1);
  }
  void add(const KittyFields& kitty) {
    add(kitty.kitty);
    put(kitty.taken, 1);
  }
  void add(const AuctionSeatFields& auction) {
    for (std::size_t s = 0; s < kSeats; ++s) {
      put(auction.passed[s], 1);
      add(auction.bids[s]);
    }
  }
  void add(const tricks::Trick& trick) {
    put(trick.leader(), 1);
    put(trick.size(), 1);
    for (const tricks::Play& p : trick.plays()) {
      put(p.seat, 1);
      put(p.card.index(), 1);
    }
  }
  void add(const PlayFields& fields) {
    const tricks::TrickPlay& play = fields.play;
    add(play.current());
    put(play.completed_count(), 1);
    for (const tricks::CompletedTrick& t : play.history()) {
      add(t.trick);
      put(t.winner, 1);
    }
    for (Seat s = 0; s < kSeats; ++s) put(play.tricks_won(s), 1);
    add(play.played());
  }
  void add(const LastHandField& last) {
    put(last.score.has_value(), 1);
    if (!last.score) return;
    put(last.score->hand, 4);
    put(last.score->declarer, 1);
    add(last.score->bid);
    put(last.score->books, 1);
    put(last.score->points, 2);
  }
  // The hash reads the number of hands scored and the totals (the rows' detail follows
  // from the moves).
  void add(const tricks::ScoreTable& scores) {
    put(scores.hands(), 4);
    for (int total : scores.totals()) put(total, 4);
  }

 private:
  friend class HashFields<ByteFields>;
  void put(std::int64_t value, int width) {
    const auto bits = static_cast<std::uint64_t>(value);
    for (int i = 0; i < width; ++i) bytes_[size_++] = static_cast<char>((bits >> (8 * i)) & 0xFF);
  }

  std::array<char, 512> bytes_{};
  std::size_t size_ = 0;
};

}  // namespace

// Every field of the state, once, in the order state_hash() reads them.
template <class Fields>
void BidWhistGame::visit_state(Fields& f) const {
  f.json_only("kind", [] { return Json("bidwhist"); });
  f.field("seed", bytes<8>(seed_));
  f.field("auction", HashedAs{bytes<1>(static_cast<int>(auction_)),
                              auction_ == Auction::kOnceAround ? "once_around" : "until_passed"});
  f.field("target", bytes<2>(target_));
  f.field("hand_number", bytes<4>(hand_number_));
  f.field("dealer", bytes<1>(dealer_));
  f.field("phase", HashedAs{bytes<1>(static_cast<int>(phase_)), phase_name(phase_)});
  f.field("hands", hands_);
  f.fields(KittyFields{kitty_, kitty_taken_});
  f.field("discarded", discarded_);
  f.fields(AuctionSeatFields{bids_, passed_});
  f.field("high_bid", high_bid_);
  f.field("high_bidder", bytes<1>(high_bidder_));
  f.field("bidder", bytes<1>(bidder_));
  f.field("contract", contract_);
  f.fields(PlayFields{play_});
  f.field("scores", scores_);
  f.field("last_hand", LastHandField{last_hand_, scores_.totals()});
  f.field("winning_team", bytes<1>(winning_team_));
}

Json BidWhistGame::full_state() const {
  StateJson out;
  visit_state(out);
  return out.take();
}

std::uint64_t BidWhistGame::state_hash() const {
  ByteFields out;
  visit_state(out);
  return out.hash();
}

}  // namespace bidwhist

GameInfo bidwhist_info() {
  GameInfo info;
  info.kind = "bidwhist";
  info.name = "Bid Whist";
  info.description =
      "Partnership trick-taking with two jokers: bid books uptown, downtown or no trump, take "
      "the kitty, and make your contract.";
  info.rules_url = "https://www.pagat.com/auctionwhist/bidwhist.html";
  info.min_seats = bidwhist::kSeats;
  info.max_seats = bidwhist::kSeats;
  info.default_seats = bidwhist::kSeats;
  info.options = {
      OptionSpec::choice("auction",
                         {{"once_around",
                           "each player bids or passes once, starting left of the dealer; the "
                           "dealer must bid if the first three pass"},
                          {"until_passed",
                           "bidding goes round until all but one player have passed (a pass is "
                           "final)"}},
                         "how the auction ends"),
      OptionSpec::integer("target", 7, 1, 21,
                          "points to win; a team at minus this many points loses"),
  };
  info.create = [](const Json& options, int /*seats*/,
                   std::uint64_t seed) -> std::unique_ptr<Game> {
    const auto auction = option_string(options, "auction") == "until_passed"
                             ? bidwhist::Auction::kUntilPassed
                             : bidwhist::Auction::kOnceAround;
    return std::make_unique<bidwhist::BidWhistGame>(
        auction, static_cast<int>(option_int(options, "target")), seed);
  };
  return info;
}

}  // namespace parlor
