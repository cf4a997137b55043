// The daemon against broken and hostile clients, and a client against a peer that is no daemon:
// oversized texts that would make a reply too large to send, memory hand-overs and requests that
// would make the daemon allocate or hold its socket thread, a Close racing a failed stream's fills,
// garbage answers. Each must get a clear Error while the daemon serves everyone else.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zmq.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "loader/pipeline/worker_pool.h"
#include "loader/sources/source.h"
#include "transport/connection.h"
#include "transport/daemon/server.h"
#include "transport/shm.h"

namespace textfeed::transport {
namespace {

using namespace std::chrono_literals;
const std::string kSample = std::string(TEXTFEED_DATA_DIR) + "/icdar15-sample";

class HostileClientTest : public ::testing::Test {
 protected:
  void SetUp() override { start({}); }
  void TearDown() override { stop(); }

  // Serves the sample as "icdar", and `more` datasets.
  void start(const std::map<std::string, std::shared_ptr<const loader::SampleSource>>& more) {
    auto src = loader::SampleSource::open(kSample, {});
    ASSERT_TRUE(src.has_value()) << src.error().to_string();
    ServerOptions o;
    o.endpoint = "ipc:///tmp/textfeed-hostile-" + std::to_string(::getpid()) + ".sock";
    o.datasets = more;
    o.datasets["icdar"] = *src;
    // Never reached: a test's connection is silent between its calls, for seconds on a loaded
    // machine.
    o.client_timeout = 60s;
    o.heartbeat_interval = 200ms;
    auto s = Server::create(o, arena_);
    ASSERT_TRUE(s.has_value()) << s.error().to_string();
    server_ = std::move(*s);
    stop_ = false;
    thread_ = std::thread([this] { status_ = server_->run(stop_); });
  }
  // Stops the daemon; it returns once every fill it started has ended.
  void stop() {
    if (!server_) return;
    stop_ = true;
    thread_.join();
    EXPECT_TRUE(status_.ok()) << status_.to_string();
    server_.reset();
  }

  std::unique_ptr<Connection> connect(const std::string& name = "hostile") {
    auto c = Connection::connect(server_->endpoint(), name);
    EXPECT_TRUE(c.has_value()) << c.error().to_string();
    return c.has_value() ? std::move(*c) : nullptr;
  }
  static OpenStream request() {
    OpenStream o;
    o.spec = loader::default_spec(augment::Profile::kSakura, "icdar");
    o.spec.sampler.batch_size = 2;
    return o;
  }

