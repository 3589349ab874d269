#include "games/core/game_info.h"

namespace parlor {

Json game_info_json(const GameInfo& info) {
  return {{"kind", info.kind},
          {"name", info.name},
          {"description", info.description},
          {"rules", info.rules_url},
          {"min_seats", info.min_seats},
          {"max_seats", info.max_seats},
          {"default_seats", info.default_seats},
          {"options", options_schema_json(info.options)}};
}

}  // namespace parlor
