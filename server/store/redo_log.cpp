#include "server/store/redo_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "server/store/store.h"

namespace parlor::server {
namespace {

constexpr std::uint32_t kMagic = 0x4F445250;  // "PRDO" little-endian
constexpr std::uint64_t kGrowth = 1 << 20;    // the file grows a megabyte at a time
constexpr std::size_t kCrcOffset = 24;        // the header's CRC field
static_assert(RedoLog::kHeaderBytes == kCrcOffset + 8);
// The zeros are written in pieces this size. The page cache sizes a folio by the write that
// creates it, and every later write into a folio walks all its blocks (ext4's write_begin):
// zeros written a megabyte at once made each frame's pwrite walk 256 blocks, about 10 us of
// CPU a commit on the benchmark machine (docs/BENCHMARKS.md, "Leaner durable moves").
constexpr std::size_t kZeroPiece = 64 << 10;

constexpr std::array<std::uint32_t, 256> make_crc_table() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1U) != 0 ? 0x82F63B78U : 0U);
    table[i] = crc;
  }
  return table;
}
constexpr auto kCrcTable = make_crc_table();

void put_u32(unsigned char* at, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) at[i] = static_cast<unsigned char>(value >> (8 * i));
}
void put_u64(unsigned char* at, std::uint64_t value) {
  for (int i = 0; i < 8; ++i) at[i] = static_cast<unsigned char>(value >> (8 * i));
}
std::uint32_t get_u32(const unsigned char* at) {
  std::uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = value << 8 | at[i];
  return value;
}
std::uint64_t get_u64(const unsigned char* at) {
  std::uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = value << 8 | at[i];
  return value;
}

std::string_view bytes_of(const unsigned char* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// The frame's checksum: its header up to the CRC field, then its payload.
std::uint32_t frame_crc(const unsigned char* header, std::string_view payload) {
  return crc32c(payload, crc32c(bytes_of(header, kCrcOffset)));
}

std::system_error io_error(const char* what, const std::filesystem::path& file) {
  return {errno, std::generic_category(), std::string(what) + " " + file.string()};
}

// pwrite until everything is written (a regular file writes it all unless the disk fails).
void write_all(int fd, const void* data, std::size_t size, std::uint64_t at,
               const std::filesystem::path& file) {
  const auto* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t wrote = ::pwrite(fd, bytes, size, static_cast<off_t>(at));
    if (wrote < 0) {
      if (errno == EINTR) continue;
      throw io_error("cannot write", file);
    }
    bytes += wrote;
    size -= static_cast<std::size_t>(wrote);
    at += static_cast<std::uint64_t>(wrote);
  }
}

void sync_data(int fd, const std::filesystem::path& file) {
  if (::fdatasync(fd) != 0) throw io_error("cannot fdatasync", file);
}

// Reads exactly `size` bytes at `at`; false at the end of the file.
bool read_exact(int fd, void* data, std::size_t size, std::uint64_t at,
                const std::filesystem::path& file) {
  auto* bytes = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t got = ::pread(fd, bytes, size, static_cast<off_t>(at));
    if (got < 0) {
      if (errno == EINTR) continue;
      throw StoreError("cannot read " + file.string() + ": " +
                       std::generic_category().message(errno));
    }
    if (got == 0) return false;
    bytes += got;
    size -= static_cast<std::size_t>(got);
    at += static_cast<std::uint64_t>(got);
  }
  return true;
}

}  // namespace

std::uint32_t crc32c_bytewise(std::string_view bytes, std::uint32_t crc) {
  crc = ~crc;
  for (const char c : bytes) {
    crc = kCrcTable[(crc ^ static_cast<unsigned char>(c)) & 0xFFU] ^ (crc >> 8);
  }
  return ~crc;
}

namespace {

#if defined(__x86_64__)
// SSE 4.2's crc32 instruction computes CRC-32C eight bytes at a time: 10 KB of frame in about
// 1 us instead of 23 from the table on the benchmark machine (docs/BENCHMARKS.md, "A durable
// move's last costs").
__attribute__((target("sse4.2"))) std::uint32_t crc32c_sse42(std::string_view bytes,
                                                             std::uint32_t crc) {
  const char* at = bytes.data();
  std::size_t left = bytes.size();
  std::uint64_t wide = crc;
  for (; left >= 8; at += 8, left -= 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, at, 8);
    wide = __builtin_ia32_crc32di(wide, word);
  }
  crc = static_cast<std::uint32_t>(wide);
  for (; left > 0; ++at, --left) {
    crc = __builtin_ia32_crc32qi(crc, static_cast<unsigned char>(*at));
  }
  return crc;
}

bool has_sse42() {
  static const bool has = __builtin_cpu_supports("sse4.2");
  return has;
}
#endif

}  // namespace

std::uint32_t crc32c(std::string_view bytes, std::uint32_t crc) {
#if defined(__x86_64__)
  if (has_sse42()) return ~crc32c_sse42(bytes, ~crc);
#endif
  return crc32c_bytewise(bytes, crc);
}

