// The crash test: the real parlor-server binary, killed with SIGKILL at seeded
// random moments while clients play many games, restarted on the same data directory each
// time. Checks the write-ahead promise end to end:
//
//  - every move a client got `ok` for is in the store, with that seq, seat and move, and
//    every state push a client saw is covered by the store (pushes are held like `ok`);
//  - the store never holds a move at a human seat that its client did not send at that seq,
//    each game's moves are contiguous from its start seq and replay legally;
//  - after a restart every client resumes at a seq at least the one it last saw (the same
//    view when the seq is the same); a move in flight at the kill (sent, no `ok`) is either
//    applied with that seq or absent, and then its seat is still to act on the same view;
//  - every game continues to `game_over` (rematches in between; a room the kill found
//    finished is not reloaded, so the store must show it finished).
//
// Rooms: four Big Two rooms with four clients each, one Spades room with two clients and
// two server-side bots. One thread per room drives its clients; the main thread kills,
// checks a copy of the data directory (the original is left for the restarted server to
// recover), and restarts. PARLOR_SEED replays the kill schedule and the clients' choices
// (thread timing still varies); PARLOR_CRASH_KILLS sets the number of kills and
// PARLOR_CRASH_SERVER another server binary to run (to see the test catch a broken one).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <boost/system/system_error.hpp>

#include "bots/strategy.h"
#include "games/core/rng.h"
#include "games/registry.h"
#include "games/testing/self_play.h"
#include "server/store/sqlite_store.h"
#include "tests/support/server_process.h"
#include "tests/support/test_client.h"

extern char** environ;

namespace parlor::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr auto kReplyTimeout = 10s;

// ---- the server as a child process ------------------------------------------------------

// The server's flags; the data directory is the one the test keeps across restarts.
std::vector<std::string> server_flags(const fs::path& data_dir) {
  return {"--dev",           "--store",        "sqlite", "--data-dir",
          data_dir.string(), "--threads",      "2",      "--rate-per-second",
          "100000",          "--rate-burst",   "100000", "--max-handshakes-per-ip",
          "100000",          "--bot-delay-ms", "1"};
}

// ---- what the drivers and the main thread share ------------------------------------------

struct Shared {
  std::mutex mutex;
  std::condition_variable cv;
  int epoch = 1;         // one per server process
  int killed_epoch = 0;  // set before the kill: a lost connection in this epoch is expected
  unsigned short port = 0;
  std::atomic<bool> finishing{false};  // play the current game to game_over, then stop
  std::atomic<bool> abort{false};
  std::vector<std::string> failures;

  void fail(const std::string& what) {
    {
      std::lock_guard lock(mutex);
      failures.push_back(what);
    }
    abort = true;
    cv.notify_all();
  }
};

struct ConnectionLost {};
struct Aborted {};
struct Failure {
  std::string what;
};

struct SentMove {
  int seat = 0;
  Json move;
};
using SeqKey = std::pair<std::string, std::int64_t>;  // (room, the seq the move gets)

// What the store must show, as one driver saw it.
struct Expectations {
  std::string kind;
  std::set<int> human_seats;
  std::vector<std::string> rooms;                // every room the driver played in, in order
  std::map<SeqKey, SentMove> must_have;          // `ok`ed, or found applied after a restart
  std::map<SeqKey, SentMove> sent;               // every move sent (the last one for that seq)
  std::map<std::string, std::int64_t> seen_seq;  // highest state seq any client saw
  std::set<std::string> vanished;                // gone after a restart: must be stored finished
  bool finished_final = false;                   // the last room's last game ended (finishing)
};

struct DriverStats {
  long moves_ok = 0;
  long pending_present = 0;  // in flight at a kill, found applied after the restart
  long pending_absent = 0;   // in flight at a kill, found not applied
  long games_finished = 0;
  long rooms_created = 0;
  long rooms_vanished = 0;
  long rooms_found_finished = 0;  // reloaded with a game the replay found finished
  long reconnects = 0;
};

// ---- one room's clients, driven by one thread --------------------------------------------

class Driver {
 public:
  Driver(std::string label, std::string kind, int seats, Json options, std::set<int> humans,
         std::uint64_t seed, Shared& shared)
      : label_(std::move(label)),
        seats_(seats),
        options_(std::move(options)),
        rng_(seed),
        shared_(shared) {
    exp_.kind = std::move(kind);
    exp_.human_seats = humans;
    for (int seat : humans) {
      Human h;
      h.seat = seat;
      h.name = label_ + "-" + std::to_string(seat);
      humans_.push_back(std::move(h));
    }
  }

