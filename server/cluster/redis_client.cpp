#include "server/cluster/redis_client.h"

#include <hiredis/hiredis.h>

#include <charconv>

namespace parlor::server {
namespace {

timeval to_timeval(std::chrono::milliseconds timeout) {
  timeval tv{};
  tv.tv_sec = static_cast<decltype(tv.tv_sec)>(timeout.count() / 1000);
  tv.tv_usec = static_cast<decltype(tv.tv_usec)>((timeout.count() % 1000) * 1000);
  return tv;
}

RedisReply convert(const redisReply& reply) {
  RedisReply out;
  switch (reply.type) {
    case REDIS_REPLY_INTEGER:
      out.type = RedisReply::Type::kInteger;
      out.integer = reply.integer;
      break;
    case REDIS_REPLY_STRING:
      out.type = RedisReply::Type::kString;
      out.text.assign(reply.str, reply.len);
      break;
    case REDIS_REPLY_STATUS:
      out.type = RedisReply::Type::kStatus;
      out.text.assign(reply.str, reply.len);
      break;
    case REDIS_REPLY_ARRAY:
      out.type = RedisReply::Type::kArray;
      for (std::size_t i = 0; i < reply.elements; ++i)
        out.elements.push_back(convert(*reply.element[i]));
      break;
    default:
      break;
  }
  return out;
}

int parse_int(std::string_view text, std::string_view what) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) {
    throw RedisError("redis URL: bad " + std::string(what) + " \"" + std::string(text) +
                     "\" (expected redis://host:port[/db])");
  }
  return value;
}

}  // namespace

std::string RedisAddress::describe() const { return host + ":" + std::to_string(port); }

RedisAddress parse_redis_url(std::string_view url) {
  constexpr std::string_view scheme = "redis://";
  if (url.substr(0, scheme.size()) != scheme) {
    throw RedisError("the cluster address must be a redis:// URL (redis://host:port)");
  }
  std::string_view rest = url.substr(scheme.size());
  RedisAddress out;
  if (auto at = rest.rfind('@'); at != std::string_view::npos) {
    std::string_view credentials = rest.substr(0, at);
    if (auto colon = credentials.find(':'); colon != std::string_view::npos) {
      out.password = std::string(credentials.substr(colon + 1));
    } else {
      out.password = std::string(credentials);
    }
    rest = rest.substr(at + 1);
  }
  if (auto slash = rest.find('/'); slash != std::string_view::npos) {
    if (slash + 1 < rest.size()) out.db = parse_int(rest.substr(slash + 1), "database");
    rest = rest.substr(0, slash);
  }
  if (auto colon = rest.rfind(':'); colon != std::string_view::npos) {
    out.port = parse_int(rest.substr(colon + 1), "port");
    rest = rest.substr(0, colon);
  }
  if (rest.empty()) throw RedisError("redis URL: no host (expected redis://host:port)");
  out.host = std::string(rest);
  return out;
}

RedisClient::RedisClient(RedisAddress address, std::chrono::milliseconds timeout)
    : address_(std::move(address)), timeout_(timeout) {
  connect();
}

RedisClient::~RedisClient() {
  if (context_) redisFree(context_);
}

void RedisClient::connect() {
  if (context_) {
    redisFree(context_);
    context_ = nullptr;
  }
  redisContext* context =
      redisConnectWithTimeout(address_.host.c_str(), address_.port, to_timeval(timeout_));
  if (!context || context->err) {
    const std::string cause = context ? context->errstr : "out of memory";
    if (context) redisFree(context);
    throw RedisError("redis " + address_.describe() + ": cannot connect: " + cause);
  }
  redisSetTimeout(context, to_timeval(timeout_));
  context_ = context;
  if (!address_.password.empty()) command({"AUTH", address_.password});
  if (address_.db != 0) command({"SELECT", std::to_string(address_.db)});
}

RedisReply RedisClient::command(const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  std::vector<std::size_t> lengths;
  argv.reserve(args.size());
  lengths.reserve(args.size());
  for (const std::string& arg : args) {
    argv.push_back(arg.data());
    lengths.push_back(arg.size());
  }
  // A connection that Redis closed while it sat idle (a restart, an idle timeout) fails on
  // its first use with EOF before the command ran: connect again and send it once more.
  for (int attempt = 0;; ++attempt) {
    if (!context_) connect();
    auto* reply = static_cast<redisReply*>(
        redisCommandArgv(context_, static_cast<int>(argv.size()), argv.data(), lengths.data()));
    if (!reply) {
      const bool closed_by_peer = context_->err == REDIS_ERR_EOF;
      const std::string cause = context_->errstr;
      redisFree(context_);
      context_ = nullptr;
      if (closed_by_peer && attempt == 0) continue;
      throw RedisError("redis " + address_.describe() + ": " + args.front() + " failed: " + cause);
    }
    std::unique_ptr<redisReply, decltype(&freeReplyObject)> owned(reply, freeReplyObject);
    if (reply->type == REDIS_REPLY_ERROR) {
      throw RedisError("redis " + address_.describe() + ": " + args.front() + ": " +
                       std::string(reply->str, reply->len));
    }
    return convert(*reply);
  }
}

RedisReply RedisClient::eval(std::string_view script, const std::vector<std::string>& keys,
                             const std::vector<std::string>& args) {
  std::vector<std::string> command_args = {"EVAL", std::string(script),
                                           std::to_string(keys.size())};
  command_args.insert(command_args.end(), keys.begin(), keys.end());
  command_args.insert(command_args.end(), args.begin(), args.end());
  return command(command_args);
}

}  // namespace parlor::server
