// The HTTP client of one rules engine (docs/ENGINES.md): asynchronous on the server's
// io_context, so a room's strand never waits for an engine. Connections are kept alive and
// reused; every call has a timeout; a GET (config, init: idempotent) is retried a bounded
// number of times; a request that fails on a reused connection before any answer (the
// engine closed it while idle) is sent again once on a new one.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include "games/core/game.h"
#include "games/external/external_game.h"

#include "server/engine/engine_reply.h"
#include "server/net.h"

namespace parlor::server {

// http://HOST:PORT/BASE, split.
struct EngineUrl {
  std::string host;
  std::string port;
  std::string base;  // the path prefix, without a trailing slash ("" or "/api/v1/whist")
  std::string text;  // as given
};
// Only plain http: an engine runs next to the server, on a trusted network.
std::optional<EngineUrl> parse_engine_url(const std::string& url, std::string& error);

struct EngineClientOptions {
  std::chrono::milliseconds timeout{5'000};  // per attempt: connect, send and receive
  int get_attempts = 3;                      // tries of an idempotent GET
  std::size_t max_idle_connections = 16;
  std::size_t max_answer_bytes = 1 << 20;
};

class EngineClient : public std::enable_shared_from_this<EngineClient> {
 public:
  EngineClient(net::any_io_executor executor, std::string name, EngineUrl url,
               EngineClientOptions options = {});

  const std::string& name() const { return name_; }
  const EngineUrl& url() const { return url_; }

  // Makes `call`; `done` runs on one of the io_context's threads, never inside call().
  void call(external::EngineCall call, std::function<void(EngineReply)> done);

 private:
  // `keep_alive` holds the client for as long as the call runs.
  net::awaitable<EngineReply> exchange(std::shared_ptr<EngineClient> keep_alive,
                                       external::EngineCall call);
  net::awaitable<EngineReply> attempt(const external::EngineCall& call, bool reuse, bool& stale);
  std::unique_ptr<beast::tcp_stream> take_idle();
  void put_idle(std::unique_ptr<beast::tcp_stream> stream);

  net::any_io_executor executor_;
  std::string name_;
  EngineUrl url_;
  EngineClientOptions options_;
  std::mutex idle_mutex_;
  std::vector<std::unique_ptr<beast::tcp_stream>> idle_;
};

// Fetches and checks an engine's /config before the server starts serving, blocking the
// caller. Throws std::runtime_error naming the engine, its URL and what is wrong.
external::EngineConfig fetch_engine_config(const std::string& name, const EngineUrl& url,
                                           EngineClientOptions options);

}  // namespace parlor::server
