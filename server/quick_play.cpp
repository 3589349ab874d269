#include "server/quick_play.h"

#include "protocol/encode.h"
#include "server/log.h"

namespace parlor::server {

using protocol::ErrorCode;

namespace {

// Where the replies to the requests the matchmaker makes for its players go: nowhere. The
// players learn where they sit from the quick_play push, then the room's own pushes.
class NoReply final : public Connection {
 public:
  void send(Frame /*frame*/) override {}
  void close(std::uint16_t /*code*/, std::string /*reason*/) override {}
};

}  // namespace

Json QuickPlay::standing_message(const Matchmaker::Standing& standing) {
  return {{"type", "quick_play"},
          {"status", "waiting"},
          {"kind", standing.wish.game->kind},
          {"seats", standing.wish.seats},
          {"options", standing.wish.options},
          {"rated", standing.wish.rated},
          {"position", standing.position},
          {"waiting", standing.waiting},
          {"estimate_ms", standing.estimate.count()}};
}

// The partnerships of a game as its rules seat them (docs/RULES.md): Spades and Bid Whist
// play seats 0 and 2 against seats 1 and 3. A game's GameInfo does not say it, and the
// ratings learn it only from a finished game's result (`team_scores`).
int QuickPlay::teams_of(const GameInfo& game) {
  return game.kind == "spades" || game.kind == "bidwhist" ? 2 : 0;
}

Json QuickPlay::seated_message(const Matchmaker::Match& match, const std::string& room,
                               std::size_t seat) {
  return {{"type", "quick_play"},
          {"status", "seated"},
          {"kind", match.wish.game->kind},
          {"room", room},
          {"seat", seat}};
}

Json QuickPlay::failed_message(const Refusal& refusal) {
  return {{"type", "quick_play"},
          {"status", "failed"},
          {"code", std::string(protocol::wire_name(refusal.code))},
          {"message", "no table could be opened: " + refusal.message}};
}

namespace {

bool holds_a_seat(const protocol::RoomSummary& room, const std::string& player) {
  if (room.status == protocol::RoomStatus::kFinished) return false;
  for (const auto& seat : room.seats) {
    if (seat && !seat->bot && seat->player == player) return true;
  }
  return false;
}

}  // namespace

QuickPlay::QuickPlay(Lobby& lobby, std::chrono::milliseconds bots_after,
                     Matchmaker::RatingBand band)
    : lobby_(lobby), matchmaker_(bots_after, band) {}

double QuickPlay::stored_rating(Store& store, const std::string& player_id,
                                const std::string& kind) {
  const auto found = store.load_player_ratings(player_id, /*games=*/0);
  if (found) {
    for (const RatingRow& row : found->ratings) {
      if (row.kind == kind) return row.rating.rating;
    }
  }
  return ratings::kInitialRating;
}

std::optional<QuickPlay::Refusal> QuickPlay::check(const std::shared_ptr<Player>& player,
                                                   const protocol::QuickPlay& request,
                                                   Matchmaker::Wish& wish) const {
  // Quick-play tables are public, with the default room options: only the game's own
  // options may be chosen.
  TableSetup setup;
  if (auto refused = Lobby::check_table(
          protocol::CreateRoom{request.kind, request.seats, request.options, request.rated},
          /*allow_seed=*/false, /*room_options=*/false, setup)) {
    return refused;
  }
  if (request.rated && !lobby_.has_store()) {
    return Refusal{ErrorCode::kNotAllowed,
                   "rated games need a durable store (this server runs with --store none)"};
  }
  for (const std::string& room : player->rooms()) {
    const auto summary = lobby_.summary_of(room);
    if (summary && holds_a_seat(*summary, player->id())) {
      return Refusal{ErrorCode::kAlreadySeated, "you sit at an unfinished table (room " + room +
                                                    "); finish or leave it before quick play"};
    }
  }
  wish = Matchmaker::Wish{setup.game, setup.seats, std::move(setup.game_options), request.rated,
                          teams_of(*setup.game)};
  return std::nullopt;
}

std::optional<QuickPlay::Refusal> QuickPlay::enqueue(const std::shared_ptr<Player>& player,
                                                     const protocol::QuickPlay& request,
                                                     const Json& re, double rating) {
  Matchmaker::Wish wish;
  if (auto refusal = check(player, request, wish)) return refusal;
  std::lock_guard lock(mutex_);
  const auto now = Matchmaker::Clock::now();
  if (!matchmaker_.enqueue(player, std::move(wish), now, rating)) {
    return Refusal{ErrorCode::kAlreadyQueued,
                   "you are already waiting for a table; cancel_quick_play first"};
  }
  for (const auto& standing : matchmaker_.standings(now)) {
    if (standing.player != player) continue;
    Json message = standing_message(standing);
    protocol::attach_re(message, re);
    player->send(make_frame(protocol::to_wire(message)));
    told_[player->id()] = {standing.position, standing.waiting};
  }
  return std::nullopt;
}

bool QuickPlay::cancel(const Player& player) {
  std::lock_guard lock(mutex_);
  told_.erase(player.id());
  return matchmaker_.cancel(player);
}

void QuickPlay::tick() {
  std::vector<Matchmaker::Match> matches;
  std::vector<Matchmaker::Standing> standings;
  {
    std::lock_guard lock(mutex_);
    const auto now = Matchmaker::Clock::now();
    matches = matchmaker_.take_matches(now);
    for (const auto& match : matches) {
      for (const auto& player : match.players) told_.erase(player->id());
    }
    for (auto& standing : matchmaker_.standings(now)) {
      const std::pair<int, int> where{standing.position, standing.waiting};
      auto& told = told_[standing.player->id()];
      if (told == where) continue;
      told = where;
      standings.push_back(std::move(standing));
    }
  }
  for (const auto& match : matches) open(match);
  for (const auto& standing : standings) {
    standing.player->send(make_frame(protocol::to_wire(standing_message(standing))));
  }
}

void QuickPlay::open(const Matchmaker::Match& match) {
  Refusal refusal;
  auto room = open_table(match, refusal);
  if (!room) {
    const Frame frame = make_frame(protocol::to_wire(failed_message(refusal)));
    for (const auto& player : match.players) player->send(frame);
    return;
  }
  for (std::size_t seat = 0; seat < match.players.size(); ++seat) {
    match.players[seat]->send(
        make_frame(protocol::to_wire(seated_message(match, room->id(), seat))));
  }
}

std::shared_ptr<Room> QuickPlay::open_table(const Matchmaker::Match& match, Refusal& refusal) {
  const auto& creator = match.players.front();
  protocol::CreateRoom request{match.wish.game->kind, match.wish.seats, match.wish.options,
                               match.wish.rated};
  auto room = lobby_.create_room(creator, request, refusal);
  if (!room) {
    log_error("quick play: no table for " + std::to_string(match.players.size()) +
              " waiting players: " + refusal.message);
    return nullptr;
  }
  const auto nowhere = std::make_shared<NoReply>();
  const auto as = [&](const std::shared_ptr<Player>& player) {
    return Caller{player, nowhere, nullptr, Clock::now(), /*server_seats_bots=*/true};
  };
  // Posted to the room's strand in this order: seats, bots, then the start.
  for (std::size_t seat = 0; seat < match.players.size(); ++seat) {
    room->join(as(match.players[seat]), static_cast<int>(seat), seat == 0);
  }
  for (int seat = static_cast<int>(match.players.size()); seat < match.wish.seats; ++seat) {
    room->add_bot(as(creator), seat, kFillerStrategy);
  }
  room->start(as(creator));
  log_info("quick play: room " + room->id() + " opened for " +
           std::to_string(match.players.size()) + " players and " + std::to_string(match.bots) +
           " bots");
  return room;
}

}  // namespace parlor::server
