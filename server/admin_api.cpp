#include "server/admin_api.h"

#include <openssl/crypto.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "protocol/encode.h"
#include "protocol/text.h"
#include "server/log.h"
#include "server/server_state.h"

namespace parlor::server {
namespace {

constexpr std::string_view kPrefix = "/api/admin";

// WebSocket close codes of the admin's actions (protocol/PROTOCOL.md, "Close codes").
constexpr std::uint16_t kKickedCode = 4001;
constexpr std::uint16_t kBannedCode = 4002;

ApiAnswer answer(int status, const Json& body) { return {status, protocol::to_wire(body)}; }

// The audit line of one action. The caller's address, never its token.
void audit(const AdminRequest& request, std::string_view action, std::string_view target,
           std::string_view outcome) {
  // The target comes from the URL: quoted, as any client text in a log line.
  log_info("admin: " + std::string(action) +
               (target.empty() ? "" : " " + protocol::quote_client_text(target)) + " from " +
               std::string(request.caller) + ": " + std::string(outcome),
           {.event = "admin_action"});
}

// Splits "/api/admin/<kind>/<id>/<action>" (the part after the prefix) into its three parts.
struct Target {
  std::string kind;
  std::string id;
  std::string action;
};
std::optional<Target> split_target(std::string_view rest) {
  // rest: "/rooms/abc/close"
  std::vector<std::string> parts;
  std::size_t start = 1;
  while (start <= rest.size()) {
    const std::size_t slash = rest.find('/', start);
    const std::size_t end = slash == std::string_view::npos ? rest.size() : slash;
    parts.emplace_back(rest.substr(start, end - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (parts.size() != 3 || parts[0].empty() || parts[1].empty() || parts[2].empty()) {
    return std::nullopt;
  }
  return Target{parts[0], parts[1], parts[2]};
}

ApiAnswer list_rooms(ServerState& state) {
  Json rooms = Json::array();
  for (const auto& [summary, is_private] : state.lobby().every_summary()) {
    Json room = protocol::room_summary_json(*summary);
    room.erase("type");
    room["private"] = is_private;
    rooms.push_back(std::move(room));
  }
  return answer(200, Json{{"rooms", std::move(rooms)}});
}

ApiAnswer close_room(ServerState& state, const AdminRequest& request, const std::string& id) {
  auto room = state.lobby().find(id);
  if (!room) {
    audit(request, "close_room", id, "no such room here");
    return api_refusal(404, "no_such_room",
                       "no room " + protocol::quote_client_text(id, 32) + " here");
  }
  room->close("an administrator closed this room");
  audit(request, "close_room", id, "closed");
  return answer(200, Json{{"ok", true}, {"room", id}});
}

// kick and ban: the player's live connection is closed with `code`.
ApiAnswer remove_player(ServerState& state, const AdminRequest& request, const std::string& id,
                        bool ban) {
  const std::string_view action = ban ? "ban" : "kick";
  auto player = state.identity().find(id);
  if (!player) {
    audit(request, action, id, "no such player");
    return api_refusal(404, "no_such_player",
                       "no player " + protocol::quote_client_text(id, 32) + " here");
  }
  if (ban) state.identity().ban(id);
  const auto connection = player->connection();
  if (connection) {
    connection->close(ban ? kBannedCode : kKickedCode,
                      ban ? "banned by an administrator" : "kicked by an administrator");
  }
  audit(request, action, id, connection ? "connection closed" : "not connected");
  Json body{{"ok", true}, {"player", id}, {"was_connected", connection != nullptr}};
  if (ban) body["banned"] = true;
  return answer(200, body);
}

ApiAnswer drain(ServerState& state, const AdminRequest& request) {
  if (!state.request_drain()) {
    audit(request, "drain", "", "refused: this server cannot stop itself");
    return api_refusal(503, "not_allowed", "this server was not started to be stopped from here");
  }
  audit(request, "drain", "", "started");
  return answer(202, Json{{"ok", true}, {"draining", true}});
}

}  // namespace

bool is_admin_path(std::string_view path) {
  return path == kPrefix ||
         (path.starts_with(kPrefix) && path.size() > kPrefix.size() && path[kPrefix.size()] == '/');
}

bool admin_token_matches(std::string_view authorization, const std::string& token) {
  constexpr std::string_view kScheme = "Bearer ";
  if (token.empty() || !authorization.starts_with(kScheme)) return false;
  const std::string presented(authorization.substr(kScheme.size()));
  // Hashes of equal length, compared in constant time: neither the bytes nor the length of
  // the token leak through the time the answer takes.
  const TokenHash expected = Identity::hash_token(token);
  const TokenHash given = Identity::hash_token(presented);
  return CRYPTO_memcmp(expected.data(), given.data(), expected.size()) == 0;
}

std::optional<std::string> read_admin_token(const std::string& path, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read the admin token file " + path;
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  const std::string content = text.str();
  const std::string_view token = protocol::trim_ascii_whitespace(content);
  if (token.empty()) {
    error = "the admin token file " + path + " is empty";
    return std::nullopt;
  }
  return std::string(token);
}

ApiAnswer admin_api(ServerState& state, const AdminRequest& request) {
  if (!admin_token_matches(request.authorization, state.config().admin_token)) {
    log_warn("admin: " + std::string(request.method) + " " +
                 protocol::quote_client_text(request.path) + " from " +
                 std::string(request.caller) + " refused: missing or wrong token",
             {.event = "admin_refused"});
    return api_refusal(401, "unauthorized", "this needs Authorization: Bearer <the admin token>");
  }
  const std::string_view rest = request.path.substr(kPrefix.size());
  const bool get = request.method == "GET";
  const bool post = request.method == "POST";
  if (rest == "/rooms") {
    if (!get) return api_refusal(405, "method_not_allowed", "GET /api/admin/rooms");
    return list_rooms(state);
  }
  if (rest == "/drain") {
    if (!post) return api_refusal(405, "method_not_allowed", "POST /api/admin/drain");
    return drain(state, request);
  }
  if (const auto target = split_target(rest)) {
    const bool room_close = target->kind == "rooms" && target->action == "close";
    const bool kick = target->kind == "players" && target->action == "kick";
    const bool ban = target->kind == "players" && target->action == "ban";
    if (room_close || kick || ban) {
      if (!post) {
        return api_refusal(405, "method_not_allowed",
                           "POST " + std::string(request.path.substr(0, 200)));
      }
      if (room_close) return close_room(state, request, target->id);
      return remove_player(state, request, target->id, ban);
    }
  }
  return api_refusal(404, "not_found", "no such admin endpoint");
}

}  // namespace parlor::server
