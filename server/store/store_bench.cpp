// Appends per second through SqliteStore, with and without group commit. Run by hand:
//   build/.../server/store/store_bench --benchmark_min_time=2s
// The file lives in a fresh temporary directory on the same file system as /tmp, so the
// numbers are that disk's fsync rate.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <thread>
#include <vector>

#include "server/store/sqlite_store.h"

namespace {

using namespace parlor::server;
namespace fs = std::filesystem;

struct TempStore {
  explicit TempStore(std::chrono::microseconds window, std::size_t max_batch) {
    std::string pattern = (fs::temp_directory_path() / "parlor-bench-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir = pattern;
    SqliteStoreOptions options;
    options.data_dir = dir;
    options.batch_window = window;
    options.max_batch = max_batch;
    store = std::make_unique<SqliteStore>(options);
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
    fs::remove_all(dir);
  }
  fs::path dir;
  std::unique_ptr<SqliteStore> store;
};

// `threads` producers each append a move and wait for its on_durable, like rooms waiting to
// send `ok`: items/s is acknowledged moves per second.
void run_appends(benchmark::State& state, std::chrono::microseconds window, std::size_t max_batch) {
  const int producers = static_cast<int>(state.range(0));
  TempStore temp(window, max_batch);
  std::atomic<std::int64_t> next_seq{1};
  std::int64_t total = 0;
  for (auto _ : state) {
    constexpr int kPerProducer = 50;
    std::vector<std::thread> threads;
    for (int p = 0; p < producers; ++p) {
      threads.emplace_back([&] {
        for (int i = 0; i < kPerProducer; ++i) {
          std::atomic<bool> done{false};
          const std::int64_t seq = next_seq.fetch_add(1);
          temp.store->append_move({"r1", 1, seq, 0, {{"action", "pass"}}, 0, std::nullopt},
                                  [&](bool) {
                                    done.store(true);
                                    done.notify_one();
                                  });
          done.wait(false);
        }
      });
    }
    for (auto& thread : threads) thread.join();
    total += producers * kPerProducer;
  }
  state.SetItemsProcessed(total);
  state.counters["fsyncs_per_move"] =
      static_cast<double>(temp.store->stats().batches) / static_cast<double>(total + 2);
}

void BM_AppendGroupCommit(benchmark::State& state) {
  run_appends(state, std::chrono::microseconds(2000), 512);
}
void BM_AppendOneCommitEach(benchmark::State& state) {
  run_appends(state, std::chrono::microseconds(0), 1);
}

BENCHMARK(BM_AppendGroupCommit)->Arg(1)->Arg(16)->Arg(64)->UseRealTime();
BENCHMARK(BM_AppendOneCommitEach)->Arg(1)->Arg(16)->Arg(64)->UseRealTime();

}  // namespace
