#include "server/matchmaker.h"

#include <algorithm>

namespace parlor::server {

std::string Matchmaker::key_of(const Wish& wish) {
  return wish.game->kind + '/' + std::to_string(wish.seats) + '/' + (wish.rated ? "rated/" : "") +
         wish.options.dump();
}

bool Matchmaker::enqueue(std::shared_ptr<Player> player, Wish wish, Clock::time_point now) {
  if (queue_of_.contains(player->id())) return false;
  const std::string key = key_of(wish);
  Queue& queue = queues_[key];
  if (queue.tickets.empty()) queue.wish = std::move(wish);
  queue_of_[player->id()] = key;
  queue.tickets.push_back(Ticket{std::move(player), now});
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

std::vector<Matchmaker::Match> Matchmaker::take_matches(Clock::time_point now) {
  std::vector<Match> matches;
  for (auto it = queues_.begin(); it != queues_.end();) {
    Queue& queue = it->second;
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
  for (const auto& [key, queue] : queues_) {
    // Bots fill the table once its oldest player has waited bots_after: everyone in the
    // queue is seated then (the queue is shorter than a table, or it would have opened).
    std::chrono::milliseconds estimate{0};
    if (bots_after_.count() > 0) {
      estimate = std::max(std::chrono::milliseconds(0),
                          bots_after_ - std::chrono::duration_cast<std::chrono::milliseconds>(
                                            now - queue.tickets.front().since));
    }
    int position = 0;
    for (const Ticket& ticket : queue.tickets) {
      out.push_back(Standing{ticket.player, queue.wish, ++position,
                             static_cast<int>(queue.tickets.size()), estimate});
    }
  }
  return out;
}

}  // namespace parlor::server
