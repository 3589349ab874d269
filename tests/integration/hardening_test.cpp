// What the server answers at the edges of the protocol: requests dropped by the rate limit
// still carry their `re`; handshakes and frames outside RFC 6455 or the protocol get an HTTP
// status or a close code with a reason; refusals and failed connections are counted.
#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <poll.h>

#include <array>
#include <set>
#include <string>
#include <thread>

#include "tests/support/server_fixture.h"

namespace parlor::testing {
namespace {

namespace asio = boost::asio;

TEST(Hardening, RateLimitedRepliesCarryTheRequestsRe) {
  auto config = ServerFixture::test_config();
  config.rate_per_second = 1;
  config.rate_burst = 3;
  config.rate_strikes_before_close = 1000;
  ServerFixture server(config);
  auto client = server.player("alice");
  std::set<std::string> sent;
  for (int i = 0; i < 20; ++i) {
    const std::string id = "r" + std::to_string(i);
    // The id comes last, after a nested object holding an "id" of its own: only the
    // top-level one is the request's.
    client->send_text(R"({"type":"ping","x":{"id":"nested","s":"\"id\":1"},"id":")" + id + R"("})");
    sent.insert(id);
  }
  std::set<std::string> answered;
  int limited = 0;
  while (answered.size() < sent.size()) {
    auto frame = client->next(std::chrono::seconds(5));
    ASSERT_TRUE(frame) << "replies for " << answered.size() << " of " << sent.size();
    ASSERT_TRUE(frame->contains("re")) << frame->dump();
    const std::string re = (*frame)["re"].get<std::string>();
    EXPECT_TRUE(sent.contains(re)) << frame->dump();
    EXPECT_TRUE(answered.insert(re).second) << "two replies for " << re;
    if ((*frame).value("code", "") == "rate_limited") ++limited;
  }
  EXPECT_GE(limited, 10);
  // An integer id is echoed as an integer; a request without id gets no re.
  client->send_text(R"({"type":"ping","id":12345})");
  client->send_text(R"({"type":"ping"})");
  auto with_number = client->next();
  ASSERT_TRUE(with_number);
  EXPECT_EQ((*with_number)["code"], "rate_limited");
  EXPECT_EQ((*with_number)["re"], 12345);
  auto without = client->next();
  ASSERT_TRUE(without);
  EXPECT_EQ((*without)["code"], "rate_limited");
  EXPECT_FALSE(without->contains("re"));
}

}  // namespace
}  // namespace parlor::testing
