#include "bots/load/load_client.h"

#include <boost/asio/strand.hpp>

#include "bots/strategy.h"

namespace parlor::load {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;

LoadClient::LoadClient(net::io_context& io, const LoadSettings& settings,
                       std::shared_ptr<RoomPlan> plan, int seat, std::uint64_t seed,
                       LoadStats& stats)
    : io_(io),
      settings_(settings),
      plan_(std::move(plan)),
      seat_(seat),
      rng_(seed),
      stats_(stats),
      ws_(io),
      think_timer_(io) {}

void LoadClient::start(const net::ip::tcp::resolver::results_type& endpoints) {
  beast::get_lowest_layer(ws_).expires_after(std::chrono::seconds(10));
  beast::get_lowest_layer(ws_).async_connect(
      endpoints, [self = shared_from_this()](beast::error_code ec, const auto&) {
        self->on_connect(ec);
      });
}

void LoadClient::stop() {
  stopped_ = true;
  think_timer_.cancel();
  beast::error_code ec;
  beast::get_lowest_layer(ws_).socket().close(ec);
}

void LoadClient::on_connect(beast::error_code ec) {
  if (ec) return fail("connect");
  beast::get_lowest_layer(ws_).expires_never();
  // Without this, Nagle's algorithm and delayed ACKs add tens of milliseconds per move.
  beast::get_lowest_layer(ws_).socket().set_option(net::ip::tcp::no_delay(true), ec);
  ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::client));
  ws_.async_handshake(settings_.host, settings_.path,
                      [self = shared_from_this()](beast::error_code e) { self->on_handshake(e); });
}

void LoadClient::on_handshake(beast::error_code ec) {
  if (ec) return fail("handshake");
  ++stats_.connected;
  ws_.text(true);
  send(Json{{"type", "hello"}, {"name", "load" + std::to_string(seat_)}, {"protocol", 1}}.dump());
  do_read();
}

void LoadClient::send(std::string text) {
  outbox_.push_back(std::move(text));
  if (!writing_) do_write();
}

void LoadClient::do_write() {
  writing_ = true;
  ws_.async_write(net::buffer(outbox_.front()),
                  [self = shared_from_this()](beast::error_code ec, std::size_t) {
                    self->writing_ = false;
                    self->outbox_.pop_front();
                    if (ec) return self->fail("write");
                    if (!self->outbox_.empty()) self->do_write();
                  });
}

void LoadClient::do_read() {
  ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code ec, std::size_t bytes) {
    self->on_read(ec, bytes);
  });
}

void LoadClient::on_read(beast::error_code ec, std::size_t) {
  if (ec) return fail("read");
  const auto* data = static_cast<const char*>(buffer_.data().data());
  Json message = Json::parse(data, data + buffer_.size(), nullptr, false);
  buffer_.consume(buffer_.size());
  if (!message.is_discarded()) handle(message);
  if (!stopped_) do_read();
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
