// Durable rooms: a server stopped mid-game and a new one started on the same data
// directory continue the game with the same seq and hands; a damaged data file is a clear
// error at start, never a silent empty lobby.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "games/registry.h"
#include "games/testing/self_play.h"
#include "server/store/store.h"
#include "tests/support/game_driver.h"
#include "tests/support/server_fixture.h"

namespace parlor::testing {
namespace {

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("parlor-" + name + "-" +
                                                       std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

server::ServerConfig durable_config(const std::filesystem::path& dir) {
  auto config = ServerFixture::test_config();
  config.store = "sqlite";
  config.data_dir = dir.string();
  return config;
}

TEST(Recovery, GameContinuesAfterRestartWithSameSeqAndHands) {
  const auto dir = fresh_dir("recovery");
  const std::uint64_t seed = test_seed(31);
  std::string room;
  std::vector<Json> welcomes;
  std::int64_t seq = 0;
  std::string error;
  auto mirror = create_game(*find_game("bigtwo"), Json::object(), 4, seed, nullptr, error);
  {
    ServerFixture server(durable_config(dir));
    std::vector<std::unique_ptr<TestClient>> players;
    for (int s = 0; s < 4; ++s) {
      players.push_back(server.connect());
      welcomes.push_back(players.back()->hello("p" + std::to_string(s)));
    }
    room = players[0]->request({{"type", "create_room"},
                                {"kind", "bigtwo"},
                                {"options", {{"seed", seed}}}})["room"];
    for (int s = 1; s < 4; ++s) {
      ASSERT_EQ(players[static_cast<std::size_t>(s)]->request(
                    {{"type", "join_room"}, {"room", room}, {"seat", s}})["type"],
                "joined");
    }
    ASSERT_EQ(players[0]->request({{"type", "start"}, {"room", room}})["type"], "ok");
    for (auto& p : players) ASSERT_TRUE(p->next_of("state"));
    std::vector<TestClient*> raw;
    for (auto& p : players) raw.push_back(p.get());
    DriveResult part = drive_game(raw, {}, room, *mirror, 0, seed, 12);
    ASSERT_EQ(part.failure, "");
    seq = part.last_seq;
    ASSERT_EQ(seq, 12);
  }  // the server stops; every acknowledged move is in the store

  ServerFixture restarted(durable_config(dir));
  std::vector<std::unique_ptr<TestClient>> players;
  for (int s = 0; s < 4; ++s) {
    players.push_back(restarted.connect());
    const Json welcome = players.back()->request(
        {{"type", "hello"}, {"token", welcomes[static_cast<std::size_t>(s)]["token"]}, {"protocol", 1}});
    ASSERT_EQ(welcome["type"], "welcome") << welcome.dump();
    EXPECT_EQ(welcome["player"], welcomes[static_cast<std::size_t>(s)]["player"]);
    auto state = players.back()->next_of("state");
    ASSERT_TRUE(state);
    EXPECT_EQ((*state)["seq"], seq);
    EXPECT_EQ((*state)["view"]["hand"], mirror->view(s)["hand"]) << "seat " << s;
  }
  for (auto& p : players) p->pending().clear();
  std::vector<TestClient*> raw;
  for (auto& p : players) raw.push_back(p.get());
  DriveResult rest = drive_game(raw, {}, room, *mirror, seq, seed + 1);
  ASSERT_EQ(rest.failure, "");
  EXPECT_TRUE(rest.finished);
  std::filesystem::remove_all(dir);
}

TEST(Recovery, DamagedDataFileIsAClearErrorAtStart) {
  const auto dir = fresh_dir("damaged");
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "parlor.db") << "this is not a database, just some bytes of text\n";
  server::Server server(durable_config(dir));
  try {
    server.start();
    FAIL() << "a damaged data file must stop the server";
  } catch (const server::StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("parlor.db"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace parlor::testing
