#include "protocol/commands.h"

#include <iterator>

namespace parlor::protocol {
namespace {

// In the order of the alternatives of Command.
constexpr std::string_view kCommandNames[] = {
    "hello",
    "list_games",
    "list_rooms",
    "create_room",
    "join_room",
    "watch_room",
    "leave_room",
    "add_bot",
    "start",
    "chat",
    "ping",
    "move",
    "legal_moves",
    "get_replay",
    "subscribe_lobby",
    "unsubscribe_lobby",
    "quick_play",
    "cancel_quick_play",
    "rename",
    "revoke_token",
    "remove_seat",
    "lock_room",
    "unlock_room",
    "mute",
    "unmute",
};
static_assert(std::size(kCommandNames) == std::variant_size_v<Command>,
              "every Command alternative needs its wire name");

}  // namespace

std::string_view command_name(const Command& command) { return kCommandNames[command.index()]; }

}  // namespace parlor::protocol
