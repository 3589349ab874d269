#include "server/engine/engine_client.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/http.hpp>

#include <charconv>
#include <stdexcept>

#include "server/engine/engine_answer.h"

namespace parlor::server {
namespace {

namespace http = beast::http;

EngineReply failed(std::string cause) {
  EngineReply reply;
  reply.outcome = EngineReply::Outcome::kFailed;
  reply.cause = std::move(cause);
  return reply;
}

}  // namespace

std::optional<EngineUrl> parse_engine_url(const std::string& url, std::string& error) {
  const std::string scheme = "http://";
  if (url.rfind(scheme, 0) != 0) {
    error = "the URL must start with http://";
    return std::nullopt;
  }
  const std::string rest = url.substr(scheme.size());
  const auto slash = rest.find('/');
  const std::string authority = rest.substr(0, slash);
  std::string base = slash == std::string::npos ? "" : rest.substr(slash);
  while (!base.empty() && base.back() == '/') base.pop_back();
  const auto colon = authority.rfind(':');
  EngineUrl out;
  out.text = url;
  out.base = base;
  out.host = authority.substr(0, colon);
  out.port = colon == std::string::npos ? "80" : authority.substr(colon + 1);
  unsigned port = 0;
  const auto [end, ec] = std::from_chars(out.port.data(), out.port.data() + out.port.size(), port);
  if (out.host.empty() || ec != std::errc() || end != out.port.data() + out.port.size() ||
      port == 0 || port > 65535) {
    error = "the URL must be http://HOST:PORT/PATH with a port from 1 to 65535";
    return std::nullopt;
  }
  if (base.find_first_of("?# ") != std::string::npos) {
    error = "the URL's path may hold no query, fragment or space";
    return std::nullopt;
  }
  return out;
}

EngineClient::EngineClient(net::any_io_executor executor, std::string name, EngineUrl url,
                           EngineClientOptions options)
    : executor_(std::move(executor)),
      name_(std::move(name)),
      url_(std::move(url)),
      options_(options) {}

void EngineClient::call(external::EngineCall call, std::function<void(EngineReply)> done) {
  net::co_spawn(executor_, exchange(shared_from_this(), std::move(call)),
                [done = std::move(done)](const std::exception_ptr& error, EngineReply reply) {
                  if (error) {
                    try {
                      std::rethrow_exception(error);
                    } catch (const std::exception& e) {
                      reply = failed(std::string("the call failed: ") + e.what());
                    }
                  }
                  done(std::move(reply));
                });
}

net::awaitable<EngineReply> EngineClient::exchange(std::shared_ptr<EngineClient> keep_alive,
                                                   external::EngineCall call) {
  (void)keep_alive;
  const int tries = call.post ? 1 : std::max(1, options_.get_attempts);
  EngineReply reply;
  for (int i = 0; i < tries; ++i) {
    bool stale = false;
    reply = co_await attempt(call, /*reuse=*/true, stale);
    if (stale) reply = co_await attempt(call, /*reuse=*/false, stale);
    if (reply.outcome != EngineReply::Outcome::kFailed) co_return reply;
    if (i + 1 < tries) {
      net::steady_timer pause(executor_);
      pause.expires_after(std::chrono::milliseconds(100) * (i + 1));
      boost::system::error_code ec;
      co_await pause.async_wait(net::redirect_error(net::use_awaitable, ec));
    }
  }
  co_return reply;
}

net::awaitable<EngineReply> EngineClient::attempt(const external::EngineCall& call, bool reuse,
                                                  bool& stale) {
  boost::system::error_code ec;
  auto with_ec = net::redirect_error(net::use_awaitable, ec);
  const auto started = std::chrono::steady_clock::now();
  std::unique_ptr<beast::tcp_stream> stream = reuse ? take_idle() : nullptr;
  const bool reused = stream != nullptr;
  if (!stream) {
    stream = std::make_unique<beast::tcp_stream>(executor_);
    tcp::resolver resolver(executor_);
    const auto endpoints = co_await resolver.async_resolve(url_.host, url_.port, with_ec);
    if (ec) co_return failed("cannot resolve " + url_.host + ": " + ec.message());
    stream->expires_after(options_.timeout);
    co_await stream->async_connect(endpoints, with_ec);
    if (ec) co_return failed("cannot connect: " + ec.message());
  }
  http::request<http::string_body> request{call.post ? http::verb::post : http::verb::get,
                                           url_.base + call.target, 11};
  request.set(http::field::host, url_.host + ":" + url_.port);
  request.keep_alive(true);
  if (call.post) {
    request.set(http::field::content_type, "application/json");
    request.body() = call.body;
  }
  request.prepare_payload();
  stream->expires_after(options_.timeout);
  co_await http::async_write(*stream, request, with_ec);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(options_.max_answer_bytes);
  if (!ec) co_await http::async_read(*stream, buffer, parser, with_ec);
  if (ec) {
    // An idle connection the engine closed meanwhile fails at once, before any byte of an
    // answer: only then is the request sent again. A request the engine may be working on
    // (a timeout) is not.
    const bool closed = ec == http::error::end_of_stream || ec == net::error::eof ||
                        ec == net::error::connection_reset || ec == net::error::broken_pipe;
    stale = reused && closed && !parser.got_some();
    if (ec == beast::error::timeout ||
        std::chrono::steady_clock::now() - started >= options_.timeout) {
      co_return failed("no answer within " + std::to_string(options_.timeout.count()) + " ms");
    }
    co_return failed("the connection failed: " + ec.message());
  }
  auto response = parser.release();
  const bool keep = response.keep_alive();
  EngineReply reply = read_engine_answer(response.result_int(), response.body());
  if (keep) put_idle(std::move(stream));
  co_return reply;
}

std::unique_ptr<beast::tcp_stream> EngineClient::take_idle() {
  std::lock_guard lock(idle_mutex_);
  if (idle_.empty()) return nullptr;
  auto stream = std::move(idle_.back());
  idle_.pop_back();
  return stream;
}

void EngineClient::put_idle(std::unique_ptr<beast::tcp_stream> stream) {
  stream->expires_never();
  std::lock_guard lock(idle_mutex_);
  if (idle_.size() < options_.max_idle_connections) idle_.push_back(std::move(stream));
}

external::EngineConfig fetch_engine_config(const std::string& name, const EngineUrl& url,
                                           EngineClientOptions options) {
  net::io_context io;
  auto client = std::make_shared<EngineClient>(io.get_executor(), name, url, options);
  EngineReply reply;
  client->call({false, "/config", "", external::kEngineSeat, nullptr},
               [&](EngineReply r) { reply = std::move(r); });
  io.run();
  const std::string who = "engine " + name + " at " + url.text + ": ";
  if (reply.outcome == EngineReply::Outcome::kFailed) {
    throw std::runtime_error(who + "GET /config failed: " + reply.cause);
  }
  if (reply.outcome == EngineReply::Outcome::kRefused) {
    throw std::runtime_error(who + "GET /config was refused: " + reply.message);
  }
  std::string error;
  auto config = external::parse_engine_config(reply.body, error);
  if (!config) throw std::runtime_error(who + error);
  return *config;
}

}  // namespace parlor::server
