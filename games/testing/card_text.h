// Cards written as text in tests, e.g. cards("3C 4D 10H"): one set, and a word that is not a
// card fails the test (games/core/card.h, parse_card, reads each word).
#pragma once

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "games/core/card.h"
#include "games/core/card_set.h"

namespace parlor::testing {

inline CardSet cards(const std::string& text) {
  CardSet out;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    const auto card = parse_card(word);
    EXPECT_TRUE(card) << "not a card: " << word;
    if (card) out.add(*card);
  }
  return out;
}

}  // namespace parlor::testing
