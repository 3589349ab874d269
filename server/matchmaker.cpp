#include "server/matchmaker.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace parlor::server {

namespace {

std::chrono::milliseconds waited(Matchmaker::Clock::time_point since,
                                 Matchmaker::Clock::time_point now) {
  return std::max(std::chrono::milliseconds(0),
                  std::chrono::duration_cast<std::chrono::milliseconds>(now - since));
}

// Orders `chosen` (indexes into `rating_of`, a full table in queue order) into seats so that the
// two partnerships' summed ratings differ the least, as the seats are dealt out: seat s plays
// for team s % 2. The first player stays in seat 0, and each team keeps its players in queue
// order; on a tie the queue's own order is kept. Other team counts are left in queue order
// (no game has them).
void balance_teams(int teams, const std::vector<double>& rating_of,
                   std::vector<std::size_t>& chosen) {
  const std::size_t n = chosen.size();
  if (teams != 2 || n < 4 || n % 2 != 0) return;
  // A mask of the players (by position in `chosen`) who play for the first player's team.
  const auto difference = [&](unsigned mask) {
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      sum += ((mask >> i) & 1U) != 0 ? rating_of[chosen[i]] : -rating_of[chosen[i]];
    }
    return std::abs(sum);
  };
  unsigned queue_order = 0;  // the even positions: the seating without balancing
  for (std::size_t i = 0; i < n; i += 2) queue_order |= 1U << i;
  unsigned best = queue_order;
  double best_difference = difference(queue_order);
  for (unsigned mask = 1; mask < (1U << n); mask += 2) {  // the first player always in
    if (static_cast<std::size_t>(std::popcount(mask)) != n / 2) continue;
    if (const double d = difference(mask); d < best_difference) {
      best = mask;
      best_difference = d;
    }
  }
  std::vector<std::size_t> team[2];
  for (std::size_t i = 0; i < n; ++i) team[((best >> i) & 1U) != 0 ? 0 : 1].push_back(chosen[i]);
  for (std::size_t i = 0; i < n; ++i) chosen[i] = team[i % 2][i / 2];
}

}  // namespace

double Matchmaker::RatingBand::after(std::chrono::milliseconds waited) const {
  const double seconds = static_cast<double>(std::max<std::int64_t>(0, waited.count())) / 1000.0;
  return std::min(max, base + per_second * seconds);
}

std::string Matchmaker::key_of(const Wish& wish) {
  return wish.game->kind + '/' + std::to_string(wish.seats) + '/' + (wish.rated ? "rated/" : "") +
         wish.options.dump();
}

bool Matchmaker::enqueue(std::shared_ptr<Player> player, Wish wish, Clock::time_point now,
                         double rating) {
  if (queue_of_.contains(player->id())) return false;
  const std::string key = key_of(wish);
  Queue& queue = queues_[key];
  if (queue.tickets.empty()) queue.wish = std::move(wish);
  queue_of_[player->id()] = key;
  queue.tickets.push_back(Ticket{std::move(player), now, rating});
  return true;
}

bool Matchmaker::cancel(const Player& player) {
  const auto found = queue_of_.find(player.id());
  if (found == queue_of_.end()) return false;
  const auto queue = queues_.find(found->second);
  std::erase_if(queue->second.tickets,
                [&](const Ticket& ticket) { return ticket.player->id() == player.id(); });
  if (queue->second.tickets.empty()) queues_.erase(queue);
  queue_of_.erase(found);
  return true;
}

std::optional<Matchmaker::Wish> Matchmaker::wish_of(const Player& player) const {
  const auto found = queue_of_.find(player.id());
  if (found == queue_of_.end()) return std::nullopt;
  return queues_.at(found->second).wish;
}

