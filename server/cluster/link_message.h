// The messages nodes exchange over a link (docs/ARCHITECTURE.md, "Cluster mode": any
// connection reaches any room). A player's connection lives on one node, its edge; each of
// its rooms lives on the room's owner. The edge forwards the player's room requests to the
// owner; the owner sends back the frames that room pushes to that connection.
//
// A message is a kind byte and fields in a fixed binary layout (integers little-endian,
// strings length-prefixed, the last field running to the end): the payloads it carries are
// protocol JSON already, copied once, never parsed or re-encoded on the way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/identity.h"

namespace parlor::server::link {

enum class Kind : char {
  kRequest = 'Q',  // edge -> owner: a room request of a client connection
  kResume = 'S',   // edge -> owner: the connection resumed its player; push its rooms here
  kGone = 'G',     // edge -> owner: the connection closed
  kFrame = 'F',    // owner -> edge: a frame for the connection
  kClose = 'C',    // owner -> edge: close the connection (a newer one replaced it)
  kNotHere = 'N',  // owner -> edge: this node does not serve that room (any more)
  kInvite = 'I',   // new owner -> edge: it took a room of this player over; resume it there
};

// Who the connection belongs to: enough for the owner to know the player as the edge does
// (the edge checked the token; the link is the cluster's own).
struct PlayerRef {
  std::string id;
  std::string name;
  TokenHash token_hash{};
};

struct Message {
  Kind kind = Kind::kRequest;
  std::uint64_t connection = 0;  // the edge's id of the client connection
  PlayerRef player;              // kRequest, kResume, kInvite (id only)
  std::uint16_t code = 0;        // kClose
  // kRequest: the request's JSON text; kFrame: the frame's payload; kClose: the reason;
  // kResume: the rooms as a JSON array (empty: all of the player's rooms on the owner);
  // kNotHere and kInvite: the room id.
  std::string body;
};

std::string encode(const Message& message);
// The message, or nullopt when `bytes` is not one (a peer of another version, or a bug):
// the link is then closed.
std::optional<Message> decode(std::string_view bytes);

// The frame payload of kFrame written without building a Message: the hot path (every push
// to a remote member).
std::string encode_frame(std::uint64_t connection, std::string_view payload);

}  // namespace parlor::server::link
