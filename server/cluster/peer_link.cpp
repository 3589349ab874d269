#include "server/cluster/peer_link.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include "server/cluster/link_message.h"
#include "server/log.h"
#include "server/log_throttle.h"

namespace parlor::server {

namespace websocket = beast::websocket;

namespace {

LogThrottle& link_failures() {
  static LogThrottle throttle(std::chrono::seconds(5));
  return throttle;
}

void put_length(std::string& out, std::size_t size) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((size >> (8 * i)) & 0xFF));
}

websocket::stream_base::timeout link_timeouts(std::chrono::milliseconds idle) {
  websocket::stream_base::timeout timeouts{};
  timeouts.handshake_timeout = std::chrono::seconds(5);
  // A ping after half the idle time; no answer by the whole of it closes the link. A node
  // paused past its lease loses its links about as it loses its rooms.
  timeouts.idle_timeout = idle;
  timeouts.keep_alive_pings = true;
  return timeouts;
}

}  // namespace

PeerLink::PeerLink(net::io_context& io, std::string peer, std::chrono::milliseconds idle_timeout,
                   Handlers handlers)
    : strand_(net::make_strand(io)),
      ws_(strand_),
      peer_(std::move(peer)),
      idle_timeout_(idle_timeout),
      handlers_(std::move(handlers)),
      resolver_(strand_) {}

std::shared_ptr<PeerLink> PeerLink::connect(net::io_context& io, std::string peer,
                                            std::string secret,
                                            std::chrono::milliseconds idle_timeout,
                                            Handlers handlers) {
  auto link = std::make_shared<PeerLink>(io, std::move(peer), idle_timeout, std::move(handlers));
  net::dispatch(link->strand_,
                [link, secret = std::move(secret)]() mutable { link->start_connect(secret); });
  return link;
}

std::shared_ptr<PeerLink> PeerLink::accept(net::io_context& io, tcp::socket socket,
                                           beast::http::request<beast::http::string_body> request,
                                           std::chrono::milliseconds idle_timeout,
                                           Handlers handlers) {
  beast::error_code ec;
  const auto remote = socket.remote_endpoint(ec);
  std::string peer = ec ? "?" : remote.address().to_string() + ":" + std::to_string(remote.port());
  auto link = std::make_shared<PeerLink>(io, std::move(peer), idle_timeout, std::move(handlers));
  // The socket moves onto the link's strand.
  const auto protocol = socket.local_endpoint(ec).protocol();
  const auto handle = socket.release(ec);
  if (!ec) beast::get_lowest_layer(link->ws_).socket().assign(protocol, handle, ec);
  net::dispatch(link->strand_, [link, request = std::move(request), ec]() mutable {
    if (ec) return link->fail("cannot take the socket over: " + ec.message());
    link->start_accept(request);
  });
  return link;
}

void PeerLink::start_connect(std::string secret) {
  const auto colon = peer_.rfind(':');
  if (colon == std::string::npos) return fail("no port in the address");
  beast::get_lowest_layer(ws_).expires_after(std::chrono::seconds(5));
  resolver_.async_resolve(
      peer_.substr(0, colon), peer_.substr(colon + 1),
      [self = shared_from_this(), secret = std::move(secret)](
          beast::error_code ec, const tcp::resolver::results_type& results) mutable {
        if (ec) return self->fail("cannot resolve: " + ec.message());
        beast::get_lowest_layer(self->ws_).async_connect(
            results, [self, secret = std::move(secret)](beast::error_code connect_ec,
                                                        const tcp::endpoint&) mutable {
              if (connect_ec) return self->fail("cannot connect: " + connect_ec.message());
              beast::get_lowest_layer(self->ws_).expires_never();
              beast::get_lowest_layer(self->ws_).socket().set_option(tcp::no_delay(true));
              self->ws_.set_option(link_timeouts(self->idle_timeout_));
              self->ws_.set_option(
                  websocket::stream_base::decorator([secret](websocket::request_type& request) {
                    request.set(std::string(kLinkSecretHeader), secret);
                  }));
              self->ws_.binary(true);
              auto response = std::make_shared<websocket::response_type>();
              self->ws_.async_handshake(
                  *response, self->peer_, std::string(kLinkPath),
                  [self, response](beast::error_code handshake_ec) {
                    if (handshake_ec) {
                      return self->fail("handshake refused: " + handshake_ec.message());
                    }
                    // A peer that does not announce the format is a node before hello
                    // generations; one of an older format is written only the forms it
                    // reads (link::for_peer).
                    self->peer_format_ = link::link_format_of((*response)[link::kLinkFormatHeader]);
                    self->opened();
                  });
            });
      });
}

