// Rated play over real sockets: a rated game played to its end moves both players' ratings,
// which /api/players/<id> and /api/leaderboard then show; an abandoner ranks last; bad input
// (a bot added to a rated room, bad leaderboard parameters) gets its precise code and changes
// nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "games/registry.h"
#include "tests/support/game_driver.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/server_fixture.h"

namespace parlor::testing {
namespace {

struct HttpAnswer {
  int status = 0;
  Json body;
};

HttpAnswer get(unsigned short port, const std::string& target) {
  const std::string raw = http_get(port, target);
  HttpAnswer out;
  const auto space = raw.find(' ');
  if (space != std::string::npos) out.status = std::stoi(raw.substr(space + 1, 3));
  const auto body = raw.find("\r\n\r\n");
  if (body != std::string::npos) {
    out.body = Json::parse(raw.substr(body + 4), nullptr, false);
  }
  return out;
}

// The ratings are written after the game's last move: a read may come just before them.
HttpAnswer get_when(unsigned short port, const std::string& target,
                    const std::function<bool(const HttpAnswer&)>& ready) {
  HttpAnswer answer;
  for (int i = 0; i < 200; ++i) {
    answer = get(port, target);
    if (ready(answer)) return answer;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return answer;
}

server::ServerConfig durable_config(const std::string& name) {
  auto config = ServerFixture::test_config();
  const auto dir = scratch_dir("ratings_test", name);
  std::filesystem::remove_all(dir / "data");
  config.store = "sqlite";
  config.data_dir = (dir / "data").string();
  return config;
}

struct Seated {
  std::unique_ptr<TestClient> client;
  std::string id;
  std::string token;
};

Seated player(const ServerFixture& server, const std::string& name) {
  Seated out{server.connect(), "", ""};
  const Json welcome = out.client->hello(name);
  out.id = welcome.value("player", "");
  out.token = welcome.value("token", "");
  return out;
}

// A rated two-player Agram room to one deal, started.
std::string start_rated_agram(Seated& a, Seated& b, std::uint64_t seed) {
  const Json created = a.client->request({{"type", "create_room"},
                                          {"kind", "agram"},
                                          {"seats", 2},
                                          {"rated", true},
                                          {"options", {{"target", 1}, {"seed", seed}}}});
  EXPECT_EQ(created["type"], "room_created") << created.dump();
  std::string room = created.value("room", "");
  EXPECT_EQ(b.client->request({{"type", "join_room"}, {"room", room}, {"seat", 1}})["type"],
            "joined");
  EXPECT_EQ(a.client->request({{"type", "start"}, {"room", room}})["type"], "ok");
  return room;
}

// Plays `seat`'s first legal move whenever it is to act, until the room's game_over.
bool play_first_legal_until_over(TestClient& client, const std::string& room, int seat) {
  for (int frames = 0; frames < 2000; ++frames) {
    const auto frame = client.next(std::chrono::seconds(5));
    if (!frame) return false;
    if ((*frame)["type"] == "game_over" && (*frame)["room"] == room) return true;
    if ((*frame)["type"] != "state" || (*frame)["room"] != room) continue;
    const Json& to_act = (*frame)["to_act"];
    if (std::find(to_act.begin(), to_act.end(), Json(seat)) == to_act.end()) continue;
    const Json& legal = (*frame)["prompt"]["legal"];
    if (!legal.is_array() || legal.empty()) return false;
    client.send({{"type", "move"}, {"room", room}, {"move", legal[0]}});
  }
  return false;
}

const Json* rating_of(const Json& profile, const std::string& kind) {
  for (const Json& entry : profile["ratings"]) {
    if (entry["kind"] == kind) return &entry;
  }
  return nullptr;
}

TEST(RatingsPlayTest, ARatedGameMovesBothRatingsShownByPlayersAndLeaderboard) {
  ServerFixture server(durable_config("game"));
  Seated a = player(server, "ann");
  Seated b = player(server, "bob");
  const std::uint64_t seed = 20261126;
  const std::string room = start_rated_agram(a, b, seed);
  for (auto* client : {a.client.get(), b.client.get()}) ASSERT_TRUE(client->next_of("state"));
  std::string error;
  auto mirror = create_game(*find_game("agram"), {{"target", 1}}, 2, seed, nullptr, error);
  ASSERT_TRUE(mirror) << error;
  const DriveResult result =
      drive_game({a.client.get(), b.client.get()}, {}, room, *mirror, 0, seed);
  ASSERT_EQ(result.failure, "");
  ASSERT_TRUE(result.finished);
  const int winner = result.game_over["result"]["winners"][0].get<int>();
  const Seated& won = winner == 0 ? a : b;
  const Seated& lost = winner == 0 ? b : a;

  const auto rated = [](const HttpAnswer& answer) { return answer.status == 200; };
  const HttpAnswer winner_profile = get_when(server.port(), "/api/players/" + won.id, rated);
  ASSERT_EQ(winner_profile.status, 200) << winner_profile.body.dump();
  const HttpAnswer loser_profile = get(server.port(), "/api/players/" + lost.id);
  ASSERT_EQ(loser_profile.status, 200) << loser_profile.body.dump();
  const Json* up = rating_of(winner_profile.body, "agram");
  const Json* down = rating_of(loser_profile.body, "agram");
  ASSERT_TRUE(up && down);
  EXPECT_GT((*up)["rating"].get<double>(), 1500);
  EXPECT_LT((*down)["rating"].get<double>(), 1500);
  EXPECT_EQ((*up)["games"], 1);
  EXPECT_EQ(winner_profile.body["name"], winner == 0 ? "ann" : "bob");
  ASSERT_EQ(winner_profile.body["recent"].size(), 1U);
  const Json& game = winner_profile.body["recent"][0];
  EXPECT_EQ(game["room"], room);
  EXPECT_EQ(game["game"], 1);
  EXPECT_EQ(game["place"], 1);
  EXPECT_EQ(game["system"], "glicko2");
  EXPECT_EQ(game["rating_before"], 1500);
  EXPECT_EQ(winner_profile.body["history"]["agram"].size(), 1U);

  const HttpAnswer board = get(server.port(), "/api/leaderboard?kind=agram&limit=5");
  ASSERT_EQ(board.status, 200);
  ASSERT_EQ(board.body["players"].size(), 2U);
  EXPECT_EQ(board.body["players"][0]["player"], won.id);
  EXPECT_EQ(board.body["players"][0]["place"], 1);
  EXPECT_EQ(board.body["players"][1]["player"], lost.id);
  EXPECT_EQ(get(server.port(), "/api/leaderboard?kind=agram&limit=1").body["players"].size(), 1U);
  // Nothing secret in what anyone may read: no token, no seed, no hand.
  for (const HttpAnswer& answer : {winner_profile, loser_profile, board}) {
    const std::string text = answer.body.dump();
    EXPECT_EQ(text.find(a.token), std::string::npos);
    EXPECT_EQ(text.find(b.token), std::string::npos);
    EXPECT_EQ(text.find("seed"), std::string::npos);
    EXPECT_EQ(text.find("hand"), std::string::npos);
  }
}

TEST(RatingsPlayTest, APlayerWhoLeavesARatedGameRanksLast) {
  ServerFixture server(durable_config("abandon"));
  Seated a = player(server, "ann");
  Seated b = player(server, "bob");
  const std::string room = start_rated_agram(a, b, 7);
  ASSERT_TRUE(b.client->next_of("state"));
  EXPECT_EQ(b.client->request({{"type", "leave_room"}, {"room", room}})["type"], "left");
  // Ann plays on against the stand-in bot, always her first legal move, until the game ends.
  ASSERT_TRUE(play_first_legal_until_over(*a.client, room, 0));
  const HttpAnswer leaver = get_when(server.port(), "/api/players/" + b.id,
                                     [](const HttpAnswer& answer) { return answer.status == 200; });
  ASSERT_EQ(leaver.status, 200) << leaver.body.dump();
  EXPECT_LT((*rating_of(leaver.body, "agram"))["rating"].get<double>(), 1500);
  EXPECT_EQ(leaver.body["recent"][0]["abandoned"], true);
  EXPECT_EQ(leaver.body["recent"][0]["place"], 2);
  const HttpAnswer stayer = get(server.port(), "/api/players/" + a.id);
  EXPECT_GT((*rating_of(stayer.body, "agram"))["rating"].get<double>(), 1500);
}

// A rated quick-play table that bots fill: the game is rated, and so is the greedy bot.
TEST(RatingsPlayTest, QuickPlaysRatedBotsGetARatingOfTheirOwn) {
  auto config = durable_config("quick");
  config.quick_play_bots_after = std::chrono::seconds(1);
  ServerFixture server(config);
  Seated a = player(server, "ann");
  const Json waiting = a.client->request({{"type", "quick_play"},
                                          {"kind", "agram"},
                                          {"seats", 2},
                                          {"rated", true},
                                          {"options", {{"target", 1}}}});
  ASSERT_EQ(waiting["status"], "waiting") << waiting.dump();
  EXPECT_EQ(waiting["rated"], true);
  std::string room;
  for (int i = 0; i < 50 && room.empty(); ++i) {
    const auto push = a.client->next_of("quick_play", std::chrono::seconds(3));
    ASSERT_TRUE(push);
    if ((*push)["status"] == "seated") room = (*push)["room"];
  }
  ASSERT_FALSE(room.empty());
  ASSERT_TRUE(play_first_legal_until_over(*a.client, room, 0));
  const HttpAnswer bot = get_when(server.port(), "/api/players/bot:greedy",
                                  [](const HttpAnswer& answer) { return answer.status == 200; });
  ASSERT_EQ(bot.status, 200) << bot.body.dump();
  EXPECT_EQ(bot.body["bot"], true);
  ASSERT_TRUE(rating_of(bot.body, "agram"));
  EXPECT_EQ((*rating_of(bot.body, "agram"))["games"], 1);
  const HttpAnswer board = get(server.port(), "/api/leaderboard?kind=agram");
  ASSERT_EQ(board.body["players"].size(), 2U);
}

// Rated quick play reads each player's rating from the store and seats together only players
// within the rating band: two newcomers (1500 each) at once, not a winner and a loser of a rated
// game (about 1662 and 1338) with a band of 100 that never widens.
TEST(RatingsPlayTest, RatedQuickPlaySeatsOnlyPlayersWithinTheRatingBand) {
  auto config = durable_config("band");
  config.quick_play_bots_after = std::chrono::seconds(0);
  config.quick_play_rating_band = 100;
  config.quick_play_rating_band_growth = 0;
  config.quick_play_rating_band_max = 100;
  ServerFixture server(config);
  Seated a = player(server, "ann");
  Seated b = player(server, "bob");
  const std::string room = start_rated_agram(a, b, 11);
  ASSERT_TRUE(b.client->next_of("state"));
  EXPECT_EQ(b.client->request({{"type", "leave_room"}, {"room", room}})["type"], "left");
  ASSERT_TRUE(play_first_legal_until_over(*a.client, room, 0));
  for (const Seated* rated : {&a, &b}) {
    const HttpAnswer profile =
        get_when(server.port(), "/api/players/" + rated->id,
                 [](const HttpAnswer& answer) { return answer.status == 200; });
    ASSERT_EQ(profile.status, 200) << profile.body.dump();
  }

  const Json ask = {{"type", "quick_play"},
                    {"kind", "agram"},
                    {"seats", 2},
                    {"rated", true},
                    {"options", {{"target", 1}}}};
  Seated c = player(server, "cay");
  Seated d = player(server, "dee");
  for (const Seated* asking : {&a, &b, &c, &d}) {
    const Json waiting = asking->client->request(ask);
    ASSERT_EQ(waiting["status"], "waiting") << waiting.dump();
  }
  const auto seated = [](const Seated& who, std::chrono::milliseconds limit) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
      const auto push = who.client->next_of("quick_play", std::chrono::milliseconds(200));
      if (push && (*push)["status"] == "seated") return *push;
    }
    return Json();
  };
  const Json seated_c = seated(c, std::chrono::seconds(3));
  const Json seated_d = seated(d, std::chrono::seconds(3));
  ASSERT_TRUE(seated_c.is_object() && seated_d.is_object()) << "two newcomers: no table";
  EXPECT_EQ(seated_c["room"], seated_d["room"]);
  EXPECT_TRUE(seated(a, std::chrono::milliseconds(1500)).is_null()) << "ann was seated";
  EXPECT_TRUE(seated(b, std::chrono::milliseconds(200)).is_null()) << "bob was seated";
  EXPECT_EQ(a.client->request({{"type", "cancel_quick_play"}})["type"], "ok");
  EXPECT_EQ(b.client->request({{"type", "cancel_quick_play"}})["type"], "ok");
}

TEST(RatingsPlayTest, BadInputGetsItsCodeAndChangesNothing) {
  ServerFixture server(durable_config("bad"));
  Seated a = player(server, "ann");
  const Json created = a.client->request(
      {{"type", "create_room"}, {"kind", "agram"}, {"seats", 2}, {"rated", true}});
  ASSERT_EQ(created["type"], "room_created");
  const std::string room = created["room"];
  const Json refused =
      a.client->request({{"type", "add_bot"}, {"room", room}, {"seat", 1}, {"strategy", "greedy"}});
  EXPECT_EQ(refused["type"], "error");
  EXPECT_EQ(refused["code"], "rated_no_bots");
  const Json rooms = a.client->request({{"type", "list_rooms"}});
  ASSERT_EQ(rooms["rooms"].size(), 1U);
  EXPECT_TRUE(rooms["rooms"][0]["seats"][1].is_null()) << "the seat stays free";
  EXPECT_EQ(rooms["rooms"][0]["options"]["rated"], true);

  const auto expect_refused = [&](const std::string& target, int status, const std::string& code) {
    const HttpAnswer answer = get(server.port(), target);
    EXPECT_EQ(answer.status, status) << target;
    EXPECT_EQ(answer.body.value("error", ""), code) << target << ": " << answer.body.dump();
  };
  expect_refused("/api/leaderboard?kind=nosuch", 400, "unknown_game");
  expect_refused("/api/leaderboard", 400, "bad_request");
  expect_refused("/api/leaderboard?kind=agram&limit=0", 400, "bad_request");
  expect_refused("/api/leaderboard?kind=agram&limit=101", 400, "bad_request");
  expect_refused("/api/leaderboard?kind=agram&limit=x", 400, "bad_request");
  expect_refused("/api/leaderboard?kind=agram&kind=bigtwo", 400, "bad_request");
  expect_refused("/api/leaderboard?kind=agram&color=red", 400, "bad_request");
  expect_refused("/api/players/" + a.id, 404, "no_such_player");
  expect_refused("/api/players/%zz", 400, "bad_request");
  const HttpAnswer empty = get(server.port(), "/api/leaderboard?kind=agram");
  EXPECT_EQ(empty.status, 200);
  EXPECT_TRUE(empty.body["players"].empty());
}

TEST(RatingsPlayTest, RatedPlayNeedsAStore) {
  ServerFixture server;  // --store none
  Seated a = player(server, "ann");
  const Json refused =
      a.client->request({{"type", "create_room"}, {"kind", "agram"}, {"rated", true}});
  EXPECT_EQ(refused["code"], "not_allowed");
  const Json queued =
      a.client->request({{"type", "quick_play"}, {"kind", "agram"}, {"rated", true}});
  EXPECT_EQ(queued["code"], "not_allowed");
  EXPECT_TRUE(a.client->request({{"type", "list_rooms"}})["rooms"].empty());
}

}  // namespace
}  // namespace parlor::testing
