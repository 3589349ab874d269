// A throwaway PostgreSQL 15 server for tests and benchmarks: initdb into a temporary
// directory, `postgres` on 127.0.0.1 with a free port and its socket directory inside that
// directory, stopped by PID (fast shutdown, then SIGKILL) and removed when the object goes.
//
// PostgreSQL refuses to run as root; under root (CI) the cluster belongs to `nobody` and
// initdb and postgres run as that user. Should the test process die without stopping it,
// the server gets SIGQUIT (PR_SET_PDEATHSIG) and exits immediately.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

namespace parlor::server::testing {

struct PostgresServerOptions {
  // Where initdb, pg_ctl and postgres are (Debian's postgresql-15).
  std::filesystem::path bin_dir = "/usr/lib/postgresql/15/bin";
  // fsync off (and autovacuum off) suits tests: they check ordering and visibility, not the
  // disk, and run faster. Benchmarks keep both on so commits cost what they cost in
  // production.
  bool fsync = false;
  std::chrono::seconds start_timeout{60};
};

class PostgresServer {
 public:
  // Why no server can be started here ("" when the binaries are present).
  static std::string missing_binaries(const PostgresServerOptions& options = {});

  // Runs initdb and starts the server; throws std::runtime_error with the server's log on
  // failure. The superuser is kUser with password kPassword (scram-sha-256 over TCP).
  explicit PostgresServer(PostgresServerOptions options = {});
  // stop().
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // Stops the server by its PID and removes the directory. Idempotent.
  void stop();

  static constexpr const char* kUser = "parlor_test";
  static constexpr const char* kPassword = "test-secret-pw";

  int port() const { return port_; }
  // postgres://parlor_test:PASSWORD@127.0.0.1:PORT/DATABASE
  std::string url(const std::string& database) const;
  // Creates an empty database and returns its URL (each test takes a fresh one).
  std::string create_database(const std::string& name);
  // Runs SQL in `database` as the superuser; throws std::runtime_error on failure. Returns
  // the first column of the first row, or nullopt when there is none.
  std::optional<std::string> sql(const std::string& database, const std::string& statement) const;

 private:
  void start_postgres();
  std::string log_tail() const;

  PostgresServerOptions options_;
  std::filesystem::path dir_;
  int port_ = 0;
  pid_t pid_ = -1;
  uid_t uid_ = 0;  // the user the cluster runs as
  gid_t gid_ = 0;
};

}  // namespace parlor::server::testing
