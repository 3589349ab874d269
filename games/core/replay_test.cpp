#include "games/core/replay.h"

#include <gtest/gtest.h>

#include <vector>

namespace parlor {
namespace {

// A small deterministic game for the replayer: two seats take turns adding 1 to 3 to a
// total that starts at seed % 10; the game ends at 20 or more. Its state hash is the
// default one (full_state's text).
class CountingGame final : public Game {
 public:
  explicit CountingGame(std::uint64_t seed) : total_(static_cast<int>(seed % 10)) {}

  std::string_view kind() const override { return "counting"; }
  int seat_count() const override { return 2; }
  std::vector<Seat> to_act() const override {
    if (finished()) return {};
    return {turn_};
  }
  Json legal_moves(Seat seat) const override {
    Json out = Json::array();
    if (finished() || seat != turn_) return out;
    for (int n = 1; n <= 3; ++n) out.push_back({{"action", "add"}, {"n", n}});
    return out;
  }
  Json prompt(Seat seat) const override {
    if (finished() || seat != turn_) return nullptr;
    return {{"actions", {"add"}}, {"legal", legal_moves(seat)}};
  }
  MoveResult apply(Seat seat, const Json& move) override {
    if (finished()) return MoveResult::rejected("game_over", "the game is over");
    if (seat != turn_) return MoveResult::rejected("not_your_turn", "not your turn");
    if (!move.is_object() || !move.contains("n") || !move["n"].is_number_integer()) {
      return MoveResult::rejected("bad_move", "a move is {\"action\":\"add\",\"n\":1..3}");
    }
    const int n = move["n"].get<int>();
    if (n < 1 || n > 3) return MoveResult::rejected("illegal_move", "add 1, 2 or 3");
    total_ += n;
    turn_ = 1 - turn_;
    return MoveResult::accepted(Json::array({{{"type", "add"}, {"seat", seat}, {"n", n}}}));
  }
  Json view(Seat) const override { return {{"total", total_}, {"turn", turn_}}; }
  bool finished() const override { return total_ >= 20; }
  Json result() const override {
    if (!finished()) return nullptr;
    return {{"scores", {0, 0}}, {"winners", {1 - turn_}}};
  }
  Json full_state() const override { return {{"total", total_}, {"turn", turn_}}; }
  std::unique_ptr<Game> clone() const override { return std::make_unique<CountingGame>(*this); }

 private:
  int total_ = 0;
  Seat turn_ = 0;
};

GameInfo counting_info() {
  GameInfo info;
  info.kind = "counting";
  info.min_seats = info.max_seats = info.default_seats = 2;
  info.create = [](const Json&, int, std::uint64_t seed) -> std::unique_ptr<Game> {
    return std::make_unique<CountingGame>(seed);
  };
  return info;
}

Json add(int n) { return {{"action", "add"}, {"n", n}}; }

// A log of `moves` moves recorded from a live game, each with its state hash.
std::vector<ReplayMove> recorded_log(std::uint64_t seed, const std::vector<int>& moves) {
  CountingGame live(seed);
  std::vector<ReplayMove> log;
  for (int n : moves) {
    const Seat seat = live.to_act().at(0);
    EXPECT_TRUE(live.apply(seat, add(n)).ok());
    log.push_back({seat, add(n), live.state_hash()});
  }
  return log;
}

TEST(Replay, AnIntactLogReplaysToTheRecordedState) {
  const std::vector<ReplayMove> log = recorded_log(4, {3, 1, 2, 2, 3});
  std::vector<std::size_t> seen;
  std::vector<Seat> seats;
  const ReplayOutcome out =
      replay_log(counting_info(), Json::object(), 2, 4, log, [&](const ReplayStep& step) {
        seen.push_back(step.index);
        seats.push_back(step.seat);
        EXPECT_EQ(step.move, log[step.index].move);
        EXPECT_EQ(step.result.events()[0]["n"], log[step.index].move["n"]);
        EXPECT_EQ(step.game.state_hash(), *log[step.index].state_hash);
      });
  ASSERT_TRUE(out.ok()) << out.broken->describe();
  EXPECT_EQ(out.applied, log.size());
  EXPECT_EQ(out.game->full_state()["total"], 4 + 3 + 1 + 2 + 2 + 3);
  EXPECT_EQ(out.game->state_hash(), *log.back().state_hash);
  EXPECT_EQ(seen, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(seats, (std::vector<Seat>{0, 1, 0, 1, 0}));
}

TEST(Replay, MovesWithoutHashesAreAppliedUnchecked) {
  std::vector<ReplayMove> log = recorded_log(0, {1, 2, 3});
  for (ReplayMove& entry : log) entry.state_hash.reset();
  const ReplayOutcome out = replay_log(counting_info(), Json::object(), 2, 0, log);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out.applied, 3U);
  EXPECT_EQ(out.game->full_state()["total"], 6);
}

TEST(Replay, ATamperedMoveIsReportedWithItsIndex) {
  std::vector<ReplayMove> log = recorded_log(2, {1, 2, 3, 1});
  log[2].move["n"] = 7;
  int observed = 0;
  const ReplayOutcome out = replay_log(counting_info(), Json::object(), 2, 2, log,
                                       [&](const ReplayStep&) { ++observed; });
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.broken->kind, ReplayBreak::Kind::kRefused);
  EXPECT_EQ(out.broken->index, 2U);
  EXPECT_EQ(out.broken->code, "illegal_move");
  EXPECT_EQ(out.broken->message, "add 1, 2 or 3");
  EXPECT_EQ(out.broken->describe(), "stored move 2 is refused (illegal_move)");
  EXPECT_EQ(out.broken->describe(117), "stored move 117 is refused (illegal_move)");
  EXPECT_EQ(out.applied, 2U);
  EXPECT_EQ(observed, 2);
  // The game is left after the last good move.
  EXPECT_EQ(out.game->full_state()["total"], 2 + 1 + 2);
}

TEST(Replay, AMoveBySomeoneElseIsRefused) {
  std::vector<ReplayMove> log = recorded_log(2, {1, 2});
  log[1].seat = 0;
  const ReplayOutcome out = replay_log(counting_info(), Json::object(), 2, 2, log);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.broken->index, 1U);
  EXPECT_EQ(out.broken->describe(), "stored move 1 is refused (not_your_turn)");
}

