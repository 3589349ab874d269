#include "server/ratings/ratings.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <tuple>

namespace parlor::ratings {
namespace {

// Glicko-2's conversion between the Glicko scale and its own (Glickman 2012, step 2).
constexpr double kGlicko2Scale = 173.7178;

double g(double phi) {
  return 1.0 / std::sqrt(1.0 + 3.0 * phi * phi / (std::numbers::pi * std::numbers::pi));
}

double expected(double mu, double mu_j, double phi_j) {
  return 1.0 / (1.0 + std::exp(-g(phi_j) * (mu - mu_j)));
}

// Step 5: the new volatility, by the Illinois algorithm on f(x) = 0.
double new_volatility(double sigma, double phi, double v, double delta, const Glicko2Options& o) {
  const double a = std::log(sigma * sigma);
  const double tau2 = o.tau * o.tau;
  const auto f = [&](double x) {
    const double ex = std::exp(x);
    const double denominator = phi * phi + v + ex;
    return ex * (delta * delta - phi * phi - v - ex) / (2.0 * denominator * denominator) -
           (x - a) / tau2;
  };
  double big_a = a;
  double big_b = 0;
  if (delta * delta > phi * phi + v) {
    big_b = std::log(delta * delta - phi * phi - v);
  } else {
    double k = 1;
    while (f(a - k * o.tau) < 0) k += 1;
    big_b = a - k * o.tau;
  }
  double f_a = f(big_a);
  double f_b = f(big_b);
  for (int i = 0; i < 200 && std::abs(big_b - big_a) > o.epsilon; ++i) {
    const double big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
    const double f_c = f(big_c);
    if (f_c * f_b <= 0) {
      big_a = big_b;
      f_a = f_b;
    } else {
      f_a /= 2;
    }
    big_b = big_c;
    f_b = f_c;
  }
  return std::exp(big_a / 2);
}

}  // namespace

double conservative(const Rating& rating) { return rating.rating - 2.0 * rating.deviation; }

Rating glicko2_update(const Rating& player, std::span<const Glicko2Game> games,
                      const Glicko2Options& options) {
  const double mu = (player.rating - kInitialRating) / kGlicko2Scale;
  const double phi = player.deviation / kGlicko2Scale;
  const double sigma = player.volatility;
  if (games.empty()) {
    const double phi_star = std::sqrt(phi * phi + sigma * sigma);
    return {player.rating, phi_star * kGlicko2Scale, sigma};
  }
  // Steps 3 and 4: the estimated variance and the estimated improvement.
  double v_inverse = 0;
  double sum = 0;
  for (const Glicko2Game& game : games) {
    const double mu_j = (game.opponent.rating - kInitialRating) / kGlicko2Scale;
    const double phi_j = game.opponent.deviation / kGlicko2Scale;
    const double e = expected(mu, mu_j, phi_j);
    const double g_j = g(phi_j);
    v_inverse += g_j * g_j * e * (1 - e);
    sum += g_j * (game.score - e);
  }
  const double v = 1.0 / v_inverse;
  const double delta = v * sum;
  // Steps 5 to 8.
  const double sigma_new = new_volatility(sigma, phi, v, delta, options);
  const double phi_star = std::sqrt(phi * phi + sigma_new * sigma_new);
  const double phi_new = 1.0 / std::sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
  const double mu_new = mu + phi_new * phi_new * sum;
  return {mu_new * kGlicko2Scale + kInitialRating, phi_new * kGlicko2Scale, sigma_new};
}

std::vector<std::vector<Rating>> weng_lin_update(const std::vector<std::vector<Rating>>& sides,
                                                 const std::vector<int>& ranks,
                                                 const WengLinOptions& options) {
  if (sides.size() < 2) throw std::invalid_argument("a game needs at least two sides");
  if (ranks.size() != sides.size()) throw std::invalid_argument("one rank per side");
  const std::size_t k = sides.size();
  std::vector<double> mu(k, 0.0);
  std::vector<double> variance(k, 0.0);  // sigma_i^2
  for (std::size_t i = 0; i < k; ++i) {
    if (sides[i].empty()) throw std::invalid_argument("a side without players");
    for (const Rating& member : sides[i]) {
      mu[i] += member.rating - kInitialRating;
      variance[i] += member.deviation * member.deviation;
    }
  }
  const double two_beta2 = 2.0 * options.beta * options.beta;
  std::vector<double> omega(k, 0.0);
  std::vector<double> delta(k, 0.0);
  for (std::size_t i = 0; i < k; ++i) {
    for (std::size_t q = 0; q < k; ++q) {
      if (q == i) continue;
      const double c = std::sqrt(variance[i] + variance[q] + two_beta2);
      // e^(mu_i/c) / (e^(mu_i/c) + e^(mu_q/c)), written so that no large exponent overflows.
      const double p_iq = 1.0 / (1.0 + std::exp((mu[q] - mu[i]) / c));
      const double s = ranks[q] > ranks[i] ? 1.0 : ranks[q] == ranks[i] ? 0.5 : 0.0;
      omega[i] += variance[i] / c * (s - p_iq);
      const double gamma = std::sqrt(variance[i]) / c;
      delta[i] += gamma * variance[i] / (c * c) * p_iq * (1.0 - p_iq);
    }
  }
  std::vector<std::vector<Rating>> out = sides;
  for (std::size_t i = 0; i < k; ++i) {
    for (Rating& member : out[i]) {
      const double share = member.deviation * member.deviation / variance[i];
      member.rating += share * omega[i];
      const double factor = std::max(1.0 - share * delta[i], options.kappa);
      member.deviation = std::sqrt(member.deviation * member.deviation * factor);
    }
  }
  return out;
}

std::optional<std::vector<Side>> sides_from_result(const nlohmann::json& result, int seats,
                                                   const std::vector<bool>& abandoned) {
  if (seats < 2 || !result.is_object()) return std::nullopt;
  const auto winners = result.find("winners");
  const auto scores = result.find("scores");
  if (winners == result.end() || !winners->is_array()) return std::nullopt;
  if (scores == result.end() || !scores->is_array() ||
      scores->size() != static_cast<std::size_t>(seats)) {
    return std::nullopt;
  }
  int teams = seats;
  if (const auto team_scores = result.find("team_scores");
      team_scores != result.end() && team_scores->is_array() && team_scores->size() >= 2 &&
      seats % static_cast<int>(team_scores->size()) == 0) {
    teams = static_cast<int>(team_scores->size());
  }
  struct Standing {
    bool won = false;
    bool abandoned = false;
    double score = 0;
  };
  std::vector<Side> sides(static_cast<std::size_t>(teams));
  std::vector<Standing> standing(static_cast<std::size_t>(teams));
  for (int seat = 0; seat < seats; ++seat) {
    const auto team = static_cast<std::size_t>(seat % teams);
    sides[team].seats.push_back(seat);
    const auto& score = (*scores)[static_cast<std::size_t>(seat)];
    if (!score.is_number()) return std::nullopt;
    standing[team].score = score.get<double>();
    if (static_cast<std::size_t>(seat) < abandoned.size() &&
        abandoned[static_cast<std::size_t>(seat)]) {
      standing[team].abandoned = true;
    }
  }
  for (const auto& winner : *winners) {
    if (!winner.is_number_integer()) return std::nullopt;
    const auto seat = winner.get<std::int64_t>();
    if (seat < 0 || seat >= seats) return std::nullopt;
    standing[static_cast<std::size_t>(seat % teams)].won = true;
  }
  // Sorted by (abandoned, lost, -score): a side's place is the number of sides strictly ahead.
  const auto key = [](const Standing& s) { return std::tuple(s.abandoned, !s.won, -s.score); };
  for (std::size_t i = 0; i < sides.size(); ++i) {
    int ahead = 0;
    for (std::size_t j = 0; j < sides.size(); ++j) {
      if (j != i && key(standing[j]) < key(standing[i])) ++ahead;
    }
    sides[i].rank = ahead;
  }
  return sides;
}

std::string_view system_name(System system) {
  return system == System::kGlicko2 ? "glicko2" : "weng-lin";
}

GameRatings rate_game(const std::vector<Side>& sides, const std::vector<Rating>& before) {
  if (sides.size() < 2) throw std::invalid_argument("a game needs at least two sides");
  for (const Side& side : sides) {
    if (side.seats.empty()) throw std::invalid_argument("a side without seats");
    for (const int seat : side.seats) {
      if (seat < 0 || static_cast<std::size_t>(seat) >= before.size()) {
        throw std::invalid_argument("a seat without a rating");
      }
    }
  }
  GameRatings out{sides.size() == 2 ? System::kGlicko2 : System::kWengLin, before};
  if (out.system == System::kGlicko2) {
    for (std::size_t i = 0; i < 2; ++i) {
      const Side& self = sides[i];
      const Side& other = sides[1 - i];
      // The other side as one composite opponent.
      Rating opponent;
      double rating_sum = 0;
      double variance_sum = 0;
      for (const int seat : other.seats) {
        rating_sum += before[static_cast<std::size_t>(seat)].rating;
        variance_sum += before[static_cast<std::size_t>(seat)].deviation *
                        before[static_cast<std::size_t>(seat)].deviation;
      }
      const auto n = static_cast<double>(other.seats.size());
      opponent.rating = rating_sum / n;
      opponent.deviation = std::sqrt(variance_sum / n);
      const double score = self.rank < other.rank ? 1.0 : self.rank == other.rank ? 0.5 : 0.0;
      const Glicko2Game game{opponent, score};
      for (const int seat : self.seats) {
        out.after[static_cast<std::size_t>(seat)] =
            glicko2_update(before[static_cast<std::size_t>(seat)], std::span(&game, 1));
      }
    }
    return out;
  }
  std::vector<std::vector<Rating>> teams;
  std::vector<int> ranks;
  for (const Side& side : sides) {
    std::vector<Rating> members;
    for (const int seat : side.seats) members.push_back(before[static_cast<std::size_t>(seat)]);
    teams.push_back(std::move(members));
    ranks.push_back(side.rank);
  }
  const auto updated = weng_lin_update(teams, ranks);
  for (std::size_t i = 0; i < sides.size(); ++i) {
    for (std::size_t m = 0; m < sides[i].seats.size(); ++m) {
      out.after[static_cast<std::size_t>(sides[i].seats[m])] = updated[i][m];
    }
  }
  return out;
}

}  // namespace parlor::ratings