void PeerLink::start_accept(const beast::http::request<beast::http::string_body>& request) {
  beast::error_code ignored;
  beast::get_lowest_layer(ws_).socket().set_option(tcp::no_delay(true), ignored);
  ws_.set_option(link_timeouts(idle_timeout_));
  ws_.binary(true);
  ws_.set_option(websocket::stream_base::decorator([](websocket::response_type& response) {
    response.set(std::string(link::kLinkFormatHeader), std::string(link::kLinkFormat));
  }));
  ws_.async_accept(request, [self = shared_from_this()](beast::error_code ec) {
    if (ec) return self->fail("handshake failed: " + ec.message());
    self->opened();
  });
}

void PeerLink::opened() {
  if (closed_.load()) return;
  open_ = true;
  was_open_ = true;
  do_read();
  do_write();
}

bool PeerLink::send(std::string&& message) {
  bool start = false;
  bool behind = false;
  {
    // Checked under the lock fail() takes after closing: a message queued here is either
    // refused or handed back by fail() as unsent, never lost between the two.
    std::lock_guard lock(mutex_);
    if (closed_.load()) return false;
    pending_bytes_ += message.size();
    behind = pending_bytes_ > kMaxQueuedBytes;
    start = pending_.empty();
    pending_.push_back(std::move(message));
  }
  if (behind) {
    net::post(strand_, [self = shared_from_this()] { self->fail("the peer fell too far behind"); });
  } else if (start) {
    net::post(strand_, [self = shared_from_this()] { self->do_write(); });
  }
  return true;
}

void PeerLink::do_write() {
  if (!open_ || writing_ || closed_.load()) return;
  std::vector<std::string> batch;
  {
    std::lock_guard lock(mutex_);
    if (pending_.empty()) return;
    batch.swap(pending_);
    pending_bytes_ = 0;
  }
  out_.clear();
  for (std::string& message : batch) {
    if (peer_format_ < link::kLinkFormatNumber) {
      message = link::for_peer(std::move(message), peer_format_);
      if (message.empty()) continue;
    }
    put_length(out_, message.size());
    out_ += message;
  }
  if (out_.empty()) return;
  writing_ = true;
  if (handlers_.bytes_sent) handlers_.bytes_sent->fetch_add(out_.size(), std::memory_order_relaxed);
  ws_.async_write(net::buffer(out_),
                  [self = shared_from_this()](beast::error_code ec, std::size_t) {
                    self->writing_ = false;
                    if (ec) return self->fail("write failed: " + ec.message());
                    self->do_write();
                  });
}

void PeerLink::do_read() {
  ws_.async_read(buffer_, beast::bind_front_handler(&PeerLink::on_read, shared_from_this()));
}

void PeerLink::on_read(beast::error_code ec, std::size_t) {
  if (ec) return fail(ec == websocket::error::closed ? "closed by the peer" : ec.message());
  std::string_view data(static_cast<const char*>(buffer_.data().data()), buffer_.data().size());
  const auto self = shared_from_this();
  while (!data.empty()) {
    if (data.size() < 4) return fail("a truncated message");
    std::size_t size = 0;
    for (int i = 0; i < 4; ++i)
      size |= static_cast<std::size_t>(static_cast<unsigned char>(data[i])) << (8 * i);
    data.remove_prefix(4);
    if (data.size() < size) return fail("a truncated message");
    if (closed_.load()) return;
    handlers_.message(self, data.substr(0, size));
    data.remove_prefix(size);
  }
  buffer_.consume(buffer_.size());
  if (!closed_.load()) do_read();
}

void PeerLink::close() {
  // Posted, not dispatched: a message handler may close the link it is called from.
  net::post(strand_, [self = shared_from_this()] { self->fail(""); });
}

void PeerLink::fail(std::string_view why) {
  if (closed_.exchange(true)) return;
  if (!why.empty())
    link_failures().info("cluster: link with " + peer_ + " lost: " + std::string(why));
  beast::error_code ignored;
  beast::get_lowest_layer(ws_).socket().shutdown(tcp::socket::shutdown_both, ignored);
  beast::get_lowest_layer(ws_).close();
  std::vector<std::string> unsent;
  {
    std::lock_guard lock(mutex_);
    unsent.swap(pending_);
    pending_bytes_ = 0;
  }
  if (handlers_.unsent && !unsent.empty()) handlers_.unsent(std::move(unsent));
  if (handlers_.closed) handlers_.closed(shared_from_this());
  handlers_ = {};  // breaks cycles through the handlers' captures
}

}  // namespace parlor::server
