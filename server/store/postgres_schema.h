// Opening a PostgreSQL database for the store: connecting with clear errors, recognizing the
// database (the parlor_schema table) and the schema migrations. Every failure is a StoreError
// naming the server and the database, never the password.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "server/store/pg_conn.h"

namespace parlor::server::pg {

// parlor_schema.application_id of a Parlor database: "PRLR", as SQLite's application_id.
inline constexpr std::int64_t kApplicationId = 0x50524C52;
// The schema this build writes; migrations bring older databases up to it.
inline constexpr std::int64_t kSchemaVersion = 4;
// The SQLSTATE of a write refused by fencing (migration 2's triggers).
inline constexpr std::string_view kFencedState = "PF409";

// The SQL that takes a database from version `from_version` to the next.
std::string_view migration(std::int64_t from_version);

// `database "parlor" on PostgreSQL server 127.0.0.1:5432` of a URL, for messages.
std::string describe_target(const std::string& url);

// Connects, turning libpq's refusal into a StoreError that says what is wrong (unreachable
// server, wrong credentials, no such database).
std::unique_ptr<Conn> connect(const std::string& url, std::chrono::milliseconds io_timeout);

// Checks that the database is empty or Parlor's, and creates or migrates the schema (one
// transaction per step, under an advisory lock so two servers starting together do not both
// migrate). Throws StoreError.
void open_schema(Conn& conn, const std::string& url);

}  // namespace parlor::server::pg
