// parlor-server's config file (--config FILE): one setting a line, `KEY = VALUE`, where KEY
// is a long flag's name without its dashes (`max-queue-messages = 64`). Blank lines and lines
// whose first non-blank character is `#` are skipped. The value is the rest of the line with
// the blanks around it removed; there is no quoting and no trailing comment, so a value may
// hold `#`, `=` and blanks as they are (a password in a --store URL). This file only splits
// lines; which keys exist and what their values may be is config.cpp's (the flags' table).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parlor::server {

struct ConfigFileLine {
  int line = 0;  // 1-based, for messages
  std::string key;
  std::string value;
};

// Splits `text` into settings. On a line that is not `KEY = VALUE` returns nullopt and
// `error` = "NAME:LINE: what is wrong", NAME being how the file is named in messages.
std::optional<std::vector<ConfigFileLine>> parse_config_file_text(std::string_view text,
                                                                  const std::string& name,
                                                                  std::string& error);

// Reads and splits the file at `path`; an unreadable file is an error naming it.
std::optional<std::vector<ConfigFileLine>> read_config_file(const std::string& path,
                                                            std::string& error);

}  // namespace parlor::server
