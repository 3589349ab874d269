// Fuzz target: the bytes a client sends on a new HTTP connection, through what HttpSession
// does with them short of the socket: Beast's request parser with the server's header and
// body limits, then, for a complete request, the router (replay_request, replay_response and
// handle_http over a real ServerState with a static directory). The oracle: nothing crashes,
// every response serializes, HEAD answers carry no body, and no target reaches a file outside
// the static directory (a file beside it holds a marker no response may contain).
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "server/http_session.h"
#include "server/static_files.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

namespace fs = std::filesystem;
namespace http = boost::beast::http;
using parlor::fuzz::require;

constexpr std::string_view kSecret = "PARLOR-FUZZ-OUTSIDE-THE-STATIC-DIRECTORY";

// A static directory with two files, and beside it a file no request may reach. Removed at
// exit.
struct StaticTree {
  fs::path top = fs::temp_directory_path() / ("parlor-http-fuzz-" + std::to_string(::getpid()));
  fs::path root = top / "dist";
  StaticTree() {
    fs::create_directories(root / "assets");
    std::ofstream(root / "index.html") << "<!doctype html><title>Parlor</title>";
    std::ofstream(root / "assets" / "app.js") << "console.log('parlor');";
    std::ofstream(top / "secret.txt") << kSecret;
  }
  ~StaticTree() {
    std::error_code ignored;
    fs::remove_all(top, ignored);
  }
  StaticTree(const StaticTree&) = delete;
  StaticTree& operator=(const StaticTree&) = delete;
};

struct Server {
  StaticTree tree;
  boost::asio::io_context io;
  std::unique_ptr<parlor::server::ServerState> state;
  Server() {
    parlor::server::ServerConfig config;
    config.static_dir = tree.root.string();
    state = std::make_unique<parlor::server::ServerState>(io, config);
  }
};

Server& server() {
  static Server instance;
  return instance;
}

void check_response(const http::request<http::string_body>& request,
                    const http::response<http::string_body>& response) {
  require(response.body().find(kSecret) == std::string::npos,
          "a file outside the static directory was served for " + std::string(request.target()));
  if (request.method() == http::verb::head) {
    require(response.body().empty(), "a HEAD answer has a body");
  }
  std::ostringstream wire;
  wire << response;
  require(!wire.str().empty(), "a response serializes to nothing");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Server& s = server();
  const auto& config = s.state->config();

  // As HttpSession::do_read configures it.
  http::request_parser<http::string_body> parser;
  parser.header_limit(static_cast<std::uint32_t>(config.max_http_header_bytes));
  parser.body_limit(config.max_message_bytes);
  boost::beast::error_code ec;
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the fuzzer's bytes
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  while (!rest.empty() && !parser.is_done()) {
    const std::size_t used = parser.put(boost::asio::buffer(rest.data(), rest.size()), ec);
    if (ec == http::error::need_more) {
      if (used == 0) break;
      ec = {};
    }
    if (ec) return 0;  // refused: the session answers 431 or drops the connection
    rest.remove_prefix(used);
  }
  if (!parser.is_done()) {
    parser.put_eof(ec);
    if (ec || !parser.is_done()) return 0;
  }
  const http::request<http::string_body> request = parser.release();

  const std::string target(request.target());
  if (auto file = parlor::server::resolve_static_path(config.static_dir, target)) {
    require(file->starts_with(config.static_dir + "/"),
            "static path " + *file + " is outside " + config.static_dir);
  }
  if (boost::beast::websocket::is_upgrade(request)) return 0;  // WsSession's, over a socket
  if (auto replay = parlor::server::replay_request(request.target());
      replay && request.method() == http::verb::get) {
    check_response(request, parlor::server::replay_response(*s.state, request, *replay));
    return 0;
  }
  check_response(request, parlor::server::handle_http(*s.state, request));
  return 0;
}
