#include "bots/sim/choices.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "bots/sim/simulator.h"

namespace parlor::sim {
namespace {

// Moves per playout before it is cut off (no hand comes close).
constexpr int kMaxPlayoutMoves = 5000;

// Up to `limit` distinct candidate moves: the whole legal list when it is short enough, else a
// uniform sample of it in list order; for a `choose` prompt, distinct random subsets.
std::vector<Json> candidates(const Json& prompt, int limit, Rng& rng) {
  std::vector<Json> out;
  const auto max = static_cast<std::size_t>(limit);
  if (const auto legal = prompt.find("legal"); legal != prompt.end() && legal->is_array()) {
    if (legal->size() <= max) return legal->get<std::vector<Json>>();
    std::vector<std::size_t> index(legal->size());
    for (std::size_t i = 0; i < index.size(); ++i) index[i] = i;
    rng.shuffle(std::span<std::size_t>(index));
    index.resize(max);
    std::sort(index.begin(), index.end());
    for (std::size_t i : index) out.push_back((*legal)[i]);
    return out;
  }
  std::set<std::string> seen;
  for (std::size_t draw = 0; draw < 4 * max && out.size() < max; ++draw) {
    Json move = bots::random_move(prompt, rng);
    if (move.is_null()) break;
    if (seen.insert(move.dump()).second) out.push_back(std::move(move));
  }
  return out;
}

// One playout of `move`: the outcome for `seat` in [0, 1].
double play_out(const Game& state, Seat seat, const Json& move, const bots::IsmctsGame& judge,
                bots::Strategy* playout, Rng& rng) {
  const std::unique_ptr<Game> world = state.clone();
  if (!world->apply(seat, move).ok()) return 0;
  for (int moves = 0; moves < kMaxPlayoutMoves && !judge.hand_over(state, *world); ++moves) {
    const std::vector<Seat> acting = world->to_act();
    if (acting.empty()) break;
    const Json prompt = world->prompt(acting.front());
    const Json next = playout ? playout->choose(world->view(acting.front()), prompt, rng)
                              : bots::random_move(prompt, rng);
    if (next.is_null() || !world->apply(acting.front(), next).ok()) break;
  }
  return judge.reward(state, *world, seat);
}

struct Tally {
  double sum = 0;
  double sum_squares = 0;
  double mean(int n) const { return sum / n; }
  // The variance of the mean of n outcomes.
  double mean_variance(int n) const {
    if (n < 2) return 0;
    const double m = mean(n);
    return std::max(0.0, (sum_squares - n * m * m) / (n - 1)) / n;
  }
};

}  // namespace

ChoiceSample measure_choice(const Game& state, Seat seat, const bots::IsmctsGame& judge,
                            bots::Strategy* playout, const ChoiceSettings& settings,
                            std::uint64_t seed) {
  ChoiceSample sample;
  const Json prompt = state.prompt(seat);
  sample.legal_moves = prompt_branching(prompt);
  Rng pick_rng(mix_seed(seed));
  const std::vector<Json> moves = candidates(prompt, settings.max_moves, pick_rng);
  sample.tried = static_cast<int>(moves.size());
  if (moves.size() < 2 || settings.rollouts < 1) return sample;

  const int n = settings.rollouts;
  std::vector<Tally> selection(moves.size());
  std::vector<Tally> measurement(moves.size());
  for (std::size_t m = 0; m < moves.size(); ++m) {
    for (int r = 0; r < 2 * n; ++r) {
      // Rollout r draws the same stream whichever move it follows.
      Rng rng(mix_seed(seed ^ mix_seed(static_cast<std::uint64_t>(r) + 1)));
      const double outcome = play_out(state, seat, moves[m], judge, playout, rng);
      Tally& tally = r < n ? selection[m] : measurement[m];
      tally.sum += outcome;
      tally.sum_squares += outcome * outcome;
    }
  }
  std::size_t best = 0;
  std::size_t worst = 0;
  for (std::size_t m = 1; m < moves.size(); ++m) {
    if (selection[m].sum > selection[best].sum) best = m;
    if (selection[m].sum < selection[worst].sum) worst = m;
  }
  sample.best = measurement[best].mean(n);
  sample.worst = measurement[worst].mean(n);
  const double gap = sample.best - sample.worst;
  const double error =
      std::sqrt(measurement[best].mean_variance(n) + measurement[worst].mean_variance(n));
  sample.differs = best != worst && gap > 1.959963984540054 * error && gap > 0;
  return sample;
}

}  // namespace parlor::sim
