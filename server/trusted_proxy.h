// Clients behind a reverse proxy (nginx, HAProxy: deploy/) reach the server from the proxy's
// address; the proxy appends the address it saw to X-Forwarded-For. The server believes that
// header only from a peer named by --trusted-proxy, and then only its last hop: every earlier
// hop was written by the client (or by proxies nobody here vouches for), so a client could
// put any address there. From any other peer the header is ignored.
#pragma once

#include <boost/asio/ip/address.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace parlor::server {

// One --trusted-proxy value: an address (10.0.0.5, ::1) or a network in CIDR form
// (10.0.0.0/24, fd00::/8).
struct ProxyNetwork {
  boost::asio::ip::address base;
  unsigned prefix = 0;  // leading bits that must match
};

// nullopt for anything else (a host name, a bad prefix, bits set past the prefix).
std::optional<ProxyNetwork> parse_proxy_network(std::string_view text);

// An address as the limiter and the logs key it: an IPv4 address mapped into IPv6 (a
// dual-stack socket's ::ffff:203.0.113.7) is the IPv4 address.
boost::asio::ip::address canonical_address(const boost::asio::ip::address& address);

class TrustedProxies {
 public:
  TrustedProxies() = default;
  // `specs` are checked values (parse_proxy_network); one that does not parse throws
  // std::invalid_argument.
  explicit TrustedProxies(const std::vector<std::string>& specs);

  bool empty() const { return networks_.empty(); }
  bool trusts(const boost::asio::ip::address& peer) const;

 private:
  std::vector<ProxyNetwork> networks_;
};

// The client address a trusted proxy forwarded: the last hop of X-Forwarded-For. `header`
// holds every X-Forwarded-For field of the request in order, joined with ", " (several
// fields are one comma-separated list, RFC 9110 5.3). The hop may be an IPv4 address, an
// IPv6 address (bare or in brackets) or either with a port (1.2.3.4:5678, [::1]:5678).
// nullopt when the header is empty or its last hop is not an address (`unknown`, an
// obfuscated identifier, garbage): the proxy did not say who the client is.
std::optional<boost::asio::ip::address> last_forwarded_hop(std::string_view header);

}  // namespace parlor::server
