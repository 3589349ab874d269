// Fuzz target: recovery from the store. The input is a stored room as JSON (the columns of
// the store's rooms, seats and moves tables: kind, seats, game and room options, status,
// seed, occupants and the move log with its state-hash checkpoints), decoded into the
// LoadedState a Store::load() returns and handed to Lobby::restore, the path every stored
// room takes when the server starts. A store is the server's own writing, but a file edited
// by hand, a restore from an old backup or a record of another version of a game must cost
// at most that room (skipped, or frozen), never the start of the server. The oracle: nothing
// crashes or throws.
#include <boost/asio/io_context.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

#include "server/config.h"
#include "server/identity.h"
#include "server/lobby.h"
#include "server/log.h"
#include "server/metrics.h"

namespace {

using parlor::Json;
using namespace parlor::server;

// A field of the stored JSON, or `fallback` when it is missing or of another type (the
// columns' types are the store's schema; what is in them is what the fuzzer varies).
template <class T>
T field(const Json& object, const char* name, T fallback) {
  const auto it = object.find(name);
  if (it == object.end()) return fallback;
  if constexpr (std::is_same_v<T, std::string>) {
    return it->is_string() ? it->template get<std::string>() : fallback;
  } else {
    return it->is_number_integer() ? it->template get<T>() : fallback;
  }
}

StoredRoomStatus status_named(const std::string& name) {
  if (name == "waiting") return StoredRoomStatus::kWaiting;
  if (name == "finished") return StoredRoomStatus::kFinished;
  if (name == "abandoned") return StoredRoomStatus::kAbandoned;
  return StoredRoomStatus::kPlaying;
}

LoadedRoom decode_room(const Json& stored) {
  LoadedRoom loaded;
  RoomRecord& room = loaded.room;
  room.id = field<std::string>(stored, "id", "r1");
  room.kind = field<std::string>(stored, "kind", "bigtwo");
  room.seats = field<int>(stored, "seats", 4);
  room.game_options = stored.value("game_options", Json::object());
  room.room_options = stored.value("room_options", Json::object());
  room.status = status_named(field<std::string>(stored, "status", "playing"));
  room.game_number = field<int>(stored, "game_number", 1);
  room.seed = field<std::uint64_t>(stored, "seed", 1);
  room.start_seq = field<std::int64_t>(stored, "start_seq", 0);
  if (const auto it = stored.find("creator"); it != stored.end() && it->is_string()) {
    room.creator_id = it->get<std::string>();
  }
  if (const auto it = stored.find("occupants"); it != stored.end() && it->is_array()) {
    for (const Json& seat : *it) {
      if (!seat.is_object()) {
        room.occupants.emplace_back();
        continue;
      }
      SeatRecord record;
      if (seat.contains("player")) record.player_id = field<std::string>(seat, "player", "");
      record.name = field<std::string>(seat, "name", "");
      if (seat.contains("bot")) record.bot = field<std::string>(seat, "bot", "");
      room.occupants.emplace_back(std::move(record));
    }
  }
  if (const auto it = stored.find("moves"); it != stored.end() && it->is_array()) {
    std::int64_t seq = room.start_seq;
    for (const Json& move : *it) {
      if (!move.is_object()) continue;
      MoveRecord record;
      record.room_id = room.id;
      record.game_number = room.game_number;
      record.seq = field<std::int64_t>(move, "seq", ++seq);
      record.seat = field<int>(move, "seat", 0);
      record.move = move.value("move", Json());
      if (const auto hash = move.find("hash"); hash != move.end() && hash->is_number_unsigned()) {
        record.state_hash = hash->get<std::uint64_t>();
      }
      loaded.moves.push_back(std::move(record));
    }
  }
  return loaded;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the fuzzer's bytes
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const Json stored = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!stored.is_object()) return 0;

  parlor::server::set_log_quiet(true);  // a frozen or skipped room is logged: not a finding
  LoadedState state;
  state.rooms.push_back(decode_room(stored));
  Identity identity;
  for (int i = 0; i < 4; ++i) {
    identity.restore(std::make_shared<Player>("p" + std::to_string(i),
                                              "Player " + std::to_string(i), TokenHash{}));
  }

  boost::asio::io_context io;
  const ServerConfig config;
  Metrics metrics;
  {
    Lobby lobby(io, config, metrics);
    (void)lobby.restore(state, identity);
    io.poll();  // what the restored rooms posted to their strands (timers are not due)
    (void)lobby.list_rooms();
    (void)lobby.rooms_by_status();
    lobby.shutdown();
    io.poll();
  }
  return 0;
}
