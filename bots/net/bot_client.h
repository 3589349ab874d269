// parlor-bot's player: one seat played over the network by a strategy that sees only its
// own view and prompt (from the `state` pushes). It says hello, creates or joins its room,
// answers every prompt (moves carry the `seq` they answer, so a prompt is acted on at most
// once per connection and a stale one is refused by the server), counts games, and when
// the connection drops resumes its identity with its token after a backoff (100 ms doubling
// to 5 s), continuing from the state the server pushes on resume.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "bots/net/bot_options.h"
#include "bots/net/ws_connection.h"
#include "bots/strategy.h"
#include "games/core/rng.h"

namespace parlor::client {

// What the one-line summary reports.
struct BotReport {
  std::string player;
  std::string room;
  int seat = -1;
  int games = 0;
  int wins = 0;
  std::int64_t moves = 0;             // accepted
  int reconnects = 0;                 // identity resumed on a new connection
  std::map<std::string, int> errors;  // error replies by code, stale_state included
  std::string outcome = "running";    // ok, time_limit, interrupted, error
  std::string failure;                // why, when outcome is error
};

class BotClient : public std::enable_shared_from_this<BotClient> {
 public:
  BotClient(boost::asio::io_context& io, BotOptions options, WsUrl url,
            std::shared_ptr<boost::asio::ssl::context> tls, std::function<void()> on_done);
  void start();
  // Ends the bot now with `outcome` (e.g. "interrupted"); on_done runs once.
  void stop(const std::string& outcome);
  const BotReport& report() const { return report_; }
  bool succeeded() const;

 private:
  enum class Purpose { kHello, kEnter, kStart, kMove };
  struct Pending {
    Purpose purpose;
    std::int64_t seq = -1;
  };

  void connect();
  void on_resolved(boost::beast::error_code ec, const Endpoints& endpoints);
  void on_open();
  void on_message(std::string_view text);
  void on_end(const ConnectionEnd& end);
  void schedule_reconnect();
  std::int64_t send(Json request, Purpose purpose, std::int64_t seq = -1);

  void handle(const Json& message);
  void on_reply(const Json& message, const Pending& pending);
  void on_error(const Json& message, const Pending* pending);
  void on_welcome(const Json& message);
  void on_room(const Json& room);
  void on_state(const Json& state);
  void on_game_over(const Json* result);
  void enter_room();
  void request_start();
  void maybe_act();
  void act(std::int64_t seq);

  void save_token() const;
  bool ensure_strategy(const std::string& kind);
  void finish(const std::string& outcome, const std::string& failure = "");
  void log(const std::string& line) const;

  boost::asio::io_context& io_;
  BotOptions options_;
  WsUrl url_;
  std::shared_ptr<boost::asio::ssl::context> tls_;
  std::function<void()> on_done_;
  boost::asio::ip::tcp::resolver resolver_;
  boost::asio::steady_timer reconnect_timer_;
  boost::asio::steady_timer think_timer_;
  boost::asio::steady_timer deadline_timer_;
  std::shared_ptr<WsConnection> connection_;
  std::chrono::milliseconds backoff_{100};
  Rng rng_;
  std::unique_ptr<bots::Strategy> strategy_;
  BotReport report_;

  std::string token_;
  std::string last_hint_;  // the last refusal hint printed, so a retry loop prints it once
  bool entered_ = false;   // seated in the room (joined or created)
  std::int64_t next_id_ = 1;
  std::map<std::int64_t, Pending> pending_;  // requests on this connection awaiting a reply
  Json latest_state_;                        // the newest state push of our room
  std::int64_t acted_seq_ = -1;              // the state we last answered on this connection
  int retries_at_seq_ = 0;                   // rejected moves at the latest state
  std::int64_t observed_seq_ = -1;           // the last state whose events the strategy read
  bool in_game_ = false;                     // a game runs that has not been counted yet
  bool start_requested_ = false;
  bool done_ = false;
};

}  // namespace parlor::client
