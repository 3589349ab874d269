#include "server/room_listing.h"

#include <gtest/gtest.h>

namespace parlor::server {
namespace {

Json summary(const std::string& id, const std::string& kind, const std::string& status,
             bool free_seat) {
  Json seats = Json::array({Json{{"seat", 0}, {"player", "p"}}});
  seats.push_back(free_seat ? Json() : Json{{"seat", 1}, {"player", "q"}});
  return {{"type", "room"}, {"room", id}, {"kind", kind}, {"status", status}, {"seats", seats}};
}

std::vector<std::string> page_ids(const Json& page) {
  std::vector<std::string> out;
  for (const Json& room : page["rooms"]) out.push_back(room["room"]);
  return out;
}

const std::vector<Json> kRooms = {
    summary("d", "spades", "waiting", true), summary("a", "bigtwo", "waiting", true),
    summary("c", "bigtwo", "playing", false), summary("b", "bigtwo", "waiting", false),
    summary("e", "spades", "finished", false)};

TEST(RoomListing, WithoutFiltersEveryRoomInIdOrderAndNoCursor) {
  const Json page = rooms_page(kRooms, {});
  EXPECT_EQ(page["type"], "rooms");
  EXPECT_EQ(page_ids(page), (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  EXPECT_FALSE(page.contains("next"));
}

TEST(RoomListing, FiltersCombine) {
  protocol::ListRooms query;
  query.kind = "bigtwo";
  EXPECT_EQ(page_ids(rooms_page(kRooms, query)), (std::vector<std::string>{"a", "b", "c"}));
  query.status = "waiting";
  EXPECT_EQ(page_ids(rooms_page(kRooms, query)), (std::vector<std::string>{"a", "b"}));
  query.free_seat = true;
  EXPECT_EQ(page_ids(rooms_page(kRooms, query)), std::vector<std::string>{"a"});
  query.kind = "agram";
  EXPECT_TRUE(rooms_page(kRooms, query)["rooms"].empty());
}

TEST(RoomListing, PagesFollowTheCursorAndStayStableWhenRoomsComeAndGo) {
  protocol::ListRooms query;
  query.limit = 2;
  Json page = rooms_page(kRooms, query);
  EXPECT_EQ(page_ids(page), (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(page["next"], "b");
  // Meanwhile "a" closes and "aa" opens before the cursor, "bb" after it.
  std::vector<Json> later;
  for (const Json& room : kRooms) {
    if (room["room"] != "a") later.push_back(room);
  }
  later.push_back(summary("aa", "bigtwo", "waiting", true));
  later.push_back(summary("bb", "bigtwo", "waiting", true));
  query.after = page["next"].get<std::string>();
  page = rooms_page(later, query);
  EXPECT_EQ(page_ids(page), (std::vector<std::string>{"bb", "c"}));
  query.after = page["next"].get<std::string>();
  page = rooms_page(later, query);
  EXPECT_EQ(page_ids(page), (std::vector<std::string>{"d", "e"}));
  EXPECT_FALSE(page.contains("next")) << "the last page has no cursor";
}

}  // namespace
}  // namespace parlor::server
