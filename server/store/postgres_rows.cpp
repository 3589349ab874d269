#include "server/store/postgres_rows.h"

#include <algorithm>

namespace parlor::server::pg {
namespace {

nlohmann::json parse_json(const std::string& value, const std::string& what) {
  auto parsed = nlohmann::json::parse(value, nullptr, false);
  if (parsed.is_discarded()) throw StoreError(what + " is not valid JSON");
  return parsed;
}

}  // namespace

std::string_view status_name(StoredRoomStatus status) {
  switch (status) {
    case StoredRoomStatus::kWaiting:
      return "waiting";
    case StoredRoomStatus::kPlaying:
      return "playing";
    case StoredRoomStatus::kFinished:
      return "finished";
    case StoredRoomStatus::kAbandoned:
      return "abandoned";
  }
  return "waiting";
}

std::optional<StoredRoomStatus> parse_status(std::string_view name) {
  for (auto status : {StoredRoomStatus::kWaiting, StoredRoomStatus::kPlaying,
                      StoredRoomStatus::kFinished, StoredRoomStatus::kAbandoned}) {
    if (status_name(status) == name) return status;
  }
  return std::nullopt;
}

RoomRecord read_room(const Result& rows, int row) {
  RoomRecord room;
  room.id = rows.text(row, 0);
  room.kind = rows.text(row, 1);
  room.seats = static_cast<int>(rows.integer(row, 2));
  room.game_options = parse_json(rows.text(row, 3), "room " + room.id + "'s game options");
  room.room_options = parse_json(rows.text(row, 4), "room " + room.id + "'s room options");
  room.creator_id = rows.optional_text(row, 5);
  const auto status = parse_status(rows.text(row, 6));
  if (!status) throw StoreError("room " + room.id + " has an unknown status");
  room.status = *status;
  room.game_number = static_cast<int>(rows.integer(row, 7));
  room.created_ms = rows.integer(row, 8);
  room.finished_ms = rows.optional_integer(row, 9);
  room.seed = static_cast<std::uint64_t>(rows.optional_integer(row, 10).value_or(0));
  room.start_seq = rows.optional_integer(row, 11).value_or(0);
  room.game_started_ms = rows.optional_integer(row, 12).value_or(0);
  room.epoch = rows.integer(row, 13);
  room.owner = rows.text(row, 14);
  room.occupants.resize(static_cast<std::size_t>(std::max(room.seats, 0)));
  return room;
}

void read_seat(const Result& rows, int row, RoomRecord& room) {
  const auto seat = rows.integer(row, 1);
  if (seat < 0 || seat >= room.seats) throw StoreError("room " + room.id + " has a bad seat");
  room.occupants[static_cast<std::size_t>(seat)] =
      SeatRecord{rows.optional_text(row, 2), rows.text(row, 3), rows.optional_text(row, 4)};
}

MoveRecord read_move(const Result& rows, int row) {
  MoveRecord move{rows.text(row, 0),
                  static_cast<int>(rows.integer(row, 1)),
                  rows.integer(row, 2),
                  static_cast<int>(rows.integer(row, 3)),
                  nullptr,
                  rows.integer(row, 5),
                  std::nullopt,
                  rows.integer(row, 7)};
  move.move = parse_json(rows.text(row, 4),
                         "room " + move.room_id + " move seq " + std::to_string(move.seq));
  if (auto hash = rows.optional_integer(row, 6))
    move.state_hash = static_cast<std::uint64_t>(*hash);
  return move;
}

PlayerRecord read_player(const Result& rows, int row) {
  PlayerRecord player{
      rows.text(row, 0), rows.text(row, 1), {}, rows.integer(row, 3), rows.integer(row, 4)};
  const std::string hash = rows.text(row, 2);
  if (hash.size() != 2 * player.token_hash.size()) {
    throw StoreError("player " + player.id + " has a token hash of " +
                     std::to_string(hash.size() / 2) + " bytes");
  }
  for (std::size_t i = 0; i < player.token_hash.size(); ++i) {
    player.token_hash[i] =
        static_cast<unsigned char>(std::stoi(hash.substr(2 * i, 2), nullptr, 16));
  }
  return player;
}

std::string hex(const TokenHash& hash) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const unsigned char byte : hash) {
    out += kDigits[byte >> 4];
    out += kDigits[byte & 0xf];
  }
  return out;
}

}  // namespace parlor::server::pg
