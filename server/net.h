// Short names for the Asio/Beast types the server layer uses.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

namespace parlor::server {

namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = boost::asio::ip::tcp;
using PlainStream = beast::tcp_stream;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

}  // namespace parlor::server
