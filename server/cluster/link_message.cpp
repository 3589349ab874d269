#include "server/cluster/link_message.h"

#include <cstring>

namespace parlor::server::link {

namespace {

void put_u64(std::string& out, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}
void put_u16(std::string& out, std::uint16_t value) {
  out.push_back(static_cast<char>(value & 0xFF));
  out.push_back(static_cast<char>(value >> 8));
}
void put_string(std::string& out, std::string_view text) {
  put_u16(out, static_cast<std::uint16_t>(std::min<std::size_t>(text.size(), 0xFFFF)));
  out.append(text.substr(0, 0xFFFF));
}

// Reads fields off the front of a message; any read past its end marks it failed.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : rest_(bytes) {}
  bool failed() const { return failed_; }
  std::string_view rest() const { return rest_; }

  std::uint64_t u64() {
    if (!need(8)) return 0;
    std::uint64_t value = 0;
    for (int i = 0; i < 8; ++i) {
      value |= static_cast<std::uint64_t>(static_cast<unsigned char>(rest_[i])) << (8 * i);
    }
    rest_.remove_prefix(8);
    return value;
  }
  std::uint16_t u16() {
    if (!need(2)) return 0;
    const auto value = static_cast<std::uint16_t>(static_cast<unsigned char>(rest_[0]) |
                                                  (static_cast<unsigned char>(rest_[1]) << 8));
    rest_.remove_prefix(2);
    return value;
  }
  std::string string() {
    const std::size_t size = u16();
    if (!need(size)) return {};
    std::string value(rest_.substr(0, size));
    rest_.remove_prefix(size);
    return value;
  }
  void bytes(void* into, std::size_t size) {
    if (!need(size)) return;
    std::memcpy(into, rest_.data(), size);
    rest_.remove_prefix(size);
  }

 private:
  bool need(std::size_t size) {
    if (failed_ || rest_.size() < size) failed_ = true;
    return !failed_;
  }
  std::string_view rest_;
  bool failed_ = false;
};

void put_player(std::string& out, const PlayerRef& player) {
  put_string(out, player.id);
  put_string(out, player.name);
  out.append(reinterpret_cast<const char*>(player.token_hash.data()), player.token_hash.size());
}

PlayerRef read_player(Reader& in) {
  PlayerRef player;
  player.id = in.string();
  player.name = in.string();
  in.bytes(player.token_hash.data(), player.token_hash.size());
  return player;
}

}  // namespace

std::string encode_frame(std::uint64_t connection, std::string_view payload) {
  std::string out;
  out.reserve(1 + 8 + payload.size());
  out.push_back(static_cast<char>(Kind::kFrame));
  put_u64(out, connection);
  out.append(payload);
  return out;
}

std::string encode(const Message& message) {
  std::string out;
  out.reserve(64 + message.body.size());
  out.push_back(static_cast<char>(message.kind));
  switch (message.kind) {
    case Kind::kRequest:
    case Kind::kResume:
      out.back() = message.kind == Kind::kRequest ? kRequestOrdered : kResumeOrdered;
      put_u64(out, message.connection);
      put_u64(out, message.player.generation);
      put_player(out, message.player);
      break;
    case Kind::kGone:
    case Kind::kFrame:
      put_u64(out, message.connection);
      break;
    case Kind::kClose:
      put_u64(out, message.connection);
      put_u16(out, message.code);
      break;
    case Kind::kNotHere:
      break;
    case Kind::kInvite:
    case Kind::kRenamed:
      put_string(out, message.player.id);
      break;
    case Kind::kQuickPlay:
      put_string(out, message.player.id);
      put_u64(out, message.player.generation);
      put_u16(out, message.code);
      break;
  }
  out.append(message.body);
  return out;
}

std::optional<Message> decode(std::string_view bytes) {
  if (bytes.empty()) return std::nullopt;
  Message message;
  Reader in(bytes.substr(1));
  if (bytes[0] == kRequestOrdered || bytes[0] == kResumeOrdered) {
    message.kind = bytes[0] == kRequestOrdered ? Kind::kRequest : Kind::kResume;
    message.connection = in.u64();
    message.player.generation = in.u64();
    const std::uint64_t generation = message.player.generation;
    message.player = read_player(in);
    message.player.generation = generation;
    if (in.failed()) return std::nullopt;
    message.body = std::string(in.rest());
    return message;
  }
  message.kind = static_cast<Kind>(bytes[0]);
  switch (message.kind) {
    case Kind::kRequest:
    case Kind::kResume:
      message.connection = in.u64();
      message.player = read_player(in);
      break;
    case Kind::kGone:
    case Kind::kFrame:
      message.connection = in.u64();
      break;
    case Kind::kClose:
      message.connection = in.u64();
      message.code = in.u16();
      break;
    case Kind::kNotHere:
      break;
    case Kind::kInvite:
    case Kind::kRenamed:
      message.player.id = in.string();
      break;
    case Kind::kQuickPlay:
      message.player.id = in.string();
      message.player.generation = in.u64();
      message.code = in.u16();
      break;
    default:
      return std::nullopt;
  }
  if (in.failed()) return std::nullopt;
  message.body = std::string(in.rest());
  return message;
}

std::string for_older_peer(std::string encoded) {
  if (encoded.empty()) return encoded;
  if (encoded[0] == kRequestOrdered || encoded[0] == kResumeOrdered) {
    if (encoded.size() < 1 + 8 + 8) return {};
    encoded[0] = encoded[0] == kRequestOrdered ? static_cast<char>(Kind::kRequest)
                                               : static_cast<char>(Kind::kResume);
    encoded.erase(1 + 8, 8);  // the generation, after the connection id
  } else if (encoded[0] == static_cast<char>(Kind::kRenamed)) {
    encoded.clear();
  }
  return encoded;
}

int link_format_of(std::string_view announced) {
  int format = 0;
  for (const char digit : announced) {
    if (digit < '0' || digit > '9' || format > 1000) return 1;
    format = format * 10 + (digit - '0');
  }
  return format < 1 ? 1 : format;
}

std::string for_peer(std::string encoded, int format) {
  if (format >= kLinkFormatNumber) return encoded;
  if (!encoded.empty() && encoded[0] == static_cast<char>(Kind::kQuickPlay)) return {};
  return format < 2 ? for_older_peer(std::move(encoded)) : encoded;
}

}  // namespace parlor::server::link
