// One rank fed by several daemons (ipc with shared memory, tcp with CURVE) and its own threads:
// every batch once, in order, byte-equal to the in-process pipeline, whatever producer made it; a
// lost daemon's batches go to the others and it rejoins; a daemon that comes later joins; producers
// that disagree are refused; seeks continue exactly; the daemon checks what assigned credits name.
#include "client/multi_feed.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zmq.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <thread>

#include "loader/pipeline/pipeline.h"
#include "loader/pipeline/worker_pool.h"
#include "tests/transport/wait.h"
#include "transport/connection.h"
#include "transport/curve.h"
#include "transport/daemon/server.h"

namespace textfeed::client {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using transport::Server;
using transport::ServerOptions;
using transport::wait_until;

const std::string kSample = std::string(TEXTFEED_DATA_DIR) + "/icdar15-sample";

// This program is a composition root: each pool gets its threads (oneTBB's default limit is one
// fewer than the cores, which a busy worker of one daemon would take from all the others).
const loader::ProcessThreadSettings kThreadSettings;

loader::PipelineSpec spec_of(const std::string& dataset) {
  loader::PipelineSpec s = loader::default_spec(augment::Profile::kSakura, dataset);
  s.sampler = {7, 2, 0, 1, true, false};  // seed 7, batch 2: 5 batches per epoch
  return s;
}

// One in-process daemon on its own thread and pool.
struct Daemon {
  std::unique_ptr<loader::WorkerPool> pool = std::make_unique<loader::WorkerPool>(1);
  std::unique_ptr<Server> server;
  std::atomic<bool> stop{false};
  std::thread thread;
  std::string endpoint;
  transport::CurveKeyPair keys;

  void start(const ServerOptions& o) {
    auto s = Server::create(o, *pool);
    ASSERT_TRUE(s.has_value()) << s.error().to_string();
    server = std::move(*s);
    endpoint = server->endpoint();
    stop = false;
    thread = std::thread([this] { (void)server->run(stop); });
  }
  void halt() {
    if (!server) return;
    stop = true;
    thread.join();
    server.reset();
  }
  ~Daemon() { halt(); }
};

// A peer that speaks the protocol like a daemon (the stream it opens is a real daemon's, copied)
// but answers each credited batch with `craft(batch)`: a header, sent with zero payload frames of
// the sizes its tensors say.
class FakeDaemon {
 public:
  using Craft = std::function<transport::BatchHeader(const Position&)>;
  FakeDaemon(std::string endpoint, transport::StreamOpened opened, Craft craft)
      : endpoint_(std::move(endpoint)), opened_(std::move(opened)), craft_(std::move(craft)) {
    context_ = zmq_ctx_new();
    router_ = zmq_socket(context_, ZMQ_ROUTER);
    EXPECT_EQ(zmq_bind(router_, endpoint_.c_str()), 0);
    thread_ = std::thread([this] { run(); });
  }
  ~FakeDaemon() {
    stop_ = true;
    thread_.join();
    zmq_close(router_);
    zmq_ctx_term(context_);
    ::unlink(endpoint_.substr(6).c_str());
  }