  void run() {
    try {
      {
        std::lock_guard lock(shared_.mutex);
        epoch_ = shared_.epoch;
        port_ = shared_.port;
      }
      bool need_connect = true;
      while (true) {
        if (shared_.abort) throw Aborted{};
        try {
          if (need_connect) connect_all();
          need_connect = false;
          ensure_playing();
          if (!ready_) {
            // Kills start once every client has a state push: from then on the players and
            // rooms are durable (`welcome` is not held for the player's record; see below).
            for (auto& h : humans_) wait_state(h, 0);
            mark_ready();
          }
          if (play()) break;
        } catch (const ConnectionLost&) {
          if (!ready_) throw Failure{"lost the connection before the first kill"};
          park();
          need_connect = true;
        }
      }
    } catch (const Failure& failure) {
      shared_.fail(label_ + " (room " + room_ + "): " + failure.what);
    } catch (const Aborted&) {
    } catch (const std::exception& e) {
      shared_.fail(label_ + " (room " + room_ + "): exception: " + e.what());
    }
    for (auto& h : humans_) h.client.reset();
    {
      std::lock_guard lock(shared_.mutex);
      exited_ = true;
    }
    shared_.cv.notify_all();
  }

  // Under shared_.mutex.
  bool ready_locked() const { return ready_ || exited_; }
  bool parked_or_exited_locked(int epoch) const { return exited_ || parked_epoch_ == epoch; }
  bool exited_locked() const { return exited_; }

  Expectations snapshot() const {
    std::lock_guard lock(mutex_);
    return exp_;
  }
  DriverStats stats() const {
    std::lock_guard lock(mutex_);
    return stats_;
  }
  const std::string& label() const { return label_; }

 private:
  struct Human {
    int seat = 0;
    std::string name;
    std::string player;
    std::string token;
    std::unique_ptr<TestClient> client;
    // The current room, on this connection.
    std::int64_t state_seq = -1;
    Json state;
    std::string room_status;
    int room_pushes = 0;
    bool game_over = false;
    bool fresh = false;  // no state push yet since this connection was made
    // The last state before the connection was lost.
    std::string prev_room;
    std::int64_t prev_seq = -1;
    Json prev_view;
  };
  struct Pending {
    std::string room;
    std::int64_t seq_before = 0;
    int seat = 0;
    Json move;
  };

  Human& human_at(int seat) {
    for (auto& h : humans_) {
      if (h.seat == seat) return h;
    }
    throw Failure{"no client at seat " + std::to_string(seat)};
  }
  bool is_human(int seat) const { return exp_.human_seats.contains(seat); }

  void mark_ready() {
    {
      std::lock_guard lock(shared_.mutex);
      ready_ = true;
    }
    shared_.cv.notify_all();
  }

  // ---- connections ----

  void connect(Human& h) {
    h.client.reset();
    try {
      h.client = std::make_unique<TestClient>("127.0.0.1", port_);
    } catch (const boost::system::system_error&) {
      throw ConnectionLost{};
    }
  }

  void connect_all() {
    for (auto& h : humans_) {
      if (h.state_seq >= 0) {  // keep what this client saw last, for the resume checks
        h.prev_room = room_;
        h.prev_seq = h.state_seq;
        h.prev_view = h.state["view"];
      }
      h.state_seq = -1;
      h.state = Json();
      h.room_status.clear();
      h.game_over = false;
      h.fresh = true;
      connect(h);
      Json hello = {{"type", "hello"}, {"protocol", 1}};
      if (h.token.empty()) {
        hello["name"] = h.name;
      } else {
        hello["token"] = h.token;
      }
      const Json welcome = call(h, hello);
      if (welcome.value("type", "") != "welcome") {
        throw Failure{"seat " + std::to_string(h.seat) + ": hello refused: " + welcome.dump()};
      }
      if (h.token.empty()) {
        h.token = welcome["token"].get<std::string>();
        h.player = welcome["player"].get<std::string>();
      } else {
        {
          std::lock_guard lock(mutex_);
          ++stats_.reconnects;
        }
        if (welcome["player"] != h.player) {
          throw Failure{"resumed as " + welcome["player"].dump() + ", not " + h.player};
        }
      }
    }
  }

