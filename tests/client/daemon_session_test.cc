// DaemonSession on a FakeClock against a scripted daemon (no socket, no thread, no sleep): the
// silence that makes a loss, the back-off schedule and its cap, the give-up after
// reconnect_timeout (and none while another producer is up), and what a reopen's kOverloaded and
// kNotFound mean. Backoff's waits on their own.
#include "client/detail/daemon_session.h"

#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "client/detail/backoff.h"
#include "tests/transport/fake_clock.h"

namespace textfeed::client::internal {
namespace {

using namespace std::chrono_literals;
using Turn = DaemonSession::Turn;

// What the scripted daemon says; shared by the test and the links it hands out.
struct Script {
  transport::HelloReply hello;
  std::deque<Status> connects;  // each connect()'s answer, in order; when empty: it connects
  std::deque<Status> opens;     // each open()'s error, in order; when empty: the stream opens
  std::deque<transport::Message> messages;  // what poll() returns, then nothing
  Clock::TimePoint last_heard{};
  std::vector<Clock::TimePoint> attempts;  // when connect() was called
};

class ScriptedLink final : public DaemonLink {
 public:
  explicit ScriptedLink(std::shared_ptr<Script> s) : s_(std::move(s)) {}
  const transport::HelloReply& hello() const override { return s_->hello; }
  Result<transport::StreamOpened> open(const transport::OpenStream&,
                                       std::chrono::milliseconds) override {
    if (!s_->opens.empty()) {
      Status e = s_->opens.front();
      s_->opens.pop_front();
      if (!e.ok()) return e;
    }
    transport::StreamOpened o;
    o.stream_id = 7;
    o.batches_per_epoch = 5;
    o.assigned = true;
    return o;
  }
  Status attach(const transport::StreamOpened&, const SlotRing&,
                std::chrono::milliseconds) override {
    return Status();
  }
  Status credit(const transport::Credit&) override { return Status(); }
  Result<std::optional<transport::Message>> poll(std::chrono::milliseconds,
                                                 const transport::Connection::PayloadFor&,
                                                 const Wakeup*) override {
    if (s_->messages.empty()) return std::optional<transport::Message>();
    transport::Message m = s_->messages.front();
    s_->messages.pop_front();
    return std::optional<transport::Message>(std::move(m));
  }
  Status close(uint64_t, std::chrono::milliseconds) override { return Status(); }
  Clock::TimePoint last_heard() const override { return s_->last_heard; }

 private:
  std::shared_ptr<Script> s_;
};

class ScriptedConnector final : public DaemonConnector {
 public:
  ScriptedConnector(std::shared_ptr<Script> s, std::shared_ptr<const Clock> clock)
      : s_(std::move(s)), clock_(std::move(clock)) {}
  Result<std::unique_ptr<DaemonLink>> connect(const std::string&, const std::string&,
                                              const transport::ConnectOptions&) override {
    s_->attempts.push_back(clock_->now());
    if (!s_->connects.empty()) {
      Status e = s_->connects.front();
      s_->connects.pop_front();
      if (!e.ok()) return e;
    }
    s_->last_heard = clock_->now();
    return std::unique_ptr<DaemonLink>(std::make_unique<ScriptedLink>(s_));
  }

 private:
  std::shared_ptr<Script> s_;
  std::shared_ptr<const Clock> clock_;
};

// The feed's side: what the session told it.
class RecordingHost final : public ProducerHost {
 public:
  std::vector<Work> take_work(size_t, uint32_t) override { return {}; }
  void finished(size_t, uint64_t, FeedBatch) override {}
  void failed(size_t, uint64_t, const Status&) override {}
  void lost(size_t, const std::string& why, bool) override { losses.push_back(why); }
  void rejoined(size_t) override { ++rejoins; }
  void gave_up(size_t, const Status& s, bool) override { out = s; }
  bool others_up(size_t) const override { return others; }
  std::string differs(const FeedLayout&) const override { return {}; }
  bool stopping() const override { return false; }
  const FeedLayout& layout() const override { return layout_; }
  const SlotRing& ring() const override { return *ring_; }

  std::vector<std::string> losses;
  int rejoins = 0;
  Status out;  // the give-up's status, OK while none
  bool others = false;

