#include "server/lobby.h"

#include <algorithm>

#include "games/registry.h"
#include "protocol/text.h"
#include "server/config.h"
#include "server/identity.h"
#include "server/log.h"

namespace parlor::server {

using protocol::ErrorCode;

namespace {

// Often enough for the shortest configured timeout, never more often than needed.
std::chrono::milliseconds sweep_interval(const ServerConfig& config) {
  const auto shortest = std::min<std::chrono::milliseconds>(config.empty_room_timeout,
                                                            config.finished_room_retention);
  return std::clamp<std::chrono::milliseconds>(shortest / 2, std::chrono::milliseconds(50),
                                               std::chrono::seconds(30));
}

}  // namespace

Lobby::Lobby(boost::asio::io_context& io, const ServerConfig& config, Metrics& metrics)
    : io_(io), config_(config), metrics_(metrics), sweeper_(io) {}

std::shared_ptr<Room> Lobby::create_room(const std::shared_ptr<Player>& creator,
                                         const protocol::CreateRoom& request, Refusal& refusal) {
  TableSetup setup;
  if (auto refused = check_table(request, config_.dev, /*room_options=*/true, setup)) {
    refusal = std::move(*refused);
    return nullptr;
  }
  setup.creator = creator;
  if (request.rated && !store_) {
    refusal = {ErrorCode::kNotAllowed,
               "rated games need a durable store (this server runs with --store none)"};
    return nullptr;
  }

  std::lock_guard lock(mutex_);
  if (rooms_.size() >= config_.max_rooms) {
    refusal = {ErrorCode::kTooManyRooms,
               "this server holds its maximum number of rooms; try later"};
    return nullptr;
  }
  do {
    setup.id = random_hex(5);
  } while (rooms_.contains(setup.id));
  const std::string id = setup.id;
  const bool is_private = setup.options.is_private;
  setup.draw_seed = random_u64;
  const std::int64_t epoch = node_id_.empty() ? 0 : 1;
  setup.epoch = epoch;
  setup.owner = node_id_;
  auto room = std::make_shared<Room>(io_, std::move(setup), store_, config_, metrics_, hooks());
  rooms_[id] = Entry{room, nullptr, is_private, epoch};
  index_->put(id, room);
  creator->change_open_rooms_created(+1);
  if (cluster_events_.created) cluster_events_.created(id);
  return room;
}

std::optional<Lobby::Refusal> Lobby::check_table(const protocol::CreateRoom& request,
                                                 bool allow_seed, bool room_options,
                                                 TableSetup& setup) {
  const GameInfo* info = find_game(request.kind);
  if (!info) {
    return Refusal{ErrorCode::kUnknownGame, "no game of kind " +
                                                protocol::quote_client_text(request.kind, 32) +
                                                "; list_games names them"};
  }
  // Room options ride along with the game's options; split them off first.
  Json game_options = request.options;
  if (auto error = extract_room_options(game_options, allow_seed, setup.options)) {
    return Refusal{ErrorCode::kBadOptions, std::move(*error)};
  }
  if (!room_options && game_options.size() != request.options.size()) {
    return Refusal{ErrorCode::kBadOptions, "these tables use the default room options; only " +
                                               info->name + "'s own options may be chosen"};
  }
  const int seats = request.seats.value_or(info->default_seats);
  if (seats < info->min_seats || seats > info->max_seats) {
    return Refusal{ErrorCode::kBadOptions, info->name + " is played by " +
                                               std::to_string(info->min_seats) + " to " +
                                               std::to_string(info->max_seats) + " players"};
  }
  std::string error;
  auto normalized = normalize_options(info->options, game_options, error);
  if (!normalized) return Refusal{ErrorCode::kBadOptions, error};
  setup.options.rated = request.rated;
  setup.game = info;
  setup.seats = seats;
  setup.game_options = std::move(*normalized);
  return std::nullopt;
}

RoomHooks Lobby::hooks() {
  return RoomHooks{
      .summary_changed =
          [this](const std::string& room, std::shared_ptr<const protocol::RoomSummary> summary) {
            std::lock_guard inner(mutex_);
            if (auto it = rooms_.find(room); it != rooms_.end())
              it->second.summary = std::move(summary);
          },
      .open_rooms_changed = [](const std::shared_ptr<Player>& player,
                               int delta) { player->change_open_rooms_created(delta); },
      .removed =
          [this](const std::string& id, const Room* room) {
            std::lock_guard inner(mutex_);
            if (auto it = rooms_.find(id); it != rooms_.end() && it->second.room.get() == room) {
              rooms_.erase(it);
            }
            index_->erase(id, room);
          },
      .watcher_changed =
          [this](const std::string& room, const WatcherChange& change) {
            // Set once before any room exists (set_cluster at start), read-only after.
            if (cluster_events_.watcher_changed) {
              cluster_events_.watcher_changed(room, change.player, change.watching);
            }
          },
      .stalled =
          [this](const std::string& id, const Room* room) {
            std::lock_guard inner(mutex_);
            if (auto it = rooms_.find(id); it != rooms_.end() && it->second.room.get() == room) {
              it->second.stalled = true;
            }
          }};
}

int Lobby::restore(const LoadedState& stored, Identity& identity) {
  int frozen = 0;
  for (const LoadedRoom& loaded : stored.rooms) {
    if (!restore_one(loaded, 0, identity)) ++frozen;
  }
  return frozen;
}

bool Lobby::restore_one(const LoadedRoom& loaded, std::int64_t epoch, Identity& identity,
                        const std::vector<std::string>& spectators) {
  const RoomRecord& r = loaded.room;
  const GameInfo* info = find_game(r.kind);
  if (!info) {
    log_error("stored room " + r.id + " is of unknown game \"" + r.kind + "\"; skipped");
    return true;
  }
  // The record must be one this engine can deal from, as create_room checked when the room
  // was made; a store of another version, or edited, may hold one it cannot (the engines
  // read options that normalize_options has checked, and size their tables by the seats).
  std::string error;
  auto options = normalize_options(info->options, r.game_options, error);
  if (r.seats < info->min_seats || r.seats > info->max_seats) {
    error = std::to_string(r.seats) + " seats";
  }
  if (!options || !error.empty()) {
    log_error("stored room " + r.id + " cannot be dealt by this " + info->name + " (" + error +
              "); skipped");
    return true;
  }
  TableSetup setup;
  setup.id = r.id;
  setup.game = info;
  setup.seats = r.seats;
  setup.game_options = std::move(*options);
  setup.options = room_options_from_json(r.room_options);
  setup.draw_seed = random_u64;
  setup.epoch = epoch;
  setup.owner = node_id_;
  if (r.creator_id) setup.creator = identity.find(*r.creator_id);
  auto room = std::make_shared<Room>(io_, std::move(setup), store_, config_, metrics_, hooks());
  const bool identical = room->restore(loaded, identity, spectators);
  std::shared_ptr<Room> replaced;  // cluster mode: a stalled room loaded again
  {
    std::lock_guard lock(mutex_);
    Entry& entry = rooms_[r.id];
    replaced = std::move(entry.room);
    // Listed at once: a client that lists rooms the moment the server is up sees it.
    entry = Entry{room, room->restored_summary(), room->is_private(), epoch};
    index_->put(r.id, room);
  }
  if (replaced) replaced->shutdown();
  room->resume_after_restore();
  return identical;
}

void Lobby::set_cluster(std::string node_id, ClusterRoomEvents events) {
  node_id_ = std::move(node_id);
  cluster_events_ = std::move(events);
}

bool Lobby::adopt(const LoadedRoom& stored, std::int64_t epoch, Identity& identity,
                  const std::vector<std::string>& spectators) {
  return restore_one(stored, epoch, identity, spectators);
}

std::vector<std::pair<std::string, std::int64_t>> Lobby::held_rooms() const {
  std::vector<std::pair<std::string, std::int64_t>> out;
  std::lock_guard lock(mutex_);
  out.reserve(rooms_.size());
  for (const auto& [id, entry] : rooms_) {
    if (!entry.stalled) out.emplace_back(id, entry.epoch);
  }
  return out;
}

void Lobby::let_go(const std::string& room, const std::string& new_node) {
  if (auto found = find(room)) found->let_go(new_node);
}

std::shared_ptr<Room> Lobby::find(const std::string& id) const { return index_->find(id); }

std::vector<protocol::RoomSummary> Lobby::list_rooms() const {
  std::vector<protocol::RoomSummary> out;
  std::lock_guard lock(mutex_);
  for (const auto& [id, entry] : rooms_) {
    if (!entry.is_private && entry.summary) out.push_back(*entry.summary);
  }
  return out;
}

std::vector<std::shared_ptr<const protocol::RoomSummary>> Lobby::public_summaries() const {
  std::vector<std::shared_ptr<const protocol::RoomSummary>> out;
  std::lock_guard lock(mutex_);
  for (const auto& [id, entry] : rooms_) {
    if (!entry.is_private && entry.summary) out.push_back(entry.summary);
  }
  return out;
}

std::vector<std::pair<std::shared_ptr<const protocol::RoomSummary>, bool>> Lobby::every_summary()
    const {
  std::vector<std::pair<std::shared_ptr<const protocol::RoomSummary>, bool>> out;
  std::lock_guard lock(mutex_);
  for (const auto& [id, entry] : rooms_) {
    if (entry.summary) out.emplace_back(entry.summary, entry.is_private);
  }
  // In the order of their ids, as list_rooms gives them.
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.first->room < b.first->room; });
  return out;
}

