// Acknowledged appends per second: SQLite against PostgreSQL, with and without group commit,
// and the same producers with no store at all (what the harness itself costs). Run by hand:
//   build/release/server/store/store_bench --benchmark_min_time=2
// SQLite's file and PostgreSQL's cluster (a throwaway server, fsync on, over TCP on
// 127.0.0.1) both live in fresh temporary directories on the file system of /tmp, so the
// numbers are that disk's fsync rate.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <thread>
#include <vector>

#include "server/store/postgres_store.h"
#include "server/store/sqlite_store.h"
#include "server/store/testing/postgres_server.h"

namespace {

using namespace parlor::server;
namespace fs = std::filesystem;

enum class Backend { kNone, kSqlite, kPostgres };

// One PostgreSQL server for the whole run, with fsync on: a commit costs what it costs in
// production.
testing::PostgresServer& postgres() {
  static testing::PostgresServer server([] {
    testing::PostgresServerOptions options;
    options.fsync = true;
    return options;
  }());
  return server;
}

struct TempStore {
  TempStore(Backend backend, std::chrono::microseconds window, std::size_t max_batch) {
    if (backend == Backend::kNone) return;
    if (backend == Backend::kSqlite) {
      std::string pattern = (fs::temp_directory_path() / "parlor-bench-XXXXXX").string();
      if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
      dir = pattern;
      SqliteStoreOptions options;
      options.data_dir = dir;
      options.batch_window = window;
      options.max_batch = max_batch;
      store = std::make_unique<SqliteStore>(options);
    } else {
      static int databases = 0;
      PostgresStoreOptions options;
      options.url = postgres().create_database("bench" + std::to_string(++databases));
      options.batch_window = window;
      options.max_batch = max_batch;
      store = std::make_unique<PostgresStore>(options);
    }
    PlayerRecord player{"p1", "P", {}, 0};
    store->save_player(player, nullptr);
    RoomRecord room;
    room.id = "r1";
    room.kind = "hearts";
    room.seats = 4;
    room.status = StoredRoomStatus::kPlaying;
    room.game_number = 1;
    store->save_room(room, nullptr);
    store->flush();
  }
  ~TempStore() {
    store.reset();
    if (!dir.empty()) fs::remove_all(dir);
  }
  fs::path dir;
  std::unique_ptr<Store> store;  // null: no store, the callback runs at once
};

// `threads` producers each append a move and wait for its on_durable, like rooms waiting to
// send `ok`: items/s is acknowledged moves per second.
void run_appends(benchmark::State& state, Backend backend, std::chrono::microseconds window,
                 std::size_t max_batch) {
  const int producers = static_cast<int>(state.range(0));
  std::unique_ptr<TempStore> temp;
  try {
    temp = std::make_unique<TempStore>(backend, window, max_batch);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  std::atomic<std::int64_t> next_seq{1};
  std::atomic<int> failed{0};
  std::int64_t total = 0;
  for (auto _ : state) {
    constexpr int kPerProducer = 50;
    std::vector<std::thread> threads;
    for (int p = 0; p < producers; ++p) {
      threads.emplace_back([&] {
        for (int i = 0; i < kPerProducer; ++i) {
          std::atomic<bool> done{false};
          const std::int64_t seq = next_seq.fetch_add(1);
          MoveRecord move{"r1", 1, seq, 0, {{"action", "pass"}}, 0, std::nullopt};
          const auto acknowledge = [&](WriteResult result) {
            if (result != WriteResult::kDurable) failed.fetch_add(1);
            done.store(true);
            done.notify_one();
          };
          if (temp->store) {
            temp->store->append_move(std::move(move), acknowledge);
          } else {
            acknowledge(WriteResult::kDurable);
          }
          done.wait(false);
        }
      });
    }
    for (auto& thread : threads) thread.join();
    total += producers * kPerProducer;
  }
  if (failed > 0) state.SkipWithError("some appends failed");
  state.SetItemsProcessed(total);
  if (temp->store) {
    state.counters["moves_per_commit"] =
        static_cast<double>(total + 2) / static_cast<double>(temp->store->stats().batches);
  }
}

constexpr auto kGroupWindow = std::chrono::microseconds(500);  // the server's default

void BM_AppendNoStore(benchmark::State& state) {
  run_appends(state, Backend::kNone, kGroupWindow, 512);
}
void BM_AppendSqliteGroupCommit(benchmark::State& state) {
  run_appends(state, Backend::kSqlite, kGroupWindow, 512);
}
void BM_AppendPostgresGroupCommit(benchmark::State& state) {
  run_appends(state, Backend::kPostgres, kGroupWindow, 512);
}
void BM_AppendSqliteOneCommitEach(benchmark::State& state) {
  run_appends(state, Backend::kSqlite, std::chrono::microseconds(0), 1);
}
void BM_AppendPostgresOneCommitEach(benchmark::State& state) {
  run_appends(state, Backend::kPostgres, std::chrono::microseconds(0), 1);
}

BENCHMARK(BM_AppendNoStore)->Arg(1)->Arg(64)->UseRealTime();
BENCHMARK(BM_AppendSqliteGroupCommit)->Arg(1)->Arg(16)->Arg(64)->UseRealTime();
BENCHMARK(BM_AppendPostgresGroupCommit)->Arg(1)->Arg(16)->Arg(64)->UseRealTime();
BENCHMARK(BM_AppendSqliteOneCommitEach)->Arg(1)->Arg(16)->Arg(64)->UseRealTime();
BENCHMARK(BM_AppendPostgresOneCommitEach)->Arg(1)->Arg(16)->Arg(64)->UseRealTime();

}  // namespace
