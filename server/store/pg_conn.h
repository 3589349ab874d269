// Thin RAII over libpq: a connection, results, and one pipelined round trip. Internal to the
// store (libpq-fe.h stays out of store.h and postgres_store.h).
#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace parlor::server::pg {

// A failed libpq call or statement. `sqlstate` is the server's error code ("23505"), empty
// when the failure was not the server's answer to a statement (a lost connection, a timeout).
class Error : public std::runtime_error {
 public:
  Error(const std::string& message, std::string sqlstate = {})
      : std::runtime_error(message), sqlstate_(std::move(sqlstate)) {}
  const std::string& sqlstate() const { return sqlstate_; }

 private:
  std::string sqlstate_;
};

// The URL with its password replaced by "***" (in the user info and in a `password=` query
// parameter), for every message and log line.
std::string redact_url(std::string_view url);

class Result {
 public:
  explicit Result(PGresult* result) : result_(result) {}
  ~Result() {
    if (result_) PQclear(result_);
  }
  Result(Result&& other) noexcept : result_(other.result_) { other.result_ = nullptr; }
  Result& operator=(Result&&) = delete;
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;

  PGresult* get() const { return result_; }
  int rows() const { return PQntuples(result_); }
  bool is_null(int row, int column) const { return PQgetisnull(result_, row, column) != 0; }
  std::string text(int row, int column) const { return PQgetvalue(result_, row, column); }
  std::optional<std::string> optional_text(int row, int column) const;
  std::int64_t integer(int row, int column) const;
  std::optional<std::int64_t> optional_integer(int row, int column) const;

 private:
  PGresult* result_;
};

// Text parameters; nullopt is NULL.
using Params = std::vector<std::optional<std::string>>;

// One statement of a pipeline: a prepared statement's name and its parameters.
struct Step {
  const char* statement;
  Params params;
};

// What a pipeline did: nothing failed, or the first statement that failed with its error.
// Statements after it were skipped by the server.
struct PipelineOutcome {
  std::optional<std::size_t> failed;
  std::string sqlstate;
  std::string message;
};

class Conn {
 public:
  // Connects with a libpq connection string or URL; throws Error with libpq's message. `io_timeout`
  // bounds every wait for the server once connected.
  Conn(const std::string& conninfo, std::chrono::milliseconds io_timeout);
  ~Conn();
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  PGconn* get() const { return conn_; }
  bool broken() const { return PQstatus(conn_) != CONNECTION_OK; }
  bool in_transaction() const { return PQtransactionStatus(conn_) != PQTRANS_IDLE; }

  // Runs SQL (one or more statements, no parameters) or one statement with text parameters;
  // throws Error when it fails.
  Result exec(const std::string& sql);
  Result exec(const std::string& sql, const Params& params);
  void prepare(const char* name, const std::string& sql);

  // Sends every step and a Sync in one pipeline — one round trip — and reads their results.
  // A statement's error is returned (the server skips the rest up to the Sync); a lost
  // connection or a server that stops answering for io_timeout throws Error.
  PipelineOutcome pipeline(const std::vector<Step>& steps);

 private:
  // Waits (at most io_timeout) until the socket is ready for `events`; throws Error.
  void wait_socket(short events);
  void flush_all();
  PGresult* next_result();
  [[noreturn]] void fail(const std::string& what);

  PGconn* conn_ = nullptr;
  std::chrono::milliseconds io_timeout_;
};

}  // namespace parlor::server::pg