std::shared_ptr<const protocol::RoomSummary> Lobby::summary_of(const std::string& id) const {
  std::lock_guard lock(mutex_);
  const auto it = rooms_.find(id);
  return it == rooms_.end() ? nullptr : it->second.summary;
}

std::map<std::string, std::int64_t> Lobby::rooms_by_status() const {
  std::map<std::string, std::int64_t> out{{"waiting", 0}, {"playing", 0}, {"finished", 0}};
  std::lock_guard lock(mutex_);
  for (const auto& [id, entry] : rooms_) {
    if (entry.summary) ++out[std::string(protocol::wire_name(entry.summary->status))];
  }
  return out;
}

void Lobby::start_sweeper() { arm_sweeper(); }

void Lobby::arm_sweeper() {
  sweeper_.expires_after(sweep_interval(config_));
  sweeper_.async_wait([this](boost::system::error_code ec) {
    if (ec || stopped_) return;
    sweep();
    arm_sweeper();
  });
}

void Lobby::sweep() {
  std::vector<std::shared_ptr<Room>> rooms;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, entry] : rooms_) rooms.push_back(entry.room);
  }
  const auto now = Clock::now();
  for (const auto& room : rooms) {
    room->sweep();
  }
  // Replays past their retention leave the store: at start, then hourly (it is one DELETE
  // on the store's writer thread).
  if (store_ && config_.replay_retention.count() > 0 &&
      (!last_prune_ || now - *last_prune_ >= std::chrono::hours(1))) {
    last_prune_ = now;
    const auto cutoff = std::chrono::system_clock::now() - config_.replay_retention;
    store_->prune_ended_rooms(
        std::chrono::duration_cast<std::chrono::milliseconds>(cutoff.time_since_epoch()).count());
  }
}

void Lobby::shutdown() {
  stopped_ = true;
  sweeper_.cancel();
  std::lock_guard lock(mutex_);
  for (const auto& [id, entry] : rooms_) entry.room->shutdown();
}

}  // namespace parlor::server
