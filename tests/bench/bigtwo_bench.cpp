// Big Two micro-benchmarks: legal-play generation and apply on typical states.
//
// Targets (docs/BENCHMARKS.md): the typed generator under 20 us for a full 13-card hand,
// the typed apply under 1 us. The JSON faces (legal_moves, apply with a JSON move) are
// measured too, for information: they are what the server pays per move.
#include <benchmark/benchmark.h>

#include <vector>

#include "games/bigtwo/bigtwo.h"
#include "games/core/options.h"
#include "games/core/rng.h"

namespace parlor::bigtwo {
namespace {

Json default_options() {
  std::string error;
  return *normalize_options(bigtwo_info().options, Json::object(), error);
}

// A mid-game position and one legal move in it.
struct Position {
  BigTwoGame game;
  Play play;  // a legal play for the seat to act
  Json move;  // the same play as JSON
};

// Positions from seeded 4-player games of random legal moves, after 0..23 moves, each
// with a legal play available (passes are skipped as the move to measure).
const std::vector<Position>& positions() {
  static const std::vector<Position> pool = [] {
    std::vector<Position> out;
    const Json options = default_options();
    for (std::uint64_t seed = 1; out.size() < 256; ++seed) {
      BigTwoGame game(options, 4, seed);
      Rng rng(seed);
      const int moves = static_cast<int>(seed % 24);
      for (int i = 0; i < moves && !game.finished(); ++i) {
        const Json legal = game.legal_moves(game.turn());
        game.apply(game.turn(), legal[rng.uniform(legal.size())]);
      }
      if (game.finished()) continue;
      std::vector<Play> plays;
      game.legal_plays(game.turn(), plays);
      if (plays.empty()) continue;
      const Play play = plays[rng.uniform(plays.size())];
      Json cards = Json::array();
      for (Card c : play.cards) cards.push_back(c.to_string());
      out.push_back({game, play, Json{{"action", "play"}, {"cards", cards}}});
    }
    return out;
  }();
  return pool;
}

// Full 13-card hands on a fresh lead (every combination is legal): the generator's worst
// usual case.
void BM_BigTwo_LegalPlays_Lead13(benchmark::State& state) {
  std::vector<CardSet> hands;
  for (std::uint64_t seed = 1; seed <= 64; ++seed) {
    hands.push_back(BigTwoGame(default_options(), 4, seed).hand(0));
  }
  std::vector<Play> out;
  out.reserve(4096);
  std::size_t i = 0;
  std::size_t total = 0;
  for (auto _ : state) {
    out.clear();
    generate_plays(hands[i++ % hands.size()], nullptr, CardSet(), HandRules{}, out);
    total += out.size();
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["plays"] = static_cast<double>(total) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_BigTwo_LegalPlays_Lead13);

// The extreme case: thirteen cards of one suit lead (1,287 five-card hands).
void BM_BigTwo_LegalPlays_Lead13OneSuit(benchmark::State& state) {
  const CardSet hand((std::uint64_t{0x1FFF}) << (13 * static_cast<int>(Suit::kHearts)));
  std::vector<Play> out;
  out.reserve(4096);
  for (auto _ : state) {
    out.clear();
    generate_plays(hand, nullptr, CardSet(), HandRules{}, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["plays"] = static_cast<double>(out.size());
}
BENCHMARK(BM_BigTwo_LegalPlays_Lead13OneSuit);

// The typed generator on mid-game positions (leads and follows).
void BM_BigTwo_LegalPlays_MidGame(benchmark::State& state) {
  const auto& pool = positions();
  std::vector<Play> out;
  out.reserve(4096);
  std::size_t i = 0;
  for (auto _ : state) {
    const Position& p = pool[i++ % pool.size()];
    out.clear();
    p.game.legal_plays(p.game.turn(), out);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_BigTwo_LegalPlays_MidGame);

// legal_moves as JSON (what prompts carry), on the same positions.
void BM_BigTwo_LegalMovesJson_MidGame(benchmark::State& state) {
  const auto& pool = positions();
  std::size_t i = 0;
  for (auto _ : state) {
    const Position& p = pool[i++ % pool.size()];
    Json moves = p.game.legal_moves(p.game.turn());
    benchmark::DoNotOptimize(moves);
  }
}
BENCHMARK(BM_BigTwo_LegalMovesJson_MidGame);

// The cost of copying a position, which the apply benchmarks include.
void BM_BigTwo_CopyPosition(benchmark::State& state) {
  const auto& pool = positions();
  std::size_t i = 0;
  for (auto _ : state) {
    BigTwoGame copy = pool[i++ % pool.size()].game;
    benchmark::DoNotOptimize(copy);
  }
}
BENCHMARK(BM_BigTwo_CopyPosition);

// Typed apply: validate (classify, compare) and change the state; includes the copy.
void BM_BigTwo_ApplyTyped(benchmark::State& state) {
  const auto& pool = positions();
  std::size_t i = 0;
  for (auto _ : state) {
    const Position& p = pool[i++ % pool.size()];
    BigTwoGame game = p.game;
    const Seat seat = game.turn();
    Hand hand;
    if (!game.check_play(seat, p.play.cards, hand)) {
      benchmark::DoNotOptimize(game.play_checked(seat, p.play.cards, hand));
    }
    benchmark::DoNotOptimize(game);
  }
}
BENCHMARK(BM_BigTwo_ApplyTyped);

// apply() with a JSON move: parse, validate, change, build the public events.
void BM_BigTwo_ApplyJson(benchmark::State& state) {
  const auto& pool = positions();
  std::size_t i = 0;
  for (auto _ : state) {
    const Position& p = pool[i++ % pool.size()];
    BigTwoGame game = p.game;
    MoveResult result = game.apply(game.turn(), p.move);
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK(BM_BigTwo_ApplyJson);

// One seated player's view as JSON (what a server-side bot and a replay read; the server
// writes the text instead, below).
void BM_BigTwo_ViewJson(benchmark::State& state) {
  const auto& pool = positions();
  std::size_t i = 0;
  for (auto _ : state) {
    const Position& p = pool[i++ % pool.size()];
    Json view = p.game.view(p.game.turn());
    benchmark::DoNotOptimize(view);
  }
}
BENCHMARK(BM_BigTwo_ViewJson);

// The prompt as JSON (what a server-side bot reads before every move it makes).
void BM_BigTwo_PromptJson(benchmark::State& state) {
  const auto& pool = positions();
  std::size_t i = 0;
  for (auto _ : state) {
    const Position& p = pool[i++ % pool.size()];
    Json prompt = p.game.prompt(p.game.turn());
    benchmark::DoNotOptimize(prompt);
  }
}
BENCHMARK(BM_BigTwo_PromptJson);

// The same view written as text, the way the server writes every state push.
void BM_BigTwo_WriteView(benchmark::State& state) {
  const auto& pool = positions();
  std::size_t i = 0;
  std::string out;
  for (auto _ : state) {
    const Position& p = pool[i++ % pool.size()];
    out.clear();
    p.game.write_view(p.game.turn(), out);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_BigTwo_WriteView);

// The four seated views after a move, written together as the server writes them (the
// text they share written once); compare with four times BM_BigTwo_WriteView.
void BM_BigTwo_WriteFourViews(benchmark::State& state) {
  const auto& pool = positions();
  std::size_t i = 0;
  const std::vector<Seat> seats = {0, 1, 2, 3};
  std::vector<std::string> texts(seats.size());
  std::vector<std::string*> outs;
  for (std::string& text : texts) outs.push_back(&text);
  for (auto _ : state) {
    const Position& p = pool[i++ % pool.size()];
    for (std::string& text : texts) text.clear();
    p.game.write_views(seats, outs);
    benchmark::DoNotOptimize(texts.data());
  }
}
BENCHMARK(BM_BigTwo_WriteFourViews);

// The prompt with every legal play, written for the seat to act after every move.
void BM_BigTwo_WritePrompt(benchmark::State& state) {
  const auto& pool = positions();
  std::size_t i = 0;
  std::string out;
  for (auto _ : state) {
    const Position& p = pool[i++ % pool.size()];
    out.clear();
    p.game.write_prompt(p.game.turn(), out);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_BigTwo_WritePrompt);

}  // namespace
}  // namespace parlor::bigtwo
