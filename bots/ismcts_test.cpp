// The ismcts strategy and its determinization samplers.
//
// Samplers: in positions reached by seeded play, every sampled world agrees with what the seat
// knows — its own hand exactly, the other hands' counts, no card the seat has seen played or
// holds itself, no card of a suit a seat failed to follow, the same trick or table — and a
// world depends only on the view and the public events (two different true deals that look the
// same to a seat give the same worlds). Search: a hand-built endgame with one winning move is
// won. Strategy: legal answers and the same answer under the same seed.
#include "bots/ismcts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "bots/hidden_deal.h"
#include "bots/view_reading.h"
#include "games/agram/agram.h"
#include "games/bidwhist/bidwhist.h"
#include "games/bigtwo/bigtwo.h"
#include "games/core/deck.h"
#include "games/registry.h"
#include "games/spades/spades.h"
#include "games/splendor/splendor.h"
#include "games/testing/self_play.h"

namespace parlor::bots {
namespace {

// The sampler sees what a seat was sent and nothing else: no Game, no full state.
static_assert(std::is_same_v<WorldSampler,
                             std::unique_ptr<Game> (*)(const Json&, std::span<const Json>, Rng&)>);

// A hidden hand as the engine holds it, for checking worlds (the true games' hands are never
// given to a sampler).
CardSet engine_hand(const Game& game, Seat seat) {
  if (const auto* g = dynamic_cast<const spades::SpadesGame*>(&game)) return g->hand(seat);
  if (const auto* g = dynamic_cast<const agram::AgramGame*>(&game)) return g->hand(seat);
  if (const auto* g = dynamic_cast<const bigtwo::BigTwoGame*>(&game)) return g->hand(seat);
  if (const auto* g = dynamic_cast<const bidwhist::BidWhistGame*>(&game)) return g->hand(seat);
  ADD_FAILURE() << "no hand reader for " << game.kind();
  return {};
}

// What the seat has seen: the cards played this hand (any seat) and the suits each seat failed
// to follow, read from the events independently of the samplers' own reader.
struct Seen {
  CardSet played;
  std::vector<unsigned> voids;
};

// The suit a card follows as: Bid Whist's contract decides (jokers are trumps, or of no suit).
std::optional<Suit> follow_suit(const Game& game, Card card) {
  if (const auto* g = dynamic_cast<const bidwhist::BidWhistGame*>(&game)) {
    return g->contract().trick_rules().effective_suit(card);
  }
  return card.suit();
}

void see(const Game& game, const Json& events, int seats, Seen& seen, std::vector<Card>& trick) {
  for (const Json& event : events) {
    const std::string type = event.value("type", "");
    if (type == "deal") {
      seen = Seen{CardSet(), std::vector<unsigned>(static_cast<std::size_t>(seats), 0U)};
      trick.clear();
    } else if (type == "play" && event.contains("card")) {
      const Card card = *read_card(event["card"]);
      seen.played.add(card);
      std::optional<Suit> led;
      for (Card c : trick) led = led ? led : follow_suit(game, c);
      if (led && follow_suit(game, card) != led) {
        seen.voids[event["seat"].get<std::size_t>()] |= 1U << static_cast<int>(*led);
      }
      trick.push_back(card);
      if (static_cast<int>(trick.size()) == seats) trick.clear();
    } else if (type == "play") {
      seen.played.add_all(read_cards(event["cards"]));
    }
  }
}

// A Splendor world looks to the seat exactly as the real game does, and every card is in one
// place only: the decks and the others' blind reserves hold none of the cards the seat has seen.
void check_splendor_world(const Game& world, const Json& world_view, const Json& view) {
  EXPECT_EQ(world_view, view);
  const auto& state = dynamic_cast<const splendor::SplendorGame&>(world).state();
  std::vector<int> places(splendor::kCardCount + 1, 0);
  for (const auto& deck : state.decks) {
    for (int card : deck) ++places[static_cast<std::size_t>(card)];
  }
  for (const auto& row : state.rows) {
    for (int card : row) ++places[static_cast<std::size_t>(card)];
  }
  for (const auto& player : state.players) {
    for (int card : player.bought) ++places[static_cast<std::size_t>(card)];
    for (const auto& reserved : player.reserved) ++places[static_cast<std::size_t>(reserved.card)];
  }
  for (int card = 1; card <= splendor::kCardCount; ++card) {
    EXPECT_LE(places[static_cast<std::size_t>(card)], 1) << "card " << card << " twice";
  }
}

struct Checked {
  int positions = 0;
  int worlds = 0;
};

// Seeded greedy play of `kind`; at every `stride`-th decision of the searching kinds' play
// phase, samples worlds for the seat to act and checks each against the seat's knowledge.
Checked check_samples(std::string_view kind, int seats, const Json& options, int games,
                      std::uint64_t seed) {
  const GameInfo* info = find_game(kind);
  const IsmctsGame* search = find_ismcts_game(kind);
  Checked checked;
  if (!info || !search) {
    ADD_FAILURE() << kind;
    return checked;
  }
  Rng rng(seed);
  for (int g = 0; g < games; ++g) {
    std::string error;
    auto game =
        create_game(*info, options, seats, seed + static_cast<std::uint64_t>(g), nullptr, error);
    auto greedy = make_strategy("greedy", kind);
    // Per seat: the public events and the seat's notes of its own moves, as a strategy keeps.
    std::vector<std::vector<Json>> events(static_cast<std::size_t>(seats));
    Seen seen{CardSet(), std::vector<unsigned>(static_cast<std::size_t>(seats), 0U)};
    std::vector<Card> trick;
    for (int moves = 0; !game->finished() && moves < 5000; ++moves) {
      const Seat you = game->to_act().front();
      const Json view = game->view(you);
      const Json prompt = game->prompt(you);
      if (search->searches(view) && moves % 3 == 0) {
        ++checked.positions;
        SCOPED_TRACE("game " + std::to_string(g) + " move " + std::to_string(moves));
        const CardSet hand = read_cards(field(view, "hand"));
        for (int w = 0; w < 4; ++w) {
          auto world = search->sample(view, events[static_cast<std::size_t>(you)], rng);
          if (!world) {
            ADD_FAILURE() << kind << " seed " << seed << " game " << g << " move " << moves
                          << ": no world for " << view.dump();
            return checked;
          }
          ++checked.worlds;
          const Json world_view = world->view(you);
          if (kind == "splendor") {
            check_splendor_world(*world, world_view, view);
            continue;
          }
          EXPECT_EQ(world->to_act(), game->to_act());
          for (const char* key : {"hand", "hand_counts", "trick", "table", "turn", "leader", "bids",
                                  "high_bid", "contract", "kitty"}) {
            EXPECT_EQ(world_view.value(key, Json()), view.value(key, Json())) << key;
          }
          EXPECT_EQ(world->legal_moves(you), game->legal_moves(you));
          for (Seat s = 0; s < seats; ++s) {
            if (s == you) continue;
            const CardSet other = engine_hand(*world, s);
            EXPECT_FALSE(other.intersects(hand)) << "seat " << s << " holds one of my cards";
            EXPECT_FALSE(other.intersects(seen.played)) << "seat " << s << " holds a played card";
            EXPECT_FALSE(other.intersects(cards_of_suits(seen.voids[static_cast<std::size_t>(s)])))
                << "seat " << s << " holds a suit it failed to follow";
          }
        }
      }
      const Json move = greedy->choose(view, prompt, rng);
      const MoveResult result = game->apply(you, move);
      if (!result.ok()) {
        ADD_FAILURE() << move.dump();
        return checked;
      }
      events[static_cast<std::size_t>(you)].push_back({{"type", kOwnMoveNote}, {"move", move}});
      see(*game, result.events(), seats, seen, trick);
      for (auto& seat_events : events) {
        for (const Json& event : result.events()) seat_events.push_back(event);
      }
    }
  }
  return checked;
}

// Several seeds, not one: a sampler's slip shows only in some positions (a deal whose hidden
// hands are tight, a spade led before spades were broken, the opening lead of a three-handed
// Big Two game), which one seed's games can miss. A case plays at most 20 games, seeded seed +
// game, so seeds 100 apart share no deal. Each seed is printed; PARLOR_SEED moves them all.
TEST(IsmctsSampler, WorldsAgreeWithWhatTheSeatKnows) {
  constexpr int kSeeds = 6;
  constexpr std::uint64_t kSeedStride = 100;
  const std::uint64_t first = parlor::testing::test_seed(2026);
  struct Case {
    const char* kind;
    int seats;
    const char* options;
    int games;
  };
  for (int k = 0; k < kSeeds; ++k) {
    const std::uint64_t seed = first + static_cast<std::uint64_t>(k) * kSeedStride;
    std::printf("seed %llu (PARLOR_SEED + %d):", static_cast<unsigned long long>(seed),
                k * static_cast<int>(kSeedStride));
    for (const Case& c :
         {Case{"spades", 4, R"({"blind_nil":true,"target":200})", 2}, Case{"agram", 4, "{}", 20},
          Case{"agram", 2, R"({"target":2})", 10}, Case{"bigtwo", 4, R"({"deals":2})", 2},
          Case{"bigtwo", 3, "{}", 3}, Case{"bidwhist", 4, "{}", 2},
          Case{"bidwhist", 4, R"({"auction":"until_passed"})", 2}, Case{"splendor", 3, "{}", 1}}) {
      SCOPED_TRACE(std::string(c.kind) + "/" + std::to_string(c.seats) + " seats, seed " +
                   std::to_string(seed));
      const Checked checked = check_samples(c.kind, c.seats, Json::parse(c.options), c.games, seed);
      std::printf(" %s/%d %d positions %d worlds;", c.kind, c.seats, checked.positions,
                  checked.worlds);
      EXPECT_GT(checked.positions, 20) << c.kind;
    }
    std::printf("\n");
  }
}

CardSet named_cards(std::initializer_list<const char*> names) {
  CardSet set;
  for (const char* name : names) set.add(*parse_card(name));
  return set;
}

// `dealt` deals all of `unknown` but what may stay undealt, each hand its count and none of its
// excluded cards.
void expect_deal_keeps(const std::vector<CardSet>& dealt, CardSet unknown,
                       std::span<const HiddenHand> hands) {
  ASSERT_EQ(dealt.size(), hands.size());
  CardSet all;
  for (std::size_t i = 0; i < hands.size(); ++i) {
    EXPECT_EQ(dealt[i].size(), hands[i].count) << "hand " << i;
    EXPECT_FALSE(dealt[i].intersects(hands[i].excluded)) << "hand " << i;
    EXPECT_FALSE(all.intersects(dealt[i])) << "hand " << i;
    all.add_all(dealt[i]);
  }
  EXPECT_TRUE(unknown.contains_all(all));
}

// A deal as tight as one Spades reaches in play: the unknown cards exactly fill three hands,
// only one of them may hold diamonds (so it takes all five) and only the other two hearts.
// Random attempts rarely find such a deal; it is found every time, keeping every constraint.
// With two diamonds more and the hands filling up all the cards, the diamond hand has no room
// for all seven: no deal exists and none is returned.
TEST(HiddenDeal, FindsATightDealAndNoneWhereNoneExists) {
  const CardSet unknown = named_cards({"5C", "6D", "7D", "9D", "TD", "JD", "2H", "4H", "7H", "9H",
                                       "QH", "KH", "2S", "5S", "7S", "8S", "9S", "TS", "QS", "KS"});
  const CardSet diamonds = unknown.of_suit(Suit::kDiamonds);
  const CardSet hearts = unknown.of_suit(Suit::kHearts);
  const std::vector<HiddenHand> hands = {{7, diamonds}, {7, diamonds}, {6, hearts}, {0, {}}};
  CardSet sixth_cards;  // what the diamond hand holds besides the diamonds, over all deals
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    Rng rng(seed);
    const auto dealt = deal_hidden(unknown, hands, rng);
    ASSERT_TRUE(dealt) << "seed " << seed;
    expect_deal_keeps(*dealt, unknown, hands);
    sixth_cards.add_all((*dealt)[2] - diamonds);
  }
  EXPECT_GT(sixth_cards.size(), 3) << "the constructed deals are not random";