RedoLog::RedoLog(std::filesystem::path file) : file_(std::move(file)) {
  const bool existed = std::filesystem::exists(file_);
  fd_ = ::open(file_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0) {
    throw StoreError("cannot open redo log " + file_.string() + ": " +
                     std::generic_category().message(errno));
  }
  struct stat info {};
  if (::fstat(fd_, &info) != 0) {
    const int error = errno;
    ::close(fd_);
    throw StoreError("cannot stat redo log " + file_.string() + ": " +
                     std::generic_category().message(error));
  }
  allocated_ = static_cast<std::uint64_t>(info.st_size);
  if (!existed) {
    // A file that a power loss could take back with its directory entry would take its frames.
    const auto dir = file_.parent_path().empty() ? std::filesystem::path(".") : file_.parent_path();
    const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const bool synced = dir_fd >= 0 && ::fsync(dir_fd) == 0;
    const int error = errno;
    if (dir_fd >= 0) ::close(dir_fd);
    if (!synced) {
      ::close(fd_);
      throw StoreError("cannot make redo log " + file_.string() +
                       " durable: " + std::generic_category().message(error));
    }
  }
}

RedoLog::~RedoLog() {
  if (fd_ >= 0) ::close(fd_);
}

std::vector<RedoLog::Frame> RedoLog::read(std::uint64_t generation) const {
  std::vector<Frame> frames;
  std::uint64_t at = 0;
  std::array<unsigned char, kHeaderBytes> header{};
  while (read_exact(fd_, header.data(), header.size(), at, file_)) {
    const std::uint32_t length = get_u32(&header[4]);
    if (get_u32(&header[0]) != kMagic || get_u64(&header[8]) != generation ||
        at + kHeaderBytes + length > allocated_) {
      break;
    }
    Frame frame{get_u64(&header[16]), std::string(length, '\0')};
    if (!frames.empty() && frame.batch != frames.back().batch + 1) break;
    if (!read_exact(fd_, frame.payload.data(), length, at + kHeaderBytes, file_)) break;
    if (get_u32(&header[kCrcOffset]) != frame_crc(header.data(), frame.payload)) break;
    at += kHeaderBytes + length;
    frames.push_back(std::move(frame));
  }
  return frames;
}

void RedoLog::grow_to(std::uint64_t end) {
  if (end <= allocated_) return;
  const std::uint64_t target = (end + kGrowth - 1) / kGrowth * kGrowth;
  static const std::string zeros(kZeroPiece, '\0');
  for (std::uint64_t at = allocated_; at < target;) {
    const std::uint64_t size = std::min<std::uint64_t>(zeros.size(), target - at);
    write_all(fd_, zeros.data(), size, at, file_);
    at += size;
    allocated_ = at;
  }
}

void RedoLog::append(std::uint64_t generation, std::uint64_t batch, std::string_view payload,
                     bool sync) {
  std::array<unsigned char, kHeaderBytes> header{};
  put_u32(&header[0], kMagic);
  put_u32(&header[4], static_cast<std::uint32_t>(payload.size()));
  put_u64(&header[8], generation);
  put_u64(&header[16], batch);
  put_u32(&header[kCrcOffset], frame_crc(header.data(), payload));
  const std::uint64_t end = tail_ + kHeaderBytes + payload.size();
  // The zeros and the frame reach the disk with the same fdatasync, the file's new size too.
  grow_to(end);
  std::array<iovec, 2> parts{
      {{header.data(), header.size()}, {const_cast<char*>(payload.data()), payload.size()}}};
  const auto expected = static_cast<ssize_t>(kHeaderBytes + payload.size());
  ssize_t wrote = 0;
  do {
    wrote = ::pwritev(fd_, parts.data(), 2, static_cast<off_t>(tail_));
  } while (wrote < 0 && errno == EINTR);
  if (wrote >= 0 && wrote < expected) {
    // A short write: finish it byte-exactly from where it stopped.
    std::string frame(bytes_of(header.data(), header.size()));
    frame.append(payload);
    write_all(fd_, frame.data() + wrote, frame.size() - static_cast<std::size_t>(wrote),
              tail_ + static_cast<std::uint64_t>(wrote), file_);
    wrote = expected;
  }
  if (wrote < 0) throw io_error("cannot write", file_);
  if (sync) sync_data(fd_, file_);
  last_frame_ = tail_;
  tail_ = end;
}

void RedoLog::retract_last() {
  // The next append overwrites the frame even if it cannot be zeroed here: it takes the same
  // batch number, and a frame numbered again would end the log at read().
  tail_ = last_frame_;
  const std::array<unsigned char, kHeaderBytes> zeros{};
  write_all(fd_, zeros.data(), zeros.size(), last_frame_, file_);
  sync_data(fd_, file_);
}

void RedoLog::rewind() {
  tail_ = 0;
  last_frame_ = 0;
}

}  // namespace parlor::server
