#include "server/ratings_api.h"

#include <charconv>
#include <cmath>
#include <map>

#include "games/registry.h"
#include "protocol/encode.h"
#include "protocol/error_code.h"
#include "protocol/text.h"
#include "server/log.h"

namespace parlor::server {
namespace {

constexpr std::string_view kLeaderboard = "/api/leaderboard";
constexpr std::string_view kPlayers = "/api/players/";
constexpr int kDefaultLimit = 20;
constexpr int kMaxLimit = 100;

using protocol::ErrorCode;

ApiAnswer refuse(int status, ErrorCode code, const std::string& message) {
  return api_refusal(status, protocol::wire_name(code), message);
}

// Two decimals are all a rating means.
double shown(double value) { return std::round(value * 100.0) / 100.0; }

std::optional<std::string> percent_decoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16);
    if (ec != std::errc() || end != text.data() + i + 3) return std::nullopt;
    out += static_cast<char>(value);
    i += 2;
  }
  return out;
}

// The query parameters of a target, decoded; nullopt when one is malformed or repeated.
std::optional<std::map<std::string, std::string>> query_of(std::string_view target) {
  std::map<std::string, std::string> out;
  const auto q = target.find('?');
  if (q == std::string_view::npos) return out;
  std::string_view query = target.substr(q + 1);
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    if (!pair.empty()) {
      const auto eq = pair.find('=');
      auto key = percent_decoded(pair.substr(0, eq));
      auto value = percent_decoded(eq == std::string_view::npos ? "" : pair.substr(eq + 1));
      if (!key || !value || out.contains(*key)) return std::nullopt;
      out[*key] = *value;
    }
    if (amp == std::string_view::npos) break;
    query = query.substr(amp + 1);
  }
  return out;
}

bool is_bot(const std::string& id) { return id.rfind("bot:", 0) == 0; }

Json rating_json(const ratings::Rating& rating) {
  return {{"rating", shown(rating.rating)},
          {"deviation", shown(rating.deviation)},
          {"conservative", shown(ratings::conservative(rating))}};
}

ApiAnswer leaderboard(Store* store, std::string_view target) {
  const auto query = query_of(target);
  if (!query) {
    return refuse(400, ErrorCode::kBadRequest, "the query is malformed or repeats a parameter");
  }
  for (const auto& [key, value] : *query) {
    if (key != "kind" && key != "limit") {
      return refuse(400, ErrorCode::kBadRequest,
                    "unknown parameter " + protocol::quote_client_text(key, 32) +
                        "; kind and limit are known");
    }
  }
  const auto kind = query->find("kind");
  if (kind == query->end() || kind->second.empty()) {
    return refuse(400, ErrorCode::kBadRequest, "kind is required, e.g. ?kind=bigtwo");
  }
  if (!find_game(kind->second)) {
    return refuse(400, ErrorCode::kUnknownGame,
                  "no game of kind " + protocol::quote_client_text(kind->second, 32) +
                      "; /api/games names them");
  }
  int limit = kDefaultLimit;
  if (const auto it = query->find("limit"); it != query->end()) {
    const std::string& text = it->second;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), limit);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || limit < 1 ||
        limit > kMaxLimit) {
      return refuse(400, ErrorCode::kBadRequest,
                    "limit must be an integer from 1 to " + std::to_string(kMaxLimit));
    }
  }
  Json players = Json::array();
  if (store) {
    int place = 0;
    for (const RatingRow& row : store->load_leaderboard(kind->second, limit)) {
      Json entry = rating_json(row.rating);
      entry["place"] = ++place;
      entry["player"] = row.player_id;
      entry["name"] = row.name;
      entry["bot"] = is_bot(row.player_id);
      entry["games"] = row.games;
      players.push_back(std::move(entry));
    }
  }
  return {200, protocol::to_wire(Json{{"kind", kind->second},
                                      {"order", "rating - 2 * deviation"},
                                      {"players", std::move(players)}})};
}

ApiAnswer player(Store* store, std::string_view target) {
  const std::string_view path = target.substr(0, target.find('?'));
  const auto id = percent_decoded(path.substr(kPlayers.size()));
  if (!id || id->empty() || id->size() > 64 || id->find('/') != std::string::npos ||
      id->find('\0') != std::string::npos) {
    return refuse(400, ErrorCode::kBadRequest, "a player id is 1 to 64 bytes: /api/players/<id>");
  }
  const auto found = store ? store->load_player_ratings(*id, kProfileGames) : std::nullopt;
  if (!found) {
    return refuse(404, ErrorCode::kNoSuchPlayer,
                  "player " + protocol::quote_client_text(*id, 32) + " has played no rated game");
  }
  Json kinds = Json::array();
  for (const RatingRow& row : found->ratings) {
    Json entry = rating_json(row.rating);
    entry["kind"] = row.kind;
    entry["volatility"] = std::round(row.rating.volatility * 1e6) / 1e6;
    entry["games"] = row.games;
    kinds.push_back(std::move(entry));
  }
  Json recent = Json::array();
  std::map<std::string, Json> history;  // per kind, oldest first
  for (const RatedGameEntry& game : found->games) {
    recent.push_back({{"room", game.room_id},
                      {"game", game.game_number},
                      {"kind", game.kind},
                      {"finished_ms", game.finished_ms},
                      {"system", game.system},
                      {"seat", game.seat},
                      {"place", game.rank + 1},
                      {"sides", game.sides},
                      {"abandoned", game.abandoned},
                      {"rating_before", shown(game.before.rating)},
                      {"rating_after", shown(game.after.rating)},
                      {"deviation_after", shown(game.after.deviation)},
                      {"change", shown(game.after.rating - game.before.rating)}});
  }
  // Oldest first: the list is the latest first.
  for (std::size_t i = found->games.size(); i-- > 0;) {
    const RatedGameEntry& game = found->games[i];
    auto& points = history[game.kind];
    if (points.is_null()) points = Json::array();
    points.push_back({{"finished_ms", game.finished_ms}, {"rating", shown(game.after.rating)}});
  }
  Json history_json = Json::object();
  for (auto& [kind, points] : history) history_json[kind] = std::move(points);
  return {200, protocol::to_wire(Json{{"player", found->id},
                                      {"name", found->name},
                                      {"bot", is_bot(found->id)},
                                      {"ratings", std::move(kinds)},
                                      {"recent", std::move(recent)},
                                      {"history", std::move(history_json)}})};
}

}  // namespace

ApiAnswer api_refusal(int status, std::string_view code, std::string_view message) {
  return {status, protocol::to_wire(Json{{"error", code}, {"message", message}})};
}

bool is_ratings_path(std::string_view path) {
  return path == kLeaderboard || (path.starts_with(kPlayers) && path.size() > kPlayers.size()) ||
         path == kPlayers;
}

ApiAnswer ratings_api(Store* store, std::string_view target) {
  const std::string_view path = target.substr(0, target.find('?'));
  try {
    if (path == kLeaderboard) return leaderboard(store, target);
    return player(store, target);
  } catch (const StoreError& error) {
    log_error(std::string("ratings API: ") + error.what());
    return refuse(500, ErrorCode::kInternalError, "the ratings could not be read; try later");
  }
}

}  // namespace parlor::server
