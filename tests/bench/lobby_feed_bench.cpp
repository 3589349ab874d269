// The cost of one room change with many lobby subscribers: the feed finds the change among
// the lobby's rooms, encodes the push once and hands the same frame to every subscriber.
// Its pair encodes the push once per subscriber, as a feed without shared frames would.
#include <benchmark/benchmark.h>

#include <mutex>
#include <vector>

#include "server/lobby_feed.h"

namespace parlor::server {
namespace {

// What a WebSocket session does when handed a frame: queue it under a lock.
class Queue : public Connection {
 public:
  void send(Frame frame) override {
    std::lock_guard lock(mutex_);
    frames_.push_back(std::move(frame));
    if (frames_.size() > 64) frames_.clear();  // the socket wrote them
  }
  void close(std::uint16_t, std::string) override {}

 private:
  std::mutex mutex_;
  std::vector<Frame> frames_;
};

std::shared_ptr<const protocol::RoomSummary> summary(int room, bool seat_taken) {
  protocol::RoomSummary out;
  out.room = "room" + std::to_string(room);
  out.kind = "spades";
  out.options = {{"target", 500}, {"blind_nil", true}};
  out.seats.push_back(protocol::SeatSummary{"p" + std::to_string(room), "alice", false, true});
  out.seats.push_back(seat_taken ? std::optional(protocol::SeatSummary{"q", "bob", false, true})
                                 : std::nullopt);
  out.seats.emplace_back(std::nullopt);
  out.seats.emplace_back(std::nullopt);
  return std::make_shared<const protocol::RoomSummary>(std::move(out));
}

constexpr int kRooms = 100;

void BM_LobbyRoomChangeFanOut(benchmark::State& state) {
  const auto subscribers = static_cast<int>(state.range(0));
  Metrics metrics;
  LobbyFeed feed(metrics);
  LobbyFeed::Rooms rooms;
  for (int r = 0; r < kRooms; ++r) rooms.local.push_back(summary(r, false));
  std::vector<std::shared_ptr<Queue>> queues;
  for (int s = 0; s < subscribers; ++s) {
    queues.push_back(std::make_shared<Queue>());
    feed.subscribe(queues.back(), std::nullopt, nullptr, rooms);
  }
  bool taken = false;
  for (auto _ : state) {
    taken = !taken;
    rooms.local[0] = summary(0, taken);  // one room's seat fills or frees
    feed.publish(rooms);
  }
  state.counters["subscribers"] = subscribers;
}
BENCHMARK(BM_LobbyRoomChangeFanOut)->Arg(100)->Arg(10000)->Unit(benchmark::kMicrosecond);

void BM_LobbyRoomChangeEncodedPerSubscriber(benchmark::State& state) {
  const auto subscribers = static_cast<int>(state.range(0));
  std::vector<std::shared_ptr<Queue>> queues;
  for (int s = 0; s < subscribers; ++s) queues.push_back(std::make_shared<Queue>());
  bool taken = false;
  for (auto _ : state) {
    taken = !taken;
    const auto changed = summary(0, taken);
    for (const auto& queue : queues) {
      Json message = {{"type", "room_changed"},
                      {"rooms", Json::array({protocol::room_summary_json(*changed)})}};
      queue->send(make_frame(protocol::to_wire(message)));
    }
  }
  state.counters["subscribers"] = subscribers;
}
BENCHMARK(BM_LobbyRoomChangeEncodedPerSubscriber)
    ->Arg(100)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace parlor::server
