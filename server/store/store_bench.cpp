// Acknowledged appends per second: SQLite against PostgreSQL, with and without group commit,
// and the same producers with no store at all (what the harness itself costs). Then the CPU a
// group commit costs the process: SQLite's writer committing a batch of moves, against the
// floor of any store that makes a batch durable, one write of the batch to a preallocated file
// and one fdatasync (docs/BENCHMARKS.md, "Durable store: where a move's CPU goes"). Last, what
// one commit's requests to the disk cost the process, issued four ways (BM_PauseOnly,
// BM_WriteFdatasync, BM_DirectDsync, BM_WriteRangeThenFlushFile). Run by hand:
//   build/release/server/store/store_bench --benchmark_min_time=2
// SQLite's file and PostgreSQL's cluster (a throwaway server, fsync on, over TCP on
// 127.0.0.1) both live in fresh temporary directories on the file system of /tmp, so the
// numbers are that disk's fsync rate.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
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

// A fresh directory under the temporary directory (on /tmp's file system, as said above).
fs::path make_temp_dir() {
  std::string pattern = (fs::temp_directory_path() / "parlor-bench-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return pattern;
}

struct TempStore {
  TempStore(Backend backend, std::chrono::microseconds window, std::size_t max_batch) {
    if (backend == Backend::kNone) return;
    if (backend == Backend::kSqlite) {
      dir = make_temp_dir();
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

// ---- CPU per group commit ------------------------------------------------------------------

// A Big Two play as the server stores it, for room `room` (moves of different rooms, as 100
// rooms playing at once commit them together).
MoveRecord play(int room, std::int64_t seq) {
  MoveRecord move;
  move.room_id = "r" + std::to_string(room);
  move.game_number = 1;
  move.seq = seq;
  move.seat = static_cast<int>(seq % 4);
  move.move = {{"action", "play"}, {"cards", {"3C", "3D"}}};
  move.at_ms = 1'764'000'000'000 + seq;
  return move;
}

// The process's CPU for one batch of state.range(0) moves, each of another room, committed by
// SqliteStore's writer with --store-sync full: the queueing, the moves kept in memory, the
// redo log's frame and its fdatasync, the callbacks. The flush that follows them ends the batch
// window at once.
void BM_CommitCpuSqlite(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0));
  TempStore temp(Backend::kSqlite, kGroupWindow, 512);
  for (int room = 0; room < batch; ++room) {
    RoomRecord record;
    record.id = "r" + std::to_string(room);
    record.kind = "bigtwo";
    record.seats = 4;
    record.status = StoredRoomStatus::kPlaying;
    record.game_number = 1;
    temp.store->save_room(record, nullptr);
  }
  temp.store->flush();
  std::atomic<int> failed{0};
  std::int64_t seq = 0;
  for (auto _ : state) {
    ++seq;
    for (int room = 0; room < batch; ++room) {
      temp.store->append_move(play(room, seq), [&failed](WriteResult result) {
        if (result != WriteResult::kDurable) failed.fetch_add(1);
      });
    }
    temp.store->flush();
  }
  if (failed > 0) state.SkipWithError("some appends failed");
  state.SetItemsProcessed(state.iterations() * batch);
}

// The process's CPU per move for whole games as the server stores them: state.range(0) rooms
// start a game together (a room record each), play 40 moves each, one move of every room per
// commit as rooms playing at once commit them, and end it (the finished record, which packs
// the game's moves into one row). Moves, starts and ends in the proportion of a 40-move game.
void BM_GameCpuSqlite(benchmark::State& state) {
  const int rooms = static_cast<int>(state.range(0));
  constexpr int kMovesPerGame = 40;
  TempStore temp(Backend::kSqlite, kGroupWindow, 512);
  std::atomic<int> failed{0};
  const auto check = [&failed](WriteResult result) {
    if (result != WriteResult::kDurable) failed.fetch_add(1);
  };
  const auto record = [](int room, int game, bool finished) {
    RoomRecord out;
    out.id = "r" + std::to_string(room);
    out.kind = "bigtwo";
    out.seats = 4;
    for (int seat = 0; seat < 4; ++seat) {
      out.occupants.push_back(SeatRecord{std::nullopt, "Bot " + std::to_string(seat), "random"});
    }
    out.status = finished ? StoredRoomStatus::kFinished : StoredRoomStatus::kPlaying;
    out.game_number = game;
    out.start_seq = (game - 1) * kMovesPerGame;
    if (finished) out.finished_ms = 1'764'000'000'000 + game;
    return out;
  };
  int game = 0;
  for (auto _ : state) {
    ++game;
    for (int room = 0; room < rooms; ++room)
      temp.store->save_room(record(room, game, false), check);
    for (int move = 1; move <= kMovesPerGame; ++move) {
      for (int room = 0; room < rooms; ++room) {
        MoveRecord next = play(room, (game - 1) * kMovesPerGame + move);
        next.game_number = game;
        temp.store->append_move(std::move(next), check);
      }
      temp.store->flush();
    }
    for (int room = 0; room < rooms; ++room) temp.store->save_room(record(room, game, true), check);
    temp.store->flush();
  }
  if (failed > 0) state.SkipWithError("some writes failed");
  state.SetItemsProcessed(state.iterations() * rooms * kMovesPerGame);
}

// `file`, created and written with `size` bytes of zeros `piece` bytes a write, then synced:
// later writes overwrite allocated blocks in place. -1 (errno set) if it cannot be written.
// (The page cache sizes a folio by the write that creates it: the redo log writes 64 KiB
// pieces, redo_log.cpp.)
int preallocated_file(const fs::path& file, off_t size, std::size_t piece) {
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  const std::string zeros(piece, '\0');
  bool written = true;
  for (off_t at = 0; written && at < size; at += static_cast<off_t>(piece)) {
    written = ::pwrite(fd, zeros.data(), piece, at) == static_cast<ssize_t>(piece);
  }
  if (!written || ::fsync(fd) != 0) {
    const int error = errno;
    ::close(fd);
    errno = error;
    return -1;
  }
  return fd;
}

// The floor: the same moves encoded as text lines, written with one pwrite to a file that is
// already allocated (no size or extent change to make durable) and made durable with one
// fdatasync. No database, no thread handoff.
void BM_CommitCpuAppendFloor(benchmark::State& state) {
  const int batch = static_cast<int>(state.range(0));
  const fs::path dir = make_temp_dir();
  constexpr off_t kSize = 64 << 20;
  const int fd = preallocated_file(dir / "journal", kSize, 1 << 20);
  if (fd < 0) return state.SkipWithError(std::strerror(errno));
  off_t at = 0;
  std::int64_t seq = 0;
  std::string buffer;
  for (auto _ : state) {
    ++seq;
    buffer.clear();
    for (int room = 0; room < batch; ++room) {
      const MoveRecord move = play(room, seq);
      buffer += move.room_id + '\t' + std::to_string(move.game_number) + '\t' +
                std::to_string(move.seq) + '\t' + std::to_string(move.seat) + '\t' +
                move.move.dump() + '\t' + std::to_string(move.at_ms) + '\n';
    }
    if (at + static_cast<off_t>(buffer.size()) > kSize) at = 0;
    if (::pwrite(fd, buffer.data(), buffer.size(), at) != static_cast<ssize_t>(buffer.size()) ||
        ::fdatasync(fd) != 0) {
      state.SkipWithError(std::strerror(errno));
      break;
    }
    at += static_cast<off_t>(buffer.size());
  }
  ::close(fd);
  fs::remove_all(dir);
  state.SetItemsProcessed(state.iterations() * batch);
}

// What a durable commit's requests to the disk cost the process, and what the ways of issuing
// them change (docs/BENCHMARKS.md, "What a request to the disk costs"). Each iteration is one
// commit as the durable server makes them at 100 rooms flat out: a frame of about 5,000 bytes
// written at the tail of a log whose blocks are already allocated and written, made durable,
// then a pause of 1.5 ms with nothing to do (the server's next pass). The CPU column is the
// process's (every thread's, as the server's is counted); the counters say per commit how long
// the whole machine was busy (/proc/stat, all CPUs, so work moved to a kernel thread still
// counts) and how many write requests reached the disk holding the temporary directory
// (/sys/dev/block/MAJ:MIN/stat; flushes are not counted there).

constexpr std::size_t kFrameBytes = 5000;
constexpr std::size_t kBlock = 4096;
constexpr off_t kLogBytes = 32 << 20;
constexpr auto kPause = std::chrono::microseconds(1500);

// The busy time of all CPUs so far, in µs (user, nice, system, irq, softirq, steal).
double machine_busy_us() {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
                steal = 0;
  stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  const double ticks = static_cast<double>(user + nice + system + irq + softirq + steal);
  return ticks * 1e6 / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// Write requests completed by the block device that holds `path` (its partition's count).
std::uint64_t disk_writes(const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return 0;
  std::ifstream stat("/sys/dev/block/" + std::to_string(major(info.st_dev)) + ":" +
                     std::to_string(minor(info.st_dev)) + "/stat");
  std::uint64_t reads = 0, reads_merged = 0, sectors_read = 0, read_ms = 0, writes = 0;
  stat >> reads >> reads_merged >> sectors_read >> read_ms >> writes;
  return writes;
}

enum class Commit {
  kNone,           // the pause alone: what a sleep and a wake cost the thread
  kFdatasync,      // pwrite, then fdatasync (the redo log's way)
  kDirectDsync,    // one O_DIRECT | O_DSYNC pwrite of the frame's blocks
  kRangeAndFlush,  // pwrite, sync_file_range, then fdatasync of an empty file elsewhere
};

// Runs the commits of `kind`, and reports per commit the machine's busy time and the disk's
// write requests as counters.
void run_disk_commits(benchmark::State& state, Commit kind) {
  const fs::path dir = make_temp_dir();
  const fs::path file = dir / "log";
  const int fd = preallocated_file(file, kLogBytes, 64 << 10);
  if (fd < 0) {
    state.SkipWithError(std::strerror(errno));
    fs::remove_all(dir);
    return;
  }
  int other_fd = -1;
  if (kind == Commit::kDirectDsync) {
    other_fd = ::open(file.c_str(), O_RDWR | O_DIRECT | O_DSYNC | O_CLOEXEC);
  } else if (kind == Commit::kRangeAndFlush) {
    // In a directory of its own, so that its inode is not in the inode table's block of the
    // log's (ext4 writes that block at every fdatasync of either while the log's mtime moves).
    fs::create_directories(dir / "flush" / "a" / "b");
    const fs::path flush = dir / "flush" / "a" / "b" / "empty";
    other_fd = ::open(flush.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (other_fd >= 0) ::fsync(other_fd);
  }
  if (kind != Commit::kNone && kind != Commit::kFdatasync && other_fd < 0) {
    ::close(fd);
    fs::remove_all(dir);
    return state.SkipWithError(std::strerror(errno));
  }
  void* aligned = nullptr;
  if (::posix_memalign(&aligned, kBlock, kFrameBytes + 2 * kBlock) != 0) {
    if (other_fd >= 0) ::close(other_fd);
    ::close(fd);
    fs::remove_all(dir);
    return state.SkipWithError("cannot allocate");
  }
  std::memset(aligned, 'x', kFrameBytes + 2 * kBlock);
  const std::string frame(kFrameBytes, 'x');
  off_t tail = 0;
  bool failed = false;
  const double busy_before = machine_busy_us();
  const std::uint64_t writes_before = disk_writes(dir);
  for (auto _ : state) {
    if (tail + static_cast<off_t>(kFrameBytes + kBlock) > kLogBytes) tail = 0;
    switch (kind) {
      case Commit::kNone:
        break;
      case Commit::kFdatasync:
        failed = ::pwrite(fd, frame.data(), frame.size(), tail) < 0 || ::fdatasync(fd) != 0;
        break;
      case Commit::kDirectDsync: {
        // The blocks the frame touches, the partly filled last one written again.
        const off_t start = tail / kBlock * kBlock;
        const off_t end = (tail + static_cast<off_t>(kFrameBytes) + kBlock - 1) / kBlock * kBlock;
        failed = ::pwrite(other_fd, aligned, static_cast<std::size_t>(end - start), start) < 0;
        break;
      }
      case Commit::kRangeAndFlush:
        failed = ::pwrite(fd, frame.data(), frame.size(), tail) < 0 ||
                 ::sync_file_range(fd, tail, kFrameBytes,
                                   SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                                       SYNC_FILE_RANGE_WAIT_AFTER) != 0 ||
                 ::fdatasync(other_fd) != 0;
        break;
    }
    if (failed) {
      state.SkipWithError(std::strerror(errno));
      break;
    }
    tail += static_cast<off_t>(kFrameBytes);
    std::this_thread::sleep_for(kPause);
  }
  const auto commits = static_cast<double>(state.iterations());
  state.counters["machine_busy_us"] = (machine_busy_us() - busy_before) / commits;
  state.counters["disk_writes"] = static_cast<double>(disk_writes(dir) - writes_before) / commits;
  std::free(aligned);
  if (other_fd >= 0) ::close(other_fd);
  ::close(fd);
  fs::remove_all(dir);
}

void BM_PauseOnly(benchmark::State& state) { run_disk_commits(state, Commit::kNone); }
void BM_WriteFdatasync(benchmark::State& state) { run_disk_commits(state, Commit::kFdatasync); }
void BM_DirectDsync(benchmark::State& state) { run_disk_commits(state, Commit::kDirectDsync); }
void BM_WriteRangeThenFlushFile(benchmark::State& state) {
  run_disk_commits(state, Commit::kRangeAndFlush);
}

BENCHMARK(BM_CommitCpuSqlite)->Arg(16)->Arg(40)->MeasureProcessCPUTime();
BENCHMARK(BM_CommitCpuAppendFloor)->Arg(16)->Arg(40)->MeasureProcessCPUTime();
BENCHMARK(BM_GameCpuSqlite)->Arg(16)->MeasureProcessCPUTime();

BENCHMARK(BM_AppendNoStore)->Arg(1)->Arg(64)->UseRealTime();
BENCHMARK(BM_AppendSqliteGroupCommit)->Arg(1)->Arg(16)->Arg(64)->UseRealTime();
BENCHMARK(BM_AppendPostgresGroupCommit)->Arg(1)->Arg(16)->Arg(64)->UseRealTime();
BENCHMARK(BM_AppendSqliteOneCommitEach)->Arg(1)->Arg(16)->Arg(64)->UseRealTime();
BENCHMARK(BM_AppendPostgresOneCommitEach)->Arg(1)->Arg(16)->Arg(64)->UseRealTime();

// 2,000 commits each (about 4 s): the machine's busy time is counted in ticks of 4 ms.
BENCHMARK(BM_PauseOnly)->Iterations(2000)->MeasureProcessCPUTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_WriteFdatasync)
    ->Iterations(2000)
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DirectDsync)->Iterations(2000)->MeasureProcessCPUTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_WriteRangeThenFlushFile)
    ->Iterations(2000)
    ->MeasureProcessCPUTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