 private:
  void send(const std::string& peer, const transport::Message& m,
            const std::vector<TensorDesc>& payload = {}) {
    auto bytes = transport::encode(m);
    ASSERT_TRUE(bytes.has_value());
    std::vector<size_t> frames;
    for (const TensorDesc& t : payload)
      for (size_t at = 0; at < t.size_bytes; at += transport::kMaxPayloadFrameBytes)
        frames.push_back(std::min(transport::kMaxPayloadFrameBytes, t.size_bytes - at));
    zmq_send(router_, peer.data(), peer.size(), ZMQ_SNDMORE);
    zmq_send(router_, bytes->data(), bytes->size(), frames.empty() ? 0 : ZMQ_SNDMORE);
    const std::vector<uint8_t> zeros(transport::kMaxPayloadFrameBytes, 0);
    for (size_t i = 0; i < frames.size(); ++i)
      zmq_send(router_, zeros.data(), frames[i], i + 1 < frames.size() ? ZMQ_SNDMORE : 0);
  }
  void run() {
    std::string peer;
    auto last_beat = std::chrono::steady_clock::now();
    while (!stop_) {
      if (!peer.empty() && std::chrono::steady_clock::now() - last_beat > 100ms) {
        send(peer, transport::Heartbeat{0});
        last_beat = std::chrono::steady_clock::now();
      }
      zmq_pollitem_t item{router_, 0, ZMQ_POLLIN, 0};
      if (zmq_poll(&item, 1, 50) != 1) continue;
      std::vector<std::string> parts;
      int more = 1;
      size_t size = sizeof(more);
      while (more) {
        zmq_msg_t msg;
        zmq_msg_init(&msg);
        zmq_msg_recv(&msg, router_, 0);
        parts.emplace_back(static_cast<const char*>(zmq_msg_data(&msg)), zmq_msg_size(&msg));
        zmq_msg_close(&msg);
        zmq_getsockopt(router_, ZMQ_RCVMORE, &more, &size);
      }
      if (parts.size() < 2) continue;
      peer = parts[0];
      auto m =
          transport::decode({reinterpret_cast<const uint8_t*>(parts[1].data()), parts[1].size()});
      if (!m.has_value()) continue;
      if (std::holds_alternative<transport::Hello>(*m)) {
        send(peer,
             transport::HelloReply{transport::kProtocolVersion, "fake", {"icdar"}, "", 100, 100});
      } else if (std::holds_alternative<transport::OpenStream>(*m)) {
        send(peer, opened_);
      } else if (const auto* c = std::get_if<transport::Credit>(&*m)) {
        for (const Position& p : c->batches) {
          transport::BatchHeader header = craft_(p);
          header.stream_id = opened_.stream_id;
          send(peer, header, header.tensors);
        }
      }
    }
  }

  std::string endpoint_;
  transport::StreamOpened opened_;
  Craft craft_;
  void* context_ = nullptr;
  void* router_ = nullptr;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

class MultiFeedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto src = loader::SampleSource::open(kSample, {});
    ASSERT_TRUE(src.has_value());
    source_ = *src;
    client_keys_ = *transport::generate_curve_keypair();
    ipc_ = "ipc:///tmp/textfeed-multi-" + std::to_string(::getpid()) + ".sock";
  }

  ServerOptions options(const std::string& endpoint, Daemon& d,
                        std::shared_ptr<const loader::SampleSource> source = nullptr) const {
    ServerOptions o;
    o.endpoint = endpoint;
    o.datasets["icdar"] = source ? source : source_;
    o.max_credits = 8;
    o.heartbeat_interval = 100ms;
    // A client's producer thread sends no heartbeat while it expands a compact batch, which took
    // over two seconds under a concurrent build and test suite: no test here waits for a client
    // to time out, so the timeout sits far above that.
    o.client_timeout = 20s;
    if (endpoint.rfind("tcp://", 0) == 0) {
      d.keys = *transport::generate_curve_keypair();
      o.curve.server = d.keys;
      o.curve.allowed_clients = {client_keys_.public_key};
    }
    return o;
  }
  void start(Daemon& d, const std::string& endpoint) { d.start(options(endpoint, d)); }

  DaemonProducer producer(const Daemon& d) const {
    DaemonProducer p;
    p.endpoint = d.endpoint;
    if (d.endpoint.rfind("tcp://", 0) == 0) p.curve = {d.keys.public_key, client_keys_};
    return p;
  }
  transport::ConnectOptions connect_options(const Daemon& d) const {
    transport::ConnectOptions c;
    c.timeout = 5s;
    c.heartbeat_interval = 100ms;
    c.curve = producer(d).curve;
    return c;
  }
  MultiOptions multi(const std::vector<const Daemon*>& daemons, int local_threads) const {
    MultiOptions o;
    o.client_name = "multi test";
    o.spec = spec_of("icdar");
    for (const Daemon* d : daemons) o.daemons.push_back(producer(*d));
    o.local_threads = local_threads;
    o.local_spec = spec_of(kSample);
    o.local_source = source_;
    o.prefetch = 2;
    // Losses here are asked for, or come from a stop (the daemon says so) or a stall, never from
    // silence: a daemon's heartbeats may pause for seconds on a loaded machine.
    o.client.connect_timeout = 5s;
    o.client.heartbeat_interval = 100ms;
    o.client.daemon_timeout = 20s;
    o.client.reconnect_timeout = 30s;
    return o;
  }

