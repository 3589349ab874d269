#include "tests/support/game_driver.h"

#include <algorithm>
#include <set>

#include "bots/strategy.h"
#include "games/core/card.h"
#include "games/core/rng.h"

namespace parlor::testing {
namespace {

void collect_strings(const Json& value, std::set<std::string>& out) {
  if (value.is_string()) {
    out.insert(value.get<std::string>());
  } else if (value.is_array() || value.is_object()) {
    for (const Json& item : value) collect_strings(item, out);
  }
}

// The events of the current deal, for scanning: events before a new deal describe plays of
// the previous deal, whose cards were public then; the new deal may have put those cards into
// other hands. A deal that ends lays the hands left face up to be counted (Big Two's
// deal_over carries them as "hands"): those, and only there, are public.
Json current_deal_events(const Json& events) {
  std::size_t first_current = 0;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i].value("type", "") == "deal") first_current = i;
  }
  Json current(events.begin() + static_cast<std::ptrdiff_t>(first_current), events.end());
  for (Json& event : current) {
    if (event.value("type", "") == "deal_over") event.erase("hands");
  }
  return current;
}

}  // namespace

std::optional<Json> next_prompt(TestClient& client, const std::string& room, Seat seat,
                                std::chrono::milliseconds timeout) {
  while (auto frame = client.next(timeout)) {
    if (frame->value("type", "") != "state" || (*frame)["room"] != room) continue;
    const Json& to_act = (*frame)["to_act"];
    if (std::find(to_act.begin(), to_act.end(), seat) != to_act.end()) return frame;
  }
  return std::nullopt;
}

std::vector<std::string> hidden_hand_cards(const Game& game, Seat viewer) {
  std::vector<std::string> out;
  for (Seat s = 0; s < game.seat_count(); ++s) {
    if (s == viewer) continue;
    const Json view = game.view(s);
    if (!view.contains("hand")) continue;
    for (const Json& card : view["hand"]) {
      if (card.is_string()) out.push_back(card.get<std::string>());
    }
  }
  return out;
}

std::string scan_frame(const Json& frame, const Game& mirror, Seat viewer) {
  return scan_frame(frame, hidden_hand_cards(mirror, viewer), viewer);
}

std::string scan_frame(const Json& frame, const std::vector<std::string>& hidden, Seat viewer) {
  std::set<std::string> mentioned;
  if (frame.value("type", "") == "state" && frame.contains("events")) {
    Json scanned = frame;
    scanned["events"] = current_deal_events(frame["events"]);
    // The finished view's last_deal lays the hands left face up too.
    if (Json& last_deal = scanned["view"]["last_deal"]; last_deal.is_object()) {
      last_deal.erase("hands");
    }
    collect_strings(scanned, mentioned);
  } else if (frame.value("type", "") == "event_history" && frame.contains("entries") &&
             frame.at("entries").is_array()) {
    // The play log: every entry's events in order, scanned as one state's would be.
    Json events = Json::array();
    for (const Json& entry : frame.at("entries")) {
      if (!entry.is_object() || !entry.contains("events")) continue;
      for (const Json& event : entry.at("events")) events.push_back(event);
    }
    Json scanned = frame;
    scanned.erase("entries");
    scanned["events"] = current_deal_events(events);
    collect_strings(scanned, mentioned);
  } else {
    collect_strings(frame, mentioned);
  }
  for (const std::string& card : hidden) {
    if (mentioned.contains(card)) {
      return "frame to " +
             (viewer == kSpectator ? std::string("a spectator")
                                   : "seat " + std::to_string(viewer)) +
             " mentions " + card + ", held by another seat: " + frame.dump().substr(0, 300);
    }
  }
  if (frame.value("type", "") == "state" && viewer == kSpectator &&
      frame["view"].contains("hand")) {
    return "spectator view has a hand";
  }
  return {};
}

