#include "server/store/sqlite_db.h"

namespace parlor::server::sqlite {

std::string describe(sqlite3* db, int code) {
  const std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(code);
  const std::string name = sqlite3_errstr(code);
  return message + " (" + (name == message ? "" : name + ", ") + "SQLite code " +
         std::to_string(code) + ")";
}

Db::Db(const std::filesystem::path& file) {
  // NOMUTEX: each connection is used by one thread at a time (the writer, or the reader
  // under its lock), so SQLite's own per-call mutex would only cost time.
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  const int rc = sqlite3_open_v2(file.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    const int code = db_ ? sqlite3_extended_errcode(db_) : rc;
    Error error(describe(db_, code), code);
    sqlite3_close(db_);
    db_ = nullptr;
    throw error;
  }
  sqlite3_extended_result_codes(db_, 1);
}

Db::~Db() {
  // Statements are finalized first by their owners, so this close succeeds.
  if (db_) sqlite3_close(db_);
}

void Db::exec(const std::string& sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    sqlite3_free(message);
    const int code = sqlite3_extended_errcode(db_);
    throw Error(describe(db_, code), code);
  }
}

std::int64_t Db::query_int(const std::string& sql) {
  Statement statement(*this, sql);
  if (!statement.step()) throw Error("no row from: " + sql, SQLITE_ERROR);
  return statement.column_int(0);
}

Statement::Statement(Db& db, std::string_view sql) : db_(db) {
  const int rc = sqlite3_prepare_v3(db.get(), sql.data(), static_cast<int>(sql.size()),
                                    SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
  if (rc != SQLITE_OK) throw Error(describe(db.get(), rc), sqlite3_extended_errcode(db.get()));
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

namespace {
void check_bind(sqlite3* db, int rc) {
  if (rc != SQLITE_OK) throw Error(describe(db, rc), rc);
}
}  // namespace

Statement& Statement::bind(int index, std::int64_t value) {
  check_bind(db_.get(), sqlite3_bind_int64(stmt_, index, value));
  return *this;
}

Statement& Statement::bind_double(int index, double value) {
  check_bind(db_.get(), sqlite3_bind_double(stmt_, index, value));
  return *this;
}

Statement& Statement::bind(int index, std::string_view text) {
  check_bind(db_.get(), sqlite3_bind_text64(stmt_, index, text.data(), text.size(),
                                            SQLITE_TRANSIENT, SQLITE_UTF8));
  return *this;
}

Statement& Statement::bind(int index, const std::optional<std::string>& text) {
  if (!text) {
    check_bind(db_.get(), sqlite3_bind_null(stmt_, index));
    return *this;
  }
  return bind(index, std::string_view(*text));
}

Statement& Statement::bind(int index, const std::optional<std::int64_t>& value) {
  if (!value) {
    check_bind(db_.get(), sqlite3_bind_null(stmt_, index));
    return *this;
  }
  return bind(index, *value);
}

Statement& Statement::bind_blob(int index, const void* data, int size) {
  check_bind(db_.get(), sqlite3_bind_blob(stmt_, index, data, size, SQLITE_TRANSIENT));
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  const int code = sqlite3_extended_errcode(db_.get());
  Error error(describe(db_.get(), code), code);
  sqlite3_reset(stmt_);
  throw error;
}

void Statement::run() {
  while (step()) {
  }
  reset();
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Statement::is_null(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::int64_t Statement::column_int(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::column_double(int column) const { return sqlite3_column_double(stmt_, column); }

std::string Statement::column_text(int column) const {
  const auto* text = sqlite3_column_text(stmt_, column);
  const int size = sqlite3_column_bytes(stmt_, column);
  if (!text) return {};
  return {reinterpret_cast<const char*>(text), static_cast<std::size_t>(size)};
}

std::optional<std::string> Statement::column_optional_text(int column) const {
  if (is_null(column)) return std::nullopt;
  return column_text(column);
}

std::optional<std::int64_t> Statement::column_optional_int(int column) const {
  if (is_null(column)) return std::nullopt;
  return column_int(column);
}

std::string Statement::column_blob(int column) const {
  const void* data = sqlite3_column_blob(stmt_, column);
  const int size = sqlite3_column_bytes(stmt_, column);
  if (!data) return {};
  return {static_cast<const char*>(data), static_cast<std::size_t>(size)};
}

}  // namespace parlor::server::sqlite
