#include "bots/load/load_client.h"

#include <cctype>

#include "bots/load/frame_scan.h"
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
  if (settings_.follow_room_node && seat_ != 0 && !plan_->node) {
    plan_->waiting_for_node.push_back([weak = weak_from_this(), endpoints] {
      if (auto self = weak.lock(); self && !self->stopped_) {
        self->connect(endpoints, *self->plan_->node);
      }
    });
    return;
  }
  connect(endpoints, plan_->node.value_or(""));
}

void LoadClient::connect(const client::Endpoints& endpoints, const std::string& node) {
  client::WsUrl url = settings_.url;
  if (!node.empty()) {
    url.path += url.path.find('?') == std::string::npos ? "?node=" : "&node=";
    // A node id is the operator's name (up.sh's node-K, or host:port by default): anything
    // beyond the characters a query may hold as they are is percent-encoded.
    for (const unsigned char c : node) {
      if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == ':') {
        url.path += static_cast<char>(c);
      } else {
        static constexpr char kHex[] = "0123456789ABCDEF";
        url.path += '%';
        url.path += kHex[c >> 4];
        url.path += kHex[c & 15];
      }
    }
  }
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
    if (auto self = weak.lock()) self->fail(end);
  };
  connection_ =
      std::make_shared<client::WsConnection>(io_, std::move(url), nullptr, std::move(handlers));
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
  // The frames of every move are read from a scan; the rest, and whatever the scan does not
  // understand, from a full parse.
  if (const std::optional<FrameFields> frame = scan_frame(text)) {
    if (frame->type == "state" && frame->seq) {
      on_state(*frame->seq);
      // Only the seat to act has a prompt, so only it parses more than the scan.
      if (!frame->prompt.empty()) act(*frame->seq, Json::parse(frame->prompt, nullptr, false));
      return;
    }
    if (frame->type == "ok") {
      if (frame->seq) ++stats_.moves;
      return;
    }
    if (frame->type == "error") return on_error(frame->code.value_or("?"));
  }
  const Json message = Json::parse(text.begin(), text.end(), nullptr, false);
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
    plan_->move_request_start =
        R"({"type":"move","room":)" + Json(plan_->room).dump() + R"(,"seq":)";
    for (auto& notify : plan_->waiting) notify();
    plan_->waiting.clear();
    for (int seat = 1; seat < plan_->seats && !plan_->bot_strategy.empty(); ++seat) {
      send(Json{{"type", "add_bot"},
                {"room", plan_->room},
                {"seat", seat},
                {"strategy", plan_->bot_strategy}}
               .dump());
    }
  } else if (type == "room" && seat_ == 0) {
    if (!plan_->node) {
      plan_->node = message.value("node", "");
      for (auto& connect_seat : plan_->waiting_for_node) connect_seat();
      plan_->waiting_for_node.clear();
    }
    // Once every seat is taken, seat 0 starts the game.
    int taken = 0;
    for (const Json& s : message["seats"]) taken += s.is_null() ? 0 : 1;
    if (taken == plan_->seats && message["status"] == "waiting") {
      send(Json{{"type", "start"}, {"room", plan_->room}}.dump());
    }
  } else if (type == "state") {
    const std::int64_t seq = message["seq"].get<std::int64_t>();
    on_state(seq);
    if (message["prompt"].is_object()) act(seq, message["prompt"]);
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
    on_error(message.value("code", "?"));
  }
}

void LoadClient::on_state(std::int64_t seq) {
  ++stats_.states;
  if (pending_seq_ >= 0 && seq >= pending_seq_) {
    stats_.latencies_us.push_back(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - sent_at_).count());
    pending_seq_ = -1;
  }
}

void LoadClient::on_error(std::string_view code) {
  ++stats_.errors[std::string(code)];
  pending_seq_ = -1;
}

void LoadClient::join() {
  if (stopped_) return;
  send(Json{{"type", "join_room"}, {"room", plan_->room}, {"seat", seat_}}.dump());
}

void LoadClient::act(std::int64_t seq, const Json& prompt) {
  if (Clock::now() >= settings_.stop_at) return;
  const Json move = bots::random_move(prompt, rng_);
  if (move.is_null()) return;
  // Only the seq and the move differ from one request to the next: no document to build.
  std::string request = plan_->move_request_start;
  request += std::to_string(seq);
  request += R"(,"move":)";
  request += move.dump();
  request += '}';
  if (settings_.think.count() == 0) return send_move(seq, std::move(request));
  think_timer_.expires_after(settings_.think);
  think_timer_.async_wait(
      [self = shared_from_this(), seq, request = std::move(request)](beast::error_code ec) mutable {
        if (!ec) self->send_move(seq, std::move(request));
      });
}

void LoadClient::send_move(std::int64_t seq, std::string request) {
  pending_seq_ = seq + 1;
  sent_at_ = Clock::now();
  send(std::move(request));
}

void LoadClient::fail(const client::ConnectionEnd& end) {
  if (stopped_) return;
  stopped_ = true;
  // A refused upgrade is counted by its HTTP status (connection_handshake_429), so the
  // report tells a refusal from a network failure.
  ++stats_.errors["connection_" + end.stage +
                  (end.http_status != 0 ? "_" + std::to_string(end.http_status) : "")];
  if (std::string hint = client::refusal_hint(end); !hint.empty())
    stats_.hints.insert(std::move(hint));
}

}  // namespace parlor::load
