#include "server/store/redo_records.h"

#include <cstdint>
#include <type_traits>

namespace parlor::server {
namespace {

// The tag of each write: its index in StoredWrite. Never reorder StoredWrite's alternatives: a
// redo log written by one build is replayed by the next.
template <typename T, typename... Alternatives>
constexpr std::uint8_t index_in(const std::variant<Alternatives...>* /*type*/) {
  std::size_t index = 0;
  bool found = false;
  ((found = found || std::is_same_v<T, Alternatives>, index += found ? 0U : 1U), ...);
  return static_cast<std::uint8_t>(index);
}
template <typename T>
constexpr std::uint8_t tag_of() {
  return index_in<T>(static_cast<const StoredWrite*>(nullptr));
}
static_assert(std::variant_size_v<StoredWrite> == 6 && tag_of<PlayerRecord>() == 0 &&
              tag_of<MoveRecord>() == 2 && tag_of<PrunePlayersBefore>() == 5);

class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}

  void u8(std::uint8_t value) { out_.push_back(static_cast<char>(value)); }
  // Built on the stack and appended once: a byte at a time, each push_back checks the
  // string's capacity, and a move's record is mostly varints.
  void varint(std::uint64_t value) {
    char bytes[10];
    std::size_t n = 0;
    while (value >= 0x80) {
      bytes[n++] = static_cast<char>((value & 0x7F) | 0x80);
      value >>= 7;
    }
    bytes[n++] = static_cast<char>(value);
    out_.append(bytes, n);
  }
  void i64(std::int64_t value) {
    varint((static_cast<std::uint64_t>(value) << 1) ^ static_cast<std::uint64_t>(value >> 63));
  }
  void text(std::string_view value) {
    varint(value.size());
    out_.append(value);
  }
  void json(const nlohmann::json& value) { text(value.dump()); }
  void optional_text(const std::optional<std::string>& value) {
    u8(value ? 1 : 0);
    if (value) text(*value);
  }
  void optional_i64(const std::optional<std::int64_t>& value) {
    u8(value ? 1 : 0);
    if (value) i64(*value);
  }

 private:
  std::string& out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}

  bool done() const { return at_ == in_.size(); }
  std::uint8_t u8() {
    need(1);
    return static_cast<std::uint8_t>(in_[at_++]);
  }
  std::uint64_t varint() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const std::uint8_t byte = u8();
      value |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    throw bad("a varint longer than 64 bits");
  }
  std::int64_t i64() {
    const std::uint64_t bits = varint();
    return static_cast<std::int64_t>((bits >> 1) ^ (~(bits & 1) + 1));
  }
  int int32() {
    const std::int64_t value = i64();
    if (value < INT32_MIN || value > INT32_MAX) throw bad("an integer out of range");
    return static_cast<int>(value);
  }
  std::string text() {
    const std::uint64_t size = varint();
    need(size);
    std::string value(in_.substr(at_, size));
    at_ += size;
    return value;
  }
  nlohmann::json json() {
    auto value = nlohmann::json::parse(text(), nullptr, false);
    if (value.is_discarded()) throw bad("JSON that does not parse");
    return value;
  }
  std::optional<std::string> optional_text() {
    if (flag()) return text();
    return std::nullopt;
  }
  std::optional<std::int64_t> optional_i64() {
    if (flag()) return i64();
    return std::nullopt;
  }
  bool flag() {
    const std::uint8_t value = u8();
    if (value > 1) throw bad("a flag that is neither 0 nor 1");
    return value == 1;
  }

  static StoreError bad(const std::string& what) {
    return StoreError("a redo log record holds " + what);
  }

 private:
  void need(std::uint64_t bytes) const {
    if (bytes > in_.size() - at_) throw bad("a field cut short");
  }

  std::string_view in_;
  std::size_t at_ = 0;
};

void encode(Writer& out, const PlayerRecord& player) {
  out.text(player.id);
  out.text(player.name);
  out.text(std::string_view(reinterpret_cast<const char*>(player.token_hash.data()),
                            player.token_hash.size()));
  out.i64(player.created_ms);
  out.i64(player.last_seen_ms);
}

