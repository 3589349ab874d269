// The WebSocket session of TLS connections: Beast's WebSocket stream over a TLS stream. The
// server's heaviest translation unit by far (its instantiations of Beast's and Asio's
// operations over TLS take about ten times the plain session's compile time and memory), so it
// is a file of its own: it compiles beside the rest, is never put in a unity batch, and
// clang-tidy's first pass reads the session's code through ws_session_plain.cpp
// (tools/run_clang_tidy.sh).
#include "server/ws_session_impl.h"

namespace parlor::server {

template class WsSession<TlsStream>;

}  // namespace parlor::server
