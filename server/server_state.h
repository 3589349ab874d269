// What every connection shares: configuration, metrics, identities and the lobby,
// plus the dispatch of decoded requests (lobby requests here; room requests are
// posted to the room's strand). Like Beast's chat example `shared_state`.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>

#include <boost/asio/post.hpp>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "protocol/commands.h"
#include "protocol/limits.h"
#include "server/cluster/cluster_links.h"
#include "server/cluster/cluster_node.h"
#include "server/cluster/cluster_quick_play.h"
#include "server/config.h"
#include "server/identity.h"
#include "server/keepalive_wheel.h"
#include "server/lobby.h"
#include "server/lobby_feed.h"
#include "server/metrics.h"
#include "server/quick_play.h"
#include "server/replay.h"
#include "server/store/postgres_cluster.h"
#include "server/store/store.h"

namespace parlor::server {

// Per-connection state the dispatcher reads and writes; lives in the session, used only on
// the session's strand.
struct ClientContext {
  std::shared_ptr<Connection> connection;
  std::shared_ptr<Player> player;  // set by a successful hello
  // Runs `work` on the session's strand and then reads the next request: how a request that
  // waits on blocking work (a store read) finishes without anything else of this client's
  // being handled meanwhile. Set by the session.
  std::function<void(std::function<void()>)> finish_later;
  // The request being handled, as it arrived (valid during handle() only): cluster mode
  // forwards it to the room's node unchanged.
  std::string_view raw;
  // A client of another node, whose requests that node forwarded here: never forwarded on.
  bool remote = false;
  // Cluster mode: the order of this connection's hello among the player's hellos on every
  // node (ClusterNode::next_generation; link::PlayerRef). 0 outside a cluster.
  std::uint64_t generation = 0;
  // The client's address for log lines: its TCP peer's, or through a trusted proxy the one
  // the proxy forwarded (--trusted-proxy). Empty for a client of another node.
  std::string address;
};

// The record the store keeps of `player` now.
PlayerRecord player_record(const Player& player);

class ServerState {
 public:
  ServerState(boost::asio::io_context& io, ServerConfig config);

  const ServerConfig& config() const { return config_; }
  const protocol::Limits& limits() const { return limits_; }
  Metrics& metrics() { return metrics_; }
  Lobby& lobby() { return lobby_; }
  Identity& identity() { return identity_; }

  // Handles one decoded request from `client` (called on the client's strand). Returns false
  // when the request finishes later (through client.finish_later), which reads on.
  bool handle(ClientContext& client, protocol::Request request, Clock::time_point received);
  // The client's connection closed.
  void disconnected(ClientContext& client);

  // Live WebSocket connections, for graceful shutdown.
  void register_connection(const std::shared_ptr<Connection>& connection);
  void unregister_connection(const Connection* connection);
  void close_all(std::uint16_t code, const std::string& reason);
  // Every connection's keep-alive checks, on one timer; stopped with the server.
  KeepaliveWheel& keepalive() { return keepalive_; }

  // Opens the store of config().store and rebuilds the players and rooms it holds.
  // Throws StoreError with a message naming the file when it cannot.
  void open_store();
  void close_store();

  // Cluster mode (config().cluster set): joins the cluster as a node reached at `advertise`
  // (host:port); after open_store(), before connections are served. Throws RedisError or
  // StoreError naming what could not be reached.
  void start_cluster(const std::string& advertise);
  // Closes the links to other nodes (before the I/O threads stop).
  void stop_links();
  // Every node's public rooms as a `rooms` message without `re` (cluster mode; blocking:
  // call it through run_blocking()).
  Json cluster_rooms();
  // The lobby push (lobby_feed.h): every LobbyFeed::kPushInterval while anyone subscribes,
  // the public rooms go to the feed, which pushes what changed. The same timer drives quick
  // play's matchmaker (quick_play.h).
  void start_lobby_feed();
  void stop_lobby_feed();
  // Player retention (player_lifecycle.cpp): every quarter of --token-idle-s (at most
  // hourly) idle players are forgotten, in memory and in the store.
  void start_player_sweeper();
  void stop_player_sweeper();
  // One pass of it (the timer's; tests call it too).
  void sweep_players();
  // Leaves the cluster (after close_store(): every write this node made is stored first).
  void stop_cluster();
  ClusterNode* cluster() { return cluster_.get(); }
  // The links to the other nodes (cluster mode), or null.
  ClusterLinks* links() { return links_.get(); }
  // Quick play across the cluster (cluster mode), or null: quick play is this node's then.
  ClusterQuickPlay* cluster_quick_play() { return cluster_quick_play_.get(); }
  Store* store() { return store_.get(); }

  // A replay of a stored game (see replay.h), or why not. Blocking disk I/O: call it through
  // run_blocking(). `requester`: the asking player (null over REST, which serves finished
  // games only).
  ReplayOutcome replay(const std::string& room, std::optional<int> seat, std::optional<int> game,
                       const Player* requester);
  // Runs blocking work (store reads) off the event loop's threads.
  template <class F>
  void run_blocking(F&& work) {
    boost::asio::post(blocking_, std::forward<F>(work));
  }
  void stop_blocking() { blocking_.join(); }

  // The admin API's drain: runs what SIGTERM runs. `handler` is set by whoever runs the server
  // (main() stops waiting for a signal and stops the server as on SIGTERM); request_drain()
  // returns false when nobody set one.
  void set_drain_handler(std::function<void()> handler);
  bool request_drain();

