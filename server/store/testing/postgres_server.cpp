#include "server/store/testing/postgres_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <cerrno>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

namespace parlor::server::testing {

namespace fs = std::filesystem;

namespace {

std::runtime_error errno_error(const std::string& what) {
  return std::runtime_error(what + ": " + std::generic_category().message(errno));
}

// A port the kernel just handed out on 127.0.0.1. Another process may take it before
// postgres binds it; the caller retries with a new one when postgres cannot bind.
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw errno_error("socket");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    ::close(fd);
    throw errno_error("bind 127.0.0.1:0");
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

// Starts `argv` as uid/gid (when different from ours), in `cwd`, stdout and stderr appended
// to `log`. With `die_with_parent` it gets SIGQUIT (PostgreSQL's immediate shutdown) if this
// process dies first.
pid_t spawn(const std::vector<std::string>& argv, uid_t uid, gid_t gid, const fs::path& cwd,
            const fs::path& log, bool die_with_parent) {
  // Everything the child needs is prepared before fork: after it only async-signal-safe calls.
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) throw errno_error("open " + log.string());
  const bool switch_user = uid != ::geteuid();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(log_fd);
    throw errno_error("fork");
  }
  if (pid == 0) {
    if (switch_user && (::setgroups(0, nullptr) != 0 || ::setgid(gid) != 0 || ::setuid(uid) != 0)) {
      ::_exit(126);
    }
    // After the user switch, which clears it.
    if (die_with_parent && (::prctl(PR_SET_PDEATHSIG, SIGQUIT) != 0 || ::getppid() != parent)) {
      ::_exit(125);
    }
    if (::chdir(cwd.c_str()) != 0 || ::dup2(log_fd, STDOUT_FILENO) < 0 ||
        ::dup2(log_fd, STDERR_FILENO) < 0) {
      ::_exit(124);
    }
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(log_fd);
  return pid;
}

// The exit status of `pid` once it ends, or nullopt if it is still running after `timeout`.
std::optional<int> wait_for(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (done < 0 && errno != EINTR) return -1;
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

std::string PostgresServer::missing_binaries(const PostgresServerOptions& options) {
  for (const char* name : {"initdb", "postgres"}) {
    const fs::path path = options.bin_dir / name;
    if (::access(path.c_str(), X_OK) != 0) {
      return path.string() + " is missing (install postgresql-15: deploy/install-deps.sh)";
    }
  }
  return "";
}

PostgresServer::PostgresServer(PostgresServerOptions options) : options_(std::move(options)) {
  if (const std::string missing = missing_binaries(options_); !missing.empty()) {
    throw std::runtime_error(missing);
  }
  std::string pattern = (fs::temp_directory_path() / "parlor-pg-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw errno_error("mkdtemp");
  dir_ = pattern;
  uid_ = ::geteuid();
  gid_ = ::getegid();
  try {
    if (uid_ == 0) {
      // Looked up once, in the test's own setup, before it starts any thread.
      const passwd* nobody = ::getpwnam("nobody");  // NOLINT(concurrency-mt-unsafe)
      if (nobody == nullptr) throw std::runtime_error("no user nobody to run PostgreSQL as");
      uid_ = nobody->pw_uid;
      gid_ = nobody->pw_gid;
      if (::chown(dir_.c_str(), uid_, gid_) != 0) throw errno_error("chown " + dir_.string());
    }
    const fs::path password_file = dir_ / "password";
    std::ofstream(password_file) << kPassword << "\n";
    if (::chown(password_file.c_str(), uid_, gid_) != 0) throw errno_error("chown password");
    const pid_t initdb =
        spawn({(options_.bin_dir / "initdb").string(), "-D", (dir_ / "data").string(), "-U", kUser,
               "--pwfile=" + password_file.string(), "--auth-host=scram-sha-256",
               "--auth-local=trust", "--locale=C", "--encoding=UTF8", "--no-sync"},
              uid_, gid_, dir_, dir_ / "initdb.log", true);
    const auto status = wait_for(initdb, options_.start_timeout);
    if (status != 0) {
      if (!status) {
        ::kill(initdb, SIGKILL);
        wait_for(initdb, std::chrono::seconds(5));
      }
      throw std::runtime_error("initdb failed (status " + std::to_string(status.value_or(-1)) +
                               "): " + read_file(dir_ / "initdb.log"));
    }
    start_postgres();
  } catch (...) {
    stop();
    throw;
  }
}

void PostgresServer::start_postgres() {
  std::string last_log;
  for (int attempt = 0; attempt < 5; ++attempt) {
    port_ = free_port();
    std::vector<std::string> argv = {(options_.bin_dir / "postgres").string(),
                                     "-D",
                                     (dir_ / "data").string(),
                                     "-p",
                                     std::to_string(port_),
                                     "-k",
                                     dir_.string(),
                                     "-c",
                                     "listen_addresses=127.0.0.1",
                                     "-c",
                                     "max_connections=40",
                                     "-c",
                                     "shared_buffers=32MB",
                                     "-c",
                                     std::string("fsync=") + (options_.fsync ? "on" : "off")};
    if (!options_.fsync) {
      // Tests: no autovacuum either, so nothing but the tests themselves writes (a test
      // counts transaction ids).
      argv.insert(argv.end(), {"-c", "full_page_writes=off", "-c", "autovacuum=off"});
    }
    const fs::path log = dir_ / "postgres.log";
    pid_ = spawn(argv, uid_, gid_, dir_, log, true);
    const std::string conninfo = "host=127.0.0.1 port=" + std::to_string(port_) +
                                 " dbname=postgres user=" + kUser + " connect_timeout=2";
    const auto deadline = std::chrono::steady_clock::now() + options_.start_timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (PQping(conninfo.c_str()) == PQPING_OK) return;
      if (wait_for(pid_, std::chrono::milliseconds(0))) break;  // it exited
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    last_log = log_tail();
    if (!wait_for(pid_, std::chrono::milliseconds(0))) {
      ::kill(pid_, SIGKILL);
      wait_for(pid_, std::chrono::seconds(10));
      pid_ = -1;
      throw std::runtime_error("postgres did not accept connections within " +
                               std::to_string(options_.start_timeout.count()) + " s: " + last_log);
    }
    pid_ = -1;
    // Someone else took the port between free_port() and postgres binding it: try another.
    if (last_log.find("could not bind") == std::string::npos &&
        last_log.find("could not create any TCP/IP sockets") == std::string::npos) {
      break;
    }
  }
  throw std::runtime_error("postgres did not start: " + last_log);
}

PostgresServer::~PostgresServer() { stop(); }

void PostgresServer::stop() {
  if (pid_ > 0) {
    ::kill(pid_, SIGINT);  // fast shutdown: disconnects clients, no waiting for them
    if (!wait_for(pid_, std::chrono::seconds(20))) {
      ::kill(pid_, SIGKILL);
      wait_for(pid_, std::chrono::seconds(10));
    }
    pid_ = -1;
  }
  if (!dir_.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
    dir_.clear();
  }
}

std::string PostgresServer::url(const std::string& database) const {
  return std::string("postgres://") + kUser + ":" + kPassword +
         "@127.0.0.1:" + std::to_string(port_) + "/" + database;
}

std::string PostgresServer::create_database(const std::string& name) {
  sql("postgres", "CREATE DATABASE \"" + name + "\"");
  return url(name);
}

std::optional<std::string> PostgresServer::sql(const std::string& database,
                                               const std::string& statement) const {
  PGconn* conn = PQconnectdb(url(database).c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    const std::string error = PQerrorMessage(conn);
    PQfinish(conn);
    throw std::runtime_error("cannot connect to the test server: " + error);
  }
  PGresult* result = PQexec(conn, statement.c_str());
  const auto status = PQresultStatus(result);
  std::optional<std::string> out;
  std::string error;
  if (status == PGRES_TUPLES_OK && PQntuples(result) > 0 && !PQgetisnull(result, 0, 0)) {
    out = PQgetvalue(result, 0, 0);
  } else if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
    error = PQresultErrorMessage(result);
  }
  PQclear(result);
  PQfinish(conn);
  if (!error.empty()) throw std::runtime_error(statement + ": " + error);
  return out;
}

std::string PostgresServer::log_tail() const {
  const std::string log = read_file(dir_ / "postgres.log");
  return log.size() > 4000 ? log.substr(log.size() - 4000) : log;
}

}  // namespace parlor::server::testing
