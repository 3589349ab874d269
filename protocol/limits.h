// Every bound the protocol layer enforces on untrusted input, in one struct so
// the server can expose each as a flag (defaults per docs/SECURITY.md).
//
// The JSON bounds are checked while the frame is being parsed, before any value
// is copied or dumped: nlohmann/json 3.11.2 recurses when copying or dumping,
// and a 200 KB frame of "[[[[..." is enough to overflow the stack.
#pragma once

#include <cstddef>

namespace parlor::protocol {

struct Limits {
  // A frame larger than this is refused before parsing. Commands are well under 1 KiB;
  // the WebSocket layer should close above its own (equal) limit before we ever see it.
  std::size_t max_frame_bytes = std::size_t{16} * 1024;
  // Open objects and arrays at once; the top-level object counts as 1.
  int max_depth = 32;
  // Keys in one object, duplicates counted, so a single object cannot grow without bound.
  std::size_t max_keys_per_object = 256;
  // Any string value or key, in bytes after unescaping.
  std::size_t max_string_bytes = 1024;

  // Field-level limits, checked after parsing.
  std::size_t max_name_bytes = 32;        // player names, after trimming
  std::size_t max_chat_bytes = 500;       // chat text, after trimming
  std::size_t max_identifier_bytes = 64;  // string ids, room ids, game kinds, bot strategies
  std::size_t max_token_bytes = 128;      // reconnect tokens (ours are far shorter)
  int max_seats = 16;                     // seat numbers are 0 .. max_seats - 1
};

}  // namespace parlor::protocol
