#include "server/engine/engine_directory.h"

#include <map>
#include <mutex>
#include <stdexcept>

#include "games/external/external_game.h"
#include "games/registry.h"
#include "server/config.h"
#include "server/log.h"

namespace parlor::server {
namespace {

std::mutex directory_mutex;
std::map<std::string, std::shared_ptr<EngineClient>, std::less<>>& directory() {
  static std::map<std::string, std::shared_ptr<EngineClient>, std::less<>> clients;
  return clients;
}

}  // namespace

void register_engines(const std::vector<EngineFlag>& engines, const net::any_io_executor& executor,
                      EngineClientOptions options) {
  struct Checked {
    std::string name;
    EngineUrl url;
    external::EngineConfig config;
  };
  std::vector<Checked> checked;
  for (const EngineFlag& flag : engines) {
    std::string error;
    auto url = parse_engine_url(flag.url, error);
    if (!url) throw std::runtime_error("engine " + flag.name + " at " + flag.url + ": " + error);
    checked.push_back({flag.name, *url, fetch_engine_config(flag.name, *url, options)});
  }
  for (Checked& engine : checked) {
    auto config = std::make_shared<const external::EngineConfig>(std::move(engine.config));
    std::string error;
    if (!register_game(external::external_game_info(engine.name, config), error)) {
      throw std::runtime_error("engine " + engine.name + ": " + error);
    }
    log_info("engine " + engine.name + " at " + engine.url.text + ": " +
             std::to_string(config->player_count) + " players, deck " + config->deck);
    std::lock_guard lock(directory_mutex);
    directory()[engine.name] =
        std::make_shared<EngineClient>(executor, engine.name, engine.url, options);
  }
}

void drop_engines() {
  std::lock_guard lock(directory_mutex);
  directory().clear();
}

std::shared_ptr<EngineClient> find_engine(std::string_view kind) {
  std::lock_guard lock(directory_mutex);
  auto it = directory().find(kind);
  return it == directory().end() ? nullptr : it->second;
}

}  // namespace parlor::server
