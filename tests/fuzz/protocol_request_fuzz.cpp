// Fuzz target: a client's WebSocket text frame through the request decoder (how targets are
// built and run: docs/ARCHITECTURE.md, "Fuzzing"). Whatever the bytes, decoding must return a
// value, and what it returns must serialize: the reply to a refusal, and the
// parsed tree itself (dump() is where deep or invalid input used to crash). A frame the
// plain-move path accepts must decode the same the general way.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <variant>

#include "protocol/bounded_json.h"
#include "protocol/decode.h"
#include "protocol/encode.h"
#include "protocol/plain_move.h"
#include "protocol/text.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace parlor::protocol;
  const std::string_view frame(reinterpret_cast<const char*>(data), size);
  Limits limits;
  limits.max_frame_bytes = 64 * 1024;  // let the fuzzer reach the depth and key limits

  auto parsed = parse_bounded_json(frame, limits);
  if (const auto* value = std::get_if<parlor::Json>(&parsed)) {
    (void)to_wire(*value);
  } else {
    (void)to_wire(std::get<JsonParseFailure>(parsed).partial);
  }

  if (const auto plain = decode_plain_move(frame, limits)) {
    const DecodeResult general = decode_request_general(frame, limits);
    const auto* request = std::get_if<Request>(&general);
    if (request == nullptr || request->id.dump() != plain->id.dump()) std::abort();
    const auto& a = std::get<Move>(plain->command);
    const auto* b = std::get_if<Move>(&request->command);
    if (b == nullptr || a.room != b->room || a.seq != b->seq || a.move.dump() != b->move.dump())
      std::abort();
  }

  const DecodeResult result = decode_request(frame, limits);
  if (const auto* error = std::get_if<DecodeError>(&result)) {
    if (!is_valid_utf8(error->message)) std::abort();
    const parlor::Json reply = parlor::Json::parse(encode_error(*error), nullptr, false);
    if (!reply.is_object() || reply["type"] != "error") std::abort();
  }
  return 0;
}
