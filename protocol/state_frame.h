// A state push assembled around one viewer's view and prompt. A move's pushes differ only in
// those two, so everything else (StateFrameParts, encode.h) is serialized once per move and
// each viewer's frame is written as
//
//   head + VIEW + middle + PROMPT + tail
//
// where PROMPT is `null` for a spectator or a seat not to act. The view may be written by the
// caller between the two halves (Game::write_views writes several seats' views at once), or
// by write_state_frame in one go.
#pragma once

#include <string>

#include "games/core/game.h"
#include "protocol/encode.h"

namespace parlor::protocol {

// How many bytes a frame of these parts usually takes, views being about 2 KiB: a reserve hint.
inline std::size_t state_frame_size_hint(const StateFrameParts& parts) {
  return parts.head.size() + parts.middle.size() + parts.tail.size() + 2048;
}

// Appends the part before the view.
inline void begin_state_frame(const StateFrameParts& parts, std::string& out) { out += parts.head; }

// Appends the part after the view: middle, `viewer`'s prompt when it `acts` (else null), tail.
inline void finish_state_frame(const StateFrameParts& parts, const Game& game, Seat viewer,
                               bool acts, std::string& out) {
  out += parts.middle;
  if (acts) {
    game.write_prompt(viewer, out);
  } else {
    out += "null";
  }
  out += parts.tail;
}

// The whole frame for `viewer`, appended to `out`.
inline void write_state_frame(const StateFrameParts& parts, const Game& game, Seat viewer,
                              bool acts, std::string& out) {
  begin_state_frame(parts, out);
  game.write_view(viewer, out);
  finish_state_frame(parts, game, viewer, acts, out);
}

}  // namespace parlor::protocol
