// Abuse and limits over a real socket: malformed frames keep the connection open, oversize
// frames close it with 1009, floods get rate_limited then 1008, a slow consumer is closed
// while its table plays on, and shutdown closes everyone with 1001.
#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <poll.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "games/registry.h"
#include "tests/support/game_driver.h"
#include "tests/support/server_fixture.h"

namespace parlor::testing {
namespace {

TEST(Limits, MalformedFramesGetBadRequestAndTheConnectionStays) {
  ServerFixture server;
  auto client = server.player("alice");
  const std::vector<std::string> frames = {
      "not json",
      "[1,2,3]",
      "{\"type\":42}",
      "{\"type\":\"warp\"}",
      "",
      std::string(40, '[') + std::string(40, ']'),
      "{\"type\":\"join_room\",\"room\":5}",
      "{\"type\":\"create_room\",\"kind\":\"bigtwo\",\"seats\":1e300}",
      "{\"type\":\"chat\",\"room\":\"x\",\"text\":\"\\ud800\"}",
  };
  for (const std::string& frame : frames) {
    client->send_text(frame);
    auto reply = client->next();
    ASSERT_TRUE(reply) << frame;
    EXPECT_EQ((*reply)["type"], "error") << frame;
    EXPECT_EQ((*reply)["code"], "bad_request") << frame;
    EXPECT_FALSE((*reply)["message"].get<std::string>().empty());
  }
  EXPECT_EQ(client->request({{"type", "ping"}})["type"], "pong");
}

// RFC 6455 8.1: a text frame that is not UTF-8 fails the WebSocket connection (1007);
// the JSON decoder's own UTF-8 checks are covered by the protocol unit tests.
TEST(Limits, InvalidUtf8TextFrameClosesWith1007) {
  ServerFixture server;
  auto client = server.player("alice");
  client->send_text("{\"type\":\"chat\",\"room\":\"x\",\"text\":\"\xff\xfe\"}");
  ASSERT_TRUE(client->wait_closed());
  EXPECT_EQ(client->close_code(), 1007);
  auto other = server.player("bob");
  EXPECT_EQ(other->request({{"type", "ping"}})["type"], "pong");
}

TEST(Limits, DeepNestingIsRefusedCheaply) {
  ServerFixture server;
  auto client = server.player("alice");
  // Deep enough to crash a recursive copy, small enough for the 16 KiB frame limit.
  client->send_text("{\"type\":\"ping\",\"x\":" + std::string(8000, '[') + std::string(8000, ']') +
                    "}");
  auto reply = client->next();
  ASSERT_TRUE(reply);
  EXPECT_EQ((*reply)["code"], "bad_request");
  EXPECT_EQ(client->request({{"type", "ping"}})["type"], "pong");
}

TEST(Limits, OversizeFrameClosesWith1009) {
  ServerFixture server;
  auto client = server.player("alice");
  client->send_text("{\"type\":\"chat\",\"text\":\"" + std::string(20000, 'a') + "\"}");
  ASSERT_TRUE(client->wait_closed());
  EXPECT_EQ(client->close_code(), 1009);
  // The server keeps serving others.
  auto other = server.player("bob");
  EXPECT_EQ(other->request({{"type", "ping"}})["type"], "pong");
}

TEST(Limits, FloodGetsRateLimitedThenClosed) {
  auto config = ServerFixture::test_config();
  config.rate_per_second = 5;
  config.rate_burst = 10;
  config.rate_strikes_before_close = 20;
  ServerFixture server(config);
  auto client = server.player("alice");
  for (int i = 0; i < 100; ++i) client->send({{"type", "ping"}});
  int pongs = 0;
  int limited = 0;
  while (auto frame = client->next(std::chrono::seconds(3))) {
    if ((*frame)["type"] == "pong") ++pongs;
    if ((*frame).value("code", "") == "rate_limited") ++limited;
  }
  EXPECT_GE(pongs, 8);
  EXPECT_LE(pongs, 12);
  EXPECT_GE(limited, 1);
  ASSERT_TRUE(client->closed());
  EXPECT_EQ(client->close_code(), 1008);
  auto other = server.player("bob");
  EXPECT_EQ(other->request({{"type", "ping"}})["type"], "pong");
}

TEST(Limits, SlowConsumerIsClosedWhileTheTablePlaysOn) {
  auto config = ServerFixture::test_config();
  config.max_queue_messages = 16;
  ServerFixture server(config);
  // A spectator that asks for a lot and never reads.
  auto slow = server.player("slow");
  std::vector<std::unique_ptr<TestClient>> players;
  for (int s = 0; s < 2; ++s) players.push_back(server.player("p" + std::to_string(s)));
  const Json created = players[0]->request(
      {{"type", "create_room"}, {"kind", "bigtwo"}, {"seats", 2}, {"options", {{"seed", 8}}}});
  const std::string room = created["room"];
  ASSERT_EQ(players[1]->request({{"type", "join_room"}, {"room", room}})["type"], "joined");
  ASSERT_EQ(slow->request({{"type", "watch_room"}, {"room", room}})["type"], "watching");
  for (int i = 0; i < 4000; ++i) slow->send({{"type", "list_games"}});
  ASSERT_EQ(players[0]->request({{"type", "start"}, {"room", room}})["type"], "ok");
  for (auto& p : players) ASSERT_TRUE(p->next_of("state"));
  // The spectator reads nothing until the server has given up on it (however fast either
  // side is), then finds the close after what was already on its way.
  const auto closed_as_slow = [&] {
    const std::string text = http_get(server.port(), "/metrics");
    const std::string name = "\nparlor_slow_consumers_closed_total ";
    const auto at = text.find(name);
    return at != std::string::npos && std::stod(text.substr(at + name.size())) >= 1;
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!closed_as_slow() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(closed_as_slow());
  ASSERT_TRUE(slow->wait_closed(std::chrono::seconds(20)));
  EXPECT_EQ(slow->close_code(), 1008);
  EXPECT_NE(slow->close_reason().find("slow consumer"), std::string::npos);
  // The table never waited for it and plays on to the end.
  std::string error;
  auto mirror = create_game(*find_game("bigtwo"), Json::object(), 2, 8, nullptr, error);
  DriveResult result = drive_game({players[0].get(), players[1].get()}, {}, room, *mirror, 0, 8);
  EXPECT_EQ(result.failure, "");
  EXPECT_TRUE(result.finished);
}

TEST(Limits, SilentConnectionIsClosed) {
  auto config = ServerFixture::test_config();
  config.dead_after = std::chrono::milliseconds(400);
  ServerFixture server(config);
  auto silent = server.player("silent");
  // Not reading means not answering the server's ping either.
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  ASSERT_TRUE(silent->wait_closed(std::chrono::seconds(2)));
  EXPECT_TRUE(silent->closed());
}

TEST(Limits, QuietConnectionThatAnswersPingsStaysOpen) {
  auto config = ServerFixture::test_config();
  // A pong has half the idle time, 200 ms, to come back: the client's reader shares a loaded
  // 2-core machine with another test.
  config.dead_after = std::chrono::milliseconds(400);
  ServerFixture server(config);
  auto quiet = server.player("quiet");
  // Reading (and so answering pings) without sending a message for ten idle times: many
  // rounds of ping and pong, and a pong counts however late the timer that looks at it fires
  // (an answered ping once looked outstanding when that timer fired a little late).
  EXPECT_FALSE(quiet->next(std::chrono::milliseconds(4000)).has_value());
  EXPECT_FALSE(quiet->closed());
  // Pinged after half the idle time of silence, again half an idle time after each pong.
  EXPECT_GE(quiet->pings_received(), 5);
  EXPECT_LE(quiet->pings_received(), 21);
  EXPECT_EQ(quiet->request({{"type", "ping"}})["type"], "pong");
}

TEST(Limits, TalkingConnectionIsNotPinged) {
  auto config = ServerFixture::test_config();
  // A ping would go out after 800 ms of silence. Two tests run at once on a 2-core machine, so
  // one round trip can take a few hundred milliseconds (with a ping due after 200 ms, one
  // drew it); the talk lasts three times the silence that would draw a ping, so a server that
  // pinged regardless of it would still be caught.
  config.dead_after = std::chrono::milliseconds(1600);
  ServerFixture server(config);
  auto talker = server.player("talker");
  // A message every 50 ms keeps the connection heard from: no ping is needed.
  for (int i = 0; i < 48; ++i) {
    EXPECT_EQ(talker->request({{"type", "ping"}})["type"], "pong");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(talker->pings_received(), 0);
  EXPECT_FALSE(talker->closed());
}

TEST(Limits, AbandonedRoomsAreRemoved) {
  auto config = ServerFixture::test_config();
  config.empty_room_timeout = std::chrono::seconds(1);
  ServerFixture server(config);
  std::string room;
  {
    auto alice = server.player("alice");
    room = alice->request({{"type", "create_room"}, {"kind", "bigtwo"}})["room"];
  }  // alice's connection is gone
  auto bob = server.player("bob");
  EXPECT_EQ(bob->request({{"type", "join_room"}, {"room", room}, {"seat", 1}})["type"], "joined");
  bob->drop();
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  auto carol = server.player("carol");
  EXPECT_EQ(carol->request({{"type", "join_room"}, {"room", room}})["code"], "no_such_room");
}

TEST(Limits, ConnectionsPerIpAreCapped) {
  auto config = ServerFixture::test_config();
  config.max_connections_per_ip = 3;
  ServerFixture server(config);
  std::vector<std::unique_ptr<TestClient>> open;
  for (int i = 0; i < 3; ++i) open.push_back(server.player("p" + std::to_string(i)));
  EXPECT_THROW(server.connect(), std::exception) << "the fourth connection from 127.0.0.1";
  open.pop_back();  // one leaves: a place frees up as soon as the server has seen it go
  std::unique_ptr<TestClient> again;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!again && std::chrono::steady_clock::now() < deadline) {
    try {
      again = server.player("again");
    } catch (const std::exception&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ASSERT_TRUE(again) << "the place freed by the one who left";
  EXPECT_EQ(again->request({{"type", "ping"}})["type"], "pong");
}

TEST(Limits, HandshakesPerIpPerSecondAreCapped) {
  auto config = ServerFixture::test_config();
  config.max_handshakes_per_ip_per_second = 5;
  ServerFixture server(config);
  int refused = 0;
  std::vector<std::unique_ptr<TestClient>> open;
  for (int i = 0; i < 8; ++i) {
    try {
      open.push_back(server.connect());
    } catch (const std::exception&) {
      ++refused;
    }
  }
  EXPECT_GE(refused, 2) << "at most 5 handshakes a second";
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  EXPECT_EQ(server.player("later")->request({{"type", "ping"}})["type"], "pong");
}

TEST(Limits, SlowlorisIsCutOffAfterTheHandshakeTimeout) {
  auto config = ServerFixture::test_config();
  config.handshake_timeout = std::chrono::milliseconds(300);
  ServerFixture server(config);
  boost::asio::io_context io;
  boost::asio::ip::tcp::socket socket(io);
  socket.connect({boost::asio::ip::make_address("127.0.0.1"), server.port()});
  // Headers trickle in and never finish.
  boost::asio::write(socket,
                     boost::asio::buffer(std::string("GET /healthz HTTP/1.1\r\nHost: x\r\n")));
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  boost::system::error_code ec;
  boost::asio::write(socket, boost::asio::buffer(std::string("X-Slow: 1\r\n")), ec);
  // The server must have hung up: the socket reads end-of-stream (or a reset) at once.
  pollfd ready{socket.native_handle(), POLLIN, 0};
  ASSERT_EQ(::poll(&ready, 1, 2000), 1) << "the server kept the half-sent request open";
  std::array<char, 64> buffer{};
  socket.read_some(boost::asio::buffer(buffer), ec);
  EXPECT_TRUE(ec == boost::asio::error::eof || ec == boost::asio::error::connection_reset)
      << ec.message();
  EXPECT_EQ(server.player("bob")->request({{"type", "ping"}})["type"], "pong");
}

TEST(Limits, GracefulShutdownClosesWith1001) {
  auto server = std::make_unique<ServerFixture>();
  auto a = server->player("alice");
  auto b = server->player("bob");
  server->server().stop();
  for (TestClient* c : {a.get(), b.get()}) {
    ASSERT_TRUE(c->wait_closed());
    EXPECT_EQ(c->close_code(), 1001);
  }
}

TEST(Http, EndpointsStaticFilesAndTraversal) {
  const auto dir = std::filesystem::temp_directory_path() / "parlor-static-test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "index.html") << "<!doctype html><title>Parlor</title>";
  std::ofstream(dir / "app.js") << "console.log(1)";
  auto config = ServerFixture::test_config();
  config.static_dir = dir.string();
  ServerFixture server(config);
  auto get = [&](const std::string& target, const std::string& method = "GET") {
    return http_exchange(
        server.port(), method + " " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  };
  EXPECT_NE(get("/healthz").find("200 OK"), std::string::npos);
  EXPECT_NE(get("/readyz").find("200 OK"), std::string::npos);
  const std::string metrics = get("/metrics");
  EXPECT_NE(metrics.find("parlor_connections "), std::string::npos);
  EXPECT_NE(metrics.find("parlor_move_latency_seconds_bucket"), std::string::npos);
  EXPECT_NE(metrics.find("parlor_rooms{status=\"playing\"}"), std::string::npos);
  EXPECT_NE(get("/api/games").find("\"bigtwo\""), std::string::npos);
  EXPECT_NE(get("/api/rooms").find("\"rooms\""), std::string::npos);
  const std::string index = get("/");
  EXPECT_NE(index.find("text/html"), std::string::npos);
  EXPECT_NE(index.find("<title>Parlor</title>"), std::string::npos);
  EXPECT_NE(get("/app.js").find("text/javascript"), std::string::npos);
  EXPECT_NE(get("/missing.css").find("404"), std::string::npos);
  for (const char* evil : {"/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc"}) {
    const std::string response = get(evil);
    EXPECT_EQ(response.find("root:"), std::string::npos) << evil;
    EXPECT_NE(response.find("400"), std::string::npos) << evil;
  }
  EXPECT_NE(get("/", "POST").find("405"), std::string::npos);
  const std::string head = get("/healthz", "HEAD");
  EXPECT_NE(head.find("200 OK"), std::string::npos);
  EXPECT_EQ(head.find("\r\n\r\nok"), std::string::npos);
  // An oversized header is refused without taking the server down.
  get("/healthz\r\nX-Big: " + std::string(20000, 'a'));
  EXPECT_NE(get("/healthz").find("200 OK"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(Http, OriginAllowlist) {
  auto config = ServerFixture::test_config();
  config.allowed_origins = {"https://parlor.example"};
  ServerFixture server(config);
  EXPECT_THROW(server.connect({.tls = false, .origin = "https://evil.example"}), std::exception);
  auto ok = server.connect({.tls = false, .origin = "https://parlor.example"});
  EXPECT_EQ(ok->hello("alice")["type"], "welcome");
}

TEST(Tls, PlaysAGameOverWss) {
  const auto dir = std::filesystem::temp_directory_path() / "parlor-tls-test";
  ServerFixture server(ServerFixture::tls_config(dir));
  std::vector<std::unique_ptr<TestClient>> players;
  for (int s = 0; s < 2; ++s) {
    players.push_back(server.connect({.tls = true, .origin = ""}));
    ASSERT_EQ(players.back()->hello("p" + std::to_string(s))["type"], "welcome");
  }
  const Json created = players[0]->request(
      {{"type", "create_room"}, {"kind", "bigtwo"}, {"seats", 2}, {"options", {{"seed", 4}}}});
  const std::string room = created["room"];
  ASSERT_EQ(players[1]->request({{"type", "join_room"}, {"room", room}})["type"], "joined");
  ASSERT_EQ(players[0]->request({{"type", "start"}, {"room", room}})["type"], "ok");
  for (auto& p : players) ASSERT_TRUE(p->next_of("state"));
  std::string error;
  auto mirror = create_game(*find_game("bigtwo"), Json::object(), 2, 4, nullptr, error);
  DriveResult result = drive_game({players[0].get(), players[1].get()}, {}, room, *mirror, 0, 4);
  EXPECT_EQ(result.failure, "");
  EXPECT_TRUE(result.finished);
  // Plain HTTP still works on the same port.
  EXPECT_NE(http_get(server.port(), "/healthz").find("200 OK"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace parlor::testing
