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
  kRenamed = 'R',  // edge -> every node: the player's new name is stored; rooms show it now
  // The node forming quick-play tables -> a waiting player's edge: a push for the player's
  // connection of that hello generation (`code`: QuickPlayPush).
  kQuickPlay = 'P',
};

// What a kQuickPlay message tells the edge. Its body is the push's JSON text, after the
// room's owner (host:port) and a newline for kSeated.
enum class QuickPlayPush : std::uint16_t { kStanding = 0, kSeated = 1, kFailed = 2 };

// kRequest and kResume travel as 'q' and 's': the same fields with the connection's hello
// generation after the connection id. 'Q' and 'S' (no generation) are what nodes before
// generations send; they decode with generation 0. A node that does not announce
// kLinkFormatHeader (an older one) is written the old forms, and no kRenamed (for_older_peer).
inline constexpr char kRequestOrdered = 'q';
inline constexpr char kResumeOrdered = 's';
inline constexpr std::string_view kLinkFormatHeader = "X-Parlor-Link-Format";
// "2": hello generations and kRenamed; "3": kQuickPlay too. A peer of format 2 is written
// everything but kQuickPlay (for_peer).
inline constexpr std::string_view kLinkFormat = "3";
inline constexpr int kLinkFormatNumber = 3;
// The link format a peer announced (kLinkFormatHeader's value; "" or junk: 1, before it).
int link_format_of(std::string_view announced);

// Who the connection belongs to: enough for the owner to know the player as the edge does
// (the edge checked the token; the link is the cluster's own).
//
// `generation` orders a player's hellos across the cluster (ClusterNode::next_generation):
// the owner attaches a connection only if no later hello of the player has reached it, so a
// late request or resume of an older connection cannot displace a newer one. 0: unknown (a
// node before generations), attached as before.
struct PlayerRef {
  std::string id;
  std::string name;
  TokenHash token_hash{};
  std::uint64_t generation = 0;
};

struct Message {
  Kind kind = Kind::kRequest;
  std::uint64_t connection = 0;  // the edge's id of the client connection
  // kRequest, kResume, kInvite and kRenamed (id only), kQuickPlay (id and generation)
  PlayerRef player;
  std::uint16_t code = 0;  // kClose; kQuickPlay (QuickPlayPush)
  // kRequest: the request's JSON text; kFrame: the frame's payload; kClose: the reason;
  // kResume: the rooms as a JSON array (empty: all of the player's rooms on the owner);
  // kNotHere and kInvite: the room id; kRenamed: the new name.
  std::string body;
};

std::string encode(const Message& message);
// The message, or nullopt when `bytes` is not one (a peer of another version, or a bug):
// the link is then closed.
std::optional<Message> decode(std::string_view bytes);

// The frame payload of kFrame written without building a Message: the hot path (every push
// to a remote member).
std::string encode_frame(std::uint64_t connection, std::string_view payload);

// `encoded` as a node before generations reads it: 'q' and 's' lose their generation and
// become 'Q' and 'S'; kRenamed becomes "" (not sent: such a node reads the name at the
// player's next request). Anything else is unchanged.
std::string for_older_peer(std::string encoded);
// `encoded` as a peer of link format `format` reads it: "" (not sent) for a message it does
// not know (kQuickPlay before 3), for_older_peer's forms before 2.
std::string for_peer(std::string encoded, int format);

}  // namespace parlor::server::link
