// Splendor ("Gem Merchants"), 2-4 players: the publisher's rulebook and FAQ
// (summarised in README.md, which also documents every move, view field and code).
//
// Phases: kPlay (one of take / reserve / buy, or pass when none is legal), then, for the
// same seat, kReturn when it holds more than 10 tokens and kNoble when several nobles
// qualify (one qualifying noble visits automatically). The game ends when the round in
// which someone reached 15 prestige is complete.
//
// Moves are JSON objects: {"action":"take","gems":[...]}, {"action":"reserve","card":ID}
// or {"action":"reserve","level":N}, {"action":"buy","card":ID[,"gold":{...}]},
// {"action":"return","gems":{...}}, {"action":"noble","noble":ID}, {"action":"pass"}.
// Cards and nobles are named by the data's ids and sent in views as full objects.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "games/core/game.h"
#include "games/core/game_info.h"
#include "games/splendor/rules.h"

namespace parlor {

GameInfo splendor_info();

namespace splendor {

class SplendorGame final : public Game {
 public:
  SplendorGame(int seats, std::uint64_t seed);
  // Test seam: a game from an explicit state (stacked decks, chosen purses). The state must
  // be consistent (see the self-play invariants); nothing is re-dealt.
  explicit SplendorGame(State state);

  std::string_view kind() const override { return "splendor"; }
  int seat_count() const override { return state_.seats; }
  std::vector<Seat> to_act() const override;
  Json legal_moves(Seat seat) const override;
  Json prompt(Seat seat) const override;
  MoveResult apply(Seat seat, const Json& move) override;
  Json view(Seat seat) const override;
  // write_view writes view()'s text without building it; write_views writes the text every
  // seat's view shares once, and each seat's players (its own blind reserves) and `you`.
  void write_view(Seat seat, std::string& out) const override;
  void write_views(std::span<const Seat> seats, std::span<std::string* const> outs) const override;
  bool finished() const override { return state_.phase == Phase::kFinished; }
  Json result() const override;
  // Both read the one field list visit_state gives (games/core/state_fields.h); the hash
  // reads the typed fields as fixed-width words, without building and printing the JSON
  // (the self-play checker hashes after every probe).
  Json full_state() const override;
  std::uint64_t state_hash() const override;
  std::unique_ptr<Game> clone() const override;

  const State& state() const { return state_; }

 private:
  enum class Where { kNowhere, kTable, kReserve };
  struct Located {
    Where where = Where::kNowhere;
    int level = 0;  // kTable: row index
    int index = 0;  // kTable: slot; kReserve: index in the reserve
  };

  template <class Fields>
  void visit_state(Fields& fields) const;
  Json legal_play_moves() const;
  std::vector<int> qualifying_nobles() const;
  Located locate(int card) const;
  int excess_tokens() const;

  MoveResult apply_take(const Json& move);
  MoveResult apply_reserve(const Json& move);
  MoveResult apply_buy(const Json& move);
  MoveResult apply_return(const Json& move);
  MoveResult apply_noble(const Json& move);
  MoveResult apply_pass();

  // Removes a face-up card and refills its slot from the deck; appends the refill event.
  void take_from_table(const Located& where, Json& events);
  void award_noble(int noble, Json& events);
  // After an action: prompts a return, then nobles, then passes the turn (or ends the game).
  void end_of_action(Json& events);
  void finish_turn(Json& events);

  Json player_view(int seat, Seat viewer) const;
  // write_view in pieces: the keys before "players", the players as `viewer` sees them, the
  // keys between "players" and "you" (json_text::view_you_and_close ends it).
  void write_view_start(std::string& out) const;
  void write_view_players(std::string& out, Seat viewer) const;
  void write_view_end(std::string& out) const;

  State state_;
};

}  // namespace splendor
}  // namespace parlor
