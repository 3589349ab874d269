#include "bots/load/load_client.h"

#include "bots/strategy.h"

namespace parlor::load {

namespace net = boost::asio;
namespace beast = boost::beast;

LoadClient::LoadClient(net::io_context& io, const LoadSettings& settings,
                       std::shared_ptr<RoomPlan> plan, int seat, std::uint64_t seed,
                       LoadStats& stats)
    : io_(io),
      settings_(settings),
      plan_(std::move(plan)),
      seat_(seat),
      rng_(seed),
      stats_(stats),
      think_timer_(io) {}

void LoadClient::start(const client::Endpoints& endpoints) {
  // The handlers hold the client weakly: the connection must not keep its owner alive.
  std::weak_ptr<LoadClient> weak = weak_from_this();
  client::ConnectionHandlers handlers;
  handlers.on_open = [weak] {
    if (auto self = weak.lock()) self->on_open();
  };
  handlers.on_message = [weak](std::string_view text) {
    if (auto self = weak.lock()) self->on_message(text);
  };
  handlers.on_end = [weak](const client::ConnectionEnd& end) {
    if (auto self = weak.lock()) self->fail(end.stage);
  };
  connection_ =
      std::make_shared<client::WsConnection>(io_, settings_.url, nullptr, std::move(handlers));
  connection_->start(endpoints);
}

void LoadClient::stop() {
  stopped_ = true;
  think_timer_.cancel();
  if (connection_) connection_->close();
}

void LoadClient::on_open() {
  ++stats_.connected;
  send(Json{{"type", "hello"}, {"name", "load" + std::to_string(seat_)}, {"protocol", 1}}.dump());
}

void LoadClient::send(std::string text) { connection_->send(std::move(text)); }

void LoadClient::on_message(std::string_view text) {
  Json message = Json::parse(text.begin(), text.end(), nullptr, false);
  if (!message.is_discarded()) handle(message);
}

void LoadClient::handle(const Json& message) {
  const std::string& type = message["type"].get_ref<const std::string&>();
  if (type == "welcome") {
    if (seat_ == 0) {
      send(Json{{"type", "create_room"},
                {"kind", plan_->kind},
                {"seats", plan_->seats},
                {"options", plan_->options}}
               .dump());
    } else if (!plan_->room.empty()) {
      join();
    } else {
      plan_->waiting.push_back([weak = weak_from_this()] {
        if (auto self = weak.lock()) self->join();
      });
    }
  } else if (type == "room_created") {
    plan_->room = message["room"];
    for (auto& notify : plan_->waiting) notify();
    plan_->waiting.clear();
  } else if (type == "room" && seat_ == 0) {
    // Once every seat is taken, seat 0 starts the game.
    int taken = 0;
    for (const Json& s : message["seats"]) taken += s.is_null() ? 0 : 1;
    if (taken == plan_->seats && message["status"] == "waiting") {
      send(Json{{"type", "start"}, {"room", plan_->room}}.dump());
    }
  } else if (type == "state") {
    ++stats_.states;
    const std::int64_t seq = message["seq"].get<std::int64_t>();
    if (pending_seq_ >= 0 && seq >= pending_seq_) {
      stats_.latencies_us.push_back(
          std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - sent_at_).count());
      pending_seq_ = -1;
    }
    if (message["prompt"].is_object()) act(message);
  } else if (type == "game_over") {
    if (seat_ == 0) {
      ++stats_.games;
      if (Clock::now() < settings_.stop_at) {
        send(Json{{"type", "start"}, {"room", plan_->room}}.dump());
      }
    }
  } else if (type == "ok") {
    if (message.contains("seq")) ++stats_.moves;
  } else if (type == "error") {
    ++stats_.errors[message.value("code", "?")];
    pending_seq_ = -1;
  }
}

void LoadClient::join() {
  if (stopped_) return;
  send(Json{{"type", "join_room"}, {"room", plan_->room}, {"seat", seat_}}.dump());
}

void LoadClient::act(const Json& state) {
  if (Clock::now() >= settings_.stop_at) return;
  Json move = bots::random_move(state["prompt"], rng_);
  if (move.is_null()) return;
  const std::int64_t seq = state["seq"].get<std::int64_t>();
  Json request = {{"type", "move"}, {"room", plan_->room}, {"seq", seq}};
  request["move"] = std::move(move);
  auto go = [self = shared_from_this(), text = request.dump(), seq] {
    self->pending_seq_ = seq + 1;
    self->sent_at_ = Clock::now();
    self->send(text);
  };
  if (settings_.think.count() == 0) return go();
  think_timer_.expires_after(settings_.think);
  think_timer_.async_wait([go](beast::error_code ec) {
    if (!ec) go();
  });
}

void LoadClient::fail(const std::string& what) {
  if (stopped_) return;
  stopped_ = true;
  ++stats_.errors["connection_" + what];
}

}  // namespace parlor::load