  bool shutting_down() const { return shutting_down_.load(); }
  void set_shutting_down() { shutting_down_.store(true); }

 private:
  // Cluster mode: this node's id, which the welcome names so that a client may reach its
  // room's node through the proxy (PROTOCOL.md, "Cluster mode"); "" on a single server.
  std::string welcome_node() const { return cluster_ ? cluster_->self().id : std::string(); }
  // Returns false when it finishes later (a token looked up in the cluster's store).
  // `checked_in_store`: the cluster's store was read for this hello already.
  bool hello(ClientContext& client, const protocol::Hello& hello, const Json& id,
             bool checked_in_store = false);
  // Cluster mode: a token looked up in the store off the I/O threads (another node may have
  // revoked it, renamed its player or seen the player since); the hello then goes on on the
  // client's strand.
  bool hello_with_stored_token(ClientContext& client, const protocol::Hello& hello, const Json& id);
  // list_rooms (in a cluster with every node's public rooms, other nodes' from Redis).
  void list_rooms(ClientContext& client, const protocol::ListRooms& query, const Json& id);
  void subscribe_lobby(ClientContext& client, const protocol::SubscribeLobby& request,
                       const Json& id);
  // Every public room: this server's and, in a cluster, other nodes' (blocking in a cluster:
  // call it through run_blocking()).
  LobbyFeed::Rooms public_rooms();
  // The public rooms in wire form, each listed once (blocking in a cluster, as above).
  std::vector<Json> public_room_summaries();
  // Whether `kind` names a game; refuses the request with unknown_game when not.
  bool known_kind(ClientContext& client, const std::optional<std::string>& kind, const Json& id);
  void arm_lobby_feed();
  // player_lifecycle.cpp: rename and revoke_token, answered once stored.
  void rename(ClientContext& client, const protocol::Rename& request, const Json& id);
  void revoke_token(ClientContext& client, const Json& id);
  void arm_player_sweeper();
  std::int64_t token_idle_ms() const;
  // Whether the player's token no longer opens its identity (Player::idle_past).
  bool token_expired(const Player& player) const;
  // Queues the player's record as it is now on the store (none: nothing). Snapshot and queue
  // are one step under player_writes_mutex_, so records of one player reach the store in the
  // order they were taken: a sweep's last-seen write never puts back a revoked token's hash.
  void save_player_record(const Player& player, DurableCallback on_durable);
  // Writes the player's last-seen time (and the rest of its record), waiting for nothing.
  void store_last_seen(const Player& player);
  void create_room(ClientContext& client, const protocol::CreateRoom& request, const Json& id,
                   Clock::time_point received);
  // quick_play. Returns false when it finishes later: a rated request waits for the player's
  // rating, read from the store off the I/O threads.
  bool quick_play(ClientContext& client, const protocol::QuickPlay& request, const Json& id);
  // quick_play in a cluster: queued in Redis, off the I/O threads (cluster_quick_play.h).
  bool cluster_quick_play(ClientContext& client, const protocol::QuickPlay& request,
                          const Json& id);
  // The unfinished public room of another node where `player` holds a seat, if any (Redis:
  // off the I/O threads).
  std::optional<std::string> remote_seat_of(const std::string& player);
  // cancel_quick_play. Returns false when it finishes later (in a cluster, through Redis).
  bool cancel_quick_play(ClientContext& client, const Json& id);
  // mute / unmute: `client`'s player stops (or starts again) receiving `player_id`'s chat.
  void set_muted(ClientContext& client, const std::string& player_id, bool muted, const Json& id);
  void reply_error(ClientContext& client, const Json& id, protocol::ErrorCode code,
                   const std::string& message);

  boost::asio::io_context& io_;
  const ServerConfig config_;
  protocol::Limits limits_;
  Metrics metrics_;
  Identity identity_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<PostgresCluster> cluster_store_;
  std::unique_ptr<ClusterNode> cluster_;
  std::unique_ptr<ClusterLinks> links_;
  Lobby lobby_;
  LobbyFeed lobby_feed_{metrics_};
  QuickPlay quick_play_{
      lobby_, config_.quick_play_bots_after,
      Matchmaker::RatingBand{config_.quick_play_rating_band, config_.quick_play_rating_band_growth,
                             config_.quick_play_rating_band_max}};
  // After quick_play_, whose open_table() it uses, and links_: stopped and destroyed first.
  std::unique_ptr<ClusterQuickPlay> cluster_quick_play_;
  boost::asio::steady_timer lobby_feed_timer_{io_};
  std::atomic<bool> lobby_feed_busy_{false};  // a publish is queued on the blocking pool
  std::atomic<bool> lobby_feed_stopped_{false};
  std::mutex player_writes_mutex_;
  boost::asio::steady_timer player_sweep_timer_{io_};
  std::atomic<bool> player_sweeper_stopped_{false};
  std::atomic<bool> shutting_down_{false};
  boost::asio::thread_pool blocking_{1};
  std::mutex drain_mutex_;
  std::function<void()> drain_handler_;
  std::mutex connections_mutex_;
  std::unordered_map<const Connection*, std::weak_ptr<Connection>> connections_;
  KeepaliveWheel keepalive_{io_, [this](const Connection* address) {
                              std::lock_guard lock(connections_mutex_);
                              const auto it = connections_.find(address);
                              return it == connections_.end() ? nullptr : it->second.lock();
                            }};
};

}  // namespace parlor::server