  const CardSet two_diamonds_more = unknown | named_cards({"4D", "8D"});
  const CardSet all_diamonds = two_diamonds_more.of_suit(Suit::kDiamonds);
  const std::vector<HiddenHand> overfull = {{8, all_diamonds}, {8, all_diamonds}, {6, hearts}};
  Rng rng(1);
  EXPECT_FALSE(deal_hidden(two_diamonds_more, overfull, rng));
}

// With cards left undealt (Big Two with three seats): cards no hand may hold stay undealt, and
// a deal needing more cards than there are finds none.
TEST(HiddenDeal, CardsNoHandMayHoldStayUndealt) {
  const CardSet unknown = standard_deck() - standard_deck().of_suit(Suit::kSpades);  // 39
  const CardSet low = named_cards({"3D", "3C", "3H", "4D", "4C", "4H", "5D", "5C", "5H", "6D"});
  const std::vector<HiddenHand> hands = {{0, {}}, {13, low}, {13, low}};
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    Rng rng(seed);
    const auto dealt = deal_hidden(unknown, hands, rng);
    ASSERT_TRUE(dealt) << "seed " << seed;
    expect_deal_keeps(*dealt, unknown, hands);
  }
  const std::vector<HiddenHand> too_many = {{0, {}}, {20, {}}, {20, {}}};
  Rng rng(1);
  EXPECT_FALSE(deal_hidden(unknown, too_many, rng));
}