  // Batch `batch` of `epoch` from the in-process pipeline.
  const std::vector<uint8_t>& expected(uint64_t epoch, uint64_t batch) {
    auto& slot = expected_[{epoch, batch}];
    if (slot.empty()) {
      auto p = loader::BatchPipeline::create(source_, expected_spec_);
      EXPECT_TRUE(p.has_value());
      slot.assign((*p)->layout().slot_bytes, 0);
      BatchInfo info;
      EXPECT_TRUE((*p)->fill(epoch, batch, slot.data(), info, pool_).ok());
    }
    return slot;
  }
  // Pulls `n` batches: each the next in order and byte-equal to the in-process one.
  void pull(MultiFeed& f, int n, uint64_t& position) {
    const uint64_t per = f.layout().epochs.per_epoch;
    for (int i = 0; i < n; ++i, ++position) {
      auto b = f.next(60s);
      ASSERT_TRUE(b.has_value()) << b.error().to_string();
      ASSERT_TRUE(b->has_value()) << "no batch within 60 s";
      const FeedBatch& got = **b;
      ASSERT_EQ(got.epoch * per + got.batch, position) << "lost, repeated or out of order";
      EXPECT_TRUE(got.compact.empty()) << "compact rows are expanded into the slot, not handed on";
      const std::vector<uint8_t>& want = expected(got.epoch, got.batch);
      for (const TensorDesc& t : f.layout().tensors)
        ASSERT_EQ(0, std::memcmp(f.ring().slot(got.slot) + t.offset_bytes,
                                 want.data() + t.offset_bytes, t.sample_bytes * got.indices.size()))
            << t.name << " of epoch " << got.epoch << " batch " << got.batch;
      f.release(got.slot);
    }
  }

  std::shared_ptr<const loader::SampleSource> source_;
  transport::CurveKeyPair client_keys_;
  std::string ipc_;
  loader::WorkerPool pool_{2};
  std::map<std::pair<uint64_t, uint64_t>, std::vector<uint8_t>> expected_;
  loader::PipelineSpec expected_spec_ = spec_of(kSample);  // what expected() makes
};

TEST_F(MultiFeedTest, ThreeDaemonsAndLocalThreadsDeliverEveryBatchOnceInOrder) {
  Daemon a, b, c;
  start(a, ipc_);
  start(b, "tcp://127.0.0.1:0");
  start(c, "tcp://127.0.0.1:0");
  auto f = MultiFeed::open(multi({&a, &b, &c}, 1));
  ASSERT_TRUE(f.has_value()) << f.error().to_string();
  uint64_t position = 0;
  pull(**f, 15, position);  // three epochs
  const FeedStats s = (*f)->stats();
  ASSERT_EQ(s.producers.size(), 4u);
  uint64_t delivered = 0;
  for (const ProducerStats& p : s.producers) {
    delivered += p.delivered;
    EXPECT_EQ(p.state, ProducerState::kUp) << p.name;
    EXPECT_EQ(p.reissued, 0u) << p.name;
  }
  EXPECT_EQ(delivered, 15u);
  EXPECT_EQ(s.producers[0].transport, FeedTransport::kSharedMemory);
  EXPECT_EQ(s.producers[1].transport, FeedTransport::kFrames);
  EXPECT_EQ(s.producers[3].transport, FeedTransport::kEmbedded);
}

TEST_F(MultiFeedTest, ALostDaemonsBatchesGoToTheOthersAndItRejoins) {
  Daemon a, b, stuck;
  start(a, ipc_);
  start(b, "tcp://127.0.0.1:0");
  // A daemon that answers and heartbeats but whose only worker is busy: the batches it is given
  // stay in flight until it is taken for lost.
  std::promise<void> release_worker;
  std::shared_future<void> released = release_worker.get_future().share();
  stuck.pool->enqueue([released] { released.wait(); });
  start(stuck, "tcp://127.0.0.1:0");
  auto f = MultiFeed::open(multi({&a, &b, &stuck}, 0));
  ASSERT_TRUE(f.has_value()) << f.error().to_string();
  uint64_t position = 0;
  ASSERT_TRUE(wait_until([&] { return (*f)->stats().producers[2].in_flight == 2; }, 20s));
  (*f)->lose_for_testing(2);
  ASSERT_TRUE(
      wait_until([&] { return (*f)->stats().producers[2].state == ProducerState::kLost; }, 20s));
  EXPECT_EQ((*f)->stats().producers[2].reissued, 2u);
  pull(**f, 7, position);  // the stuck daemon's batches among them, made by the others
  release_worker.set_value();
  EXPECT_TRUE(wait_until([&] { return (*f)->stats().producers[2].reconnects >= 1; }, 20s));
  EXPECT_EQ((*f)->stats().producers[2].state, ProducerState::kUp);
  b.halt();  // the tcp daemon goes away for good: its batches go to those left
  pull(**f, 8, position);
  const FeedStats s = (*f)->stats();
  EXPECT_EQ(s.producers[0].state, ProducerState::kUp);
  EXPECT_NE(s.producers[1].state, ProducerState::kUp);
}

