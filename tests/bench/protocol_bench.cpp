// The protocol work of every move: decoding the mover's frame, and the parts of the state
// push every player shares.
#include <benchmark/benchmark.h>

#include "protocol/decode.h"
#include "protocol/encode.h"

#include <string>
#include <vector>

namespace parlor::protocol {
namespace {

// A Big Two move as parlor-load and the web client send it.
constexpr std::string_view kMoveFrame =
    R"({"type":"move","id":4711,"room":"4f2a9c1b7e","seq":37,"move":{"action":"play","cards":["7D","7H","7S"]}})";

void BM_DecodeMove(benchmark::State& state) {
  const Limits limits;
  for (auto _ : state) {
    DecodeResult result = decode_request(kMoveFrame, limits);
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK(BM_DecodeMove);

// The same frame the general way (a bounded JSON tree, then the fields): what any other
// message, and a move written with escapes or unusual fields, costs.
void BM_DecodeMoveGeneral(benchmark::State& state) {
  const Limits limits;
  for (auto _ : state) {
    DecodeResult result = decode_request_general(kMoveFrame, limits);
    benchmark::DoNotOptimize(result);
  }
}
BENCHMARK(BM_DecodeMoveGeneral);

void BM_StateFrameParts(benchmark::State& state) {
  const std::vector<Seat> to_act = {2};
  // The events arrive as text from the engine (Big Two) and are copied in.
  const std::string events =
      R"([{"cards":["7D","7H","7S"],"combination":"triple","seat":1,"type":"play"}])";
  for (auto _ : state) {
    StateFrameParts parts = state_frame_parts("4f2a9c1b7e", 38, to_act, events, std::nullopt);
    benchmark::DoNotOptimize(parts);
  }
}
BENCHMARK(BM_StateFrameParts);

}  // namespace
}  // namespace parlor::protocol
