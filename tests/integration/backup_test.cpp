// deploy/backup's scripts against the real parlor-server: a backup taken while a game is
// played holds every move acknowledged before it; restored into a data directory and served
// by a new server, the game resumes exactly there, also over the directory it came from; the
// restore refuses while a server runs on the directory.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/game_driver.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/server_process.h"
#include "tests/support/shell_command.h"

namespace parlor::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

fs::path test_dir(const std::string& name) { return scratch_dir("backup-test", name); }

std::string script(const std::string& name) {
  return (fs::path(PARLOR_SOURCE_DIR) / "deploy/backup" / name).string();
}

// Two players in a started Big Two room on the server at `port`.
struct Game {
  std::unique_ptr<TestClient> alice;
  std::unique_ptr<TestClient> bob;
  std::string alice_token;
  std::string room;
};

Game start_game(unsigned short port) {
  Game game;
  game.alice = std::make_unique<TestClient>("127.0.0.1", port);
  game.bob = std::make_unique<TestClient>("127.0.0.1", port);
  game.alice_token = game.alice->hello("alice").value("token", "");
  game.bob->hello("bob");
  game.room = game.alice
                  ->request({{"type", "create_room"},
                             {"kind", "bigtwo"},
                             {"seats", 2},
                             {"options", {{"seed", 12}}}})
                  .value("room", "");
  EXPECT_EQ(game.bob->request({{"type", "join_room"}, {"room", game.room}, {"seat", 1}})["type"],
            "joined");
  EXPECT_EQ(game.alice->request({{"type", "start"}, {"room", game.room}})["type"], "ok");
  return game;
}

// Whoever is to act plays the first legal move; returns the seq the ok acknowledged, or -1.
std::int64_t play_one(Game& game, Seat& to_act) {
  TestClient& mover = to_act == 0 ? *game.alice : *game.bob;
  const auto state = next_prompt(mover, game.room, to_act);
  if (!state) return -1;
  const Json ok = mover.request({{"type", "move"},
                                 {"room", game.room},
                                 {"seq", (*state)["seq"]},
                                 {"move", (*state)["prompt"]["legal"][0]}});
  if (ok["type"] != "ok") return -1;
  to_act = 1 - to_act;
  return ok.value("seq", std::int64_t{-1});
}

TEST(Backup, AnOnlineBackupRestoresTheGameWhereItsLastAcknowledgedMoveLeftIt) {
  const fs::path source = test_dir("source");
  const fs::path target = test_dir("target");
  const fs::path backup = test_dir("backups") / "parlor-backup.db";
  ServerProcess first(PARLOR_SERVER_BINARY,
                      {"--dev", "--store", "sqlite", "--data-dir", source.string()},
                      test_dir("logs"), "first");
  ASSERT_EQ(first.start(), "");
  Game game = start_game(first.port());
  // Who leads Big Two depends on the deal: alice's first state push says; it goes back to her
  // frames for play_one to find.
  const auto opening = game.alice->next_of("state");
  ASSERT_TRUE(opening && !(*opening)["to_act"].empty());
  Seat to_act = (*opening)["to_act"][0].get<Seat>();
  game.alice->pending().insert(game.alice->pending().begin(), *opening);
  std::int64_t backed_up = 0;
  for (int move = 0; move < 3; ++move) {
    backed_up = play_one(game, to_act);
    ASSERT_GT(backed_up, 0) << "move " << move;
  }

  std::string output;
  ASSERT_EQ(
      run_shell(script("parlor-backup.sh") + " " + source.string() + " " + backup.string(), output),
      0)
      << output;
  // A move after the backup is not in it.
  ASSERT_EQ(play_one(game, to_act), backed_up + 1);
  ASSERT_EQ(first.kill_now(), "");
  const std::string token = game.alice_token;
  game = {};

  ASSERT_EQ(run_shell(script("parlor-restore.sh") + " " + backup.string() + " " + target.string(),
                      output),
            0)
      << output;
  ServerProcess second(PARLOR_SERVER_BINARY,
                       {"--dev", "--store", "sqlite", "--data-dir", target.string()},
                       test_dir("logs"), "second");
  ASSERT_EQ(second.start(), "");
  TestClient alice("127.0.0.1", second.port());
  ASSERT_EQ(alice.request({{"type", "hello"}, {"protocol", 1}, {"token", token}})["type"],
            "welcome");
  const auto state = alice.next_of("state");
  ASSERT_TRUE(state) << "no state push on resuming";
  EXPECT_EQ((*state)["seq"], backed_up);

  // Over a running server's directory the restore refuses and changes nothing.
  EXPECT_NE(run_shell(script("parlor-restore.sh") + " " + backup.string() + " " + target.string(),
                      output),
            0);
  EXPECT_NE(output.find("stop it first"), std::string::npos) << output;
  second.kill_now();

  // Restored over the directory it was taken from, whose WAL still holds the move after the
  // backup (the server was killed, so nothing checkpointed it), the game is as the backup left
  // it too: the old WAL goes aside with the old file rather than being applied to the backup.
  ASSERT_EQ(run_shell(script("parlor-restore.sh") + " " + backup.string() + " " + source.string(),
                      output),
            0)
      << output;
  ServerProcess third(PARLOR_SERVER_BINARY,
                      {"--dev", "--store", "sqlite", "--data-dir", source.string()},
                      test_dir("logs"), "third");
  ASSERT_EQ(third.start(), "");
  TestClient again("127.0.0.1", third.port());
  ASSERT_EQ(again.request({{"type", "hello"}, {"protocol", 1}, {"token", token}})["type"],
            "welcome");
  const auto restored = again.next_of("state");
  ASSERT_TRUE(restored) << "no state push on resuming";
  EXPECT_EQ((*restored)["seq"], backed_up);
  third.kill_now();
}

}  // namespace
}  // namespace parlor::testing
