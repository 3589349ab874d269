#include "games/splendor/rules.h"

#include <algorithm>
#include <numeric>
#include <span>
#include <string>

#include "games/core/rng.h"

namespace parlor::splendor {
namespace {

void extra_gold_from(const Price& price, int color, int budget, Gems& extra, int extra_total,
                     std::vector<Gems>& out) {
  if (color == kColorCount) {
    if (extra_total == 0) return;  // the default payment is not a choice
    Gems gold = price.shortfall;
    for (int c = 0; c < kColorCount; ++c) gold[at(c)] += extra[at(c)];
    out.push_back(gold);
    return;
  }
  // Gold may replace any gem the player would otherwise pay in this colour.
  const int gems_paid = price.need[at(color)] - price.shortfall[at(color)];
  for (int e = 0; e <= std::min(gems_paid, budget); ++e) {
    extra[at(color)] = e;
    extra_gold_from(price, color + 1, budget - e, extra, extra_total + e, out);
  }
  extra[at(color)] = 0;
}

void returns_from(const Tokens& held, int token, int left, Tokens& chosen,
                  std::vector<Tokens>& out) {
  if (left == 0) {
    out.push_back(chosen);
    return;
  }
  if (token == kTokenKinds) return;
  for (int n = std::min(left, held[at(token)]); n >= 0; --n) {
    chosen[at(token)] = n;
    returns_from(held, token + 1, left - n, chosen, out);
  }
  chosen[at(token)] = 0;
}

}  // namespace

int PlayerState::token_count() const { return std::accumulate(tokens.begin(), tokens.end(), 0); }

Tokens initial_bank(int seats) {
  const int gems = seats == 2 ? 4 : seats == 3 ? 5 : 7;
  return {gems, gems, gems, gems, gems, kGoldTokens};
}

State initial_state(int seats, std::uint64_t seed) {
  State state;
  state.seats = seats;
  state.bank = initial_bank(seats);
  for (const CardDef& card : catalogue().cards) state.decks[at(card.level - 1)].push_back(card.id);
  Rng rng(seed);
  for (auto& deck : state.decks) rng.shuffle(std::span<int>(deck));
  for (int level = 0; level < kLevels; ++level) {
    auto& deck = state.decks[at(level)];
    for (int& slot : state.rows[at(level)]) {
      slot = deck.back();
      deck.pop_back();
    }
  }
  std::vector<int> nobles(kNobleCount);
  std::iota(nobles.begin(), nobles.end(), 1);
  rng.shuffle(std::span<int>(nobles));
  state.nobles.assign(nobles.begin(), nobles.begin() + seats + 1);
  state.players.resize(at(seats));
  return state;
}

std::vector<std::vector<int>> take_options(const Tokens& bank) {
  std::vector<int> available;
  for (int c = 0; c < kColorCount; ++c) {
    if (bank[at(c)] > 0) available.push_back(c);
  }
  std::vector<std::vector<int>> out;
  const auto n = available.size();
  if (n >= 3) {
    for (std::size_t a = 0; a < n; ++a) {
      for (std::size_t b = a + 1; b < n; ++b) {
        for (std::size_t c = b + 1; c < n; ++c) {
          out.push_back({available[a], available[b], available[c]});
        }
      }
    }
  } else if (n > 0) {
    out.push_back(available);
  }
  for (int c = 0; c < kColorCount; ++c) {
    if (bank[at(c)] >= kMinStackForTwo) out.push_back({c, c});
  }
  return out;
}

Price price_for(const PlayerState& player, const CardDef& card) {
  Price price;
  for (int c = 0; c < kColorCount; ++c) {
    const int need = std::max(0, card.cost[at(c)] - player.bonuses[at(c)]);
    price.need[at(c)] = need;
    price.shortfall[at(c)] = std::max(0, need - player.tokens[at(c)]);
    price.gold_needed += price.shortfall[at(c)];
  }
  price.affordable = price.gold_needed <= player.tokens[at(kGold)];
  return price;
}

Tokens payment_tokens(const Price& price, const Gems& gold_used) {
  Tokens paid{};
  for (int c = 0; c < kColorCount; ++c) {
    paid[at(c)] = price.need[at(c)] - gold_used[at(c)];
    paid[at(kGold)] += gold_used[at(c)];
  }
  return paid;
}

std::optional<std::string> gold_choice_error(const Price& price, const Gems& gold_used,
                                             int gold_held) {
  int total = 0;
  for (int c = 0; c < kColorCount; ++c) {
    const std::string name(token_name(c));
    if (gold_used[at(c)] > price.need[at(c)]) {
      return price.need[at(c)] == 0
                 ? "you need no " + name + " for this card, so no gold can stand in for it"
                 : "you need only " + std::to_string(price.need[at(c)]) + " " + name +
                       " for this card, so at most that much gold can stand in for it";
    }
    if (gold_used[at(c)] < price.shortfall[at(c)]) {
      return "you are " + std::to_string(price.shortfall[at(c)]) + " " + name +
             " short, so gold must stand in for at least that many";
    }
    total += gold_used[at(c)];
  }
  if (total > gold_held) {
    return "that spends " + std::to_string(total) + " gold but you hold " +
           std::to_string(gold_held);
  }
  if (total == price.gold_needed) {
    return "that is the default payment (gold only where your gems fall short); "
           "send the buy without \"gold\"";
  }
  return std::nullopt;
}

std::vector<Gems> extra_gold_choices(const Price& price, int gold_held) {
  std::vector<Gems> out;
  if (!price.affordable) return out;
  Gems extra{};
  extra_gold_from(price, 0, gold_held - price.gold_needed, extra, 0, out);
  return out;
}

std::vector<Tokens> return_options(const Tokens& held, int count) {
  std::vector<Tokens> out;
  Tokens chosen{};
  returns_from(held, 0, count, chosen, out);
  return out;
}

bool qualifies(const PlayerState& player, const NobleDef& noble) {
  for (int c = 0; c < kColorCount; ++c) {
    if (player.bonuses[at(c)] < noble.needs[at(c)]) return false;
  }
  return true;
}

}  // namespace parlor::splendor
