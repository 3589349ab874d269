// What a durable commit's requests to the disk cost the process, and what the ways of issuing
// them change (docs/BENCHMARKS.md, "What a request to the disk costs"). Each iteration is one
// commit as the durable server makes them at 100 rooms flat out: a frame of about 5,000 bytes
// written at the tail of a log whose blocks are already allocated and written, made durable,
// then a pause of 1.5 ms with nothing to do (the server's next pass). Run by hand:
//   build/release/server/store/disk_request_bench
// The CPU column is the process's (every thread's, as the server's is counted); the counters
// say per commit how long the whole machine was busy (/proc/stat, all CPUs, so work moved to a
// kernel thread still counts) and how many write requests reached the disk holding the
// temporary directory (/sys/dev/block/MAJ:MIN/stat; flushes are not counted there).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace {

namespace fs = std::filesystem;

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

fs::path make_temp_dir() {
  std::string pattern = (fs::temp_directory_path() / "parlor-disk-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) return {};
  return pattern;
}

// The log, written with zeros and synced: later writes overwrite allocated blocks in place,
// as the redo log's do.
int make_log(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  const std::string zeros(64 << 10, '\0');
  for (off_t at = 0; at < kLogBytes; at += static_cast<off_t>(zeros.size())) {
    if (::pwrite(fd, zeros.data(), zeros.size(), at) != static_cast<ssize_t>(zeros.size())) {
      ::close(fd);
      return -1;
    }
  }
  ::fsync(fd);
  return fd;
}

enum class Commit {
  kNone,           // the pause alone: what a sleep and a wake cost the thread
  kFdatasync,      // pwrite, then fdatasync (the redo log's way)
  kDirectDsync,    // one O_DIRECT | O_DSYNC pwrite of the frame's blocks
  kRangeAndFlush,  // pwrite, sync_file_range, then fdatasync of an empty file elsewhere
};

// Runs the commits of `kind`, and reports per commit the machine's busy time and the disk's
// write requests as counters.
void run(benchmark::State& state, Commit kind) {
  const fs::path dir = make_temp_dir();
  if (dir.empty()) return state.SkipWithError("cannot make a temporary directory");
  const fs::path file = dir / "log";
  const int fd = make_log(file);
  if (fd < 0) return state.SkipWithError("cannot write the log");
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

void BM_PauseOnly(benchmark::State& state) { run(state, Commit::kNone); }
void BM_WriteFdatasync(benchmark::State& state) { run(state, Commit::kFdatasync); }
void BM_DirectDsync(benchmark::State& state) { run(state, Commit::kDirectDsync); }
void BM_WriteRangeThenFlushFile(benchmark::State& state) { run(state, Commit::kRangeAndFlush); }

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
