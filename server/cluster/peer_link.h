// One WebSocket connection between two nodes of a cluster, carrying link messages
// (link_message.h) both ways. The node that needs it connects (to the peer's advertised
// address, path /cluster/link, with the cluster's shared secret); the peer accepts it on its
// ordinary listener. Messages queued while the link connects go out once it is up.
//
// Writes are batched: every message queued while a write is in flight goes out in the next
// WebSocket message, each behind its 4-byte length, so a move's pushes to several members on
// one node cost one write. A link whose peer falls more than kMaxQueuedBytes behind, stops
// answering pings for an idle timeout, or sends something that is not a link message is
// closed; the owner of the link (ClusterLinks) then treats every connection behind it as gone.
#pragma once

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/websocket/stream.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "server/cluster/link_message.h"
#include "server/net.h"

namespace parlor::server {

inline constexpr std::string_view kLinkPath = "/cluster/link";
inline constexpr std::string_view kLinkSecretHeader = "X-Parlor-Cluster-Secret";

class PeerLink : public std::enable_shared_from_this<PeerLink> {
 public:
  using MessageHandler = std::function<void(const std::shared_ptr<PeerLink>&, std::string_view)>;
  using ClosedHandler = std::function<void(const std::shared_ptr<PeerLink>&)>;
  struct Handlers {
    MessageHandler message;                            // on the link's strand, in order
    ClosedHandler closed;                              // once, on the link's strand
    std::atomic<std::uint64_t>* bytes_sent = nullptr;  // counts what the link writes
    // Once, on the link's strand, before `closed`: the messages the link never handed to its
    // socket (it could not connect, or fell too far behind), for their senders to answer.
    std::function<void(std::vector<std::string>)> unsent;
  };

  static constexpr std::size_t kMaxQueuedBytes = 64 << 20;

  // Connects to `peer` (host:port) as a client; messages sent meanwhile wait.
  static std::shared_ptr<PeerLink> connect(net::io_context& io, std::string peer,
                                           std::string secret,
                                           std::chrono::milliseconds idle_timeout,
                                           Handlers handlers);
  // Accepts an upgrade request already read from `socket` (its secret checked by the caller).
  static std::shared_ptr<PeerLink> accept(net::io_context& io, tcp::socket socket,
                                          beast::http::request<beast::http::string_body> request,
                                          std::chrono::milliseconds idle_timeout,
                                          Handlers handlers);

  // Queues a message; thread-safe, never blocks. False when the link is closed already: the
  // message was not taken (it is left as it was).
  bool send(std::string&& message);
  // Closes the link (thread-safe, idempotent); the closed handler runs.
  void close();
  // Not closed yet (it may still be connecting).
  bool usable() const { return !closed_.load(); }
  // The link was up at some point (not a connection that never succeeded).
  bool was_open() const { return was_open_.load(); }
  const std::string& peer() const { return peer_; }

  PeerLink(net::io_context& io, std::string peer, std::chrono::milliseconds idle_timeout,
           Handlers handlers);

 private:
  using Stream = beast::websocket::stream<beast::tcp_stream, false>;

  void start_connect(std::string secret);
  void start_accept(const beast::http::request<beast::http::string_body>& request);
  void opened();
  void do_read();
  void on_read(beast::error_code ec, std::size_t bytes);
  void do_write();
  void fail(std::string_view why);

  net::strand<net::io_context::executor_type> strand_;
  Stream ws_;
  std::string peer_;
  std::chrono::milliseconds idle_timeout_;
  Handlers handlers_;
  beast::flat_buffer buffer_;
  tcp::resolver resolver_;

  std::mutex mutex_;  // guards pending_ and pending_bytes_
  std::vector<std::string> pending_;
  std::size_t pending_bytes_ = 0;

  // Strand only.
  bool open_ = false;
  bool writing_ = false;
  // The link format of the peer this link connected to (link::link_format_of). A link a
  // peer opened carries only answers to it (frames, closes, kNotHere), alike in every
  // format, so it keeps the current one.
  int peer_format_ = link::kLinkFormatNumber;
  std::string out_;
  std::atomic<bool> closed_{false};
  std::atomic<bool> was_open_{false};
};

}  // namespace parlor::server
