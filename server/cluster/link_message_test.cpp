#include "server/cluster/link_message.h"

#include <gtest/gtest.h>

namespace parlor::server::link {
namespace {

TEST(LinkMessage, EveryKindRoundTrips) {
  PlayerRef player{"p0123456789ab", "Ada \xE2\x99\xA0", {}, 0x1122334455667788ULL};
  for (std::size_t i = 0; i < player.token_hash.size(); ++i) {
    player.token_hash[i] = static_cast<unsigned char>(i * 7);
  }
  const std::vector<Message> messages{
      {Kind::kRequest, 0x0102030405060708ULL, player, 0, R"({"type":"move","id":3})"},
      {Kind::kResume, 42, player, 0, R"(["r1","r2"])"},
      {Kind::kGone, 42, {}, 0, ""},
      {Kind::kFrame, 7, {}, 0, std::string("{\"type\":\"state\"}\0tail", 21)},
      {Kind::kClose, 7, {}, 4000, "replaced by a newer connection"},
      {Kind::kNotHere, 0, {}, 0, "3fa9c01b2e"},
      {Kind::kInvite, 0, PlayerRef{"p1", "", {}, 0}, 0, "room\n10.0.0.2:8080"},
      {Kind::kRenamed, 0, PlayerRef{"p1", "", {}, 0}, 0, "Ada B"},
  };
  for (const Message& sent : messages) {
    const auto got = decode(encode(sent));
    ASSERT_TRUE(got.has_value()) << static_cast<char>(sent.kind);
    EXPECT_EQ(got->kind, sent.kind);
    EXPECT_EQ(got->connection, sent.connection);
    EXPECT_EQ(got->code, sent.code);
    EXPECT_EQ(got->body, sent.body);
    EXPECT_EQ(got->player.id, sent.player.id);
    if (sent.kind == Kind::kRequest || sent.kind == Kind::kResume) {
      EXPECT_EQ(got->player.name, sent.player.name);
      EXPECT_EQ(got->player.token_hash, sent.player.token_hash);
      EXPECT_EQ(got->player.generation, sent.player.generation);
    }
  }
}

TEST(LinkMessage, TheFrameShortcutIsAFrameMessage) {
  const auto got = decode(encode_frame(99, R"({"type":"ok"})"));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->kind, Kind::kFrame);
  EXPECT_EQ(got->connection, 99U);
  EXPECT_EQ(got->body, R"({"type":"ok"})");
}

TEST(LinkMessage, TruncatedOrUnknownMessagesAreRefused) {
  EXPECT_FALSE(decode("").has_value());
  EXPECT_FALSE(decode("Z12345678").has_value());
  const std::string request =
      encode(Message{Kind::kRequest, 1, PlayerRef{"p1", "n", {}, 3}, 0, "{}"});
  // Cut anywhere inside the fixed fields: never read past the end.
  for (std::size_t size = 1; size < request.size() - 2; ++size) {
    EXPECT_FALSE(decode(request.substr(0, size)).has_value()) << size;
  }
}

// A node before generations reads 'Q' and 'S' without one; a node of this version reads
// those as generation 0 (attached as before), and never sends one kRenamed.
TEST(LinkMessage, AnOlderPeerIsWrittenTheFormsItReads) {
  const PlayerRef player{"p1", "n", {}, 77};
  for (const Kind kind : {Kind::kRequest, Kind::kResume}) {
    const std::string older = for_older_peer(encode(Message{kind, 5, player, 0, "{}"}));
    ASSERT_FALSE(older.empty());
    EXPECT_EQ(older[0], static_cast<char>(kind));
    const auto got = decode(older);
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->kind, kind);
    EXPECT_EQ(got->connection, 5U);
    EXPECT_EQ(got->player.id, "p1");
    EXPECT_EQ(got->player.generation, 0U);
    EXPECT_EQ(got->body, "{}");
  }
  EXPECT_EQ(for_older_peer(encode(Message{Kind::kRenamed, 0, player, 0, "x"})), "");
  const std::string frame = encode_frame(9, "{}");
  EXPECT_EQ(for_older_peer(frame), frame);
}

// Quick-play pushes travel only to peers of format 3 or newer; a format-2 peer still gets
// generations, a format-1 one (no header) the forms before them.
TEST(LinkMessage, AQuickPlayPushRoundTripsAndIsWithheldFromOlderPeers) {
  const std::string push =
      encode(Message{Kind::kQuickPlay, 0, PlayerRef{"p1", "", {}, 42},
                     static_cast<std::uint16_t>(QuickPlayPush::kSeated), "host:1\n{}"});
  const auto got = decode(push);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->kind, Kind::kQuickPlay);
  EXPECT_EQ(got->player.id, "p1");
  EXPECT_EQ(got->player.generation, 42U);
  EXPECT_EQ(got->code, static_cast<std::uint16_t>(QuickPlayPush::kSeated));
  EXPECT_EQ(got->body, "host:1\n{}");
  EXPECT_EQ(for_peer(push, 3), push);
  EXPECT_EQ(for_peer(push, 2), "");
  const std::string request =
      encode(Message{Kind::kRequest, 1, PlayerRef{"p1", "n", {}, 3}, 0, "{}"});
  EXPECT_EQ(for_peer(request, 2), request);
  EXPECT_EQ(for_peer(request, 1), for_older_peer(request));
  EXPECT_EQ(link_format_of(""), 1);
  EXPECT_EQ(link_format_of("2"), 2);
  EXPECT_EQ(link_format_of("3"), 3);
  EXPECT_EQ(link_format_of("x"), 1);
}

}  // namespace
}  // namespace parlor::server::link
