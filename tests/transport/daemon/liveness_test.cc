// The daemon's client timeout on a FakeClock: a client that falls silent is forgotten once its
// timeout has passed, one that keeps talking is kept, and neither waits for real time to pass.
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <thread>

#include "loader/pipeline/worker_pool.h"
#include "loader/sources/source.h"
#include "tests/transport/fake_clock.h"
#include "tests/transport/wait.h"
#include "transport/connection.h"
#include "transport/daemon/server.h"

namespace textfeed::transport {
namespace {

using namespace std::chrono_literals;

class LivenessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto src = loader::SampleSource::open(std::string(TEXTFEED_DATA_DIR) + "/icdar15-sample", {});
    ASSERT_TRUE(src.has_value()) << src.error().to_string();
    ServerOptions o;
    o.endpoint = "ipc:///tmp/textfeed-liveness-" + std::to_string(::getpid()) + ".sock";
    o.datasets["icdar"] = *src;
    o.client_timeout = 1000ms;  // of the fake clock: real time never gets there
    o.heartbeat_interval = 200ms;
    o.clock = clock_;
    auto s = Server::create(o, arena_);
    ASSERT_TRUE(s.has_value()) << s.error().to_string();
    server_ = std::move(*s);
    thread_ = std::thread([this] { status_ = server_->run(stop_); });
  }
  void TearDown() override {
    stop_ = true;
    thread_.join();
    EXPECT_TRUE(status_.ok()) << status_.to_string();
  }
  std::unique_ptr<Connection> connect(const std::string& name) {
    ConnectOptions c;
    c.heartbeat_interval = 1h;  // a client talks only when the test makes it
    auto conn = Connection::connect(server_->endpoint(), name, c);
    EXPECT_TRUE(conn.has_value()) << conn.error().to_string();
    return conn.has_value() ? std::move(*conn) : nullptr;
  }
  // The clients the daemon knows, as it tells `asking` (which it hears from by asking).
  static uint32_t clients(Connection& asking) {
    auto s = asking.stats(10s);
    EXPECT_TRUE(s.has_value()) << s.error().to_string();
    return s.has_value() ? s->clients : 0;
  }

  std::shared_ptr<FakeClock> clock_ = std::make_shared<FakeClock>();
  loader::WorkerPool arena_{1};
  std::unique_ptr<Server> server_;
  std::atomic<bool> stop_{false};
  Status status_;
  std::thread thread_;
};

TEST_F(LivenessTest, ASilentClientIsDroppedAfterItsTimeoutAndALiveOneIsNot) {
  auto silent = connect("silent");
  auto live = connect("live");
  ASSERT_TRUE(silent && live);
  clock_->advance(600ms);
  EXPECT_EQ(clients(*live), 2u) << "600 ms of silence is within the timeout";
  clock_->advance(600ms);  // silent: 1200 ms; live: 600 ms since its last request
  EXPECT_TRUE(wait_until([&] { return clients(*live) == 1; }, 10s)) << "the silent client was kept";
  for (int i = 0; i < 3; ++i) {
    clock_->advance(600ms);
    EXPECT_EQ(clients(*live), 1u);
  }
  OpenStream o;
  o.spec = loader::default_spec(augment::Profile::kSakura, "icdar");
  o.spec.sampler.batch_size = 2;
  EXPECT_TRUE(live->open(o, 10s).has_value()) << "the live client is still known";
  auto refused = silent->open(o, 10s);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code(), Code::kUnavailable) << refused.error().to_string();
}

}  // namespace
}  // namespace textfeed::transport