TEST_F(MultiFeedTest, ADaemonThatAnswersButMakesNothingIsTakenForLostAfterTheStallTimeout) {
  Daemon a, stuck;
  start(a, ipc_);
  std::promise<void> release_worker;
  std::shared_future<void> released = release_worker.get_future().share();
  stuck.pool->enqueue([released] { released.wait(); });
  start(stuck, "tcp://127.0.0.1:0");
  MultiOptions o = multi({&stuck, &a}, 0);
  o.client.stall_timeout = 500ms;
  auto f = MultiFeed::open(o);
  ASSERT_TRUE(f.has_value()) << f.error().to_string();
  uint64_t position = 0;
  pull(**f, 10, position);  // whatever the stuck daemon was given comes from the other
  EXPECT_GE((*f)->stats().producers[0].reissued, 1u);
  EXPECT_EQ((*f)->stats().producers[0].delivered, 0u);
  release_worker.set_value();
}

// The training never hangs: with one daemon stuck (it answers but makes nothing) and the other
// gone, whichever held the batch next() needs, next() fails once every producer has given up after
// reconnect_timeout.
TEST_F(MultiFeedTest, AStuckDaemonAndADeadOneEndInAnErrorNotAHang) {
  Daemon stuck, b;
  std::promise<void> release_worker;
  std::shared_future<void> released = release_worker.get_future().share();
  stuck.pool->enqueue([released] { released.wait(); });
  start(stuck, "tcp://127.0.0.1:0");
  start(b, "tcp://127.0.0.1:0");
  MultiOptions o = multi({&stuck, &b}, 0);
  o.client.stall_timeout = 300ms;
  o.client.reconnect_timeout = 1000ms;
  auto f = MultiFeed::open(o);
  ASSERT_TRUE(f.has_value()) << f.error().to_string();
  ASSERT_TRUE(wait_until([&] { return (*f)->stats().producers[0].in_flight == 2; }, 20s));
  b.halt();
  Status ended;
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (ended.ok() && std::chrono::steady_clock::now() < deadline) {
    auto got = (*f)->next(1s);
    if (!got.has_value())
      ended = got.error();
    else if (*got)
      (*f)->release((*got)->slot);
  }
  EXPECT_EQ(ended.code(), Code::kUnavailable) << ended.to_string();
  EXPECT_NE(ended.message().find("did not come back within 1 s"), std::string::npos)
      << ended.message();
  release_worker.set_value();
}

// A daemon taking fewer batches in flight than `prefetch` asks is credited only as many.
TEST_F(MultiFeedTest, APrefetchAboveTheDaemonsMaxCreditsIsClampedToThem) {
  Daemon a;
  ServerOptions so = options("tcp://127.0.0.1:0", a);
  so.max_credits = 1;
  a.start(so);
  MultiOptions o = multi({&a}, 0);
  o.prefetch = 4;
  auto f = MultiFeed::open(o);
  ASSERT_TRUE(f.has_value()) << f.error().to_string();
  uint64_t position = 0;
  pull(**f, 6, position);
  const FeedStats s = (*f)->stats();
  EXPECT_EQ(s.producers[0].state, ProducerState::kUp);
  EXPECT_EQ(s.producers[0].reconnects, 0u);
  EXPECT_LE(s.producers[0].in_flight, 1u);
}

