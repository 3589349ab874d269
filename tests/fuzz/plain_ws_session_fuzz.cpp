// Fuzz target: the bytes a client sends after its WebSocket upgrade, through the session every
// plain (non-TLS) connection gets in production — WsSession over the server's own WebSocket
// stream (server/plain_ws_stream.h) on a real TCP socket on 127.0.0.1: waiting for
// readability, reading into the I/O thread's buffer, the frame reader (ws_frame_reader.h) with
// the server's limits, what a message leaves over kept between reads, pings answered and
// pongs noted, the close and the teardown with its linger, then the same rate limiter, request
// decoder, ServerState, outbound queue and close handshake as ws_session_fuzz (which drives
// the TLS path's stream, Beast's, over a test stream).
//
// Input: ws_session_fuzz's (its corpus is this one's): one byte of settings (session_settings
// in ws_server_bytes.h; here the piece size is how many bytes the client writes at a time, the
// server reading what has arrived between writes), then the client's bytes. After them the
// client shuts its side down (EOF); the server's bytes are then read.
//
// The oracle: no crash, leak or undefined behaviour (ASan and UBSan in the fuzz preset), and
// what the server wrote passes check_server_bytes (ws_server_bytes.h). Each input costs a
// connection to one listening socket that all inputs share: a listener per input would take a
// port each, and runs of many thousand inputs would run out of them while the connections'
// TIME_WAIT holds theirs (Linux reuses those for loopback connections, not for listeners).
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "server/log.h"
#include "server/net.h"
#include "server/server_state.h"
#include "server/ws_session.h"
#include "tests/fuzz/ws_server_bytes.h"

namespace {

namespace net = boost::asio;
using boost::asio::ip::tcp;
using parlor::fuzz::check_server_bytes;
using parlor::fuzz::run_ready;
using parlor::fuzz::upgrade_request;

// Everything the client's socket has received so far (it is non-blocking).
void read_available(tcp::socket& client, std::string& into) {
  char chunk[4096];
  for (;;) {
    boost::system::error_code ec;
    const std::size_t got = client.read_some(net::buffer(chunk), ec);
    if (ec || got == 0) return;
    into.append(chunk, got);
  }
}

// The listening socket every input connects to, on its own event loop (accept is blocking).
tcp::acceptor& shared_acceptor() {
  static net::io_context io;
  static tcp::acceptor acceptor(io, tcp::endpoint(net::ip::address_v4::loopback(), 0));
  return acceptor;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  parlor::server::set_log_quiet(true);  // players joining and protocol closes: not findings
  const std::uint8_t settings = data[0];
  const std::string_view client_bytes(reinterpret_cast<const char*>(data + 1), size - 1);

  const auto [config, write_size] = parlor::fuzz::session_settings(settings);

  std::string written;
  {
    net::io_context io;
    auto state = std::make_shared<parlor::server::ServerState>(io, config);
    tcp::acceptor& acceptor = shared_acceptor();
    tcp::socket client(io);
    client.connect(acceptor.local_endpoint());
    client.set_option(tcp::no_delay(true));
    parlor::server::PlainWsSocket server_end(net::make_strand(io));
    acceptor.accept(server_end);
    client.non_blocking(true);
    std::make_shared<parlor::server::WsSession<parlor::server::PlainWsSocket>>(
        std::move(server_end), state, "fuzz", nullptr)
        ->run(upgrade_request());
    run_ready(io);
    read_available(client, written);

    const std::size_t step = write_size == 0 ? client_bytes.size() : write_size;
    for (std::size_t at = 0; at < client_bytes.size(); at += step) {
      const std::string_view part = client_bytes.substr(at, step);
      boost::system::error_code ec;
      std::size_t sent = 0;
      // The server may have closed and reset the connection: the rest is not sent.
      while (sent < part.size() && !ec) {
        sent += client.write_some(net::buffer(part.data() + sent, part.size() - sent), ec);
        if (ec == net::error::would_block) {
          ec = {};
          run_ready(io);  // the server reads, and the client's buffer drains
          read_available(client, written);
        }
      }
      run_ready(io);
      read_available(client, written);
      if (ec) break;
    }
    boost::system::error_code ignored;
    client.shutdown(tcp::socket::shutdown_send, ignored);
    run_ready(io);
    read_available(client, written);
    client.close(ignored);
    run_ready(io);
    io.stop();
  }
  check_server_bytes(written);
  return 0;
}
