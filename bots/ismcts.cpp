#include "bots/ismcts.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bots/view_reading.h"

namespace parlor::bots {
namespace {

// UCB1's exploration constant for rewards in [0, 1].
constexpr double kExploration = 0.7;
// Moves per playout before it is cut off (a hand never comes close).
constexpr int kMaxPlayoutMoves = 2000;

struct MoveStats {
  const Json* move = nullptr;
  std::string text;  // the move as dump() writes it: how worlds' legal lists are matched
  double reward = 0;
  int visits = 0;
  int available = 0;  // worlds in which the move was legal (ISMCTS's availability count)
};

class IsmctsStrategy final : public Strategy {
 public:
  IsmctsStrategy(const IsmctsGame& game, std::unique_ptr<Strategy> fallback, SearchBudget budget)
      : game_(game), fallback_(std::move(fallback)), budget_(budget) {}

  std::string_view name() const override { return "ismcts"; }
  bool observes() const override { return true; }
  void observe(const Json& events) override {
    if (!events.is_array()) return;
    for (const Json& event : events) events_.push_back(event);
  }
  void reset() override { events_.clear(); }

  Json choose(const Json& view, const Json& prompt, Rng& rng) override {
    Json move = decide(view, prompt, rng);
    events_.push_back({{"type", kOwnMoveNote}, {"move", move}});
    return move;
  }

 private:
  Json decide(const Json& view, const Json& prompt, Rng& rng) {
    const Json::array_t& prompt_legal = legal_list(prompt);
    if (prompt_legal.size() == 1) return prompt_legal.front();
    if (!game_.searches(view)) return fallback_->choose(view, prompt, rng);
    const Json shortlist = game_.candidates ? game_.candidates(view, prompt) : Json();
    const Json::array_t& legal =
        shortlist.is_array() ? shortlist.get_ref<const Json::array_t&>() : prompt_legal;
    if (legal.size() == 1) return legal.front();
    if (legal.empty()) return fallback_->choose(view, prompt, rng);
    const Seat you = read_int(view, "you", -1);
    const bool greedy =
        game_.greedy_playouts_for ? game_.greedy_playouts_for(view) : game_.greedy_playouts;
    const int move_cost = greedy ? game_.greedy_move_cost : 1;
    Rng search_rng(rng.next());
    std::vector<MoveStats> stats;
    for (const Json& move : legal) stats.push_back({&move, move.dump(), 0, 0, 0});

    const auto start = std::chrono::steady_clock::now();
    int worlds = 0;
    // A world that cannot be built still counts against the budget, so a sampler that keeps
    // failing cannot stall the decision.
    const int step = game_.every_move_per_world ? static_cast<int>(legal.size()) : 1;
    const std::int64_t move_cap =
        static_cast<std::int64_t>(budget_.iterations) * game_.playout_moves;
    std::int64_t moves = 0;
    for (int i = 0; i < budget_.iterations; i += step) {
      if (budget_.time.count() > 0 && std::chrono::steady_clock::now() - start >= budget_.time) {
        break;
      }
      if (move_cap > 0 && moves >= move_cap) break;
      auto world = game_.sample(view, events_, search_rng);
      if (!world || world->to_act() != std::vector<Seat>{you}) continue;
      ++worlds;
      moves += move_cost * (game_.every_move_per_world
                                ? iterate_every_move(*world, you, stats, greedy, search_rng)
                                : iterate(*world, you, stats, greedy, search_rng));
    }
    if (worlds == 0) return fallback_->choose(view, prompt, rng);
    const MoveStats* best = &stats.front();
    for (const MoveStats& s : stats) {
      if (game_.every_move_per_world
              ? mean(s) > mean(*best)
              : s.visits > best->visits || (s.visits == best->visits && s.reward > best->reward)) {
        best = &s;
      }
    }
    return *best->move;
  }

  static double mean(const MoveStats& s) { return s.visits > 0 ? s.reward / s.visits : -1; }

  // One world, every move of the seat that is legal in it, each played out from the same seed.
  // Returns the moves the playouts made.
  std::int64_t iterate_every_move(const Game& world, Seat you, std::vector<MoveStats>& stats,
                                  bool greedy, Rng& rng) const {
    const std::uint64_t playout_seed = rng.next();
    std::int64_t moves = 0;
    for (MoveStats& s : stats) {
      const std::unique_ptr<Game> line = world.clone();
      if (!line->apply(you, *s.move).ok()) continue;
      Rng playout_rng(playout_seed);
      moves += 1 + play_out(*line, world, greedy, playout_rng);
      s.reward += game_.reward(world, *line, you);
      ++s.visits;
    }
    return moves;
  }

  // One iteration: choose among the moves legal in this world by UCB1, play it and play out.
  // Returns the moves the playout made.
  std::int64_t iterate(Game& world, Seat you, std::vector<MoveStats>& stats, bool greedy,
                       Rng& rng) const {
    const Json world_legal = world.legal_moves(you);
    MoveStats* pick = nullptr;
    double pick_score = -1;
    for (MoveStats& s : stats) {
      bool available = false;
      for (const Json& move : world_legal) {
        if (move == *s.move) {
          available = true;
          break;
        }
      }
      if (!available) continue;
      ++s.available;
      const double score =
          s.visits == 0
              ? 1e9 - static_cast<double>(&s - stats.data())
              : s.reward / s.visits +
                    kExploration * std::sqrt(std::log(static_cast<double>(s.available)) / s.visits);
      if (score > pick_score) {
        pick_score = score;
        pick = &s;
      }
    }
    if (!pick) return 0;
    const std::unique_ptr<Game> root = world.clone();
    if (!world.apply(you, *pick->move).ok()) return 0;
    const std::int64_t moves = 1 + play_out(world, *root, greedy, rng);
    pick->reward += game_.reward(*root, world, you);
    ++pick->visits;
    return moves;
  }

  // Uniformly random (or greedy) moves for every seat until the hand `root` was in is over.
  // Returns the moves made.
  std::int64_t play_out(Game& world, const Game& root, bool greedy, Rng& rng) const {
    int moves = 0;
    for (; moves < kMaxPlayoutMoves && !game_.hand_over(root, world); ++moves) {
      const std::vector<Seat> acting = world.to_act();
      if (acting.empty()) break;
      const Json prompt = world.prompt(acting.front());
      const Json move = greedy ? fallback_->choose(world.view(acting.front()), prompt, rng)
                               : random_move(prompt, rng);
      if (move.is_null() || !world.apply(acting.front(), move).ok()) break;
    }
    return moves;
  }

  const IsmctsGame& game_;
  std::unique_ptr<Strategy> fallback_;
  SearchBudget budget_;
  std::vector<Json> events_;  // every public event of the game so far
};

}  // namespace

std::unique_ptr<Strategy> make_ismcts(const IsmctsGame& game, std::unique_ptr<Strategy> fallback,
                                      SearchBudget budget) {
  return std::make_unique<IsmctsStrategy>(game, std::move(fallback), budget);
}

}  // namespace parlor::bots
