// Opening the data file: recognizing it, checking it, WAL and durability pragmas, and the
// schema migrations (PRAGMA user_version). Every failure is a StoreError naming the file.
#pragma once

#include <filesystem>
#include <memory>
#include <string_view>

#include "server/store/sqlite_db.h"

namespace parlor::server::sqlite {

// PRAGMA application_id of a Parlor data file ("PRLR").
inline constexpr std::int64_t kApplicationId = 0x50524C52;
// The schema this build writes; migrations bring older files up to it.
inline constexpr std::int64_t kSchemaVersion = 7;

struct OpenOptions {
  std::string_view synchronous = "FULL";  // FULL or NORMAL (see README.md)
  bool quick_check = true;                // PRAGMA quick_check before use
};

// The SQL that takes a file from version `from_version` to the next (tests build files as an
// older build wrote them with it).
std::string_view migration(std::int64_t from_version);

// The writer's connection: checks and migrates the file, turns on WAL. Throws StoreError.
std::unique_ptr<Db> open_writer(const std::filesystem::path& file, const OpenOptions& options);
// A second connection for loading, opened after open_writer succeeded. Throws StoreError.
std::unique_ptr<Db> open_reader(const std::filesystem::path& file);

}  // namespace parlor::server::sqlite
