#include "server/room/room_options.h"

namespace parlor::server {
namespace {

constexpr std::int64_t kMaxGraceSeconds = 86'400;
constexpr std::int64_t kMaxTurnSeconds = 3600;

std::string_view on_timeout_name(OnTimeout rule) {
  return rule == OnTimeout::kPass ? "pass" : "bot";
}

std::optional<OnTimeout> on_timeout_from(const Json& value) {
  if (value == "bot") return OnTimeout::kBot;
  if (value == "pass") return OnTimeout::kPass;
  return std::nullopt;
}

// A number of seconds from 0 to `max`, or an error naming the option.
std::optional<std::string> read_seconds(const Json& value, const char* name, std::int64_t max,
                                        std::chrono::seconds& out) {
  if (!value.is_number_integer() || value.get<std::int64_t>() < 0 ||
      value.get<std::int64_t>() > max) {
    return std::string("option \"") + name + "\" must be an integer from 0 to " +
           std::to_string(max) + " (seconds)";
  }
  out = std::chrono::seconds(value.get<std::int64_t>());
  return std::nullopt;
}

}  // namespace

Json room_options_json(const RoomOptions& options) {
  Json out = {{"private", options.is_private},
              {"grace", options.grace.count()},
              {"turn_seconds", options.turn_seconds.count()},
              {"on_timeout", on_timeout_name(options.on_timeout)}};
  if (options.seed) out["seed"] = *options.seed;
  if (options.rated) out["rated"] = true;
  if (options.locked) out["locked"] = true;
  return out;
}

RoomOptions room_options_from_json(const Json& stored) {
  RoomOptions out;
  if (!stored.is_object()) return out;
  // This server wrote the record, but a store outlives versions and can be edited by hand: a
  // value of another type or out of range keeps its default rather than stop the recovery
  // (nlohmann's value() throws on a type it cannot convert).
  if (auto it = stored.find("private"); it != stored.end() && it->is_boolean()) {
    out.is_private = it->get<bool>();
  }
  if (auto it = stored.find("grace"); it != stored.end()) {
    (void)read_seconds(*it, "grace", kMaxGraceSeconds, out.grace);
  }
  if (auto it = stored.find("turn_seconds"); it != stored.end()) {
    (void)read_seconds(*it, "turn_seconds", kMaxTurnSeconds, out.turn_seconds);
  }
  if (auto it = stored.find("on_timeout"); it != stored.end()) {
    out.on_timeout = on_timeout_from(*it).value_or(OnTimeout::kBot);
  }
  if (auto it = stored.find("seed"); it != stored.end() && it->is_number_unsigned()) {
    out.seed = it->get<std::uint64_t>();
  }
  if (auto it = stored.find("rated"); it != stored.end() && it->is_boolean()) {
    out.rated = it->get<bool>();
  }
  if (auto it = stored.find("locked"); it != stored.end() && it->is_boolean()) {
    out.locked = it->get<bool>();
  }
  return out;
}

std::optional<std::string> extract_room_options(Json& options, bool allow_seed, RoomOptions& out) {
  if (!options.is_object()) return std::nullopt;
  if (auto it = options.find("seed"); it != options.end()) {
    if (!allow_seed) return "the \"seed\" option is only accepted by a server started with --dev";
    if (!it->is_number_unsigned()) return "option \"seed\" must be a non-negative integer";
    out.seed = it->get<std::uint64_t>();
    options.erase(it);
  }
  if (auto it = options.find("private"); it != options.end()) {
    if (!it->is_boolean()) return "option \"private\" must be true or false";
    out.is_private = it->get<bool>();
    options.erase(it);
  }
  if (auto it = options.find("grace"); it != options.end()) {
    if (auto error = read_seconds(*it, "grace", kMaxGraceSeconds, out.grace)) return error;
    options.erase(it);
  }
  if (auto it = options.find("turn_seconds"); it != options.end()) {
    if (auto error = read_seconds(*it, "turn_seconds", kMaxTurnSeconds, out.turn_seconds)) {
      return error;
    }
    options.erase(it);
  }
  if (auto it = options.find("on_timeout"); it != options.end()) {
    auto rule = on_timeout_from(*it);
    if (!rule) return R"(option "on_timeout" must be "bot" or "pass")";
    out.on_timeout = *rule;
    options.erase(it);
  }
  return std::nullopt;
}

}  // namespace parlor::server
