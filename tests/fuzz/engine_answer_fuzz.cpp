// Fuzz target: an external engine's HTTP answer (untrusted: any process that answers on the
// engine's port) through what the server does with it: read_engine_answer() on the status and
// body, then parse_engine_config() for a /config answer, or ExternalGame::apply() of the
// answered call for /init and /next. The input's first byte picks the call, its second the
// HTTP status; the rest is the body. The oracle: nothing crashes, a refused answer changes
// nothing, and the game after an accepted one serializes, clones and asks its next call.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "games/external/external_game.h"
#include "server/engine/engine_answer.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

using parlor::Json;
using parlor::Seat;
using parlor::external::ExternalGame;
using parlor::fuzz::require;
using parlor::server::EngineReply;

// The configuration of engines/crazy-eights with two players.
std::shared_ptr<const parlor::external::EngineConfig> two_player_config() {
  static const auto config = [] {
    std::string error;
    auto parsed =
        parlor::external::parse_engine_config(Json::parse(R"({"deck":"52","player_count":2,
          "stacks":[{"id":"pile","label":"Pile","orientation":"horizontal",
                     "max-size":52,"alignment":"center"}],
          "info":[{"id":"stock","label":"Stock","value":52}]})"),
                                              error);
    require(parsed.has_value(), "the fixed engine config is refused: " + error);
    return std::make_shared<const parlor::external::EngineConfig>(*parsed);
  }();
  return config;
}

void check_game(const ExternalGame& game) {
  for (Seat seat = parlor::kSpectator; seat < game.seat_count(); ++seat) {
    (void)game.view(seat).dump();
    (void)game.prompt(seat).dump();
    (void)game.legal_moves(seat).dump();
  }
  (void)game.full_state().dump();
  if (game.finished()) (void)game.result().dump();
  if (auto call = game.waiting_call()) (void)call->body.size();
  require(game.clone()->state_hash() == game.state_hash(), "a clone hashes differently");
}

// Applies the answer to the call `game` waits for, and checks the contract.
void answer_call(ExternalGame& game, const EngineReply& reply) {
  const auto call = game.waiting_call();
  require(call.has_value(), "the game waits for no engine call");
  if (reply.outcome != EngineReply::Outcome::kAnswered) return;
  const std::uint64_t hash = game.state_hash();
  const std::string before = game.full_state().dump();
  const parlor::MoveResult result =
      game.apply(call->seat, ExternalGame::answered(*call, reply.body));
  if (!result.ok()) {
    require(game.state_hash() == hash && game.full_state().dump() == before,
            "a refused engine answer changed the game");
    return;
  }
  (void)result.events_text();
  check_game(game);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  parlor::fuzz::FuzzInput in(data, size);
  const std::size_t call = in.pick(3);
  constexpr unsigned kStatuses[] = {200, 200, 400, 500};
  const unsigned status = kStatuses[in.pick(4)];
  const EngineReply reply = parlor::server::read_engine_answer(status, in.rest());
  if (reply.outcome == EngineReply::Outcome::kRefused) {
    require(!reply.message.empty(), "a refusal without a message");
  }

  if (call == 0) {  // GET /config
    if (reply.outcome != EngineReply::Outcome::kAnswered) return 0;
    std::string error;
    const auto config = parlor::external::parse_engine_config(reply.body, error);
    if (!config) {
      require(!error.empty(), "a config refused without a reason");
      return 0;
    }
    ExternalGame game("fuzz", std::make_shared<const parlor::external::EngineConfig>(*config), 1);
    check_game(game);
    return 0;
  }

  ExternalGame game("fuzz", two_player_config(), 7);
  if (call == 2) {  // POST /next with a null action, after this init
    parlor::server::EngineReply init;
    init.outcome = EngineReply::Outcome::kAnswered;
    init.body = Json::parse(
        R"({"players":[{"id":"seat0","team":0},{"id":"seat1","team":1}],"state":{"phase":"deal"}})");
    answer_call(game, init);
    require(game.waiting_call().has_value(), "the fixed init answer was refused");
  }
  answer_call(game, reply);  // GET /init?players=... or POST /next
  return 0;
}
