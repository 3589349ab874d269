// Resolving a request target to a file under the static directory, safely.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace parlor::server {

// The file a GET for `target` (path plus optional query) should serve, or nullopt when the
// target tries to leave `root` (.., encoded dots, backslashes, NUL) or is malformed.
// "/" and directories map to index.html.
std::optional<std::string> resolve_static_path(std::string_view root, std::string_view target);

std::string_view mime_type(std::string_view path);

}  // namespace parlor::server
