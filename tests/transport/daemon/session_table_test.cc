// SessionTable: peers, liveness and held Hellos, on a FakeClock: a silent client is dropped once
// its timeout has passed and a live one is not, with no sleep.
#include "transport/daemon/session_table.h"

#include <gtest/gtest.h>

#include "tests/transport/fake_clock.h"

namespace textfeed::transport {
namespace {

using namespace std::chrono_literals;

TEST(SessionTableTest, ASilentClientIsDroppedAfterItsTimeoutAndALiveOneIsNot) {
  FakeClock clock;
  SessionTable table;
  const auto timeout = 1000ms;
  table.touch("silent", clock.now()).name = "quiet rank";
  table.touch("live", clock.now());
  clock.advance(600ms);
  table.touch("live", clock.now());  // a heartbeat
  EXPECT_TRUE(table.silent_peers(clock.now(), timeout).empty());
  clock.advance(400ms);
  EXPECT_TRUE(table.silent_peers(clock.now(), timeout).empty())
      << "exactly the timeout is not past it";
  clock.advance(1ms);
  EXPECT_EQ(table.silent_peers(clock.now(), timeout), std::vector<std::string>{"silent"});
  EXPECT_EQ(table.describe("silent"), "'quiet rank'");
  EXPECT_TRUE(table.forget_peer("silent", clock.now()).empty()) << "it had no stream";
  EXPECT_EQ(table.clients(), 1u);
  EXPECT_EQ(table.describe("silent"), "a client");
  clock.advance(599ms);
  EXPECT_TRUE(table.silent_peers(clock.now(), timeout).empty())
      << "the live client's timeout runs from its heartbeat";
  clock.advance(2ms);
  EXPECT_EQ(table.silent_peers(clock.now(), timeout), std::vector<std::string>{"live"});
}

TEST(SessionTableTest, AHeartbeatIsDueAfterAnIntervalWithoutTraffic) {
  FakeClock clock;
  SessionTable table;
  table.touch("a", clock.now());
  table.touch("b", clock.now());
  table.sent_to("a", clock.now());
  table.sent_to("b", clock.now());
  clock.advance(150ms);
  table.sent_to("b", clock.now());  // a batch went to b
  clock.advance(50ms);
  EXPECT_EQ(table.heartbeats_due(clock.now(), 200ms), std::vector<std::string>{"a"});
  table.sent_to("nobody", clock.now());  // an unknown peer is not made known
  EXPECT_EQ(table.clients(), 2u);
}

TEST(SessionTableTest, AReconnectFindsTheEarlierConnectionsOfItsSession) {
  FakeClock clock;
  SessionTable table;
  table.touch("first", clock.now()).session = 7;
  table.touch("other", clock.now()).session = 8;
  table.touch("second", clock.now()).session = 7;
  EXPECT_EQ(table.other_connections("second", 7), std::vector<std::string>{"first"});
  EXPECT_FALSE(table.session_has_running_fills(7)) << "no ended stream";
  table.hold_hello("second", 7);
  EXPECT_EQ(table.release_hellos(), std::vector<std::string>{"second"});
  EXPECT_TRUE(table.release_hellos().empty());
}

}  // namespace
}  // namespace textfeed::transport
