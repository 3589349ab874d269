#include "bots/net/bot_client.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <random>

namespace parlor::client {

namespace asio = boost::asio;
namespace beast = boost::beast;

namespace {

constexpr std::chrono::milliseconds kFirstBackoff{100};
constexpr std::chrono::milliseconds kLongestBackoff{5000};
constexpr int kRetriesPerState = 3;  // rejected moves before leaving a prompt to the server

std::uint64_t seed_of(const BotOptions& options) {
  if (options.seed) return *options.seed;
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

bool is_integer(const Json& json, const char* key) {
  return json.contains(key) && json[key].is_number_integer();
}

}  // namespace

BotClient::BotClient(asio::io_context& io, BotOptions options, WsUrl url,
                     std::shared_ptr<asio::ssl::context> tls, std::function<void()> on_done)
    : io_(io),
      options_(std::move(options)),
      url_(std::move(url)),
      tls_(std::move(tls)),
      on_done_(std::move(on_done)),
      resolver_(io),
      reconnect_timer_(io),
      think_timer_(io),
      deadline_timer_(io),
      rng_(seed_of(options_)) {
  report_.room = options_.room;
}

bool BotClient::succeeded() const {
  return report_.outcome == "ok" || (options_.games == 0 && (report_.outcome == "time_limit" ||
                                                             report_.outcome == "interrupted"));
}

void BotClient::start() {
  if (!options_.create_kind.empty() && !ensure_strategy(options_.create_kind)) return;
  deadline_timer_.expires_after(
      std::chrono::milliseconds(static_cast<std::int64_t>(options_.max_seconds * 1000)));
  deadline_timer_.async_wait([weak = weak_from_this()](beast::error_code ec) {
    auto self = weak.lock();
    if (!ec && self) self->finish("time_limit");
  });
  connect();
}

void BotClient::stop(const std::string& outcome) { finish(outcome); }

// ---- the connection -----------------------------------------------------------------------

void BotClient::connect() {
  if (done_) return;
  resolver_.async_resolve(url_.host, url_.port,
                          [weak = weak_from_this()](beast::error_code ec, const Endpoints& found) {
                            if (auto self = weak.lock()) self->on_resolved(ec, found);
                          });
}

void BotClient::on_resolved(beast::error_code ec, const Endpoints& endpoints) {
  if (done_) return;
  if (ec) {
    log("cannot resolve " + url_.host + ": " + ec.message());
    return schedule_reconnect();
  }
  std::weak_ptr<BotClient> weak = weak_from_this();
  ConnectionHandlers handlers;
  handlers.on_open = [weak] {
    if (auto self = weak.lock()) self->on_open();
  };
  handlers.on_message = [weak](std::string_view text) {
    if (auto self = weak.lock()) self->on_message(text);
  };
  handlers.on_end = [weak](const ConnectionEnd& end) {
    if (auto self = weak.lock()) self->on_end(end);
  };
  // A silent server is noticed within 30 s (Beast pings after 15 s of silence).
  ConnectionOptions connection_options;
  connection_options.idle_timeout = std::chrono::seconds(30);
  connection_ =
      std::make_shared<WsConnection>(io_, url_, tls_, std::move(handlers), connection_options);
  connection_->start(endpoints);
}

void BotClient::on_open() {
  pending_.clear();
  acted_seq_ = -1;  // a move sent on the old connection may have been lost: answer again
  retries_at_seq_ = 0;
  Json hello = {{"type", "hello"}, {"protocol", 1}};
  if (token_.empty()) {
    hello["name"] = options_.name;
  } else {
    hello["token"] = token_;
  }
  send(std::move(hello), Purpose::kHello);
}

void BotClient::on_end(const ConnectionEnd& end) {
  if (done_) return;
  if (const std::string hint = refusal_hint(end); !hint.empty() && hint != last_hint_) {
    // Said once (even when quiet), not on every reconnect: it asks the person to act.
    std::cerr << "parlor-bot " << options_.name << ": " << hint << "\n";
    last_hint_ = hint;
  }
  std::string why = end.stage + ": " + end.error.message();
  if (end.close_code == 4000) {
    why = "replaced by another connection of this player";
  } else if (end.close_code != 0) {
    why += " (close " + std::to_string(end.close_code) + " " + end.close_reason + ")";
  } else if (end.http_status != 0) {
    why += " (HTTP " + std::to_string(end.http_status) + " " + end.http_body + ")";
  }
  log("connection lost, " + why + "; reconnecting in " + std::to_string(backoff_.count()) + " ms");
  think_timer_.cancel();
  schedule_reconnect();
}

void BotClient::schedule_reconnect() {
  if (done_) return;
  connection_.reset();
  reconnect_timer_.expires_after(backoff_);
  backoff_ = std::min(backoff_ * 2, kLongestBackoff);
  reconnect_timer_.async_wait([weak = weak_from_this()](beast::error_code ec) {
    auto self = weak.lock();
    if (!ec && self) self->connect();
  });
}

std::int64_t BotClient::send(Json request, Purpose purpose, std::int64_t seq) {
  const std::int64_t id = next_id_++;
  request["id"] = id;
  pending_[id] = Pending{purpose, seq};
  if (connection_) connection_->send(request.dump());
  return id;
}

void BotClient::on_message(std::string_view text) {
  const Json message = Json::parse(text.begin(), text.end(), nullptr, false);
  if (!message.is_object() || !message.contains("type") || !message["type"].is_string()) {
    return log("ignoring a frame that is not a protocol message");
  }
  try {
    handle(message);
  } catch (const std::exception& e) {
    // A message of an unexpected shape: ignore it rather than stop playing.
    log(std::string("ignoring a malformed ") + message["type"].get<std::string>() + ": " +
        e.what());
  }
}

// ---- messages -----------------------------------------------------------------------------

void BotClient::handle(const Json& message) {
  const std::string& type = message["type"].get_ref<const std::string&>();
  if (message.contains("re") && message["re"].is_number_integer()) {
    const auto found = pending_.find(message["re"].get<std::int64_t>());
    if (found == pending_.end()) return;  // a reply meant for an earlier connection
    const Pending pending = found->second;
    pending_.erase(found);
    if (type == "error") return on_error(message, &pending);
    return on_reply(message, pending);
  }
  if (type == "error") return on_error(message, nullptr);
  const bool ours = message.contains("room") && message["room"].is_string() &&
                    !report_.room.empty() && message["room"] == report_.room;
  if (!ours) return;
  if (type == "room") {
    on_room(message);
  } else if (type == "state") {
    on_state(message);
  } else if (type == "game_over") {
    on_game_over(message.contains("result") ? &message["result"] : nullptr);
  }
}

void BotClient::on_reply(const Json& message, const Pending& pending) {
  const std::string& type = message["type"].get_ref<const std::string&>();
  if (type == "welcome") return on_welcome(message);
  if (type == "room_created") {
    entered_ = true;
    report_.room = message["room"].get<std::string>();
    report_.seat = 0;
    // The room id is the one line a script reads from the creating bot.
    std::cout << "room " << report_.room << std::endl;
    log("created room " + report_.room);
  } else if (type == "joined") {
    entered_ = true;
    report_.seat = message["seat"].get<int>();
    log("joined room " + report_.room + " at seat " + std::to_string(report_.seat));
  } else if (pending.purpose == Purpose::kMove && is_integer(message, "seq")) {
    ++report_.moves;
  }
}

void BotClient::on_error(const Json& message, const Pending* pending) {
  const std::string code = message.value("code", "unknown");
  const std::string text = message.value("message", "");
  // A refused start is not a fault: another seat started first, or a seat is still empty
  // (the next room push tells).
  if (pending && pending->purpose == Purpose::kStart) return;
  ++report_.errors[code];
  if (!pending) return log("error " + code + ": " + text);
  switch (pending->purpose) {
    case Purpose::kHello:
      return finish("error", "hello refused: " + code + ": " + text);
    case Purpose::kEnter:
      // A draining server opens no rooms, and closes this connection (1012) soon: the
      // resume after the reconnect, on a live node, enters again (on_welcome).
      if (code == "shutting_down")
        return log("the server is shutting down; entering after the reconnect");
      return finish("error", "cannot enter the room: " + code + ": " + text);
    case Purpose::kStart:
    case Purpose::kMove:
      break;
  }
  // stale_state: the state moved on, and its push (already here or on the way) brings the
  // next prompt; not_your_turn and game_over likewise resolve with the next push.
  if (code == "stale_state" || code == "not_your_turn" || code == "game_over") return;
  log("move at seq " + std::to_string(pending->seq) + " refused: " + code + ": " + text);
  const bool current = is_integer(latest_state_, "seq") && latest_state_["seq"] == pending->seq;
  if (!current || ++retries_at_seq_ >= kRetriesPerState) return;
  // Try again at the same state with a uniformly random legal move (a little later after
  // rate_limited). acted_seq_ stays at this state, so nothing else answers it meanwhile.
  const auto delay = std::chrono::milliseconds(code == "rate_limited" ? 500 : 0);
  think_timer_.expires_after(delay);
  think_timer_.async_wait([weak = weak_from_this(), seq = pending->seq](beast::error_code ec) {
    auto self = weak.lock();
    if (!ec && self) self->act(seq);
  });
}

void BotClient::on_welcome(const Json& message) {
  const bool resumed = !token_.empty();
  backoff_ = kFirstBackoff;
  report_.player = message.value("player", "");
  if (!resumed) {
    token_ = message.value("token", "");
    save_token();
  } else {
    ++report_.reconnects;
    log("resumed as " + report_.player);
  }
  // On a resume the server pushes our room and its state; entering again is only needed
  // when the first connection dropped before the room answered.
  if (!entered_) enter_room();
}

void BotClient::enter_room() {
  if (!options_.create_kind.empty()) {
    Json request = {{"type", "create_room"},
                    {"kind", options_.create_kind},
                    {"options", options_.room_options}};
    if (options_.seats) request["seats"] = *options_.seats;
    send(std::move(request), Purpose::kEnter);
  } else {
    Json request = {{"type", "join_room"}, {"room", options_.room}};
    if (options_.seat) request["seat"] = *options_.seat;
    send(std::move(request), Purpose::kEnter);
  }
}

void BotClient::on_room(const Json& room) {
  if (room.contains("you") && room["you"].is_number_integer()) {
    report_.seat = room["you"].get<int>();
  }
  if (room.contains("kind") && room["kind"].is_string() &&
      !ensure_strategy(room["kind"].get<std::string>())) {
    return;
  }
  const std::string status = room.value("status", "");
  if (status == "playing") {
    // A new game: a strategy that reads the events forgets the last game's.
    if (!in_game_ && strategy_) strategy_->reset();
    in_game_ = true;
    start_requested_ = false;
  } else if (status == "finished") {
    // A game that ended while this bot was away has no game_over for it.
    on_game_over(nullptr);
  } else if (status == "waiting" && !options_.create_kind.empty() && !start_requested_) {
    // The creator starts the game once every seat is taken.
    const auto& seats = room.at("seats");
    const bool full =
        std::none_of(seats.begin(), seats.end(), [](const Json& s) { return s.is_null(); });
    if (full) request_start();
  }
  maybe_act();
}

void BotClient::request_start() {
  start_requested_ = true;
  send({{"type", "start"}, {"room", report_.room}}, Purpose::kStart);
}

void BotClient::on_state(const Json& state) {
  const std::int64_t seq = state.at("seq").get<std::int64_t>();
  if (is_integer(latest_state_, "seq") && latest_state_["seq"].get<std::int64_t>() > seq) return;
  if (!is_integer(latest_state_, "seq") || latest_state_["seq"] != seq) retries_at_seq_ = 0;
  latest_state_ = state;
  // Each state's events once, in order, for strategies that read the game's history.
  if (strategy_ && strategy_->observes() && seq > observed_seq_ && state.contains("events")) {
    observed_seq_ = seq;
    strategy_->observe(state["events"]);
  }
  // Someone is to act: a game runs (this push may overtake the room's "playing" push).
  if (state.contains("to_act") && state["to_act"].is_array() && !state["to_act"].empty()) {
    in_game_ = true;
  }
  maybe_act();
}

void BotClient::on_game_over(const Json* result) {
  // Both game_over and the room's "finished" push end a game; count it once.
  if (!in_game_) return;
  in_game_ = false;
  think_timer_.cancel();
  ++report_.games;
  bool won = false;
  if (result && result->contains("winners") && result->at("winners").is_array()) {
    for (const Json& w : result->at("winners"))
      won = won || (w.is_number_integer() && w == report_.seat);
  }
  if (won) ++report_.wins;
  log("game " + std::to_string(report_.games) + " over" +
      (result ? (won ? ": won" : ": lost") : ""));
  if (options_.games > 0 && report_.games >= options_.games) return finish("ok");
  if (options_.rematch) request_start();
}

// ---- playing ------------------------------------------------------------------------------

void BotClient::maybe_act() {
  if (done_ || !strategy_ || !latest_state_.is_object()) return;
  const Json& prompt = latest_state_["prompt"];
  if (!prompt.is_object()) return;
  const std::int64_t seq = latest_state_["seq"].get<std::int64_t>();
  if (seq <= acted_seq_) return;  // answered already (or a move for it is on the way)
  acted_seq_ = seq;
  if (options_.think_ms == 0) return act(seq);
  think_timer_.expires_after(std::chrono::milliseconds(options_.think_ms));
  think_timer_.async_wait([weak = weak_from_this(), seq](beast::error_code ec) {
    auto self = weak.lock();
    if (!ec && self) self->act(seq);
  });
}

void BotClient::act(std::int64_t seq) {
  if (done_ || !connection_ || !connection_->open()) return;
  // A newer state arrived while thinking: its own maybe_act() answers it.
  if (!is_integer(latest_state_, "seq") || latest_state_["seq"] != seq) return;
  const Json& prompt = latest_state_["prompt"];
  if (!prompt.is_object()) return;
  acted_seq_ = seq;
  Json move = retries_at_seq_ > 0 ? bots::random_move(prompt, rng_)
                                  : strategy_->choose(latest_state_["view"], prompt, rng_);
  if (move.is_null()) return;
  log("seq " + std::to_string(seq) + ": " + move.dump());
  Json request = {{"type", "move"}, {"room", report_.room}, {"seq", seq}};
  request["move"] = std::move(move);
  send(std::move(request), Purpose::kMove, seq);
}

// ---- the rest -----------------------------------------------------------------------------

bool BotClient::ensure_strategy(const std::string& kind) {
  if (strategy_) return true;
  strategy_ = bots::make_strategy(options_.strategy, kind);
  if (strategy_) return true;
  std::string names;
  for (const auto& n : bots::strategy_names(kind)) names += (names.empty() ? "" : ", ") + n;
  finish("error", "no strategy \"" + options_.strategy + "\" for " + kind + "; try " + names);
  return false;
}

void BotClient::save_token() const {
  if (options_.token_file.empty() || token_.empty()) return;
  // Readable by its owner only; written beside and renamed, so a reader never sees half a
  // token.
  const std::string temporary = options_.token_file + ".tmp";
  const std::string line = token_ + "\n";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  const bool written =
      fd >= 0 && ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  if (fd >= 0) ::close(fd);
  std::error_code ec;
  if (written) std::filesystem::rename(temporary, options_.token_file, ec);
  if (!written || ec) {
    std::cerr << "parlor-bot " << options_.name << ": cannot write " << options_.token_file << "\n";
  }
}

void BotClient::finish(const std::string& outcome, const std::string& failure) {
  if (done_) return;
  done_ = true;
  report_.outcome = outcome;
  report_.failure = failure;
  if (!failure.empty()) std::cerr << "parlor-bot " << options_.name << ": " << failure << "\n";
  deadline_timer_.cancel();
  reconnect_timer_.cancel();
  think_timer_.cancel();
  resolver_.cancel();
  if (connection_) connection_->close();
  if (on_done_) on_done_();
}

void BotClient::log(const std::string& line) const {
  if (!options_.quiet) std::cerr << "parlor-bot " << options_.name << ": " << line << "\n";
}

}  // namespace parlor::client
