#include "protocol/state_frame.h"

namespace parlor::protocol {

std::size_t state_frame_size_hint(const StateFrameParts& parts) {
  return parts.head.size() + parts.middle.size() + parts.tail.size() + 2048;
}

void begin_state_frame(const StateFrameParts& parts, std::string& out) { out += parts.head; }

void finish_state_frame(const StateFrameParts& parts, const Game& game, Seat viewer, bool acts,
                        std::string& out) {
  out += parts.middle;
  if (acts) {
    game.write_prompt(viewer, out);
  } else {
    out += "null";
  }
  out += parts.tail;
}

void write_state_frame(const StateFrameParts& parts, const Game& game, Seat viewer, bool acts,
                       std::string& out) {
  begin_state_frame(parts, out);
  game.write_view(viewer, out);
  finish_state_frame(parts, game, viewer, acts, out);
}

}  // namespace parlor::protocol
