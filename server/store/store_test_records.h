// Records and checks shared by the store's tests (store_test.cpp runs them against every
// backend; sqlite_store_test.cpp and postgres_store_test.cpp hold each backend's own).
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "server/store/store.h"

namespace parlor::server::store_test {

inline PlayerRecord player(const std::string& id, unsigned char fill = 7) {
  PlayerRecord out{id, "Name " + id, {}, 1'700'000'000'000};
  out.token_hash.fill(fill);
  out.token_hash[0] = static_cast<unsigned char>(id.size());
  return out;
}

inline RoomRecord room(const std::string& id, const std::string& creator) {
  RoomRecord out;
  out.id = id;
  out.kind = "hearts";
  out.seats = 4;
  out.game_options = {{"target", 100}, {"variant", "omnibus"}};
  out.room_options = {{"private", false}, {"turn_seconds", 30}};
  out.creator_id = creator;
  out.occupants = {SeatRecord{creator, "Name " + creator, std::nullopt}, std::nullopt,
                   SeatRecord{std::nullopt, "Bot 3 (greedy)", "greedy"}, std::nullopt};
  out.created_ms = 1'700'000'000'500;
  return out;
}

inline RoomRecord started(RoomRecord record, int game_number, std::uint64_t seed,
                          std::int64_t start_seq) {
  record.status = StoredRoomStatus::kPlaying;
  record.game_number = game_number;
  record.seed = seed;
  record.start_seq = start_seq;
  record.game_started_ms = 1'700'000'001'000 + game_number;
  record.finished_ms.reset();
  return record;
}

// The record that ends a room's current game: finished, or abandoned by the sweeper.
inline RoomRecord ended(RoomRecord record, StoredRoomStatus status = StoredRoomStatus::kFinished) {
  record.status = status;
  if (status == StoredRoomStatus::kFinished) {
    record.finished_ms = 1'700'000'009'000 + record.game_number;
  }
  return record;
}

// A rated game of `players` (seat by seat), each on side side_of_seat[seat]; side_ranks[side]
// is that side's place (0 first).
inline RatedGameRecord rated_game(const std::string& room_id, int game_number,
                                  std::vector<std::string> players, std::vector<int> side_of_seat,
                                  std::vector<int> side_ranks, const std::string& kind = "agram") {
  RatedGameRecord game;
  game.room_id = room_id;
  game.game_number = game_number;
  game.kind = kind;
  game.finished_ms = 1'700'000'100'000 + game_number;
  for (std::size_t seat = 0; seat < players.size(); ++seat) {
    game.seats.push_back({players[seat], "Name " + players[seat], side_of_seat[seat], false});
  }
  game.side_ranks = std::move(side_ranks);
  game.result = {{"scores", nlohmann::json::array()}, {"winners", nlohmann::json::array()}};
  return game;
}

inline MoveRecord move(const std::string& room_id, int game, std::int64_t seq, int seat = 0) {
  return {room_id,
          game,
          seq,
          seat,
          {{"action", "play"}, {"cards", {"QS", std::to_string(seq)}}},
          1'700'000'002'000 + seq,
          // A checkpoint hash on every third move, with the top bit set to cover the full range.
          seq % 3 == 0 ? std::optional<std::uint64_t>(0x8000'0000'0000'0000ULL +
                                                      static_cast<std::uint64_t>(seq))
                       : std::nullopt};
}

// A callback that counts successes and failures.
struct Outcomes {
  std::atomic<int> ok{0};
  std::atomic<int> failed{0};
  DurableCallback callback() {
    return [this](WriteResult result) {
      (result == WriteResult::kDurable ? ok : failed).fetch_add(1);
    };
  }
};

inline void expect_moves(const std::vector<MoveRecord>& got, const std::string& room_id, int game,
                         std::vector<std::int64_t> seqs) {
  ASSERT_EQ(got.size(), seqs.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    const MoveRecord want = move(room_id, game, seqs[i], got[i].seat);
    EXPECT_EQ(got[i].room_id, room_id);
    EXPECT_EQ(got[i].game_number, game);
    EXPECT_EQ(got[i].seq, want.seq);
    EXPECT_EQ(got[i].move, want.move);
    EXPECT_EQ(got[i].at_ms, want.at_ms);
    EXPECT_EQ(got[i].state_hash, want.state_hash);
  }
}

}  // namespace parlor::server::store_test