void encode(Writer& out, const std::vector<std::optional<SeatRecord>>& occupants) {
  out.varint(occupants.size());
  for (const auto& occupant : occupants) {
    out.u8(occupant ? 1 : 0);
    if (!occupant) continue;
    out.optional_text(occupant->player_id);
    out.text(occupant->name);
    out.optional_text(occupant->bot);
  }
}

void encode(Writer& out, const RoomRecord& room) {
  out.text(room.id);
  out.text(room.kind);
  out.i64(room.seats);
  out.json(room.game_options);
  out.json(room.room_options);
  out.optional_text(room.creator_id);
  encode(out, room.occupants);
  out.u8(static_cast<std::uint8_t>(room.status));
  out.i64(room.created_ms);
  out.optional_i64(room.finished_ms);
  out.i64(room.game_number);
  out.varint(room.seed);
  out.i64(room.start_seq);
  out.i64(room.game_started_ms);
  out.i64(room.epoch);
  out.text(room.owner);
}

// `move_text`: move.move as compact JSON text.
void encode_move_fields(Writer& out, const MoveRecord& move, std::string_view move_text) {
  out.text(move.room_id);
  out.i64(move.game_number);
  out.i64(move.seq);
  out.i64(move.seat);
  out.text(move_text);
  out.i64(move.at_ms);
  out.u8(move.state_hash ? 1 : 0);
  if (move.state_hash) out.varint(*move.state_hash);
  out.i64(move.epoch);
}

void encode(Writer& out, const MoveRecord& move) {
  encode_move_fields(out, move, move.move.dump());
}

void encode(Writer& out, const PruneRoomsBefore& prune) { out.i64(prune.before_ms); }
void encode(Writer& out, const PrunePlayersBefore& prune) { out.i64(prune.before_ms); }

void encode(Writer& out, const RatedGameRecord& game) {
  out.text(game.room_id);
  out.i64(game.game_number);
  out.text(game.kind);
  out.i64(game.finished_ms);
  out.varint(game.seats.size());
  for (const RatedSeat& seat : game.seats) {
    out.text(seat.player_id);
    out.text(seat.name);
    out.i64(seat.side);
    out.u8(seat.abandoned ? 1 : 0);
  }
  out.varint(game.side_ranks.size());
  for (const int rank : game.side_ranks) out.i64(rank);
  out.json(game.result);
  out.i64(game.epoch);
  out.text(game.owner);
}

PlayerRecord decode_player(Reader& in) {
  PlayerRecord player;
  player.id = in.text();
  player.name = in.text();
  const std::string hash = in.text();
  if (hash.size() != player.token_hash.size()) throw Reader::bad("a token hash of another size");
  std::copy(hash.begin(), hash.end(), player.token_hash.begin());
  player.created_ms = in.i64();
  player.last_seen_ms = in.i64();
  return player;
}

RoomRecord decode_room(Reader& in) {
  RoomRecord room;
  room.id = in.text();
  room.kind = in.text();
  room.seats = in.int32();
  room.game_options = in.json();
  room.room_options = in.json();
  room.creator_id = in.optional_text();
  const std::uint64_t occupants = in.varint();
  if (occupants > 1024) throw Reader::bad("more seats than a room has");
  for (std::uint64_t seat = 0; seat < occupants; ++seat) {
    if (!in.flag()) {
      room.occupants.emplace_back();
      continue;
    }
    SeatRecord occupant;
    occupant.player_id = in.optional_text();
    occupant.name = in.text();
    occupant.bot = in.optional_text();
    room.occupants.emplace_back(std::move(occupant));
  }
  const std::uint8_t status = in.u8();
  if (status > static_cast<std::uint8_t>(StoredRoomStatus::kAbandoned)) {
    throw Reader::bad("an unknown room status");
  }
  room.status = static_cast<StoredRoomStatus>(status);
  room.created_ms = in.i64();
  room.finished_ms = in.optional_i64();
  room.game_number = in.int32();
  room.seed = in.varint();
  room.start_seq = in.i64();
  room.game_started_ms = in.i64();
  room.epoch = in.i64();
  room.owner = in.text();
  return room;
}

