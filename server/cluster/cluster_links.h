// How any connection reaches any room of a cluster (docs/ARCHITECTURE.md, "Cluster mode:
// one address"). A client's connection lives on one node, its edge, wherever the proxy put
// it; each room lives on its owner. The edge forwards the client's requests for a room it
// does not hold to the room's owner over a link (peer_link.h), and the owner treats the
// client as a member like any other: a RemoteClient stands for the connection, and the
// frames the room sends it go back over the link, to be written by the edge unchanged.
//
// - Routes (room -> owner) are looked up in Redis once and cached; an owner that no longer
//   holds a room says so (kNotHere) and the route is dropped.
// - A player who says hello again with their token (after a dropped connection, on any
//   node) is resumed on every other live node: each pushes the rooms it holds of theirs.
// - A node that takes a room over invites the seated players' edges (Redis knows each
//   player's edge) to resume it there, so players whose room's node died carry on without
//   reconnecting.
// - A player's hellos with their token are ordered cluster-wide (ClientContext::generation,
//   carried with each request and resume): an owner attaches a remote connection only if no
//   later hello of the player reached it first, and closes an older one with 4000 as if the
//   newer had replaced it, so a late message of a connection being torn down on one node
//   never displaces the player's newer connection on another.
// - A rename is sent to every other node: those that know the player take the new name, and
//   the rooms they hold re-push their `room` summary (and the lobby shows it).
// - A link that dies takes its remote clients with it: the owner treats them as
//   disconnected (grace periods, then bots), exactly as for a dropped socket. The edge, if
//   the link had been up, resumes its clients that reached that node over a new link: a
//   link lost to a pause or a network blip costs the players nothing.
#pragma once

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "server/cluster/link_message.h"
#include "server/cluster/peer_link.h"
#include "server/connection.h"

namespace parlor::server {

class ClusterNode;
class ServerState;
struct ClientContext;
class RemoteClient;

class ClusterLinks {
 public:
  ClusterLinks(net::io_context& io, ServerState& state, ClusterNode& node, std::string secret,
               std::chrono::milliseconds idle_timeout);
  ~ClusterLinks();
  ClusterLinks(const ClusterLinks&) = delete;
  ClusterLinks& operator=(const ClusterLinks&) = delete;

  // ---- the edge: this node holds the client's connection ----
  // Forwards `client`'s request for `room` (its JSON text `raw`) to the room's owner.
  // Returns false when it finishes later, through client.finish_later (a route looked up).
  bool forward(ClientContext& client, const std::string& room, std::string_view raw,
               const nlohmann::json& re);
  // The client said hello here: this node is its player's edge now (Redis records it). If it
  // `resumed` with its token, every other node pushes the player's rooms it holds.
  void said_hello(const ClientContext& client, bool resumed);
  // The client's connection closed: the owners it reached forget it.
  void gone(const Connection& connection);
  // `player` (connected here) has a new name, stored: every other node is told, in the
  // order of the renames, and the rooms it holds of the player show the name.
  void renamed(const Player& player);

  // ---- the owner ----
  // A room taken over is served here now: the edges of `players` are invited to resume it.
  void invite(const std::string& room, std::vector<std::string> players);
  // Whether a link's upgrade request presents the cluster's secret (constant time).
  bool secret_matches(std::string_view presented) const;
  // Serves a link a peer opened (its upgrade request already read and checked).
  void accept(tcp::socket socket, beast::http::request<beast::http::string_body> request);

  // ---- quick play (cluster_quick_play.h) ----
  // Sends `message` to the node at `node` (host:port), over a link opened if need be. A node
  // of an older link format is not sent what it does not read (link::for_peer).
  void send_to(const std::string& node, std::string message);
  // `player` (connected here) was seated in `body`'s room ("<room>\n<owner host:port>"): its
  // connection resumes it there, as after an invitation.
  void invited(const std::string& player, const std::string& body);

  // Closes every link (server shutdown).
  void shutdown();

 private:
  struct EdgeClient {
    std::weak_ptr<Connection> connection;
    link::PlayerRef player;
    std::set<std::string> nodes;  // the owners it reached, by advertised address
  };

  std::shared_ptr<PeerLink> link_to(const std::string& node);
  PeerLink::Handlers handlers();
  void on_message(const std::shared_ptr<PeerLink>& link, std::string_view bytes);
  void on_closed(const std::shared_ptr<PeerLink>& link);
  // Sends `message` for `connection` (of `player`) to `node`, remembering that the
  // connection reached it.
  void send_for(const std::shared_ptr<Connection>& connection, const link::PlayerRef& player,
                const std::string& node, std::string message);

  // The owner's side of a message about a remote client.
  void remote_request(const std::shared_ptr<PeerLink>& link, const link::Message& message);
  void remote_resume(const std::shared_ptr<PeerLink>& link, const link::Message& message);
  void remote_gone(const std::shared_ptr<PeerLink>& link, std::uint64_t connection);
  // Makes a remote client's connection the player's live one on this node, as a hello would,
  // closing the one it replaces (4000); unless a later hello of the player was attached here
  // first: then the client is superseded and false returned.
  bool attach_remote(const std::shared_ptr<PeerLink>& link, const link::Message& message,
                     ClientContext& context, const std::shared_ptr<Player>& player);
  // A request or resume of a connection older than the player's live one here: the remote
  // client is dropped and the edge told to close it (4000).
  void superseded(const std::shared_ptr<PeerLink>& link, std::uint64_t connection);
  void remote_renamed(const link::Message& message);
  std::shared_ptr<RemoteClient> remote_client(const std::shared_ptr<PeerLink>& link,
                                              const link::Message& message, bool& created);
  // The edge's side.
  void deliver(const link::Message& message, bool close);
  // Answers the requests among messages a link never sent (its node did not answer): each
  // gets room_moved with its `re`, to be sent again once the room is served.
  void answer_unsent(const std::vector<std::string>& messages);

  net::io_context& io_;
  ServerState& state_;
  ClusterNode& node_;
  const std::string secret_;
  const std::chrono::milliseconds idle_timeout_;

  std::mutex mutex_;  // guards everything below
  bool stopped_ = false;
  std::unordered_map<std::string, std::shared_ptr<PeerLink>> outgoing_;  // by node address
  std::unordered_map<const PeerLink*, std::shared_ptr<PeerLink>> incoming_;
  std::unordered_map<std::string, std::string> routes_;  // room -> owner's address
  std::unordered_map<std::uint64_t, EdgeClient> edge_clients_;
  std::deque<std::string> renames_;  // kRenamed messages to send, in order
  bool renaming_ = false;            // a blocking task is sending them
  // Remote clients, by link and the edge's connection id.
  std::unordered_map<const PeerLink*,
                     std::unordered_map<std::uint64_t, std::shared_ptr<RemoteClient>>>
      remote_;
};

}  // namespace parlor::server
