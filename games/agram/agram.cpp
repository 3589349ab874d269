#include "games/agram/agram.h"

#include <string>
#include <string_view>

#include "games/core/deck.h"
#include "games/core/json_cards.h"
#include "games/core/json_text.h"
#include "games/core/options.h"

namespace parlor {
namespace agram {
namespace {

// No trump, ace high: the led suit's highest card wins; off-suit cards never do.
const tricks::StandardTrickRules kRules(std::nullopt);

std::uint64_t deal_seed(std::uint64_t seed, int deal_number) {
  return seed + static_cast<std::uint64_t>(deal_number - 1) * 0x9E3779B97F4A7C15ULL;
}

const char* phase_name(AgramGame::Phase phase) {
  switch (phase) {
    case AgramGame::Phase::kPlay:
      return "play";
    case AgramGame::Phase::kDealOver:
      return "deal_over";
    case AgramGame::Phase::kFinished:
      return "finished";
  }
  return "?";
}

std::vector<CardSet> shuffled_hands(std::uint64_t seed, int deal_number, int seats, Seat dealer) {
  const auto cards = shuffled(agram_deck(), deal_seed(seed, deal_number));
  return tricks::deal_hands(cards, seats, kHandSize, tricks::left_of(dealer, seats));
}

}  // namespace

CardSet agram_deck() {
  return stripped_deck({Rank::kAce, Rank::kTen, Rank::kNine, Rank::kEight, Rank::kSeven, Rank::kSix,
                        Rank::kFive, Rank::kFour, Rank::kThree},
                       CardSet{Card(Rank::kAce, Suit::kSpades)});
}

AgramGame::AgramGame(const Json& options, int seats, std::uint64_t seed)
    : seats_(seats),
      target_(static_cast<int>(option_int(options, "target"))),
      seed_(seed),
      dealer_(seats - 1),
      scores_(static_cast<std::size_t>(seats), 0) {
  deal(shuffled_hands(seed_, deal_number_, seats_, dealer_));
}

std::unique_ptr<AgramGame> AgramGame::create_with_hands(const Json& options,
                                                        const std::vector<CardSet>& hands,
                                                        Seat dealer, std::uint64_t seed) {
  auto game = std::make_unique<AgramGame>(options, static_cast<int>(hands.size()), seed);
  game->dealer_ = dealer;
  game->deal(hands);
  return game;
}

void AgramGame::deal(std::vector<CardSet> hands) {
  hands_ = std::move(hands);
  undealt_ = agram_deck();
  for (CardSet hand : hands_) undealt_.remove_all(hand);
  play_ = tricks::TrickPlay(seats_, tricks::left_of(dealer_, seats_));
  last_trick_.reset();
  phase_ = Phase::kPlay;
}

Seat AgramGame::current_seat() const {
  return phase_ == Phase::kDealOver ? tricks::next_dealer(dealer_, seats_) : play_.to_play();
}

std::vector<Seat> AgramGame::to_act() const {
  if (finished()) return {};
  return {current_seat()};
}

Json AgramGame::legal_moves(Seat seat) const {
  if (finished() || seat != current_seat()) return Json::array();
  if (phase_ == Phase::kDealOver) return Json::array({{{"action", "deal"}}});
  return tricks::play_moves(
      tricks::legal_cards(hands_[static_cast<std::size_t>(seat)], play_.current(), kRules));
}

Json AgramGame::prompt(Seat seat) const {
  if (finished() || seat != current_seat()) return nullptr;
  Json p = Json::object();
  p["actions"] = Json::array({phase_ == Phase::kDealOver ? "deal" : "play"});
  p["legal"] = legal_moves(seat);
  return p;
}

MoveResult AgramGame::apply(Seat seat, const Json& move) {
  if (finished()) return MoveResult::rejected("game_over", "the game is over");
  const Seat turn = current_seat();
  if (seat != turn) {
    return MoveResult::rejected("not_your_turn",
                                "it is seat " + std::to_string(turn) + "'s turn to " +
                                    (phase_ == Phase::kDealOver ? "deal" : "play"));
  }
  std::string error;
  const auto action = action_of(move, error);
  if (!action) return MoveResult::rejected("illegal_move", error);
  if (*action == "play") return apply_play(seat, move);
  if (*action == "deal") return apply_deal();
  return MoveResult::rejected("illegal_move", "unknown action \"" + action->substr(0, 16) +
                                                  "\"; Agram moves are play and deal");
}

MoveResult AgramGame::apply_deal() {
  if (phase_ != Phase::kDealOver) {
    return MoveResult::rejected("wrong_phase", "the next deal starts once this one is over");
  }
  dealer_ = tricks::next_dealer(dealer_, seats_);
  ++deal_number_;
  deal(shuffled_hands(seed_, deal_number_, seats_, dealer_));
  return MoveResult::accepted(
      Json::array({{{"type", "deal"}, {"deal", deal_number_}, {"dealer", dealer_}}}));
}

MoveResult AgramGame::apply_play(Seat seat, const Json& move) {
  if (phase_ != Phase::kPlay) {
    return MoveResult::rejected("wrong_phase",
                                R"(the deal is over; the next dealer deals ({"action":"deal"}))");
  }
  CardSet& hand = hands_[static_cast<std::size_t>(seat)];
  MoveResult rejection;
  const auto card = tricks::check_play(move, hand, play_.current(), kRules, rejection);
  if (!card) return rejection;

  Json events = Json::array({{{"type", "play"}, {"seat", seat}, {"card", card->to_string()}}});
  hand.remove(*card);
  const auto winner = play_.play(*card, kRules);
  if (!winner) return MoveResult::accepted(std::move(events));

  last_trick_ = *play_.last_completed();
  events.push_back({{"type", "trick"},
                    {"number", play_.completed_count()},
                    {"winner", *winner},
                    {"plays", tricks::plays_to_json(last_trick_->trick)}});
  if (play_.completed_count() < kHandSize) return MoveResult::accepted(std::move(events));

  // The sixth trick: its winner takes the deal.
  last_deal_winner_ = *winner;
  const int score = ++scores_[static_cast<std::size_t>(*winner)];
  events.push_back(
      {{"type", "deal_end"}, {"deal", deal_number_}, {"winner", *winner}, {"scores", scores_}});
  if (score >= target_) {
    winners_ = {*winner};
    phase_ = Phase::kFinished;
    events.push_back({{"type", "game_over"}, {"winners", winners_}, {"scores", scores_}});
  } else {
    phase_ = Phase::kDealOver;
  }
  return MoveResult::accepted(std::move(events));
}

Json AgramGame::view(Seat seat) const {
  const bool seated = seat >= 0 && seat < seats_;
  Json v = Json::object();
  v["phase"] = phase_name(phase_);
  v["you"] = seated ? Json(seat) : Json(nullptr);
  v["deal_number"] = deal_number_;
  v["target"] = target_;
  v["dealer"] = dealer_;
  v["turn"] = finished() ? Json(nullptr) : Json(current_seat());
  v["leader"] = play_.current().leader();
  if (seated) v["hand"] = cards_to_json(hands_[static_cast<std::size_t>(seat)]);
  Json counts = Json::array();
  for (CardSet hand : hands_) counts.push_back(hand.size());
  v["hand_counts"] = std::move(counts);
  v["trick_number"] = play_.completed_count() + (phase_ == Phase::kPlay ? 1 : 0);
  v["trick"] = tricks::plays_to_json(play_.current());
  v["last_trick"] = last_trick_ ? tricks::completed_trick_to_json(*last_trick_) : Json(nullptr);
  v["tricks_won"] = tricks::tricks_won_to_json(play_);
  v["scores"] = scores_;
  v["last_deal_winner"] = last_deal_winner_ ? Json(*last_deal_winner_) : Json(nullptr);
  if (finished()) v["winners"] = winners_;
  return v;
}

// view(seat) as wire text, keys in sorted order (as dump() writes them), without building the
// JSON tree: the server writes every seat's view after every move. The self-play checker holds
// the text to view(seat).dump() after every move of its seeded games.
void AgramGame::write_view(Seat seat, std::string& out) const {
  const bool seated = seat >= 0 && seat < seats_;
  write_view_start(out);
  if (seated) write_view_hand(out, seat);
  write_view_middle(out);
  json_text::view_you_and_close(out, seated, seat);
}

void AgramGame::write_views(std::span<const Seat> seats, std::span<std::string* const> outs) const {
  std::string shared;
  write_view_start(shared);
  const std::size_t middle = shared.size();
  write_view_middle(shared);
  const std::string_view text(shared);
  for (std::size_t i = 0; i < seats.size(); ++i) {
    std::string& out = *outs[i];
    const Seat seat = seats[i];
    const bool seated = seat >= 0 && seat < seats_;
    out += text.substr(0, middle);
    if (seated) write_view_hand(out, seat);
    out += text.substr(middle);
    json_text::view_you_and_close(out, seated, seat);
  }
}

void AgramGame::write_view_start(std::string& out) const {
  namespace jt = json_text;
  out += '{';
  jt::key(out, "deal_number");
  jt::integer(out, deal_number_);
  out += ',';
  jt::key(out, "dealer");
  jt::integer(out, dealer_);
}

void AgramGame::write_view_hand(std::string& out, Seat seat) const {
  out += ',';
  json_text::key(out, "hand");
  json_text::cards(out, hands_[static_cast<std::size_t>(seat)]);
}

void AgramGame::write_view_middle(std::string& out) const {
  namespace jt = json_text;
  out += ',';
  jt::key(out, "hand_counts");
  out += '[';
  jt::Separator comma;
  for (CardSet hand : hands_) {
    comma(out);
    jt::integer(out, hand.size());
  }
  out += "],";
  jt::key(out, "last_deal_winner");
  if (last_deal_winner_) {
    jt::integer(out, *last_deal_winner_);
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
  out += ',';
  jt::key(out, "phase");
  jt::string(out, phase_name(phase_));
  out += ',';
  jt::key(out, "scores");
  jt::integers(out, scores_);
  out += ',';
  jt::key(out, "target");
  jt::integer(out, target_);
  out += ',';
  jt::key(out, "trick");
  tricks::write_plays(out, play_.current());
  out += ',';
  jt::key(out, "trick_number");
  jt::integer(out, play_.completed_count() + (phase_ == Phase::kPlay ? 1 : 0));
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

Json AgramGame::result() const {
  if (!finished()) return nullptr;
  Json r = Json::object();
  r["scores"] = scores_;
  r["winners"] = winners_;
  r["deals"] = deal_number_;
  return r;
}

// Every field of the state, once, in the order state_hash() reads them.
template <class Fields>
void AgramGame::visit_state(Fields& f) const {
  f.field("seed", seed_);
  f.field("seats", seats_);
  f.field("target", target_);
  f.field("phase", HashedAs{static_cast<int>(phase_), phase_name(phase_)});
  f.field("deal_number", deal_number_);
  f.field("dealer", dealer_);
  f.field("hands", hands_);
  f.field("undealt", undealt_);
  f.fields(tricks::TrickPlayFields{play_});
  f.field("last_trick", last_trick_);
  f.field("last_deal_winner", HashedAs{last_deal_winner_.value_or(-1), last_deal_winner_});
  f.field("scores", scores_);
  f.field("winners", winners_);
}

Json AgramGame::full_state() const {
  StateJson out;
  visit_state(out);
  return out.take();
}

std::uint64_t AgramGame::state_hash() const {
  tricks::StateWriterFields out;
  visit_state(out);
  return out.hash();
}

}  // namespace agram

GameInfo agram_info() {
  GameInfo info;
  info.kind = "agram";
  info.name = "Agram";
  info.description = "Follow suit for six tricks: only the last trick counts.";
  info.rules_url = "https://www.pagat.com/last/agram.html";
  info.min_seats = agram::kMinSeats;
  info.max_seats = agram::kMaxSeats;
  info.default_seats = 4;
  info.options = {
      OptionSpec::integer("target", 1, 1, 20,
                          "points to win: deals are played until someone has this many"),
  };
  info.create = [](const Json& options, int seats, std::uint64_t seed) -> std::unique_ptr<Game> {
    return std::make_unique<agram::AgramGame>(options, seats, seed);
  };
  return info;
}

}  // namespace parlor
