// Random byte edits of a frame for the decoders' robustness tests: each edit replaces,
// inserts or deletes one byte at a random place, the new bytes drawn from `alphabet`.
#pragma once

#include <cstddef>
#include <random>
#include <string>
#include <string_view>

namespace parlor::protocol {

inline void mutate_bytes(std::string& frame, std::mt19937_64& rng, std::string_view alphabet,
                         int edits) {
  for (int e = 0; e < edits && !frame.empty(); ++e) {
    const std::size_t at = rng() % frame.size();
    const char c = alphabet[rng() % alphabet.size()];
    switch (rng() % 3) {
      case 0:
        frame[at] = c;
        break;
      case 1:
        frame.insert(frame.begin() + static_cast<std::ptrdiff_t>(at), c);
        break;
      default:
        frame.erase(at, 1);
        break;
    }
  }
}

}  // namespace parlor::protocol
