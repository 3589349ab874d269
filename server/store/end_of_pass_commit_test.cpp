// SQLite's group commit at the end of an event loop's pass (Store::commit_pending on a thread
// marked with EndOfPassCommits): the writes such a thread queues wait for that call, are
// committed and acknowledged on it, and share the queue's order with everything the writer
// thread commits.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "games/testing/self_play.h"
#include "server/store/sqlite_store.h"
#include "server/store/store_test_records.h"
#include "server/store/testing/sqlite_file.h"

namespace parlor::server {
namespace {

namespace fs = std::filesystem;
using namespace store_test;
using namespace std::chrono_literals;

class EndOfPassCommitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "parlor-eop-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  SqliteStoreOptions options() {
    SqliteStoreOptions out;
    out.data_dir = dir_;
    out.log_error = [this](std::string_view message) {
      std::lock_guard lock(mutex_);
      logged_.emplace_back(message);
    };
    return out;
  }
  // Runs `body` on a thread of its own marked as an event loop's, and waits for it.
  static void on_event_loop_thread(const std::function<void()>& body) {
    std::thread([&] {
      const EndOfPassCommits marker;
      body();
    }).join();
  }

  fs::path dir_;
  std::mutex mutex_;
  std::vector<std::string> logged_;
};

// What a callback saw: the result and the thread it ran on, in the order they ran.
struct Acks {
  std::mutex mutex;
  std::vector<std::pair<std::string, std::thread::id>> seen;
  DurableCallback operator()(const std::string& what) {
    return [this, what](WriteResult result) {
      std::lock_guard lock(mutex);
      seen.emplace_back(result == WriteResult::kDurable ? what : what + " not durable",
                        std::this_thread::get_id());
    };
  }
  std::vector<std::string> names() {
    std::lock_guard lock(mutex);
    std::vector<std::string> out;
    for (const auto& [name, thread] : seen) out.push_back(name);
    return out;
  }
};

TEST_F(EndOfPassCommitTest, AnEventLoopsWritesAreCommittedAtTheEndOfItsPassOnItsThread) {
  SqliteStore store(options());
  EXPECT_TRUE(store.commits_at_end_of_pass());
  Acks acks;
  on_event_loop_thread([&] {
    store.save_player(player("p1"), acks("p1"));
    store.save_room(started(room("r1", "p1"), 1, 5, 0), acks("r1"));
    for (int seq = 1; seq <= 3; ++seq)
      store.append_move(move("r1", 1, seq), acks(std::to_string(seq)));
    // The writer was not woken: a hundred of its batch windows later nothing is committed.
    std::this_thread::sleep_for(50ms);
    EXPECT_TRUE(acks.names().empty());
    EXPECT_EQ(store.stats().queued, 5u);

    store.commit_pending();
    EXPECT_EQ(acks.names(), (std::vector<std::string>{"p1", "r1", "1", "2", "3"}));
    for (const auto& [name, thread] : acks.seen) EXPECT_EQ(thread, std::this_thread::get_id());
    const StoreStats stats = store.stats();
    EXPECT_EQ(stats.batches, 1u) << "one transaction for the pass";
    EXPECT_EQ(stats.records, 5u);
    EXPECT_EQ(stats.queued, 0u);
    store.commit_pending();  // nothing queued: nothing happens
    EXPECT_EQ(store.stats().batches, 1u);
  });
  store.close();
  SqliteStore reopened(options());
  const auto state = reopened.load();
  ASSERT_EQ(state.rooms.size(), 1u);
  EXPECT_EQ(state.rooms[0].moves.size(), 3u);
}

// What an event loop's pass committed waits for SQLite; the writer, which has nothing else to
// do, writes it to the file once the lag is over.
TEST_F(EndOfPassCommitTest, AnEventLoopsRecordsReachTheFileThroughTheWriterOnceTheLagIsOver) {
  auto with = options();
  with.database_lag = 200ms;
  SqliteStore store(with);
  Acks acks;
  on_event_loop_thread([&] {
    store.save_player(player("p1"), acks("p1"));
    store.save_room(room("r1", "p1"), acks("r1"));
    store.commit_pending();
  });
  EXPECT_EQ(acks.names(), (std::vector<std::string>{"p1", "r1"}));
  EXPECT_EQ(first_value(dir_ / "parlor.db", "SELECT count(*) FROM rooms"), 0)
      << "acknowledged; the file has it a moment later";
  std::int64_t rooms = 0;
  for (int tries = 0; rooms != 1 && tries < 100; ++tries) {
    std::this_thread::sleep_for(50ms);
    rooms = first_value(dir_ / "parlor.db", "SELECT count(*) FROM rooms");
  }
  EXPECT_EQ(rooms, 1);
}

