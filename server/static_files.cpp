#include "server/static_files.h"

#include <algorithm>
#include <cctype>

namespace parlor::server {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> percent_decode(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '%') {
      if (i + 2 >= in.size()) return std::nullopt;
      const int hi = hex_value(in[i + 1]);
      const int lo = hex_value(in[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += in[i];
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> resolve_static_path(std::string_view root, std::string_view target) {
  target = target.substr(0, target.find_first_of("?#"));
  if (target.empty() || target.front() != '/') return std::nullopt;
  auto decoded = percent_decode(target);
  if (!decoded) return std::nullopt;
  const std::string& path = *decoded;
  if (path.find('\0') != std::string::npos || path.find('\\') != std::string::npos) {
    return std::nullopt;
  }
  // Reject any ".." segment (after decoding, so %2e%2e is caught too).
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    const std::string_view segment(path.data() + start, end - start);
    if (segment == "..") return std::nullopt;
    start = end + 1;
  }
  std::string out(root);
  if (!out.empty() && out.back() == '/') out.pop_back();
  out += path;
  if (out.back() == '/') out += "index.html";
  return out;
}

std::string_view mime_type(std::string_view path) {
  const auto dot = path.rfind('.');
  if (dot == std::string_view::npos) return "application/octet-stream";
  std::string ext(path.substr(dot + 1));
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == "html" || ext == "htm") return "text/html; charset=utf-8";
  if (ext == "js" || ext == "mjs") return "text/javascript; charset=utf-8";
  if (ext == "css") return "text/css; charset=utf-8";
  if (ext == "json" || ext == "map") return "application/json";
  if (ext == "svg") return "image/svg+xml";
  if (ext == "png") return "image/png";
  if (ext == "jpg" || ext == "jpeg") return "image/jpeg";
  if (ext == "gif") return "image/gif";
  if (ext == "ico") return "image/vnd.microsoft.icon";
  if (ext == "webp") return "image/webp";
  if (ext == "woff2") return "font/woff2";
  if (ext == "woff") return "font/woff";
  if (ext == "txt") return "text/plain; charset=utf-8";
  if (ext == "wasm") return "application/wasm";
  return "application/octet-stream";
}

}  // namespace parlor::server
