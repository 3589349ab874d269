#include "server/lobby_feed.h"

#include <algorithm>
#include <array>

namespace parlor::server {

namespace {

enum Change { kAdded, kChanged, kRemoved };
constexpr std::array<const char*, 3> kPushTypes = {"room_added", "room_changed", "room_removed"};

}  // namespace

void LobbyFeed::subscribe(const std::shared_ptr<Connection>& connection,
                          std::optional<std::string> kind, const Json& re, Rooms rooms) {
  std::lock_guard lock(mutex_);
  push(update(std::move(rooms)));
  Subscriber& subscriber = subscribers_[connection.get()];
  subscriber.connection = connection;
  subscriber.kind = kind.value_or("");
  metrics_.lobby_subscribers.store(static_cast<std::int64_t>(subscribers_.size()),
                                   std::memory_order_relaxed);

  std::vector<const Json*> listed;
  for (const auto& [id, shown] : shown_) {
    if (!kind || shown.summary.value("kind", "") == *kind) listed.push_back(&shown.summary);
  }
  std::sort(listed.begin(), listed.end(), [](const Json* a, const Json* b) {
    return a->value("room", "") < b->value("room", "");
  });
  Json list = Json::array();
  for (const Json* summary : listed) list.push_back(*summary);
  Json message = {{"type", "lobby"}, {"kind", kind ? Json(*kind) : Json()}};
  message["rooms"] = std::move(list);
  protocol::attach_re(message, re);
  connection->send(make_frame(protocol::to_wire(message)));
}

bool LobbyFeed::unsubscribe(const Connection* connection) {
  std::lock_guard lock(mutex_);
  const bool was = subscribers_.erase(connection) > 0;
  metrics_.lobby_subscribers.store(static_cast<std::int64_t>(subscribers_.size()),
                                   std::memory_order_relaxed);
  return was;
}

bool LobbyFeed::has_subscribers() const {
  std::lock_guard lock(mutex_);
  return !subscribers_.empty();
}

void LobbyFeed::publish(Rooms rooms) {
  std::lock_guard lock(mutex_);
  push(update(std::move(rooms)));
}

LobbyFeed::Changes LobbyFeed::update(Rooms rooms) {
  Changes changes;
  std::unordered_map<std::string, Shown> next;
  next.reserve(rooms.local.size() + rooms.remote.size());
  // Records `summary` (already known to differ from what was shown, if anything was).
  auto record = [&](const std::string& id, Shown shown, bool was_shown) {
    (was_shown ? changes.changed : changes.added).push_back(id);
    next.emplace(id, std::move(shown));
  };
  for (auto& local : rooms.local) {
    const std::string& id = local->room;
    const auto old = shown_.find(id);
    if (old != shown_.end() && old->second.local == local) {
      next.emplace(id, std::move(old->second));  // the same summary: unchanged, not encoded
      continue;
    }
    Json summary = protocol::room_summary_json(*local);
    if (old != shown_.end() && old->second.summary == summary) {
      next.emplace(id, Shown{local, std::move(summary)});
      continue;
    }
    record(id, Shown{local, std::move(summary)}, old != shown_.end());
  }
  for (Json& summary : rooms.remote) {
    std::string id = summary.value("room", "");
    // A room that moved here a moment ago may still be in its old node's list: shown once.
    if (id.empty() || next.contains(id)) continue;
    const auto old = shown_.find(id);
    if (old != shown_.end() && old->second.summary == summary) {
      next.emplace(id, std::move(old->second));
      continue;
    }
    record(id, Shown{nullptr, std::move(summary)}, old != shown_.end());
  }
  for (const auto& [id, shown] : shown_) {
    if (!next.contains(id)) changes.removed.emplace_back(id, shown.summary.value("kind", ""));
  }
  shown_ = std::move(next);
  std::sort(changes.added.begin(), changes.added.end());
  std::sort(changes.changed.begin(), changes.changed.end());
  std::sort(changes.removed.begin(), changes.removed.end());
  return changes;
}

void LobbyFeed::push(const Changes& changes) {
  if (changes.added.empty() && changes.changed.empty() && changes.removed.empty()) return;
  // Each filter's frames, encoded once and shared by its subscribers (null: nothing to say).
  std::map<std::string, std::array<Frame, 3>> frames;
  auto frames_for = [&](const std::string& kind) -> const std::array<Frame, 3>& {
    auto [it, fresh] = frames.try_emplace(kind);
    if (!fresh) return it->second;
    const auto wanted = [&](const std::string& room_kind) {
      return kind.empty() || room_kind == kind;
    };
    std::array<Json, 3> lists = {Json::array(), Json::array(), Json::array()};
    for (const auto& [list, ids] :
         {std::pair{kAdded, &changes.added}, std::pair{kChanged, &changes.changed}}) {
      for (const std::string& id : *ids) {
        const Json& summary = shown_.at(id).summary;
        if (wanted(summary.value("kind", ""))) lists[list].push_back(summary);
      }
    }
    for (const auto& [id, room_kind] : changes.removed) {
      if (wanted(room_kind)) lists[kRemoved].push_back(id);
    }
    for (int change : {kAdded, kChanged, kRemoved}) {
      if (lists[change].empty()) continue;
      Json message = {{"type", kPushTypes[change]}};
      message["rooms"] = std::move(lists[change]);
      it->second[change] = make_frame(protocol::to_wire(message));
    }
    return it->second;
  };
  std::uint64_t sent = 0;
  for (auto it = subscribers_.begin(); it != subscribers_.end();) {
    auto connection = it->second.connection.lock();
    if (!connection) {
      it = subscribers_.erase(it);  // closed without unsubscribing
      continue;
    }
    for (const Frame& frame : frames_for(it->second.kind)) {
      if (!frame) continue;
      connection->send(frame);
      ++sent;
    }
    ++it;
  }
  metrics_.lobby_subscribers.store(static_cast<std::int64_t>(subscribers_.size()),
                                   std::memory_order_relaxed);
  metrics_.lobby_push_frames.fetch_add(sent, std::memory_order_relaxed);
}

}  // namespace parlor::server