DriveResult drive_game(std::vector<TestClient*> clients, std::vector<TestClient*> spectators,
                       const std::string& room, Game& mirror, std::int64_t start_seq,
                       std::uint64_t seed, int max_moves) {
  DriveResult result;
  Rng rng(seed);
  std::int64_t seq = start_seq;
  std::vector<Json> prompts(clients.size());

  // Reads frames of one client until its state push for `want_seq`; scans each.
  auto sync = [&](TestClient& client, Seat viewer, std::int64_t want_seq) -> std::string {
    while (true) {
      auto frame = client.next(std::chrono::seconds(10));
      if (!frame)
        return "no state " + std::to_string(want_seq) + " for seat " + std::to_string(viewer);
      if (auto leak = scan_frame(*frame, mirror, viewer); !leak.empty()) return leak;
      const std::string type = frame->value("type", "");
      if (type != "state" || (*frame)["room"] != room) continue;
      if ((*frame)["seq"] != want_seq) {
        if ((*frame)["seq"].get<std::int64_t>() < want_seq) continue;
        return "seat " + std::to_string(viewer) + " got seq " + (*frame)["seq"].dump() +
               ", expected " + std::to_string(want_seq);
      }
      const Json& to_act = (*frame)["to_act"];
      const bool acts = std::find(to_act.begin(), to_act.end(), viewer) != to_act.end();
      if (acts != (*frame)["prompt"].is_object()) {
        return "prompt/to_act mismatch for seat " + std::to_string(viewer);
      }
      if (viewer >= 0) prompts[static_cast<std::size_t>(viewer)] = (*frame)["prompt"];
      return {};
    }
  };
  // The initial states were read by the caller: fetch prompts from legal_moves instead.
  for (std::size_t s = 0; s < clients.size(); ++s) {
    const Json reply = clients[s]->request({{"type", "legal_moves"}, {"room", room}});
    if (reply.value("type", "") != "legal_moves") {
      result.failure = "legal_moves failed: " + reply.dump();
      return result;
    }
    prompts[s] = reply["moves"].empty() ? Json(nullptr) : Json{{"legal", reply["moves"]}};
  }
  // A choose prompt (e.g. a discard) is not listed by legal_moves; take it from the mirror.
  while (!mirror.finished()) {
    if (max_moves > 0 && result.moves >= max_moves) break;
    const auto to_act = mirror.to_act();
    const Seat seat = to_act.front();
    Json prompt = prompts[static_cast<std::size_t>(seat)];
    if (!prompt.is_object()) prompt = mirror.prompt(seat);
    const Json move = bots::random_move(prompt, rng);
    const Json reply = clients[static_cast<std::size_t>(seat)]->request(
        {{"type", "move"}, {"room", room}, {"move", move}, {"seq", seq}});
    if (reply.value("type", "") != "ok") {
      result.failure =
          "move " + move.dump() + " by seat " + std::to_string(seat) + " refused: " + reply.dump();
      return result;
    }
    if (!mirror.apply(seat, move).ok()) {
      result.failure = "mirror refused " + move.dump();
      return result;
    }
    ++seq;
    ++result.moves;
    if (reply["seq"] != seq) {
      result.failure = "ok carried seq " + reply["seq"].dump();
      return result;
    }
    for (std::size_t s = 0; s < clients.size(); ++s) {
      if (auto failure = sync(*clients[s], static_cast<Seat>(s), seq); !failure.empty()) {
        result.failure = failure;
        return result;
      }
    }
    for (TestClient* spectator : spectators) {
      if (auto failure = sync(*spectator, kSpectator, seq); !failure.empty()) {
        result.failure = failure;
        return result;
      }
    }
  }
  result.finished = mirror.finished();
  result.last_seq = seq;
  if (result.finished) {
    // Every member gets game_over.
    for (TestClient* client : clients) {
      auto over = client->next_of("game_over", std::chrono::seconds(5));
      if (!over) {
        result.failure = "no game_over";
        return result;
      }
      result.game_over = *over;
    }
  }
  return result;
}

}  // namespace parlor::testing
