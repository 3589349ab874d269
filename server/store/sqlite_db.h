// Thin RAII over the SQLite C API: a connection and prepared statements. Internal to the
// store (sqlite3.h stays out of store.h and sqlite_store.h).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace parlor::server::sqlite {

// A failed SQLite call: the message and the extended result code.
class Error : public std::runtime_error {
 public:
  Error(const std::string& message, int code) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

class Statement;

class Db {
 public:
  // Opens (or creates) `file` read-write; throws Error.
  explicit Db(const std::filesystem::path& file);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  sqlite3* get() const { return db_; }
  // Runs one or more statements that return no rows we need; throws Error.
  void exec(const std::string& sql);
  // The first column of the first row of `sql` as an integer.
  std::int64_t query_int(const std::string& sql);
  // Whether a transaction is open (false after SQLite rolled one back on its own).
  bool in_transaction() const { return sqlite3_get_autocommit(db_) == 0; }
  // Rows changed by the last INSERT, UPDATE or DELETE; the rowid the last INSERT gave.
  int changes() const { return sqlite3_changes(db_); }
  std::int64_t last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }

 private:
  sqlite3* db_ = nullptr;
};

class Statement {
 public:
  Statement(Db& db, std::string_view sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Bind by 1-based index; a nullopt binds NULL.
  Statement& bind(int index, std::int64_t value);
  Statement& bind_double(int index, double value);
  Statement& bind(int index, std::string_view text);
  Statement& bind(int index, const std::string& text) {
    return bind(index, std::string_view(text));
  }
  Statement& bind(int index, const std::optional<std::string>& text);
  Statement& bind(int index, const std::optional<std::int64_t>& value);
  Statement& bind_blob(int index, const void* data, int size);

  // Steps once: true when a row is ready, false when done. Throws Error.
  bool step();
  // Steps to completion, then resets for reuse.
  void run();
  void reset();

  bool is_null(int column) const;
  std::int64_t column_int(int column) const;
  double column_double(int column) const;
  std::string column_text(int column) const;
  std::optional<std::string> column_optional_text(int column) const;
  std::optional<std::int64_t> column_optional_int(int column) const;
  std::string column_blob(int column) const;

 private:
  Db& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// "message (code name)" for the connection's last error.
std::string describe(sqlite3* db, int code);

}  // namespace parlor::server::sqlite
