#include "server/lobby.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>

#include "server/config.h"
#include "server/identity.h"
#include "server/metrics.h"
#include "server/store/store.h"

namespace parlor::server {
namespace {

// A restarted server lists its rooms from the moment they are restored, before any room's
// strand has run: a client that lists rooms as soon as the server answers sees them all. (The
// io_context here never runs, so nothing posted to a room can have happened.)
TEST(Lobby, ARestoredRoomIsListedBeforeItsStrandRuns) {
  boost::asio::io_context io;
  const ServerConfig config;
  Metrics metrics;
  Lobby lobby(io, config, metrics);
  Identity identity;
  std::string token;
  const auto bob = identity.create("bob", token);

  LoadedState stored;
  LoadedRoom room;
  room.room.id = "r1";
  room.room.kind = "bigtwo";
  room.room.seats = 2;
  room.room.occupants = {std::nullopt, SeatRecord{bob->id(), "Bobby Tables", std::nullopt}};
  stored.rooms.push_back(room);
  EXPECT_EQ(lobby.restore(stored, identity), 0);

  const auto listed = lobby.list_rooms();
  ASSERT_EQ(listed.size(), 1U);
  EXPECT_EQ(listed[0].room, "r1");
  EXPECT_EQ(listed[0].kind, "bigtwo");
  ASSERT_EQ(listed[0].seats.size(), 2U);
  EXPECT_FALSE(listed[0].seats[0]);
  ASSERT_TRUE(listed[0].seats[1]);
  EXPECT_EQ(listed[0].seats[1]->name, "Bobby Tables");
}

}  // namespace
}  // namespace parlor::server