  loader::WorkerPool arena_{2};
  std::unique_ptr<Server> server_;
  std::atomic<bool> stop_{false};
  Status status_;
  std::thread thread_;
};

// A client named with 1 MiB made every Stats reply too large for any client to read (textfeed
// stats failed for everyone) and wrote megabyte log lines.
TEST_F(HostileClientTest, AClientNameOverItsBoundIsRefusedAndStatsStayReadable) {
  auto big = Connection::connect(server_->endpoint(), std::string((1 << 20) - 512, 'n'));
  ASSERT_FALSE(big.has_value());
  EXPECT_EQ(big.error().code(), Code::kInvalidArgument);
  EXPECT_NE(big.error().message().find("clientName"), std::string::npos)
      << big.error().message().substr(0, 200);
  EXPECT_LT(big.error().message().size(), 200u) << "the refusal does not repeat the name";
  auto fine = connect(std::string(kMaxClientNameBytes, 'n'));
  ASSERT_TRUE(fine);
  ASSERT_TRUE(fine->open(request(), 10s).has_value());
  auto observer = connect("observer");
  ASSERT_TRUE(observer);
  auto s = observer->stats(10s);
  ASSERT_TRUE(s.has_value()) << s.error().to_string();
  ASSERT_EQ(s->streams.size(), 1u);
  EXPECT_EQ(s->streams[0].client, std::string(kMaxClientNameBytes, 'n'));
}

// A text of a request just under 1 MiB (an option's name then; an ignore tag now) was refused with
// an Error that repeated it and the known names: over the envelope limit, so no reply went out at
// all and the client waited for its timeout.
TEST_F(HostileClientTest, ARefusalOfAHugeTextStillReachesTheClient) {
  auto c = connect();
  ASSERT_TRUE(c);
  for (size_t size : {size_t{5000}, size_t{(1 << 20) - 2048}}) {
    OpenStream o = request();
    o.spec.sources[0].reader.ignore_tags = {std::string(size, 'o')};
    // Without a reply the client's wait ends in kUnavailable: the code tells, not the time taken.
    auto opened = c->open(o, 20s);
    ASSERT_FALSE(opened.has_value());
    EXPECT_EQ(opened.error().code(), Code::kInvalidArgument)
        << opened.error().to_string().substr(0, 200);
    EXPECT_NE(opened.error().message().find("at most 4096"), std::string::npos)
        << opened.error().message().substr(0, 200);
  }
  OpenStream o = request();
  o.spec.sources[0].path =
      std::string(loader::kMaxTextBytes, 'd');  // within the bound: named in the reply
  auto opened = c->open(o, 10s);
  ASSERT_FALSE(opened.has_value());
  EXPECT_EQ(opened.error().code(), Code::kNotFound);
  EXPECT_NE(opened.error().message().find(o.spec.sources[0].path), std::string::npos);
  EXPECT_TRUE(c->open(request(), 10s).has_value()) << "the daemon serves on";
}

// A stream that failed was already ended when its client sent Close: the daemon answered Closed at
// once, while the stream's other fills still wrote into the client's slots, which Closed had just
// given back to it.
TEST_F(HostileClientTest, ClosedComesOnlyOnceTheFillsOfAFailedStreamHaveStopped) {
  namespace fs = std::filesystem;
  const fs::path bad = "/tmp/textfeed-hostile-" + std::to_string(::getpid()) + "-bad";
  fs::remove_all(bad);
  fs::copy(kSample, bad, fs::copy_options::recursive);
  auto src = loader::SampleSource::open(bad.string(), {});
  ASSERT_TRUE(src.has_value()) << src.error().to_string();
  std::ofstream(bad / (*src)->name(0), std::ios::trunc)
      << "not a picture";  // batch 0 fails at once
  stop();
  start({{"bad", *src}});
  auto c = connect();
  ASSERT_TRUE(c);
  OpenStream o = request();
  o.spec.sources[0].path = "bad";
  o.spec.sampler.batch_size = 1;
  o.spec.sampler.shuffle = false;
  o.spec.on_bad_sample = loader::OnBadSample::kFail;
  o.transport = Transport::kSharedMemory;
  o.spec.augment.image_size = 2048;  // batch 1 takes a while
  o.spec.augment.crop_size = 1024;
  auto opened = c->open(o, 10s);
  ASSERT_TRUE(opened.has_value()) << opened.error().to_string();
  const uint64_t stride = (opened->slot_bytes + 4095) / 4096 * 4096;
  auto region = ShmRegion::create(2 * stride);
  ASSERT_TRUE(region.has_value());
  uint8_t* slot1 = (*region)->data() + stride;
  std::memset(slot1, 0xAB, opened->slot_bytes);
  ASSERT_TRUE(c->attach(*opened, (*region)->fd(), 2, stride, 10s).ok());
  const uint32_t both[] = {0, 1};
  ASSERT_TRUE(c->credit_slots(opened->stream_id, both).ok());
  std::vector<uint8_t> none;
  auto failed = c->receive(none, 60s);
  ASSERT_FALSE(failed.has_value());
  EXPECT_NE(failed.error().code(), Code::kUnavailable) << failed.error().to_string();
  ASSERT_TRUE(c->close(opened->stream_id, 60s).ok());
  const std::vector<uint8_t> at_closed(slot1, slot1 + opened->slot_bytes);
  stop();  // waits for every fill
  EXPECT_EQ(0, std::memcmp(at_closed.data(), slot1, at_closed.size()))
      << "the daemon wrote into a slot after it answered Closed";
  fs::remove_all(bad);
}

// A peer at the endpoint that is no textfeed daemon answered Hello with garbage: the client's
// error was Cap'n Proto's own words, naming neither the endpoint nor that the peer sent it.
TEST(ForeignPeerTest, GarbageFromThePeerIsReportedAsComingFromItsEndpoint) {
  const std::string endpoint =
      "ipc:///tmp/textfeed-foreign-" + std::to_string(::getpid()) + ".sock";
  void* context = zmq_ctx_new();
  void* router = zmq_socket(context, ZMQ_ROUTER);
  ASSERT_EQ(zmq_bind(router, endpoint.c_str()), 0);
  std::thread peer([&] {
    zmq_pollitem_t item{router, 0, ZMQ_POLLIN, 0};
    if (zmq_poll(&item, 1, 10000) != 1) return;
    char id[256];
    const int n = zmq_recv(router, id, sizeof(id), 0);
    int more = 1;
    size_t size = sizeof(more);
    char body[4096];
    while (zmq_getsockopt(router, ZMQ_RCVMORE, &more, &size) == 0 && more)
      zmq_recv(router, body, sizeof(body), 0);
    const uint8_t garbage[24] = {};
    zmq_send(router, id, static_cast<size_t>(n), ZMQ_SNDMORE);
    zmq_send(router, garbage, sizeof(garbage), 0);
  });
  ConnectOptions o;
  o.timeout = 10s;
  auto c = Connection::connect(endpoint, "curious", o);
  peer.join();
  zmq_close(router);
  zmq_ctx_term(context);
  ::unlink(endpoint.substr(6).c_str());
  ASSERT_FALSE(c.has_value());
  EXPECT_EQ(c.error().code(), Code::kCorrupt);
  EXPECT_NE(c.error().message().find("a message from " + endpoint), std::string::npos)
      << c.error().message();
}

}  // namespace
}  // namespace textfeed::transport
