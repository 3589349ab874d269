// The room table without sockets, strands or sleeping: requests and time go in as values,
// and what the table decided comes out in its Outbox. Big Two at four seats throughout.
#include "server/room/table.h"

#include <gtest/gtest.h>

#include "games/registry.h"
#include "server/metrics.h"

namespace parlor::server {
namespace {

using namespace std::chrono_literals;

// A connection only as an address for replies: the table never calls it.
class Address : public Connection {
 public:
  void send(Frame) override { ADD_FAILURE() << "the table sent on a connection itself"; }
  void close(std::uint16_t, std::string) override {}
};

struct Client {
  std::shared_ptr<Player> player;
  std::shared_ptr<Connection> connection = std::make_shared<Address>();
  Caller caller(int re = 1) const { return Caller{player, connection, re, {}}; }
};

Json payload(const Delivery& d) { return Json::parse(d.frame->payload()); }

class TableTest : public ::testing::Test {
 protected:
  TableTest() {
    for (int i = 0; i < 4; ++i) {
      clients.push_back({std::make_shared<Player>("p" + std::to_string(i),
                                                  "Player " + std::to_string(i), TokenHash{})});
    }
    make_table({}, false);
  }

  // A new table with these room options, for the players above. `epoch`/`owner`: cluster
  // mode's ownership.
  void make_table(RoomOptions options, bool persistent, std::int64_t epoch = 0,
                  const std::string& owner = "") {
    TableSetup setup;
    setup.id = "r1";
    setup.game = find_game("bigtwo");
    setup.seats = 4;
    setup.game_options = Json::object();
    std::string error;
    setup.game_options = *normalize_options(setup.game->options, game_options, error);
    setup.options = options;
    setup.creator = clients[0].player;
    setup.persistent = persistent;
    setup.draw_seed = [seed = std::uint64_t{7}]() mutable { return seed++; };
    setup.epoch = epoch;
    setup.owner = owner;
    table = std::make_unique<Table>(std::move(setup), TableTimings{400ms, 600s, 3600s}, metrics, 1,
                                    at(0s));
  }

  TableTime at(std::chrono::milliseconds since_start) const {
    return {start + since_start, 1'700'000'000'000 + since_start.count()};
  }

  // Outbox of one call, cleared first.
  Outbox& fresh() {
    out.clear();
    return out;
  }

  // Every seat filled by a player, and the game started.
  void seat_all_and_start(std::chrono::milliseconds when = 0ms) {
    for (auto& c : clients) table->join(c.caller(), std::nullopt, false, at(when), fresh());
    table->start(clients[0].caller(), at(when), fresh());
    ASSERT_EQ(table->status(), RoomStatus::kPlaying);
  }

  Seat seat_to_act() const { return table->game()->to_act().front(); }
  Json least_move(Seat seat) const {
    return bots::pass_or_first_legal(table->game()->prompt(seat));
  }
  // The seat to act plays its least move at `when`.
  void play_one(std::chrono::milliseconds when) {
    const Seat seat = seat_to_act();
    table->move(clients[static_cast<std::size_t>(seat)].caller(), least_move(seat), table->seq(),
                at(when), fresh());
  }

  std::vector<Json> frames_to(const Player& player) const {
    std::vector<Json> frames;
    for (const Delivery& d : out.deliveries) {
      if (d.player.get() == &player) frames.push_back(payload(d));
    }
    return frames;
  }
  // The first frame of `type` to `player` in the last call's Outbox (null: none).
  Json frame_of(const Player& player, std::string_view type) const {
    for (const Json& f : frames_to(player)) {
      if (f["type"] == type) return f;
    }
    return {};
  }
  // The position of the first frame of `type` among those to `player` (-1: none).
  int position_of(const Player& player, std::string_view type) const {
    const auto frames = frames_to(player);
    for (std::size_t i = 0; i < frames.size(); ++i) {
      if (frames[i]["type"] == type) return static_cast<int>(i);
    }
    return -1;
  }
  std::vector<Json> replies() const {
    std::vector<Json> frames;
    for (const Delivery& d : out.deliveries) {
      if (d.connection) frames.push_back(payload(d));
    }
    return frames;
  }