// Two true deals that differ only in hidden cards (two opponents' hands swap a card) look the
// same to seat 0, so the sampler, given the same random source, builds the same worlds: it
// reads nothing but the view and the events.
TEST(IsmctsSampler, DependsOnlyOnWhatTheSeatSees) {
  std::vector<Card> deck = shuffled(standard_deck(), 7);
  spades::SpadesSetup a;
  for (std::size_t i = 0; i < deck.size(); ++i) a.hands[i / 13].add(deck[i]);
  spades::SpadesSetup b = a;
  const Card from1 = a.hands[1].lowest();
  const Card from2 = a.hands[2].lowest();
  b.hands[1].remove(from1);
  b.hands[1].add(from2);
  b.hands[2].remove(from2);
  b.hands[2].add(from1);
  const Json options = world_options("spades", nullptr);
  auto real_a = spades::SpadesGame::create_with_setup(options, a);
  auto real_b = spades::SpadesGame::create_with_setup(options, b);
  ASSERT_NE(real_a->full_state(), real_b->full_state());
  ASSERT_EQ(real_a->view(0), real_b->view(0));
  Rng rng_a(11);
  Rng rng_b(11);
  for (int i = 0; i < 20; ++i) {
    auto world_a = sample_spades_world(real_a->view(0), {}, rng_a);
    auto world_b = sample_spades_world(real_b->view(0), {}, rng_b);
    ASSERT_NE(world_a, nullptr);
    ASSERT_NE(world_b, nullptr);
    EXPECT_EQ(world_a->full_state(), world_b->full_state());
  }
}

