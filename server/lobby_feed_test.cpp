// The lobby feed without sockets or timers: rooms go in as values, frames come out on
// connections that keep what they were sent.
#include "server/lobby_feed.h"

#include <gtest/gtest.h>

namespace parlor::server {
namespace {

// A subscriber's end: the frames the feed sent it, decoded.
class Inbox : public Connection {
 public:
  void send(Frame frame) override { frames.push_back(Json::parse(frame->payload())); }
  void close(std::uint16_t, std::string) override {}
  std::vector<Json> frames;
};

std::shared_ptr<const protocol::RoomSummary> room(const std::string& id, const std::string& kind,
                                                  int free_seats = 1) {
  protocol::RoomSummary summary;
  summary.room = id;
  summary.kind = kind;
  summary.seats.push_back(protocol::SeatSummary{"p1", "ann", false, true});
  for (int i = 0; i < free_seats; ++i) summary.seats.emplace_back(std::nullopt);
  return std::make_shared<const protocol::RoomSummary>(std::move(summary));
}

std::vector<std::string> ids(const Json& list) {
  std::vector<std::string> out;
  for (const Json& item : list)
    out.push_back(item.is_string() ? item.get<std::string>() : item.value("room", ""));
  return out;
}

class LobbyFeedTest : public ::testing::Test {
 protected:
  LobbyFeed::Rooms rooms() const { return LobbyFeed::Rooms{local, remote}; }

