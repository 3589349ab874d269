// The lobby push: connections that subscribed to the lobby get a snapshot of the public
// rooms, then what changed, as room_added / room_changed / room_removed pushes.
//
// The feed does not watch rooms. Its owner calls publish() with the current public rooms
// every kPushInterval (and subscribe() with them too); the feed compares them with what its
// subscribers were last shown and sends the differences. So however fast rooms change, a
// subscriber gets at most three frames per interval, each room's latest summary at most once,
// and each frame is encoded once per filter and shared by every subscriber with that filter.
//
// Thread-safe: subscribe and unsubscribe come from connections' strands, publish from a timer.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "games/core/game.h"
#include "protocol/encode.h"
#include "server/connection.h"
#include "server/metrics.h"

namespace parlor::server {

class LobbyFeed {
 public:
  // How often changes go out, at most: a lobby that moves within half a second looks live,
  // and a subscriber under churn gets at most six frames a second.
  static constexpr std::chrono::milliseconds kPushInterval{500};

  // The public rooms now: this server's (shared summaries, replaced whenever a room changes,
  // so an unchanged room is recognized without encoding it) and, in a cluster, other nodes'
  // in wire form.
  struct Rooms {
    std::vector<std::shared_ptr<const protocol::RoomSummary>> local;
    std::vector<Json> remote;
  };

  explicit LobbyFeed(Metrics& metrics) : metrics_(metrics) {}

  // Shows `rooms` to the current subscribers, then subscribes `connection` (replacing an
  // earlier subscription and its filter) and sends it the snapshot, `{"type":"lobby",
  // "kind":K|null,"rooms":[...]}` with `re`. `kind`: only rooms of this kind.
  void subscribe(const std::shared_ptr<Connection>& connection, std::optional<std::string> kind,
                 const Json& re, Rooms rooms);
  // Returns whether `connection` was subscribed.
  bool unsubscribe(const Connection* connection);
  bool has_subscribers() const;

  // Pushes what changed since the last publish (or subscribe) to every subscriber.
  void publish(Rooms rooms);

 private:
  // A room as subscribers were last shown it.
  struct Shown {
    std::shared_ptr<const protocol::RoomSummary> local;  // null for another node's room
    Json summary;
  };
  struct Subscriber {
    std::weak_ptr<Connection> connection;
    std::string kind;  // empty: every kind
  };
  struct Changes {
    std::vector<std::string> added;    // room ids, their summaries in shown_
    std::vector<std::string> changed;  // the same
    std::vector<std::pair<std::string, std::string>> removed;  // room id, kind
  };

  // Makes `rooms` the shown state; returns what differs.
  Changes update(Rooms rooms);
  void push(const Changes& changes);

  Metrics& metrics_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Shown> shown_;
  std::unordered_map<const Connection*, Subscriber> subscribers_;
};

}  // namespace parlor::server