// A flush or a prune wakes the writer; the pass takes only the writes queued before the first
// of them, and the writer commits the rest in order.
TEST_F(EndOfPassCommitTest, APassTakesOnlyTheWritesBeforeAPruneTheRestIsTheWriters) {
  auto with = options();
  with.batch_window = 2s;  // the writer waits this long before it takes the prune
  SqliteStore store(with);
  Acks acks;
  std::thread::id loop_thread;
  on_event_loop_thread([&] {
    loop_thread = std::this_thread::get_id();
    store.save_player(player("p1"), acks("p1"));
    store.save_room(started(room("r1", "p1"), 1, 5, 0), acks("r1"));
    store.append_move(move("r1", 1, 1), acks("1"));
    store.prune_ended_rooms(0);
    store.append_move(move("r1", 1, 2), acks("2"));
    store.commit_pending();
    EXPECT_EQ(acks.names(), (std::vector<std::string>{"p1", "r1", "1"}));
    EXPECT_EQ(store.stats().queued, 2u) << "the prune and the move behind it";
  });
  store.flush();  // cuts the writer's window short
  EXPECT_EQ(acks.names(), (std::vector<std::string>{"p1", "r1", "1", "2"}));
  std::lock_guard lock(acks.mutex);
  EXPECT_EQ(acks.seen[2].second, loop_thread);
  EXPECT_NE(acks.seen[3].second, loop_thread) << "the writer committed the move behind the prune";
}

// A pass that finds the writer committing leaves its writes to it: the writer, once it lets go,
// commits them although none is its own and nothing else wakes it.
TEST_F(EndOfPassCommitTest, APassThatFindsTheWriterCommittingLeavesItsWritesToIt) {
  SqliteStore store(options());
  std::mutex gate_mutex;
  std::condition_variable gate_changed;
  bool writer_inside = false;
  bool let_writer_go = false;
  // A write from a thread that is no event loop: the writer commits it, and its callback holds
  // the writer (and the commit lock) until the pass below has run.
  store.save_player(player("p0"), [&](WriteResult) {
    std::unique_lock lock(gate_mutex);
    writer_inside = true;
    gate_changed.notify_all();
    gate_changed.wait(lock, [&] { return let_writer_go; });
  });
  {
    std::unique_lock lock(gate_mutex);
    ASSERT_TRUE(gate_changed.wait_for(lock, 10s, [&] { return writer_inside; }));
  }
  Acks acks;
  std::thread::id loop_thread;
  on_event_loop_thread([&] {
    loop_thread = std::this_thread::get_id();
    store.save_player(player("p1"), acks("p1"));
    store.commit_pending();  // the writer holds the lock: the pass leaves p1 to it
    EXPECT_TRUE(acks.names().empty());
  });
  {
    std::lock_guard lock(gate_mutex);
    let_writer_go = true;
  }
  gate_changed.notify_all();
  const auto give_up = std::chrono::steady_clock::now() + 10s;
  while (acks.names().empty() && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(1ms);
  }
  ASSERT_EQ(acks.names(), std::vector<std::string>{"p1"}) << "the writer never took p1";
  std::lock_guard lock(acks.mutex);
  EXPECT_NE(acks.seen[0].second, loop_thread);
}

TEST_F(EndOfPassCommitTest, ClosingCommitsWhatAnEventLoopLeftQueued) {
  Acks acks;
  {
    SqliteStore store(options());
    on_event_loop_thread([&] {
      store.save_player(player("p1"), acks("p1"));
      store.save_room(started(room("r1", "p1"), 1, 5, 0), acks("r1"));
      store.append_move(move("r1", 1, 1), acks("1"));
    });
    store.close();
    EXPECT_EQ(acks.names(), (std::vector<std::string>{"p1", "r1", "1"}));
    // After close a pass has nothing to do, and later writes fail at once.
    on_event_loop_thread([&] {
      store.commit_pending();
      store.append_move(move("r1", 1, 2), acks("2"));
    });
    EXPECT_EQ(acks.names().back(), "2 not durable");
  }
  SqliteStore reopened(options());
  const auto state = reopened.load();
  ASSERT_EQ(state.rooms.size(), 1u);
  EXPECT_EQ(state.rooms[0].moves.size(), 1u);
}

TEST_F(EndOfPassCommitTest, AFlushFromACallbackOnAnEventLoopIsReportedNotADeadlock) {
  SqliteStore store(options());
  bool called = false;
  on_event_loop_thread([&] {
    store.save_player(player("p1"), [&](WriteResult) {
      store.flush();
      called = true;
    });
    store.commit_pending();
  });
  EXPECT_TRUE(called);
  std::lock_guard lock(mutex_);
  ASSERT_EQ(logged_.size(), 1u);
  EXPECT_NE(logged_[0].find("flush() called from an on_durable callback"), std::string::npos);
}