  Metrics metrics;
  LobbyFeed feed{metrics};
  std::vector<std::shared_ptr<const protocol::RoomSummary>> local;
  std::vector<Json> remote;
};

TEST_F(LobbyFeedTest, ASubscriberGetsASnapshotWithItsReThenOnlyWhatChanged) {
  local = {room("b", "spades"), room("a", "bigtwo")};
  auto inbox = std::make_shared<Inbox>();
  feed.subscribe(inbox, std::nullopt, 7, rooms());
  ASSERT_EQ(inbox->frames.size(), 1U);
  EXPECT_EQ(inbox->frames[0]["type"], "lobby");
  EXPECT_EQ(inbox->frames[0]["re"], 7);
  EXPECT_EQ(ids(inbox->frames[0]["rooms"]), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(metrics.lobby_subscribers.load(), 1);

  feed.publish(rooms());  // nothing changed: nothing sent
  EXPECT_EQ(inbox->frames.size(), 1U);

  local[0] = room("b", "spades", 0);     // b filled up
  local.push_back(room("c", "bigtwo"));  // c opened
  local.erase(local.begin() + 1);        // a went away
  feed.publish(rooms());
  ASSERT_EQ(inbox->frames.size(), 4U);
  EXPECT_EQ(inbox->frames[1]["type"], "room_added");
  EXPECT_EQ(ids(inbox->frames[1]["rooms"]), std::vector<std::string>{"c"});
  EXPECT_EQ(inbox->frames[2]["type"], "room_changed");
  EXPECT_EQ(inbox->frames[2]["rooms"][0]["seats"].size(), 1U);
  EXPECT_EQ(inbox->frames[3]["type"], "room_removed");
  EXPECT_EQ(ids(inbox->frames[3]["rooms"]), std::vector<std::string>{"a"});
  EXPECT_FALSE(inbox->frames[3].contains("re"));
}

TEST_F(LobbyFeedTest, ARoomThatChangedManyTimesBetweenPublishesIsPushedOnceAsItIsNow) {
  local = {room("a", "bigtwo", 3)};
  auto inbox = std::make_shared<Inbox>();
  feed.subscribe(inbox, std::nullopt, nullptr, rooms());
  for (int free = 2; free >= 0; --free) local[0] = room("a", "bigtwo", free);
  feed.publish(rooms());
  ASSERT_EQ(inbox->frames.size(), 2U);
  EXPECT_EQ(inbox->frames[1]["rooms"][0]["seats"].size(), 1U);
  // A new summary equal to the one shown is not a change.
  local[0] = room("a", "bigtwo", 0);
  feed.publish(rooms());
  EXPECT_EQ(inbox->frames.size(), 2U);
}

TEST_F(LobbyFeedTest, AKindFilterSeesOnlyItsKindAndBothShareOneEncodedFrame) {
  local = {room("a", "bigtwo")};
  auto all = std::make_shared<Inbox>();
  auto spades = std::make_shared<Inbox>();
  auto spades_too = std::make_shared<Inbox>();
  feed.subscribe(all, std::nullopt, 1, rooms());
  feed.subscribe(spades, std::string("spades"), 2, rooms());
  feed.subscribe(spades_too, std::string("spades"), 3, rooms());
  EXPECT_TRUE(spades->frames[0]["rooms"].empty());
  EXPECT_EQ(spades->frames[0]["kind"], "spades");
  local.push_back(room("s", "spades"));
  local.push_back(room("t", "bigtwo"));
  feed.publish(rooms());
  ASSERT_EQ(all->frames.size(), 2U);
  EXPECT_EQ(ids(all->frames[1]["rooms"]), (std::vector<std::string>{"s", "t"}));
  ASSERT_EQ(spades->frames.size(), 2U);
  EXPECT_EQ(ids(spades->frames[1]["rooms"]), std::vector<std::string>{"s"});
  EXPECT_EQ(spades_too->frames[1], spades->frames[1]);
  EXPECT_EQ(metrics.lobby_push_frames.load(), 3U);
  // A bigtwo-only change says nothing to the spades subscribers.
  local.pop_back();
  feed.publish(rooms());
  EXPECT_EQ(all->frames.size(), 3U);
  EXPECT_EQ(spades->frames.size(), 2U);
}

TEST_F(LobbyFeedTest, ResubscribingReplacesTheFilterAndUnsubscribedOrClosedConnectionsGetNothing) {
  auto inbox = std::make_shared<Inbox>();
  feed.subscribe(inbox, std::string("spades"), 1, rooms());
  feed.subscribe(inbox, std::nullopt, 2, rooms());
  EXPECT_EQ(metrics.lobby_subscribers.load(), 1);
  local = {room("a", "bigtwo")};
  feed.publish(rooms());
  ASSERT_EQ(inbox->frames.size(), 3U);  // two snapshots, then bigtwo's room under the new filter

  EXPECT_TRUE(feed.unsubscribe(inbox.get()));
  EXPECT_FALSE(feed.unsubscribe(inbox.get()));
  local.clear();
  feed.publish(rooms());
  EXPECT_EQ(inbox->frames.size(), 3U);

  auto closed = std::make_shared<Inbox>();
  feed.subscribe(closed, std::nullopt, 1, rooms());
  closed.reset();  // the session went away without unsubscribing
  local = {room("b", "bigtwo")};
  feed.publish(rooms());
  EXPECT_FALSE(feed.has_subscribers());
  EXPECT_EQ(metrics.lobby_subscribers.load(), 0);
}

TEST_F(LobbyFeedTest, OtherNodesRoomsAreComparedByValueAndALocalCopyWins) {
  remote = {protocol::room_summary_json(*room("r", "spades"))};
  auto inbox = std::make_shared<Inbox>();
  feed.subscribe(inbox, std::nullopt, 1, rooms());
  EXPECT_EQ(ids(inbox->frames[0]["rooms"]), std::vector<std::string>{"r"});
  feed.publish(rooms());  // read again from Redis: equal, so no push
  EXPECT_EQ(inbox->frames.size(), 1U);
  // The room moved here (its old node still lists it): one entry, changed once.
  local = {room("r", "spades", 0)};
  feed.publish(rooms());
  ASSERT_EQ(inbox->frames.size(), 2U);
  EXPECT_EQ(inbox->frames[1]["type"], "room_changed");
  EXPECT_EQ(inbox->frames[1]["rooms"].size(), 1U);
}

}  // namespace
}  // namespace parlor::server
