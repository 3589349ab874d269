#include "protocol/replay.h"

#include "protocol/encode.h"

namespace parlor::protocol {

std::string encode_replay(const Json& re, const Replay& replay) {
  Json steps = Json::array();
  for (const ReplayStep& step : replay.steps) {
    Json out = {{"seq", step.seq}, {"view", step.view}, {"to_act", step.to_act}};
    if (step.seat) {
      out["seat"] = *step.seat;
      out["events"] = step.events;
    }
    if (!step.move.is_null()) out["move"] = step.move;
    steps.push_back(std::move(out));
  }
  Json message = {{"type", "replay"},
                  {"room", replay.room},
                  {"kind", replay.kind},
                  {"game", replay.game},
                  {"as", replay.as ? Json(*replay.as) : Json(nullptr)},
                  {"finished", replay.finished},
                  {"options", replay.options},
                  {"steps", std::move(steps)},
                  {"result", replay.result},
                  {"reveal", replay.reveal}};
  attach_re(message, re);
  return to_wire(message);
}

}  // namespace parlor::protocol