  // The connection was lost: expected only after a kill. Waits for the next server.
  void park() {
    std::string why;
    for (auto& h : humans_) {
      if (h.client && h.client->closed() && h.client->close_code() != 0) {
        why = " (closed with " + std::to_string(h.client->close_code()) + " " +
              h.client->close_reason() + ")";
      }
    }
    std::unique_lock lock(shared_.mutex);
    if (shared_.killed_epoch < epoch_) {
      throw Failure{"lost the connection to a server nobody killed" + why};
    }
    parked_epoch_ = epoch_;
    shared_.cv.notify_all();
    if (!shared_.cv.wait_for(lock, 30s, [&] { return shared_.epoch > epoch_ || shared_.abort; })) {
      throw Failure{"no restart within 30 s"};
    }
    if (shared_.abort) throw Aborted{};
    epoch_ = shared_.epoch;
    port_ = shared_.port;
  }

  // ---- frames ----

  void process(Human& h, const Json& frame) {
    const std::string type = frame.value("type", "");
    if (type == "error" && !frame.contains("re")) {
      throw Failure{"seat " + std::to_string(h.seat) + " got a pushed error: " + frame.dump()};
    }
    if (!frame.contains("room") || !frame["room"].is_string() || frame["room"] != room_) return;
    if (type == "room") {
      h.room_status = frame.value("status", "");
      ++h.room_pushes;
    } else if (type == "game_over") {
      h.game_over = true;
    } else if (type == "state") {
      const auto seq = frame["seq"].get<std::int64_t>();
      if (seq < h.state_seq) {
        throw Failure{"seat " + std::to_string(h.seat) + ": state seq went back from " +
                      std::to_string(h.state_seq) + " to " + std::to_string(seq)};
      }
      if (h.fresh) {
        h.fresh = false;
        on_resumed(h, seq, frame);
      }
      h.state_seq = seq;
      h.state = frame;
      std::lock_guard lock(mutex_);
      auto& seen = exp_.seen_seq[room_];
      seen = std::max(seen, seq);
    }
  }

  // The first state push after a reconnect, in the room the client was in before.
  void on_resumed(Human& h, std::int64_t seq, const Json& frame) {
    if (h.prev_room != room_) return;
    const std::string who = "seat " + std::to_string(h.seat);
    if (h.prev_seq >= 0) {
      if (seq < h.prev_seq) {
        throw Failure{who + " resumed at seq " + std::to_string(seq) + " but saw seq " +
                      std::to_string(h.prev_seq) + " before the kill"};
      }
      if (seq == h.prev_seq && frame["view"] != h.prev_view) {
        throw Failure{who + " resumed at the same seq " + std::to_string(seq) +
                      " with another view:\n  before " + h.prev_view.dump() + "\n  after  " +
                      frame["view"].dump()};
      }
    }
    if (seq < last_ok_seq_) {
      throw Failure{who + " resumed at seq " + std::to_string(seq) + " but seq " +
                    std::to_string(last_ok_seq_) + " was acknowledged with ok"};
    }
    if (pending_ && pending_->room == room_ && pending_->seat == h.seat) {
      const Pending pending = *pending_;
      pending_.reset();
      if (seq == pending.seq_before) {
        {
          std::lock_guard lock(mutex_);
          ++stats_.pending_absent;
        }
        // Absent: the seat is still to act, on the very state it acted on.
        const Json& to_act = frame["to_act"];
        if (std::find(to_act.begin(), to_act.end(), h.seat) == to_act.end() ||
            !frame["prompt"].is_object()) {
          throw Failure{
              who + ": its unacknowledged move at seq " + std::to_string(pending.seq_before + 1) +
              " is absent, but the seat is no longer to act: " + frame.dump().substr(0, 300)};
        }
      } else if (seq > pending.seq_before) {
        std::lock_guard lock(mutex_);
        ++stats_.pending_present;
        exp_.must_have[{room_, pending.seq_before + 1}] = {pending.seat, pending.move};
      } else {
        throw Failure{who + " resumed at seq " + std::to_string(seq) + " before its own state " +
                      std::to_string(pending.seq_before)};
      }
    }
  }

