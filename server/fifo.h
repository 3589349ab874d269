// A first-in first-out queue that holds no memory while it has never been used, and gives a
// burst's memory back once it has drained.
//
// Why not std::deque: libstdc++'s deque allocates its map and a 512-byte block as it is
// constructed, so every empty queue costs about 600 bytes. A server keeps several per
// connection and per room, nearly always empty (docs/BENCHMARKS.md, "Memory per idle
// connection"). Here the items sit in one vector from `head_` on: a pop moves the head, and
// the vector starts over when it empties, so a queue that is pushed and drained in turns
// (the usual case) reuses the same few slots without moving anything.
#pragma once

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

namespace parlor::server {

template <class T>
class Fifo {
 public:
  // The capacity a drained queue keeps for its next items, about 128 bytes of them (eight
  // frames); more is freed. What a queue keeps for its next burst is paid by every idle
  // connection and room that has one.
  static constexpr std::size_t kKeptCapacity = sizeof(T) >= 128 ? 1 : 128 / sizeof(T);

  bool empty() const { return head_ == items_.size(); }
  std::size_t size() const { return items_.size() - head_; }

  T& front() { return items_[head_]; }
  const T& front() const { return items_[head_]; }
  T& operator[](std::size_t i) { return items_[head_ + i]; }
  const T& operator[](std::size_t i) const { return items_[head_ + i]; }

  void push_back(T item) {
    if (head_ > 0 && items_.size() == items_.capacity() && head_ * 2 >= items_.size()) {
      // Full, with the first half or more already popped: slide the rest down rather
      // than grow.
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    items_.push_back(std::move(item));
  }

  void pop_front() {
    // What it holds is released now, not when the slot is reused.
    { [[maybe_unused]] T released = std::move(items_[head_]); }
    if (++head_ == items_.size()) clear();
  }

  void clear() {
    items_.clear();
    head_ = 0;
    if (items_.capacity() > kKeptCapacity) std::vector<T>().swap(items_);
  }

  // The items, oldest first.
  std::span<T> items() { return std::span<T>(items_).subspan(head_); }
  std::span<const T> items() const { return std::span<const T>(items_).subspan(head_); }
  auto begin() { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  auto end() { return items_.end(); }
  auto begin() const { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  auto end() const { return items_.end(); }

 private:
  std::vector<T> items_;
  std::size_t head_ = 0;
};

}  // namespace parlor::server
