#include "games/testing/self_play.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string_view>

#include "games/core/replay.h"
#include "games/core/rng.h"

namespace parlor::testing {
namespace {

// Order-insensitive form of a move: arrays of strings (card lists) sorted.
Json normalized(const Json& move) {
  if (move.is_array()) {
    Json out = Json::array();
    bool all_strings = true;
    for (const Json& item : move) {
      out.push_back(normalized(item));
      all_strings = all_strings && item.is_string();
    }
    if (all_strings) std::sort(out.begin(), out.end());
    return out;
  }
  if (move.is_object()) {
    Json out = Json::object();
    for (const auto& [key, value] : move.items()) out[key] = normalized(value);
    return out;
  }
  return move;
}

std::string describe(const GameInfo& info, std::uint64_t seed, std::int64_t step,
                     const std::string& what) {
  std::ostringstream out;
  out << info.kind << " seed " << seed << " step " << step << ": " << what;
  return out.str();
}

// A random variation of a legal move: a card replaced, dropped, or added; or a bare action.
Json mutate(const Json& move, Rng& rng) {
  Json out = move;
  for (auto& [key, value] : out.items()) {
    if (value.is_string() && parse_card(value.get<std::string>())) {
      value = Card::from_index(static_cast<int>(rng.uniform(Card::kIndexCount))).to_string();
      return out;
    }
    if (value.is_array() && !value.empty() && value[0].is_string()) {
      switch (rng.uniform(3)) {
        case 0:
          value[rng.uniform(value.size())] =
              Card::from_index(static_cast<int>(rng.uniform(Card::kIndexCount))).to_string();
          break;
        case 1:
          value.erase(value.begin() + static_cast<std::ptrdiff_t>(rng.uniform(value.size())));
          break;
        default:
          value.push_back(
              Card::from_index(static_cast<int>(rng.uniform(Card::kIndexCount))).to_string());
      }
      return out;
    }
    if (value.is_number_integer()) {
      value = value.get<std::int64_t>() + static_cast<std::int64_t>(rng.uniform(5)) - 2;
      return out;
    }
  }
  return out;
}

// The text the server sends (write_view / write_prompt) must be exactly the checked JSON's
// dump, `expected`.
std::string check_written(const std::string& expected, std::string_view written, const char* what,
                          Seat viewer) {
  if (written == expected) return {};
  return std::string(what) + " text of seat " + std::to_string(viewer) + " differs from the " +
         what + ": wrote " + std::string(written) + " but the JSON is " + expected;
}

std::string dumped(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// Checks every viewer's view and prompt (kSpectator first, then each seat) and leaves the
// prompts in `prompts` (index viewer + 1) for the caller, which checks them further.
std::string check_views(const Game& game, const SelfPlayHooks& hooks, std::vector<Json>& prompts) {
  // Every view written at once, as the server writes them after a move, each behind text
  // already in its string; below, each must be the view's JSON and what write_view writes.
  std::vector<Seat> viewers;
  for (Seat viewer = kSpectator; viewer < game.seat_count(); ++viewer) viewers.push_back(viewer);
  std::vector<std::string> together(viewers.size(), "head");
  std::vector<std::string*> outs;
  outs.reserve(together.size());
  for (std::string& text : together) outs.push_back(&text);
  game.write_views(viewers, outs);
  prompts.assign(viewers.size(), Json());
  std::string written;
  for (std::size_t i = 0; i < viewers.size(); ++i) {
    const Seat viewer = viewers[i];
    const CardSet hidden = hooks.hidden_cards(game, viewer);
    const Json view = game.view(viewer);
    const CardSet leaked = cards_mentioned(view) & hidden;
    if (!leaked.empty()) {
      return "view of seat " + std::to_string(viewer) + " shows hidden card(s) " +
             leaked.lowest().to_string();
    }
    const Json& prompt = prompts[i] = game.prompt(viewer);
    const CardSet prompt_leak = cards_mentioned(prompt) & hidden;
    if (!prompt_leak.empty()) {
      return "prompt of seat " + std::to_string(viewer) + " shows hidden card " +
             prompt_leak.lowest().to_string();
    }
    // write_view's text must be write_views' and the view's dump.
    written = "head";
    game.write_view(viewer, written);
    if (written != together[i]) {
      return "write_views for seat " + std::to_string(viewer) + " wrote " + together[i] +
             " but write_view wrote " + written;
    }
    if (auto error =
            check_written(dumped(view), std::string_view(written).substr(4), "view", viewer);
        !error.empty()) {
      return error;
    }
    written.clear();
    game.write_prompt(viewer, written);
    if (auto error = check_written(dumped(prompt), written, "prompt", viewer); !error.empty()) {
      return error;
    }
    if (hooks.view_invariants) {
      if (auto broken = hooks.view_invariants(game, viewer, view, prompt); !broken.empty()) {
        return broken;
      }
    }
  }
  return {};
}

}  // namespace

Json move_from_choose(const Json& choose, Rng& rng) {
  std::vector<Json> from(choose["from"].begin(), choose["from"].end());
  const auto count = choose["count"].get<std::size_t>();
  for (std::size_t i = 0; i < count && i < from.size(); ++i) {
    std::swap(from[i], from[i + rng.uniform(from.size() - i)]);
  }
  Json picked = Json::array();
  for (std::size_t i = 0; i < count && i < from.size(); ++i) picked.push_back(from[i]);
  return {{"action", choose["action"]}, {choose["field"].get<std::string>(), picked}};
}

CardSet cards_mentioned(const Json& value) {
  CardSet out;
  if (value.is_string()) {
    const auto& s = value.get_ref<const std::string&>();
    if (s.size() == 2) {
      if (auto card = parse_card(s)) out.add(*card);
    }
  } else if (value.is_array() || value.is_object()) {
    for (const Json& item : value) out.add_all(cards_mentioned(item));
  }
  return out;
}

std::string check_card_places(const std::vector<std::pair<std::string, CardSet>>& places,
                              CardSet deck) {
  CardSet seen;
  for (const auto& [name, cards] : places) {
    if (seen.intersects(cards)) {
      return "card " + (seen & cards).lowest().to_string() + " is in " + name + " and elsewhere";
    }
    seen.add_all(cards);
  }
  if (seen != deck) {
    const CardSet lost = deck - seen;
    return lost.empty() ? "a card from outside the deck appeared"
                        : "card " + lost.lowest().to_string() + " is lost";
  }
  return {};
}

// Tests read their settings from the environment before starting any thread.
std::uint64_t test_seed(std::uint64_t fallback) {
  if (const char* env = std::getenv("PARLOR_SEED")) {  // NOLINT(concurrency-mt-unsafe)
    return std::strtoull(env, nullptr, 10);
  }
  return fallback;
}

int self_play_games(int fallback) {
  if (const char* env = std::getenv("PARLOR_SELF_PLAY_GAMES")) {  // NOLINT(concurrency-mt-unsafe)
    return std::atoi(env);
  }
  if (const char* cap =
          std::getenv("PARLOR_SELF_PLAY_MAX_GAMES")) {  // NOLINT(concurrency-mt-unsafe)
    return std::min(fallback, std::atoi(cap));
  }
  return fallback;
}

std::string run_self_play(const GameInfo& info, const Json& options, int seats,
                          std::uint64_t base_seed, int games, const SelfPlayHooks& hooks,
                          SelfPlayStats* stats, bool check_every_legal) {
  for (int g = 0; g < games; ++g) {
    const std::uint64_t seed = base_seed + static_cast<std::uint64_t>(g);
    std::string error;
    auto normalized_options = normalize_options(info.options, options, error);
    if (!normalized_options) return "bad options: " + error;
    auto game = info.create(*normalized_options, seats, seed);
    Rng rng(seed ^ 0x5eedULL);
    std::vector<ReplayMove> log;
    std::vector<Json> prompts;
    std::int64_t step = 0;
    constexpr std::int64_t kMaxSteps = 100000;

    while (!game->finished()) {
      if (++step > kMaxSteps) return describe(info, seed, step, "game did not end");
      if (auto broken = hooks.invariants ? hooks.invariants(*game) : ""; !broken.empty()) {
        return describe(info, seed, step, broken);
      }
      if (auto leak = check_views(*game, hooks, prompts); !leak.empty()) {
        return describe(info, seed, step, leak);
      }
      const auto to_act = game->to_act();
      if (to_act.empty()) return describe(info, seed, step, "no seat to act before the end");
      const Seat seat = to_act[rng.uniform(to_act.size())];
      // The prompts check_views built and checked for this same state (index seat + 1).
      const Json& prompt = prompts[static_cast<std::size_t>(seat) + 1];
      if (!prompt.is_object()) return describe(info, seed, step, "seat to act has no prompt");
      const Json legal = game->legal_moves(seat);
      if (prompt.contains("legal") && prompt["legal"] != legal) {
        return describe(info, seed, step, "prompt.legal differs from legal_moves");
      }

      // Seats not to act are refused, state unchanged.
      const std::uint64_t hash = game->state_hash();
      for (Seat other = 0; other < game->seat_count(); ++other) {
        if (std::find(to_act.begin(), to_act.end(), other) != to_act.end()) continue;
        if (!game->legal_moves(other).empty()) {
          return describe(info, seed, step, "seat not to act has legal moves");
        }
        if (!prompts[static_cast<std::size_t>(other) + 1].is_null()) {
          return describe(info, seed, step, "seat not to act has a prompt");
        }
        if (!legal.empty()) {
          auto r = game->apply(other, legal[0]);
          if (r.ok() || r.code() != "not_your_turn") {
            return describe(info, seed, step,
                            "out-of-turn move by seat " + std::to_string(other) + " gave " +
                                (r.ok() ? "accepted" : r.code()));
          }
          if (game->state_hash() != hash) {
            return describe(info, seed, step, "rejected move changed the state");
          }
        }
      }

      Json move;
      if (!legal.empty()) {
        std::set<Json> legal_set;
        for (const Json& m : legal) legal_set.insert(normalized(m));
        if (legal_set.size() != legal.size()) {
          return describe(info, seed, step, "legal_moves lists a move twice");
        }
        if (check_every_legal) {
          for (const Json& m : legal) {
            auto copy = game->clone();
            auto r = copy->apply(seat, m);
            if (!r.ok()) {
              return describe(info, seed, step,
                              "legal move " + m.dump() + " rejected: " + r.message());
            }
          }
        }
        // Mutations: accepted exactly when legal; rejections change nothing.
        for (int i = 0; i < 4; ++i) {
          const Json candidate = mutate(legal[rng.uniform(legal.size())], rng);
          const bool is_legal = legal_set.contains(normalized(candidate));
          auto copy = game->clone();
          auto r = copy->apply(seat, candidate);
          if (stats) ++stats->mutations_checked;
          if (r.ok() != is_legal) {
            return describe(
                info, seed, step,
                "move " + candidate.dump() +
                    (is_legal ? " is legal but was rejected: " : " is not legal but was accepted") +
                    r.message());
          }
          if (!r.ok()) {
            if (r.code().empty() || r.message().empty()) {
              return describe(info, seed, step, "rejection without code or message");
            }
            if (copy->state_hash() != hash) {
              return describe(info, seed, step, "rejected move changed the state");
            }
          }
        }
        move = legal[rng.uniform(legal.size())];
      } else if (prompt.contains("choose")) {
        move = move_from_choose(prompt["choose"], rng);
      } else {
        return describe(info, seed, step, "seat to act has no legal move and no choose prompt");
      }

      // Garbage is refused without a change.
      for (const Json& junk :
           {Json(nullptr), Json("pass"), Json{{"action", 7}}, Json{{"action", "no_such_action"}}}) {
        auto r = game->apply(seat, junk);
        if (r.ok()) return describe(info, seed, step, "junk move accepted: " + junk.dump());
        if (game->state_hash() != hash) {
          return describe(info, seed, step, "rejected junk changed the state");
        }
      }

      auto result = game->apply(seat, move);
      if (!result.ok()) {
        return describe(
            info, seed, step,
            "chosen move " + move.dump() + " rejected: " + result.code() + " " + result.message());
      }
      // The server copies events_text() into every state push: it must be the events' dump.
      const std::string events_text = result.events_text();
      if (!result.events().is_array() ||
          events_text != result.events().dump(-1, ' ', false, Json::error_handler_t::replace)) {
        return describe(info, seed, step,
                        "events text " + events_text + " differs from the events " +
                            result.events().dump(-1, ' ', false, Json::error_handler_t::replace));
      }
      const CardSet event_leak =
          cards_mentioned(result.events()) & hooks.hidden_cards(*game, kSpectator);
      if (!event_leak.empty()) {
        return describe(info, seed, step,
                        "public event shows hidden card " + event_leak.lowest().to_string());
      }
      const std::uint64_t hash_after = game->state_hash();
      log.push_back({seat, move, hash_after});
      if (stats) ++stats->moves;
      if (game->clone()->state_hash() != hash_after) {
        return describe(info, seed, step, "clone hashes differently");
      }
    }
    if (!game->to_act().empty()) return describe(info, seed, step, "finished game has to_act");
    const Json result = game->result();
    if (!result.is_object() || !result.contains("scores") || !result.contains("winners")) {
      return describe(info, seed, step, "result lacks scores/winners");
    }
    if (auto leak = check_views(*game, hooks, prompts); !leak.empty()) {
      return describe(info, seed, step, leak);
    }

    // Replay determinism: the log rebuilds the game, each move reaching the state it
    // reached live (as a server checks the hashes kept with its stored moves).
    const ReplayOutcome replay = replay_log(info, *normalized_options, seats, seed, log);
    if (!replay.ok()) return describe(info, seed, step, "replay: " + replay.broken->describe());
    if (replay.game->state_hash() != game->state_hash()) {
      return describe(info, seed, step, "replay reached a different state");
    }
    if (stats) ++stats->games;
  }
  return {};
}

}  // namespace parlor::testing
