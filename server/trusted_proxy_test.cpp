#include "server/trusted_proxy.h"

#include <gtest/gtest.h>

namespace parlor::server {
namespace {

std::string hop(std::string_view header) {
  const auto address = last_forwarded_hop(header);
  return address ? address->to_string() : "none";
}

bool trusts(const std::vector<std::string>& specs, const char* peer) {
  return TrustedProxies(specs).trusts(boost::asio::ip::make_address(peer));
}

TEST(ForwardedFor, TheLastHopIsTheOneTheProxyAppended) {
  EXPECT_EQ(hop("203.0.113.7"), "203.0.113.7");
  // Whatever the client wrote comes first; the proxy appended the last one.
  EXPECT_EQ(hop("1.1.1.1, 10.0.0.9, 203.0.113.7"), "203.0.113.7");
  EXPECT_EQ(hop("1.1.1.1,203.0.113.7"), "203.0.113.7");
  EXPECT_EQ(hop("  203.0.113.7\t"), "203.0.113.7");
  // Several header fields arrive joined in order: still the last.
  EXPECT_EQ(hop("6.6.6.6, 203.0.113.7, 198.51.100.2"), "198.51.100.2");
  // Garbage the client put before the proxy's hop does not matter.
  EXPECT_EQ(hop("not an address, <script>, 203.0.113.7"), "203.0.113.7");
}

TEST(ForwardedFor, IPv6HopsBareBracketedOrWithAPort) {
  EXPECT_EQ(hop("2001:db8::1"), "2001:db8::1");
  EXPECT_EQ(hop("1.1.1.1, [2001:db8::1]"), "2001:db8::1");
  EXPECT_EQ(hop("[2001:db8::1]:51234"), "2001:db8::1");
  EXPECT_EQ(hop("203.0.113.7:51234"), "203.0.113.7");
  // A dual-stack proxy may write an IPv4 client as a mapped IPv6 address: one client, one key.
  EXPECT_EQ(hop("::ffff:203.0.113.7"), "203.0.113.7");
}

TEST(ForwardedFor, AMalformedLastHopNamesNoClient) {
  for (const char* header : {"",
                             " ",
                             ",",
                             "203.0.113.7,",
                             "203.0.113.7, ",
                             "unknown",
                             "_hidden",
                             "example.com",
                             "203.0.113",
                             "203.0.113.256",
                             "203.0.113.7:",
                             "203.0.113.7:99999",
                             "203.0.113.7:80x",
                             "[2001:db8::1",
                             "[2001:db8::1]x",
                             "[2001:db8::1]:",
                             "[203.0.113.7]",
                             "2001:db8::g",
                             "203.0.113.7 198.51.100.2",
                             "for=203.0.113.7"}) {
    EXPECT_EQ(hop(header), "none") << '"' << header << '"';
  }
}

TEST(TrustedProxies, AddressesAndNetworks) {
  EXPECT_TRUE(trusts({"127.0.0.1"}, "127.0.0.1"));
  EXPECT_FALSE(trusts({"127.0.0.1"}, "127.0.0.2"));
  EXPECT_TRUE(trusts({"10.1.0.0/16"}, "10.1.255.3"));
  EXPECT_FALSE(trusts({"10.1.0.0/16"}, "10.2.0.1"));
  EXPECT_TRUE(trusts({"10.0.0.5", "fd00::/8"}, "fd12:3456::1"));
  EXPECT_FALSE(trusts({"fd00::/8"}, "fe80::1"));
  EXPECT_TRUE(trusts({"0.0.0.0/0"}, "198.51.100.2"));
  EXPECT_FALSE(trusts({"0.0.0.0/0"}, "2001:db8::1"));  // a family matches only itself
  EXPECT_TRUE(trusts({"10.0.0.0/31"}, "10.0.0.1"));
  EXPECT_FALSE(trusts({"10.0.0.0/31"}, "10.0.0.2"));
  // A dual-stack socket reports an IPv4 proxy as a mapped address.
  EXPECT_TRUE(trusts({"10.0.0.5"}, "::ffff:10.0.0.5"));
  EXPECT_TRUE(trusts({"::ffff:10.0.0.0/104"}, "10.0.0.7"));
  EXPECT_FALSE(TrustedProxies().trusts(boost::asio::ip::make_address("127.0.0.1")));
  EXPECT_TRUE(TrustedProxies().empty());
}

TEST(TrustedProxies, BadSpecsAreRefused) {
  for (const char* bad : {"", "localhost", "10.0.0.5/24", "10.0.0.0/33", "10.0.0.0/", "10.0.0.0/x",
                          "10.0.0.0/-1", "fd00::1/8", "::/129", "1.2.3.4/08a", "/8"}) {
    EXPECT_FALSE(parse_proxy_network(bad)) << bad;
  }
  EXPECT_THROW(TrustedProxies({"localhost"}), std::invalid_argument);
  const auto v6 = parse_proxy_network("2001:db8::/32");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->prefix, 32U);
}

}  // namespace
}  // namespace parlor::server