// Several event loops, each queueing its room's moves and ending passes at random points, with
// a thread that is no event loop appending to a room of its own and flushing: every write is
// committed once, each room's callbacks come in the order of its moves, and everything is
// there after a reopen. PARLOR_SEED=N runs another interleaving of passes.
TEST_F(EndOfPassCommitTest, ManyEventLoopsAndTheWriterCommitEveryWriteOnceInOrder) {
  const auto seed = static_cast<unsigned>(parlor::testing::test_seed(20261129));
  std::cout << "seed " << seed << " (PARLOR_SEED)\n";
  constexpr int kLoops = 4;
  constexpr int kMoves = 300;
  SqliteStore store(options());
  for (int room_number = 0; room_number <= kLoops; ++room_number) {
    const std::string id = "r" + std::to_string(room_number);
    store.save_player(player("p" + std::to_string(room_number)), nullptr);
    store.save_room(started(room(id, "p" + std::to_string(room_number)), 1, 5, 0), nullptr);
  }
  store.flush();

  std::mutex mutex;
  std::map<std::string, std::vector<std::int64_t>> acknowledged;
  std::atomic<int> failures{0};
  const auto append = [&](const std::string& id, int seq) {
    store.append_move(move(id, 1, seq), [&, id, seq](WriteResult result) {
      if (result != WriteResult::kDurable) failures.fetch_add(1);
      std::lock_guard lock(mutex);
      acknowledged[id].push_back(seq);
    });
  };
  std::vector<std::thread> threads;
  threads.reserve(kLoops + 1);
  for (int loop = 0; loop < kLoops; ++loop) {
    threads.emplace_back([&, loop] {
      const EndOfPassCommits marker;
      std::mt19937 random(seed + static_cast<unsigned>(loop));
      const std::string id = "r" + std::to_string(loop);
      for (int seq = 1; seq <= kMoves; ++seq) {
        append(id, seq);
        if (random() % 8 == 0) store.commit_pending();
      }
      store.commit_pending();  // a pass always ends with one
    });
  }
  threads.emplace_back([&] {
    std::mt19937 random(seed + kLoops);
    const std::string id = "r" + std::to_string(kLoops);
    for (int seq = 1; seq <= kMoves; ++seq) {
      append(id, seq);
      if (random() % 50 == 0) store.flush();
    }
  });
  for (auto& thread : threads) thread.join();
  store.flush();

  EXPECT_EQ(failures, 0);
  for (int room_number = 0; room_number <= kLoops; ++room_number) {
    const auto& seqs = acknowledged["r" + std::to_string(room_number)];
    ASSERT_EQ(seqs.size(), static_cast<std::size_t>(kMoves)) << "room " << room_number;
    for (int i = 0; i < kMoves; ++i) EXPECT_EQ(seqs[static_cast<std::size_t>(i)], i + 1);
  }
  const StoreStats stats = store.stats();
  EXPECT_EQ(stats.records, static_cast<std::uint64_t>((kLoops + 1) * (kMoves + 2)));
  EXPECT_EQ(stats.queued, 0u);
  store.close();

  SqliteStore reopened(options());
  const auto state = reopened.load();
  ASSERT_EQ(state.rooms.size(), static_cast<std::size_t>(kLoops + 1));
  for (const auto& loaded : state.rooms)
    EXPECT_EQ(loaded.moves.size(), static_cast<std::size_t>(kMoves));
}

// A generation of the redo log that an event loop's commit fills is started by the writer
// thread (copying the live games forward and SQLite's fsync are not an event loop's to wait
// for), while the event loop goes on committing: nothing is lost either way.
TEST_F(EndOfPassCommitTest, TheWriterStartsTheNextGenerationAnEventLoopFilled) {
  auto with = options();
  with.redo_rotate_bytes = 1024;
  constexpr int kMoves = 200;
  {
    SqliteStore store(with);
    store.save_player(player("p1"), nullptr);
    store.save_room(started(room("r1", "p1"), 1, 11, 0), nullptr);
    store.flush();
    std::atomic<int> durable{0};
    on_event_loop_thread([&] {
      for (int seq = 1; seq <= kMoves; ++seq) {
        store.append_move(move("r1", 1, seq), [&](WriteResult result) {
          if (result == WriteResult::kDurable) durable.fetch_add(1);
        });
        store.commit_pending();
      }
    });
    // Passes that found the writer starting a generation left their writes to it.
    store.flush();
    EXPECT_EQ(durable.load(), kMoves);
  }
  SqliteStore store(with);
  const auto state = store.load();
  ASSERT_EQ(state.rooms.size(), 1U);
  EXPECT_EQ(state.rooms[0].moves.size(), static_cast<std::size_t>(kMoves));
  EXPECT_TRUE(logged_.empty()) << logged_.front();
  // The data file names a later generation than the one opening started: the writer started
  // them (each carries the game's moves so far, so each is about twice as long as the last).
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2((dir_ / "parlor.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr),
            SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT generation FROM redo_state", -1, &statement, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(statement), SQLITE_ROW);
  EXPECT_GE(sqlite3_column_int64(statement, 0), 3);
  sqlite3_finalize(statement);
  sqlite3_close(db);
}

}  // namespace
}  // namespace parlor::server
