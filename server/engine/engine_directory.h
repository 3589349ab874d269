// The engines this server hosts (--engine NAME=URL): each one's HTTP client, by the game kind
// it is registered under. Filled once at start, before any room exists; read by rooms.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "server/engine/engine_client.h"

namespace parlor::server {

struct EngineFlag;

// For each engine: fetches and checks its /config (blocking), then registers its game in the
// game registry and its client here. Throws std::runtime_error naming the engine and what is
// wrong; nothing is registered then.
void register_engines(const std::vector<EngineFlag>& engines, const net::any_io_executor& executor,
                      EngineClientOptions options);

// Forgets every engine's client (their connections belong to the server's io_context, which
// is going away). The games stay registered.
void drop_engines();

// The client of the engine registered under `kind`, or null.
std::shared_ptr<EngineClient> find_engine(std::string_view kind);

}  // namespace parlor::server
