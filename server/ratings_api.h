// The read-only ratings API over HTTP (docs/ARCHITECTURE.md, "Ratings"):
//
//   GET /api/leaderboard?kind=K[&limit=N]   the best N (default 20, 1 to 100) of a game kind by
//                                           conservative rating, rating - 2 * deviation
//   GET /api/players/<id>                   a player's (or a bot's, "bot:<strategy>") ratings,
//                                           latest rated games and rating history
//
// Bad parameters are answered 400 with {"error":CODE,"message":TEXT}. Nothing here holds a
// token, a hand or a seed. The answers read the store: blocking, call off the event loop.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "server/store/store.h"

namespace parlor::server {

struct ApiAnswer {
  int status = 200;
  std::string body;  // JSON
};

// A refused API request: `status` with {"error":CODE,"message":TEXT}, the shape every JSON
// API of the server answers a refusal with.
ApiAnswer api_refusal(int status, std::string_view code, std::string_view message);

// Whether `path` (without its query) is one of the ratings API's.
bool is_ratings_path(std::string_view path);

// The answer to a GET of `target` (path and query) on a ratings path; `store` null: the
// server keeps no store, so there are no ratings.
ApiAnswer ratings_api(Store* store, std::string_view target);

// How many rated games /api/players/<id> lists.
inline constexpr int kProfileGames = 50;

}  // namespace parlor::server