void Matchmaker::take_rated(Queue& queue, Clock::time_point now, std::vector<Match>& matches) {
  const auto seats = static_cast<std::size_t>(queue.wish.seats);
  std::vector<Ticket>& tickets = queue.tickets;
  std::vector<bool> taken(tickets.size(), false);
  std::vector<double> rating_of;
  rating_of.reserve(tickets.size());
  for (const Ticket& ticket : tickets) rating_of.push_back(ticket.rating);
  // The ticket at `anchor` with the others not yet taken whose ratings lie within its band,
  // oldest first, a table's worth at most; in queue order.
  const auto around = [&](std::size_t anchor) {
    const double band = band_.after(waited(tickets[anchor].since, now));
    std::vector<std::size_t> chosen{anchor};
    for (std::size_t i = 0; i < tickets.size() && chosen.size() < seats; ++i) {
      if (i != anchor && !taken[i] && std::abs(rating_of[i] - rating_of[anchor]) <= band) {
        chosen.push_back(i);
      }
    }
    std::sort(chosen.begin(), chosen.end());
    return chosen;
  };
  const auto take = [&](std::vector<std::size_t> chosen) {
    // Bots' ratings are not known here: only a table of players is balanced.
    if (chosen.size() == seats) balance_teams(queue.wish.teams, rating_of, chosen);
    Match match{queue.wish, {}, static_cast<int>(seats - chosen.size())};
    for (const std::size_t i : chosen) {
      taken[i] = true;
      queue_of_.erase(tickets[i].player->id());
      match.players.push_back(std::move(tickets[i].player));
    }
    matches.push_back(std::move(match));
  };
  // Full tables first, each around the longest-waiting player who can have one now.
  for (std::size_t i = 0; i < tickets.size(); ++i) {
    if (taken[i]) continue;
    if (auto chosen = around(i); chosen.size() == seats) take(std::move(chosen));
  }
  // Then whoever has waited bots_after gets a table with the players within its band (fewer
  // than a table: there would have been a full one) and bots.
  if (bots_after_.count() > 0) {
    for (std::size_t i = 0; i < tickets.size(); ++i) {
      if (!taken[i] && now - tickets[i].since >= bots_after_) take(around(i));
    }
  }
  std::vector<Ticket> left;
  for (std::size_t i = 0; i < tickets.size(); ++i) {
    if (!taken[i]) left.push_back(std::move(tickets[i]));
  }
  tickets = std::move(left);
}

std::vector<Matchmaker::Match> Matchmaker::take_matches(Clock::time_point now) {
  std::vector<Match> matches;
  for (auto it = queues_.begin(); it != queues_.end();) {
    Queue& queue = it->second;
    if (queue.wish.rated) {
      take_rated(queue, now, matches);
      it = queue.tickets.empty() ? queues_.erase(it) : std::next(it);
      continue;
    }
    const auto seats = static_cast<std::size_t>(queue.wish.seats);
    auto take = [&](std::size_t count) {
      Match match{queue.wish, {}, static_cast<int>(seats - count)};
      for (std::size_t i = 0; i < count; ++i) {
        queue_of_.erase(queue.tickets[i].player->id());
        match.players.push_back(std::move(queue.tickets[i].player));
      }
      queue.tickets.erase(queue.tickets.begin(), queue.tickets.begin() + static_cast<long>(count));
      matches.push_back(std::move(match));
    };
    while (queue.tickets.size() >= seats) take(seats);
    // Whoever is left is fewer than a table: after the wait, bots fill the rest.
    if (!queue.tickets.empty() && bots_after_.count() > 0 &&
        now - queue.tickets.front().since >= bots_after_) {
      take(queue.tickets.size());
    }
    it = queue.tickets.empty() ? queues_.erase(it) : std::next(it);
  }
  return matches;
}

std::vector<Matchmaker::Standing> Matchmaker::standings(Clock::time_point now) const {
  std::vector<Standing> out;
  const auto until_bots = [&](Clock::time_point since) {
    if (bots_after_.count() == 0) return std::chrono::milliseconds(0);
    return std::max(std::chrono::milliseconds(0), bots_after_ - waited(since, now));
  };
  for (const auto& [key, queue] : queues_) {
    // Unrated: bots fill the table once its oldest player has waited bots_after, and everyone
    // in the queue is seated then (the queue is shorter than a table, or it would have
    // opened). Rated: a player may be outside the band of everyone before it, so what is
    // sure is its own bots_after.
    const std::chrono::milliseconds oldest = until_bots(queue.tickets.front().since);
    int position = 0;
    for (const Ticket& ticket : queue.tickets) {
      out.push_back(Standing{ticket.player, queue.wish, ++position,
                             static_cast<int>(queue.tickets.size()),
                             queue.wish.rated ? until_bots(ticket.since) : oldest});
    }
  }
  return out;
}

}  // namespace parlor::server
