// libFuzzer target for the frame decoder (clang only: configure with
// -DCMAKE_CXX_COMPILER=clang++ -DPARLOR_BUILD_FUZZERS=ON, then run
// `protocol/protocol_decode_fuzz -max_len=20000`). Whatever the bytes, decoding must
// return a value, and what it returns must serialize: the reply to a refusal, and the
// parsed tree itself (dump() is where deep or invalid input used to crash).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <variant>

#include "protocol/bounded_json.h"
#include "protocol/decode.h"
#include "protocol/encode.h"
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

  const DecodeResult result = decode_request(frame, limits);
  if (const auto* error = std::get_if<DecodeError>(&result)) {
    if (!is_valid_utf8(error->message)) std::abort();
    (void)parlor::Json::parse(encode_error(*error));
  }
  return 0;
}
