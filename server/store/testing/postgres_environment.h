// One PostgreSQL server per test binary, as a GoogleTest global environment: started by the
// first test that asks for it (a process that runs only SQLite tests never starts one) and
// stopped when the binary's tests end. Tests take a fresh database each with
// fresh_database(), so they stay independent.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <memory>
#include <stdexcept>
#include <string>

#include "server/store/testing/postgres_server.h"

namespace parlor::server::testing {

class PostgresEnvironment : public ::testing::Environment {
 public:
  // The shared server, started on first use. Returns nullptr and sets `skip` when the
  // PostgreSQL binaries are not installed; throws when they are and it cannot start (a
  // failure, never a skip). A failed start is not retried.
  static PostgresServer* server(std::string& skip) {
    auto& self = instance();
    skip = PostgresServer::missing_binaries();
    if (!skip.empty()) return nullptr;
    if (!self.error_.empty()) throw std::runtime_error(self.error_);
    if (!self.server_) {
      try {
        self.server_ = std::make_unique<PostgresServer>();
      } catch (const std::exception& e) {
        self.error_ = std::string("the test PostgreSQL server did not start: ") + e.what();
        throw std::runtime_error(self.error_);
      }
    }
    return self.server_.get();
  }

  // A new empty database on the shared server, named after the running test; its URL.
  static std::string fresh_database(PostgresServer& server) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = "t" + std::to_string(++instance().databases_) + "_";
    for (const char c : std::string(info ? info->name() : "test")) {
      if (name.size() >= 60) break;
      name +=
          std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
    }
    return server.create_database(name);
  }

  void TearDown() override { server_.reset(); }

 private:
  static PostgresEnvironment& instance() {
    // Owned by GoogleTest, which tears it down after the last test.
    static PostgresEnvironment* const environment = [] {
      auto* created = new PostgresEnvironment;
      ::testing::AddGlobalTestEnvironment(created);
      return created;
    }();
    return *environment;
  }

  std::unique_ptr<PostgresServer> server_;
  std::string error_;
  int databases_ = 0;
};

}  // namespace parlor::server::testing
