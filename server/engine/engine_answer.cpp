#include "server/engine/engine_answer.h"

#include <limits>
#include <string>
#include <variant>

#include "protocol/bounded_json.h"

namespace parlor::server {
namespace {

// An answer is parsed within limits, as a client's frame is: nlohmann's tree is copied and
// dumped recursively (into the logged move, the engine's state in the next request), so an
// answer nested thousands deep, which fits in the megabyte an answer may have, would exhaust
// the stack. No game's state or events come near this depth; strings and objects are left
// as large as the answer itself (the HTTP reader bounds its size).
protocol::Limits answer_limits() {
  protocol::Limits limits;
  limits.max_frame_bytes = std::numeric_limits<std::size_t>::max();
  limits.max_depth = 64;
  limits.max_keys_per_object = std::numeric_limits<std::size_t>::max();
  limits.max_string_bytes = std::numeric_limits<std::size_t>::max();
  return limits;
}

}  // namespace

EngineReply read_engine_answer(unsigned status, std::string_view body_text) {
  auto parsed = protocol::parse_bounded_json(body_text, answer_limits());
  Json* body = std::get_if<Json>(&parsed);
  if (status == 200) {
    EngineReply reply;
    if (body == nullptr) {
      const auto& failure = std::get<protocol::JsonParseFailure>(parsed);
      reply.cause = failure.kind == protocol::JsonParseFailure::Kind::kTooDeep
                        ? "the answer is nested deeper than " +
                              std::to_string(answer_limits().max_depth) + " levels"
                        : "the answer is not JSON";
      return reply;
    }
    reply.outcome = EngineReply::Outcome::kAnswered;
    reply.body = std::move(*body);
    return reply;
  }
  if (status == 400 && body != nullptr && body->is_object() && body->contains("error") &&
      (*body)["error"].is_string()) {
    EngineReply reply;
    reply.outcome = EngineReply::Outcome::kRefused;
    reply.code = (*body)["error"].get<std::string>();
    reply.message = body->value("message", Json("")).is_string()
                        ? body->value("message", std::string())
                        : std::string();
    if (reply.message.empty())
      reply.message = "the game's engine refused this (" + reply.code + ")";
    return reply;
  }
  EngineReply reply;
  reply.cause = "HTTP status " + std::to_string(status);
  return reply;
}

}  // namespace parlor::server