  Clock::time_point start = Clock::time_point{} + 1000h;
  Json game_options = Json::object();  // Big Two's, before normalizing (make_table)
  Metrics metrics;
  std::vector<Client> clients;
  std::unique_ptr<Table> table;
  Outbox out;
};

TEST_F(TableTest, SeatsFirstFreeOrChosenAndRefusesTakenOrFull) {
  table->join(clients[0].caller(), 2, false, at(0s), fresh());
  ASSERT_EQ(replies().size(), 1u);
  EXPECT_EQ(replies()[0], Json({{"type", "joined"}, {"re", 1}, {"room", "r1"}, {"seat", 2}}));
  ASSERT_EQ(out.memberships.size(), 1u);
  EXPECT_TRUE(out.memberships[0].member);
  ASSERT_TRUE(out.summary);
  EXPECT_EQ(out.summary->seats[2]->player, "p0");

  table->join(clients[1].caller(7), 2, false, at(0s), fresh());
  EXPECT_EQ(replies()[0]["code"], "seat_taken");
  EXPECT_EQ(replies()[0]["re"], 7);
  EXPECT_TRUE(out.memberships.empty());

  table->join(clients[1].caller(), std::nullopt, false, at(0s), fresh());
  EXPECT_EQ(replies()[0]["seat"], 0);
  table->join(clients[2].caller(), std::nullopt, false, at(0s), fresh());
  table->join(clients[3].caller(), std::nullopt, false, at(0s), fresh());
  auto extra = std::make_shared<Player>("p9", "Late", TokenHash{});
  table->join(Client{extra}.caller(), std::nullopt, false, at(0s), fresh());
  EXPECT_EQ(replies()[0]["code"], "room_full");

  // Joining again answers with the seat already held.
  table->join(clients[0].caller(), std::nullopt, false, at(0s), fresh());
  EXPECT_EQ(replies()[0]["seat"], 2);
}

TEST_F(TableTest, ASpectatorWhoSitsDownStopsWatching) {
  // Each change of a spectator place is told (a cluster's directory keeps them); watching
  // again from the same place is not a change.
  auto watchers = [&] {
    std::vector<std::pair<std::string, bool>> changes;
    for (const WatcherChange& c : out.watchers) changes.emplace_back(c.player, c.watching);
    return changes;
  };
  using Changes = std::vector<std::pair<std::string, bool>>;
  table->watch(clients[0].caller(), at(0s), fresh());
  EXPECT_EQ(out.summary->spectators, 1);
  EXPECT_EQ(watchers(), (Changes{{"p0", true}}));
  table->watch(clients[0].caller(), at(0s), fresh());
  EXPECT_EQ(watchers(), Changes{});
  table->join(clients[0].caller(), std::nullopt, false, at(0s), fresh());
  EXPECT_EQ(out.summary->spectators, 0);
  EXPECT_EQ(watchers(), (Changes{{"p0", false}}));
  table->watch(clients[0].caller(), at(0s), fresh());
  EXPECT_EQ(replies()[0]["code"], "not_allowed");
  EXPECT_EQ(watchers(), Changes{});

  table->watch(clients[1].caller(), at(0s), fresh());
  table->leave(clients[1].caller(), at(0s), fresh());
  EXPECT_EQ(watchers(), (Changes{{"p1", false}}));
  table->leave(clients[0].caller(), at(0s), fresh());
  EXPECT_EQ(watchers(), Changes{}) << "a seated player's leaving is no spectator's";
}

// A crowd of spectators arriving at once costs each member one `room` push, not one per
// arrival: the newcomer is shown the room at once, the others its count once it settles.
TEST_F(TableTest, SpectatorsComingAndGoingArePushedToMembersOnceTheyPause) {
  make_table({}, /*persistent=*/true);
  table->join(clients[0].caller(), std::nullopt, false, at(0s), fresh());
  auto rooms_to = [&](const Player& player) {
    std::vector<int> counts;
    for (const Json& f : frames_to(player)) {
      if (f["type"] == "room") counts.push_back(f["spectators"].get<int>());
    }
    return counts;
  };
  std::vector<std::shared_ptr<Player>> crowd;
  for (int i = 0; i < 50; ++i) {
    crowd.push_back(std::make_shared<Player>("s" + std::to_string(i), "S", TokenHash{}));
    table->watch(Caller{crowd.back(), std::make_shared<Address>(), 1, {}}, at(i * 1ms), fresh());
    EXPECT_EQ(rooms_to(*crowd.back()), std::vector<int>{i + 1}) << "the newcomer sees the room";
    EXPECT_EQ(rooms_to(*clients[0].player), std::vector<int>{}) << "the host waits";
    ASSERT_TRUE(out.summary) << "the lobby is told at once";
    EXPECT_EQ(out.summary->spectators, i + 1);
  }
  EXPECT_EQ(table->next_deadline(), start + 500ms);
  table->advance(at(499ms), fresh());
  EXPECT_EQ(rooms_to(*clients[0].player), std::vector<int>{});
  table->advance(at(500ms), fresh());
  EXPECT_EQ(rooms_to(*clients[0].player), std::vector<int>{50});
  EXPECT_EQ(rooms_to(*crowd[0]), std::vector<int>{50});
  ASSERT_TRUE(out.summary);
  EXPECT_EQ(out.summary->spectators, 50);
  EXPECT_TRUE(out.writes.empty()) << "the record holds no spectators: nothing to store";
  EXPECT_EQ(table->next_deadline(), std::nullopt);
  // A spectator watching again (a reconnect) changes no count: nothing for the others.
  table->watch(Caller{crowd[1], std::make_shared<Address>(), 3, {}}, at(600ms), fresh());
  EXPECT_EQ(rooms_to(*crowd[1]), std::vector<int>{50});
  EXPECT_EQ(table->next_deadline(), std::nullopt);

  // Leaving is the same; a push for another reason meanwhile carries the count at once.
  table->leave(Caller{crowd[0], std::make_shared<Address>(), 2, {}}, at(1s), fresh());
  EXPECT_EQ(replies().at(0)["type"], "left");
  EXPECT_EQ(rooms_to(*clients[0].player), std::vector<int>{});
  table->join(clients[1].caller(), std::nullopt, false, at(1100ms), fresh());
  EXPECT_EQ(rooms_to(*clients[0].player), std::vector<int>{49});
  EXPECT_EQ(table->next_deadline(), std::nullopt) << "nothing left to push";
}

TEST_F(TableTest, NewcomersAndReturningMembersGetTheLatestChat) {
  table->join(clients[0].caller(), std::nullopt, false, at(0s), fresh());
  for (auto& f : frames_to(*clients[0].player)) EXPECT_NE(f["type"], "chat_history");
  for (int i = 0; i < 52; ++i) {
    table->chat(clients[0].caller(), "line " + std::to_string(i), at(1s), fresh());
  }
  const auto history_to = [&](const Player& player) {
    for (const Json& f : frames_to(player)) {
      if (f["type"] == "chat_history") return f;
    }
    return Json();
  };
  table->watch(clients[1].caller(), at(2s), fresh());
  const Json history = history_to(*clients[1].player);
  ASSERT_EQ(history["room"], "r1") << history;
  ASSERT_EQ(history["messages"].size(), 50u) << "the latest 50 lines";
  EXPECT_EQ(history["messages"][0]["text"], "line 2");
  EXPECT_EQ(
      history["messages"][49],
      Json({{"player", "p0"}, {"name", "Player 0"}, {"text", "line 51"}, {"at", at(1s).unix_ms}}));
  table->join(clients[2].caller(), std::nullopt, false, at(3s), fresh());
  EXPECT_EQ(history_to(*clients[2].player)["messages"].size(), 50u);
  // A member who resumes (a reload) gets it again; a mere reconnect of presence does not.
  table->presence_changed(clients[0].player, true, /*resumed=*/true, at(4s), fresh());
  EXPECT_EQ(history_to(*clients[0].player)["messages"].size(), 50u);
  table->presence_changed(clients[0].player, true, /*resumed=*/false, at(5s), fresh());
  EXPECT_TRUE(history_to(*clients[0].player).is_null());
}

// The play log of whoever arrives or comes back is what a spectator watching all along was
// pushed, entry by entry: the public events only, never a seat's hand.
TEST_F(TableTest, NewcomersAndReturningMembersGetTheGamesPublicEvents) {
  auto early = std::make_shared<Player>("s1", "Early", TokenHash{});
  table->watch(Client{early}.caller(), at(0s), fresh());
  EXPECT_TRUE(frame_of(*early, "event_history").is_null()) << "no game yet: nothing";
  Json seen = Json::array();  // what the early spectator was pushed, as history entries
  const auto note = [&] {
    for (const Json& f : frames_to(*early)) {
      if (f["type"] == "state") seen.push_back({{"seq", f["seq"]}, {"events", f["events"]}});
    }
  };
  for (auto& c : clients) table->join(c.caller(), std::nullopt, false, at(0s), fresh());
  table->start(clients[0].caller(), at(0s), fresh());
  note();
  for (int i = 0; i < 12; ++i) {
    play_one(std::chrono::seconds(i + 1));
    note();
  }
  ASSERT_EQ(seen.size(), 13u);
  EXPECT_EQ(seen[0]["events"], Json::parse(R"([{"type":"start"}])"));

  // A late spectator: the room, the state, then the log so far.
  auto late = std::make_shared<Player>("s2", "Late", TokenHash{});
  table->watch(Client{late}.caller(), at(20s), fresh());
  const Json history = frame_of(*late, "event_history");
  ASSERT_FALSE(history.is_null());
  EXPECT_LT(position_of(*late, "state"), position_of(*late, "event_history"));
  EXPECT_EQ(history["room"], "r1");
  EXPECT_EQ(history["game"], 1);
  EXPECT_EQ(history["seq"], table->seq()) << "the state it is up to";
  EXPECT_EQ(history["entries"], seen);
  // Not a card still in anyone's hand, nor a view: it would tell the spectator a hand.
  const std::string text = history.dump();
  EXPECT_EQ(text.find("\"hand\""), std::string::npos);
  EXPECT_EQ(text.find("\"view\""), std::string::npos);
  for (Seat s = 0; s < 4; ++s) {
    const Json hand = table->game()->view(s)["hand"];
    ASSERT_FALSE(hand.empty());
    for (const Json& card : hand) {
      EXPECT_EQ(text.find(card.dump()), std::string::npos) << card << " of seat " << s;
    }
  }

  // A player resuming (a reload) gets it after the whole state; a mere presence change not.
  table->presence_changed(clients[1].player, false, false, at(21s), fresh());
  EXPECT_TRUE(frame_of(*clients[1].player, "event_history").is_null());
  table->presence_changed(clients[1].player, true, /*resumed=*/true, at(22s), fresh());
  EXPECT_LT(position_of(*clients[1].player, "state"),
            position_of(*clients[1].player, "event_history"));
  EXPECT_EQ(frame_of(*clients[1].player, "event_history")["entries"], seen);
  // Joining again (another tab of a seated player) too; the early spectator watching again.
  table->join(clients[2].caller(), std::nullopt, false, at(23s), fresh());
  EXPECT_EQ(frame_of(*clients[2].player, "event_history")["entries"], seen);
  table->watch(Client{early}.caller(), at(24s), fresh());
  EXPECT_EQ(frame_of(*early, "event_history")["entries"], seen);
  // Those already there are not sent it again.
  EXPECT_TRUE(frame_of(*clients[0].player, "event_history").is_null());
}

// The log keeps the latest moves of a long game only, and a new game starts it afresh.
TEST_F(TableTest, ThePlayLogIsBoundedAndANewGameStartsItAfresh) {
  game_options = {{"deals", 6}};  // some 300 moves
  make_table({}, false);
  seat_all_and_start();
  const std::int64_t first = table->seq();
  auto watcher = std::make_shared<Player>("s1", "Watcher", TokenHash{});
  const auto history_now = [&](std::chrono::milliseconds when) {
    table->watch(Client{watcher}.caller(), at(when), fresh());
    return frame_of(*watcher, "event_history");
  };
  int played = 0;
  while (table->status() == RoomStatus::kPlaying && played < 250) {
    play_one(1s);
    ++played;
  }
  ASSERT_EQ(played, 250) << "the game ended early";
  Json history = history_now(2s);
  ASSERT_EQ(history["entries"].size(), 200u) << "the latest 200 moves";
  EXPECT_EQ(history["entries"].back()["seq"], table->seq());
  EXPECT_EQ(history["entries"].front()["seq"], table->seq() - 199);
  EXPECT_EQ(table->seq(), first + 250);

  // The finished game's log stays until the next game: its end can still be read.
  for (int i = 0; i < 5000 && table->status() == RoomStatus::kPlaying; ++i) play_one(3s);
  ASSERT_EQ(table->status(), RoomStatus::kFinished);
  history = history_now(4s);
  EXPECT_EQ(history["entries"].back()["seq"], table->seq());

  table->start(clients[0].caller(), at(5s), fresh());
  ASSERT_EQ(table->status(), RoomStatus::kPlaying);
  history = history_now(6s);
  EXPECT_EQ(history["game"], 2);
  EXPECT_EQ(history["entries"], Json::parse(R"([{"seq":)" + std::to_string(table->seq()) +
                                            R"(,"events":[{"type":"start"}]}])"));
}

TEST_F(TableTest, StartNeedsEverySeatThenDealsToEachPlayerTheirOwnHand) {
  table->join(clients[0].caller(), std::nullopt, false, at(0s), fresh());
  table->start(clients[0].caller(), at(0s), fresh());
  EXPECT_EQ(replies()[0]["code"], "not_allowed");
  EXPECT_EQ(table->status(), RoomStatus::kWaiting);

  for (std::size_t i = 1; i < 4; ++i) {
    table->join(clients[i].caller(), std::nullopt, false, at(0s), fresh());
  }
  // The host (the creator, seated) starts for everyone; another seated player may not.
  table->start(clients[1].caller(), at(0s), fresh());
  EXPECT_EQ(replies().back()["code"], "not_allowed");
  EXPECT_EQ(table->status(), RoomStatus::kWaiting);
  table->start(clients[0].caller(), at(0s), fresh());
  EXPECT_EQ(table->status(), RoomStatus::kPlaying);
  EXPECT_EQ(replies().back(), Json({{"type", "ok"}, {"re", 1}}));
  for (std::size_t i = 0; i < 4; ++i) {
    const auto frames = frames_to(*clients[i].player);
    ASSERT_FALSE(frames.empty());
    const Json& state = frames.back();
    EXPECT_EQ(state["type"], "state");
    EXPECT_EQ(state["view"]["you"], static_cast<int>(i));
    EXPECT_EQ(state["view"]["hand"].size(), 13u);
    EXPECT_EQ(state["events"], Json::parse(R"([{"type":"start"}])"));
  }
  table->start(clients[1].caller(), at(0s), fresh());
  EXPECT_EQ(replies()[0]["code"], "already_started");
}

TEST_F(TableTest, AMoveIsRefusedWithTheEnginesCodeAndChangesNothing) {
  seat_all_and_start();
  const std::int64_t seq = table->seq();
  const Seat seat = seat_to_act();
  const Seat other = static_cast<Seat>((seat + 1) % 4);
  table->move(clients[static_cast<std::size_t>(other)].caller(), least_move(seat), std::nullopt,
              at(1s), fresh());
  ASSERT_EQ(out.deliveries.size(), 1u);
  EXPECT_EQ(replies()[0]["code"], "not_your_turn");
  table->move(clients[static_cast<std::size_t>(seat)].caller(), least_move(seat), seq - 1, at(1s),
              fresh());
  EXPECT_EQ(replies()[0]["code"], "stale_state");
  EXPECT_EQ(table->seq(), seq);

  play_one(2s);
  EXPECT_EQ(table->seq(), seq + 1);
  EXPECT_EQ(replies()[0], Json({{"type", "ok"}, {"re", 1}, {"seq", seq + 1}}));
  EXPECT_TRUE(out.accepted_move_received);
  // The ok goes out before anyone's state push.
  EXPECT_TRUE(out.deliveries.front().connection);
}

TEST_F(TableTest, AnAbsentPlayersSeatGoesToABotAfterGraceAndComesBack) {
  RoomOptions options;
  options.grace = 30s;
  make_table(options, false);
  seat_all_and_start();
  const Seat away = static_cast<Seat>((seat_to_act() + 1) % 4);
  const auto& player = clients[static_cast<std::size_t>(away)].player;
  table->presence_changed(player, false, false, at(1s), fresh());
  EXPECT_FALSE(out.summary->seats[static_cast<std::size_t>(away)]->connected);
  ASSERT_EQ(table->next_deadline(), start + 31s);

  table->advance(at(30s), fresh());  // not yet
  EXPECT_FALSE(out.summary);
  table->advance(at(31s), fresh());
  ASSERT_TRUE(out.summary);
  EXPECT_TRUE(out.summary->seats[static_cast<std::size_t>(away)]->bot);

  // The others play until the bot's turn; the bot moves bot_delay after it comes.
  while (seat_to_act() != away) play_one(32s);
  const std::int64_t before = table->seq();
  ASSERT_EQ(table->next_deadline(), start + 32s + 400ms);
  table->advance(at(32s + 400ms), fresh());
  EXPECT_EQ(table->seq(), before + 1);

  // Back: the seat is the player's again, and no bot moves for it.
  table->presence_changed(player, true, true, at(40s), fresh());
  EXPECT_FALSE(out.summary->seats[static_cast<std::size_t>(away)]->bot);
  EXPECT_FALSE(frames_to(*player).empty());  // the room, the whole state and the play log
  EXPECT_GE(position_of(*player, "state"), 0);
  EXPECT_EQ(frames_to(*player).back()["type"], "event_history");
}

class ClockTest : public TableTest {
 protected:
  ClockTest() {
    RoomOptions options;
    options.turn_seconds = 20s;
    options.on_timeout = OnTimeout::kPass;
    make_table(options, false);
  }
};

TEST_F(ClockTest, TheClockMovesForASeatThatRunsOutOfTime) {
  seat_all_and_start(0s);
  ASSERT_EQ(table->next_deadline(), start + 20s);
  const std::int64_t seq = table->seq();
  const Seat seat = seat_to_act();
  EXPECT_EQ(frames_to(*clients[static_cast<std::size_t>(seat)].player).back()["deadline_ms"],
            20000);
  table->advance(at(20s), fresh());
  EXPECT_EQ(table->seq(), seq + 1);
  const Json state = frames_to(*clients[0].player).back();
  EXPECT_EQ(state["events"].back(), Json({{"type", "timeout"}, {"seat", seat}}));
  // The next seat's clock runs from the timeout.
  EXPECT_EQ(table->next_deadline(), start + 40s);
}

TEST_F(ClockTest, ALateMoveBeforeTheTimeoutIsHandledWins) {
  seat_all_and_start(0s);
  const std::int64_t seq = table->seq();
  play_one(21s);  // past the deadline, but the clock has not been handled yet
  EXPECT_EQ(replies()[0]["type"], "ok");
  table->advance(at(21s), fresh());  // the old deadline: nothing to do any more
  EXPECT_EQ(table->seq(), seq + 1);
  EXPECT_EQ(table->next_deadline(), start + 41s);
}

TEST_F(ClockTest, AMoveAfterTheTimeoutIsStale) {
  seat_all_and_start(0s);
  const std::int64_t seq = table->seq();
  const Seat seat = seat_to_act();
  const Json move = least_move(seat);
  table->advance(at(20s), fresh());
  table->move(clients[static_cast<std::size_t>(seat)].caller(), move, seq, at(20s), fresh());
  EXPECT_EQ(replies()[0]["code"], "stale_state");
  EXPECT_EQ(table->seq(), seq + 1);
}

class DurableTest : public TableTest {
 protected:
  DurableTest() { make_table({}, /*persistent=*/true); }

