#include "server/trusted_proxy.h"

#include <array>
#include <charconv>
#include <stdexcept>

namespace parlor::server {

namespace ip = boost::asio::ip;

namespace {

constexpr std::string_view kBlanks = " \t";

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(kBlanks);
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(kBlanks);
  return text.substr(first, last - first + 1);
}

std::optional<ip::address> parse_address(std::string_view text) {
  if (text.empty()) return std::nullopt;
  boost::system::error_code ec;
  const ip::address address = ip::make_address(std::string(text), ec);
  if (ec) return std::nullopt;
  return address;
}

bool is_port(std::string_view text) {
  unsigned port = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, port);
  return !text.empty() && text.size() <= 5 && ec == std::errc() && ptr == end && port <= 65535;
}

// The address of one hop: 1.2.3.4, 1.2.3.4:80, 2001:db8::1, [2001:db8::1], [2001:db8::1]:80.
std::optional<ip::address> parse_hop(std::string_view hop) {
  if (hop.starts_with('[')) {
    const auto close = hop.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    const std::string_view rest = hop.substr(close + 1);
    if (!rest.empty() && !(rest.front() == ':' && is_port(rest.substr(1)))) return std::nullopt;
    auto address = parse_address(hop.substr(1, close - 1));
    if (!address || !address->is_v6()) return std::nullopt;
    return address;
  }
  const auto colon = hop.find(':');
  if (colon != std::string_view::npos && hop.find(':', colon + 1) == std::string_view::npos) {
    // One colon: an IPv4 address and a port (an IPv6 address has at least two).
    if (!is_port(hop.substr(colon + 1))) return std::nullopt;
    auto address = parse_address(hop.substr(0, colon));
    if (!address || !address->is_v4()) return std::nullopt;
    return address;
  }
  return parse_address(hop);
}

// Whether the first `prefix` bits of two addresses' bytes agree.
template <std::size_t N>
bool same_prefix(const std::array<unsigned char, N>& a, const std::array<unsigned char, N>& b,
                 unsigned prefix) {
  for (std::size_t i = 0; i < N && prefix > 0; ++i) {
    const unsigned bits = prefix >= 8 ? 8 : prefix;
    const auto mask = static_cast<unsigned char>(0xFFU << (8 - bits));
    if ((a[i] & mask) != (b[i] & mask)) return false;
    prefix -= bits;
  }
  return true;
}

bool in_network(const ProxyNetwork& network, const ip::address& address) {
  if (network.base.is_v4() && address.is_v4()) {
    return same_prefix(network.base.to_v4().to_bytes(), address.to_v4().to_bytes(), network.prefix);
  }
  if (network.base.is_v6() && address.is_v6()) {
    return same_prefix(network.base.to_v6().to_bytes(), address.to_v6().to_bytes(), network.prefix);
  }
  return false;
}

}  // namespace

ip::address canonical_address(const ip::address& address) {
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return ip::make_address_v4(ip::v4_mapped, address.to_v6());
  }
  return address;
}

std::optional<ProxyNetwork> parse_proxy_network(std::string_view text) {
  const auto slash = text.find('/');
  auto base = parse_address(text.substr(0, slash));
  if (!base) return std::nullopt;
  const unsigned bits = base->is_v4() ? 32 : 128;
  unsigned prefix = bits;
  if (slash != std::string_view::npos) {
    const std::string_view digits = text.substr(slash + 1);
    const auto* end = digits.data() + digits.size();
    auto [ptr, ec] = std::from_chars(digits.data(), end, prefix);
    if (digits.empty() || ec != std::errc() || ptr != end || prefix > bits) return std::nullopt;
  }
  // 10.0.0.5/24 is probably a typo for 10.0.0.0/24 or for 10.0.0.5: refused rather than
  // guessed.
  if (base->is_v4()) {
    const std::uint32_t host_bits = prefix >= 32 ? 0U : (0xFFFFFFFFU >> prefix);
    if ((base->to_v4().to_uint() & host_bits) != 0) return std::nullopt;
  } else {
    const auto bytes = base->to_v6().to_bytes();
    for (unsigned bit = prefix; bit < 128; ++bit) {
      if ((bytes[bit / 8] >> (7 - bit % 8)) & 1U) return std::nullopt;
    }
  }
  // A mapped IPv4 network (::ffff:10.0.0.0/104) is the IPv4 network, as peers are compared
  // in canonical form.
  if (base->is_v6() && base->to_v6().is_v4_mapped() && prefix >= 96) {
    return ProxyNetwork{canonical_address(*base), prefix - 96};
  }
  return ProxyNetwork{*base, prefix};
}

TrustedProxies::TrustedProxies(const std::vector<std::string>& specs) {
  for (const std::string& spec : specs) {
    auto network = parse_proxy_network(spec);
    if (!network) throw std::invalid_argument("not an address or a network: " + spec);
    networks_.push_back(*network);
  }
}

bool TrustedProxies::trusts(const ip::address& peer) const {
  const ip::address address = canonical_address(peer);
  for (const ProxyNetwork& network : networks_) {
    if (in_network(network, address)) return true;
  }
  return false;
}

std::optional<ip::address> last_forwarded_hop(std::string_view header) {
  const auto comma = header.rfind(',');
  const std::string_view hop =
      trim(comma == std::string_view::npos ? header : header.substr(comma + 1));
  auto address = parse_hop(hop);
  if (!address) return std::nullopt;
  return canonical_address(*address);
}

}  // namespace parlor::server
