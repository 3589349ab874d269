#include "bots/sim/variants.h"

namespace parlor::sim {

std::vector<NamedVariant> named_variants(const GameInfo& info) {
  std::vector<NamedVariant> out;
  for (const OptionSpec& spec : info.options) {
    if (!spec.variant) continue;
    if (spec.type == OptionSpec::Type::kChoice) {
      for (const OptionChoice& choice : spec.choices) {
        if (Json(choice.value) == spec.default_value) continue;
        out.push_back({choice.value, {{spec.name, choice.value}}, choice.description});
      }
    } else if (spec.type == OptionSpec::Type::kBoolean) {
      const bool value = !spec.default_value.get<bool>();
      out.push_back({spec.name, {{spec.name, value}}, spec.description});
    }
    // An integer option is a setting (deals, target), not a named variant.
  }
  return out;
}

const NamedVariant* find_variant(const std::vector<NamedVariant>& variants, std::string_view name) {
  for (const NamedVariant& v : variants) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

}  // namespace parlor::sim
