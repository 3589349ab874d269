#include "games/core/options.h"

#include <limits>

namespace parlor {

OptionSpec OptionSpec::integer(std::string name, std::int64_t default_value, std::int64_t min,
                               std::int64_t max, std::string description) {
  OptionSpec spec;
  spec.name = std::move(name);
  spec.type = Type::kInteger;
  spec.default_value = default_value;
  spec.min = min;
  spec.max = max;
  spec.description = std::move(description);
  return spec;
}

OptionSpec OptionSpec::choice(std::string name, std::vector<OptionChoice> choices,
                              std::string description) {
  OptionSpec spec;
  spec.name = std::move(name);
  spec.type = Type::kChoice;
  spec.default_value = choices.front().value;
  spec.choices = std::move(choices);
  spec.description = std::move(description);
  spec.variant = true;
  return spec;
}

OptionSpec OptionSpec::boolean(std::string name, bool default_value, std::string description) {
  OptionSpec spec;
  spec.name = std::move(name);
  spec.type = Type::kBoolean;
  spec.default_value = default_value;
  spec.description = std::move(description);
  return spec;
}

Json options_schema_json(const std::vector<OptionSpec>& specs) {
  Json out = Json::object();
  for (const OptionSpec& spec : specs) {
    Json entry = {{"default", spec.default_value}, {"description", spec.description}};
    switch (spec.type) {
      case OptionSpec::Type::kInteger:
        entry["type"] = "integer";
        entry["min"] = spec.min;
        entry["max"] = spec.max;
        break;
      case OptionSpec::Type::kChoice: {
        entry["type"] = "choice";
        Json choices = Json::array();
        for (const OptionChoice& c : spec.choices) {
          choices.push_back({{"value", c.value}, {"description", c.description}});
        }
        entry["choices"] = std::move(choices);
        break;
      }
      case OptionSpec::Type::kBoolean:
        entry["type"] = "boolean";
        break;
    }
    entry["variant"] = spec.variant;
    out[spec.name] = std::move(entry);
  }
  return out;
}

namespace {

bool check_value(const OptionSpec& spec, const Json& value, std::string& error) {
  switch (spec.type) {
    case OptionSpec::Type::kInteger: {
      // Type first, then range, then get<>: get<int64_t>() on 1e300 or 2^64-1 is not a number.
      if (!value.is_number_integer()) {
        error = "option \"" + spec.name + "\" must be an integer";
        return false;
      }
      bool in_range;
      if (value.is_number_unsigned()) {
        const auto v = value.get<std::uint64_t>();
        in_range = v <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) &&
                   static_cast<std::int64_t>(v) >= spec.min &&
                   static_cast<std::int64_t>(v) <= spec.max;
      } else {
        const auto v = value.get<std::int64_t>();
        in_range = v >= spec.min && v <= spec.max;
      }
      if (!in_range) {
        error = "option \"" + spec.name + "\" must be between " + std::to_string(spec.min) +
                " and " + std::to_string(spec.max);
        return false;
      }
      return true;
    }
    case OptionSpec::Type::kChoice: {
      if (value.is_string()) {
        for (const OptionChoice& c : spec.choices) {
          if (c.value == value.get_ref<const std::string&>()) return true;
        }
      }
      std::string allowed;
      for (const OptionChoice& c : spec.choices) {
        allowed += (allowed.empty() ? "\"" : ", \"") + c.value + "\"";
      }
      error = "option \"" + spec.name + "\" must be one of " + allowed;
      return false;
    }
    case OptionSpec::Type::kBoolean:
      if (!value.is_boolean()) {
        error = "option \"" + spec.name + "\" must be true or false";
        return false;
      }
      return true;
  }
  return false;
}

}  // namespace

std::optional<Json> normalize_options(const std::vector<OptionSpec>& specs, const Json& given,
                                      std::string& error) {
  if (!given.is_null() && !given.is_object()) {
    error = "\"options\" must be an object";
    return std::nullopt;
  }
  Json out = Json::object();
  if (given.is_object()) {
    for (const auto& [key, value] : given.items()) {
      const OptionSpec* spec = nullptr;
      for (const OptionSpec& s : specs) {
        if (s.name == key) spec = &s;
      }
      if (!spec) {
        // Never echo an arbitrarily long key back.
        error = "unknown option \"" + key.substr(0, 64) + "\"";
        return std::nullopt;
      }
      if (!check_value(*spec, value, error)) return std::nullopt;
      out[key] = value;
    }
  }
  for (const OptionSpec& spec : specs) {
    if (!out.contains(spec.name)) out[spec.name] = spec.default_value;
  }
  return out;
}

std::int64_t option_int(const Json& options, const char* name) {
  return options.at(name).get<std::int64_t>();
}

const std::string& option_string(const Json& options, const char* name) {
  return options.at(name).get_ref<const std::string&>();
}

}  // namespace parlor