// Bid Whist before the play: two deals that differ only in cards seat 0 cannot see (one card
// of seat 1's hand swapped with one of the kitty, one of seat 2's with one of seat 3's) give
// the same worlds while bidding and, once seat 0 has won the auction, declaring.
TEST(IsmctsSampler, BidWhistAuctionWorldsDependOnlyOnWhatTheSeatSees) {
  const std::vector<Card> deck = shuffled(deck_with_jokers(), 17);
  std::array<CardSet, bidwhist::kSeats> hands_a{};
  CardSet kitty_a;
  for (std::size_t i = 0; i < deck.size(); ++i) {
    if (i < 48) {
      hands_a[i / 12].add(deck[i]);
    } else {
      kitty_a.add(deck[i]);
    }
  }
  std::array<CardSet, bidwhist::kSeats> hands_b = hands_a;
  CardSet kitty_b = kitty_a;
  const Card from1 = hands_a[1].lowest();
  const Card from_kitty = kitty_a.lowest();
  hands_b[1].remove(from1);
  hands_b[1].add(from_kitty);
  kitty_b.remove(from_kitty);
  kitty_b.add(from1);
  const Card from2 = hands_a[2].lowest();
  const Card from3 = hands_a[3].lowest();
  hands_b[2].remove(from2);
  hands_b[2].add(from3);
  hands_b[3].remove(from3);
  hands_b[3].add(from2);
  auto real_a = bidwhist::BidWhistGame::create_with_deal(bidwhist::Auction::kOnceAround, 3, 3,
                                                         hands_a, kitty_a);
  auto real_b = bidwhist::BidWhistGame::create_with_deal(bidwhist::Auction::kOnceAround, 3, 3,
                                                         hands_b, kitty_b);
  ASSERT_NE(real_a->full_state(), real_b->full_state());
  std::vector<Json> events;
  auto check_same_worlds = [&] {
    ASSERT_EQ(real_a->view(0), real_b->view(0));
    Rng rng_a(23);
    Rng rng_b(23);
    for (int i = 0; i < 20; ++i) {
      auto world_a = sample_bidwhist_world(real_a->view(0), events, rng_a);
      auto world_b = sample_bidwhist_world(real_b->view(0), events, rng_b);
      ASSERT_NE(world_a, nullptr);
      ASSERT_NE(world_b, nullptr);
      EXPECT_EQ(world_a->full_state(), world_b->full_state());
      EXPECT_EQ(world_a->view(0), real_a->view(0));
    }
  };
  check_same_worlds();  // seat 0 speaks first
  const Json bid = {{"action", "bid"}, {"books", 3}, {"type", "uptown"}};
  const Json pass = {{"action", "pass"}};
  for (const auto& [seat, move] :
       {std::pair{0, bid}, std::pair{1, pass}, std::pair{2, pass}, std::pair{3, pass}}) {
    const MoveResult a = real_a->apply(seat, move);
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE(real_b->apply(seat, move).ok());
    for (const Json& event : a.events()) events.push_back(event);
  }
  check_same_worlds();  // seat 0 to declare, the kitty unseen
}