  void drain(Human& h) {
    std::vector<Json> frames = std::move(h.client->pending());
    h.client->pending().clear();
    for (const Json& frame : frames) process(h, frame);
  }

  // A request and its reply; pushes that arrive meanwhile are processed.
  Json call(Human& h, const Json& message) {
    const Json reply = h.client->request(message, kReplyTimeout);
    drain(h);
    if (reply.value("type", "") == "timeout") {
      if (h.client->closed()) throw ConnectionLost{};
      throw Failure{"seat " + std::to_string(h.seat) + ": no reply to " + message.dump() +
                    " within 10 s"};
    }
    return reply;
  }

  // One frame, processed; false on timeout.
  bool pump(Human& h, std::chrono::milliseconds timeout) {
    auto frame = h.client->next(timeout);
    if (!frame) {
      if (h.client->closed()) throw ConnectionLost{};
      return false;
    }
    process(h, *frame);
    return true;
  }

  template <class Done>
  void wait_for(Human& h, Done done, const std::string& what) {
    const auto deadline = Clock::now() + kReplyTimeout;
    while (!done()) {
      if (shared_.abort) throw Aborted{};
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0 || !pump(h, left)) {
        throw Failure{"seat " + std::to_string(h.seat) + ": no " + what +
                      " within 10 s (last state " + std::to_string(h.state_seq) + ")"};
      }
    }
  }

  void wait_state(Human& h, std::int64_t min_seq) {
    wait_for(
        h, [&] { return h.state_seq >= min_seq; },
        "state push with seq >= " + std::to_string(min_seq));
  }

  // ---- the room ----

  void set_room(const std::string& room) {
    room_ = room;
    last_ok_seq_ = -1;
    for (auto& h : humans_) {
      h.state_seq = -1;
      h.state = Json();
      h.room_status.clear();
      h.game_over = false;
    }
  }

  void create_room() {
    Human& creator = humans_.front();
    Json options = options_;
    const Json reply = call(
        creator,
        {{"type", "create_room"}, {"kind", exp_.kind}, {"seats", seats_}, {"options", options}});
    if (reply.value("type", "") != "room_created") throw Failure{"create_room: " + reply.dump()};
    set_room(reply["room"].get<std::string>());
    std::lock_guard lock(mutex_);
    exp_.rooms.push_back(room_);
    ++stats_.rooms_created;
  }

  // Every client (re)joins its seat; a waiting room gets its bots and is started; a room the
  // restart did not bring back (finished before the kill) is replaced by a new one.
  void ensure_playing() {
    while (true) {
      if (room_.empty()) create_room();
      bool vanished = false;
      for (auto& h : humans_) {
        const int pushes = h.room_pushes;
        const Json reply = call(h, {{"type", "join_room"}, {"room", room_}, {"seat", h.seat}});
        if (reply.value("type", "") == "error" && reply.value("code", "") == "no_such_room" &&
            &h == &humans_.front()) {
          vanished = true;
          break;
        }
        if (reply.value("type", "") != "joined") {
          throw Failure{"seat " + std::to_string(h.seat) + ": join_room: " + reply.dump()};
        }
        wait_for(
            h, [&] { return h.room_pushes > pushes; }, "room push after join_room");
        if (h.room_status != "waiting") wait_state(h, 0);
      }
      if (!vanished) break;
      {
        std::lock_guard lock(mutex_);
        ++stats_.rooms_vanished;
        if (exp_.seen_seq.contains(room_)) exp_.vanished.insert(room_);
        if (pending_ && pending_->room == room_) {
          // The room is stored finished, and it was this seat's turn: its move ended the game.
          exp_.must_have[{room_, pending_->seq_before + 1}] = {pending_->seat, pending_->move};
          ++stats_.pending_present;
        }
      }
      pending_.reset();
      room_.clear();
    }
    if (humans_.back().room_status == "waiting") {
      Human& h0 = humans_.front();
      for (int seat = 0; seat < seats_; ++seat) {
        if (is_human(seat)) continue;
        const Json reply = call(
            h0, {{"type", "add_bot"}, {"room", room_}, {"seat", seat}, {"strategy", "random"}});
        if (reply.value("type", "") != "ok" && reply.value("code", "") != "seat_taken") {
          throw Failure{"add_bot: " + reply.dump()};
        }
      }
      const Json reply = call(h0, {{"type", "start"}, {"room", room_}});
      if (reply.value("type", "") != "ok") throw Failure{"start: " + reply.dump()};
    }
  }

  // Plays until the connection is lost (throws) or, once finishing, until the current game
  // has ended (returns true).
  bool play() {
    Human& h0 = humans_.front();
    while (true) {
      if (shared_.abort) throw Aborted{};
      Human* latest = &h0;
      for (auto& h : humans_) {
        if (h.state_seq > latest->state_seq) latest = &h;
      }
      if (latest->state_seq < 0) {
        wait_state(h0, 0);
        continue;
      }
      const std::int64_t seq = latest->state_seq;
      const Json to_act = latest->state["to_act"];
      if (to_act.empty()) {
        // The game is over. Its game_over push follows the final state, except for a game
        // that a restart found finished (its end was durable, the push was never sent).
        const bool found_finished = latest->state.value("events", Json::array()).empty() &&
                                    h0.room_status == "finished" && !h0.game_over;
        if (!found_finished) {
          for (auto& h : humans_)
            wait_for(
                h, [&] { return h.game_over; }, "game_over");
        }
        if (finished_seq_ != seq) {
          finished_seq_ = seq;
          std::lock_guard lock(mutex_);
          ++(found_finished ? stats_.rooms_found_finished : stats_.games_finished);
        }
        if (shared_.finishing && !found_finished) {
          std::lock_guard lock(mutex_);
          exp_.finished_final = true;
          return true;
        }
        for (auto& h : humans_) h.game_over = false;
        // A pause between games widens the window in which a kill finds the room finished
        // (not reloaded, or replayed to its end) rather than mid-game.
        const auto pause = static_cast<std::int64_t>(rng_.uniform(40));
        std::this_thread::sleep_for(std::chrono::milliseconds(pause));
        const Json reply = call(h0, {{"type", "start"}, {"room", room_}});
        if (reply.value("type", "") != "ok") throw Failure{"rematch: " + reply.dump()};
        wait_state(h0, seq + 1);
        continue;
      }
      const int seat = to_act[0].get<int>();
      if (!is_human(seat)) {
        wait_state(h0, seq + 1);  // a server-side bot moves
        continue;
      }
      Human& h = human_at(seat);
      if (h.state_seq < seq) wait_state(h, seq);
      if (h.state_seq != seq) continue;
      const Json prompt = h.state["prompt"];
      if (!prompt.is_object()) {
        throw Failure{"seat " + std::to_string(seat) + " is to act at seq " + std::to_string(seq) +
                      " without a prompt"};
      }
      const Json move = bots::random_move(prompt, rng_);
      {
        std::lock_guard lock(mutex_);
        exp_.sent[{room_, seq + 1}] = {seat, move};
      }
      pending_ = Pending{room_, seq, seat, move};
      const Json reply = call(h, {{"type", "move"}, {"room", room_}, {"move", move}, {"seq", seq}});
      pending_.reset();
      if (reply.value("type", "") != "ok") {
        throw Failure{"move " + move.dump() + " by seat " + std::to_string(seat) + " at seq " +
                      std::to_string(seq) + " refused: " + reply.dump()};
      }
      if (reply["seq"] != seq + 1) {
        throw Failure{"ok for seq " + std::to_string(seq) + " carried seq " + reply["seq"].dump()};
      }
      last_ok_seq_ = seq + 1;
      {
        std::lock_guard lock(mutex_);
        exp_.must_have[{room_, seq + 1}] = {seat, move};
        ++stats_.moves_ok;
      }
      for (auto& other : humans_) wait_state(other, seq + 1);
    }
  }

  std::string label_;
  int seats_;
  Json options_;
  Rng rng_;
  Shared& shared_;
  std::vector<Human> humans_;
  std::string room_;
  std::int64_t last_ok_seq_ = -1;
  std::int64_t finished_seq_ = -1;
  std::optional<Pending> pending_;
  int epoch_ = 0;
  unsigned short port_ = 0;
  // Under shared_.mutex.
  bool ready_ = false;
  bool exited_ = false;
  int parked_epoch_ = 0;
  // Under mutex_: read by the main thread.
  mutable std::mutex mutex_;
  Expectations exp_;
  DriverStats stats_;
};

