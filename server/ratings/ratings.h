// Ratings of rated games: pure functions, no I/O (docs/ARCHITECTURE.md, "Ratings").
//
// Two published systems, both kept on one scale (a new player is 1500 with deviation 350):
//
//  - Glicko-2 (Mark E. Glickman, "Example of the Glicko-2 system", Boston University, 2012)
//    for games of two sides: two players, or two partnerships treated as teams. A partnership's
//    opponents count as one composite opponent (their mean rating, and the root mean square of
//    their deviations). Every game is a rating period of its own.
//  - The Bradley–Terry full-pair model of Weng and Lin's Bayesian approximation (Ruby C. Weng
//    and Chih-Jen Lin, "A Bayesian Approximation Method for Online Ranking", Journal of Machine
//    Learning Research 12, 2011, Algorithm 1; the model OpenSkill implements) for games of three
//    or more sides, partnerships included. A side's strength is the sum of its members'.
//
// Weng–Lin works on mu = rating - 1500 and sigma = deviation; beta is half the initial
// deviation, as OpenSkill's defaults (25/6 for sigma 25/3). Glicko-2's volatility is carried
// through Weng–Lin games unchanged.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace parlor::ratings {

inline constexpr double kInitialRating = 1500.0;
inline constexpr double kInitialDeviation = 350.0;
inline constexpr double kInitialVolatility = 0.06;

struct Rating {
  double rating = kInitialRating;
  double deviation = kInitialDeviation;
  double volatility = kInitialVolatility;  // Glicko-2's sigma
};

// What leaderboards sort by: a rating the player is very likely above (rating - 2 deviations).
double conservative(const Rating& rating);

// ---- Glicko-2 ----------------------------------------------------------------------------------

struct Glicko2Game {
  Rating opponent;
  double score = 0;  // 1 win, 0.5 draw, 0 loss
};

struct Glicko2Options {
  double tau = 0.5;           // the system constant: how fast volatility may change
  double epsilon = 0.000001;  // the convergence tolerance of the volatility iteration
};

// The player's rating after one rating period with `games` (Glickman 2012, steps 1 to 8).
// No games: only the deviation grows (step 6).
Rating glicko2_update(const Rating& player, std::span<const Glicko2Game> games,
                      const Glicko2Options& options = {});

// ---- Weng–Lin ----------------------------------------------------------------------------------

struct WengLinOptions {
  double beta = kInitialDeviation / 2;  // the performance noise of one game
  double kappa = 0.0001;                // the least factor a variance may shrink by in a game
};

// New ratings of every member of every side. `ranks[i]` is side i's place: lower is better,
// equal ranks are a tie. Throws std::invalid_argument on fewer than two sides, an empty side or
// a rank count that does not match.
std::vector<std::vector<Rating>> weng_lin_update(const std::vector<std::vector<Rating>>& sides,
                                                 const std::vector<int>& ranks,
                                                 const WengLinOptions& options = {});

// ---- a rated game ------------------------------------------------------------------------------

// One side of a finished game: its seats and its place (0 best; equal places tie).
struct Side {
  std::vector<int> seats;
  int rank = 0;
};

// The sides of a finished game, from the game's result ({"scores":[...],"winners":[...],
// "team_scores":[...]}): partnerships where the result has `team_scores` (seat s plays for team
// s % teams), otherwise one side per seat. Winners take place 0; the other sides follow by
// score, higher first (equal scores tie). A side with an abandoned seat (its player left, or a
// stand-in bot played it when its grace ran out) ranks below every side without one.
// nullopt: the result does not say who won (no `winners`, or scores that do not fit `seats`).
std::optional<std::vector<Side>> sides_from_result(const nlohmann::json& result, int seats,
                                                   const std::vector<bool>& abandoned);

enum class System { kGlicko2, kWengLin };
std::string_view system_name(System system);  // "glicko2" or "weng-lin"

// Rates one game: `before[s]` is seat s's rating; the answer is every seat's new rating (a seat in
// no side keeps its own). Two sides: Glicko-2; more: Weng–Lin. Throws std::invalid_argument
// on fewer than two sides or a seat out of range.
struct GameRatings {
  System system = System::kGlicko2;
  std::vector<Rating> after;
};
GameRatings rate_game(const std::vector<Side>& sides, const std::vector<Rating>& before);

}  // namespace parlor::ratings
