// The WebSocket session of plain connections (the definitions are in ws_session_impl.h, shared
// with TLS, ws_session_tls.cpp, and with the session fuzz targets).
#include "server/ws_session_impl.h"

namespace parlor::server {

template class WsSession<PlainWsSocket>;

}  // namespace parlor::server