MoveRecord decode_move(Reader& in) {
  MoveRecord move;
  move.room_id = in.text();
  move.game_number = in.int32();
  move.seq = in.i64();
  move.seat = in.int32();
  move.move = in.json();
  move.at_ms = in.i64();
  if (in.flag()) move.state_hash = in.varint();
  move.epoch = in.i64();
  return move;
}

RatedGameRecord decode_rated_game(Reader& in) {
  RatedGameRecord game;
  game.room_id = in.text();
  game.game_number = in.int32();
  game.kind = in.text();
  game.finished_ms = in.i64();
  const std::uint64_t seats = in.varint();
  if (seats > 1024) throw Reader::bad("more seats than a game has");
  for (std::uint64_t i = 0; i < seats; ++i) {
    RatedSeat seat;
    seat.player_id = in.text();
    seat.name = in.text();
    seat.side = in.int32();
    seat.abandoned = in.flag();
    game.seats.push_back(std::move(seat));
  }
  const std::uint64_t sides = in.varint();
  if (sides > 1024) throw Reader::bad("more sides than a game has");
  for (std::uint64_t i = 0; i < sides; ++i) game.side_ranks.push_back(in.int32());
  game.result = in.json();
  game.epoch = in.i64();
  game.owner = in.text();
  return game;
}

}  // namespace

namespace {
template <typename Record>
void encode_tagged(const Record& record, std::string& out) {
  Writer writer(out);
  writer.u8(tag_of<Record>());
  encode(writer, record);
}
}  // namespace

std::string encode_occupants(const std::vector<std::optional<SeatRecord>>& occupants) {
  std::string out;
  Writer writer(out);
  encode(writer, occupants);
  return out;
}

void encode_write(const StoredWrite& write, std::string& out) {
  std::visit([&out](const auto& record) { encode_tagged(record, out); }, write);
}
void encode_write(const PlayerRecord& player, std::string& out) { encode_tagged(player, out); }
void encode_write(const RoomRecord& room, std::string& out) { encode_tagged(room, out); }
void encode_write(const MoveRecord& move, std::string& out) { encode_tagged(move, out); }
void encode_write(const MoveRecord& move, std::string_view move_text, std::string& out) {
  Writer writer(out);
  writer.u8(tag_of<MoveRecord>());
  encode_move_fields(writer, move, move_text);
}
void encode_write(const PruneRoomsBefore& prune, std::string& out) { encode_tagged(prune, out); }
void encode_write(const RatedGameRecord& game, std::string& out) { encode_tagged(game, out); }
void encode_write(const PrunePlayersBefore& prune, std::string& out) { encode_tagged(prune, out); }

std::vector<StoredWrite> decode_writes(std::string_view payload) {
  std::vector<StoredWrite> writes;
  Reader in(payload);
  while (!in.done()) {
    const std::uint8_t tag = in.u8();
    if (tag == tag_of<PlayerRecord>()) {
      writes.emplace_back(decode_player(in));
    } else if (tag == tag_of<RoomRecord>()) {
      writes.emplace_back(decode_room(in));
    } else if (tag == tag_of<MoveRecord>()) {
      writes.emplace_back(decode_move(in));
    } else if (tag == tag_of<PruneRoomsBefore>()) {
      writes.emplace_back(PruneRoomsBefore{in.i64()});
    } else if (tag == tag_of<RatedGameRecord>()) {
      writes.emplace_back(decode_rated_game(in));
    } else if (tag == tag_of<PrunePlayersBefore>()) {
      writes.emplace_back(PrunePlayersBefore{in.i64()});
    } else {
      throw Reader::bad("an unknown tag " + std::to_string(tag));
    }
  }
  return writes;
}

}  // namespace parlor::server