  std::vector<MoveRecord> moves_written() const {
    std::vector<MoveRecord> moves;
    for (const StoreWrite& w : out.writes) {
      if (auto* m = std::get_if<MoveRecord>(&w.record)) moves.push_back(*m);
    }
    return moves;
  }
};

TEST_F(DurableTest, NoFrameRevealsAMoveBeforeItIsStored) {
  seat_all_and_start();
  ASSERT_EQ(table->gate().outstanding(), 1);  // the new deal's seed
  EXPECT_TRUE(out.deliveries.empty()) << "the deal or the ok left before the seed was stored";
  table->durable(WriteResult::kDurable, fresh());
  EXPECT_FALSE(frames_to(*clients[0].player).empty());
  EXPECT_EQ(replies().size(), 1u);  // start's ok

  play_one(1s);
  ASSERT_EQ(moves_written().size(), 1u);
  EXPECT_TRUE(out.writes.front().gating);
  EXPECT_TRUE(out.deliveries.empty());
  table->durable(WriteResult::kDurable, fresh());
  ASSERT_FALSE(out.deliveries.empty());
  EXPECT_EQ(payload(out.deliveries.front())["type"], "ok");  // in the order they were made
  EXPECT_EQ(frames_to(*clients[0].player).back()["type"], "state");
}

TEST_F(DurableTest, AFailedWriteStopsTheGameAndNothingItHeldGoesOut) {
  seat_all_and_start();
  table->durable(WriteResult::kDurable, fresh());
  play_one(1s);
  table->durable(WriteResult::kFailed, fresh());
  EXPECT_EQ(table->status(), RoomStatus::kFrozen);
  for (const Delivery& d : out.deliveries) {
    const Json frame = payload(d);
    EXPECT_NE(frame["type"], "ok");
    EXPECT_NE(frame["type"], "state");
  }
  EXPECT_EQ(frames_to(*clients[0].player).front()["code"], "internal_error");
  EXPECT_EQ(out.summary->status, RoomStatus::kFrozen);
  // The mover is answered, with its request's re: the move did not happen.
  ASSERT_EQ(replies().size(), 1u);
  EXPECT_EQ(replies()[0]["code"], "internal_error");
  EXPECT_EQ(replies()[0]["re"], 1);
  // A later successful write has nothing left to answer.
  table->durable(WriteResult::kDurable, fresh());
  EXPECT_TRUE(replies().empty());
}

// Cluster mode: a failed write pauses the game instead of ending it. Nothing the write held
// goes out, the mover is answered, and the table writes nothing more (it applied what the
// store does not have); the node loads the room again from the store once it answers.
TEST_F(DurableTest, AFailedWriteInAClusterPausesTheGameUntilTheRoomIsLoadedAgain) {
  make_table({}, /*persistent=*/true, 3, "node-a");
  seat_all_and_start();
  table->durable(WriteResult::kDurable, fresh());
  play_one(1s);
  table->durable(WriteResult::kFailed, fresh());
  EXPECT_TRUE(out.store_stalled);
  EXPECT_EQ(table->status(), RoomStatus::kPaused);
  EXPECT_EQ(out.summary->status, RoomStatus::kPaused);
  EXPECT_TRUE(out.writes.empty()) << "a stalled table is out of step with the store";
  for (const Delivery& d : out.deliveries) {
    const Json frame = payload(d);
    EXPECT_NE(frame["type"], "ok");
    EXPECT_NE(frame["type"], "state");
  }
  ASSERT_EQ(replies().size(), 1u);
  EXPECT_EQ(replies()[0]["code"], "internal_error");
  EXPECT_EQ(replies()[0]["re"], 1);
  EXPECT_EQ(table->next_deadline(), std::nullopt) << "no clock, no bot";

  const Seat next = seat_to_act();
  table->move(clients[static_cast<std::size_t>(next)].caller(5), least_move(next), table->seq(),
              at(2s), fresh());
  ASSERT_EQ(replies().size(), 1u);
  EXPECT_EQ(replies()[0]["code"], "not_allowed");
  EXPECT_TRUE(out.writes.empty());
  // Leaving meanwhile is not written either: the room comes back as the store has it.
  table->leave(clients[1].caller(), at(3s), fresh());
  EXPECT_TRUE(out.writes.empty());
  EXPECT_FALSE(out.store_stalled) << "told once";
}

TEST_F(DurableTest, RepliesThatWentOutAreNotAnsweredAgainWhenALaterWriteFails) {
  seat_all_and_start();
  table->durable(WriteResult::kDurable, fresh());
  play_one(1s);
  table->durable(WriteResult::kDurable, fresh());
  ASSERT_EQ(replies().size(), 1u);
  EXPECT_EQ(replies()[0]["type"], "ok");
  const Seat next = seat_to_act();
  table->move(clients[static_cast<std::size_t>(next)].caller(9), least_move(next), table->seq(),
              at(2s), fresh());
  table->durable(WriteResult::kFailed, fresh());
  ASSERT_EQ(replies().size(), 1u) << "only the second move's request is answered";
  EXPECT_EQ(replies()[0]["code"], "internal_error");
  EXPECT_EQ(replies()[0]["re"], 9);
}

// Cluster mode: a write refused by fencing means another node owns the room. The move it
// carried is never acknowledged, every member is told where the room went, and the table
// ends its life here without freezing (the room plays on at its new owner).
TEST_F(DurableTest, AFencedWriteLetsTheRoomGoAndNothingItHeldGoesOut) {
  seat_all_and_start();
  table->durable(WriteResult::kDurable, fresh());
  play_one(1s);
  ASSERT_EQ(table->gate().outstanding(), 1);
  table->durable(WriteResult::kFenced, fresh());
  EXPECT_TRUE(table->gone());
  EXPECT_TRUE(out.remove);
  EXPECT_NE(table->status(), RoomStatus::kFrozen);
  for (const Delivery& d : out.deliveries) {
    const Json frame = payload(d);
    EXPECT_EQ(frame["code"], "room_moved") << frame;
    EXPECT_EQ(frame["room"], table->id());
    // The push to every member has no re; the mover's request is answered with its own.
    EXPECT_EQ(frame.contains("re"), d.connection != nullptr) << frame;
  }
  ASSERT_EQ(replies().size(), 1u);
  EXPECT_EQ(replies()[0]["re"], 1);
  EXPECT_EQ(out.deliveries.size(), clients.size() + 1) << "every seated player is told once";
  EXPECT_EQ(out.memberships.size(), clients.size());
  for (const MembershipChange& change : out.memberships) EXPECT_FALSE(change.member);
  // A write still in flight when the room left changes nothing.
  table->durable(WriteResult::kDurable, fresh());
  EXPECT_TRUE(out.empty());
}

TEST_F(DurableTest, RecordsCarryTheOwnersEpoch) {
  make_table({}, /*persistent=*/true, 7, "node-a");
  seat_all_and_start();
  table->durable(WriteResult::kDurable, fresh());
  play_one(1s);
  ASSERT_EQ(moves_written().size(), 1u);
  EXPECT_EQ(moves_written()[0].epoch, 7);
  EXPECT_EQ(table->record().epoch, 7);
  EXPECT_EQ(table->record().owner, "node-a");
}

TEST_F(DurableTest, AGamesLastMoveThatCannotBeStoredEndsNothing) {
  seat_all_and_start();
  for (int i = 0; i < 2000 && table->status() == RoomStatus::kPlaying; ++i) {
    table->durable(WriteResult::kDurable, fresh());
    play_one(std::chrono::seconds(i + 1));
  }
  ASSERT_EQ(table->status(), RoomStatus::kFinished);
  EXPECT_TRUE(out.deliveries.empty()) << "game_over left before the last move was stored";
  table->durable(WriteResult::kFailed, fresh());
  EXPECT_EQ(table->status(), RoomStatus::kFrozen);
  for (const Delivery& d : out.deliveries) {
    EXPECT_NE(payload(d)["type"], "game_over");
    EXPECT_NE(payload(d)["type"], "state");
  }
}

TEST_F(DurableTest, ARatedRoomRefusesAPlayersBotButSeatsTheServers) {
  RoomOptions rated;
  rated.rated = true;
  make_table(rated, /*persistent=*/true);
  table->join(clients[0].caller(), 0, false, at(0s), fresh());
  table->add_bot(clients[0].caller(2), 1, "greedy", at(0s), fresh());
  ASSERT_EQ(replies().size(), 1u);
  EXPECT_EQ(replies()[0]["code"], "rated_no_bots");
  EXPECT_FALSE(out.summary) << "nothing changed";
  EXPECT_FALSE(table->record().occupants[1]);
  EXPECT_EQ(table->record().room_options["rated"], true);
  Caller server = clients[0].caller(3);
  server.server_seats_bots = true;  // quick play filling a rated table
  table->add_bot(server, 1, "greedy", at(0s), fresh());
  ASSERT_TRUE(table->record().occupants[1]);
  EXPECT_EQ(table->record().occupants[1]->bot, "greedy");
}

TEST_F(DurableTest, ARatedGamesEndIsRecordedBeforeTheRoomSaysItFinished) {
  RoomOptions rated;
  rated.rated = true;
  make_table(rated, /*persistent=*/true);
  seat_all_and_start();
  for (int i = 0; i < 2000 && table->status() == RoomStatus::kPlaying; ++i) {
    table->durable(WriteResult::kDurable, fresh());
    play_one(std::chrono::seconds(i + 1));
  }
  ASSERT_EQ(table->status(), RoomStatus::kFinished);
  std::optional<std::size_t> rated_at;
  std::optional<std::size_t> finished_at;
  for (std::size_t i = 0; i < out.writes.size(); ++i) {
    if (std::holds_alternative<RatedGameRecord>(out.writes[i].record)) rated_at = i;
    const auto* room = std::get_if<RoomRecord>(&out.writes[i].record);
    if (room && room->status == StoredRoomStatus::kFinished && !finished_at) finished_at = i;
  }
  ASSERT_TRUE(rated_at);
  ASSERT_TRUE(finished_at);
  EXPECT_LT(*rated_at, *finished_at);
  const auto& game = std::get<RatedGameRecord>(out.writes[*rated_at].record);
  EXPECT_FALSE(out.writes[*rated_at].gating);
  EXPECT_EQ(game.room_id, "r1");
  EXPECT_EQ(game.game_number, 1);
  EXPECT_EQ(game.kind, "bigtwo");
  ASSERT_EQ(game.seats.size(), 4u);
  ASSERT_EQ(game.side_ranks.size(), 4u);
  const Json result = table->game()->result();
  for (std::size_t seat = 0; seat < 4; ++seat) {
    EXPECT_EQ(game.seats[seat].player_id, "p" + std::to_string(seat));
    EXPECT_EQ(game.seats[seat].side, static_cast<int>(seat));
    EXPECT_FALSE(game.seats[seat].abandoned);
  }
  for (const auto& winner : result["winners"]) {
    EXPECT_EQ(game.side_ranks[winner.get<std::size_t>()], 0);
  }
  EXPECT_EQ(game.result, result);
}

TEST_F(DurableTest, AnUnratedGamesEndIsNotRecordedForRatings) {
  seat_all_and_start();
  for (int i = 0; i < 2000 && table->status() == RoomStatus::kPlaying; ++i) {
    table->durable(WriteResult::kDurable, fresh());
    play_one(std::chrono::seconds(i + 1));
  }
  ASSERT_EQ(table->status(), RoomStatus::kFinished);
  for (const StoreWrite& w : out.writes) {
    EXPECT_FALSE(std::holds_alternative<RatedGameRecord>(w.record));
  }
}

TEST_F(DurableTest, ARecordAndItsMovesRestoreTheSameTable) {
  seat_all_and_start();
  LoadedRoom stored;
  for (int i = 0; i < 20; ++i) {
    table->durable(WriteResult::kDurable, fresh());
    play_one(std::chrono::seconds(i + 1));
    for (MoveRecord& m : moves_written()) stored.moves.push_back(std::move(m));
  }
  ASSERT_EQ(stored.moves.size(), 20u);
  EXPECT_TRUE(stored.moves[15].state_hash) << "a checkpoint every 16 moves";
  stored.room = table->record();

  auto rebuild = [&](const LoadedRoom& room) {
    TableSetup setup;
    setup.id = "r1";
    setup.game = find_game("bigtwo");
    setup.seats = 4;
    setup.game_options = room.room.game_options;
    setup.options = room_options_from_json(room.room.room_options);
    setup.creator = clients[0].player;
    setup.persistent = true;
    auto restored = std::make_unique<Table>(std::move(setup), TableTimings{}, metrics, 2, at(100s));
    const bool intact = restored->restore(
        room,
        [&](const std::string& id) {
          for (auto& c : clients) {
            if (c.player->id() == id) return c.player;
          }
          return std::shared_ptr<Player>();
        },
        at(100s));
    return std::pair{intact, std::move(restored)};
  };
  auto [intact, restored] = rebuild(stored);
  ASSERT_TRUE(intact);
  EXPECT_EQ(restored->seq(), table->seq());
  EXPECT_EQ(restored->game()->state_hash(), table->game()->state_hash());
  EXPECT_EQ(restored->record().seed, stored.room.seed);
  ASSERT_EQ(restored->record().occupants.size(), 4u);
  for (std::size_t s = 0; s < 4; ++s) {
    EXPECT_EQ(restored->record().occupants[s]->player_id, stored.room.occupants[s]->player_id);
  }

  // A node taking the room over gives its spectators their places back (a seated player
  // among them stays seated only); they are away until they resume.
  auto watcher = std::make_shared<Player>("s1", "Watcher", TokenHash{});
  restored->restore_spectators({watcher, clients[2].player});

  // After a restart everyone is away: grace periods start, for the game to go on.
  EXPECT_EQ(restored->members().size(), 5u);
  restored->resume_after_restore(at(100s), fresh());
  EXPECT_EQ(out.open_rooms_delta, 1);
  ASSERT_TRUE(out.summary);
  EXPECT_EQ(out.summary->spectators, 1);
  EXPECT_EQ(restored->next_deadline(), start + 160s);
  // The spectator resumes: the whole state, with no hand in it, then the play log the table
  // had before the restart, rebuilt from the stored moves.
  table->durable(WriteResult::kDurable, fresh());
  table->watch(Client{watcher}.caller(), at(99s), fresh());
  const Json before_restart = frame_of(*watcher, "event_history");
  ASSERT_EQ(before_restart["entries"].size(), 21u) << "the deal and 20 moves";
  restored->presence_changed(watcher, true, /*resumed=*/true, at(101s), fresh());
  const Json state = frame_of(*watcher, "state");
  ASSERT_FALSE(state.is_null());
  EXPECT_EQ(state["seq"], table->seq());
  EXPECT_FALSE(state["view"].contains("hand"));
  EXPECT_LT(position_of(*watcher, "state"), position_of(*watcher, "event_history"));
  EXPECT_EQ(frame_of(*watcher, "event_history"), before_restart);

  // A log the engine no longer agrees with freezes the room instead of diverging.
  LoadedRoom tampered = stored;
  tampered.moves[15].state_hash = *tampered.moves[15].state_hash + 1;
  auto [still_intact, frozen] = rebuild(tampered);
  EXPECT_FALSE(still_intact);
  EXPECT_EQ(frozen->status(), RoomStatus::kFrozen);
}

TEST_F(TableTest, SweepsAnAbandonedRoomAndAFinishedOneAfterRetention) {
  table->join(clients[0].caller(), std::nullopt, false, at(0s), fresh());
  table->sweep(at(599s), fresh());
  EXPECT_FALSE(out.remove) << "someone is connected";
  table->presence_changed(clients[0].player, false, false, at(0s), fresh());
  table->sweep(at(599s), fresh());
  EXPECT_FALSE(out.remove) << "not idle for long enough";
  table->sweep(at(601s), fresh());
  EXPECT_TRUE(out.remove);
  ASSERT_EQ(out.memberships.size(), 1u);
  EXPECT_FALSE(out.memberships[0].member);
  EXPECT_EQ(out.open_rooms_delta, -1);
}

TEST_F(TableTest, BotsPlayAWholeGameOnTheClockOfTheirDelay) {
  table->join(clients[0].caller(), 0, false, at(0s), fresh());
  table->add_bot(clients[0].caller(), 1, "nonsense", at(0s), fresh());
  EXPECT_EQ(replies()[0]["code"], "unknown_strategy");
  for (int seat = 1; seat < 4; ++seat) {
    table->add_bot(clients[0].caller(), seat, "random", at(0s), fresh());
    EXPECT_EQ(replies()[0]["type"], "ok");
  }
  table->add_bot(clients[0].caller(), 1, "random", at(0s), fresh());
  EXPECT_EQ(replies()[0]["code"], "seat_taken");
  table->start(clients[0].caller(), at(0s), fresh());
  // The player always plays their least move; bots move when the table's clock says so.
  auto now = 0ms;
  for (int step = 0; step < 2000 && table->status() == RoomStatus::kPlaying; ++step) {
    if (seat_to_act() == 0) {
      play_one(now);
    } else {
      ASSERT_TRUE(table->next_deadline());
      now = std::chrono::duration_cast<std::chrono::milliseconds>(*table->next_deadline() - start);
      table->advance(at(now), fresh());
    }
  }
  EXPECT_EQ(table->status(), RoomStatus::kFinished);
  EXPECT_FALSE(table->next_deadline());
  EXPECT_EQ(out.open_rooms_delta, -1);
}

// A searching bot's turn leaves the table as a BotThink (to run on the bot pool) instead of a
// move: the strand is free meanwhile. Its answer is played only while the room is still at the
// state the bot thought about; a stale answer is dropped and the bot asked again.
TEST_F(TableTest, SearchingBotsThinkOffTheStrandAndStaleAnswersAreDropped) {
  table->join(clients[0].caller(), 0, false, at(0s), fresh());
  table->add_bot(clients[0].caller(), 1, "hard", at(0s), fresh());
  EXPECT_EQ(replies()[0]["type"], "ok");
  for (int seat = 2; seat < 4; ++seat) {
    table->add_bot(clients[0].caller(), seat, "ismcts:8", at(0s), fresh());
    EXPECT_EQ(replies()[0]["type"], "ok");
  }
  table->start(clients[0].caller(), at(0s), fresh());
  auto now = 0ms;
  int thoughts = 0;
  for (int step = 0; step < 40 && table->status() == RoomStatus::kPlaying; ++step) {
    if (seat_to_act() == 0) {
      play_one(now);
      continue;
    }
    ASSERT_TRUE(table->next_deadline());
    now = std::chrono::duration_cast<std::chrono::milliseconds>(*table->next_deadline() - start);
    const std::int64_t seq = table->seq();
    table->advance(at(now), fresh());
    ASSERT_TRUE(out.bot_think);
    const BotThink think = *out.bot_think;
    EXPECT_EQ(table->seq(), seq);  // nothing played on the strand
    EXPECT_EQ(think.seq, seq);
    EXPECT_FALSE(table->next_deadline() && *table->next_deadline() <= at(now).steady);
    Rng rng(think.seed);
    const Json move = think.bot->choose(think.view, think.prompt, rng);
    ++thoughts;
    if (thoughts == 1) {
      // An answer for another state is dropped, and the bot is scheduled again.
      table->bot_answered(think.bot.get(), think.seat, seq - 1, move, at(now), fresh());
      EXPECT_EQ(table->seq(), seq);
      ASSERT_TRUE(table->next_deadline());
      continue;
    }
    table->bot_answered(think.bot.get(), think.seat, think.seq, move, at(now), fresh());
    EXPECT_EQ(table->seq(), seq + 1);
  }
  EXPECT_GT(thoughts, 5);
}

}  // namespace
}  // namespace parlor::server
