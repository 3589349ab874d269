// The rules-engine contract every Parlor game implements.
//
// A game is a deterministic state machine: the same options, seat count, seed
// and sequence of accepted moves reach the same state on every machine. That
// property is what replay, crash recovery, bots and fuzzing rely on, so an
// engine holds no clock, no global state and no randomness other than the Rng
// seeded from `seed` at creation.
//
// Moves, views and prompts are JSON objects (the wire formats documented in
// protocol/PROTOCOL.md). `apply` validates completely and either changes the
// state and returns Accepted, or changes nothing and returns a rejection with a
// wire error code and a human message. Engines never trust their input.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace parlor {

// clang-tidy's bugprone-exception-escape takes nlohmann::json's noexcept move constructor for
// one that throws (it follows a throw in the code that move never reaches), so every struct
// holding a Json is reported for its implicit move; those structs say so where they begin.
using Json = nlohmann::json;
using Seat = int;

// The seat value used to ask for the spectator view: no hidden card at all.
inline constexpr Seat kSpectator = -1;

class MoveResult {
 public:
  // `events` is a JSON array of public events (what every seat may learn).
  static MoveResult accepted(Json events = Json::array()) {
    MoveResult r;
    r.events_ = std::move(events);
    return r;
  }
  // The same, with the events already written as JSON text (an array, exactly as dump()
  // writes it), for engines whose moves are on the server's hot path: the server copies
  // the text into every state push, and the Json value is built only if someone asks.
  static MoveResult accepted_text(std::string events) {
    MoveResult r;
    r.events_text_ = std::move(events);
    r.events_parsed_ = false;
    return r;
  }
  static MoveResult rejected(std::string code, std::string message) {
    MoveResult r;
    r.ok_ = false;
    r.code_ = std::move(code);
    r.message_ = std::move(message);
    return r;
  }

  bool ok() const { return ok_; }
  const std::string& code() const { return code_; }        // wire error code when rejected
  const std::string& message() const { return message_; }  // human text when rejected
  const Json& events() const {
    parse_events();
    return events_;
  }
  Json& events() {
    parse_events();
    events_text_.clear();  // the caller may change the value
    return events_;
  }
  // The events as JSON text, the bytes dump() writes for events().
  std::string events_text() const {
    if (!events_text_.empty()) return events_text_;
    return events_.dump(-1, ' ', false, Json::error_handler_t::replace);
  }

 private:
  void parse_events() const {
    if (events_parsed_) return;
    events_ = Json::parse(events_text_);
    events_parsed_ = true;
  }

  bool ok_ = true;
  std::string code_;
  std::string message_;
  mutable Json events_ = Json::array();
  mutable bool events_parsed_ = true;
  std::string events_text_;  // set by accepted_text until events() may have changed the value
};

class Game {
 public:
  virtual ~Game() = default;

  virtual std::string_view kind() const = 0;
  virtual int seat_count() const = 0;

  // Seats whose input the game waits for; empty once finished.
  virtual std::vector<Seat> to_act() const = 0;

  // Every legal move for `seat` as a JSON array (empty when the seat is not to act).
  virtual Json legal_moves(Seat seat) const = 0;

  // The prompt for a seat in to_act(): {"actions":[...],"legal":[MOVE...]} or, where the
  // legal set is not enumerable, {"actions":[...],"choose":{...}}. Null for other seats.
  virtual Json prompt(Seat seat) const = 0;

  // Validates and applies a move made by `seat`. A rejection leaves the state untouched.
  virtual MoveResult apply(Seat seat, const Json& move) = 0;

  // What `seat` may see (kSpectator: what anyone may see). Never contains hidden information.
  virtual Json view(Seat seat) const = 0;

  // view(seat) and prompt(seat) as wire text appended to `out`: byte for byte what dump()
  // makes of them (compact, keys sorted). The server sends a view to every seat on every
  // move, so engines may override these to write the text without building a JSON tree
  // (games/core/json_text.h); the self-play checker holds every override to the same bytes.
  virtual void write_view(Seat seat, std::string& out) const;
  virtual void write_prompt(Seat seat, std::string& out) const;
  // write_view for several seats at once: seats[i]'s view appended to *outs[i]. The views
  // after a move share most of their text, which an engine may write once; by default
  // each view is written on its own.
  virtual void write_views(std::span<const Seat> seats, std::span<std::string* const> outs) const;

  // What a replay shows of a logged move (to its mover, and to everyone once the game is
  // over): the move itself, unless the log keeps more with it than the player sent.
  virtual Json shown_move(const Json& logged) const { return logged; }

  virtual bool finished() const = 0;
  // {"scores":[...],"winners":[SEATS], ...}; null until finished().
  virtual Json result() const = 0;

  // Everything, hidden information included: for tests, state hashing and the
  // after-the-game full reveal of replays. Never sent to a player mid-game.
  virtual Json full_state() const = 0;

  // A stable hash of full_state(); equal states hash equal on every machine.
  virtual std::uint64_t state_hash() const;

  virtual std::unique_ptr<Game> clone() const = 0;
};

// FNV-1a over bytes: stable across platforms and standard libraries (std::hash is not).
std::uint64_t stable_hash(std::string_view bytes);

}  // namespace parlor