 private:
  FeedLayout layout_;
  std::unique_ptr<SlotRing> ring_ = *SlotRing::anonymous(1, 4096);
};

class DaemonSessionTest : public ::testing::Test {
 protected:
  // A session of the scripted daemon; `options` without clock (the fake one is set).
  std::unique_ptr<DaemonSession> session(ClientOptions options) {
    options.clock = clock_;
    options.backoff_seed = 3;
    DaemonSession::Config c;
    c.daemon.endpoint = "ipc:///nowhere";
    c.client_name = "test";
    c.options = options;
    auto s = DaemonSession::create(host_, c, std::make_shared<ScriptedConnector>(script_, clock_),
                                   nullptr);
    EXPECT_TRUE(s.has_value()) << s.error().to_string();
    return std::move(*s);
  }
  // Steps `s` once the clock reaches its next try, until it connects again or stops; returns the
  // last turn.
  Turn retry(DaemonSession& s, int attempts) {
    Turn t = Turn::kWait;
    for (int i = 0; i < attempts && t == Turn::kWait; ++i) {
      clock_->advance(s.next_try() - clock_->now());
      t = s.step();
    }
    return t;
  }

  std::shared_ptr<FakeClock> clock_ = std::make_shared<FakeClock>();
  std::shared_ptr<Script> script_ = std::make_shared<Script>();
  RecordingHost host_;
};

TEST_F(DaemonSessionTest, SilencePastTheDaemonTimeoutIsALoss) {
  script_->hello.server_heartbeat_millis = 100;
  ClientOptions o;
  o.daemon_timeout = 1000ms;
  auto s = session(o);
  ASSERT_TRUE(s->join().ok());
  EXPECT_EQ(s->silence_limit(), 1000ms);
  clock_->advance(1000ms);
  EXPECT_EQ(s->step(), Turn::kGoOn);
  EXPECT_TRUE(host_.losses.empty()) << "a silence of exactly the limit is not yet a loss";
  clock_->advance(1ms);
  EXPECT_EQ(s->step(), Turn::kGoOn);
  ASSERT_EQ(host_.losses.size(), 1u);
  EXPECT_EQ(host_.losses[0], "nothing heard for 1000 ms");
  EXPECT_FALSE(s->up());
}

TEST_F(DaemonSessionTest, SilenceWaitsForThreeOfTheDaemonsHeartbeats) {
  script_->hello.server_heartbeat_millis = 1000;
  ClientOptions o;
  o.daemon_timeout = 300ms;
  auto s = session(o);
  ASSERT_TRUE(s->join().ok());
  EXPECT_EQ(s->silence_limit(), 3000ms);
  clock_->advance(2999ms);
  s->step();
  EXPECT_TRUE(host_.losses.empty());
  script_->last_heard = clock_->now();  // a heartbeat came: the silence starts again
  clock_->advance(2999ms);
  s->step();
  EXPECT_TRUE(host_.losses.empty());
  clock_->advance(2ms);
  s->step();
  EXPECT_EQ(host_.losses.size(), 1u);
}

TEST_F(DaemonSessionTest, ALostSessionRetriesAtOnceThenOnTheBackoffScheduleUpToItsCap) {
  ClientOptions o;
  o.backoff_jitter = 0;  // the schedule exactly
  o.reconnect_timeout = 3600s;
  auto s = session(o);
  script_->connects.assign(9, Status::unavailable("not there"));
  EXPECT_EQ(s->join().code(), Code::kUnavailable);
  const Clock::TimePoint t0 = clock_->now();
  EXPECT_EQ(s->step(), Turn::kWait);  // the first retry at once
  EXPECT_EQ(s->step(), Turn::kWait);  // the clock has not moved: no attempt
  EXPECT_EQ(script_->attempts.size(), 2u);
  EXPECT_EQ(retry(*s, 8), Turn::kGoOn);  // the tenth attempt connects
  EXPECT_EQ(host_.rejoins, 1);
  const std::vector<std::chrono::milliseconds> gaps = {0ms,    0ms,    200ms,  400ms,  800ms,
                                                       1600ms, 3200ms, 5000ms, 5000ms, 5000ms};
  ASSERT_EQ(script_->attempts.size(), gaps.size());
  Clock::TimePoint at = t0;
  for (size_t i = 0; i < gaps.size(); ++i) {
    at += gaps[i];
    EXPECT_EQ(script_->attempts[i], at) << "attempt " << i;
  }
}

TEST_F(DaemonSessionTest, GivesUpAfterReconnectTimeoutWhileNoOtherProducerIsUp) {
  ClientOptions o;
  o.backoff_jitter = 0;
  o.reconnect_timeout = 2000ms;
  auto s = session(o);
  ASSERT_TRUE(s->join().ok());
  script_->connects.assign(100, Status::unavailable("connection refused"));
  script_->messages.push_back(transport::ErrorReply{Code::kUnavailable, "shutting down", 0});
  EXPECT_EQ(s->step(), Turn::kGoOn);  // the daemon says it goes: lost
  ASSERT_EQ(host_.losses.size(), 1u);
  const Clock::TimePoint lost = clock_->now();
  EXPECT_EQ(retry(*s, 100), Turn::kStop);
  EXPECT_GE(clock_->now() - lost, 2000ms);
  EXPECT_LT(clock_->now() - lost, 2000ms + o.backoff_max);
  EXPECT_EQ(host_.out.code(), Code::kUnavailable);
  EXPECT_NE(host_.out.message().find("the daemon at ipc:///nowhere did not come back within 2 s"),
            std::string::npos)
      << host_.out.message();
  EXPECT_NE(host_.out.message().find("connection refused"), std::string::npos);
  EXPECT_EQ(s->step(), Turn::kStop);
}

TEST_F(DaemonSessionTest, KeepsTryingPastReconnectTimeoutWhileAnotherProducerIsUp) {
  ClientOptions o;
  o.reconnect_timeout = 2000ms;
  auto s = session(o);
  host_.others = true;
  script_->connects.assign(40, Status::unavailable("not there"));
  EXPECT_FALSE(s->join().ok());
  EXPECT_EQ(retry(*s, 40), Turn::kGoOn);  // over a minute of attempts, and then it is back
  EXPECT_GT(clock_->now() - script_->attempts.front(), 60s);
  EXPECT_TRUE(host_.out.ok()) << host_.out.to_string();
  EXPECT_EQ(host_.rejoins, 1);
}

// One rule for a reopen: kOverloaded (a daemon at one of its limits, still counting the streams of
// the connection it lost) is retried after the back-off; kNotFound (no such dataset) is final.
TEST_F(DaemonSessionTest, OverloadedOnReopenIsRetriedAndNotFoundIsFinal) {
  ClientOptions o;
  o.backoff_jitter = 0;
  auto s = session(o);
  ASSERT_TRUE(s->join().ok());
  s->drop();  // as a stall would
  EXPECT_EQ(s->step(), Turn::kGoOn);
  ASSERT_EQ(host_.losses.size(), 1u);
  script_->opens = {Status::overloaded("--max-streams-per-client 1"),
                    Status::overloaded("--max-streams-per-client 1")};
  EXPECT_EQ(s->step(), Turn::kWait);
  EXPECT_EQ(retry(*s, 1), Turn::kWait);
  EXPECT_TRUE(host_.out.ok());
  EXPECT_EQ(retry(*s, 1), Turn::kGoOn);
  EXPECT_EQ(host_.rejoins, 1);
  EXPECT_EQ(script_->attempts.size(), 4u);  // join, two refusals, the reopen

  script_->messages.push_back(transport::ErrorReply{Code::kOverloaded, "out of memory", 7});
  EXPECT_EQ(s->step(), Turn::kGoOn);  // on the stream, too: a loss
  EXPECT_EQ(host_.losses.size(), 2u);
  script_->opens = {Status::not_found("no dataset 'icdar'")};
  EXPECT_EQ(s->step(), Turn::kStop);
  EXPECT_EQ(host_.out.code(), Code::kNotFound);
  EXPECT_EQ(host_.rejoins, 1);
}

TEST(BackoffTest, DoublesUpToItsCapAndStartsOverAfterReset) {
  Backoff b(200ms, 5000ms, 0, 1);
  for (const auto want : {200ms, 400ms, 800ms, 1600ms, 3200ms, 5000ms, 5000ms, 5000ms})
    EXPECT_EQ(b.next(), want);
  b.reset();
  EXPECT_EQ(b.next(), 200ms);
}

TEST(BackoffTest, JitterStaysWithinItsBoundsAndFollowsTheSeed) {
  Backoff a(200ms, 5000ms, 0.25, 42), same(200ms, 5000ms, 0.25, 42), other(200ms, 5000ms, 0.25, 43);
  bool differs = false;
  std::chrono::milliseconds base = 200ms;
  for (int i = 0; i < 12; ++i) {
    const std::chrono::milliseconds w = a.next();
    EXPECT_GE(w.count(), base.count() * 3 / 4) << i;
    EXPECT_LE(w.count(), base.count() * 5 / 4) << i;
    EXPECT_EQ(same.next(), w) << i;
    differs |= other.next() != w;
    base = std::min(base * 2, std::chrono::milliseconds(5000));
  }
  EXPECT_TRUE(differs);
}

TEST(ClientOptionsTest, BadTimingsAreRefusedNamingTheField) {
  ClientOptions o;
  EXPECT_TRUE(validate(o).ok());
  o.daemon_timeout = 0ms;
  EXPECT_NE(validate(o).message().find("daemon_timeout"), std::string::npos);
  o = ClientOptions();
  o.backoff_jitter = 1;
  EXPECT_NE(validate(o).message().find("backoff_jitter"), std::string::npos);
  o = ClientOptions();
  o.backoff_first = 10s;
  EXPECT_NE(validate(o).message().find("backoff_first"), std::string::npos);
}

}  // namespace
}  // namespace textfeed::client::internal
