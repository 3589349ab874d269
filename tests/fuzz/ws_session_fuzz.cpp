// Fuzz target: the bytes a client sends after its WebSocket upgrade, through the server's own
// session — WsSession over Beast's test stream in place of a socket (server/ws_session_impl.h):
// Beast's frame parser with the server's limits, the close rewriting of FrameWriterStream, the
// rate limiter, the request decoder and a real ServerState handling what decodes (hello,
// rooms, games), the outbound queue and the close handshake.
//
// Input: one byte of settings (session_settings in ws_server_bytes.h: rate limit, message
// limit, and how many bytes the stream hands over per read), then the client's bytes (frames
// must be masked; a zero masking key leaves the payload readable, which is how the seed corpus
// writes them). After the bytes the client's side ends (EOF), and the session must wind down.
//
// The oracle: no crash, leak or undefined behaviour (ASan and UBSan in the fuzz preset), and
// what the server wrote passes check_server_bytes (ws_server_bytes.h). plain_ws_session_fuzz
// is the same over a real socket and the server's own WebSocket stream (PlainWsStream).
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/_experimental/test/stream.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "server/log.h"
#include "server/ws_session_impl.h"
#include "tests/fuzz/ws_server_bytes.h"

namespace parlor::server {
// Beast's test stream works with the type-erased executor only; it is given a strand, as the
// server gives every connection.
using TestStream = beast::test::stream;
template class WsSession<TestStream>;
}  // namespace parlor::server

namespace {
namespace net = boost::asio;
using parlor::fuzz::check_server_bytes;
using parlor::fuzz::run_ready;
using parlor::fuzz::upgrade_request;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  parlor::server::set_log_quiet(true);  // players joining and protocol closes: not findings
  const std::uint8_t settings = data[0];
  const std::string_view client(reinterpret_cast<const char*>(data + 1), size - 1);

  const auto [config, read_size] = parlor::fuzz::session_settings(settings);

  std::string written;
  {
    net::io_context io;
    auto state = std::make_shared<parlor::server::ServerState>(io, config);
    parlor::server::TestStream server_end(net::make_strand(io));
    parlor::server::TestStream client_end(net::make_strand(io));
    server_end.connect(client_end);
    if (read_size != 0) server_end.read_size(read_size);
    {
      auto session = std::make_shared<parlor::server::WsSession<parlor::server::TestStream>>(
          std::move(server_end), state, "fuzz", nullptr);
      session->run(upgrade_request());
    }
    run_ready(io);
    boost::beast::error_code ignored;
    if (!client.empty()) net::write(client_end, net::buffer(client.data(), client.size()), ignored);
    run_ready(io);
    client_end.close();
    run_ready(io);
    written = std::string(client_end.str());
    io.stop();
  }
  check_server_bytes(written);
  return 0;
}
