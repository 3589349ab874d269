#include "server/room/outbox.h"

namespace parlor::server {

void Outbox::clear() {
  deliveries.clear();
  writes.clear();
  memberships.clear();
  summary.reset();
  open_rooms_delta = 0;
  accepted_move_received.reset();
  remove = false;
}

void WriteAheadGate::deliver(Outbox& out, Delivery delivery) {
  if (outstanding_ > 0) {
    held_.push_back(std::move(delivery));
  } else {
    out.deliveries.push_back(std::move(delivery));
  }
}

void WriteAheadGate::write(Outbox& out, StoreWrite write) {
  if (write.gating) ++outstanding_;
  out.writes.push_back(std::move(write));
}

void WriteAheadGate::durable(Outbox& out) {
  if (outstanding_ > 0) --outstanding_;
  if (outstanding_ > 0) return;
  while (!held_.empty()) {
    out.deliveries.push_back(std::move(held_.front()));
    held_.pop_front();
  }
}

void WriteAheadGate::drop_held() { held_.clear(); }

}  // namespace parlor::server
