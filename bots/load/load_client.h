// One simulated player of parlor-load: an asynchronous WebSocket client that says hello,
// takes its seat (seat 0 creates the room and starts it), and answers every prompt with a
// random legal move after a think time, measuring move-to-own-state latency.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "bots/net/ws_connection.h"
#include "games/core/game.h"
#include "games/core/rng.h"

namespace parlor::load {

using Clock = std::chrono::steady_clock;

struct LoadStats {
  std::int64_t moves = 0;
  std::int64_t states = 0;
  std::int64_t games = 0;
  std::int64_t connected = 0;
  std::int64_t reconnects = 0;
  std::map<std::string, std::int64_t> errors;  // by code
  // What to do about connections the server refused (client::refusal_hint), each said once.
  std::set<std::string> hints;
  std::vector<std::int64_t> latencies_us;  // move sent -> own state with the new seq
};

// The seats of one room, sharing the room id once seat 0 has created it.
struct RoomPlan {
  std::string kind;
  int seats = 4;
  std::string room;
  // {"type":"move","room":ROOM,"seq": — every move request of the room starts so.
  std::string move_request_start;
  Json options = Json::object();
  // Non-empty: seat 0 is the room's only client and fills every other seat with a server bot
  // of this strategy (add_bot) before it starts the game.
  std::string bot_strategy;
  // Seats that said hello before the room existed, to be told when it does.
  std::vector<std::function<void()>> waiting;
  // With LoadSettings::follow_room_node: the room's node ("" on a single server), known from
  // seat 0's first `room` push; the other seats connect only then, to that node.
  std::optional<std::string> node;
  std::vector<std::function<void()>> waiting_for_node;
};

struct LoadSettings {
  client::WsUrl url{false, "127.0.0.1", "8080", "/ws"};
  std::chrono::milliseconds think{0};
  Clock::time_point stop_at;
  // Cluster mode behind a proxy: the seats other than the room's creator connect to the
  // room's node (`?node=ID`, protocol/PROTOCOL.md "Cluster mode") instead of wherever the
  // proxy puts them, so their moves need no hop between nodes.
  bool follow_room_node = false;
};

class LoadClient : public std::enable_shared_from_this<LoadClient> {
 public:
  LoadClient(boost::asio::io_context& io, const LoadSettings& settings,
             std::shared_ptr<RoomPlan> plan, int seat, std::uint64_t seed, LoadStats& stats);
  // Connects (or, following the room's node, waits for seat 0 to learn it, then connects).
  void start(const client::Endpoints& endpoints);
  void stop();

 private:
  void on_open();
  void on_message(std::string_view text);
  void send(std::string text);
  void handle(const Json& message);
  void on_state(std::int64_t seq);
  void on_error(std::string_view code);
  void act(std::int64_t seq, const Json& prompt);
  void send_move(std::int64_t seq, std::string request);
  void fail(const client::ConnectionEnd& end);
  void connect(const client::Endpoints& endpoints, const std::string& node);

  boost::asio::io_context& io_;
  const LoadSettings& settings_;
  std::shared_ptr<RoomPlan> plan_;
  int seat_;
  Rng rng_;
  LoadStats& stats_;
  std::shared_ptr<client::WsConnection> connection_;
  boost::asio::steady_timer think_timer_;
  std::int64_t pending_seq_ = -1;  // the seq our move will create; -1 when none in flight
  Clock::time_point sent_at_{};
  bool stopped_ = false;
  void join();
};

}  // namespace parlor::load
