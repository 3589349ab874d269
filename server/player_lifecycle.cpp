// Players over time: rename, revoke_token, the last-seen time that makes a token expire, and
// the sweep that forgets idle players (docs/OPERATIONS.md, "Player retention").
#include <algorithm>

#include "protocol/encode.h"
#include "server/cluster/cluster_links.h"
#include "server/log.h"
#include "server/server_state.h"

namespace parlor::server {

using protocol::ErrorCode;

namespace {

// The sweep runs often enough that a player is forgotten within a quarter of the idle period
// past its expiry, and at most hourly (the store's part is one indexed DELETE).
std::chrono::milliseconds player_sweep_interval(std::chrono::seconds token_idle) {
  return std::clamp<std::chrono::milliseconds>(token_idle / 4, std::chrono::milliseconds(250),
                                               std::chrono::hours(1));
}

}  // namespace

PlayerRecord player_record(const Player& player) {
  return PlayerRecord{player.id(), player.name(), player.token_hash(), player.created_ms(),
                      player.last_seen_ms()};
}

std::int64_t ServerState::token_idle_ms() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(config_.token_idle).count();
}

bool ServerState::token_expired(const Player& player) const {
  return player.idle_past(unix_now_ms(), token_idle_ms());
}

void ServerState::save_player_record(const Player& player, DurableCallback on_durable) {
  if (!store_) return;
  std::lock_guard lock(player_writes_mutex_);
  store_->save_player(player_record(player), std::move(on_durable));
}

void ServerState::store_last_seen(const Player& player) {
  // Nobody waits for it: a last-seen time lost in a crash makes the token last a little less.
  save_player_record(player, nullptr);
}

void ServerState::rename(ClientContext& client, const protocol::Rename& request, const Json& id) {
  const std::shared_ptr<Player>& player = client.player;
  const std::string previous = player->name();
  player->set_name(request.name);
  // The rooms show the new name once it is stored, with the `ok`: never before.
  auto renamed = [this, player, connection = client.connection, id] {
    for (const std::string& room_id : player->rooms()) {
      if (auto room = lobby_.find(room_id)) room->renamed(player);
    }
    // Cluster mode: the player's rooms on other nodes, and those nodes' memory of the
    // player, take the name now rather than at the player's next request there.
    if (links_) links_->renamed(*player);
    connection->send(make_frame(protocol::encode_ok(id)));
  };
  if (!store_) return renamed();
  save_player_record(
      *player, [player, previous, wanted = request.name, connection = client.connection, id,
                renamed = std::move(renamed)](WriteResult result) {
        if (result == WriteResult::kDurable) return renamed();
        // Not stored: the old name stays, unless another rename came meanwhile.
        if (player->name() == wanted) player->set_name(previous);
        connection->send(make_frame(protocol::encode_error(
            id, ErrorCode::kInternalError, "your new name could not be stored; try again")));
      });
}

void ServerState::revoke_token(ClientContext& client, const Json& id) {
  const std::shared_ptr<Player>& player = client.player;
  // The old token stops working now, before the store has the new one: a revocation that
  // fails to be stored leaves neither token usable in memory (the client is told to retry
  // on this connection), never the old one alive.
  std::string token;
  identity_.replace_token(player, token);
  log_info("player " + player->id() + " revoked its token",
           {.event = "token_revoked", .player = player->id()});
  auto answer = [connection = client.connection, id, player_id = player->id(),
                 token](WriteResult result) {
    if (result != WriteResult::kDurable) {
      connection->send(make_frame(protocol::encode_error(
          id, ErrorCode::kInternalError,
          "your new token could not be stored; the old one no longer works: revoke_token again")));
      return;
    }
    Json reply = {{"type", "token"}, {"player", player_id}, {"token", token}};
    protocol::attach_re(reply, id);
    connection->send(make_frame(protocol::to_wire(reply)));
  };
  if (!store_) return answer(WriteResult::kDurable);
  save_player_record(*player, std::move(answer));
}

void ServerState::start_player_sweeper() {
  metrics_.players.store(static_cast<std::int64_t>(identity_.size()));
  if (config_.token_idle.count() > 0) arm_player_sweeper();
}

// As the lobby feed's timer: the flag stops it at its next tick.
void ServerState::stop_player_sweeper() { player_sweeper_stopped_ = true; }

void ServerState::arm_player_sweeper() {
  player_sweep_timer_.expires_after(player_sweep_interval(config_.token_idle));
  player_sweep_timer_.async_wait([this](boost::system::error_code ec) {
    if (ec || player_sweeper_stopped_) return;
    sweep_players();
    arm_player_sweeper();
  });
}

void ServerState::sweep_players() {
  const std::int64_t now_ms = unix_now_ms();
  const std::int64_t idle_ms = token_idle_ms();
  const std::size_t evicted = identity_.evict_idle(now_ms, idle_ms);
  metrics_.players.store(static_cast<std::int64_t>(identity_.size()));
  if (evicted > 0) {
    log_info(std::to_string(evicted) + " idle players forgotten", {.event = "players_forgotten"});
  }
  if (!store_) return;
  // The store's prune goes by the stored last-seen time, which a connection that stays open
  // does not move: it is written again once half the idle period old, before the prune
  // (both on the store's one queue, in this order), so a connected player is never taken.
  for (const auto& player : identity_.connected_players()) {
    if (now_ms - player->last_seen_ms() > idle_ms / 2) {
      player->touch(now_ms);
      store_last_seen(*player);
    }
  }
  store_->prune_idle_players(now_ms - idle_ms);
}

}  // namespace parlor::server