TEST_F(MultiFeedTest, ADaemonThatComesLaterJoins) {
  Daemon a, late;
  start(a, "tcp://127.0.0.1:0");
  MultiOptions o = multi({&a}, 0);
  DaemonProducer p;
  p.endpoint = ipc_;  // nobody there yet
  o.daemons.push_back(p);
  auto f = MultiFeed::open(o);
  ASSERT_TRUE(f.has_value()) << f.error().to_string();
  EXPECT_EQ((*f)->stats().producers[1].state, ProducerState::kLost);
  uint64_t position = 0;
  pull(**f, 2, position);
  start(late, ipc_);
  EXPECT_TRUE(
      wait_until([&] { return (*f)->stats().producers[1].state == ProducerState::kUp; }, 20s));
  pull(**f, 10, position);
  EXPECT_EQ((*f)->stats().producers[1].reconnects, 0u);  // it joined; it did not come back
  EXPECT_EQ((*f)->stats().producers[1].transport, FeedTransport::kSharedMemory);
}

TEST_F(MultiFeedTest, ProducersOfAnotherDatasetAreRefused) {
  const fs::path dir =
      fs::temp_directory_path() / ("textfeed-multi-half-" + std::to_string(::getpid()));
  fs::create_directories(dir / "images");
  fs::create_directories(dir / "gt");
  for (int i = 1; i <= 5; ++i) {
    const std::string stem = "img_" + std::to_string(i);
    fs::copy_file(fs::path(kSample) / "images" / (stem + ".jpg"), dir / "images" / (stem + ".jpg"),
                  fs::copy_options::overwrite_existing);
    fs::copy_file(fs::path(kSample) / "gt" / ("gt_" + stem + ".txt"),
                  dir / "gt" / ("gt_" + stem + ".txt"), fs::copy_options::overwrite_existing);
  }
  auto half = loader::SampleSource::open(dir.string(), {});
  ASSERT_TRUE(half.has_value()) << half.error().to_string();
  Daemon a, b;
  start(a, "tcp://127.0.0.1:0");
  b.start(options(ipc_, b, *half));
  auto f = MultiFeed::open(multi({&a, &b}, 0));
  ASSERT_FALSE(f.has_value());
  EXPECT_EQ(f.error().code(), Code::kInvalidArgument);
  EXPECT_NE(f.error().message().find("the daemon at " + ipc_), std::string::npos)
      << f.error().message();
  EXPECT_NE(f.error().message().find("must serve the same dataset"), std::string::npos)
      << f.error().message();
  // The local threads over another dataset are refused the same way.
  MultiOptions o = multi({&a}, 1);
  o.local_source = *half;
  auto g = MultiFeed::open(o);
  ASSERT_FALSE(g.has_value());
  EXPECT_NE(g.error().message().find("this process's threads"), std::string::npos)
      << g.error().message();
  fs::remove_all(dir);
}

TEST_F(MultiFeedTest, ASeekContinuesExactlyAndBadOptionsAreRefused) {
  Daemon a, b;
  start(a, ipc_);
  start(b, "tcp://127.0.0.1:0");
  MultiOptions o = multi({&a, &b}, 1);
  o.epoch = 1;
  o.batch = 2;
  auto f = MultiFeed::open(o);
  ASSERT_TRUE(f.has_value()) << f.error().to_string();
  uint64_t position = 7;
  pull(**f, 2, position);
  ASSERT_TRUE((*f)->seek(3, 4).ok());
  position = 19;
  pull(**f, 3, position);
  EXPECT_FALSE((*f)->seek(0, 5).ok());  // past the epoch

  MultiOptions bad = multi({&a, &a}, 0);
  EXPECT_NE(MultiFeed::open(bad).error().message().find("named twice"), std::string::npos);
  bad = multi({}, 1);
  EXPECT_EQ(MultiFeed::open(bad).error().code(), Code::kInvalidArgument);
  bad = multi({&a}, 0);
  bad.prefetch = 0;
  EXPECT_EQ(MultiFeed::open(bad).error().code(), Code::kInvalidArgument);
  bad = multi({&a}, 1);
  bad.local_source = nullptr;
  EXPECT_EQ(MultiFeed::open(bad).error().code(), Code::kInvalidArgument);
}

