// A fuzz input read as a sequence of choices: a byte picks among a few options, eight bytes
// make a seed, a length-prefixed run becomes a string. Past the end every choice is 0, so
// any input, even an empty one, is a complete script, and a few more bytes extend it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace parlor::fuzz {

class FuzzInput {
 public:
  FuzzInput(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

  bool empty() const { return at_ >= size_; }

  std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }

  // A choice in [0, bound); 0 when bound is 0.
  std::size_t pick(std::size_t bound) { return bound == 0 ? 0 : byte() % bound; }

  std::uint64_t u64() {
    std::uint64_t value = 0;
    for (int i = 0; i < 8; ++i) value = (value << 8) | byte();
    return value;
  }

  // A string of up to 255 bytes, its length first.
  std::string text() {
    const std::size_t length = byte();
    const std::size_t take = length < size_ - at_ ? length : size_ - at_;
    std::string out(reinterpret_cast<const char*>(data_ + at_), take);  // NOLINT: byte view
    at_ += take;
    return out;
  }

  // Everything not read yet.
  std::string_view rest() {
    std::string_view out(reinterpret_cast<const char*>(data_ + at_), size_ - at_);  // NOLINT
    at_ = size_;
    return out;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

}  // namespace parlor::fuzz
