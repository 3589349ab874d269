#include "server/cluster/cluster_links.h"

#include <openssl/crypto.h>

#include "protocol/decode.h"
#include "protocol/encode.h"
#include "protocol/text.h"
#include "server/cluster/cluster_node.h"
#include "server/log.h"
#include "server/log_throttle.h"
#include "server/server_state.h"

namespace parlor::server {

using protocol::ErrorCode;

// The owner's stand-in for a client connection on another node: what the room sends it goes
// back over the link, named by the edge's connection id.
class RemoteClient final : public Connection {
 public:
  RemoteClient(std::weak_ptr<PeerLink> link, std::uint64_t edge_id)
      : link_(std::move(link)), edge_id_(edge_id) {}

  void send(Frame frame) override {
    if (auto link = link_.lock()) link->send(link::encode_frame(edge_id_, frame->payload()));
  }
  void close(std::uint16_t code, std::string reason) override {
    if (auto link = link_.lock()) {
      link->send(
          link::encode(link::Message{link::Kind::kClose, edge_id_, {}, code, std::move(reason)}));
    }
  }

  ClientContext context;  // used on the link's strand only

 private:
  std::weak_ptr<PeerLink> link_;
  const std::uint64_t edge_id_;
};

namespace {

LogThrottle& link_log() {
  static LogThrottle throttle(std::chrono::seconds(5));
  return throttle;
}

link::PlayerRef player_ref(const Player& player, std::uint64_t generation) {
  return link::PlayerRef{player.id(), player.name(), player.token_hash(), generation};
}

constexpr std::uint16_t kReplaced = 4000;
constexpr std::string_view kReplacedReason = "replaced by a newer connection of the same player";

// The room a request is about, for the commands a room serves.
std::optional<std::string> room_of(const protocol::Request& request) {
  return std::visit(
      [](const auto& command) -> std::optional<std::string> {
        using T = std::decay_t<decltype(command)>;
        // A replay is served by any node, from the store.
        if constexpr (!std::is_same_v<T, protocol::GetReplay> && requires { command.room; }) {
          return command.room;
        }
        return std::nullopt;
      },
      request.command);
}

}  // namespace

ClusterLinks::ClusterLinks(net::io_context& io, ServerState& state, ClusterNode& node,
                           std::string secret, std::chrono::milliseconds idle_timeout)
    : io_(io),
      state_(state),
      node_(node),
      secret_(std::move(secret)),
      idle_timeout_(idle_timeout) {}

ClusterLinks::~ClusterLinks() {
  // shutdown() locks and allocates, and a destructor must not throw: the process is stopping,
  // so the failure is logged and the links close with their sockets.
  try {
    shutdown();
  } catch (const std::exception& error) {
    log_error(std::string("cluster links: closing the links at shutdown failed: ") + error.what());
  }
}

void ClusterLinks::shutdown() {
  std::vector<std::shared_ptr<PeerLink>> links;
  {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    for (auto& [node, link] : outgoing_) links.push_back(link);
    for (auto& [ptr, link] : incoming_) links.push_back(link);
  }
  for (auto& link : links) link->close();
}

bool ClusterLinks::secret_matches(std::string_view presented) const {
  return presented.size() == secret_.size() &&
         CRYPTO_memcmp(presented.data(), secret_.data(), secret_.size()) == 0;
}

PeerLink::Handlers ClusterLinks::handlers() {
  return PeerLink::Handlers{
      [this](const std::shared_ptr<PeerLink>& link, std::string_view bytes) {
        on_message(link, bytes);
      },
      [this](const std::shared_ptr<PeerLink>& link) { on_closed(link); },
      &state_.metrics().cluster_link_bytes_sent,
      [this](const std::vector<std::string>& messages) { answer_unsent(messages); }};
}

void ClusterLinks::accept(tcp::socket socket,
                          beast::http::request<beast::http::string_body> request) {
  std::lock_guard lock(mutex_);
  if (stopped_) return;
  auto link =
      PeerLink::accept(io_, std::move(socket), std::move(request), idle_timeout_, handlers());
  incoming_.emplace(link.get(), link);
}

std::shared_ptr<PeerLink> ClusterLinks::link_to(const std::string& node) {
  std::lock_guard lock(mutex_);
  if (stopped_) return nullptr;
  if (auto it = outgoing_.find(node); it != outgoing_.end() && it->second->usable()) {
    return it->second;
  }
  auto link = PeerLink::connect(io_, node, secret_, idle_timeout_, handlers());
  outgoing_[node] = link;
  return link;
}

void ClusterLinks::send_for(const std::shared_ptr<Connection>& connection,
                            const link::PlayerRef& player, const std::string& node,
                            std::string message) {
  {
    std::lock_guard lock(mutex_);
    EdgeClient& client = edge_clients_[connection->id()];
    client.connection = connection;
    if (client.player.id.empty()) client.player = player;
    client.nodes.insert(node);
  }
  auto link = link_to(node);
  // Closed between the lookup and the send (or this node is stopping): answered as unsent.
  // send() leaves a message it refuses as it was.
  if (!link || !link->send(std::move(message))) {
    answer_unsent({message});  // NOLINT(bugprone-use-after-move)
  }
}

// ---- the edge ------------------------------------------------------------------------------

bool ClusterLinks::forward(ClientContext& client, const std::string& room, std::string_view raw,
                           const nlohmann::json& re) {
  state_.metrics().cluster_requests_forwarded.fetch_add(1, std::memory_order_relaxed);
  link::Message request{link::Kind::kRequest, client.connection->id(),
                        player_ref(*client.player, client.generation), 0, std::string(raw)};
  std::string node;
  {
    std::lock_guard lock(mutex_);
    if (auto it = routes_.find(room); it != routes_.end()) node = it->second;
  }
  if (!node.empty()) {
    send_for(client.connection, request.player, node, link::encode(request));
    return true;
  }
  // Looked up off the I/O threads; the client's next request is read only once this one is
  // on its way, so its requests reach the owner in order.
  state_.run_blocking([this, finish = client.finish_later, connection = client.connection, room, re,
                       request = std::move(request)]() mutable {
    const auto where = node_.locate(room);
    finish([this, connection, room, re, where, request = std::move(request)]() mutable {
      auto refuse = [&](ErrorCode code, const std::string& message) {
        state_.metrics().count_reject(std::string(protocol::wire_name(code)));
        connection->send(make_frame(code == ErrorCode::kRoomMoved
                                        ? protocol::encode_room_moved(re, room, "", message)
                                        : protocol::encode_error(re, code, message)));
      };
      if (!where)
        return refuse(ErrorCode::kNoSuchRoom, "no room " + protocol::quote_client_text(room, 32));
      if (where->here) {
        return refuse(ErrorCode::kRoomMoved,
                      "this node serves room " + room + " now; send the request again");
      }
      if (where->node.empty()) {
        return refuse(
            ErrorCode::kRoomMoved,
            "room " + room + " is moving to another node; send the request again shortly");
      }
      {
        std::lock_guard lock(mutex_);
        // A bound on a cache of small entries: past it, routes are looked up afresh.
        if (routes_.size() > 100'000) routes_.clear();
        routes_[room] = where->node;
      }
      send_for(connection, request.player, where->node, link::encode(request));
    });
  });
  return false;
}

void ClusterLinks::said_hello(const ClientContext& client, bool resumed) {
  state_.run_blocking([this, connection = client.connection, player = client.player, resumed,
                       generation = client.generation] {
    node_.set_edge(player->id());
    if (!resumed) return;
    const link::PlayerRef ref = player_ref(*player, generation);
    const std::string message =
        link::encode(link::Message{link::Kind::kResume, connection->id(), ref, 0, ""});
    for (const NodeInfo& other : node_.other_nodes()) {
      if (!other.advertise.empty()) send_for(connection, ref, other.advertise, message);
    }
  });
}

void ClusterLinks::gone(const Connection& connection) {
  std::set<std::string> nodes;
  {
    std::lock_guard lock(mutex_);
    auto it = edge_clients_.find(connection.id());
    if (it == edge_clients_.end()) return;
    nodes = std::move(it->second.nodes);
    edge_clients_.erase(it);
  }
  const std::string message =
      link::encode(link::Message{link::Kind::kGone, connection.id(), {}, 0, ""});
  for (const std::string& node : nodes) {
    std::shared_ptr<PeerLink> link;
    {
      std::lock_guard lock(mutex_);
      if (auto it = outgoing_.find(node); it != outgoing_.end()) link = it->second;
    }
    // A link that is gone took the remote client with it already.
    if (link && link->usable()) link->send(std::string(message));
  }
}

void ClusterLinks::deliver(const link::Message& message, bool close) {
  std::shared_ptr<Connection> connection;
  {
    std::lock_guard lock(mutex_);
    if (auto it = edge_clients_.find(message.connection); it != edge_clients_.end()) {
      connection = it->second.connection.lock();
    }
  }
  if (!connection) return;  // closed meanwhile
  if (close) {
    connection->close(message.code, message.body);
  } else {
    connection->send(make_frame(message.body));
  }
}

void ClusterLinks::answer_unsent(const std::vector<std::string>& messages) {
  for (const std::string& bytes : messages) {
    auto message = link::decode(bytes);
    if (!message || message->kind != link::Kind::kRequest) continue;  // resumes: invites follow
    auto decoded = protocol::decode_request(message->body, state_.limits());
    auto* request = std::get_if<protocol::Request>(&decoded);
    if (!request) continue;  // the edge decoded it already: cannot happen
    const std::string room = room_of(*request).value_or("");
    state_.metrics().count_reject(std::string(protocol::wire_name(ErrorCode::kRoomMoved)));
    message->body = protocol::encode_room_moved(
        request->id, room, "",
        "the node serving room " + room + " does not answer; send the request again shortly");
    deliver(*message, /*close=*/false);
  }
}

void ClusterLinks::invite(const std::string& room, std::vector<std::string> players) {
  state_.run_blocking([this, room, players = std::move(players)] {
    for (const std::string& player : players) {
      const auto edge = node_.edge_of(player);
      if (!edge) continue;  // not connected anywhere: they resume when they say hello again
      if (edge->id == node_.self().id) {
        net::post(io_, [this, room, player] { invited(player, room + "\n"); });
        continue;
      }
      if (auto link = link_to(edge->advertise)) {
        link->send(
            link::encode(link::Message{link::Kind::kInvite, 0, link::PlayerRef{player, "", {}, 0},
                                       0, room + "\n" + node_.self().advertise}));
      }
    }
  });
}

void ClusterLinks::invited(const std::string& player_id, const std::string& body) {
  const auto newline = body.find('\n');
  const std::string room = body.substr(0, newline);
  const std::string owner = newline == std::string::npos ? "" : body.substr(newline + 1);
  auto player = state_.identity().find(player_id);
  if (!player) return;
  auto connection = player->connection();
  if (!connection || dynamic_cast<RemoteClient*>(connection.get())) return;  // not its edge
  if (owner.empty() || owner == node_.self().advertise) {
    if (auto held = state_.lobby().find(room)) held->resume(player);
    return;
  }
  // The live connection here is the latest hello of the player this node has seen.
  const link::PlayerRef ref = player_ref(*player, player->generation());
  send_for(connection, ref, owner,
           link::encode(link::Message{link::Kind::kResume, connection->id(), ref, 0,
                                      nlohmann::json::array({room}).dump()}));
}

void ClusterLinks::send_to(const std::string& node, std::string message) {
  if (auto link = link_to(node)) link->send(std::move(message));
}

// ---- the owner -----------------------------------------------------------------------------

std::shared_ptr<RemoteClient> ClusterLinks::remote_client(const std::shared_ptr<PeerLink>& link,
                                                          const link::Message& message,
                                                          bool& created) {
  created = false;
  std::lock_guard lock(mutex_);
  auto& clients = remote_[link.get()];
  auto& client = clients[message.connection];
  if (!client) {
    client = std::make_shared<RemoteClient>(link, message.connection);
    client->context.connection = client;
    client->context.remote = true;
    created = true;
  }
  return client;
}

void ClusterLinks::remote_request(const std::shared_ptr<PeerLink>& link,
                                  const link::Message& message) {
  bool created = false;
  auto client = remote_client(link, message, created);
  ClientContext& context = client->context;
  if (!context.player) {
    auto player = state_.identity().find(message.player.id);
    if (!player) {
      player = std::make_shared<Player>(message.player.id, message.player.name,
                                        message.player.token_hash);
      state_.identity().restore(player);
    }
    // The connection's first request here: it is the player's live connection on this
    // node from now on, as a hello would make it, unless a later hello of the player reached
    // this node first (a late request of a connection being replaced).
    if (!attach_remote(link, message, context, player)) return;
  } else if (context.player->superseded(context.generation)) {
    // A newer connection of the player attached here since: this one is closing, and acts
    // no more.
    return superseded(link, message.connection);
  }
  const auto received = Clock::now();
  auto decoded = protocol::decode_request(message.body, state_.limits());
  if (auto* error = std::get_if<protocol::DecodeError>(&decoded)) {
    // The edge decoded it already: only a newer edge's request can fail here.
    context.connection->send(
        make_frame(protocol::encode_error(error->id, error->code, error->message)));
    return;
  }
  auto& request = std::get<protocol::Request>(decoded);
  if (auto room = room_of(request); room && !state_.lobby().find(*room)) {
    state_.metrics().count_reject(std::string(protocol::wire_name(ErrorCode::kRoomMoved)));
    context.connection->send(make_frame(protocol::encode_room_moved(
        request.id, *room, "", "room " + *room + " has moved on; send the request again shortly")));
    link->send(link::encode(link::Message{link::Kind::kNotHere, 0, {}, 0, *room}));
    return;
  }
  state_.handle(context, std::move(request), received);
}

void ClusterLinks::remote_resume(const std::shared_ptr<PeerLink>& link,
                                 const link::Message& message) {
  bool created = false;
  auto client = remote_client(link, message, created);
  ClientContext& context = client->context;
  auto player = state_.identity().find(message.player.id);
  if (!player) return;  // no room here has ever seen them
  // A resume of an older connection that arrives after a newer one's (the links of two
  // nodes are not ordered with each other) must not take the player's rooms back from it.
  if (!attach_remote(link, message, context, player)) return;
  std::vector<std::string> rooms;
  const auto listed = nlohmann::json::parse(message.body, nullptr, /*allow_exceptions=*/false);
  if (listed.is_array()) {
    for (const auto& room : listed) {
      if (room.is_string()) rooms.push_back(room.get<std::string>());
    }
  } else {
    rooms = player->rooms();
  }
  for (const std::string& room : rooms) {
    if (auto held = state_.lobby().find(room)) held->resume(player);
  }
}

bool ClusterLinks::attach_remote(const std::shared_ptr<PeerLink>& link,
                                 const link::Message& message, ClientContext& context,
                                 const std::shared_ptr<Player>& player) {
  auto attached = player->attach_in_order(context.connection, message.player.generation);
  if (!attached.attached) {
    superseded(link, message.connection);
    return false;
  }
  context.player = player;
  context.generation = message.player.generation;
  if (attached.previous && attached.previous != context.connection) {
    attached.previous->close(kReplaced, std::string(kReplacedReason));
  }
  return true;
}

void ClusterLinks::superseded(const std::shared_ptr<PeerLink>& link, std::uint64_t connection) {
  std::shared_ptr<RemoteClient> client;
  {
    std::lock_guard lock(mutex_);
    if (auto it = remote_.find(link.get()); it != remote_.end()) {
      if (auto found = it->second.find(connection); found != it->second.end()) {
        client = std::move(found->second);
        it->second.erase(found);
      }
    }
  }
  state_.metrics().cluster_superseded.fetch_add(1, std::memory_order_relaxed);
  // The edge closes the client's connection as it would for one replaced here.
  link->send(link::encode(
      link::Message{link::Kind::kClose, connection, {}, kReplaced, std::string(kReplacedReason)}));
  if (!client) return;
  state_.disconnected(client->context);  // detaches nothing: the player's live one is newer
  client->context.connection.reset();
}

void ClusterLinks::renamed(const Player& player) {
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    renames_.push_back(link::encode(link::Message{
        link::Kind::kRenamed, 0, link::PlayerRef{player.id(), "", {}, 0}, 0, player.name()}));
    if (renaming_) return;  // the task sending them takes this one too, in order
    renaming_ = true;
  }
  state_.run_blocking([this] {
    const std::vector<NodeInfo> others = node_.other_nodes();
    for (;;) {
      std::string message;
      {
        std::lock_guard lock(mutex_);
        if (renames_.empty()) {
          renaming_ = false;
          return;
        }
        message = std::move(renames_.front());
        renames_.pop_front();
      }
      for (const NodeInfo& other : others) {
        if (other.advertise.empty()) continue;
        if (auto link = link_to(other.advertise)) link->send(std::string(message));
      }
    }
  });
}

void ClusterLinks::remote_renamed(const link::Message& message) {
  auto player = state_.identity().find(message.player.id);
  if (!player || player->name() == message.body) return;  // never seen here, or known
  player->set_name(message.body);
  for (const std::string& room_id : player->rooms()) {
    if (auto room = state_.lobby().find(room_id)) room->renamed(player);
  }
}

void ClusterLinks::remote_gone(const std::shared_ptr<PeerLink>& link, std::uint64_t connection) {
  std::shared_ptr<RemoteClient> client;
  {
    std::lock_guard lock(mutex_);
    auto it = remote_.find(link.get());
    if (it == remote_.end()) return;
    auto found = it->second.find(connection);
    if (found == it->second.end()) return;
    client = std::move(found->second);
    it->second.erase(found);
  }
  state_.disconnected(client->context);
  client->context.connection.reset();  // breaks the client -> context -> client cycle
}

void ClusterLinks::on_message(const std::shared_ptr<PeerLink>& link, std::string_view bytes) {
  auto message = link::decode(bytes);
  if (!message) {
    link_log().info("cluster: a link from " + link->peer() + " sent what is not a link message");
    return link->close();
  }
  switch (message->kind) {
    case link::Kind::kRequest:
      return remote_request(link, *message);
    case link::Kind::kResume:
      return remote_resume(link, *message);
    case link::Kind::kGone:
      return remote_gone(link, message->connection);
    case link::Kind::kFrame:
      return deliver(*message, false);
    case link::Kind::kClose:
      return deliver(*message, true);
    case link::Kind::kNotHere: {
      std::lock_guard lock(mutex_);
      routes_.erase(message->body);
      return;
    }
    case link::Kind::kInvite:
      return invited(message->player.id, message->body);
    case link::Kind::kRenamed:
      return remote_renamed(*message);
    case link::Kind::kQuickPlay:
      if (auto* quick_play = state_.cluster_quick_play()) quick_play->pushed(*message);
      return;
  }
}

void ClusterLinks::on_closed(const std::shared_ptr<PeerLink>& link) {
  std::unordered_map<std::uint64_t, std::shared_ptr<RemoteClient>> clients;
  std::string node;  // set when this was an outgoing link
  std::vector<std::pair<std::shared_ptr<Connection>, link::PlayerRef>> to_resume;
  {
    std::lock_guard lock(mutex_);
    incoming_.erase(link.get());
    for (auto it = outgoing_.begin(); it != outgoing_.end(); ++it) {
      if (it->second == link) {
        node = it->first;
        // Routes to that node are looked up again: its rooms may be moving.
        std::erase_if(routes_, [&](const auto& route) { return route.second == node; });
        outgoing_.erase(it);
        break;
      }
    }
    // The owner at the other end now counts this node's clients as gone. If the link had
    // been up, the owner may well be alive (a pause, a blip): the clients resume there over
    // a new link, once. A node that is dead refuses the new link, and whoever takes its rooms
    // over invites the players.
    if (!node.empty() && link->was_open() && !stopped_) {
      for (auto& [id, client] : edge_clients_) {
        if (!client.nodes.contains(node)) continue;
        if (auto connection = client.connection.lock())
          to_resume.emplace_back(connection, client.player);
      }
    }
    if (auto it = remote_.find(link.get()); it != remote_.end()) {
      clients = std::move(it->second);
      remote_.erase(it);
    }
  }
  // The clients behind the link are gone as if their sockets had dropped.
  for (auto& [id, client] : clients) {
    state_.disconnected(client->context);
    client->context.connection.reset();
  }
  if (to_resume.empty()) return;
  auto again = link_to(node);
  if (!again) return;
  for (const auto& [connection, player] : to_resume) {
    again->send(link::encode(link::Message{link::Kind::kResume, connection->id(), player, 0, ""}));
  }
}

}  // namespace parlor::server