// The hand-built deals below hold every card of the 54 once.
void expect_whole_deck(const std::array<CardSet, bidwhist::kSeats>& hands, CardSet kitty) {
  CardSet all = kitty;
  for (const CardSet hand : hands) {
    EXPECT_EQ(hand.size(), bidwhist::kHandSize);
    EXPECT_FALSE(all.intersects(hand));
    all.add_all(hand);
  }
  EXPECT_EQ(all, deck_with_jokers());
}

// A Bid Whist deal whose every hand and kitty the test knows, for searches given this one world
// (a test of the search, not the sampler). Seat 0 holds six middling spades and six middling
// red cards, a hand the greedy count passes on; the kitty is BJ LJ AS KS QS JS. With spades
// trump seat 0 holds twelve trumps after the discard and takes every book; no other seat has a
// hand to bid on.
std::array<CardSet, bidwhist::kSeats> kitty_deal_hands(CardSet& kitty) {
  auto cards = [](std::initializer_list<const char*> names) {
    CardSet set;
    for (const char* name : names) set.add(*parse_card(name));
    return set;
  };
  kitty = cards({"BJ", "LJ", "AS", "KS", "QS", "JS"});
  std::array<CardSet, bidwhist::kSeats> hands{};
  hands[0] = cards({"5S", "6S", "7S", "8S", "9S", "TS", "5H", "6H", "7H", "5D", "6D", "7D"});
  hands[1] = cards({"AC", "9C", "8C", "2C", "KH", "TH", "4H", "3H", "QD", "9D", "4D", "2S"});
  hands[2] = cards({"KC", "TC", "7C", "3C", "QH", "9H", "2H", "AD", "JD", "8D", "3D", "3S"});
  hands[3] = cards({"QC", "JC", "6C", "5C", "4C", "AH", "JH", "8H", "KD", "TD", "2D", "4S"});
  expect_whole_deck(hands, kitty);
  return hands;
}

std::unique_ptr<Game> kitty_deal_world(const Json&, std::span<const Json>, Rng&) {
  CardSet kitty;
  const auto hands = kitty_deal_hands(kitty);
  return bidwhist::BidWhistGame::create_with_deal(bidwhist::Auction::kOnceAround, 7, 3, hands,
                                                  kitty);
}

// Seat 0 opens the auction: greedy passes (it counts three books in the hand), the search, which
// plays the hand out with each call, bids and takes the kitty's spades.
TEST(IsmctsSearch, BidWhistSearchBidsTheHandTheKittyMakes) {
  IsmctsGame known = kIsmctsBidWhist;
  known.sample = kitty_deal_world;
  Rng unused(1);
  const auto position = kitty_deal_world(nullptr, {}, unused);
  const Json view = position->view(0);
  const Json prompt = position->prompt(0);
  Rng rng(parlor::testing::test_seed(7));
  ASSERT_EQ(make_strategy("greedy", "bidwhist")->choose(view, prompt, rng),
            Json({{"action", "pass"}}));
  auto strategy = make_ismcts(known, make_strategy("greedy", "bidwhist"), SearchBudget{40});
  const Json move = strategy->choose(view, prompt, rng);
  EXPECT_EQ(move.value("action", ""), "bid") << move.dump();
}

