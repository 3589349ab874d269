// Short names for the Asio/Beast types the server layer uses.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

namespace parlor::server {

namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = boost::asio::ip::tcp;
using PlainStream = beast::tcp_stream;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

// Every connection runs on its own strand. After a plain WebSocket upgrade the session keeps
// only the socket, typed with that strand: the WebSocket stream has its own timeouts, so
// tcp_stream's per-operation timer bookkeeping and the type-erased executor it copies on
// every read and write are dropped from the per-frame path.
using ConnectionExecutor = net::strand<net::io_context::executor_type>;
using PlainWsSocket = net::basic_stream_socket<tcp, ConnectionExecutor>;

}  // namespace parlor::server
