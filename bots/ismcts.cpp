#include "bots/ismcts.h"

#include <cmath>
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
    const Json::array_t& legal = legal_list(prompt);
    if (legal.size() == 1) return legal.front();
    if (legal.empty() || !game_.searches(view)) return fallback_->choose(view, prompt, rng);
    const Seat you = read_int(view, "you", -1);
    Rng search_rng(rng.next());
    std::vector<MoveStats> stats;
    for (const Json& move : legal) stats.push_back({&move, move.dump(), 0, 0, 0});

    const auto start = std::chrono::steady_clock::now();
    int worlds = 0;
    for (int i = 0; i < budget_.iterations; ++i) {
      if (budget_.time.count() > 0 && std::chrono::steady_clock::now() - start >= budget_.time) {
        break;
      }
      auto world = game_.sample(view, events_, search_rng);
      if (!world || world->to_act() != std::vector<Seat>{you}) continue;
      ++worlds;
      iterate(*world, you, stats, search_rng);
    }
    if (worlds == 0) return fallback_->choose(view, prompt, rng);
    const MoveStats* best = &stats.front();
    for (const MoveStats& s : stats) {
      if (s.visits > best->visits || (s.visits == best->visits && s.reward > best->reward)) {
        best = &s;
      }
    }
    return *best->move;
  }

  // One iteration: choose among the moves legal in this world by UCB1, play it and play out.
  void iterate(Game& world, Seat you, std::vector<MoveStats>& stats, Rng& rng) const {
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
    if (!pick) return;
    const std::unique_ptr<Game> root = world.clone();
    if (!world.apply(you, *pick->move).ok()) return;
    play_out(world, *root, rng);
    pick->reward += game_.reward(*root, world, you);
    ++pick->visits;
  }

  // Uniformly random (or greedy) moves for every seat until the hand `root` was in is over.
  void play_out(Game& world, const Game& root, Rng& rng) const {
    for (int moves = 0; moves < kMaxPlayoutMoves && !game_.hand_over(root, world); ++moves) {
      const std::vector<Seat> acting = world.to_act();
      if (acting.empty()) return;
      const Json prompt = world.prompt(acting.front());
      const Json move = game_.greedy_playouts
                            ? fallback_->choose(world.view(acting.front()), prompt, rng)
                            : random_move(prompt, rng);
      if (move.is_null() || !world.apply(acting.front(), move).ok()) return;
    }
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
