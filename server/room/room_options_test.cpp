#include "server/room/room_options.h"

#include <gtest/gtest.h>

namespace parlor::server {
namespace {

using namespace std::chrono_literals;

TEST(RoomOptions, TakenOutOfCreateRoomOptionsLeavingTheGames) {
  Json options = {{"private", true},      {"grace", 5},  {"turn_seconds", 30},
                  {"on_timeout", "pass"}, {"seed", 42u}, {"suit_order", "x"}};
  RoomOptions room;
  ASSERT_EQ(extract_room_options(options, /*allow_seed=*/true, room), std::nullopt);
  EXPECT_EQ(options, Json({{"suit_order", "x"}}));
  EXPECT_TRUE(room.is_private);
  EXPECT_EQ(room.grace, 5s);
  EXPECT_EQ(room.turn_seconds, 30s);
  EXPECT_EQ(room.on_timeout, OnTimeout::kPass);
  EXPECT_EQ(room.seed, 42u);
}

TEST(RoomOptions, StoredFormRoundTrips) {
  RoomOptions room;
  room.is_private = true;
  room.grace = 90s;
  room.turn_seconds = 15s;
  room.on_timeout = OnTimeout::kPass;
  room.seed = 7;
  EXPECT_EQ(room_options_from_json(room_options_json(room)), room);
  EXPECT_EQ(room_options_from_json(room_options_json(RoomOptions{})), RoomOptions{});
  // Records written before a key existed read with its default.
  EXPECT_EQ(room_options_from_json(Json::object()), RoomOptions{});
  EXPECT_EQ(room_options_json(RoomOptions{}),
            Json({{"private", false}, {"grace", 60}, {"turn_seconds", 0}, {"on_timeout", "bot"}}));
}

// Seen while writing store_record_fuzz: value() throws on a stored "private":"yes", which
// stopped the recovery, and a stored grace of 2^62 seconds overflows the clock arithmetic.
TEST(RoomOptions, AStoredValueOfTheWrongTypeOrRangeKeepsItsDefault) {
  EXPECT_EQ(room_options_from_json(Json::parse(
                R"({"private":"yes","grace":"60","turn_seconds":-5,"on_timeout":3,"seed":-1})")),
            RoomOptions{});
  EXPECT_EQ(room_options_from_json(Json::parse(R"({"grace":4611686018427387904})")), RoomOptions{});
  RoomOptions kept;
  kept.grace = 30s;
  EXPECT_EQ(room_options_from_json(Json::parse(R"({"private":null,"grace":30})")), kept);
}

TEST(RoomOptions, EachBadOptionIsNamed) {
  const std::pair<Json, std::string> cases[] = {
      {{{"seed", 1}}, "--dev"},
      {{{"private", "yes"}}, "\"private\""},
      {{{"grace", -1}}, "\"grace\""},
      {{{"grace", 86'401}}, "\"grace\""},
      {{{"turn_seconds", 3601}}, "\"turn_seconds\""},
      {{{"turn_seconds", "soon"}}, "\"turn_seconds\""},
      {{{"on_timeout", "explode"}}, "\"on_timeout\""},
  };
  for (const auto& [bad, names] : cases) {
    Json options = bad;
    RoomOptions room;
    auto error = extract_room_options(options, /*allow_seed=*/false, room);
    ASSERT_TRUE(error) << bad.dump();
    EXPECT_NE(error->find(names), std::string::npos) << *error;
  }
  Json seed = {{"seed", -3}};
  RoomOptions room;
  EXPECT_TRUE(extract_room_options(seed, /*allow_seed=*/true, room));
}

}  // namespace
}  // namespace parlor::server
