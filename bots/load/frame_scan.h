// The few top-level fields of a server frame that parlor-load acts on, found by one pass that
// steps over every other value without building a document. Every move brings a state frame
// to each seat and only the seat to act needs more than its seq; parsing whole frames made
// parlor-load spend more CPU per move than the server it measures.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace parlor::load {

// Views into the scanned text: valid while it is.
struct FrameFields {
  std::string_view type;                 // empty when absent
  std::optional<std::int64_t> seq;       // absent when the frame has none
  std::optional<std::string_view> code;  // an error's code
  std::string_view prompt;               // the prompt value's JSON text; empty when absent or null
};

// The fields of `text`, or nullopt when the scan does not understand it; the caller then
// parses the frame in full, so "not understood" only has to be safe, never complete. Not
// understood: anything but one JSON object, a key written with an escape (it could spell one
// of the fields), one of the fields given twice or with another kind of value (`type` and
// `code` strings without escapes, `seq` an integer that fits). The values stepped over are
// checked only for closed strings (known escapes, no raw control characters) and matching
// brackets, not for the whole grammar: the server wrote them, and the prompt's text is parsed
// by whoever uses it.
std::optional<FrameFields> scan_frame(std::string_view text);

}  // namespace parlor::load
