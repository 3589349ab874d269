// The threads searching bots think on: a fixed, small pool shared by every room, so a bot's
// search never runs on a room's strand (where it would hold up that room's players and, on a
// shared io_context thread, other rooms' too) and all thinking bots together never take more
// than these threads.
#pragma once

#include <functional>

namespace parlor::server {

// Runs `think` on the pool. Work queues while every thread is busy.
void post_bot_think(std::function<void()> think);

}  // namespace parlor::server
