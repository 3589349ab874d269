// Reading a store's SQLite file from a test as another process would: read-only, on a
// connection of its own, seeing what SQLite has committed (not what waits in the store's
// memory for it).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <string>

namespace parlor::server::store_test {

// The first column of the first row of `sql` on `file`: -1 when there is none, or when the
// file or the statement cannot be read.
inline std::int64_t first_value(const std::filesystem::path& file, const std::string& sql) {
  sqlite3* db = nullptr;
  std::int64_t out = -1;
  if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 2000);
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) == SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW) {
      out = sqlite3_column_int64(statement, 0);
    }
    sqlite3_finalize(statement);
  }
  sqlite3_close(db);
  return out;
}

}  // namespace parlor::server::store_test