// ---- the store check ---------------------------------------------------------------------

struct StoreFigures {
  long rooms = 0;
  long games = 0;
  long moves = 0;
};

// Opens a copy of the data directory (the original stays as the killed server left it, for
// the next server to recover) and checks every driver's expectations against it.
std::vector<std::string> check_store(const fs::path& data_dir, const fs::path& scratch,
                                     const std::vector<std::unique_ptr<Driver>>& drivers,
                                     bool final, StoreFigures& figures) {
  std::vector<std::string> problems;
  auto problem = [&](const std::string& what) {
    if (problems.size() < 20) problems.push_back(what);
  };
  fs::remove_all(scratch);
  fs::create_directories(scratch);
  for (const auto& entry : fs::directory_iterator(data_dir)) {
    if (entry.path().filename() == "parlor.db.lock") continue;
    fs::copy_file(entry.path(), scratch / entry.path().filename());
  }
  server::SqliteStoreOptions options;
  options.data_dir = scratch;
  options.log_error = [&](std::string_view message) { problem("store: " + std::string(message)); };
  server::SqliteStore store(std::move(options));

  figures = {};
  for (const auto& driver : drivers) {
    const Expectations exp = driver->snapshot();
    const GameInfo* info = find_game(exp.kind);
    std::map<SeqKey, server::MoveRecord> stored;
    for (const std::string& room : exp.rooms) {
      const std::string where = driver->label() + " room " + room;
      auto history = store.load_room(room);
      if (!history) {
        // A room nobody saw a state of may be lost whole (its creation was never acknowledged).
        if (exp.seen_seq.contains(room))
          problem(where + ": not in the store, but states were seen");
        continue;
      }
      ++figures.rooms;
      std::int64_t last_seq = -1;
      for (std::size_t g = 0; g < history->games.size(); ++g) {
        const server::GameRecord& game = history->games[g];
        ++figures.games;
        std::string error;
        auto replay = create_game(*info, history->room.game_options, history->room.seats, game.seed,
                                  nullptr, error);
        if (!replay) {
          problem(where + " game " + std::to_string(game.game_number) + ": " + error);
          continue;
        }
        if (game.start_seq <= last_seq) {
          problem(where + " game " + std::to_string(game.game_number) + " starts at seq " +
                  std::to_string(game.start_seq) + ", not after " + std::to_string(last_seq));
        }
        last_seq = game.start_seq;
        for (const server::MoveRecord& m : game.moves) {
          ++figures.moves;
          if (m.seq != last_seq + 1) {
            problem(where + " game " + std::to_string(game.game_number) + ": seq " +
                    std::to_string(m.seq) + " follows " + std::to_string(last_seq));
          }
          last_seq = m.seq;
          stored[{room, m.seq}] = m;
          if (const auto result = replay->apply(m.seat, m.move); !result.ok()) {
            problem(where + ": stored move " + std::to_string(m.seq) + " " + m.move.dump() +
                    " does not replay (" + result.code() + ")");
            break;
          }
          if (exp.human_seats.contains(m.seat)) {
            auto sent = exp.sent.find({room, m.seq});
            if (sent == exp.sent.end() || sent->second.seat != m.seat ||
                sent->second.move != m.move) {
              problem(where + ": stored move " + std::to_string(m.seq) + " by seat " +
                      std::to_string(m.seat) + " " + m.move.dump() +
                      " was never sent by that seat at that seq");
            }
          }
        }
        const bool last_game = g + 1 == history->games.size();
        if (last_game && (exp.vanished.contains(room) ||
                          (final && exp.finished_final && room == exp.rooms.back()))) {
          if (!replay->finished()) {
            problem(where + ": the last game (" + std::to_string(game.game_number) +
                    ") does not replay to its end");
          }
        }
      }
      if (exp.vanished.contains(room) &&
          history->room.status != server::StoredRoomStatus::kFinished) {
        problem(where + ": did not come back after a restart, but is not stored finished");
      }
      if (auto seen = exp.seen_seq.find(room);
          seen != exp.seen_seq.end() && seen->second > last_seq) {
        problem(where + ": a client saw a state push with seq " + std::to_string(seen->second) +
                ", the store ends at seq " + std::to_string(last_seq));
      }
    }
    for (const auto& [key, move] : exp.must_have) {
      auto it = stored.find(key);
      const std::string where =
          driver->label() + " room " + key.first + " seq " + std::to_string(key.second);
      if (it == stored.end()) {
        problem(where + ": acknowledged move " + move.move.dump() + " by seat " +
                std::to_string(move.seat) + " is not in the store");
      } else if (it->second.seat != move.seat || it->second.move != move.move) {
        problem(where + ": acknowledged move " + move.move.dump() + " by seat " +
                std::to_string(move.seat) + ", the store has " + it->second.move.dump() +
                " by seat " + std::to_string(it->second.seat));
      }
    }
    if (final && !exp.finished_final) problem(driver->label() + ": did not finish its last game");
  }
  store.close();
  fs::remove_all(scratch);
  return problems;
}

