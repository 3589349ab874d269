// Greedy Splendor: every legal move gets a score and the best is played (ties: the earlier).
//
// - Buy: the card with the best value — its points, a little for the permanent bonus, more
//   when the bonus brings a noble on the table closer — paying with the default payment
//   (spending gold only where gems fall short).
// - Take gems toward a target: the visible or own reserved card with the best value per turn
//   still needed to afford it; gems the target needs count most, gems other good cards need a
//   little; ending above ten tokens costs.
// - Reserve to block a card worth 3+ points that an opponent can already afford, or to secure
//   a far-off valuable target together with a gold token.
// - Return the tokens the target needs least; take any qualifying noble.
#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "bots/greedy.h"
#include "bots/view_reading.h"
#include "games/splendor/catalogue.h"

namespace parlor::bots {
namespace {

using splendor::Gems;
using splendor::kColorCount;
using splendor::kGold;
using splendor::Tokens;

Tokens read_tokens(const Json& value) {
  Tokens tokens{};
  if (!value.is_object()) return tokens;
  for (int t = 0; t < splendor::kTokenKinds; ++t) {
    const auto it = value.find(std::string(splendor::token_name(t)));
    if (it != value.end() && it->is_number_integer()) tokens[t] = it->get<int>();
  }
  return tokens;
}

struct Purse {
  Tokens tokens{};
  Gems bonuses{};
  int token_count = 0;
  int reserved = 0;
};

Purse read_purse(const Json& player) {
  Purse p;
  if (!player.is_object()) return p;
  p.tokens = read_tokens(player.value("tokens", Json()));
  const Tokens bonuses = read_tokens(player.value("bonuses", Json()));
  std::copy_n(bonuses.begin(), kColorCount, p.bonuses.begin());
  for (int t : p.tokens) p.token_count += t;
  p.reserved = player.value("reserved_count", 0);
  return p;
}

// Gems still missing to buy `card` (after bonuses, tokens and gold), per colour and in total.
int missing_total(const splendor::CardDef& card, const Purse& p, Gems* per_color = nullptr) {
  int total = 0;
  for (int c = 0; c < kColorCount; ++c) {
    const int need = std::max(0, card.cost[c] - p.bonuses[c] - p.tokens[c]);
    if (per_color) (*per_color)[c] = need;
    total += need;
  }
  return std::max(0, total - p.tokens[kGold]);
}

struct Table {
  std::vector<int> face_up;   // card ids
  std::vector<int> reserved;  // own reserved card ids
  std::vector<int> nobles;
  Purse me;
  std::vector<Purse> opponents;
};

Table read_table(const Json& view) {
  Table t;
  const Seat you = read_int(view, "you", 0);
  if (const auto rows = view.find("rows"); rows != view.end() && rows->is_array()) {
    for (const Json& row : *rows) {
      if (!row.is_array()) continue;
      for (const Json& card : row) {
        if (card.is_number_integer()) t.face_up.push_back(card.get<int>());
      }
    }
  }
  if (const auto nobles = view.find("nobles"); nobles != view.end() && nobles->is_array()) {
    for (const Json& n : *nobles) {
      if (n.is_number_integer()) t.nobles.push_back(n.get<int>());
    }
  }
  if (const auto players = view.find("players"); players != view.end() && players->is_array()) {
    for (std::size_t s = 0; s < players->size(); ++s) {
      const Json& player = (*players)[s];
      if (static_cast<Seat>(s) != you) {
        t.opponents.push_back(read_purse(player));
        continue;
      }
      t.me = read_purse(player);
      for (const Json& r : player.value("reserved", Json::array())) {
        if (r.is_object() && r.contains("card") && r["card"].is_number_integer()) {
          t.reserved.push_back(r["card"].get<int>());
        }
      }
    }
  }
  return t;
}

bool valid_card(int id) { return id >= 1 && id <= splendor::kCardCount; }

// What owning a card is worth to me: points, the bonus, and noble progress.
double card_value(const splendor::CardDef& card, const Table& t) {
  double value = card.points + 0.6;
  for (int id : t.nobles) {
    if (id < 1 || id > splendor::kNobleCount) continue;
    const splendor::NobleDef& noble = splendor::noble_def(id);
    if (noble.needs[card.bonus] > t.me.bonuses[card.bonus]) value += 0.5;
  }
  return value;
}

struct Target {
  std::optional<int> card;  // id
  Gems need{};              // gems the target still needs, per colour
  Gems wanted{};            // gems the next few good cards need (secondary)
};

Target pick_target(const Table& t) {
  Target target;
  struct Candidate {
    int id;
    double per_turn;
  };
  std::vector<Candidate> candidates;
  std::vector<int> ids = t.face_up;
  ids.insert(ids.end(), t.reserved.begin(), t.reserved.end());
  for (int id : ids) {
    if (!valid_card(id)) continue;
    const splendor::CardDef& card = splendor::card_def(id);
    const int missing = missing_total(card, t.me);
    const double turns = 1 + (missing + 2) / 3;  // three gems a turn, then the buy
    candidates.push_back({id, card_value(card, t) / turns});
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.per_turn > b.per_turn; });
  for (std::size_t i = 0; i < candidates.size() && i < 4; ++i) {
    Gems need{};
    missing_total(splendor::card_def(candidates[i].id), t.me, &need);
    if (i == 0) {
      target.card = candidates[i].id;
      target.need = need;
    }
    for (int c = 0; c < kColorCount; ++c) target.wanted[c] += need[c];
  }
  return target;
}

double gem_weight(int color, const Target& target) {
  if (color == kGold) return 5;
  return (target.need[color] > 0 ? 3 : 0) + (target.wanted[color] > 0 ? 1 : 0) + 0.1;
}

double score_move(const Json& move, const Table& t, const Target& target) {
  const std::string action = move.value("action", "");
  if (action == "buy") {
    const int id = move.value("card", 0);
    if (!valid_card(id)) return -1;
    const splendor::CardDef& card = splendor::card_def(id);
    int spent = 0;
    for (int c = 0; c < kColorCount; ++c) spent += std::max(0, card.cost[c] - t.me.bonuses[c]);
    const double gold_choice = move.contains("gold") ? 5 : 0;  // the default keeps gold
    return 100 + 10 * card_value(card, t) - 0.5 * spent - gold_choice;
  }
  if (action == "take") {
    double score = 0;
    int taken = 0;
    Gems counted{};
    for (const Json& gem : move.value("gems", Json::array())) {
      const auto color =
          gem.is_string() ? splendor::token_from_name(gem.get<std::string>()) : std::nullopt;
      if (!color || *color >= kColorCount) continue;
      ++taken;
      // A second gem of a colour helps only if the target needs two.
      const bool useful = target.need[*color] > counted[*color];
      score += useful ? gem_weight(*color, target) : 0.1 + (target.wanted[*color] > 0 ? 1 : 0);
      ++counted[*color];
    }
    score -= 2.0 * std::max(0, t.me.token_count + taken - 10);
    return score;
  }
  if (action == "reserve") {
    if (!move.contains("card")) return 0.5;  // blind: a gold token and a surprise
    const int id = move.value("card", 0);
    if (!valid_card(id)) return 0;
    const splendor::CardDef& card = splendor::card_def(id);
    for (const Purse& other : t.opponents) {
      if (card.points >= 3 && missing_total(card, other) == 0) return 60 + card.points;
    }
    if (target.card && *target.card == id && card.points >= 3 && missing_total(card, t.me) >= 4) {
      return 5;
    }
    return 0.3;
  }
  if (action == "return") {
    double score = 0;
    const Tokens back = read_tokens(move.value("gems", Json()));
    for (int token = 0; token < splendor::kTokenKinds; ++token) {
      score -= back[token] * gem_weight(token, target);
    }
    return score;
  }
  return 0;  // noble (any is worth 3) or pass (the only move)
}

class GreedySplendor final : public Strategy {
 public:
  std::string_view name() const override { return "greedy"; }

  Json choose(const Json& view, const Json& prompt, Rng& rng) override {
    const auto& legal = legal_list(prompt);
    if (legal.empty()) return random_move(prompt, rng);
    if (!view.is_object()) return legal.front();  // no view: no judgement
    const Table table = read_table(view);
    const Target target = pick_target(table);
    const Json* best = &legal.front();
    double best_score = score_move(*best, table, target);
    for (const Json& move : legal) {
      const double score = score_move(move, table, target);
      if (score > best_score) {
        best = &move;
        best_score = score;
      }
    }
    return *best;
  }
};

}  // namespace

std::unique_ptr<Strategy> make_greedy_splendor() { return std::make_unique<GreedySplendor>(); }

}  // namespace parlor::bots
