// Bid Whist worlds. Before the play (bidding, declaring, discarding) nothing is known of the
// other hands: the cards the seat has not seen are dealt twelve to each other seat and the rest
// is the kitty (the declarer, discarding, has seen the kitty, so only the hands are dealt).
// During trick play: the 54 cards less the seat's hand, the cards played this
// hand and (for the declarer) its own discard, dealt to the other three by their hand counts
// with no seat getting a suit it failed to follow (a seat out of trumps has no joker either in
// a trump contract). What is left over is the declarer's face-down discard. The hand is rebuilt
// with the discard as the kitty — the declarer took the kitty and laid six cards down, and
// which six it took is never seen — and the auction, declaration, discard and plays replayed.
#include <algorithm>
#include <array>
#include <string>

#include "bots/determinize.h"
#include "bots/greedy.h"
#include "bots/hidden_deal.h"
#include "bots/trick_history.h"
#include "bots/view_reading.h"
#include "games/bidwhist/bidwhist.h"
#include "games/bidwhist/bidwhist_rules.h"
#include "games/core/deck.h"
#include "games/core/json_cards.h"

namespace parlor::bots {
namespace {

using bidwhist::BidWhistGame;
using bidwhist::kSeats;

// The discard's cards are filled in by the sampler: the event does not name them.
Json bidwhist_move(const Json& event) {
  const std::string type = event.value("type", "");
  if (type == "bid") {
    return {{"action", "bid"},
            {"books", read_int(field(event, "bid"), "books", 0)},
            {"type", field(field(event, "bid"), "type")}};
  }
  if (type == "pass") return {{"action", "pass"}};
  if (type == "declare") {
    if (event.contains("trump")) return {{"action", "declare"}, {"trump", field(event, "trump")}};
    return {{"action", "declare"}, {"direction", event.value("direction", "")}};
  }
  if (type == "discard") return {{"action", "discard"}, {"cards", nullptr}};
  return nullptr;
}

// The seat's own discard this hand, from the note its strategy keeps of its own moves.
CardSet own_discard(std::span<const Json> events) {
  CardSet discard;
  for (const Json& event : events) {
    if (!event.is_object()) continue;
    const std::string type = event.value("type", "");
    if (type == "deal") discard = CardSet();
    if (type == kOwnMoveNote && field(field(event, "move"), "action") == "discard") {
      discard = read_cards(field(field(event, "move"), "cards"));
    }
  }
  return discard;
}

bool bidwhist_hand_over(const Game& /*root*/, const Game& world) {
  const auto phase = static_cast<const BidWhistGame&>(world).phase();
  return phase == bidwhist::Phase::kHandOver || phase == bidwhist::Phase::kFinished;
}

// Half the game points the seat's team gained over the other team's (a hand moves the scores
// by at most 14), half the books it took over theirs, squashed into [0, 1]. The score alone is
// a step — a playout's contract is made or set by one book — so most playouts of two cards land
// on the same step; a book more is always better in Bid Whist (there are no bags), so counting
// books grades the playouts finer without ranking them differently.
//
// Before the play (the bid, the declaration, the discard) the points are what is chosen
// between — whether a contract is made and what it stakes — and books count only a little, to
// tell apart choices whose playouts land on the same scores.
double bidwhist_reward(const Game& root, const Game& world, Seat seat) {
  const auto& start = static_cast<const BidWhistGame&>(root);
  const auto& now = static_cast<const BidWhistGame&>(world);
  const int team = tricks::team_of(seat);
  const int gain = (now.team_score(team) - start.team_score(team)) -
                   (now.team_score(1 - team) - start.team_score(1 - team));
  const int books = (now.team_books(team) - start.team_books(team)) -
                    (now.team_books(1 - team) - start.team_books(1 - team));
  if (start.phase() != bidwhist::Phase::kPlaying) {
    return std::clamp(0.5 + gain / 28.0 + books / 416.0, 0.0, 1.0);
  }
  return std::clamp(0.5 + gain / 56.0 + books / 52.0, 0.0, 1.0);
}

bool bidwhist_searches(const Json& view) {
  if (!view.is_object()) return false;
  const std::string phase = view.value("phase", "");
  return phase == "bidding" || phase == "declaring" || phase == "discarding" || phase == "playing";
}

// The bid, the declaration and the discard are judged by how a sensible auction and play
// would go on from them: random calls and random cards say nothing of a contract's worth.
bool bidwhist_greedy_playouts(const Json& view) { return view.value("phase", "") != "playing"; }

// The bids worth weighing: passing and the cheapest bid of each type. A dearer bid of a type
// makes the same books and stakes more on them; what it could gain, shutting out a later
// seat's bid, is left unweighed, which keeps a bid's worlds four candidates wide.
Json bid_candidates(const Json& prompt) {
  Json shortlist = Json::array();
  for (const char* type : {"uptown", "downtown", "no_trump"}) {
    for (const Json& move : legal_list(prompt)) {
      if (move.value("action", "") == "bid" && move.value("type", "") == type) {
        shortlist.push_back(move);
        break;
      }
    }
  }
  for (const Json& move : legal_list(prompt)) {
    if (move.value("action", "") == "pass") shortlist.insert(shortlist.begin(), move);
  }
  return shortlist;
}

// Discards to weigh, out of the 18 564 the prompt allows: the greedy heuristic's weakest six,
// and the discards that empty one or two side suits (a void to ruff in a trump contract, a
// suit that cannot be kept guarded in no trump), the rest of each filled by the heuristic.
Json discard_candidates(const Json& view, const Json& prompt) {
  const Json& choose = field(prompt, "choose");
  const CardSet from = read_cards(field(choose, "from"));
  const int count = read_int(choose, "count", bidwhist::kKittySize);
  const std::optional<Suit> trump =
      bidwhist::parse_suit_letter(field(view, "contract").value("trump", ""));
  const std::unique_ptr<Strategy> greedy = make_greedy_bidwhist();
  Rng unused(0);  // greedy's discard is deterministic
  std::vector<CardSet> discards;
  auto add = [&](CardSet emptied) {
    const int rest = count - emptied.size();
    if (rest < 0) return;
    CardSet discard = emptied;
    if (rest > 0) {
      const Json fill_prompt = {{"choose",
                                 {{"action", "discard"},
                                  {"field", "cards"},
                                  {"count", rest},
                                  {"from", cards_to_json(from - emptied)}}}};
      discard.add_all(read_cards(field(greedy->choose(view, fill_prompt, unused), "cards")));
    }
    if (discard.size() != count ||
        std::find(discards.begin(), discards.end(), discard) != discards.end()) {
      return;
    }
    discards.push_back(discard);
  };
  add(CardSet());
  std::vector<CardSet> side_suits;
  for (Suit suit : {Suit::kClubs, Suit::kDiamonds, Suit::kHearts, Suit::kSpades}) {
    if (trump && suit == *trump) continue;
    if (const CardSet cards = from.of_suit(suit); !cards.empty()) side_suits.push_back(cards);
  }
  for (std::size_t i = 0; i < side_suits.size(); ++i) add(side_suits[i]);
  for (std::size_t i = 0; i < side_suits.size(); ++i) {
    for (std::size_t j = i + 1; j < side_suits.size(); ++j) add(side_suits[i] | side_suits[j]);
  }
  Json shortlist = Json::array();
  for (CardSet discard : discards) {
    shortlist.push_back({{"action", "discard"}, {"cards", cards_to_json(discard)}});
  }
  return shortlist;
}

// Null (the legal list) in play and for the declaration.
Json bidwhist_candidates(const Json& view, const Json& prompt) {
  const std::string phase = view.value("phase", "");
  if (phase == "bidding") return bid_candidates(prompt);
  if (phase == "discarding") return discard_candidates(view, prompt);
  return nullptr;
}

// The rebuilt hand under the auction rule the public calls replay under (it is not in the
// view), or null when neither replays them to the seat's position: the seat holding `hand`, in
// the view's phase, with the turn the view's. Both rules replay an auction that has not gone
// past the dealer, but only the one in play leaves it where the view says it is (once around
// ends it at the dealer; until passed goes on while two have not passed).
std::unique_ptr<Game> replay_hand(const Json& view, Seat you, CardSet hand,
                                  const std::array<CardSet, kSeats>& hands, CardSet kitty,
                                  std::span<const ReplayStep> steps, std::uint64_t seed) {
  const int target = view.value("target", 7);
  const std::string phase = view.value("phase", "");
  const std::vector<Seat> turn = {read_int(view, "turn", -1)};
  for (auto auction : {bidwhist::Auction::kOnceAround, bidwhist::Auction::kUntilPassed}) {
    auto world = BidWhistGame::create_with_deal(auction, target, read_int(view, "dealer", 0), hands,
                                                kitty, seed);
    if (replay_steps(*world, steps) && world->hand(you) == hand &&
        bidwhist::phase_name(world->phase()) == phase && world->to_act() == turn) {
      return world;
    }
  }
  return nullptr;
}

// A world before the play: bidding, declaring (the declarer has not seen the kitty yet) or
// discarding (the declarer holds it, and its view shows which six cards it brought). The cards
// the seat has not seen are dealt at random, twelve to each other seat, and what is left is the
// kitty; nothing has been played, so no hand is known to lack a suit.
std::unique_ptr<Game> sample_before_play(const Json& view, std::span<const Json> events, Seat you,
                                         CardSet hand, Rng& rng) {
  const bool discarding = view.value("phase", "") == "discarding";
  const CardSet seen_kitty = discarding ? read_cards(field(view, "kitty")) : CardSet();
  if (discarding && seen_kitty.size() != bidwhist::kKittySize) return nullptr;
  const CardSet dealt_to_you = hand - seen_kitty;
  if (dealt_to_you.size() != bidwhist::kHandSize) return nullptr;
  CardSet unknown = deck_with_jokers() - hand;
  std::vector<HiddenHand> hidden(kSeats);
  for (Seat s = 0; s < kSeats; ++s) {
    if (s != you) hidden[static_cast<std::size_t>(s)].count = bidwhist::kHandSize;
  }
  const auto dealt = deal_hidden(unknown, hidden, rng);
  if (!dealt) return nullptr;
  std::array<CardSet, kSeats> hands{};
  for (Seat s = 0; s < kSeats; ++s) {
    const auto i = static_cast<std::size_t>(s);
    hands[i] = s == you ? dealt_to_you : (*dealt)[i];
    unknown.remove_all((*dealt)[i]);
  }
  const CardSet kitty = discarding ? seen_kitty : unknown;
  if (kitty.size() != bidwhist::kKittySize) return nullptr;
  const TrickHandHistory history = read_trick_hand(events, kSeats, bidwhist_move);
  return replay_hand(view, you, hand, hands, kitty, history.steps, rng.next());
}

}  // namespace

std::unique_ptr<Game> sample_bidwhist_world(const Json& view, std::span<const Json> events,
                                            Rng& rng) {
  const Seat you = read_int(view, "you", -1);
  if (you < 0 || you >= kSeats || !field(view, "hand").is_array()) return nullptr;
  const std::string phase = view.value("phase", "");
  if (phase == "bidding" || phase == "declaring" || phase == "discarding") {
    return sample_before_play(view, events, you, read_cards(field(view, "hand")), rng);
  }
  const Json& contract = view.value("contract", Json());
  if (!contract.is_object()) return nullptr;
  const Seat declarer = read_int(contract, "declarer", -1);
  if (declarer < 0 || declarer >= kSeats) return nullptr;
  const std::optional<Suit> trump = bidwhist::parse_suit_letter(contract.value("trump", ""));
  const tricks::StandardTrickRules rules(trump, contract.value("direction", "") == "downtown"
                                                    ? tricks::Direction::kDowntown
                                                    : tricks::Direction::kUptown);
  const CardSet hand = read_cards(field(view, "hand"));
  const TrickHandHistory history = read_trick_hand(events, kSeats, bidwhist_move, &rules);
  const CardSet my_discard = you == declarer ? own_discard(events) : CardSet();
  if (you == declarer && my_discard.size() != bidwhist::kKittySize) return nullptr;

  CardSet unknown = deck_with_jokers() - hand - my_discard;
  for (CardSet played : history.played) unknown.remove_all(played);
  std::vector<CardSet> excluded = void_cards(history.voids);
  for (std::size_t i = 0; i < excluded.size(); ++i) {
    if (trump && ((history.voids[i] >> static_cast<int>(*trump)) & 1U)) {
      excluded[i].add(Card::little_joker());
      excluded[i].add(Card::big_joker());
    }
  }
  const auto dealt =
      deal_hands(unknown, field(view, "hand_counts"), you, hand, history.played, excluded, rng);
  if (!dealt) return nullptr;
  std::array<CardSet, kSeats> hands{};
  std::copy_n(dealt->begin(), kSeats, hands.begin());
  for (const CardSet dealt_hand : hands) unknown.remove_all(dealt_hand);
  // What no hand holds is face down: the discard.
  const CardSet discard = you == declarer ? my_discard : unknown;
  if (discard.size() != bidwhist::kKittySize) return nullptr;

  std::vector<ReplayStep> steps = history.steps;
  for (ReplayStep& step : steps) {
    if (step.move.value("action", "") == "discard") step.move["cards"] = cards_to_json(discard);
  }
  return replay_hand(view, you, hand, hands, discard, steps, rng.next());
}

// Card play as in Spades: every move played out on each world, 400 playouts priced at 24 moves
// (a hand's twelve tricks are 48 moves); alone, against greedy, it measured even. The bid, the
// declaration and the discard are searched too, on a shortlist each, every candidate played
// out on each world by the greedy heuristic to the hand's end; a greedy move is priced at four
// random ones, which keeps those decisions near the card play's CPU time (a bid's world plays
// out some 50 moves per candidate, so the first bid weighs 12 worlds of four). With them the
// search beats greedy (docs/BENCHMARKS.md, "Search bots").
const IsmctsGame kIsmctsBidWhist = {.sample = sample_bidwhist_world,
                                    .hand_over = bidwhist_hand_over,
                                    .reward = bidwhist_reward,
                                    .searches = bidwhist_searches,
                                    .iterations = 400,
                                    .every_move_per_world = true,
                                    .playout_moves = 24,
                                    .candidates = bidwhist_candidates,
                                    .greedy_playouts_for = bidwhist_greedy_playouts,
                                    .greedy_move_cost = 4};

}  // namespace parlor::bots
