#include "server/store/pg_conn.h"

#include <poll.h>

#include <cerrno>
#include <charconv>
#include <system_error>

namespace parlor::server::pg {

namespace {

// libpq's messages end with a newline and may continue on indented lines; one line reads
// better inside ours.
std::string one_line(std::string_view text) {
  std::string out;
  bool space = false;
  for (const char c : text) {
    if (c == '\n' || c == '\t' || c == '\r' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::string result_error(const PGresult* result) {
  const char* primary = PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
  const char* detail = PQresultErrorField(result, PG_DIAG_MESSAGE_DETAIL);
  std::string out = primary ? primary : one_line(PQresultErrorMessage(result));
  if (detail) out += std::string(" (") + detail + ")";
  return out;
}

std::string result_sqlstate(const PGresult* result) {
  const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
  return state ? state : "";
}

std::string redact_password_parameter(std::string text) {
  for (std::size_t at = text.find("password="); at != std::string::npos;
       at = text.find("password=", at + 1)) {
    const bool starts_parameter =
        at == 0 || text[at - 1] == '?' || text[at - 1] == '&' || text[at - 1] == ' ';
    if (!starts_parameter) continue;
    const std::size_t value = at + 9;
    const std::size_t end = text.find_first_of("& ", value);
    text.replace(value, (end == std::string::npos ? text.size() : end) - value, "***");
  }
  return text;
}

}  // namespace

std::string redact_url(std::string_view url) {
  std::string out(url);
  const std::size_t scheme = out.find("://");
  if (scheme != std::string::npos) {
    const std::size_t start = scheme + 3;
    const std::size_t authority_end = out.find_first_of("/?#", start);
    const std::size_t at =
        out.rfind('@', authority_end == std::string::npos ? out.size() - 1 : authority_end);
    if (at != std::string::npos && at >= start) {
      const std::size_t colon = out.find(':', start);
      if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
    }
  }
  return redact_password_parameter(std::move(out));
}

std::optional<std::string> Result::optional_text(int row, int column) const {
  if (is_null(row, column)) return std::nullopt;
  return text(row, column);
}

std::int64_t Result::integer(int row, int column) const {
  const char* value = PQgetvalue(result_, row, column);
  const std::string_view text(value);
  std::int64_t out = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || end != text.data() + text.size()) {
    throw Error("column " + std::string(PQfname(result_, column)) + " holds \"" +
                std::string(text) + "\", not an integer");
  }
  return out;
}

std::optional<std::int64_t> Result::optional_integer(int row, int column) const {
  if (is_null(row, column)) return std::nullopt;
  return integer(row, column);
}

Conn::Conn(const std::string& conninfo, std::chrono::milliseconds io_timeout)
    : io_timeout_(io_timeout) {
  // connect_timeout first: a URL that sets its own overrides it (expand_dbname = 1 applies
  // the URL's parameters over the ones before it).
  const std::string connect_seconds =
      std::to_string(std::max<std::int64_t>(2, (io_timeout.count() + 999) / 1000));
  const char* keywords[] = {"connect_timeout", "fallback_application_name", "dbname", nullptr};
  const char* values[] = {connect_seconds.c_str(), "parlor-server", conninfo.c_str(), nullptr};
  conn_ = PQconnectdbParams(keywords, values, 1);
  if (conn_ == nullptr) throw Error("out of memory");
  if (PQstatus(conn_) != CONNECTION_OK) {
    const std::string message = one_line(PQerrorMessage(conn_));
    PQfinish(conn_);
    conn_ = nullptr;
    throw Error(message);
  }
}

Conn::~Conn() {
  if (conn_) PQfinish(conn_);
}

void Conn::fail(const std::string& what) {
  throw Error(what + ": " + one_line(PQerrorMessage(conn_)));
}

Result Conn::exec(const std::string& sql) {
  Result result(PQexec(conn_, sql.c_str()));
  if (!result.get()) fail("cannot send a statement");
  const auto status = PQresultStatus(result.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    throw Error(result_error(result.get()), result_sqlstate(result.get()));
  }
  return result;
}

Result Conn::exec(const std::string& sql, const Params& params) {
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& param : params) values.push_back(param ? param->c_str() : nullptr);
  Result result(PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr,
                             values.data(), nullptr, nullptr, 0));
  if (!result.get()) fail("cannot send a statement");
  const auto status = PQresultStatus(result.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    throw Error(result_error(result.get()), result_sqlstate(result.get()));
  }
  return result;
}

void Conn::prepare(const char* name, const std::string& sql) {
  Result result(PQprepare(conn_, name, sql.c_str(), 0, nullptr));
  if (!result.get()) fail("cannot prepare a statement");
  if (PQresultStatus(result.get()) != PGRES_COMMAND_OK) {
    throw Error(std::string("cannot prepare ") + name + ": " + result_error(result.get()),
                result_sqlstate(result.get()));
  }
}

void Conn::wait_socket(short events) {
  pollfd fd{PQsocket(conn_), events, 0};
  if (fd.fd < 0) fail("no connection");
  for (;;) {
    const int ready = ::poll(&fd, 1, static_cast<int>(io_timeout_.count()));
    if (ready > 0) return;
    if (ready == 0) {
      throw Error("the server did not answer within " + std::to_string(io_timeout_.count()) +
                  " ms");
    }
    if (errno != EINTR) throw Error("poll: " + std::generic_category().message(errno));
  }
}

// Sends everything libpq holds. While the server's answers fill its socket it stops reading
// ours, so they are read (into libpq's buffer) as they come: a long pipeline never deadlocks.
void Conn::flush_all() {
  for (;;) {
    const int pending = PQflush(conn_);
    if (pending == 0) return;
    if (pending < 0) fail("cannot send to the server");
    wait_socket(POLLIN | POLLOUT);
    if (PQconsumeInput(conn_) == 0) fail("cannot read from the server");
  }
}

// The next result, waiting at most io_timeout for each piece of it.
PGresult* Conn::next_result() {
  while (PQisBusy(conn_)) {
    wait_socket(POLLIN);
    if (PQconsumeInput(conn_) == 0) fail("cannot read from the server");
  }
  return PQgetResult(conn_);
}

PipelineOutcome Conn::pipeline(const std::vector<Step>& steps) {
  if (PQsetnonblocking(conn_, 1) != 0 || PQenterPipelineMode(conn_) == 0) {
    fail("cannot enter pipeline mode");
  }
  std::vector<const char*> values;
  for (const Step& step : steps) {
    values.clear();
    for (const auto& param : step.params) values.push_back(param ? param->c_str() : nullptr);
    if (PQsendQueryPrepared(conn_, step.statement, static_cast<int>(values.size()), values.data(),
                            nullptr, nullptr, 0) == 0) {
      fail("cannot queue a statement");
    }
    // libpq sends as its buffer fills; read the answers that arrive meanwhile.
    if (PQconsumeInput(conn_) == 0) fail("cannot read from the server");
  }
  if (PQpipelineSync(conn_) == 0) fail("cannot end the pipeline");
  flush_all();

  PipelineOutcome outcome;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    Result result(next_result());
    if (!result.get()) fail("the server's answers ended early");
    switch (PQresultStatus(result.get())) {
      case PGRES_COMMAND_OK:
      case PGRES_TUPLES_OK:
      case PGRES_PIPELINE_ABORTED:  // skipped after an earlier failure
        break;
      case PGRES_FATAL_ERROR:
        if (broken()) fail("the connection to the server was lost");
        if (!outcome.failed) {
          outcome.failed = i;
          outcome.sqlstate = result_sqlstate(result.get());
          outcome.message = result_error(result.get());
        }
        break;
      default:
        fail(std::string("unexpected answer to a statement: ") +
             PQresStatus(PQresultStatus(result.get())));
    }
    // Each statement's results end with a null.
    Result end(next_result());
    if (end.get()) fail("a statement returned more than one result");
  }
  Result sync(next_result());
  if (!sync.get() || PQresultStatus(sync.get()) != PGRES_PIPELINE_SYNC) {
    fail("the pipeline did not end with its Sync");
  }
  if (PQexitPipelineMode(conn_) == 0 || PQsetnonblocking(conn_, 0) != 0) {
    fail("cannot leave pipeline mode");
  }
  return outcome;
}

}  // namespace parlor::server::pg
