// The session's own data-frame writes, checked by Beast's client as an independent reader:
// every length form of the header, batches of frames in one write, Beast's control frames
// queued between them in the order asked, and nothing after a close.
#include "server/frame_writer_stream.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket/stream.hpp>

#include <array>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace parlor::server {
namespace {

namespace net = boost::asio;
namespace websocket = boost::beast::websocket;
using tcp = net::ip::tcp;

// A batch of text frames as the session writes them: headers and payloads in one sequence.
struct Batch {
  explicit Batch(const std::vector<std::string>& texts) : payloads(texts) {
    headers.resize(payloads.size());
    for (std::size_t i = 0; i < payloads.size(); ++i) {
      const std::size_t used = text_frame_header(payloads[i].size(), headers[i]);
      buffers.emplace_back(headers[i].data(), used);
      buffers.emplace_back(payloads[i].data(), payloads[i].size());
    }
  }
  std::vector<std::string> payloads;
  std::vector<std::array<unsigned char, 10>> headers;
  std::vector<net::const_buffer> buffers;
};

// A server stream over FrameWriterStream and Beast's own client, connected on loopback and
// past the WebSocket handshake.
struct Pair {
  explicit Pair(int send_buffer_bytes = 0) {
    tcp::acceptor acceptor(io, {net::ip::make_address("127.0.0.1"), 0});
    tcp::socket client_socket(io);
    if (send_buffer_bytes > 0) {
      client_socket.open(tcp::v4());
      client_socket.set_option(net::socket_base::receive_buffer_size(send_buffer_bytes));
    }
    client_socket.connect(acceptor.local_endpoint());
    tcp::socket accepted_socket = acceptor.accept();
    if (send_buffer_bytes > 0) {
      accepted_socket.set_option(net::socket_base::send_buffer_size(send_buffer_bytes));
    }
    server.emplace(std::move(accepted_socket));
    client.emplace(std::move(client_socket));
    bool accepted = false;
    bool shaken = false;
    server->async_accept([&](boost::beast::error_code ec) { accepted = !ec; });
    client->async_handshake("127.0.0.1", "/", [&](boost::beast::error_code ec) { shaken = !ec; });
    io.run_for(std::chrono::seconds(5));
    EXPECT_TRUE(accepted && shaken);
    io.restart();
  }

  // Reads text messages on the client until the connection ends.
  void read_all() {
    client->async_read(buffer, [this](boost::beast::error_code ec, std::size_t) {
      if (ec) {
        read_error = ec;
        return;
      }
      EXPECT_TRUE(client->got_text());
      messages.push_back(boost::beast::buffers_to_string(buffer.data()));
      buffer.consume(buffer.size());
      if (messages.size() == stop_after) return io.stop();
      read_all();
    });
  }

  net::io_context io;
  std::optional<websocket::stream<FrameWriterStream<tcp::socket>, false>> server;
  std::optional<websocket::stream<tcp::socket, false>> client;
  boost::beast::flat_buffer buffer;
  std::vector<std::string> messages;
  boost::beast::error_code read_error;
  std::size_t stop_after = 0;  // messages; 0 = read until the connection ends
};

TEST(FrameWriterStream, BatchesAndControlFramesArriveWholeInTheOrderAsked) {
  Pair pair;
  auto& server = *pair.server;
  auto& client = *pair.client;
  auto& io = pair.io;

  // Every header form, twice over: 0 .. 125 one byte, 126 .. 65535 two, above eight.
  const Batch first({"", "a", std::string(125, 'b')});
  const Batch second({std::string(126, 'c'), std::string(65535, 'd'), std::string(65536, 'e'),
                      std::string(300000, 'f')});
  const Batch after_close({"too late"});
  std::vector<std::string> written_errors;
  auto record = [&](boost::beast::error_code ec, std::size_t) {
    written_errors.push_back(ec ? ec.message() : "");
  };
  std::optional<boost::beast::error_code> aborted;

  // Asked for all at once: the ping and the second batch wait for the first batch, the close
  // (held by Beast until its ping is out) for the second. A frame asked for once the close
  // is on its way is refused.
  // The first batch goes straight into the idle socket; the second waits for the ping.
  EXPECT_TRUE(server.next_layer().write_frames(first.buffers, record));
  server.async_ping("between", [](boost::beast::error_code) {});
  EXPECT_FALSE(server.next_layer().write_frames(second.buffers, [&](boost::beast::error_code ec,
                                                                    std::size_t bytes) {
    record(ec, bytes);
    EXPECT_FALSE(server.next_layer().write_frames(
        after_close.buffers, [&](boost::beast::error_code late, std::size_t) { aborted = late; }));
  }));
  server.async_close(websocket::close_code::normal, [](boost::beast::error_code) {});

  auto& messages = pair.messages;
  std::optional<std::size_t> ping_after;
  client.control_callback([&](websocket::frame_type kind, boost::beast::string_view payload) {
    if (kind == websocket::frame_type::ping && payload == "between") ping_after = messages.size();
  });
  pair.read_all();
  io.run_for(std::chrono::seconds(10));

  std::vector<std::string> expected = first.payloads;
  expected.insert(expected.end(), second.payloads.begin(), second.payloads.end());
  ASSERT_EQ(messages.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(messages[i], expected[i]) << i;
  EXPECT_EQ(ping_after, first.payloads.size());
  EXPECT_EQ(pair.read_error, websocket::error::closed);
  EXPECT_EQ(client.reason().code, websocket::close_code::normal);
  EXPECT_EQ(written_errors, (std::vector<std::string>{""}));
  ASSERT_TRUE(aborted.has_value());
  EXPECT_EQ(*aborted, net::error::operation_aborted);
}

// A client that does not read fills the socket: the batch that does not fit goes out later,
// whole, and the batches after it queue behind it.
TEST(FrameWriterStream, AFullSocketFinishesTheBatchLaterInOrder) {
  Pair pair(/*send_buffer_bytes=*/4096);
  std::vector<Batch> batches;
  for (char c = 'a'; c <= 'h'; ++c) {
    batches.push_back(Batch({std::string(100000, c), std::string(3, c)}));
  }
  int later = 0;
  int completed = 0;
  for (const Batch& batch : batches) {
    const bool now = pair.server->next_layer().write_frames(
        batch.buffers, [&](boost::beast::error_code ec, std::size_t) {
          EXPECT_FALSE(ec) << ec.message();
          ++completed;
        });
    if (!now) ++later;
  }
  EXPECT_GE(later, 1) << "the socket never filled: this test checks nothing";
  std::vector<std::string> expected;
  for (const Batch& batch : batches) {
    expected.insert(expected.end(), batch.payloads.begin(), batch.payloads.end());
  }
  pair.stop_after = expected.size();
  pair.read_all();
  pair.io.run_for(std::chrono::seconds(5));
  EXPECT_EQ(completed, later);
  ASSERT_EQ(pair.messages.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(pair.messages[i], expected[i]) << i;
  }
}

}  // namespace
}  // namespace parlor::server
