// The typed play generator against brute force: for many random hands and tables, the
// generated plays are exactly the subsets that classify() accepts and that beat the table,
// with the same strengths, each listed once.
#include "games/bigtwo/plays.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "games/core/deck.h"
#include "games/core/rng.h"
#include "games/testing/card_text.h"

namespace parlor::bigtwo {
namespace {

using parlor::testing::cards;

using PlayMap = std::map<std::uint64_t, Hand>;

void subsets(const std::vector<Card>& pool, std::size_t from, CardSet chosen, PlayMap& out,
             const Hand* table, CardSet required, const HandRules& rules) {
  const int size = chosen.size();
  if (size == 1 || size == 2 || size == 3 || size == 5) {
    const Hand hand = classify(chosen, rules);
    if (hand.valid() && (!table || beats(hand, *table)) && chosen.contains_all(required)) {
      out[chosen.bits()] = hand;
    }
  }
  if (size == 5) return;
  for (std::size_t i = from; i < pool.size(); ++i) {
    CardSet next = chosen;
    next.add(pool[i]);
    subsets(pool, i + 1, next, out, table, required, rules);
  }
}

PlayMap brute_force(CardSet hand, const Hand* table, CardSet required, const HandRules& rules) {
  PlayMap out;
  subsets(hand.to_vector(), 0, CardSet(), out, table, required, rules);
  return out;
}

void expect_same(CardSet hand, const Hand* table, CardSet required, const HandRules& rules,
                 const std::string& label) {
  std::vector<Play> plays;
  generate_plays(hand, table, required, rules, plays);
  const PlayMap expected = brute_force(hand, table, required, rules);
  PlayMap generated;
  for (const Play& play : plays) {
    ASSERT_TRUE(generated.emplace(play.cards.bits(), play.hand).second)
        << label << ": listed twice " << play.cards.bits();
  }
  ASSERT_EQ(generated.size(), expected.size()) << label;
  for (const auto& [bits, hand_type] : expected) {
    auto it = generated.find(bits);
    ASSERT_NE(it, generated.end()) << label << ": missing play " << bits;
    EXPECT_EQ(it->second.combination, hand_type.combination) << label;
    EXPECT_EQ(it->second.strength, hand_type.strength) << label;
    EXPECT_EQ(it->second.size, hand_type.size) << label;
  }
}

TEST(BigTwoPlays, MatchBruteForceOnRandomHandsAndTables) {
  const HandRules variants[] = {
      {},
      {SuitOrder::kSpadesHeartsDiamondsClubs, StraightSet::kStandard},
      {SuitOrder::kSpadesHeartsClubsDiamonds, StraightSet::kNoTwos},
  };
  for (std::uint64_t seed = 1; seed <= 600; ++seed) {
    const HandRules& rules = variants[seed % 3];
    Rng rng(seed);
    const std::vector<Card> deck = shuffled(standard_deck(), seed);
    const auto size = static_cast<std::size_t>(1 + rng.uniform(13));
    CardSet hand;
    for (std::size_t i = 0; i < size; ++i) hand.add(deck[i]);
    const std::string label = "seed " + std::to_string(seed);

    expect_same(hand, nullptr, CardSet(), rules, label + " lead");
    CardSet required;
    required.add(lowest_card(hand, rules.suit_order));
    expect_same(hand, nullptr, required, rules, label + " opening lead");

    // A table drawn from the other cards, of each size they can form.
    CardSet rest;
    for (std::size_t i = size; i < size + 13; ++i) rest.add(deck[i]);
    std::vector<Play> table_plays;
    generate_plays(rest, nullptr, CardSet(), rules, table_plays);
    for (int k = 0; k < 6 && !table_plays.empty(); ++k) {
      const Play& table = table_plays[rng.uniform(table_plays.size())];
      expect_same(hand, &table.hand, CardSet(), rules,
                  label + " on " + std::string(combination_name(table.hand.combination)));
    }
  }
}

TEST(BigTwoPlays, MatchBruteForceOnSkewedHands) {
  const char* hands[] = {
      "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",  // one suit: every flush and straight flush
      "3D 3C 3H 3S 4D 4C 4H 4S 5D 5C 5H 5S 6D",  // fours and full houses
      "AD AC AH 2D 2C 2H 3D 3C 3H 4S 5S JD QD",  // the wrap-around straights with twos
      "3D 4C 5H 6S 7D 8C 9H TS JD QC KH AS 2D",  // one of every rank
  };
  for (const char* text : hands) {
    for (const HandRules& rules :
         {HandRules{}, HandRules{SuitOrder::kSpadesHeartsClubsDiamonds, StraightSet::kNoTwos}}) {
      expect_same(cards(text), nullptr, CardSet(), rules, text);
      std::vector<Play> plays;
      generate_plays(cards(text), nullptr, CardSet(), rules, plays);
      for (std::size_t i = 0; i < plays.size(); i += 37) {
        expect_same(cards(text), &plays[i].hand, CardSet(), rules, text);
      }
    }
  }
}

struct CountCase {
  const char* hand;
  const char* table;  // empty: a fresh lead
  std::size_t plays;
};

TEST(BigTwoPlays, CountsForKnownHands) {
  const CountCase cases[] = {
      {"3D", "", 1},
      {"3D 3C 3H 3S 4D", "", 5 + 6 + 4 + 1},  // singles, pairs, triples, four plus the 4D
      {"3D 3C 3H 4S 4D", "", 5 + 4 + 1 + 1},  // singles, pairs, triple, full house
      {"3D 4D 5D 6D 7D", "", 5 + 1},          // five singles, one straight flush
      {"3D 4C 5H 6S 7D", "3S 4S 5S 6S 7H", 0},
      {"3D 4C 5H 6S 7S", "3S 4S 5S 6D 7H", 1},
      {"9S 9D KD", "9H 9C", 1},
      {"2S", "2H", 1},
      {"2H", "2S", 0},
      {"3D 3C 3H 3S 4D", "JS QS KS AS 2H", 1},  // the four beats any straight
  };
  for (const auto& c : cases) {
    std::vector<Play> plays;
    const Hand table = classify(cards(c.table), HandRules{});
    generate_plays(cards(c.hand), table.valid() ? &table : nullptr, CardSet(), HandRules{}, plays);
    EXPECT_EQ(plays.size(), c.plays) << c.hand << " on " << c.table;
  }
}

}  // namespace
}  // namespace parlor::bigtwo
