#include "games/core/json_text.h"

namespace parlor::json_text {

void string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (byte < 0x20) {
          out += "\\u00";
          out += kHex[byte >> 4];
          out += kHex[byte & 0xF];
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

void card(std::string& out, Card card) {
  const char text[4] = {'"', card.is_joker() ? (card == Card::little_joker() ? 'L' : 'B')
                                             : rank_char(card.rank()),
                        card.is_joker() ? 'J' : suit_char(card.suit()), '"'};
  out.append(text, sizeof text);
}

}  // namespace parlor::json_text
