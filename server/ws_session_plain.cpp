// The server's two kinds of WebSocket session: plain sockets and TLS (the definitions are in
// ws_session_impl.h, shared with the session fuzz target).
#include "server/ws_session_impl.h"

namespace parlor::server {

template class WsSession<PlainWsSocket>;
template class WsSession<TlsStream>;

}  // namespace parlor::server