TEST_F(MultiFeedTest, CompactBatchesFinishedHereAreTheFullOnes) {
  Daemon a, b, c;
  start(a, ipc_);  // compact goes as frames over ipc too
  start(b, "tcp://127.0.0.1:0");
  start(c, "tcp://127.0.0.1:0");
  for (const augment::Profile profile : {augment::Profile::kSakura, augment::Profile::kUpstage}) {
    MultiOptions o = multi({&a, &b, &c}, 1);
    o.payload = transport::Payload::kCompact;
    o.spec.augment = augment::profile_defaults(profile);
    o.local_spec.augment = o.spec.augment;
    expected_.clear();
    expected_spec_ = o.local_spec;
    auto f = MultiFeed::open(o);
    ASSERT_TRUE(f.has_value()) << f.error().to_string();
    uint64_t position = 0;
    pull(**f, 7, position);
    const FeedStats s = (*f)->stats();
    EXPECT_EQ(s.producers[0].transport, FeedTransport::kCompactFrames);
    EXPECT_EQ(s.producers[3].transport, FeedTransport::kEmbedded);
  }
  MultiOptions db = multi({&b}, 0);
  db.payload = transport::Payload::kCompact;
  db.spec = loader::default_spec(augment::Profile::kDb, "icdar");
  EXPECT_NE(MultiFeed::open(db).error().message().find("not db"), std::string::npos);
  MultiOptions shm = multi({&a}, 0);
  shm.payload = transport::Payload::kCompact;
  shm.daemons[0].transport = transport::Transport::kSharedMemory;
  EXPECT_NE(MultiFeed::open(shm).error().message().find("frames"), std::string::npos);
  // The daemon refuses a compact stream over shared memory itself, too.
  auto conn = transport::Connection::connect(a.endpoint, "raw", connect_options(a));
  ASSERT_TRUE(conn.has_value());
  transport::OpenStream request;
  request.spec = spec_of("icdar");
  request.transport = transport::Transport::kSharedMemory;
  request.payload = transport::Payload::kCompact;
  auto opened = (*conn)->open(request, 10s);
  ASSERT_FALSE(opened.has_value());
  EXPECT_NE(opened.error().message().find("travels as frames"), std::string::npos)
      << opened.error().message();
}

// A daemon that sends what no daemon sends is out for good: its batches go to the other one, and
// every batch still comes once, in order, equal to the in-process one.
TEST_F(MultiFeedTest, ADaemonThatSendsWhatNoDaemonSendsIsOutAndTheOthersMakeItsBatches) {
  Daemon a;
  start(a, "tcp://127.0.0.1:0");
  const std::string fake_endpoint =
      "ipc:///tmp/textfeed-fake-" + std::to_string(::getpid()) + ".sock";
  using Header = transport::BatchHeader;
  struct Case {
    const char* why;  // what the client says of it
    bool compact;
    std::function<void(Header&)> spoil;
  };
  const std::vector<Case> cases = {
      {"was due", false, [](Header& h) { h.batch += 1; }},
      {"64 rows for batches of 2", false, [](Header& h) { h.indices.assign(64, 0); }},
      {"unlike the stream's", false, [](Header& h) { h.tensors[1].name = "geo"; }},
      {"unlike the stream's", true, [](Header& h) { h.tensors[0].shape[1] = 8; }},
      {"without its compact rows", true, [](Header& h) { h.compact.clear(); }},
      {"do not expand", true, [](Header& h) { h.compact[0].color.hue = std::nan(""); }},
      // Issue 30 #4: one corner moved far off the crop would give other targets.
      {"beyond 64 crop sides", true,
       [](Header& h) {
         h.compact[0].quads = {10, 10, 50, 10, 1e5, 30, 10, 30};
         h.compact[0].labels = {1};
       }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.why);
    // The stream a real daemon opens, as the fake's.
    MultiOptions o = multi({&a}, 0);
    if (c.compact) o.payload = transport::Payload::kCompact;
    auto conn = transport::Connection::connect(a.endpoint, "probe", connect_options(a));
    ASSERT_TRUE(conn.has_value());
    transport::OpenStream request;
    request.spec = o.spec;
    request.transport = transport::Transport::kFrames;
    request.assigned = true;
    request.payload = o.payload;
    auto opened = (*conn)->open(request, 10s);
    ASSERT_TRUE(opened.has_value()) << opened.error().to_string();
    const transport::StreamOpened so = *opened;
    const int crop = static_cast<int>(so.tensors[0].shape[3]);
    FakeDaemon fake(fake_endpoint, so, [&](const Position& p) {
      Header h;
      h.epoch = p.epoch;
      h.batch = p.batch;
      h.indices.assign(2, 0);
      if (c.compact) {
        h.tensors = {compact_tensor(2, crop)};
        h.compact.resize(2);
      } else {
        for (const TensorDesc& t : so.tensors) h.tensors.push_back(t.with_rows(2));
      }
      c.spoil(h);
      return h;
    });
    DaemonProducer fp;
    fp.endpoint = fake_endpoint;
    o.daemons.insert(o.daemons.begin(), fp);
    auto f = MultiFeed::open(o);
    ASSERT_TRUE(f.has_value()) << f.error().to_string();
    expected_.clear();
    expected_spec_ = spec_of(kSample);
    uint64_t position = 0;
    pull(**f, 6, position);
    const FeedStats s = (*f)->stats();
    EXPECT_EQ(s.producers[0].state, ProducerState::kOut);
    EXPECT_EQ(s.producers[0].delivered, 0u);
    EXPECT_EQ(s.producers[1].delivered, 6u);
    EXPECT_NE(s.producers[0].last_error.find(c.why), std::string::npos)
        << s.producers[0].last_error;
  }
}

