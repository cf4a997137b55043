// Scheduler: which stream fills next, without sockets or threads: round-robin fairness, the
// in-flight budget, credit, deferral, removal while fills are in flight.
#include "transport/daemon/scheduler.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace textfeed::transport {
namespace {

// Starts fills while the scheduler names a stream; returns the streams in the order started.
std::vector<uint64_t> start_all(Scheduler& s) {
  std::vector<uint64_t> order;
  s.begin_round();
  while (std::optional<uint64_t> id = s.next()) {
    s.fill_started(*id);
    order.push_back(*id);
  }
  return order;
}

TEST(SchedulerTest, StreamsTakeTurnsWhateverTheirCredit) {
  Scheduler s(100);
  for (uint64_t id : {1, 2, 3}) s.add_stream(id);
  s.credit(1, 5);
  s.credit(2, 2);
  s.credit(3, 3);
  EXPECT_EQ(start_all(s), (std::vector<uint64_t>{1, 2, 3, 1, 2, 3, 1, 3, 1, 1}));
  EXPECT_EQ(s.in_flight(), 10u);
  EXPECT_EQ(s.credits(1), 0u);
}

TEST(SchedulerTest, TheBudgetBoundsFillsInFlightAndTheTurnGoesOnWhereItStopped) {
  Scheduler s(2);
  for (uint64_t id : {1, 2, 3}) {
    s.add_stream(id);
    s.credit(id, 4);
  }
  EXPECT_EQ(start_all(s), (std::vector<uint64_t>{1, 2}));
  EXPECT_FALSE(s.next().has_value()) << "the budget is spent";
  s.fill_finished(1);
  EXPECT_EQ(start_all(s), (std::vector<uint64_t>{3}))
      << "stream 3's turn, though stream 1 finished";
  s.fill_finished(2);
  s.fill_finished(3);
  EXPECT_EQ(start_all(s), (std::vector<uint64_t>{1, 2}));
  // Over many rounds every stream gets the same share.
  std::map<uint64_t, int> fills;
  for (int round = 0; round < 30; ++round) {
    for (uint64_t id : {1, 2, 3}) {
      while (s.in_flight(id) > 0) s.fill_finished(id);
      s.credit(id, 1);
    }
    for (uint64_t id : start_all(s)) ++fills[id];
  }
  EXPECT_EQ(fills[1], 20);
  EXPECT_EQ(fills[2], 20);
  EXPECT_EQ(fills[3], 20);
}

TEST(SchedulerTest, AStreamWithoutCreditIsNeverPicked) {
  Scheduler s(8);
  s.add_stream(7);
  s.add_stream(9);
  s.credit(9, 3);
  EXPECT_EQ(start_all(s), (std::vector<uint64_t>{9, 9, 9}));
  EXPECT_EQ(s.credits(7), 0u);
  EXPECT_FALSE(s.next().has_value());
  s.credit(7, 1);
  EXPECT_EQ(s.next(), 7u);
  s.credit(42, 5);  // an unknown stream: nothing to credit
  EXPECT_EQ(s.credits(42), 0u);
}

TEST(SchedulerTest, ADeferredStreamWaitsForTheNextRound) {
  Scheduler s(8);
  s.add_stream(1);
  s.add_stream(2);
  s.credit(1, 2);
  s.credit(2, 2);
  s.begin_round();
  EXPECT_EQ(s.next(), 1u);
  s.defer(1);  // its buffers are all in use
  EXPECT_EQ(s.next(), 2u);
  s.fill_started(2);
  s.defer(2);
  EXPECT_FALSE(s.next().has_value());
  s.begin_round();
  EXPECT_EQ(s.next(), 1u);
}

TEST(SchedulerTest, ARemovedStreamHoldsItsBudgetUntilItsFillsFinish) {
  Scheduler s(3);
  for (uint64_t id : {1, 2}) {
    s.add_stream(id);
    s.credit(id, 5);
  }
  EXPECT_EQ(start_all(s), (std::vector<uint64_t>{1, 2, 1}));
  s.remove_stream(1);  // mid-flight: its two fills still run
  EXPECT_EQ(s.credits(1), 0u);
  EXPECT_EQ(s.in_flight(), 3u);
  EXPECT_FALSE(s.next().has_value());
  s.fill_finished(1);
  EXPECT_EQ(start_all(s), (std::vector<uint64_t>{2})) << "never the removed stream";
  s.fill_finished(1);
  EXPECT_EQ(s.in_flight(1), 0u);
  EXPECT_EQ(start_all(s), (std::vector<uint64_t>{2}));
  s.credit(1, 4);  // a late Credit for the ended stream is ignored
  EXPECT_EQ(s.credits(1), 0u);
  s.remove_stream(2);
  EXPECT_FALSE(s.next().has_value());
  EXPECT_EQ(s.in_flight(), 3u);
}

}  // namespace
}  // namespace textfeed::transport
