#include "server/server_state.h"

#include <set>

#include "games/registry.h"
#include "protocol/encode.h"
#include "protocol/replay.h"
#include "protocol/text.h"
#include "server/log.h"
#include "server/replay.h"
#include "server/room_listing.h"
#include "server/store/postgres_store.h"
#include "server/store/sqlite_store.h"

namespace parlor::server {

using protocol::ErrorCode;

namespace {

// A server shutting down opens no rooms: during its drain its connections are still served,
// but they are about to be closed (1012), and a room opened now would begin by moving to
// another node (or wait for this one's restart). The player reconnects, and asks there: the
// code (shutting_down, not not_allowed) lets a client retry by itself rather than give up.
constexpr const char* kNoNewRooms =
    "the server is shutting down and opens no new rooms; reconnect and try again";

// " from ADDRESS" for a log line about `client`, or nothing when its address is unknown.
std::string from(const ClientContext& client) {
  return client.address.empty() ? std::string() : " from " + client.address;
}

}  // namespace

ServerState::ServerState(boost::asio::io_context& io, ServerConfig config)
    : io_(io), config_(std::move(config)), lobby_(io, config_, metrics_) {
  limits_.max_frame_bytes = config_.max_message_bytes;
}

void ServerState::reply_error(ClientContext& client, const Json& id, ErrorCode code,
                              const std::string& message) {
  metrics_.count_reject(std::string(protocol::wire_name(code)));
  if (log_enabled(LogLevel::kDebug)) {
    const std::string re = id.is_null() ? std::string() : id.dump();
    const std::string player = client.player ? client.player->id() : std::string();
    log_debug("a request" + (re.empty() ? "" : " (re " + re + ")") +
                  (player.empty() ? "" : " of " + player) + " was refused (" +
                  std::string(protocol::wire_name(code)) + "): " + message,
              {.event = "request_refused", .player = player, .re = re});
  }
  client.connection->send(make_frame(protocol::encode_error(id, code, message)));
}

bool ServerState::handle(ClientContext& client, protocol::Request request,
                         Clock::time_point received) {
  const Json& id = request.id;
  if (auto* hello_request = std::get_if<protocol::Hello>(&request.command)) {
    return hello(client, *hello_request, id);
  }
  if (!client.player) {
    reply_error(client, id, ErrorCode::kHelloRequired,
                R"(say hello first: {"type":"hello","name":...,"protocol":1})");
    return true;
  }
  auto caller = [&] { return Caller{client.player, client.connection, id, received}; };
  auto send = [&](std::string_view frame) { client.connection->send(make_frame(frame)); };
  bool done = true;  // false: the request finishes later, through client.finish_later

  std::visit(
      [&](auto& command) {
        using T = std::decay_t<decltype(command)>;
        if constexpr (std::is_same_v<T, protocol::Hello>) {
        } else if constexpr (std::is_same_v<T, protocol::ListGames>) {
          send(protocol::encode_games(id, game_registry()));
        } else if constexpr (std::is_same_v<T, protocol::ListRooms>) {
          list_rooms(client, command, id);
        } else if constexpr (std::is_same_v<T, protocol::SubscribeLobby>) {
          subscribe_lobby(client, command, id);
        } else if constexpr (std::is_same_v<T, protocol::UnsubscribeLobby>) {
          lobby_feed_.unsubscribe(client.connection.get());
          send(protocol::encode_ok(id));
        } else if constexpr (std::is_same_v<T, protocol::QuickPlay>) {
          done = quick_play(client, command, id);
        } else if constexpr (std::is_same_v<T, protocol::CancelQuickPlay>) {
          done = cancel_quick_play(client, id);
        } else if constexpr (std::is_same_v<T, protocol::Rename>) {
          rename(client, command, id);
        } else if constexpr (std::is_same_v<T, protocol::RevokeToken>) {
          revoke_token(client, id);
        } else if constexpr (std::is_same_v<T, protocol::Mute> ||
                             std::is_same_v<T, protocol::Unmute>) {
          set_muted(client, command.player, std::is_same_v<T, protocol::Mute>, id);
        } else if constexpr (std::is_same_v<T, protocol::Ping>) {
          send(protocol::encode_pong(id));
        } else if constexpr (std::is_same_v<T, protocol::CreateRoom>) {
          create_room(client, command, id, received);
        } else if constexpr (std::is_same_v<T, protocol::GetReplay>) {
          run_blocking([this, connection = client.connection, player = client.player,
                        command = command, id = id] {
            ReplayOutcome outcome = replay(command.room, command.seat, command.game, player.get());
            if (auto* refusal = std::get_if<ReplayRefusal>(&outcome)) {
              metrics_.count_reject(std::string(protocol::wire_name(refusal->code)));
              connection->send(
                  make_frame(protocol::encode_error(id, refusal->code, refusal->message)));
              return;
            }
            connection->send(
                make_frame(protocol::encode_replay(id, std::get<protocol::Replay>(outcome))));
          });
        } else {
          auto room = lobby_.find(command.room);
          if (!room && links_ && !client.remote) {
            // Another node's room (or none): its owner answers, through a link.
            done = links_->forward(client, command.room, client.raw, id);
            return;
          }
          if (!room) {
            return reply_error(client, id, ErrorCode::kNoSuchRoom,
                               "no room " + protocol::quote_client_text(command.room, 32));
          }
          if constexpr (std::is_same_v<T, protocol::JoinRoom>) {
            room->join(caller(), command.seat);
          } else if constexpr (std::is_same_v<T, protocol::WatchRoom>) {
            room->watch(caller());
          } else if constexpr (std::is_same_v<T, protocol::LeaveRoom>) {
            room->leave(caller());
          } else if constexpr (std::is_same_v<T, protocol::AddBot>) {
            room->add_bot(caller(), command.seat, std::move(command.strategy));
          } else if constexpr (std::is_same_v<T, protocol::Start>) {
            room->start(caller());
          } else if constexpr (std::is_same_v<T, protocol::Chat>) {
            room->chat(caller(), std::move(command.text));
          } else if constexpr (std::is_same_v<T, protocol::Move>) {
            room->move(caller(), std::move(command.move), command.seq, command.move_text);
          } else if constexpr (std::is_same_v<T, protocol::LegalMoves>) {
            room->legal_moves(caller());
          } else if constexpr (std::is_same_v<T, protocol::RemoveSeat>) {
            room->remove_seat(caller(), command.seat);
          } else if constexpr (std::is_same_v<T, protocol::LockRoom>) {
            room->set_locked(caller(), true);
          } else if constexpr (std::is_same_v<T, protocol::UnlockRoom>) {
            room->set_locked(caller(), false);
          }
        }
      },
      request.command);
  return done;
}

bool ServerState::hello(ClientContext& client, const protocol::Hello& request, const Json& id,
                        bool checked_in_store) {
  if (client.player) {
    reply_error(client, id, ErrorCode::kNotAllowed, "this connection has already said hello");
    return true;
  }
  if (request.protocol != 1) {
    reply_error(client, id, ErrorCode::kUnsupportedProtocol,
                "this server speaks protocol 1, not " + std::to_string(request.protocol));
    return true;
  }
  std::string token;
  std::shared_ptr<Player> player;
  if (request.token) {
    // In a cluster the shared store has the token's current state: every node's revocations,
    // renames and last-seen times.
    if (cluster_store_ && client.finish_later && !checked_in_store) {
      return hello_with_stored_token(client, request, id);
    }
    player = identity_.resume(*request.token);
    // An expired token is refused as an unknown one.
    if (player && token_expired(*player)) player = nullptr;
    if (!player) {
      reply_error(client, id, ErrorCode::kInvalidToken,
                  "unknown or expired token; say hello with a name to start afresh");
      return true;
    }
    if (identity_.banned(player->id())) {
      reply_error(client, id, ErrorCode::kBanned,
                  "an administrator banned this player; its token is refused");
      return true;
    }
    token = *request.token;  // back to its owner only
  } else if (request.name) {
    player = identity_.create(*request.name, token);
    // A count the identities really had: adding one to the gauge could count this player
    // twice, once in a sweep on another I/O thread (player_lifecycle.cpp) that stored the size
    // after create() and before the add.
    metrics_.players.store(static_cast<std::int64_t>(identity_.size()));
    if (store_) {
      // The token is handed out only once the player is stored: a crash right after the
      // welcome must not leave the client holding a token the restarted server never knew.
      client.player = player;
      // A new player's first connection is the first of its hellos (ClusterNode::
      // next_generation): any later hello with its token orders after it.
      if (links_) client.generation = 1;
      player->attach_in_order(client.connection, client.generation);
      save_player_record(
          *player, [connection = client.connection, id, player_id = player->id(), token,
                    dev = config_.dev, node = welcome_node()](WriteResult result) {
            connection->send(make_frame(
                result == WriteResult::kDurable
                    ? protocol::encode_welcome(id, player_id, token, 1, dev, node)
                    : protocol::encode_error(id, ErrorCode::kInternalError,
                                             "your identity could not be stored; try again")));
          });
      log_info("player " + player->id() + " joined" + from(client));
      if (links_ && !client.remote) links_->said_hello(client, /*resumed=*/false);
      return true;
    }
  } else {
    reply_error(client, id, ErrorCode::kBadRequest, R"(hello needs a "name" or a "token")");
    return true;
  }
  if (!request.token && links_) client.generation = 1;
  auto attached = player->attach_in_order(client.connection, client.generation);
  if (!attached.attached) {
    // Cluster mode: a later hello of the player (on another node) reached this node first;
    // this connection is the older one, as if that hello had replaced it.
    log_info("player " + player->id() + ": a hello older than its live connection" + from(client));
    client.connection->close(4000, "replaced by a newer connection of the same player");
    return true;
  }
  client.player = player;
  if (attached.previous && attached.previous != client.connection) {
    attached.previous->close(4000, "replaced by a newer connection of the same player");
  }
  client.connection->send(make_frame(
      protocol::encode_welcome(id, player->id(), token, 1, config_.dev, welcome_node())));
  log_info("player " + player->id() + (request.token ? " resumed" : " joined") + from(client));
  if (!client.remote) store_last_seen(*player);
  for (const std::string& room_id : player->rooms()) {
    if (auto room = lobby_.find(room_id)) room->resume(player);
  }
  // Cluster mode: the player's rooms on other nodes push themselves here too.
  if (links_ && !client.remote) links_->said_hello(client, request.token.has_value());
  return true;
}

void ServerState::set_muted(ClientContext& client, const std::string& player_id, bool muted,
                            const Json& id) {
  if (player_id == client.player->id()) {
    return reply_error(client, id, ErrorCode::kNotAllowed, "you cannot mute yourself");
  }
  if (!identity_.find(player_id)) {
    return reply_error(client, id, ErrorCode::kNoSuchPlayer,
                       "no player " + protocol::quote_client_text(player_id, 32));
  }
  // Muting twice (or unmuting someone not muted) is answered ok: the result is as asked.
  if (muted) {
    client.player->mute(player_id);
  } else {
    client.player->unmute(player_id);
  }
  client.connection->send(make_frame(protocol::encode_ok(id)));
}

bool ServerState::hello_with_stored_token(ClientContext& client, const protocol::Hello& request,
                                          const Json& id) {
  // `finish` is copied now: the session (and `client` in it) may be gone by the time the
  // lookup ends; finish runs the rest only while the session lives, on its strand.
  run_blocking([this, finish = client.finish_later, client = &client, request, id,
                hash = Identity::hash_token(*request.token)] {
    std::optional<PlayerRecord> found;
    bool failed = false;
    try {
      found = cluster_store_->find_player(hash);
    } catch (const StoreError& error) {
      failed = true;
      log_error(std::string("cluster: cannot look a token up: ") + error.what());
    }
    // Ordered among the player's hellos on every node before any request of this connection
    // can reach a room elsewhere.
    std::uint64_t generation = 0;
    if (found && cluster_) generation = cluster_->next_generation(found->id);
    // Back on the client's strand; `client` lives as long as its session, which runs this.
    finish([this, client, request, id, found, failed, generation] {
      if (found) {
        if (auto known = identity_.find(found->id)) {
          identity_.refresh(known, found->token_hash, found->name, found->last_seen_ms);
        } else {
          identity_.restore(std::make_shared<Player>(found->id, found->name, found->token_hash,
                                                     found->created_ms, found->last_seen_ms));
        }
        client->generation = generation;
        hello(*client, request, id, /*checked_in_store=*/true);
        return;
      }
      reply_error(*client, id, failed ? ErrorCode::kInternalError : ErrorCode::kInvalidToken,
                  failed ? "your token could not be checked now; try again shortly"
                         : "unknown or expired token; say hello with a name to start afresh");
    });
  });
  return false;
}

void ServerState::create_room(ClientContext& client, const protocol::CreateRoom& request,
                              const Json& id, Clock::time_point received) {
  if (shutting_down()) return reply_error(client, id, ErrorCode::kShuttingDown, kNoNewRooms);
  if (client.player->open_rooms_created() >= config_.max_rooms_per_player) {
    return reply_error(client, id, ErrorCode::kTooManyRooms,
                       "you already have " + std::to_string(config_.max_rooms_per_player) +
                           " unfinished rooms; finish or leave one first");
  }
  Lobby::Refusal refusal;
  auto room = lobby_.create_room(client.player, request, refusal);
  if (!room) return reply_error(client, id, refusal.code, refusal.message);
  log_info("room " + room->id() + " created by " + client.player->id());
  room->join(Caller{client.player, client.connection, id, received}, 0, /*creating=*/true);
}

bool ServerState::quick_play(ClientContext& client, const protocol::QuickPlay& request,
                             const Json& id) {
  if (shutting_down()) {
    reply_error(client, id, ErrorCode::kShuttingDown, kNoNewRooms);
    return true;
  }
  if (cluster_quick_play_ && client.finish_later) return cluster_quick_play(client, request, id);
  // Unrated play needs no rating; rated play without a store is refused by the enqueue.
  if (!request.rated || !store_) {
    if (auto refusal = quick_play_.enqueue(client.player, request, id)) {
      reply_error(client, id, refusal->code, refusal->message);
    }
    return true;
  }
  // The player's rating of the game, or nullopt when the store cannot be read.
  const auto read_rating = [this](const std::string& player_id, const std::string& kind) {
    try {
      return std::optional<double>(QuickPlay::stored_rating(*store_, player_id, kind));
    } catch (const StoreError& error) {
      log_error(std::string("quick play: cannot read a rating: ") + error.what());
      return std::optional<double>();
    }
  };
  const auto enqueue = [this](ClientContext& asking, const protocol::QuickPlay& wanted,
                              const Json& re, std::optional<double> rating) {
    if (!rating) {
      return reply_error(asking, re, ErrorCode::kInternalError,
                         "your rating could not be read now; try again shortly");
    }
    if (auto refusal = quick_play_.enqueue(asking.player, wanted, re, *rating)) {
      reply_error(asking, re, refusal->code, refusal->message);
    }
  };
  // A client without a session here (another node's) never asks for quick play, which is not
  // forwarded; were it to, its rating is read in place.
  if (!client.finish_later) {
    enqueue(client, request, id, read_rating(client.player->id(), request.kind));
    return true;
  }
  // `finish` is copied now: the session (and `client` in it) may be gone by the time the read
  // ends; finish runs the rest only while the session lives, on its strand.
  run_blocking([finish = client.finish_later, client = &client, request, id, read_rating, enqueue,
                player_id = client.player->id()] {
    const std::optional<double> rating = read_rating(player_id, request.kind);
    finish([client, request, id, rating, enqueue] {
      if (!client->connection) return;  // it closed meanwhile: nobody to seat
      enqueue(*client, request, id, rating);
    });
  });
  return false;
}

bool ServerState::cluster_quick_play(ClientContext& client, const protocol::QuickPlay& request,
                                     const Json& id) {
  Matchmaker::Wish wish;
  if (auto refusal = quick_play_.check(client.player, request, wish)) {
    reply_error(client, id, refusal->code, refusal->message);
    return true;
  }
  if (cluster_quick_play_->waiting_here(client.player->id())) {
    reply_error(client, id, ErrorCode::kAlreadyQueued,
                "you are already waiting for a table; cancel_quick_play first");
    return true;
  }
  // The rating (rated play) and the queue are read and written off the I/O threads; the
  // answer is sent on the session's strand, if it still lives.
  run_blocking([this, finish = client.finish_later, client = &client, wish = std::move(wish), id,
                player = client.player, generation = client.generation] {
    std::optional<double> rating = ratings::kInitialRating;
    if (wish.rated && store_) {
      try {
        rating = QuickPlay::stored_rating(*store_, player->id(), wish.game->kind);
      } catch (const StoreError& error) {
        log_error(std::string("quick play: cannot read a rating: ") + error.what());
        rating.reset();
      }
    }
    std::variant<Json, QuickPlay::Refusal> outcome = QuickPlay::Refusal{
        ErrorCode::kInternalError, "your rating could not be read now; try again shortly"};
    // A seat at an unfinished table of another node (quick_play seated it there, say): the
    // check on the strand saw only this node's rooms.
    if (const auto room = remote_seat_of(player->id())) {
      outcome = QuickPlay::Refusal{ErrorCode::kAlreadySeated,
                                   "you sit at an unfinished table (room " + *room +
                                       "); finish or leave it before quick play"};
    } else if (rating) {
      try {
        outcome = cluster_quick_play_->enqueue(player, generation, wish, *rating);
      } catch (const RedisError& error) {
        log_error(std::string("quick play: cannot queue ") + player->id() +
                  " in Redis: " + error.what());
        outcome = QuickPlay::Refusal{
            ErrorCode::kInternalError,
            "the cluster's quick-play queue cannot be reached now; try again shortly"};
      }
    }
    finish([this, client, id, outcome = std::move(outcome), player, generation] {
      if (!client->connection) {
        // It closed meanwhile: nobody to seat.
        try {
          cluster_quick_play_->cancel(player->id(), generation);
        } catch (const RedisError& error) {
          log_error(std::string("quick play: cannot take ") + player->id() +
                    " out of the queue in Redis: " + error.what());
        }
        return;
      }
      if (const auto* refusal = std::get_if<QuickPlay::Refusal>(&outcome)) {
        return reply_error(*client, id, refusal->code, refusal->message);
      }
      Json message = std::get<Json>(outcome);
      protocol::attach_re(message, id);
      client->connection->send(make_frame(protocol::to_wire(message)));
    });
  });
  return false;
}

std::optional<std::string> ServerState::remote_seat_of(const std::string& player) {
  for (const Json& room : cluster_->remote_rooms()) {
    if (room.value("status", "") == "finished" || !room.contains("seats")) continue;
    for (const Json& seat : room["seats"]) {
      if (seat.is_object() && !seat.value("bot", false) && seat.value("player", "") == player) {
        return room.value("room", "");
      }
    }
  }
  return std::nullopt;
}

bool ServerState::cancel_quick_play(ClientContext& client, const Json& id) {
  if (!cluster_quick_play_ || !client.finish_later) {
    if (quick_play_.cancel(*client.player)) {
      client.connection->send(make_frame(protocol::encode_ok(id)));
    } else {
      reply_error(client, id, ErrorCode::kNotQueued, "you are not waiting for a table");
    }
    return true;
  }
  if (!cluster_quick_play_->waiting_here(client.player->id())) {
    reply_error(client, id, ErrorCode::kNotQueued, "you are not waiting for a table");
    return true;
  }
  run_blocking([this, finish = client.finish_later, client = &client, id,
                player = client.player->id(), generation = client.generation] {
    std::optional<ErrorCode> refused;
    try {
      if (!cluster_quick_play_->cancel(player, generation)) refused = ErrorCode::kNotQueued;
    } catch (const RedisError& error) {
      log_error(std::string("quick play: cannot take ") + player +
                " out of the queue in Redis: " + error.what());
      refused = ErrorCode::kInternalError;
    }
    finish([this, client, id, refused] {
      if (!client->connection) return;
      if (!refused) return client->connection->send(make_frame(protocol::encode_ok(id)));
      reply_error(*client, id, *refused,
                  *refused == ErrorCode::kNotQueued
                      ? "you are not waiting for a table (a table was found for you)"
                      : "the cluster's quick-play queue cannot be reached now; try again "
                        "shortly");
    });
  });
  return false;
}

bool ServerState::known_kind(ClientContext& client, const std::optional<std::string>& kind,
                             const Json& id) {
  if (!kind || find_game(*kind)) return true;
  reply_error(
      client, id, ErrorCode::kUnknownGame,
      "no game of kind " + protocol::quote_client_text(*kind, 32) + "; list_games names them");
  return false;
}

void ServerState::list_rooms(ClientContext& client, const protocol::ListRooms& query,
                             const Json& id) {
  if (!known_kind(client, query.kind, id)) return;
  auto answer = [this, connection = client.connection, query, id] {
    Json message = rooms_page(public_room_summaries(), query);
    protocol::attach_re(message, id);
    connection->send(make_frame(protocol::to_wire(message)));
  };
  // In a cluster, other nodes' rooms are read from Redis: off the I/O threads.
  if (cluster_) return run_blocking(std::move(answer));
  answer();
}

void ServerState::subscribe_lobby(ClientContext& client, const protocol::SubscribeLobby& request,
                                  const Json& id) {
  if (!known_kind(client, request.kind, id)) return;
  auto subscribe = [this, connection = client.connection, kind = request.kind, id] {
    lobby_feed_.subscribe(connection, kind, id, public_rooms());
  };
  if (cluster_) return run_blocking(std::move(subscribe));
  subscribe();
}

LobbyFeed::Rooms ServerState::public_rooms() {
  LobbyFeed::Rooms rooms;
  rooms.local = lobby_.public_summaries();
  if (cluster_) rooms.remote = cluster_->remote_rooms();
  return rooms;
}

std::vector<Json> ServerState::public_room_summaries() {
  std::vector<Json> rooms;
  std::set<std::string> listed;
  for (const auto& summary : lobby_.public_summaries()) {
    listed.insert(summary->room);
    rooms.push_back(protocol::room_summary_json(*summary));
  }
  if (!cluster_) return rooms;
  // A room that moved here a moment ago may still be in its old node's list: listed once.
  for (Json& room : cluster_->remote_rooms()) {
    if (listed.insert(room.value("room", "")).second) rooms.push_back(std::move(room));
  }
  return rooms;
}

Json ServerState::cluster_rooms() { return rooms_page(public_room_summaries(), {}); }

void ServerState::start_lobby_feed() { arm_lobby_feed(); }

// The timer is not cancelled from here (it may be re-armed on an I/O thread at this moment):
// the flag stops it at its next tick, and stopping the io_context ends the wait.
void ServerState::stop_lobby_feed() { lobby_feed_stopped_ = true; }

void ServerState::arm_lobby_feed() {
  lobby_feed_timer_.expires_after(LobbyFeed::kPushInterval);
  lobby_feed_timer_.async_wait([this](boost::system::error_code ec) {
    if (ec || lobby_feed_stopped_) return;
    quick_play_.tick();
    if (lobby_feed_.has_subscribers()) {
      if (!cluster_) {
        lobby_feed_.publish(public_rooms());
      } else if (!lobby_feed_busy_.exchange(true)) {
        // Other nodes' rooms come from Redis: off the I/O threads, one publish at a time.
        run_blocking([this] {
          lobby_feed_.publish(public_rooms());
          lobby_feed_busy_ = false;
        });
      }
    }
    arm_lobby_feed();
  });
}

void ServerState::disconnected(ClientContext& client) {
  if (client.connection) lobby_feed_.unsubscribe(client.connection.get());
  if (links_ && !client.remote && client.connection) links_->gone(*client.connection);
  if (!client.player) return;
  // This connection's ticket (only its own: the generation says) leaves the cluster's queue,
  // even when a newer connection of the player took over.
  if (cluster_quick_play_ && !client.remote &&
      cluster_quick_play_->waiting_here(client.player->id())) {
    run_blocking([this, player = client.player->id(), generation = client.generation] {
      try {
        cluster_quick_play_->cancel(player, generation);
      } catch (const RedisError& error) {
        // Its ticket expires unrenewed within three leases.
        log_error(std::string("quick play: cannot take ") + player +
                  " out of the queue in Redis: " + error.what());
      }
    });
  }
  if (!client.player->detach(client.connection.get())) return;  // a newer connection took over
  // Its token's idle period counts from now (another node's client: that node keeps count).
  if (!client.remote) store_last_seen(*client.player);
  // Nobody to seat any more: a table is not opened for a player who has gone.
  quick_play_.cancel(*client.player);
  for (const std::string& room_id : client.player->rooms()) {
    if (auto room = lobby_.find(room_id)) room->connection_changed(client.player);
  }
}

void ServerState::open_store() {
  std::string where;
  if (config_.store == "sqlite") {
    SqliteStoreOptions options;
    options.data_dir = config_.data_dir;
    options.synchronous = config_.store_sync == ServerConfig::StoreSync::kNormal
                              ? SqliteStoreOptions::Synchronous::kNormal
                              : SqliteStoreOptions::Synchronous::kFull;
    options.batch_window = config_.store_batch_window;
    options.log_error = [](std::string_view message) { log_error(message); };
    options.log_info = [](std::string_view message) { log_warn(message); };
    store_ = std::make_unique<SqliteStore>(std::move(options));
    where = config_.data_dir;
  } else if (is_postgres_url(config_.store)) {
    // Durability is the database server's (synchronous_commit); --store-sync is SQLite's.
    PostgresStoreOptions options;
    options.url = config_.store;
    options.batch_window = config_.store_batch_window;
    options.exclusive = config_.cluster.empty();
    options.log_error = [](std::string_view message) { log_error(message); };
    auto postgres = std::make_unique<PostgresStore>(std::move(options));
    where = postgres->target();
    store_ = std::move(postgres);
  } else {
    return;
  }
  if (!config_.cluster.empty()) {
    // A node loads no room at start: each belongs to a node, and the rooms of nodes that are
    // gone (this one's previous run included) are taken over by the cluster's passes.
    // Players are looked up when they resume.
    lobby_.set_store(store_.get());
    log_info("store " + where + ": shared by the cluster's nodes");
    return;
  }
  const LoadedState stored = store_->load();
  for (const PlayerRecord& p : stored.players) {
    identity_.restore(
        std::make_shared<Player>(p.id, p.name, p.token_hash, p.created_ms, p.last_seen_ms));
  }
  lobby_.set_store(store_.get());
  const int frozen = lobby_.restore(stored, identity_);
  log_info("store " + where + ": " + std::to_string(stored.players.size()) + " players, " +
           std::to_string(stored.rooms.size()) + " unfinished rooms recovered" +
           (frozen ? ", " + std::to_string(frozen) + " frozen" : ""));
}

void ServerState::start_cluster(const std::string& advertise) {
  ClusterOptions options;
  options.redis_url = config_.cluster;
  options.self.advertise = config_.advertise.empty() ? advertise : config_.advertise;
  options.self.id = config_.node_id.empty() ? options.self.advertise : config_.node_id;
  options.lease = config_.lease;
  cluster_store_ = std::make_unique<PostgresCluster>(config_.store, std::chrono::seconds(10));
  options.adopted = [this](const std::string& room, std::vector<std::string> players) {
    if (links_) links_->invite(room, std::move(players));
  };
  cluster_ = std::make_unique<ClusterNode>(std::move(options), io_, *cluster_store_, lobby_,
                                           identity_, metrics_);
  links_ = std::make_unique<ClusterLinks>(
      io_, *this, *cluster_, cluster_store_->link_secret(random_hex(32)), config_.lease);
  lobby_.set_cluster(
      cluster_->self().id,
      ClusterRoomEvents{[this](const std::string& room) { cluster_->room_created(room); },
                        [this](const std::string& room, const std::string& player, bool watching) {
                          cluster_->watcher_changed(room, player, watching);
                        }});
  cluster_->start();
  ClusterQuickPlayOptions quick;
  quick.redis = parse_redis_url(config_.cluster);
  quick.self = cluster_->self();
  quick.lease = config_.lease;
  quick.bots_after = config_.quick_play_bots_after;
  quick.band =
      Matchmaker::RatingBand{config_.quick_play_rating_band, config_.quick_play_rating_band_growth,
                             config_.quick_play_rating_band_max};
  cluster_quick_play_ = std::make_unique<ClusterQuickPlay>(std::move(quick), *this, quick_play_);
  cluster_quick_play_->start();
}

void ServerState::stop_links() {
  if (links_) links_->shutdown();
}

void ServerState::stop_cluster() {
  if (cluster_quick_play_) cluster_quick_play_->stop();
  if (cluster_) cluster_->stop(/*leave=*/true);
}

void ServerState::close_store() {
  if (auto* sqlite = dynamic_cast<SqliteStore*>(store_.get())) sqlite->close();
  if (auto* postgres = dynamic_cast<PostgresStore*>(store_.get())) postgres->close();
}

ReplayOutcome ServerState::replay(const std::string& room, std::optional<int> seat,
                                  std::optional<int> game, const Player* requester) {
  if (!store_) {
    return ReplayRefusal{ErrorCode::kNotAllowed,
                         "replays need a durable store (--store sqlite or postgres://...)"};
  }
  auto history = store_->load_room(room);
  if (!history) {
    return ReplayRefusal{ErrorCode::kNoSuchRoom,
                         "no room " + protocol::quote_client_text(room, 32) + " is kept"};
  }
  const GameRecord* record = find_replay_game(*history, game);
  if (!record) {
    return ReplayRefusal{ErrorCode::kNotStarted,
                         game ? "room " + room + " has no game " + std::to_string(*game)
                              : "room " + room + " has not started a game"};
  }
  if (seat && *seat >= history->room.seats) {
    return ReplayRefusal{ErrorCode::kBadRequest,
                         "seat must be between 0 and " + std::to_string(history->room.seats - 1)};
  }
  // Until the game ends a seat's view is private to whoever sits there.
  if (!record->finished_ms && seat) {
    const auto& occupant = history->room.occupants[static_cast<std::size_t>(*seat)];
    const bool own = requester && occupant && occupant->player_id == requester->id();
    if (!own) {
      return ReplayRefusal{ErrorCode::kNotAllowed,
                           "while the game is on you may replay only your own seat (or omit seat)"};
    }
  }
  return build_replay(*history, *record, seat);
}

void ServerState::set_drain_handler(std::function<void()> handler) {
  std::lock_guard lock(drain_mutex_);
  drain_handler_ = std::move(handler);
}

bool ServerState::request_drain() {
  std::function<void()> handler;
  {
    std::lock_guard lock(drain_mutex_);
    handler = drain_handler_;
  }
  if (!handler) return false;
  handler();
  return true;
}

void ServerState::register_connection(const std::shared_ptr<Connection>& connection) {
  std::lock_guard lock(connections_mutex_);
  connections_[connection.get()] = connection;
}

void ServerState::unregister_connection(const Connection* connection) {
  std::lock_guard lock(connections_mutex_);
  connections_.erase(connection);
}

void ServerState::close_all(std::uint16_t code, const std::string& reason) {
  std::vector<std::shared_ptr<Connection>> live;
  {
    std::lock_guard lock(connections_mutex_);
    for (const auto& [ptr, weak] : connections_) {
      if (auto c = weak.lock()) live.push_back(std::move(c));
    }
  }
  for (const auto& c : live) c->close(code, reason);
}

}  // namespace parlor::server
