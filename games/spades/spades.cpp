#include "games/spades/spades.h"

#include <string>
#include <string_view>

#include "games/core/deck.h"
#include "games/core/json_cards.h"
#include "games/core/json_text.h"
#include "games/core/options.h"

namespace parlor {
namespace spades {
namespace {

using tricks::kTeamCount;
using tricks::left_of;
using tricks::team_of;

const tricks::StandardTrickRules kRules(Suit::kSpades);

constexpr int kMaxBid = 13;
constexpr Seat kFirstDealer = 3;

// Each hand is dealt from its own seed so that hands never depend on an Rng carried in the
// state (which would make the state large to clone and hash).
std::uint64_t hand_seed(std::uint64_t seed, int hand_number) {
  return seed + static_cast<std::uint64_t>(hand_number - 1) * 0x9E3779B97F4A7C15ULL;
}

std::array<CardSet, kSeats> shuffled_hands(std::uint64_t seed, int hand_number, Seat dealer) {
  const auto cards = shuffled(standard_deck(), hand_seed(seed, hand_number));
  const auto dealt = tricks::deal_hands(cards, kSeats, kHandSize, left_of(dealer, kSeats));
  std::array<CardSet, kSeats> hands;
  for (std::size_t i = 0; i < hands.size(); ++i) hands[i] = dealt[i];
  return hands;
}

const char* phase_name(SpadesGame::Phase phase) {
  switch (phase) {
    case SpadesGame::Phase::kLook:
      return "look";
    case SpadesGame::Phase::kBid:
      return "bid";
    case SpadesGame::Phase::kPlay:
      return "play";
    case SpadesGame::Phase::kHandOver:
      return "hand_over";
    case SpadesGame::Phase::kFinished:
      return "finished";
  }
  return "?";
}

// A short rendering of a JSON value for messages, never long whatever the client sent.
std::string quoted(const Json& value) {
  std::string text = value.dump();
  if (text.size() > 12) text = text.substr(0, 12) + "...";
  return text;
}

std::string seat_name(Seat seat) { return "seat " + std::to_string(seat); }

}  // namespace

SpadesGame::SpadesGame(const Json& options, std::uint64_t seed)
    : target_(static_cast<int>(option_int(options, "target"))),
      nil_rule_(option_string(options, "failed_nil") == "count_for_partner"
                    ? NilRule::kCountForPartner
                    : NilRule::kNoCount),
      blind_nil_allowed_(options.at("blind_nil").get<bool>()),
      seed_(seed),
      dealer_(kFirstDealer) {
  deal(shuffled_hands(seed_, hand_number_, dealer_));
}

std::unique_ptr<SpadesGame> SpadesGame::create_with_setup(const Json& options,
                                                          const SpadesSetup& setup,
                                                          std::uint64_t seed) {
  auto game = std::make_unique<SpadesGame>(options, seed);
  game->dealer_ = setup.dealer;
  game->hand_number_ = setup.hand_number;
  game->points_ = setup.points;
  game->bags_ = setup.bags;
  game->deal(setup.hands);
  return game;
}

void SpadesGame::deal(const std::array<CardSet, kSeats>& hands) {
  hands_ = hands;
  looked_.fill(!blind_nil_allowed_);
  bids_.fill(std::nullopt);
  bids_made_ = 0;
  play_ = tricks::TrickPlay(kSeats, left_of(dealer_, kSeats));
  spades_broken_ = false;
  last_trick_.reset();
  phase_ = Phase::kBid;  // before current_seat(), which reads the phase
  if (!looked_[static_cast<std::size_t>(current_seat())]) phase_ = Phase::kLook;
}

Seat SpadesGame::current_seat() const {
  if (phase_ == Phase::kPlay) return play_.to_play();
  if (phase_ == Phase::kHandOver) return tricks::next_dealer(dealer_, kSeats);
  return (dealer_ + 1 + bids_made_) % kSeats;
}

std::vector<Seat> SpadesGame::to_act() const {
  if (finished()) return {};
  return {current_seat()};
}

bool SpadesGame::spade_lead_forbidden(Seat seat) const {
  const CardSet hand = hands_[static_cast<std::size_t>(seat)];
  return !spades_broken_ && hand.of_suit(Suit::kSpades) != hand;
}

Json SpadesGame::legal_moves(Seat seat) const {
  Json moves = Json::array();
  if (finished() || seat != current_seat()) return moves;
  switch (phase_) {
    case Phase::kLook:
      moves.push_back({{"action", "look"}});
      moves.push_back({{"action", "bid"}, {"blind_nil", true}});
      break;
    case Phase::kBid:
      for (int n = 0; n <= kMaxBid; ++n) moves.push_back({{"action", "bid"}, {"tricks", n}});
      break;
    case Phase::kPlay: {
      const CardSet hand = hands_[static_cast<std::size_t>(seat)];
      CardSet legal = tricks::legal_cards(hand, play_.current(), kRules);
      if (play_.current().empty() && spade_lead_forbidden(seat)) {
        legal = legal - hand.of_suit(Suit::kSpades);
      }
      moves = tricks::play_moves(legal);
      break;
    }
    case Phase::kHandOver:
      moves.push_back({{"action", "deal"}});
      break;
    case Phase::kFinished:
      break;
  }
  return moves;
}

Json SpadesGame::prompt(Seat seat) const {
  if (finished() || seat != current_seat()) return nullptr;
  Json actions = phase_ == Phase::kLook       ? Json{"look", "bid"}
                 : phase_ == Phase::kBid      ? Json{"bid"}
                 : phase_ == Phase::kHandOver ? Json{"deal"}
                                              : Json{"play"};
  return {{"actions", std::move(actions)}, {"legal", legal_moves(seat)}};
}

MoveResult SpadesGame::apply(Seat seat, const Json& move) {
  if (finished()) return MoveResult::rejected("game_over", "the game is over");
  const Seat turn = current_seat();
  if (seat != turn) {
    const char* what = phase_ == Phase::kPlay       ? "play"
                       : phase_ == Phase::kHandOver ? "deal"
                                                    : "bid";
    return MoveResult::rejected("not_your_turn", "it is " + seat_name(turn) + "'s turn to " + what);
  }
  std::string error;
  const auto action = action_of(move, error);
  if (!action) return MoveResult::rejected("illegal_move", error);
  if (*action == "play") return apply_play(seat, move);
  if (*action == "bid") return apply_bid(seat, move);
  if (*action == "look") return apply_look(seat);
  if (*action == "deal") return apply_deal();
  return MoveResult::rejected("illegal_move", "unknown action \"" + action->substr(0, 16) +
                                                  "\"; Spades moves are look, bid, play and deal");
}

MoveResult SpadesGame::apply_look(Seat seat) {
  if (phase_ != Phase::kLook) {
    return MoveResult::rejected("wrong_phase",
                                "your cards are already face up; nothing to look at");
  }
  looked_[static_cast<std::size_t>(seat)] = true;
  phase_ = Phase::kBid;
  return MoveResult::accepted(Json::array({{{"type", "look"}, {"seat", seat}}}));
}

MoveResult SpadesGame::apply_deal() {
  if (phase_ != Phase::kHandOver) {
    return MoveResult::rejected("wrong_phase", "the cards are dealt once a hand is over");
  }
  dealer_ = tricks::next_dealer(dealer_, kSeats);
  ++hand_number_;
  deal(shuffled_hands(seed_, hand_number_, dealer_));
  return MoveResult::accepted(
      Json::array({{{"type", "deal"}, {"hand", hand_number_}, {"dealer", dealer_}}}));
}

MoveResult SpadesGame::apply_bid(Seat seat, const Json& move) {
  if (phase_ == Phase::kPlay || phase_ == Phase::kHandOver) {
    return MoveResult::rejected("wrong_phase", "the bidding is over for this hand");
  }
  Json events = Json::array();
  if (move.contains("blind_nil")) {
    if (move["blind_nil"] != true || move.contains("tricks")) {
      return MoveResult::rejected("illegal_bid",
                                  R"(a blind nil bid is {"action":"bid","blind_nil":true})");
    }
    if (!blind_nil_allowed_) {
      return MoveResult::rejected("illegal_bid",
                                  "blind nil is not allowed at this table (option blind_nil)");
    }
    if (phase_ != Phase::kLook) {
      return MoveResult::rejected("illegal_bid",
                                  "blind nil must be bid before looking at your cards");
    }
    record_bid(seat, Bid::blind_nil(), events);
    return MoveResult::accepted(std::move(events));
  }
  if (phase_ == Phase::kLook) {
    return MoveResult::rejected("wrong_phase",
                                "look at your cards ({\"action\":\"look\"}) before bidding "
                                "tricks, or bid blind nil");
  }
  const auto it = move.find("tricks");
  if (it == move.end() || !it->is_number_integer()) {
    return MoveResult::rejected("illegal_bid",
                                "a bid needs \"tricks\": a whole number from 0 (nil) to 13");
  }
  const bool in_range = it->is_number_unsigned()
                            ? it->get<std::uint64_t>() <= kMaxBid
                            : it->get<std::int64_t>() >= 0 && it->get<std::int64_t>() <= kMaxBid;
  if (!in_range) {
    return MoveResult::rejected(
        "illegal_bid", "bid " + quoted(*it) + " is out of range: bid 0 (nil) to 13 tricks");
  }
  record_bid(seat, Bid::of_tricks(static_cast<int>(it->get<std::int64_t>())), events);
  return MoveResult::accepted(std::move(events));
}

void SpadesGame::record_bid(Seat seat, Bid bid, Json& events) {
  bids_[static_cast<std::size_t>(seat)] = bid;
  looked_[static_cast<std::size_t>(seat)] = true;  // a blind nil bidder now picks up the cards
  ++bids_made_;
  events.push_back({{"type", "bid"}, {"seat", seat}, {"bid", bid_json(seat)}});
  if (bids_made_ == kSeats) {
    phase_ = Phase::kPlay;
    events.push_back({{"type", "contracts"}, {"contracts", contracts_json()}});
  } else {
    phase_ = looked_[static_cast<std::size_t>(current_seat())] ? Phase::kBid : Phase::kLook;
  }
}

MoveResult SpadesGame::apply_play(Seat seat, const Json& move) {
  if (phase_ != Phase::kPlay) {
    return MoveResult::rejected("wrong_phase", "cards are played once all four have bid");
  }
  CardSet& hand = hands_[static_cast<std::size_t>(seat)];
  MoveResult rejection;
  const auto card = tricks::check_play(move, hand, play_.current(), kRules, rejection);
  if (!card) return rejection;
  if (play_.current().empty() && card->suit() == Suit::kSpades && spade_lead_forbidden(seat)) {
    return MoveResult::rejected(
        "spades_not_broken", "spades have not been broken: you may not lead " + card->to_string() +
                                 " while you hold other suits");
  }

  Json events = Json::array({{{"type", "play"}, {"seat", seat}, {"card", card->to_string()}}});
  hand.remove(*card);
  if (card->suit() == Suit::kSpades && !spades_broken_) {
    spades_broken_ = true;
    events.push_back({{"type", "spades_broken"}, {"seat", seat}});
  }
  if (const auto winner = play_.play(*card, kRules)) {
    last_trick_ = *play_.last_completed();
    events.push_back({{"type", "trick"},
                      {"number", play_.completed_count()},
                      {"winner", *winner},
                      {"plays", tricks::plays_to_json(last_trick_->trick)}});
    if (play_.completed_count() == kHandSize) finish_hand(events);
  }
  return MoveResult::accepted(std::move(events));
}

void SpadesGame::finish_hand(Json& events) {
  std::vector<int> hand_points(kTeamCount);
  Json detail = {{"bids", Json::array()}, {"tricks", tricks::tricks_won_to_json(play_)}};
  for (Seat s = 0; s < kSeats; ++s) detail["bids"].push_back(bid_json(s));
  Json contracts = Json::array(), made = Json::array(), nil_points = Json::array(),
       bags_taken = Json::array(), penalties = Json::array(), bags_after = Json::array();
  for (int team = 0; team < kTeamCount; ++team) {
    const auto t = static_cast<std::size_t>(team);
    const Bid bids[2] = {*bids_[t], *bids_[t + 2]};
    const int won[2] = {play_.tricks_won(team), play_.tricks_won(team + 2)};
    const TeamHandScore score = score_team_hand(bids, won, nil_rule_);
    const BagUpdate update = add_bags(bags_[t], score.bags);
    hand_points[t] = score.points - update.penalty;
    points_[t] += hand_points[t];
    bags_[t] = update.bags;
    contracts.push_back(score.contract);
    made.push_back(score.made);
    nil_points.push_back(score.nil_points);
    bags_taken.push_back(score.bags);
    penalties.push_back(update.penalty);
    bags_after.push_back(update.bags);
  }
  detail["contracts"] = std::move(contracts);
  detail["made"] = std::move(made);
  detail["nil_points"] = std::move(nil_points);
  detail["bags_taken"] = std::move(bags_taken);
  detail["bag_penalty"] = std::move(penalties);
  detail["bags"] = std::move(bags_after);
  table_.add_hand(hand_points, detail);
  detail["type"] = "hand_end";
  detail["hand"] = hand_number_;
  detail["points"] = hand_points;
  detail["totals"] = points_;
  events.push_back(std::move(detail));

  const bool over = points_[0] >= target_ || points_[1] >= target_ || points_[0] <= kLosingScore ||
                    points_[1] <= kLosingScore;
  if (over && points_[0] != points_[1]) {
    const int winner = points_[0] > points_[1] ? 0 : 1;
    winners_ = {winner, winner + 2};
    phase_ = Phase::kFinished;
    events.push_back({{"type", "game_over"}, {"winners", winners_}, {"team_scores", points_}});
    return;
  }
  phase_ = Phase::kHandOver;
}

namespace {

// A seat's bid on the wire: null before it bids, "nil", "blind_nil" or its tricks.
Json bid_to_json(const std::optional<Bid>& bid) {
  if (!bid) return nullptr;
  switch (bid->kind) {
    case Bid::Kind::kNil:
      return "nil";
    case Bid::Kind::kBlindNil:
      return "blind_nil";
    case Bid::Kind::kTricks:
      break;
  }
  return bid->tricks;
}

}  // namespace

Json SpadesGame::bid_json(Seat seat) const {
  return bid_to_json(bids_[static_cast<std::size_t>(seat)]);
}

Json SpadesGame::contracts_json() const {
  Json out = Json::array();
  for (int team = 0; team < kTeamCount; ++team) {
    const auto& a = bids_[static_cast<std::size_t>(team)];
    const auto& b = bids_[static_cast<std::size_t>(team) + 2];
    if (!a || !b) {
      out.push_back(nullptr);
    } else {
      out.push_back((a->is_nil() ? 0 : a->tricks) + (b->is_nil() ? 0 : b->tricks));
    }
  }
  return out;
}

Json SpadesGame::view(Seat seat) const {
  const bool seated = seat >= 0 && seat < kSeats;
  Json v = Json::object();
  v["phase"] = phase_name(phase_);
  v["you"] = seated ? Json(seat) : Json(nullptr);
  v["hand_number"] = hand_number_;
  v["target"] = target_;
  v["dealer"] = dealer_;
  v["turn"] = finished() ? Json(nullptr) : Json(current_seat());
  v["leader"] = play_.current().leader();
  if (seated) {
    const auto s = static_cast<std::size_t>(seat);
    v["hand"] = looked_[s] ? cards_to_json(hands_[s]) : Json(nullptr);
  }
  Json counts = Json::array(), bids = Json::array();
  for (Seat s = 0; s < kSeats; ++s) {
    counts.push_back(hands_[static_cast<std::size_t>(s)].size());
    bids.push_back(bid_json(s));
  }
  v["hand_counts"] = std::move(counts);
  v["bids"] = std::move(bids);
  if (blind_nil_allowed_) v["looked"] = looked_;
  v["contracts"] = contracts_json();
  v["trick"] = tricks::plays_to_json(play_.current());
  v["last_trick"] = last_trick_ ? tricks::completed_trick_to_json(*last_trick_) : Json(nullptr);
  v["tricks_won"] = tricks::tricks_won_to_json(play_);
  v["team_tricks"] = Json::array({play_.team_tricks_won(0), play_.team_tricks_won(1)});
  v["spades_broken"] = spades_broken_;
  Json scores = Json::array();
  for (std::size_t t = 0; t < kTeamCount; ++t) {
    Json team = Json::object();
    team["points"] = points_[t];
    team["bags"] = bags_[t];
    scores.push_back(std::move(team));
  }
  v["scores"] = std::move(scores);
  // Every hand's points, but the bids/bags breakdown of the last hand only: views stay small.
  v["score_table"] = table_.to_json(table_.hands(), false);
  v["last_hand"] = table_.hands() > 0 ? table_.detail(table_.hands() - 1) : Json(nullptr);
  if (finished()) v["winners"] = winners_;
  return v;
}

// view(seat) as wire text, keys in sorted order (as dump() writes them), without building the
// JSON tree: the server writes every seat's view after every move. The self-play checker holds
// the text to view(seat).dump() after every move of its seeded games.
void SpadesGame::write_view(Seat seat, std::string& out) const {
  const bool seated = seat >= 0 && seat < kSeats;
  write_view_start(out);
  if (seated) write_view_hand(out, seat);
  write_view_middle(out);
  json_text::view_you_and_close(out, seated, seat);
}

void SpadesGame::write_views(std::span<const Seat> seats,
                             std::span<std::string* const> outs) const {
  std::string shared;
  write_view_start(shared);
  const std::size_t middle = shared.size();
  write_view_middle(shared);
  const std::string_view text(shared);
  for (std::size_t i = 0; i < seats.size(); ++i) {
    std::string& out = *outs[i];
    const Seat seat = seats[i];
    const bool seated = seat >= 0 && seat < kSeats;
    out += text.substr(0, middle);
    if (seated) write_view_hand(out, seat);
    out += text.substr(middle);
    json_text::view_you_and_close(out, seated, seat);
  }
}

namespace {

// bid_to_json's value as text.
void write_bid(std::string& out, const std::optional<Bid>& bid) {
  if (!bid) {
    json_text::null(out);
    return;
  }
  switch (bid->kind) {
    case Bid::Kind::kNil:
      out += R"("nil")";
      return;
    case Bid::Kind::kBlindNil:
      out += R"("blind_nil")";
      return;
    case Bid::Kind::kTricks:
      break;
  }
  json_text::integer(out, bid->tricks);
}

}  // namespace

void SpadesGame::write_view_start(std::string& out) const {
  namespace jt = json_text;
  out += '{';
  jt::key(out, "bids");
  out += '[';
  for (std::size_t s = 0; s < kSeats; ++s) {
    if (s > 0) out += ',';
    write_bid(out, bids_[s]);
  }
  out += "],";
  // contracts_json(): a team's summed bid once both partners have bid, else null.
  jt::key(out, "contracts");
  out += '[';
  for (std::size_t team = 0; team < static_cast<std::size_t>(kTeamCount); ++team) {
    if (team > 0) out += ',';
    const auto& a = bids_[team];
    const auto& b = bids_[team + 2];
    if (!a || !b) {
      jt::null(out);
    } else {
      jt::integer(out, (a->is_nil() ? 0 : a->tricks) + (b->is_nil() ? 0 : b->tricks));
    }
  }
  out += "],";
  jt::key(out, "dealer");
  jt::integer(out, dealer_);
}

void SpadesGame::write_view_hand(std::string& out, Seat seat) const {
  const auto s = static_cast<std::size_t>(seat);
  out += ',';
  json_text::key(out, "hand");
  if (looked_[s]) {
    json_text::cards(out, hands_[s]);
  } else {
    json_text::null(out);
  }
}

void SpadesGame::write_view_middle(std::string& out) const {
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
  jt::key(out, "last_hand");
  if (table_.hands() > 0) {
    out += table_.detail_text(table_.hands() - 1);
  } else {
    jt::null(out);
  }
  out += ',';
  jt::key(out, "last_trick");
  if (last_trick_) {
    tricks::write_completed_trick(out, *last_trick_);
  } else {
    jt::null(out);
  }
  out += ',';
  jt::key(out, "leader");
  jt::integer(out, play_.current().leader());
  if (blind_nil_allowed_) {
    out += ',';
    jt::key(out, "looked");
    out += '[';
    for (std::size_t s = 0; s < kSeats; ++s) {
      if (s > 0) out += ',';
      jt::boolean(out, looked_[s]);
    }
    out += ']';
  }
  out += ',';
  jt::key(out, "phase");
  jt::string(out, phase_name(phase_));
  out += ',';
  jt::key(out, "score_table");
  table_.write_json(out, table_.hands(), false);
  out += ',';
  jt::key(out, "scores");
  out += '[';
  for (std::size_t t = 0; t < static_cast<std::size_t>(kTeamCount); ++t) {
    if (t > 0) out += ',';
    out += '{';
    jt::key(out, "bags");
    jt::integer(out, bags_[t]);
    out += ',';
    jt::key(out, "points");
    jt::integer(out, points_[t]);
    out += '}';
  }
  out += "],";
  jt::key(out, "spades_broken");
  jt::boolean(out, spades_broken_);
  out += ',';
  jt::key(out, "target");
  jt::integer(out, target_);
  out += ',';
  jt::key(out, "team_tricks");
  out += '[';
  jt::integer(out, play_.team_tricks_won(0));
  out += ',';
  jt::integer(out, play_.team_tricks_won(1));
  out += "],";
  jt::key(out, "trick");
  tricks::write_plays(out, play_.current());
  out += ',';
  jt::key(out, "tricks_won");
  tricks::write_tricks_won(out, play_);
  out += ',';
  jt::key(out, "turn");
  if (finished()) {
    jt::null(out);
  } else {
    jt::integer(out, current_seat());
  }
  if (finished()) {
    out += ',';
    jt::key(out, "winners");
    jt::integers(out, winners_);
  }
}

Json SpadesGame::result() const {
  if (!finished()) return nullptr;
  Json r = Json::object();
  r["scores"] = Json::array({points_[0], points_[1], points_[0], points_[1]});
  r["winners"] = winners_;
  r["team_scores"] = points_;
  r["bags"] = bags_;
  r["hands"] = hand_number_;
  return r;
}

namespace {

// Groups of full_state() keys that the hash reads interleaved, seat by seat or team by team.
struct SeatFields {  // "hands", "looked", "bids"
  const std::array<CardSet, kSeats>& hands;
  const std::array<bool, kSeats>& looked;
  const std::array<std::optional<Bid>, kSeats>& bids;
};
struct TeamFields {  // "points", "bags"
  const std::array<int, tricks::kTeamCount>& points;
  const std::array<int, tricks::kTeamCount>& bags;
};

Json state_json(const SeatFields& seats) {
  Json bids = Json::array();
  for (const auto& bid : seats.bids) bids.push_back(bid_to_json(bid));
  return {{"hands", state_json(seats.hands)}, {"looked", seats.looked}, {"bids", std::move(bids)}};
}
void hash_state(tricks::StateWriter& out, const SeatFields& seats) {
  for (std::size_t s = 0; s < kSeats; ++s) {
    out.add(seats.hands[s]);
    out.add(seats.looked[s]);
    const auto& bid = seats.bids[s];
    out.add(bid ? static_cast<int>(bid->kind) : -1);
    out.add(bid ? bid->tricks : -1);
  }
}

Json state_json(const TeamFields& teams) {
  return {{"points", teams.points}, {"bags", teams.bags}};
}
void hash_state(tricks::StateWriter& out, const TeamFields& teams) {
  for (std::size_t t = 0; t < tricks::kTeamCount; ++t) {
    out.add(teams.points[t]);
    out.add(teams.bags[t]);
  }
}

}  // namespace

// Every field of the state, once, in the order state_hash() reads them.
template <class Fields>
void SpadesGame::visit_state(Fields& f) const {
  f.field("seed", seed_);
  f.field("target", target_);
  f.field("failed_nil",
          HashedAs{static_cast<int>(nil_rule_),
                   nil_rule_ == NilRule::kNoCount ? "no_count" : "count_for_partner"});
  f.field("blind_nil", blind_nil_allowed_);
  f.field("phase", HashedAs{static_cast<int>(phase_), phase_name(phase_)});
  f.field("hand_number", hand_number_);
  f.field("dealer", dealer_);
  f.fields(SeatFields{hands_, looked_, bids_});
  f.hash_only(bids_made_);  // full_state(): the bids made so far
  // Cards of this hand's completed tricks (who won what is in tricks_won; the moves log has
  // the full play order).
  f.fields(tricks::TrickPlayFields{play_});
  f.field("spades_broken", spades_broken_);
  f.field("last_trick", last_trick_);
  f.fields(TeamFields{points_, bags_});
  f.field("score_table", table_);
  f.field("winners", winners_);
}

Json SpadesGame::full_state() const {
  StateJson out;
  visit_state(out);
  return out.take();
}

std::uint64_t SpadesGame::state_hash() const {
  tricks::StateWriterFields out;
  visit_state(out);
  return out.hash();
}

}  // namespace spades

GameInfo spades_info() {
  GameInfo info;
  info.kind = "spades";
  info.name = "Spades";
  info.description = "Partnership trick-taking: bid your tricks, spades are always trump.";
  info.rules_url = "https://www.pagat.com/auctionwhist/spades.html";
  info.min_seats = spades::kSeats;
  info.max_seats = spades::kSeats;
  info.default_seats = spades::kSeats;
  info.options = {
      OptionSpec::integer("target", 500, 100, 1000,
                          "points a team needs to win (a team at -200 loses)"),
      OptionSpec::choice(
          "failed_nil",
          {{"no_count", "a nil bidder's tricks never help the partner's bid; they count as bags"},
           {"count_for_partner", "a nil bidder's tricks count toward the partner's bid"}},
          "what a nil bidder's tricks count for"),
      OptionSpec::boolean("blind_nil", false,
                          "allow blind nil (+/-200), bid before looking at one's cards"),
  };
  info.options.back().variant = true;
  info.create = [](const Json& options, int, std::uint64_t seed) -> std::unique_ptr<Game> {
    return std::make_unique<spades::SpadesGame>(options, seed);
  };
  return info;
}

}  // namespace parlor
