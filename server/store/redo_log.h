// The SQLite store's redo log: the records of each committed batch as one checksummed frame,
// written with one pwrite and made durable with one fdatasync before the batch is acknowledged.
// A live game's moves are kept only here (and in memory) until the game ends; SQLite commits
// the rest without an fsync of its own (README.md, "Durability: the redo log").
//
// A frame: magic "PRDO", the payload's length, the generation, the batch number, a CRC-32C of
// all of it, then the payload. Frames follow one another from the start of the file. A
// generation is written to one of two files, alternately, starting from the file's start, so
// frames of an older generation after the last one written are never taken for new ones. The
// file grows a megabyte at a time, written with zeros: an append then mostly overwrites blocks
// already allocated, so its fdatasync writes the frame's pages and flushes the disk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace parlor::server {

// CRC-32C (Castagnoli) of `bytes`, continuing from `crc` (0 to start).
// With SSE 4.2's crc32 instruction where the processor has it.
std::uint32_t crc32c(std::string_view bytes, std::uint32_t crc = 0);
// The same from a table, a byte at a time: what crc32c does on other processors.
std::uint32_t crc32c_bytewise(std::string_view bytes, std::uint32_t crc = 0);

class RedoLog {
 public:
  static constexpr std::size_t kHeaderBytes = 32;

  struct Frame {
    std::uint64_t batch = 0;
    std::string payload;
  };

  // Opens `file`, creating it (and making its directory entry durable) if missing; appends go
  // to the start. Throws StoreError naming the file.
  explicit RedoLog(std::filesystem::path file);
  ~RedoLog();
  RedoLog(const RedoLog&) = delete;
  RedoLog& operator=(const RedoLog&) = delete;

  // The frames of `generation` from the start of the file, in order, up to the first that is
  // torn (short or failing its checksum), of another generation, or not numbered one after
  // the frame before it. Throws StoreError when the file cannot be read.
  std::vector<Frame> read(std::uint64_t generation) const;

  // Writes a frame at the tail and, with `sync`, makes it durable (fdatasync); the tail moves
  // past it. Throws std::system_error (the tail stays where it was).
  void append(std::uint64_t generation, std::uint64_t batch, std::string_view payload,
              bool sync = true);
  // Takes back the frame appended last (its batch did not commit): its header is zeroed and
  // made durable, and the tail moves back to it. Throws std::system_error.
  void retract_last();
  // The next append goes to the start of the file (the caller starts a new generation).
  void rewind();

  const std::filesystem::path& file() const { return file_; }
  std::uint64_t tail() const { return tail_; }

 private:
  void grow_to(std::uint64_t end);

  std::filesystem::path file_;
  int fd_ = -1;
  std::uint64_t allocated_ = 0;  // bytes written with zeros or frames: the file's size
  std::uint64_t tail_ = 0;
  std::uint64_t last_frame_ = 0;  // where the last append wrote
};

}  // namespace parlor::server
