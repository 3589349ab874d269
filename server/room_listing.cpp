#include "server/room_listing.h"

#include <algorithm>
#include <cstddef>
#include <string>

namespace parlor::server {

namespace {

const std::string& room_id(const Json& summary) {
  static const std::string kNone;
  const auto it = summary.find("room");
  return it != summary.end() && it->is_string() ? it->get_ref<const std::string&>() : kNone;
}

bool has_free_seat(const Json& summary) {
  const auto seats = summary.find("seats");
  if (seats == summary.end() || !seats->is_array()) return false;
  return std::any_of(seats->begin(), seats->end(), [](const Json& seat) { return seat.is_null(); });
}

}  // namespace

bool room_matches(const Json& summary, const protocol::ListRooms& query) {
  if (query.kind && summary.value("kind", "") != *query.kind) return false;
  if (query.status && summary.value("status", "") != *query.status) return false;
  return !query.free_seat || has_free_seat(summary);
}

Json rooms_page(std::vector<Json> rooms, const protocol::ListRooms& query) {
  std::erase_if(rooms, [&](const Json& summary) {
    return !room_matches(summary, query) || (query.after && room_id(summary) <= *query.after);
  });
  std::sort(rooms.begin(), rooms.end(),
            [](const Json& a, const Json& b) { return room_id(a) < room_id(b); });
  Json message = {{"type", "rooms"}};
  if (query.limit && rooms.size() > static_cast<std::size_t>(*query.limit)) {
    rooms.resize(static_cast<std::size_t>(*query.limit));
    message["next"] = room_id(rooms.back());
  }
  message["rooms"] = std::move(rooms);
  return message;
}

}  // namespace parlor::server
