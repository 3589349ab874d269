// What an engine's HTTP answer says (docs/ENGINES.md, "Errors"), from its status and body
// alone: the untrusted half of an engine call, kept apart from the connection handling of
// engine_client.cpp so that it can be tested and fuzzed without a socket.
#pragma once

#include <string_view>

#include "server/engine/engine_reply.h"

namespace parlor::server {

EngineReply read_engine_answer(unsigned status, std::string_view body);

}  // namespace parlor::server
