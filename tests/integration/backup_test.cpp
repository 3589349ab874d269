// deploy/backup's scripts against the real parlor-server: a backup taken while a game is
// played holds every move acknowledged before it; restored into a data directory and served
// by a new server, the game resumes exactly there, also over the directory it came from; the
// restore refuses while a server runs on the directory; a backup whose redo log was
// overwritten while it copied is refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/game_driver.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/server_process.h"
#include "tests/support/shell_command.h"

namespace parlor::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

fs::path backup_test_dir(const std::string& name) { return scratch_dir("backup-test", name); }

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

// Restores `backup` into `dir` with parlor-restore, starts `server` on it and resumes the game
// of the player holding `token`: the seq of the state pushed to it, or -1 (reported).
std::int64_t restore_and_resume(const fs::path& backup, const fs::path& dir,
                                std::unique_ptr<ServerProcess>& server, const std::string& name,
                                const std::string& token) {
  std::string output;
  const int status =
      run_shell(script("parlor-restore.sh") + " " + backup.string() + " " + dir.string(), output);
  EXPECT_EQ(status, 0) << output;
  if (status != 0) return -1;
  server = std::make_unique<ServerProcess>(
      PARLOR_SERVER_BINARY,
      std::vector<std::string>{"--dev", "--store", "sqlite", "--data-dir", dir.string()},
      backup_test_dir("logs"), name);
  const std::string started = server->start();
  EXPECT_EQ(started, "");
  if (!started.empty()) return -1;
  TestClient player("127.0.0.1", server->port());
  EXPECT_EQ(player.request({{"type", "hello"}, {"protocol", 1}, {"token", token}})["type"],
            "welcome");
  const auto state = player.next_of("state");
  EXPECT_TRUE(state) << "no state push on resuming";
  return state ? (*state)["seq"].get<std::int64_t>() : -1;
}

TEST(Backup, AnOnlineBackupRestoresTheGameWhereItsLastAcknowledgedMoveLeftIt) {
  const fs::path source = backup_test_dir("source");
  const fs::path target = backup_test_dir("target");
  const fs::path backup = backup_test_dir("backups") / "parlor-backup.db";
  ServerProcess first(PARLOR_SERVER_BINARY,
                      {"--dev", "--store", "sqlite", "--data-dir", source.string()},
                      backup_test_dir("logs"), "first");
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

  std::unique_ptr<ServerProcess> second;
  EXPECT_EQ(restore_and_resume(backup, target, second, "second", token), backed_up);

  // Over a running server's directory the restore refuses and changes nothing.
  EXPECT_NE(run_shell(script("parlor-restore.sh") + " " + backup.string() + " " + target.string(),
                      output),
            0);
  EXPECT_NE(output.find("stop it first"), std::string::npos) << output;
  second.reset();

  // Restored over the directory it was taken from, whose redo log still holds the move after
  // the backup (the server was killed, so nothing else has it), the game is as the backup left
  // it too: the old log and WAL go aside with the old file rather than being replayed over the
  // backup.
  std::unique_ptr<ServerProcess> third;
  EXPECT_EQ(restore_and_resume(backup, source, third, "third", token), backed_up);
}

// The moves of the games under way are in the redo log, so a backup needs the log's file of
// its snapshot's generation. A server that starts two more generations while the backup
// copies overwrites that file; the backup then refuses and leaves nothing. Here the file is
// emptied by hand (the server stopped), which is what the check sees after such a race.
TEST(Backup, ABackupWhoseRedoLogNoLongerHoldsItsSnapshotsGenerationIsRefused) {
  const fs::path source = backup_test_dir("moved-source");
  const fs::path backup = backup_test_dir("moved-backups") / "parlor-backup.db";
  ServerProcess server(PARLOR_SERVER_BINARY,
                       {"--dev", "--store", "sqlite", "--data-dir", source.string()},
                       backup_test_dir("logs"), "moved");
  ASSERT_EQ(server.start(), "");
  ASSERT_EQ(server.kill_now(), "");
  for (const char* log : {"parlor.db.redo-0", "parlor.db.redo-1"}) {
    ASSERT_TRUE(fs::exists(source / log)) << log;
    fs::resize_file(source / log, 0);
  }
  std::string output;
  EXPECT_NE(
      run_shell(script("parlor-backup.sh") + " " + source.string() + " " + backup.string(), output),
      0);
  EXPECT_NE(output.find("run it again"), std::string::npos) << output;
  EXPECT_FALSE(fs::exists(backup));
  EXPECT_FALSE(fs::exists(backup.string() + ".partial"));
  EXPECT_FALSE(fs::exists(backup.string() + ".partial.redo"));
}

}  // namespace
}  // namespace parlor::testing
