#include "bots/sim/standings.h"

#include <algorithm>

#include "games/bigtwo/bigtwo.h"

namespace parlor::sim {
namespace {

// obj[key], or null when obj is not an object or lacks the key (const operator[] would assert).
const Json& field(const Json& obj, const char* key) {
  static const Json kNull;
  if (!obj.is_object()) return kNull;
  const auto it = obj.find(key);
  return it == obj.end() ? kNull : *it;
}

double number_at(const Json& array, std::size_t index) {
  if (!array.is_array() || index >= array.size() || !array[index].is_number()) return 0;
  return array[index].get<double>();
}

// Big Two: cumulative score plus what the current deal would cost if it ended now.
class BigTwoProbe final : public GameProbe {
 public:
  void standings(const Game& game, std::vector<double>& out) const override {
    const auto* big_two = dynamic_cast<const bigtwo::BigTwoGame*>(&game);
    if (!big_two) return;
    for (Seat s = 0; s < game.seat_count(); ++s) {
      const int score = big_two->scores()[static_cast<std::size_t>(s)];
      out[static_cast<std::size_t>(s)] =
          score + (game.finished() ? 0 : bigtwo::penalty(big_two->hand(s).size()));
    }
  }

  std::optional<int> fast_random_move(Game& game, Seat seat, Rng& rng) const override {
    auto* big_two = dynamic_cast<bigtwo::BigTwoGame*>(&game);
    if (!big_two) return std::nullopt;
    plays_.clear();
    big_two->legal_plays(seat, plays_);
    const bool can_pass = big_two->can_pass(seat);
    const std::size_t count = plays_.size() + (can_pass ? 1 : 0);
    if (count == 0) return 0;
    // The same draw as random_move over legal_moves(): the plays in order, then the pass.
    const auto pick = static_cast<std::size_t>(rng.uniform(count));
    if (pick < plays_.size()) {
      big_two->play_checked(seat, plays_[pick].cards, plays_[pick].hand);
    } else {
      big_two->pass_checked(seat);
    }
    return static_cast<int>(count);
  }

 private:
  mutable std::vector<bigtwo::Play> plays_;  // reused: no allocation per move
};

// Spades: team points, plus ten per trick taken while a hand is being played.
class SpadesProbe final : public GameProbe {
 public:
  int sides(int) const override { return 2; }
  int side_of(Seat seat) const override { return seat % 2; }
  void standings(const Game& game, std::vector<double>& out) const override {
    const Json view = game.view(kSpectator);
    const bool playing = view.value("phase", "") == "play";
    const Json& scores = field(view, "scores");
    for (std::size_t team = 0; team < 2; ++team) {
      double points = 0;
      if (scores.is_array() && team < scores.size() && scores[team].is_object()) {
        points = scores[team].value("points", 0.0);
      }
      out[team] = points + (playing ? 10 * number_at(field(view, "team_tricks"), team) : 0);
    }
  }
};

// Bid Whist: team score, plus books taken this hand as a fraction of a point (13 books a hand).
class BidWhistProbe final : public GameProbe {
 public:
  int sides(int) const override { return 2; }
  int side_of(Seat seat) const override { return seat % 2; }
  void standings(const Game& game, std::vector<double>& out) const override {
    const Json view = game.view(kSpectator);
    const bool playing = view.value("phase", "") == "playing";
    for (std::size_t team = 0; team < 2; ++team) {
      out[team] = number_at(field(view, "scores"), team) +
                  (playing ? number_at(field(view, "books"), team) / 13.0 : 0);
    }
  }
};

// Agram: deals won, plus half a point for the seat that will lead the next trick of a deal in
// progress (it won the last one).
class AgramProbe final : public GameProbe {
 public:
  void standings(const Game& game, std::vector<double>& out) const override {
    const Json view = game.view(kSpectator);
    const bool playing = view.value("phase", "") == "play";
    const Json& last = field(view, "last_trick");
    const int leader = playing && last.is_object() ? last.value("winner", -1) : -1;
    for (std::size_t s = 0; s < out.size(); ++s) {
      out[s] = number_at(field(view, "scores"), s) + (static_cast<int>(s) == leader ? 0.5 : 0);
    }
  }
};

// Splendor: prestige points.
class SplendorProbe final : public GameProbe {
 public:
  void standings(const Game& game, std::vector<double>& out) const override {
    const Json view = game.view(kSpectator);
    const Json& players = field(view, "players");
    for (std::size_t s = 0; s < out.size(); ++s) {
      out[s] = players.is_array() && s < players.size() && players[s].is_object()
                   ? players[s].value("points", 0.0)
                   : 0;
    }
  }
};

// Any other game: the spectator view's "scores" when it is an array of numbers.
class GenericProbe final : public GameProbe {
 public:
  void standings(const Game& game, std::vector<double>& out) const override {
    const Json view = game.view(kSpectator);
    for (std::size_t s = 0; s < out.size(); ++s) out[s] = number_at(field(view, "scores"), s);
  }
};

}  // namespace

std::unique_ptr<GameProbe> make_probe(std::string_view kind) {
  if (kind == "bigtwo") return std::make_unique<BigTwoProbe>();
  if (kind == "spades") return std::make_unique<SpadesProbe>();
  if (kind == "bidwhist") return std::make_unique<BidWhistProbe>();
  if (kind == "agram") return std::make_unique<AgramProbe>();
  if (kind == "splendor") return std::make_unique<SplendorProbe>();
  return std::make_unique<GenericProbe>();
}

}  // namespace parlor::sim