TEST(Replay, AWrongHashIsReported) {
  std::vector<ReplayMove> log = recorded_log(5, {2, 2, 2, 2});
  const std::uint64_t right = *log[1].state_hash;
  *log[1].state_hash ^= 1;
  int observed = 0;
  const ReplayOutcome out = replay_log(counting_info(), Json::object(), 2, 5, log,
                                       [&](const ReplayStep&) { ++observed; });
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.broken->kind, ReplayBreak::Kind::kDifferentState);
  EXPECT_EQ(out.broken->index, 1U);
  EXPECT_EQ(out.broken->expected, right ^ 1);
  EXPECT_EQ(out.broken->reached, right);
  EXPECT_EQ(out.broken->describe(), "stored move 1 reaches a different state");
  EXPECT_EQ(out.applied, 1U);
  EXPECT_EQ(observed, 1);
}

TEST(Replay, ALogFromAnotherSeedReachesADifferentState) {
  const std::vector<ReplayMove> log = recorded_log(5, {2, 2});
  const ReplayOutcome out = replay_log(counting_info(), Json::object(), 2, 6, log);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.broken->kind, ReplayBreak::Kind::kDifferentState);
  EXPECT_EQ(out.broken->index, 0U);
}

TEST(Replay, AnEmptyLogGivesTheInitialState) {
  const ReplayOutcome out = replay_log(counting_info(), Json::object(), 2, 7, {});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out.applied, 0U);
  EXPECT_EQ(out.game->state_hash(), CountingGame(7).state_hash());
}

TEST(Replay, TheReplayerStopsAtTheFirstBreak) {
  LogReplayer replayer(std::make_unique<CountingGame>(0));
  EXPECT_EQ(replayer.last_result(), nullptr);
  EXPECT_TRUE(replayer.apply(0, add(1)));
  ASSERT_NE(replayer.last_result(), nullptr);
  EXPECT_EQ(replayer.last_result()->events()[0]["n"], 1);
  EXPECT_FALSE(replayer.apply(1, add(9)));
  const std::uint64_t after_break = replayer.game().state_hash();
  // Nothing is applied after a break, not even a move that would be legal.
  EXPECT_FALSE(replayer.apply(1, add(1)));
  EXPECT_EQ(replayer.game().state_hash(), after_break);
  EXPECT_EQ(replayer.applied(), 1U);
  ASSERT_TRUE(replayer.broken());
  EXPECT_EQ(replayer.broken()->index, 1U);
}

}  // namespace
}  // namespace parlor
