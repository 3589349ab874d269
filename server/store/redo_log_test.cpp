// The redo log's file (frames, generations, torn tails, growth) and the encoding of the
// store's writes in it. What the store does with it (replay after a power loss) is in
// sqlite_store_test.cpp.
#include "server/store/redo_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

#include "server/store/redo_records.h"
#include "server/store/store_test_records.h"

namespace parlor::server {
namespace {

namespace fs = std::filesystem;
using namespace store_test;

class RedoLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "parlor-redo-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path file() const { return dir_ / "parlor.db.redo"; }

  // The batches and payloads `generation` has in the file, as a new process reads them.
  std::vector<std::pair<std::uint64_t, std::string>> frames(std::uint64_t generation) const {
    std::vector<std::pair<std::uint64_t, std::string>> out;
    for (auto& frame : RedoLog(file()).read(generation)) {
      out.emplace_back(frame.batch, std::move(frame.payload));
    }
    return out;
  }
  // Overwrites bytes of the file at `at`, as a torn write leaves them.
  void overwrite(std::uint64_t at, const std::string& bytes) const {
    std::fstream out(file(), std::ios::binary | std::ios::in | std::ios::out);
    out.seekp(static_cast<std::streamoff>(at));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }

  fs::path dir_;
};

using Frames = std::vector<std::pair<std::uint64_t, std::string>>;

TEST(Crc32c, MatchesTheStandardCheckValue) {
  EXPECT_EQ(crc32c("123456789"), 0xE3069283U);
  EXPECT_EQ(crc32c("56789", crc32c("1234")), 0xE3069283U) << "it continues across pieces";
  EXPECT_EQ(crc32c(""), 0U);
  EXPECT_EQ(crc32c_bytewise("123456789"), 0xE3069283U);
}

TEST(Crc32c, TheInstructionAndTheTableAgree) {
  // Every length up to 100 (the instruction takes eight bytes at a time, then single bytes), at
  // every alignment within a word, continued from another piece's CRC.
  std::string bytes;
  for (int i = 0; i < 120; ++i) bytes.push_back(static_cast<char>(i * 37 + 11));
  for (std::size_t start = 0; start < 8; ++start) {
    for (std::size_t size = 0; start + size <= 108; ++size) {
      const std::string_view piece = std::string_view(bytes).substr(start, size);
      ASSERT_EQ(crc32c(piece), crc32c_bytewise(piece)) << "start " << start << " size " << size;
      ASSERT_EQ(crc32c(piece, 0x12345678U), crc32c_bytewise(piece, 0x12345678U));
    }
  }
}

TEST_F(RedoLogTest, FramesAreReadBackInOrderByTheNextProcess) {
  {
    RedoLog log(file());
    EXPECT_TRUE(log.read(1).empty());
    log.append(1, 1, "first");
    log.append(1, 2, std::string(5000, 'x'));
    log.append(1, 3, "");
    EXPECT_EQ(log.tail(), 3 * RedoLog::kHeaderBytes + 5 + 5000);
  }
  EXPECT_EQ(frames(1), (Frames{{1, "first"}, {2, std::string(5000, 'x')}, {3, ""}}));
  EXPECT_TRUE(frames(2).empty()) << "another generation's frames are not these";
}

TEST_F(RedoLogTest, ATornLastFrameAndTheBytesAfterItAreIgnored) {
  std::uint64_t third = 0;
  {
    RedoLog log(file());
    log.append(7, 1, "one");
    log.append(7, 2, "two");
    third = log.tail();
    log.append(7, 3, "three");
  }
  // The third frame's last byte never reached the disk: its checksum fails.
  overwrite(third + RedoLog::kHeaderBytes + 4, "?");
  EXPECT_EQ(frames(7), (Frames{{1, "one"}, {2, "two"}}));
  // Noise where a fourth frame would start is not a frame either.
  overwrite(third, std::string(RedoLog::kHeaderBytes + 8, '\x5a'));
  EXPECT_EQ(frames(7), (Frames{{1, "one"}, {2, "two"}}));
}

TEST_F(RedoLogTest, ANewGenerationFromTheStartHidesTheOlderFramesAfterIt) {
  RedoLog log(file());
  for (std::uint64_t batch = 1; batch <= 4; ++batch) log.append(1, batch, "old");
  log.rewind();
  log.append(2, 1, "new");
  // The old generation's frames 2..4 are still in the file after the new frame; they are not
  // read as part of generation 2, and generation 1 is gone from the start.
  EXPECT_EQ(frames(2), (Frames{{1, "new"}}));
  EXPECT_TRUE(frames(1).empty());
}

TEST_F(RedoLogTest, ATakenBackFrameIsNotReadAndTheNextAppendReplacesIt) {
  RedoLog log(file());
  log.append(3, 1, "kept");
  const std::uint64_t tail = log.tail();
  log.append(3, 2, "not committed");
  log.retract_last();
  EXPECT_EQ(log.tail(), tail);
  EXPECT_EQ(frames(3), (Frames{{1, "kept"}}));
  log.append(3, 2, "committed");
  EXPECT_EQ(frames(3), (Frames{{1, "kept"}, {2, "committed"}}));
}

TEST_F(RedoLogTest, FramesNumberedOutOfSequenceEndTheLog) {
  RedoLog log(file());
  log.append(4, 1, "a");
  log.append(4, 3, "c");
  EXPECT_EQ(frames(4), (Frames{{1, "a"}}));
}

TEST_F(RedoLogTest, TheFileGrowsAMegabyteAtATime) {
  RedoLog log(file());
  EXPECT_EQ(fs::file_size(file()), 0U);
  log.append(1, 1, "small");
  EXPECT_EQ(fs::file_size(file()), std::uint64_t{1} << 20);
  const std::string large((std::size_t{1} << 20) + 100, 'L');
  log.append(1, 2, large);
  EXPECT_EQ(fs::file_size(file()), std::uint64_t{2} << 20);
  log.append(1, 3, std::string(std::size_t{1} << 20, 'F'), /*sync=*/false);
  EXPECT_EQ(fs::file_size(file()), std::uint64_t{3} << 20) << "no capacity: it grows as needed";
  EXPECT_EQ(frames(1).size(), 3U);
}

// ---- the writes' encoding ------------------------------------------------------------------

// Every field set to something other than its default, so a field the decoder dropped shows.
std::vector<StoredWrite> every_kind_of_write() {
  PlayerRecord p = player("p1", 0xAB);
  p.created_ms = 1'700'000'000'000;
  p.last_seen_ms = 1'700'000'123'456;
  RoomRecord r = started(room("r1", "p1"), 3, 0xFEDC'BA98'7654'3210ULL, 41);
  r.occupants = {SeatRecord{"p1", "Ann", std::nullopt}, std::nullopt,
                 SeatRecord{std::nullopt, "Bot", "hard"}};
  r.seats = 3;
  r.game_options = {{"target", 500}, {"variant", "ü"}};
  r.room_options = {{"private", true}};
  r.status = StoredRoomStatus::kFinished;
  r.finished_ms = 1'700'000'999'000;
  r.game_started_ms = 1'700'000'500'000;
  r.epoch = 12;
  r.owner = "node-b";
  MoveRecord m = move("r1", 3, 42, 2);
  m.state_hash = 0xFFFF'FFFF'FFFF'FFFFULL;
  m.epoch = 12;
  m.at_ms = -5;  // negative values survive the zigzag encoding
  RatedGameRecord g = rated_game("r1", 3, {"p1", "bot:hard"}, {0, 1}, {1, 0});
  g.seats[1].abandoned = true;
  g.epoch = 12;
  g.owner = "node-b";
  return {p, r, m, PruneRoomsBefore{123}, g, PrunePlayersBefore{-456}};
}

std::string encode_all(const std::vector<StoredWrite>& writes) {
  std::string out;
  for (const auto& write : writes) encode_write(write, out);
  return out;
}

TEST(RedoRecords, EveryKindOfWriteDecodesToWhatWasEncoded) {
  const auto writes = every_kind_of_write();
  const std::string payload = encode_all(writes);
  const auto decoded = decode_writes(payload);
  ASSERT_EQ(decoded.size(), writes.size());
  for (std::size_t i = 0; i < writes.size(); ++i) EXPECT_EQ(decoded[i].index(), writes[i].index());
  EXPECT_EQ(encode_all(decoded), payload) << "no field is lost or changed";
  const auto& r = std::get<RoomRecord>(decoded[1]);
  EXPECT_EQ(r.seed, 0xFEDC'BA98'7654'3210ULL);
  EXPECT_EQ(r.game_options.at("variant"), "ü");
  ASSERT_EQ(r.occupants.size(), 3U);
  EXPECT_FALSE(r.occupants[1].has_value());
  EXPECT_EQ(r.occupants[2]->bot, "hard");
  const auto& m = std::get<MoveRecord>(decoded[2]);
  EXPECT_EQ(m.state_hash, 0xFFFF'FFFF'FFFF'FFFFULL);
  EXPECT_EQ(m.at_ms, -5);
  EXPECT_EQ(m.move, move("r1", 3, 42, 2).move);
  EXPECT_EQ(std::get<PrunePlayersBefore>(decoded[5]).before_ms, -456);
  EXPECT_EQ(std::get<PlayerRecord>(decoded[0]).token_hash, player("p1", 0xAB).token_hash);
}

TEST(RedoRecords, APayloadCutInsideAWriteOrWithAnUnknownTagIsAnError) {
  const std::string payload = encode_all(every_kind_of_write());
  std::size_t errors = 0;
  std::size_t whole = 0;
  for (std::size_t cut = 0; cut < payload.size(); ++cut) {
    try {
      decode_writes(std::string_view(payload).substr(0, cut));
      ++whole;  // cut between two writes
    } catch (const StoreError&) {
      ++errors;
    }
  }
  EXPECT_EQ(whole, 6U) << "the empty payload and the five boundaries between writes";
  EXPECT_EQ(errors, payload.size() - 6);
  EXPECT_THROW(decode_writes(std::string(1, '\x09')), StoreError);
}

// The store remembers the seats it last wrote for a room by this encoding, and leaves the seats'
// rows alone when a room record's encoding is the same: occupants that differ in any field, or
// in where a field ends, must never encode alike.
TEST(RedoRecords, OccupantsEncodeAlikeOnlyWhenTheyAreTheSame) {
  using Seats = std::vector<std::optional<SeatRecord>>;
  const Seats seats = {SeatRecord{"p1", "Ann", std::nullopt}, std::nullopt,
                       SeatRecord{std::nullopt, "Bot", "hard"}};
  EXPECT_EQ(encode_occupants(seats), encode_occupants(Seats(seats)));
  const std::vector<Seats> others = {
      {SeatRecord{"p1", "Ann", std::nullopt}, std::nullopt},                // a seat fewer
      {SeatRecord{"p1", "Ann", std::nullopt}, std::nullopt, std::nullopt},  // the bot gone
      {SeatRecord{"p1", "Ann", "easy"}, std::nullopt,                       // a stand-in bot
       SeatRecord{std::nullopt, "Bot", "hard"}},
      {SeatRecord{"p1", "Ann", std::nullopt}, std::nullopt,  // another bot
       SeatRecord{std::nullopt, "Bot", "easy"}},
      {SeatRecord{"p1", "Ann", std::nullopt}, std::nullopt,  // a player's seat
       SeatRecord{"Bot", "", "hard"}},
      {SeatRecord{"p1", "Anne", std::nullopt}, std::nullopt,  // a new name
       SeatRecord{std::nullopt, "Bot", "hard"}},
      {std::nullopt, SeatRecord{"p1", "Ann", std::nullopt},  // another seat
       SeatRecord{std::nullopt, "Bot", "hard"}},
      {SeatRecord{"p1A", "nn", std::nullopt}, std::nullopt,  // a shifted end
       SeatRecord{std::nullopt, "Bot", "hard"}},
      {SeatRecord{"p2", "Ann", std::nullopt}, std::nullopt,  // another player
       SeatRecord{std::nullopt, "Bot", "hard"}},
  };
  for (std::size_t i = 0; i < others.size(); ++i) {
    EXPECT_NE(encode_occupants(others[i]), encode_occupants(seats)) << "case " << i;
  }
}

}  // namespace
}  // namespace parlor::server
