// The embedded card and noble data: identical to splendor.json and the published set.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "games/splendor/catalogue.h"
#include "games/splendor/rules.h"

namespace parlor::splendor {
namespace {

TEST(SplendorData, EmbeddedCopyMatchesTheJsonFile) {
  std::ifstream file(PARLOR_SPLENDOR_JSON_PATH, std::ios::binary);
  ASSERT_TRUE(file) << PARLOR_SPLENDOR_JSON_PATH;
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_EQ(std::string(embedded_data_json()), text.str());
}

TEST(SplendorData, KeepsItsSourceAttribution) {
  EXPECT_NE(catalogue().source.find("perimosocordiae/reichtum"), std::string::npos);
}

TEST(SplendorData, NinetyCardsFortyThirtyTwentyPerLevel) {
  const auto& cards = catalogue().cards;
  ASSERT_EQ(cards.size(), 90U);
  std::map<int, int> per_level;
  std::map<std::pair<int, int>, int> per_level_color;
  for (std::size_t i = 0; i < cards.size(); ++i) {
    EXPECT_EQ(cards[i].id, static_cast<int>(i) + 1);
    ++per_level[cards[i].level];
    ++per_level_color[{cards[i].level, cards[i].bonus}];
    int total = 0;
    for (int n : cards[i].cost) {
      EXPECT_GE(n, 0);
      total += n;
    }
    EXPECT_GT(total, 0) << "card " << cards[i].id;
  }
  EXPECT_EQ(per_level, (std::map<int, int>{{1, 40}, {2, 30}, {3, 20}}));
  for (int color = 0; color < kColorCount; ++color) {
    EXPECT_EQ((per_level_color[{1, color}]), 8);
    EXPECT_EQ((per_level_color[{2, color}]), 6);
    EXPECT_EQ((per_level_color[{3, color}]), 4);
  }
}

TEST(SplendorData, TenNoblesOfThreePoints) {
  const auto& nobles = catalogue().nobles;
  ASSERT_EQ(nobles.size(), 10U);
  int four_four = 0;
  int three_three_three = 0;
  for (const NobleDef& n : nobles) {
    EXPECT_EQ(n.points, 3);
    std::multiset<int> needs;
    for (int v : n.needs) {
      if (v > 0) needs.insert(v);
    }
    if (needs == std::multiset<int>{4, 4}) ++four_four;
    if (needs == std::multiset<int>{3, 3, 3}) ++three_three_three;
  }
  EXPECT_EQ(four_four, 5);
  EXPECT_EQ(three_three_three, 5);
}

TEST(SplendorData, WellKnownCardsArePresent) {
  auto has = [](int level, int bonus, int points, Gems cost) {
    for (const CardDef& c : catalogue().cards) {
      if (c.level == level && c.bonus == bonus && c.points == points && c.cost == cost) {
        return true;
      }
    }
    return false;
  };
  // Colour order: white, blue, green, red, black.
  EXPECT_TRUE(has(1, 4, 0, {1, 1, 1, 1, 0}));
  EXPECT_TRUE(has(1, 0, 1, {0, 0, 4, 0, 0}));
  EXPECT_TRUE(has(2, 3, 3, {0, 0, 0, 6, 0}));
  EXPECT_TRUE(has(3, 0, 5, {3, 0, 0, 0, 7}));
  EXPECT_TRUE(has(3, 1, 4, {7, 0, 0, 0, 0}));
}

TEST(SplendorData, CatalogueJsonIsWhatClientsRender) {
  const Json table = catalogue_json();
  EXPECT_FALSE(table.contains("source"));
  EXPECT_EQ(table["colors"], Json::parse(R"(["white","blue","green","red","black"])"));
  ASSERT_EQ(table["cards"].size(), 90U);
  ASSERT_EQ(table["nobles"].size(), 10U);
  EXPECT_EQ(table["cards"][0],
            Json::parse(R"({"id":1,"level":1,"bonus":"white","points":0,"cost":{"blue":3}})"));
  EXPECT_EQ(table["nobles"][3],
            Json::parse(R"({"id":4,"points":3,"requires":{"green":4,"red":4}})"));
  // The parsed definitions agree with the table, card by card.
  for (const Json& card : table["cards"]) {
    const CardDef& def = card_def(card["id"].get<int>());
    EXPECT_EQ(def.level, card["level"].get<int>());
    EXPECT_EQ(token_name(def.bonus), card["bonus"].get<std::string>());
    EXPECT_EQ(def.points, card["points"].get<int>());
    EXPECT_EQ(gems_json(def.cost), card["cost"]);
  }
  for (const Json& noble : table["nobles"]) {
    EXPECT_EQ(gems_json(noble_def(noble["id"].get<int>()).needs), noble["requires"]);
  }
}

// "blue 3, black 1": a cost or requirement as the README's catalogue writes it.
std::string readme_gems(const Gems& gems) {
  std::string out;
  for (int c = 0; c < kColorCount; ++c) {
    if (gems[static_cast<std::size_t>(c)] == 0) continue;
    if (!out.empty()) out += ", ";
    out += std::string(token_name(c)) + " " + std::to_string(gems[static_cast<std::size_t>(c)]);
  }
  return out;
}

// The card and noble tables client authors read (protocol/PROTOCOL.md) match the data.
TEST(SplendorData, DocumentedCatalogueMatchesTheData) {
  std::ifstream file(PARLOR_SPLENDOR_CATALOGUE_DOC);
  ASSERT_TRUE(file) << PARLOR_SPLENDOR_CATALOGUE_DOC;
  std::stringstream text;
  text << file.rdbuf();
  const std::string readme = text.str();
  for (const CardDef& c : catalogue().cards) {
    const std::string row = "\n| " + std::to_string(c.id) + " | " + std::to_string(c.level) +
                            " | " + std::string(token_name(c.bonus)) + " | " +
                            std::to_string(c.points) + " | " + readme_gems(c.cost) + " |\n";
    EXPECT_NE(readme.find(row), std::string::npos) << "PROTOCOL.md lacks the row" << row;
  }
  for (const NobleDef& n : catalogue().nobles) {
    const std::string row = "\n| " + std::to_string(n.id) + " | " + std::to_string(n.points) +
                            " | " + readme_gems(n.needs) + " |\n";
    EXPECT_NE(readme.find(row), std::string::npos) << "PROTOCOL.md lacks the row" << row;
  }
}

TEST(SplendorData, BankPerPlayerCount) {
  EXPECT_EQ(initial_bank(2), (Tokens{4, 4, 4, 4, 4, 5}));
  EXPECT_EQ(initial_bank(3), (Tokens{5, 5, 5, 5, 5, 5}));
  EXPECT_EQ(initial_bank(4), (Tokens{7, 7, 7, 7, 7, 5}));
}

}  // namespace
}  // namespace parlor::splendor
