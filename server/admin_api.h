// The admin API over HTTP (docs/OPERATIONS.md, "Admin API"), served only when the server was
// started with --admin-token-file; without it these paths do not exist (404, as any unknown
// path). Every request carries `Authorization: Bearer TOKEN`; a missing or wrong token is
// answered 401. The API acts on this server (in a cluster: on this node) only:
//
//   GET  /api/admin/rooms                every room held here, private ones included, with
//                                        who sits where
//   POST /api/admin/rooms/<id>/close     ends the room; its members are told (room_closed)
//   POST /api/admin/players/<id>/kick    closes the player's connection (4001)
//   POST /api/admin/players/<id>/ban     kick, and its token is refused from then on (4002)
//   POST /api/admin/drain                the drain SIGTERM starts
//
// Answers are JSON: {"ok":true,...} or {"error":CODE,"message":TEXT}. Every action, and every
// refused token, writes an audit line (event admin_action / admin_refused) with the action,
// its target and the caller's address, never the token.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "server/ratings_api.h"

namespace parlor::server {

class ServerState;

// Whether `path` (without its query) is under /api/admin.
bool is_admin_path(std::string_view path);

struct AdminRequest {
  std::string_view method;         // "GET", "POST", ...
  std::string_view path;           // without the query
  std::string_view authorization;  // the Authorization header, as sent
  std::string_view caller;         // the client's address, for the audit lines
};

// The answer to one admin request (state.config().admin_token set).
ApiAnswer admin_api(ServerState& state, const AdminRequest& request);

// Whether `authorization` is "Bearer <token>", compared in constant time (also in the
// token's length: both sides are hashed first).
bool admin_token_matches(std::string_view authorization, const std::string& token);

// The admin token from its file: the file's content without the blanks around it. nullopt
// and `error` when the file cannot be read or holds no token.
std::optional<std::string> read_admin_token(const std::string& path, std::string& error);

}  // namespace parlor::server
