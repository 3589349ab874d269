#include "tests/support/test_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>

#include <variant>

namespace parlor::testing {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;

struct TestClient::Impl {
  net::io_context io;
  net::ssl::context tls_context{net::ssl::context::tls_client};
  std::variant<std::monostate, websocket::stream<beast::tcp_stream, false>,
               websocket::stream<beast::ssl_stream<beast::tcp_stream>, false>>
      ws;
  beast::flat_buffer buffer;
  bool reading = false;
  bool done = false;
  int pings = 0;
  beast::error_code result;

  template <class F>
  decltype(auto) visit(F&& f) {
    if (auto* plain = std::get_if<1>(&ws)) return f(*plain);
    return f(std::get<2>(ws));
  }
};

TestClient::TestClient(const std::string& host, unsigned short port)
    : TestClient(host, port, Options{}) {}

TestClient::TestClient(const std::string& host, unsigned short port, Options options)
    : TestClient(host, port, std::move(options), "") {}

TestClient::TestClient(const std::string& host, unsigned short port, Options options,
                       const std::string& bind_address)
    : impl_(std::make_unique<Impl>()) {
  tcp::resolver resolver(impl_->io);
  auto endpoints = resolver.resolve(host, std::to_string(port));
  auto decorate = [origin = options.origin](websocket::request_type& request) {
    if (!origin.empty()) request.set(beast::http::field::origin, origin);
  };
  // From a chosen address: bound first, then connected to the first endpoint only (connecting
  // to a range closes and reopens the socket for each, which would lose the binding).
  auto connect = [&](beast::tcp_stream& stream) {
    if (bind_address.empty()) {
      stream.connect(endpoints);
      return;
    }
    const tcp::endpoint remote = *endpoints.begin();
    stream.socket().open(remote.protocol());
    stream.socket().bind(tcp::endpoint(net::ip::make_address(bind_address), 0));
    stream.socket().connect(remote);
  };
  if (options.tls) {
    impl_->tls_context.set_verify_mode(net::ssl::verify_none);  // self-signed in tests
    auto& ws = impl_->ws.emplace<2>(impl_->io, impl_->tls_context);
    connect(beast::get_lowest_layer(ws));
    ws.next_layer().handshake(net::ssl::stream_base::client);
    ws.set_option(websocket::stream_base::decorator(decorate));
    ws.handshake(host, options.target);
  } else {
    auto& ws = impl_->ws.emplace<1>(impl_->io);
    connect(beast::get_lowest_layer(ws));
    ws.set_option(websocket::stream_base::decorator(decorate));
    ws.handshake(host, options.target);
  }
  impl_->visit([impl = impl_.get()](auto& ws) {
    ws.text(true);
    ws.read_message_max(64 * 1024 * 1024);
    // Beast answers pings by itself while a read is outstanding; they are counted here.
    ws.control_callback([impl](websocket::frame_type kind, beast::string_view) {
      if (kind == websocket::frame_type::ping) ++impl->pings;
    });
  });
}

TestClient::~TestClient() {
  if (!closed_) {
    beast::error_code ec;
    impl_->visit([&](auto& ws) { beast::get_lowest_layer(ws).socket().close(ec); });
  }
}

void TestClient::send(const Json& message) { send_text(message.dump()); }

void TestClient::send_text(const std::string& text) {
  beast::error_code ec;
  impl_->visit([&](auto& ws) { ws.write(net::buffer(text), ec); });
}

std::optional<Json> TestClient::next(std::chrono::milliseconds timeout) {
  if (!pending_.empty()) {
    Json front = std::move(pending_.front());
    pending_.erase(pending_.begin());
    return front;
  }
  if (closed_) return std::nullopt;
  // One read is always outstanding once started, so a timeout never cancels a read halfway
  // through a frame: the frame simply arrives during a later call.
  if (!impl_->reading) {
    impl_->reading = true;
    impl_->visit([&](auto& ws) {
      ws.async_read(impl_->buffer, [this](beast::error_code ec, std::size_t) {
        impl_->reading = false;
        impl_->done = true;
        impl_->result = ec;
      });
    });
  }
  impl_->io.restart();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!impl_->done && std::chrono::steady_clock::now() < deadline) {
    impl_->io.run_one_until(deadline);
  }
  if (!impl_->done) return std::nullopt;
  impl_->done = false;
  if (impl_->result) {
    closed_ = true;
    impl_->visit([&](auto& ws) {
      close_code_ = ws.reason().code;
      close_reason_ = std::string(ws.reason().reason.c_str());
    });
    return std::nullopt;
  }
  std::string text = beast::buffers_to_string(impl_->buffer.data());
  impl_->buffer.consume(impl_->buffer.size());
  frames_.push_back(text);
  return Json::parse(text);
}

int TestClient::pings_received() const { return impl_->pings; }

std::optional<Json> TestClient::next_of(const std::string& type,
                                        std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<Json> skipped;
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    if (pending_[i].value("type", "") == type) {
      Json found = pending_[i];
      pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
      return found;
    }
  }
  std::vector<Json> held = std::move(pending_);
  pending_.clear();
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    auto frame = next(left);
    if (!frame) break;
    if (frame->value("type", "") == type) {
      pending_ = std::move(held);
      return frame;
    }
    held.push_back(std::move(*frame));
  }
  pending_ = std::move(held);
  return std::nullopt;
}

Json TestClient::request(Json message, std::chrono::milliseconds timeout) {
  const long id = next_id_++;
  message["id"] = id;
  send(message);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<Json> held;
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    if (pending_[i].contains("re") && pending_[i]["re"] == id) {
      Json found = pending_[i];
      pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
      return found;
    }
  }
  held = std::move(pending_);
  pending_.clear();
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    auto frame = next(left);
    if (!frame) break;
    if (frame->contains("re") && (*frame)["re"] == id) {
      pending_ = std::move(held);
      return *frame;
    }
    held.push_back(std::move(*frame));
  }
  pending_ = std::move(held);
  return Json{{"type", "timeout"}, {"request", message}};
}

bool TestClient::wait_closed(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  pending_.clear();
  while (!closed_) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    next(left);
  }
  return true;
}

void TestClient::drop() {
  beast::error_code ec;
  impl_->visit([&](auto& ws) { beast::get_lowest_layer(ws).socket().close(ec); });
  closed_ = true;
}

Json TestClient::hello(const std::string& name) {
  return request({{"type", "hello"}, {"name", name}, {"protocol", 1}});
}

}  // namespace parlor::testing