// Seat 0 has won the auction with 3 uptown and names trump, holding five middling hearts and
// four middling spades: greedy, counting only the twelve cards it holds, names hearts. The
// kitty (BJ LJ AS KS QS JS) makes spades ten trumps from the joker down, and hearts, with the
// five hearts above seat 0's in the other hands, a losing trump.
TEST(IsmctsSearch, BidWhistSearchDeclaresTheTrumpTheKittyMakes) {
  IsmctsGame known = kIsmctsBidWhist;
  known.sample = [](const Json&, std::span<const Json>, Rng&) -> std::unique_ptr<Game> {
    auto cards = [](std::initializer_list<const char*> names) {
      CardSet set;
      for (const char* name : names) set.add(*parse_card(name));
      return set;
    };
    std::array<CardSet, bidwhist::kSeats> hands{};
    const CardSet kitty = cards({"BJ", "LJ", "AS", "KS", "QS", "JS"});
    hands[0] = cards({"TS", "9S", "8S", "7S", "9H", "8H", "7H", "6H", "5H", "6D", "5D", "4D"});
    hands[1] = cards({"AC", "9C", "8C", "2C", "KH", "TH", "4H", "3H", "QD", "9D", "3D", "2S"});
    hands[2] = cards({"KC", "TC", "7C", "3C", "AH", "2H", "AD", "JD", "8D", "2D", "3S", "4S"});
    hands[3] = cards({"QC", "JC", "6C", "5C", "4C", "QH", "JH", "KD", "TD", "7D", "5S", "6S"});
    expect_whole_deck(hands, kitty);
    auto game = bidwhist::BidWhistGame::create_with_deal(bidwhist::Auction::kOnceAround, 7, 3,
                                                         hands, kitty);
    EXPECT_TRUE(game->apply(0, {{"action", "bid"}, {"books", 3}, {"type", "uptown"}}).ok());
    for (Seat seat : {1, 2, 3}) EXPECT_TRUE(game->apply(seat, {{"action", "pass"}}).ok());
    return game;
  };
  Rng unused(1);
  const auto position = known.sample(nullptr, {}, unused);
  const Json view = position->view(0);
  const Json prompt = position->prompt(0);
  ASSERT_EQ(view.value("phase", ""), "declaring");
  Rng rng(parlor::testing::test_seed(8));
  ASSERT_EQ(make_strategy("greedy", "bidwhist")->choose(view, prompt, rng),
            Json({{"action", "declare"}, {"trump", "H"}}));
  auto strategy = make_ismcts(known, make_strategy("greedy", "bidwhist"), SearchBudget{40});
  EXPECT_EQ(strategy->choose(view, prompt, rng), Json({{"action", "declare"}, {"trump", "S"}}));
}

// Bid Whist playouts scored, counted through the reward.
int g_bidwhist_playouts = 0;
double counted_bidwhist_reward(const Game& root, const Game& world, Seat seat) {
  ++g_bidwhist_playouts;
  return kIsmctsBidWhist.reward(root, world, seat);
}

