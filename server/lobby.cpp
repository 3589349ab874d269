#include "server/lobby.h"

#include <algorithm>
#include <tuple>

#include "games/registry.h"
#include "server/config.h"
#include "server/identity.h"
#include "server/log.h"

namespace parlor::server {
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
  const GameInfo* info = find_game(request.kind);
  if (!info) {
    refusal = {"unknown_game",
               "no game of kind \"" + request.kind.substr(0, 32) + "\"; list_games names them"};
    return nullptr;
  }
  // Room options ride along with the game's options; split them off first.
  Json game_options = request.options;
  RoomSetup setup;
  if (auto it = game_options.find("seed"); it != game_options.end()) {
    if (!config_.dev) {
      refusal = {"bad_options",
                 "the \"seed\" option is only accepted by a server started with --dev"};
      return nullptr;
    }
    if (!it->is_number_unsigned()) {
      refusal = {"bad_options", "option \"seed\" must be a non-negative integer"};
      return nullptr;
    }
    setup.fixed_seed = it->get<std::uint64_t>();
    game_options.erase(it);
  }
  if (auto it = game_options.find("private"); it != game_options.end()) {
    if (!it->is_boolean()) {
      refusal = {"bad_options", "option \"private\" must be true or false"};
      return nullptr;
    }
    setup.is_private = it->get<bool>();
    game_options.erase(it);
  }
  // Room options in seconds: grace (a disconnected player's seat goes to a bot after it)
  // and turn_seconds (the turn clock; 0 is off).
  for (const auto& [name, member, max] : {std::tuple{"grace", &RoomSetup::grace, 86'400},
                                          {"turn_seconds", &RoomSetup::turn_seconds, 3600}}) {
    auto it = game_options.find(name);
    if (it == game_options.end()) continue;
    if (!it->is_number_integer() || it->get<std::int64_t>() < 0 || it->get<std::int64_t>() > max) {
      refusal = {"bad_options", std::string("option \"") + name +
                                    "\" must be an integer from 0 to " + std::to_string(max) +
                                    " (seconds)"};
      return nullptr;
    }
    setup.*member = std::chrono::seconds(it->get<std::int64_t>());
    game_options.erase(it);
  }
  if (auto it = game_options.find("on_timeout"); it != game_options.end()) {
    if (!it->is_string() || (*it != "bot" && *it != "pass")) {
      refusal = {"bad_options", "option \"on_timeout\" must be \"bot\" or \"pass\""};
      return nullptr;
    }
    setup.on_timeout = it->get<std::string>();
    game_options.erase(it);
  }
  const int seats = request.seats.value_or(info->default_seats);
  if (seats < info->min_seats || seats > info->max_seats) {
    refusal = {"bad_options", info->name + " is played by " + std::to_string(info->min_seats) +
                                  " to " + std::to_string(info->max_seats) + " players"};
    return nullptr;
  }
  std::string error;
  auto normalized = normalize_options(info->options, game_options, error);
  if (!normalized) {
    refusal = {"bad_options", error};
    return nullptr;
  }
  setup.game = info;
  setup.store = store_;
  setup.seats = seats;
  setup.game_options = std::move(*normalized);
  setup.creator = creator;

  std::lock_guard lock(mutex_);
  if (rooms_.size() >= config_.max_rooms) {
    refusal = {"too_many_rooms", "this server holds its maximum number of rooms; try later"};
    return nullptr;
  }
  do {
    setup.id = random_hex(5);
  } while (rooms_.contains(setup.id));
  const std::string id = setup.id;
  const bool is_private = setup.is_private;
  auto room = std::make_shared<Room>(io_, std::move(setup), config_, metrics_, hooks());
  rooms_[id] = Entry{room, nullptr, is_private};
  creator->change_open_rooms_created(+1);
  return room;
}

RoomHooks Lobby::hooks() {
  return RoomHooks{
      [this](const std::string& room, std::shared_ptr<const protocol::RoomSummary> summary) {
        std::lock_guard inner(mutex_);
        if (auto it = rooms_.find(room); it != rooms_.end())
          it->second.summary = std::move(summary);
      },
      [](const std::shared_ptr<Player>& player, int delta) {
        player->change_open_rooms_created(delta);
      }};
}

int Lobby::restore(const LoadedState& stored, Identity& identity) {
  int frozen = 0;
  for (const LoadedRoom& loaded : stored.rooms) {
    const RoomRecord& r = loaded.room;
    const GameInfo* info = find_game(r.kind);
    if (!info) {
      log_error("stored room " + r.id + " is of unknown game \"" + r.kind + "\"; skipped");
      continue;
    }
    RoomSetup setup;
    setup.id = r.id;
    setup.store = store_;
    setup.game = info;
    setup.seats = r.seats;
    setup.game_options = r.game_options;
    const Json& o = r.room_options;
    setup.is_private = o.value("private", false);
    setup.grace = std::chrono::seconds(o.value("grace", 60));
    setup.turn_seconds = std::chrono::seconds(o.value("turn_seconds", 0));
    setup.on_timeout = o.value("on_timeout", std::string("bot"));
    if (o.contains("seed")) setup.fixed_seed = o["seed"].get<std::uint64_t>();
    if (r.creator_id) setup.creator = identity.find(*r.creator_id);
    auto room = std::make_shared<Room>(io_, std::move(setup), config_, metrics_, hooks());
    if (!room->restore(loaded, identity)) ++frozen;
    {
      std::lock_guard lock(mutex_);
      rooms_[r.id] = Entry{room, nullptr, room->is_private()};
    }
    room->resume_after_restore();
  }
  return frozen;
}

std::shared_ptr<Room> Lobby::find(const std::string& id) const {
  std::lock_guard lock(mutex_);
  auto it = rooms_.find(id);
  return it == rooms_.end() ? nullptr : it->second.room;
}

std::vector<protocol::RoomSummary> Lobby::list_rooms() const {
  std::vector<protocol::RoomSummary> out;
  std::lock_guard lock(mutex_);
  for (const auto& [id, entry] : rooms_) {
    if (!entry.is_private && entry.summary) out.push_back(*entry.summary);
  }
  return out;
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
    room->sweep(now, [this](const std::string& id) {
      std::lock_guard lock(mutex_);
      rooms_.erase(id);
    });
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
