// What became of one call to a rules engine (server/engine/engine_client.h), as a value the
// room's table can take without knowing anything of HTTP.
#pragma once

#include <string>

#include "games/core/game.h"

namespace parlor::server {

struct EngineReply {  // NOLINT(bugprone-exception-escape): Json's move (games/core/game.h)
  enum class Outcome {
    kAnswered,  // 200 with a JSON body: `body`
    kRefused,   // 400: the engine refused the request; `code` and `message` are its words
    kFailed,    // anything else: `cause` says what (timeout, refused connection, 500, not JSON)
  };
  Outcome outcome = Outcome::kFailed;
  Json body;
  std::string code;
  std::string message;
  std::string cause;
};

}  // namespace parlor::server