// The declarer's discard: every candidate the search weighs is a legal discard (six distinct
// cards of the eighteen), greedy's own among them, and the search plays them out and answers
// with one of them, the same one under the same seed.
TEST(IsmctsSearch, BidWhistDiscardIsAWeighedCandidateAndReproducible) {
  IsmctsGame counted = kIsmctsBidWhist;
  counted.reward = counted_bidwhist_reward;
  std::string error;
  const std::uint64_t seed = parlor::testing::test_seed(31);
  std::printf("seed %llu (PARLOR_SEED)\n", static_cast<unsigned long long>(seed));
  int discards = 0;
  int searched = 0;  // discards with more than one candidate
  for (std::uint64_t g = 0; g < 6; ++g) {
    auto game = create_game(*find_game("bidwhist"), nullptr, 4, seed + g, nullptr, error);
    ASSERT_TRUE(game) << error;
    auto greedy = make_strategy("greedy", "bidwhist");
    std::vector<Json> events;
    Rng rng(seed + g);
    while (static_cast<const bidwhist::BidWhistGame&>(*game).phase() !=
           bidwhist::Phase::kDiscarding) {
      const Seat seat = game->to_act().front();
      const MoveResult result =
          game->apply(seat, greedy->choose(game->view(seat), game->prompt(seat), rng));
      ASSERT_TRUE(result.ok());
      for (const Json& event : result.events()) events.push_back(event);
    }
    const Seat declarer = game->to_act().front();
    const Json view = game->view(declarer);
    const Json prompt = game->prompt(declarer);
    const Json greedy_discard = greedy->choose(view, prompt, rng);
    auto search = [&](std::uint64_t search_seed) {
      auto strategy = make_ismcts(counted, make_strategy("greedy", "bidwhist"));
      strategy->observe(events);
      Rng search_rng(search_seed);
      return strategy->choose(view, prompt, search_rng);
    };
    g_bidwhist_playouts = 0;
    const Json move = search(seed + 100 + g);
    const int playouts = g_bidwhist_playouts;
    EXPECT_EQ(move, search(seed + 100 + g));
    EXPECT_TRUE(game->clone()->apply(declarer, move).ok()) << move.dump();
    EXPECT_EQ(read_cards(move["cards"]).size(), bidwhist::kKittySize);
    const Json candidates = kIsmctsBidWhist.candidates(view, prompt);
    ASSERT_TRUE(candidates.is_array());
    ASSERT_FALSE(candidates.empty());
    // One candidate when every other discard comes to greedy's own (short side suits that
    // greedy's weakest six already empty): nothing to search.
    if (candidates.size() > 1) {
      ++searched;
      EXPECT_GT(playouts, 0) << "the discard was not searched";
    }
    auto weighed = [&](const Json& discard) {
      return std::any_of(candidates.begin(), candidates.end(), [&](const Json& candidate) {
        return read_cards(candidate["cards"]) == read_cards(discard["cards"]);
      });
    };
    for (const Json& candidate : candidates) {
      EXPECT_EQ(read_cards(candidate["cards"]).size(), bidwhist::kKittySize);
      EXPECT_TRUE(game->clone()->apply(declarer, candidate).ok()) << candidate.dump();
    }
    EXPECT_TRUE(weighed(greedy_discard)) << greedy_discard.dump();
    EXPECT_TRUE(weighed(move)) << move.dump();
    ++discards;
  }
  EXPECT_EQ(discards, 6);
  EXPECT_GT(searched, 2);
}

// Agram, two seats, fifth trick, seat 0 to lead holding AH and 3C against TH and 4C. Leading
// the ace wins the fifth trick and loses the sixth to the 4C; leading the 3C gives the fifth
// trick away and the ace then takes the sixth. A world of this game with the hands known is
// the only world the test search is given, so the test is of the search, not the sampler.
std::unique_ptr<Game> agram_endgame_world(const Json&, std::span<const Json>, Rng&) {
  const std::vector<CardSet> hands = {
      CardSet{*parse_card("AH"), *parse_card("3C"), *parse_card("5S"), *parse_card("6S"),
              *parse_card("7S"), *parse_card("8S")},
      CardSet{*parse_card("TH"), *parse_card("4C"), *parse_card("5D"), *parse_card("6D"),
              *parse_card("7D"), *parse_card("8D")}};
  auto game = agram::AgramGame::create_with_hands(world_options("agram", nullptr), hands, 1);
  for (const char* pair : {"5S5D", "6S6D", "7S7D", "8S8D"}) {
    const std::string cards(pair);
    EXPECT_TRUE(game->apply(0, {{"action", "play"}, {"card", cards.substr(0, 2)}}).ok());
    EXPECT_TRUE(game->apply(1, {{"action", "play"}, {"card", cards.substr(2, 2)}}).ok());
  }
  return game;
}

TEST(IsmctsSearch, FindsTheForcedWinOfAnAgramEndgame) {
  IsmctsGame endgame = kIsmctsAgram;
  endgame.sample = agram_endgame_world;
  Rng unused(1);
  const auto position = agram_endgame_world(nullptr, {}, unused);
  auto strategy = make_ismcts(endgame, make_strategy("greedy", "agram"), SearchBudget{200});
  Rng rng(parlor::testing::test_seed(5));
  const Json move = strategy->choose(position->view(0), position->prompt(0), rng);
  EXPECT_EQ(move, Json({{"action", "play"}, {"card", "3C"}}));
}

TEST(IsmctsSearch, FindsTheForcedWinPlayingEveryMoveOnEachWorld) {
  IsmctsGame endgame = kIsmctsAgram;
  endgame.sample = agram_endgame_world;
  endgame.every_move_per_world = true;
  Rng unused(1);
  const auto position = agram_endgame_world(nullptr, {}, unused);
  auto strategy = make_ismcts(endgame, make_strategy("greedy", "agram"), SearchBudget{40});
  Rng rng(parlor::testing::test_seed(6));
  const Json move = strategy->choose(position->view(0), position->prompt(0), rng);
  EXPECT_EQ(move, Json({{"action", "play"}, {"card", "3C"}}));
}