// The daemon's side of assigned streams: what a Credit names is checked before anything is taken.
TEST_F(MultiFeedTest, TheDaemonChecksWhatAssignedCreditsName) {
  Daemon a;
  start(a, "tcp://127.0.0.1:0");
  auto conn = transport::Connection::connect(a.endpoint, "raw", connect_options(a));
  ASSERT_TRUE(conn.has_value()) << conn.error().to_string();
  transport::OpenStream request;
  request.spec = spec_of("icdar");
  request.transport = transport::Transport::kFrames;
  auto plain = (*conn)->open(request, 10s);
  ASSERT_TRUE(plain.has_value());
  EXPECT_FALSE(plain->assigned);
  request.assigned = true;
  auto opened = (*conn)->open(request, 10s);
  ASSERT_TRUE(opened.has_value());
  EXPECT_TRUE(opened->assigned);
  const auto reply = [&](const transport::Credit& c) -> std::string {
    auto frame = transport::encode(c);
    EXPECT_TRUE(frame.has_value());
    auto m = (*conn)->send_raw_for_testing(*frame, 10s);
    if (!m.has_value()) return m.error().to_string();
    if (const auto* e = std::get_if<transport::ErrorReply>(&*m)) return e->message;
    return "no error";
  };
  // The daemon's own refusal of compact streams it cannot make.
  for (const bool db : {true, false}) {
    transport::OpenStream compact = request;
    compact.payload = transport::Payload::kCompact;
    if (db)
      compact.spec = loader::default_spec(augment::Profile::kDb, "icdar");
    else
      compact.spec.return_polygons = true;
    auto refused = (*conn)->open(compact, 10s);
    ASSERT_FALSE(refused.has_value());
    EXPECT_NE(refused.error().message().find(db ? "not db" : "return_polygons"), std::string::npos)
        << refused.error().message();
  }
  EXPECT_NE(reply({plain->stream_id, {}, 1, {{0, 1}}}).find("not opened assigned"),
            std::string::npos);
  EXPECT_NE(reply({opened->stream_id, {}, 2, {{0, 1}}}).find("1 batches for 2"), std::string::npos);
  EXPECT_NE(reply({opened->stream_id, {}, 1, {{0, 5}}}).find("batch 5"), std::string::npos);
  // A good credit: batch 3 of epoch 2, then batch 0 of epoch 0, come in that order.
  auto frame = transport::encode(transport::Credit{opened->stream_id, {}, 2, {{2, 3}, {0, 0}}});
  ASSERT_TRUE(frame.has_value());
  ASSERT_TRUE((*conn)->send_only_for_testing(*frame).ok());
  std::vector<uint8_t> slot(opened->slot_bytes);
  for (const Position want : {Position{2, 3}, Position{0, 0}}) {
    auto h = (*conn)->receive(slot, 60s);
    ASSERT_TRUE(h.has_value()) << h.error().to_string();
    EXPECT_EQ((Position{h->epoch, h->batch}), want);
    const std::vector<uint8_t>& e = expected(want.epoch, want.batch);
    EXPECT_EQ(0, std::memcmp(slot.data(), e.data(), h->tensors[0].size_bytes));
  }
}

}  // namespace
}  // namespace textfeed::client
