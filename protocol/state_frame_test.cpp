// The state frame assembled around a viewer's view and prompt is byte for byte the message
// encode_state builds from the JSON values, for every seat, the spectator, and the seats not
// to act (whose prompt is null).
#include "protocol/state_frame.h"

#include <gtest/gtest.h>

#include "games/registry.h"

namespace parlor::protocol {
namespace {

TEST(StateFrame, WrittenAroundTheViewIsTheEncodedMessage) {
  for (const GameInfo& info : game_registry()) {
    std::string error;
    const Json options = *normalize_options(info.options, Json::object(), error);
    auto game = info.create(options, info.default_seats, 11);
    const auto to_act = game->to_act();
    const std::string events = R"([{"type":"start"}])";
    const TurnDeadline deadline{1'700'000'000'000, 1234};
    const StateFrameParts parts = state_frame_parts("r9", 5, to_act, events, deadline);
    for (Seat viewer = kSpectator; viewer < info.default_seats; ++viewer) {
      const bool acts = std::find(to_act.begin(), to_act.end(), viewer) != to_act.end();
      std::string written = "prefix";
      write_state_frame(parts, *game, viewer, acts, written);
      const std::string expected =
          encode_state("r9", 5, game->view(viewer), to_act,
                       acts ? game->prompt(viewer) : Json(nullptr), Json::parse(events), deadline);
      EXPECT_EQ(written, "prefix" + expected) << info.kind << " seat " << viewer;
    }
  }
}

}  // namespace
}  // namespace parlor::protocol