// Playouts scored, counted through the reward (a function pointer: no state of its own).
int g_playouts = 0;
double counted_agram_reward(const Game& root, const Game& world, Seat seat) {
  ++g_playouts;
  return kIsmctsAgram.reward(root, world, seat);
}

// Agram's budget is priced at 16-move playouts: a deal's first lead two-handed plays out 12
// moves, so all 400 iterations run; four-handed it plays out 24, so the search stops once
// 400 x 16 moves are made, after ceil(6400 / 24) = 267 playouts.
TEST(IsmctsSearch, PlayoutMoveBudgetRunsFewerLongPlayouts) {
  IsmctsGame counted = kIsmctsAgram;
  counted.reward = counted_agram_reward;
  const std::uint64_t seed = parlor::testing::test_seed(11);
  std::printf("seed %llu (PARLOR_SEED)\n", static_cast<unsigned long long>(seed));
  for (const auto& [seats, playouts] : {std::pair{2, 400}, std::pair{4, 267}}) {
    std::string error;
    auto game = create_game(*find_game("agram"), nullptr, seats, seed, nullptr, error);
    ASSERT_TRUE(game) << error;
    const Seat you = game->to_act().front();
    auto strategy = make_ismcts(counted, make_strategy("greedy", "agram"), SearchBudget{400});
    Rng rng(seed);
    g_playouts = 0;
    strategy->choose(game->view(you), game->prompt(you), rng);
    EXPECT_EQ(g_playouts, playouts) << seats << " seats";
  }
}

// Whole games with every seat searching at a small budget: every answer legal, and the same
// seed plays the same game.
std::string play_searching_game(std::string_view kind, int seats, std::uint64_t seed) {
  const GameInfo* info = find_game(kind);
  std::string error;
  // Short games: Spades to 100 points, Bid Whist to 2.
  const Json options = kind == "spades"     ? Json{{"target", 100}}
                       : kind == "bidwhist" ? Json{{"target", 2}}
                                            : Json(nullptr);
  auto game = create_game(*info, options, seats, seed, nullptr, error);
  std::vector<std::unique_ptr<Strategy>> players;
  players.reserve(static_cast<std::size_t>(seats));
  for (int s = 0; s < seats; ++s) {
    players.push_back(
        make_ismcts(*find_ismcts_game(kind), make_strategy("greedy", kind), SearchBudget{4}));
  }
  Rng rng(seed);
  std::string moves;
  for (int n = 0; !game->finished() && n < 3000; ++n) {
    const Seat seat = game->to_act().front();
    const Json move =
        players[static_cast<std::size_t>(seat)]->choose(game->view(seat), game->prompt(seat), rng);
    const MoveResult result = game->apply(seat, move);
    EXPECT_TRUE(result.ok()) << kind << " seed " << seed << ": " << move.dump() << " "
                             << result.code();
    if (!result.ok()) break;
    moves += move.dump();
    for (auto& player : players) player->observe(result.events());
  }
  EXPECT_TRUE(game->finished()) << kind;
  return moves;
}

TEST(IsmctsStrategy, PlaysLegallyAndReproduciblyUnderASeed) {
  const std::uint64_t seed = parlor::testing::test_seed(99);
  std::printf("seed %llu (PARLOR_SEED)\n", static_cast<unsigned long long>(seed));
  for (std::string_view kind : {"spades", "agram", "bigtwo", "bidwhist", "splendor"}) {
    const int seats = kind == "agram" ? 3 : 4;
    EXPECT_EQ(play_searching_game(kind, seats, seed), play_searching_game(kind, seats, seed))
        << kind;
  }
}

TEST(IsmctsStrategy, DifficultyLevelsNameTheStrategies) {
  EXPECT_EQ(make_strategy("easy", "spades")->name(), "random");
  EXPECT_EQ(make_strategy("medium", "spades")->name(), "greedy");
  EXPECT_EQ(make_strategy("hard", "spades")->name(), "ismcts");
  EXPECT_TRUE(strategy_searches("hard"));
  EXPECT_TRUE(strategy_searches("ismcts"));
  EXPECT_FALSE(strategy_searches("medium"));
}

}  // namespace
}  // namespace parlor::bots
