// A game whose rules live in an engine behind HTTP (the Tamerlane contract, docs/ENGINES.md).
//
// The server owns the table: the deck (shuffled from the room's seed), the hands, the stacks,
// the discard, the decorations, the info lines and the open prompts. The engine only says
// what happens next, as a list of events. So this Game is a pure state machine like every
// other: it never calls the engine itself. Instead the room asks it which call the engine
// must answer (waiting_call, call_for_move), makes the call off the room's strand, and
// applies the answer as a move that carries it:
//
//   {"call":"init","answer":{...}}                          seat kEngineSeat
//   {"call":"next","action":null,"answer":[state,events]}   seat kEngineSeat
//   {"call":"next","action":MOVE,"answer":[state,events]}   the seat that made MOVE
//
// Such a logged move holds everything the engine returned, so the move log rebuilds the
// game without asking the engine again, whether or not the engine would answer the same.
// apply() checks an answer completely (every event against the table as it stands after
// the events before it) and changes nothing when anything is wrong: a malformed answer is
// refused with code "engine_answer" and a message naming the event and the fault.
//
// A player's MOVE is {"action":"select"|"play"|"discard","value":[...]}: the answer to
// their open prompt, shown to them as a Parlor prompt with `legal` moves (count 1) or a
// `choose` shape (several cards or options).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "games/core/game_info.h"
#include "games/external/engine_config.h"

namespace parlor::external {

// The seat logged for a call no player made: init, and next with a null action.
inline constexpr Seat kEngineSeat = -1;

// The refusal code of an engine answer that breaks the contract.
inline constexpr const char* kBadAnswerCode = "engine_answer";

// An HTTP call to the engine: `target` is appended to the engine's base URL.
struct EngineCall {  // NOLINT(bugprone-exception-escape): Json's move (games/core/game.h)
  bool post = false;
  std::string target;  // "/init?players=..." or "/next"
  std::string body;    // the JSON request of a POST
  // For a player's move: the seat and the move it answers with (null for a null action).
  Seat seat = kEngineSeat;
  Json move;
};

struct Prompt {
  enum class Kind { kSelect, kPlay, kDiscard };
  Kind kind = Kind::kSelect;
  std::string name;  // prompt_select's name
  std::string to;    // prompt_play's stack
  int count = 1;
  std::vector<std::string> from;  // select: the options; play: the playable cards
};

class ExternalGame final : public Game {
 public:
  ExternalGame(std::string kind, std::shared_ptr<const EngineConfig> config, std::uint64_t seed);

  std::string_view kind() const override { return kind_; }
  int seat_count() const override { return config_->player_count; }
  std::vector<Seat> to_act() const override;
  Json legal_moves(Seat seat) const override;
  Json prompt(Seat seat) const override;
  MoveResult apply(Seat seat, const Json& move) override;
  Json view(Seat seat) const override;
  // The player's move alone: the engine's answer (its state) is never shown.
  Json shown_move(const Json& logged) const override { return logged.value("action", Json()); }
  bool finished() const override { return finished_; }
  Json result() const override;
  Json full_state() const override;
  std::uint64_t state_hash() const override;
  std::unique_ptr<Game> clone() const override { return std::make_unique<ExternalGame>(*this); }

  // The call the game waits for with no player to act: init before the first answer, then
  // next with a null action whenever no prompt is open. nullopt when a player must act or
  // the game is over.
  std::optional<EngineCall> waiting_call() const;
  // The next call that `move` by `seat` needs, once checked against the seat's open prompt;
  // a rejection (the engine is not to be asked) when it does not answer it.
  std::optional<EngineCall> call_for_move(Seat seat, const Json& move, MoveResult& refusal) const;
  // The logged move for an engine's answer to `call`.
  static Json answered(const EngineCall& call, Json answer);
  // The player ids the engine knows the seats by ("seat0", "seat1", ...).
  static std::string player_id(Seat seat);

 private:
  struct InfoLine {
    std::string id;
    std::string label;
    Json value;
  };
  MoveResult apply_init(const Json& answer);
  MoveResult apply_next(Seat seat, const Json& action, const Json& answer);
  // Checks `move` against `seat`'s open prompt; "" when it answers it, else the refusal.
  MoveResult check_move(Seat seat, const Json& move) const;
  // Carries out one event; "" on success, else what is wrong with it.
  std::string carry_out(const Json& event, Json& events);
  std::optional<Seat> seat_of_player(const Json& id) const;
  Json next_request(const Json& action) const;
  void shuffle_all();

  std::string kind_;
  std::shared_ptr<const EngineConfig> config_;
  std::uint64_t seed_ = 0;
  int shuffles_ = 0;                  // shuffle events carried out (each deals a new order)
  std::vector<std::string> deck_;     // undealt cards; the top is the back
  std::vector<std::string> discard_;  // face down, seen by nobody
  std::vector<std::vector<std::string>> hands_;
  std::vector<std::vector<std::string>> stacks_;  // in config order
  std::vector<InfoLine> info_;
  std::vector<std::map<std::string, std::string>> decorations_;
  std::vector<std::optional<Prompt>> prompts_;
  Json players_;       // init's players, in seat order; null before init
  Json engine_state_;  // the engine's state: stored and sent back, never shown
  std::string phase_;
  int null_calls_ = 0;  // next calls with a null action in a row
  bool finished_ = false;
  std::vector<long long> scores_;
};

// The registry entry of an engine's game: `name` is the kind the operator chose.
GameInfo external_game_info(const std::string& name,
                            const std::shared_ptr<const EngineConfig>& config);

}  // namespace parlor::external