int env_int(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value ? std::atoi(value) : fallback;
}

TEST(Crash, SigkilledServerKeepsEveryAcknowledgedMoveAndEveryGameReachesGameOver) {
  const std::uint64_t seed = test_seed(20240607);
  const int kills = std::max(1, env_int("PARLOR_CRASH_KILLS", 20));
  std::cout << "crash test: seed " << seed << " (PARLOR_SEED=" << seed << "), " << kills
            << " kills\n";
  const auto began = Clock::now();
  auto ms_since = [](Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
  };
  const fs::path base = fs::temp_directory_path() / ("parlor-crash-" + std::to_string(::getpid()));
  fs::remove_all(base);
  fs::create_directories(base / "data");
  fs::create_directories(base / "logs");
  const fs::path data_dir = base / "data";
  const fs::path scratch = base / "check";

  // PARLOR_CRASH_SERVER: another server binary (e.g. a deliberately broken one).
  const char* binary = std::getenv("PARLOR_CRASH_SERVER");
  ServerProcess server(binary ? binary : PARLOR_SERVER_BINARY, server_flags(data_dir),
                       base / "logs");
  std::string error = server.start();
  ASSERT_EQ(error, "");

  Shared shared;
  shared.port = server.port();
  std::vector<std::unique_ptr<Driver>> drivers;
  const Json bigtwo_options = {{"grace", 3600}};
  for (int i = 0; i < 4; ++i) {
    drivers.push_back(std::make_unique<Driver>(
        "bigtwo" + std::to_string(i), "bigtwo", 4, bigtwo_options, std::set<int>{0, 1, 2, 3},
        seed * 1000 + static_cast<std::uint64_t>(i), shared));
  }
  // Spades to 100 points; seats 2 and 3 are server-side bots, whose moves are revealed by
  // state pushes (held until durable like `ok`).
  drivers.push_back(std::make_unique<Driver>("spades", "spades", 4,
                                             Json{{"grace", 3600}, {"target", 100}},
                                             std::set<int>{0, 1}, seed * 1000 + 4, shared));
  std::vector<std::thread> threads;
  // Whatever happens: stop the drivers, kill the server, join.
  struct Stopper {
    Shared& shared;
    ServerProcess& server;
    std::vector<std::thread>& threads;
    ~Stopper() {
      shared.abort = true;
      shared.cv.notify_all();
      server.kill_now();
      for (auto& t : threads) {
        if (t.joinable()) t.join();
      }
    }
  } stopper{shared, server, threads};
  for (auto& driver : drivers) threads.emplace_back([d = driver.get()] { d->run(); });

  auto failures = [&] {
    std::lock_guard lock(shared.mutex);
    return shared.failures;
  };
  auto report = [&](const std::string& when) {
    std::string out = when + ":\n";
    for (const auto& f : failures()) out += "  " + f + "\n";
    out += "  data directory " + data_dir.string() + "; last server log " + server.log().string() +
           ":\n" + tail_of(server.log(), 15);
    return out;
  };
  auto wait_all = [&](auto predicate, std::chrono::seconds timeout) {
    std::unique_lock lock(shared.mutex);
    return shared.cv.wait_for(lock, timeout, [&] {
      if (shared.abort) return true;
      return std::all_of(drivers.begin(), drivers.end(),
                         [&](const auto& d) { return predicate(*d); });
    });
  };
  auto total_ok = [&] {
    long n = 0;
    for (const auto& d : drivers) n += d->stats().moves_ok;
    return n;
  };

  ASSERT_TRUE(wait_all([](const Driver& d) { return d.ready_locked(); }, 20s))
      << "the rooms did not start within 20 s";
  ASSERT_FALSE(shared.abort) << report("before the first kill");
  std::cout << "  rooms playing after " << ms_since(began) << " ms\n";

  Rng schedule(seed);
  StoreFigures figures;
  for (int k = 1; k <= kills; ++k) {
    // Mostly a few hundred ms of play; one kill in four comes within 60 ms of the restart,
    // while clients reconnect and the server replays.
    const auto delay = std::chrono::milliseconds(static_cast<std::int64_t>(
        schedule.uniform(4) == 0 ? schedule.uniform(60) : 150 + schedule.uniform(900)));
    {
      std::unique_lock lock(shared.mutex);
      shared.cv.wait_for(lock, delay, [&] { return shared.abort.load(); });
    }
    ASSERT_FALSE(shared.abort) << report("before kill " + std::to_string(k));
    int epoch = 0;
    {
      std::lock_guard lock(shared.mutex);
      epoch = shared.killed_epoch = shared.epoch;
    }
    const std::string ended = server.kill_now();
    ASSERT_EQ(ended, "") << "the server had already ended before kill " << k << "\n"
                         << report("kill " + std::to_string(k));
    ASSERT_TRUE(
        wait_all([epoch](const Driver& d) { return d.parked_or_exited_locked(epoch); }, 20s))
        << "the clients did not all notice kill " << k;
    ASSERT_FALSE(shared.abort) << report("after kill " + std::to_string(k));
    const auto problems = check_store(data_dir, scratch, drivers, false, figures);
    std::string text;
    for (const auto& p : problems) text += "  " + p + "\n";
    ASSERT_TRUE(problems.empty()) << "after kill " << k << " (" << delay.count()
                                  << " ms after the restart):\n"
                                  << text << report("store check");
    std::cout << "  kill " << k << " at " << ms_since(began) << " ms (" << delay.count()
              << " ms after the server was up): " << total_ok()
              << " moves ok'd so far; the store has " << figures.moves << " moves in "
              << figures.games << " games of " << figures.rooms << " rooms; checked\n";
    error = server.start();
    ASSERT_EQ(error, "") << "restart " << k;
    {
      std::lock_guard lock(shared.mutex);
      ++shared.epoch;
      shared.port = server.port();
    }
    shared.cv.notify_all();
  }

  // Every room plays its current game to game_over, then a last kill and a last check.
  shared.finishing = true;
  ASSERT_TRUE(wait_all([](const Driver& d) { return d.exited_locked(); }, 40s))
      << "the games did not all reach game_over within 40 s";
  ASSERT_TRUE(failures().empty()) << report("finishing");
  {
    std::lock_guard lock(shared.mutex);
    shared.killed_epoch = shared.epoch;
  }
  ASSERT_EQ(server.kill_now(), "") << "the server had already ended before the final kill";
  const auto problems = check_store(data_dir, scratch, drivers, true, figures);
  std::string text;
  for (const auto& p : problems) text += "  " + p + "\n";
  ASSERT_TRUE(problems.empty()) << "after the final kill:\n" << text << report("final store check");

  DriverStats sum;
  for (const auto& d : drivers) {
    const DriverStats s = d->stats();
    sum.moves_ok += s.moves_ok;
    sum.pending_present += s.pending_present;
    sum.pending_absent += s.pending_absent;
    sum.games_finished += s.games_finished;
    sum.rooms_created += s.rooms_created;
    sum.rooms_vanished += s.rooms_vanished;
    sum.rooms_found_finished += s.rooms_found_finished;
    sum.reconnects += s.reconnects;
  }
  std::cout << "  done in " << ms_since(began) << " ms: " << kills + 1 << " SIGKILLs ("
            << server.starts() << " server starts), " << sum.moves_ok << " moves ok'd, "
            << sum.pending_present << " unacknowledged moves found applied and "
            << sum.pending_absent << " found absent after a restart, " << sum.games_finished
            << " games to game_over, " << sum.rooms_created << " rooms (" << sum.rooms_vanished
            << " finished rooms not reloaded, " << sum.rooms_found_finished
            << " reloaded and found finished by the replay), " << sum.reconnects
            << " client resumes; the store has " << figures.moves << " moves in " << figures.games
            << " games\n";
  EXPECT_GT(sum.moves_ok, 0);
  EXPECT_GT(sum.games_finished, 0);
  fs::remove_all(base);
}

}  // namespace
}  // namespace parlor::testing
