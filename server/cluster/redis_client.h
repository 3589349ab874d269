// A blocking Redis connection (hiredis) for the cluster's bookkeeping: node heartbeats and
// room ownership. It is used from the cluster's own thread, never from a room's strand, and
// every call is bounded by the connection's timeout.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

struct redisContext;

namespace parlor::server {

// Redis unreachable, timed out, or answering with an error; the message names the server
// (never its password) and the cause.
class RedisError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RedisReply {
  enum class Type { kNil, kInteger, kString, kStatus, kArray };
  Type type = Type::kNil;
  std::int64_t integer = 0;
  std::string text;  // a string or a status
  std::vector<RedisReply> elements;

  bool is_nil() const { return type == Type::kNil; }
};

// Where a Redis server is: redis://[:password@]host[:port][/db].
struct RedisAddress {
  std::string host;
  int port = 6379;
  std::string password;
  int db = 0;
  // host:port, for messages (never the password).
  std::string describe() const;
};
// The address in `url`, or a RedisError saying what is wrong with it.
RedisAddress parse_redis_url(std::string_view url);

class RedisClient {
 public:
  // Connects (and authenticates, and selects the database); throws RedisError.
  RedisClient(RedisAddress address, std::chrono::milliseconds timeout);
  ~RedisClient();
  RedisClient(const RedisClient&) = delete;
  RedisClient& operator=(const RedisClient&) = delete;

  // One command. A Redis error reply, a lost connection or a timeout throw RedisError; the
  // next call connects again, so a Redis that restarts is picked up.
  RedisReply command(const std::vector<std::string>& args);
  // Runs a Lua script (EVAL) with its keys and arguments.
  RedisReply eval(std::string_view script, const std::vector<std::string>& keys,
                  const std::vector<std::string>& args);

  const RedisAddress& address() const { return address_; }

 private:
  void connect();

  RedisAddress address_;
  std::chrono::milliseconds timeout_;
  redisContext* context_ = nullptr;
};

}  // namespace parlor::server
