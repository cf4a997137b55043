// The daemon and its clients over ipc and tcp loopback (CURVE on): concurrent ranks cover an epoch
// once with byte-identical batches to the in-process pipeline (1 or 2 threads), restarts at batch k
// continue exactly, bad requests get Error replies while the daemon serves on, a vanished client is
// reclaimed without disturbing another, a restarted daemon loses and repeats nothing.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "base/log.h"
#include "client/remote_feed.h"
#include "loader/pipeline/pipeline.h"
#include "loader/pipeline/worker_pool.h"
#include "tests/transport/wait.h"
#include "transport/connection.h"
#include "transport/curve.h"
#include "transport/daemon/server.h"
#include "transport/shm.h"

namespace textfeed::transport {
namespace {

using namespace std::chrono_literals;
const std::string kSample = std::string(TEXTFEED_DATA_DIR) + "/icdar15-sample";

struct Keys {
  CurveKeyPair server, client, stranger;
};

const Keys& keys() {
  static const Keys k = [] {
    Keys out;
    out.server = *generate_curve_keypair();
    out.client = *generate_curve_keypair();
    out.stranger = *generate_curve_keypair();
    return out;
  }();
  return k;
}

class DaemonTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    auto src = loader::SampleSource::open(kSample, {});
    ASSERT_TRUE(src.has_value());
    source_ = *src;
    start_server(GetParam() == "ipc"
                     ? "ipc:///tmp/textfeed-e2e-" + std::to_string(::getpid()) + ".sock"
                     : "tcp://127.0.0.1:0");
  }
  void TearDown() override { stop_server(); }

  // The timeouts that must not fire sit far above any pause a loaded machine gives a thread
  // (over two seconds under a concurrent build and test suite): a client that vanishes is noticed
  // by its disconnect and a stopping daemon says so, so no test waits for either timeout to pass.
  static constexpr std::chrono::milliseconds kClientTimeout = 10s;
  static constexpr std::chrono::milliseconds kDaemonTimeout = 15s;

  ServerOptions options(const std::string& endpoint, std::chrono::milliseconds heartbeat = 200ms,
                        std::chrono::milliseconds client_timeout = kClientTimeout) const {
    ServerOptions o;
    o.endpoint = endpoint;
    o.datasets["icdar"] = source_;
    o.max_credits = 8;
    o.client_timeout = client_timeout;
    o.heartbeat_interval = heartbeat;
    if (GetParam() == "tcp") {
      o.curve.server = keys().server;
      o.curve.allowed_clients = {keys().client.public_key};
    }
    return o;
  }
  void start_server(const std::string& endpoint, std::chrono::milliseconds heartbeat = 200ms,
                    std::chrono::milliseconds client_timeout = kClientTimeout) {
    start_server(options(endpoint, heartbeat, client_timeout));
  }
  void start_server(const ServerOptions& o) {
    auto s = Server::create(o, arena_);
    ASSERT_TRUE(s.has_value()) << s.error().to_string();
    server_ = std::move(*s);
    endpoint_ = server_->endpoint();
    stop_ = false;
    thread_ = std::thread([this] { status_ = server_->run(stop_); });
  }
  void stop_server() {
    if (!server_) return;
    stop_ = true;
    thread_.join();
    EXPECT_TRUE(status_.ok()) << status_.to_string();
    server_.reset();
  }

  ConnectOptions connect_options() const {
    ConnectOptions c;
    c.heartbeat_interval = 200ms;
    if (GetParam() == "tcp") c.curve = {keys().server.public_key, keys().client};
    return c;
  }
  OpenStream request(uint32_t rank, uint32_t world, uint64_t start = 0) const {
    OpenStream o;
    o.spec = loader::default_spec(augment::Profile::kSakura, "icdar");
    o.spec.sampler = {5, 3, static_cast<int>(rank), static_cast<int>(world), true, false};
    o.start = {0, start};
    return o;
  }
  client::RemoteOptions remote(const OpenStream& r, Transport t = Transport::kAuto) const {
    client::RemoteOptions o;
    o.endpoint = endpoint_;
    o.client_name = "rank " + std::to_string(r.spec.sampler.rank);
    o.spec = r.spec;
    o.epoch = r.start.epoch;
    o.batch = r.start.batch;
    o.transport = t;
    o.prefetch = 3;
    o.curve = connect_options().curve;
    o.client.heartbeat_interval = connect_options().heartbeat_interval;
    o.client.daemon_timeout = kDaemonTimeout;
    o.client.reconnect_timeout = 30s;
    return o;
  }
  std::unique_ptr<client::MultiFeed> open_feed(const client::RemoteOptions& o) {
    auto f = client::open_remote_feed(o);
    EXPECT_TRUE(f.has_value()) << f.error().to_string();
    return f.has_value() ? std::move(*f) : nullptr;
  }

  // Batch `batch` of `epoch` for (rank, world) from the in-process pipeline on `threads` threads.
  std::vector<uint8_t> local(uint32_t rank, uint32_t world, uint64_t epoch, uint64_t batch,
                             int threads, BatchInfo* info = nullptr) {
    loader::PipelineSpec po;
    po.augment = augment::profile_defaults(augment::Profile::kSakura);
    po.sampler = {5, 3, static_cast<int>(rank), static_cast<int>(world), true, false};
    auto p = loader::BatchPipeline::create(source_, po);
    EXPECT_TRUE(p.has_value());
    std::vector<uint8_t> slot((*p)->layout().slot_bytes, 0);
    loader::WorkerPool pool(threads);
    BatchInfo i;
    EXPECT_TRUE((*p)->fill(epoch, batch, slot.data(), i, pool).ok());
    if (info) *info = i;
    return slot;
  }
  // Whether the rows of a delivered batch equal `expected`, tensor by tensor.
  // The next batch, waiting up to a minute.
  static std::optional<client::FeedBatch> next(client::Feed& f) {
    auto b = f.next(60s);
    EXPECT_TRUE(b.has_value()) << b.error().to_string();
    if (!b.has_value()) return std::nullopt;
    EXPECT_TRUE(b->has_value()) << "no batch within 60 s";
    return std::move(*b);
  }
  static void expect_same(const client::Feed& f, const client::FeedBatch& b,
                          const std::vector<uint8_t>& expected) {
    const uint8_t* slot = f.ring().slot(b.slot);
    for (const TensorDesc& t : f.layout().tensors)
      ASSERT_EQ(0, std::memcmp(slot + t.offset_bytes, expected.data() + t.offset_bytes,
                               t.sample_bytes * b.indices.size()))
          << t.name << " of epoch " << b.epoch << " batch " << b.batch;
  }

  // How many mappings of the memory file `fd` this process holds (the daemon runs in it too).
  static int mappings_of(int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return -1;
    std::ifstream maps("/proc/self/maps");
    int n = 0;
    for (std::string line; std::getline(maps, line);) {
      std::istringstream fields(line);
      std::string range, perms, offset, device;
      unsigned long inode = 0;
      fields >> range >> perms >> offset >> device >> inode;
      n += inode == st.st_ino && line.find("memfd:") != std::string::npos;
    }
    return n;
  }

  loader::WorkerPool arena_{2};
  std::shared_ptr<const loader::SampleSource> source_;
  std::unique_ptr<Server> server_;
  std::string endpoint_;
  std::atomic<bool> stop_{false};
  Status status_;
  std::thread thread_;
};

TEST_P(DaemonTest, TwoConcurrentRanksCoverTheEpochOnceWithTheInProcessBytes) {
  std::map<uint32_t, int> seen;
  std::mutex mu;
  size_t batches[2] = {0, 0};
  auto rank = [&](uint32_t r) {
    // Rank 1 takes payload frames even over ipc, so both transports are checked; tcp offers frames
    // only.
    auto f = open_feed(remote(request(r, 2), r == 0 ? Transport::kAuto : Transport::kFrames));
    ASSERT_TRUE(f);
    EXPECT_EQ(f->stats().transport == client::FeedTransport::kSharedMemory,
              r == 0 && GetParam() == "ipc");
    batches[r] = f->layout().epochs.per_epoch;
    for (uint64_t b = 0; b < f->layout().epochs.per_epoch; ++b) {
      auto got = next(*f);
      ASSERT_TRUE(got);
      EXPECT_EQ(got->epoch, 0u);
      EXPECT_EQ(got->batch, b);
      BatchInfo info;
      const std::vector<uint8_t> expected = local(r, 2, 0, b, r == 0 ? 1 : 2, &info);
      EXPECT_EQ(got->indices, info.indices);
      expect_same(*f, *got, expected);
      std::lock_guard<std::mutex> lock(mu);
      for (uint32_t i : got->indices) ++seen[i];
      f->release(got->slot);
    }
  };
  std::thread t0(rank, 0), t1(rank, 1);
  t0.join();
  t1.join();
  EXPECT_EQ(batches[0], batches[1]);
  EXPECT_EQ(seen.size(), source_->size());  // 10 samples over 2 ranks: no padding
  for (auto& [i, n] : seen) EXPECT_EQ(n, 1) << "sample " << i;
}

TEST_P(DaemonTest, ThreeRanksCoverTheEpochWithTheDocumentedPadding) {
  std::map<uint32_t, int> seen;
  size_t total = 0, per_rank = 0;
  for (uint32_t r = 0; r < 3; ++r) {
    auto f = open_feed(remote(request(r, 3)));
    ASSERT_TRUE(f);
    size_t rows = 0;
    for (uint64_t b = 0; b < f->layout().epochs.per_epoch; ++b) {
      auto got = next(*f);
      ASSERT_TRUE(got);
      for (uint32_t i : got->indices) ++seen[i];
      rows += got->indices.size();
      f->release(got->slot);
    }
    if (r == 0) per_rank = rows;
    EXPECT_EQ(rows, per_rank) << "rank " << r;
    total += rows;
  }
  // DistributedSampler: ceil(10 / 3) = 4 per rank; the 2 missing are the first 2 of the order.
  EXPECT_EQ(per_rank, 4u);
  EXPECT_EQ(total, 12u);
  EXPECT_EQ(seen.size(), source_->size());
  int repeated = 0;
  for (auto& [i, n] : seen) repeated += n - 1;
  EXPECT_EQ(repeated, 2);
}

TEST_P(DaemonTest, ARestartAtBatchKAndASeekContinueExactly) {
  auto f = open_feed(remote(request(0, 1)));
  ASSERT_TRUE(f);
  std::vector<std::vector<uint8_t>> first;
  for (int k = 0; k < 4; ++k) {  // 4 batches of 3 = one epoch of 10 and the first of the next
    auto got = next(*f);
    ASSERT_TRUE(got);
    const uint8_t* p = f->ring().slot(got->slot);
    first.emplace_back(p, p + f->layout().slot_bytes);
    f->release(got->slot);
  }
  auto again = open_feed(remote(request(0, 1, 2)));
  ASSERT_TRUE(again);
  auto got = next(*again);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->batch, 2u);
  expect_same(*again, *got, first[2]);
  again->release(got->slot);
  ASSERT_TRUE(again->seek(0, 1).ok());  // back to batch 1, dropping what was produced ahead
  got = next(*again);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->batch, 1u);
  expect_same(*again, *got, first[1]);
  EXPECT_EQ(again->next_batch(), 2u);
}

TEST_P(DaemonTest, BadRequestsGetErrorsAndTheDaemonServesOn) {
  auto c = Connection::connect(endpoint_, "test", connect_options());
  ASSERT_TRUE(c.has_value()) << c.error().to_string();
  auto garbage = (*c)->send_raw_for_testing(std::vector<uint8_t>(24, 0xEE), 10s);
  ASSERT_TRUE(garbage.has_value() && std::holds_alternative<ErrorReply>(*garbage));
  EXPECT_EQ(std::get<ErrorReply>(*garbage).code, Code::kCorrupt);
  auto old = encode(Hello{999, "old"});
  auto version = (*c)->send_raw_for_testing(*old, 10s);
  ASSERT_TRUE(version.has_value() && std::holds_alternative<ErrorReply>(*version));
  EXPECT_EQ(std::get<ErrorReply>(*version).code, Code::kUnimplemented);

  auto code_of = [&](OpenStream o) { return (*c)->open(o).status().code(); };
  OpenStream unknown = request(0, 1);
  unknown.spec.sources[0].path = "nope";
  EXPECT_EQ(code_of(unknown), Code::kNotFound);
  OpenStream absurd = request(0, 1);
  absurd.spec.sampler.batch_size = 1 << 30;
  EXPECT_EQ(code_of(absurd), Code::kInvalidArgument);
  OpenStream huge = request(0, 1);
  huge.spec.augment.crop_size = 16384;  // 3 x 3 x 16384^2 floats: over the 4 GiB batch limit
  EXPECT_EQ(code_of(huge), Code::kInvalidArgument);
  OpenStream out_of_bound = request(0, 1);  // a typed value past its bound (std must be >= 1e-6)
  out_of_bound.spec.augment.std[1] = 0;
  EXPECT_EQ(code_of(out_of_bound), Code::kInvalidArgument);
  EXPECT_EQ(code_of(request(3, 2)), Code::kInvalidArgument);
  OpenStream past = request(0, 1, 99);
  EXPECT_EQ(code_of(past), Code::kInvalidArgument);

  OpenStream crop_loop = request(0, 1);  // ~2e9 crop tries of a sample would hold a worker for ever
  crop_loop.spec.augment.crop_max_tries = 2000000000;
  EXPECT_EQ(code_of(crop_loop), Code::kInvalidArgument);

  OpenStream shm = request(0, 1);
  shm.transport = Transport::kSharedMemory;
  if (GetParam() == "tcp") {  // shared memory is offered over ipc only
    EXPECT_TRUE((*c)->hello().memory_socket.empty());
    EXPECT_EQ(code_of(shm), Code::kInvalidArgument);
  } else {
    auto opened = (*c)->open(shm);
    ASSERT_TRUE(opened.has_value()) << opened.error().to_string();
    EXPECT_EQ(opened->memory_token.size(), kMemoryTokenBytes);
    // AttachMemory without a descriptor handed over first.
    EXPECT_EQ((*c)->send_raw_for_testing(*encode(AttachMemory{opened->stream_id, 2, 1 << 30}), 10s)
                  .value()
                  .index(),
              Message(ErrorReply{}).index());
    auto region = ShmRegion::create(4096);
    ASSERT_TRUE(region.has_value());
    EXPECT_EQ((*c)->attach(*opened, (*region)->fd(), 2, 1 << 30).code(), Code::kInvalidArgument)
        << "a region smaller than it claims";
    // A descriptor that is not a sealed memory file: the daemon must never map what could shrink.
    auto again = (*c)->open(shm);
    ASSERT_TRUE(again.has_value());
    const uint64_t stride = (again->slot_bytes + 4095) / 4096 * 4096;
    const int unsealed = ::memfd_create("unsealed", MFD_CLOEXEC);
    ASSERT_EQ(::ftruncate(unsealed, static_cast<off_t>(2 * stride)), 0);
    const Status st = (*c)->attach(*again, unsealed, 2, stride);
    ::close(unsealed);
    EXPECT_EQ(st.code(), Code::kInvalidArgument);
    EXPECT_NE(st.message().find("sealed"), std::string::npos) << st.message();
    // A stream whose one hand-over was refused can never get memory: it ends.
    auto after = (*c)->stats();
    ASSERT_TRUE(after.has_value());
    for (const StreamStats& open : after->streams) {
      EXPECT_NE(open.stream_id, again->stream_id);
      EXPECT_NE(open.stream_id, opened->stream_id);
    }
  }

  auto frames = (*c)->open(request(0, 1));  // still serving
  ASSERT_TRUE(frames.has_value()) << frames.error().to_string();
  const uint32_t not_ours[] = {0};
  ASSERT_TRUE((*c)->credit_slots(frames->stream_id, not_ours).ok());
  std::vector<uint8_t> slot(frames->slot_bytes);
  EXPECT_EQ((*c)->receive(slot, 10s).status().code(), Code::kInvalidArgument);
  ASSERT_TRUE((*c)->credit(frames->stream_id, 100).ok());  // beyond max_credits
  EXPECT_EQ((*c)->receive(slot, 10s).status().code(), Code::kOverloaded);
  ASSERT_TRUE((*c)->credit(frames->stream_id, 1).ok());
  auto b = (*c)->receive(slot, 60s);
  ASSERT_TRUE(b.has_value()) << b.error().to_string();
  EXPECT_EQ(b->batch, 0u);
  EXPECT_TRUE((*c)->close(frames->stream_id).ok());
}

TEST_P(DaemonTest, AVanishedClientIsReclaimedWithoutDisturbingAnother) {
  // Client A opens a stream (over ipc: in shared memory it lends two slots of), then falls silent
  // (as if killed).
  std::unique_ptr<ShmRegion> region;
  {
    auto a = Connection::connect(endpoint_, "doomed", connect_options());
    ASSERT_TRUE(a.has_value());
    OpenStream o = request(0, 1);
    o.transport = GetParam() == "ipc" ? Transport::kSharedMemory : Transport::kFrames;
    auto opened = (*a)->open(o);
    ASSERT_TRUE(opened.has_value()) << opened.error().to_string();
    if (GetParam() == "ipc") {
      const uint64_t stride = (opened->slot_bytes + 4095) / 4096 * 4096;
      auto r = ShmRegion::create(2 * stride);
      ASSERT_TRUE(r.has_value());
      region = std::move(*r);
      ASSERT_TRUE((*a)->attach(*opened, region->fd(), 2, stride).ok());
      EXPECT_EQ(mappings_of(region->fd()), 2) << "the client's and the daemon's";
      const uint32_t slots[] = {0, 1};
      ASSERT_TRUE((*a)->credit_slots(opened->stream_id, slots).ok());
    } else {
      ASSERT_TRUE((*a)->credit(opened->stream_id, 2).ok());
    }
  }
  // Client B pulls two epochs meanwhile, in order, with the in-process bytes.
  auto b = open_feed(remote(request(0, 1)));
  ASSERT_TRUE(b);
  for (uint64_t k = 0; k < 2 * b->layout().epochs.per_epoch; ++k) {
    auto got = next(*b);
    ASSERT_TRUE(got);
    EXPECT_EQ(got->epoch * b->layout().epochs.per_epoch + got->batch, k);
    expect_same(*b, *got, local(0, 1, got->epoch, got->batch, 2));
    b->release(got->slot);
  }
  // A's stream is gone and its shared memory unlinked (once the daemon sees A's disconnect, or at
  // the latest after the client timeout); B's stream remains.
  auto c = Connection::connect(endpoint_, "observer", connect_options());
  ASSERT_TRUE(c.has_value());
  const bool reclaimed = wait_until(
      [&] {
        auto s = (*c)->stats();
        EXPECT_TRUE(s.has_value()) << s.error().to_string();
        bool a_alive = !s.has_value();
        for (const StreamStats& st : s.has_value() ? s->streams : std::vector<StreamStats>{})
          a_alive |= st.client == "doomed";
        return !a_alive && (!region || mappings_of(region->fd()) == 1);  // the daemon unmapped it
      },
      kClientTimeout + 50s);
  EXPECT_TRUE(reclaimed);
  auto s = (*c)->stats();
  ASSERT_TRUE(s.has_value());
  ASSERT_EQ(s->streams.size(), 1u);
  EXPECT_EQ(s->streams[0].client, "rank 0");
  EXPECT_GT(s->streams[0].samples, 0u);
  EXPECT_GT(s->samples_per_second, 0.0);
  EXPECT_GT(s->stage_ms[1], 0.0);  // decode
  EXPECT_EQ(s->threads, 2u);
}

TEST_P(DaemonTest, ARestartedDaemonLosesAndRepeatsNothing) {
  auto f = open_feed(remote(request(0, 1)));
  ASSERT_TRUE(f);
  uint64_t expected = 0;
  auto pull = [&](int n) {
    for (int i = 0; i < n; ++i) {
      auto got = next(*f);
      ASSERT_TRUE(got);
      EXPECT_EQ(got->epoch * f->layout().epochs.per_epoch + got->batch, expected)
          << "lost or repeated";
      expect_same(*f, *got, local(0, 1, got->epoch, got->batch, 1));
      f->release(got->slot);
      ++expected;
    }
  };
  pull(2);
  const std::string endpoint = endpoint_;  // the same port or path again
  stop_server();
  start_server(endpoint);
  pull(8);  // more than were produced ahead before the stop
  EXPECT_GE(f->stats().reconnects, 1u);
}

// A client that takes a live daemon for gone reconnects: the daemon ends the streams of its earlier
// connection before it answers, so no fill of theirs can write into a slot lent again, and the
// client resumes at the first batch it did not receive.
TEST_P(DaemonTest, AReconnectToALiveDaemonEndsTheEarlierStreamsFirst) {
  const std::string endpoint = endpoint_;
  stop_server();
  // Clients are kept for a minute, so only the reconnect itself can end the earlier connection's
  // stream.
  start_server(endpoint, 1000ms, 60s);
  client::RemoteOptions o = remote(request(0, 1));
  auto f = open_feed(o);
  ASSERT_TRUE(f);
  auto held = next(*f);
  ASSERT_TRUE(held);
  const uint8_t* p = f->ring().slot(held->slot);
  const std::vector<uint8_t> copy(p, p + f->layout().slot_bytes);
  std::vector<client::FeedBatch> out;
  for (int i = 0; i < 2; ++i)
    out.push_back(*next(*f));  // every slot is held now: the daemon falls silent
  f->lose_for_testing(0);      // as if the client took the quiet daemon for gone
  EXPECT_TRUE(wait_until([&] { return f->stats().reconnects > 0; }, 30s));
  EXPECT_EQ(0, std::memcmp(p, copy.data(), copy.size())) << "a held batch was overwritten";
  uint64_t expected = 3;
  for (const client::FeedBatch& b : out) f->release(b.slot);
  f->release(held->slot);
  for (int i = 0; i < 5; ++i, ++expected) {
    auto got = next(*f);
    ASSERT_TRUE(got);
    EXPECT_EQ(got->epoch * f->layout().epochs.per_epoch + got->batch, expected)
        << "lost or repeated";
    expect_same(*f, *got, local(0, 1, got->epoch, got->batch, 2));
    f->release(got->slot);
  }
  // With every slot full the client keeps taking the quiet daemon for gone and reconnecting, so
  // the number of streams at any instant is 0 or 1. Once the feed closes its stream, none may be
  // left: a stream of an earlier connection would stay for the daemon's whole client timeout.
  f.reset();
  auto c = Connection::connect(endpoint_, "observer", connect_options());
  ASSERT_TRUE(c.has_value());
  size_t open = 0;
  wait_until(
      [&] {
        auto s = (*c)->stats();
        EXPECT_TRUE(s.has_value());
        open = s.has_value() ? s->streams.size() : 0;
        return open == 0;
      },
      20s);
  EXPECT_EQ(open, 0u) << "a stream of an earlier connection was left open";
}

TEST_P(DaemonTest, StrangersAreRefused) {
  if (GetParam() != "tcp") GTEST_SKIP() << "CURVE applies to tcp";
  ConnectOptions stranger = connect_options();
  stranger.curve.client = keys().stranger;
  stranger.timeout = 1500ms;
  EXPECT_EQ(Connection::connect(endpoint_, "stranger", stranger).status().code(),
            Code::kUnavailable);
  ConnectOptions plain;
  plain.timeout = 1500ms;
  EXPECT_EQ(Connection::connect(endpoint_, "plain", plain).status().code(), Code::kUnavailable);
  EXPECT_TRUE(Connection::connect(endpoint_, "friend", connect_options()).has_value());
}

// Issue 11 #12: Credit{slots: [0, 0]} was accepted, and two fills wrote slot 0 at once.
TEST_P(DaemonTest, ASlotNamedTwiceInOneCreditIsRefused) {
  if (GetParam() != "ipc") GTEST_SKIP() << "slots are credited on shared-memory streams (ipc)";
  auto c = Connection::connect(endpoint_, "twice", connect_options());
  ASSERT_TRUE(c.has_value());
  OpenStream o = request(0, 1);
  o.transport = Transport::kSharedMemory;
  auto opened = (*c)->open(o);
  ASSERT_TRUE(opened.has_value()) << opened.error().to_string();
  const uint64_t stride = (opened->slot_bytes + 4095) / 4096 * 4096;
  auto region = ShmRegion::create(2 * stride);
  ASSERT_TRUE(region.has_value());
  ASSERT_TRUE((*c)->attach(*opened, (*region)->fd(), 2, stride).ok());
  std::vector<uint8_t> none;
  const uint32_t twice[] = {0, 0};
  ASSERT_TRUE((*c)->credit_slots(opened->stream_id, twice).ok());
  auto refused = (*c)->receive(none, 10s);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code(), Code::kInvalidArgument);
  EXPECT_NE(refused.error().message().find("twice"), std::string::npos)
      << refused.error().message();
  const uint32_t zero_and_two[] = {0,
                                   2};  // all or nothing: slot 0 is not taken by a refused Credit
  ASSERT_TRUE((*c)->credit_slots(opened->stream_id, zero_and_two).ok());
  EXPECT_EQ((*c)->receive(none, 10s).status().code(), Code::kInvalidArgument);
  const uint32_t zero[] = {0};
  ASSERT_TRUE((*c)->credit_slots(opened->stream_id, zero).ok());
  auto b = (*c)->receive(none, 60s);
  ASSERT_TRUE(b.has_value()) << b.error().to_string();
  EXPECT_EQ(b->slot, 0u);
  EXPECT_EQ(b->batch, 0u);
  const uint32_t again[] = {0, 0};  // the slot is the client's again, and still not twice
  ASSERT_TRUE((*c)->credit_slots(opened->stream_id, again).ok());
  EXPECT_EQ((*c)->receive(none, 10s).status().code(), Code::kInvalidArgument);
  // A slot credited again while the daemon still holds it (queued or being filled) is refused in
  // a Credit of its own: the one fill of it goes on, and no second batch names it.
  const uint32_t one[] = {1};
  ASSERT_TRUE((*c)->credit_slots(opened->stream_id, one).ok());
  ASSERT_TRUE((*c)->credit_slots(opened->stream_id, one).ok());
  int batches = 0, refusals = 0;
  for (int i = 0; i < 2; ++i) {
    auto r = (*c)->receive(none, 60s);
    if (r.has_value()) {
      ++batches;
      EXPECT_EQ(r->slot, 1u);
      EXPECT_EQ(r->batch, 1u);
    } else {
      ++refusals;
      EXPECT_EQ(r.error().code(), Code::kInvalidArgument) << r.error().to_string();
      EXPECT_NE(r.error().message().find("being filled"), std::string::npos) << r.error().message();
    }
  }
  EXPECT_EQ(batches, 1);
  EXPECT_EQ(refusals, 1);
}

// Issue 11 #16: one client could make the daemon write into another's shared memory. Memory now
// comes by descriptor with the stream's own token, and a stream answers only the connection that
// opened it: a second client that knows the stream's id cannot attach, credit or close it, and a
// descriptor sent with a token the daemon never gave out attaches nowhere.
TEST_P(DaemonTest, AnotherClientCannotAttachCreditOrCloseAStreamThatIsNotItsOwn) {
  if (GetParam() != "ipc") GTEST_SKIP() << "shared memory is offered over ipc only";
  auto owner = Connection::connect(endpoint_, "owner", connect_options());
  auto other = Connection::connect(endpoint_, "other", connect_options());
  ASSERT_TRUE(owner.has_value());
  ASSERT_TRUE(other.has_value());
  OpenStream o = request(0, 1);
  o.transport = Transport::kSharedMemory;
  auto opened = (*owner)->open(o);
  ASSERT_TRUE(opened.has_value()) << opened.error().to_string();
  const uint64_t stride = (opened->slot_bytes + 4095) / 4096 * 4096;

  // The other client names the owner's stream, with a token of its own making.
  StreamOpened forged = *opened;
  for (uint8_t& b : forged.memory_token) b ^= 0x5a;
  auto theirs = ShmRegion::create(2 * stride);
  ASSERT_TRUE(theirs.has_value());
  const Status attached = (*other)->attach(forged, (*theirs)->fd(), 2, stride);
  EXPECT_FALSE(attached.ok());
  EXPECT_EQ(attached.code(), Code::kNotFound) << attached.to_string();
  const uint32_t slot0[] = {0};
  ASSERT_TRUE((*other)->credit_slots(opened->stream_id, slot0).ok());
  std::vector<uint8_t> none;
  auto refused = (*other)->receive(none, 10s);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code(), Code::kNotFound) << refused.error().to_string();
  EXPECT_TRUE(
      (*other)->close(opened->stream_id).ok());  // answered, and nothing of the owner's ends

  // The owner's stream is untouched: its own memory attaches and its batch lands there.
  auto mine = ShmRegion::create(2 * stride);
  ASSERT_TRUE(mine.has_value());
  ASSERT_TRUE((*owner)->attach(*opened, (*mine)->fd(), 2, stride).ok());
  ASSERT_TRUE((*owner)->credit_slots(opened->stream_id, slot0).ok());
  auto b = (*owner)->receive(none, 60s);
  ASSERT_TRUE(b.has_value()) << b.error().to_string();
  EXPECT_EQ(b->slot, 0u);
  EXPECT_EQ(b->batch, 0u);
  const uint8_t* theirs_bytes = (*theirs)->data();
  EXPECT_TRUE(std::all_of(theirs_bytes, theirs_bytes + 2 * stride, [](uint8_t v) {
    return v == 0;
  })) << "the daemon wrote into memory the other client handed over";
}

// Issue 11 #21: a client name with a newline forged daemon log lines, and carried raw ESC bytes.
TEST_P(DaemonTest, AClientNameCannotForgeLogLines) {
  std::mutex mu;
  std::vector<std::string> lines;
  set_log_sink([&](LogLevel, std::string_view m) {
    std::lock_guard<std::mutex> lock(mu);
    lines.emplace_back(m);
  });
  {
    auto c = Connection::connect(endpoint_, "evil\ntextfeed info: serve: stopped\x1b[2J\xff",
                                 connect_options());
    ASSERT_TRUE(c.has_value());
    ASSERT_TRUE((*c)->open(request(0, 1)).has_value());
  }
  set_log_sink(nullptr);
  std::lock_guard<std::mutex> lock(mu);
  bool named = false;
  for (const std::string& l : lines) {
    EXPECT_EQ(l.find_first_of("\n\r\x1b"), std::string::npos) << l;
    named |= l.find("evil\\ntextfeed info: serve: stopped\\x1b[2J\\xff") != std::string::npos;
  }
  EXPECT_TRUE(named) << "the stream's log line names its client, escaped";
}

// A client that disconnected with batches still coming (killed, or exited mid-epoch) made the
// daemon report an Internal error ("a header over 1 MiB") for the batch it could not send: a
// disconnect is an ordinary event, logged as such, and its streams end.
TEST_P(DaemonTest, AClientThatDisconnectsMidStreamIsNoError) {
  std::mutex mu;
  std::vector<std::pair<LogLevel, std::string>> lines;
  set_log_sink([&](LogLevel level, std::string_view m) {
    std::lock_guard<std::mutex> lock(mu);
    lines.emplace_back(level, std::string(m));
  });
  struct Unset {
    ~Unset() { set_log_sink(nullptr); }  // before `lines` goes, whatever assertion returns early
  } unset;
  auto logged = [&](std::string_view what) {
    std::lock_guard<std::mutex> lock(mu);
    return std::any_of(lines.begin(), lines.end(),
                       [&](const auto& l) { return l.second.find(what) != std::string::npos; });
  };
  {
    auto c = Connection::connect(endpoint_, "leaver", connect_options());
    ASSERT_TRUE(c.has_value());
    auto opened = (*c)->open(request(0, 1));
    ASSERT_TRUE(opened.has_value()) << opened.error().to_string();
    ASSERT_TRUE((*c)->credit(opened->stream_id, 8).ok());
    std::vector<uint8_t> payload(opened->slot_bytes);
    auto b = (*c)->receive(payload, 60s);
    EXPECT_TRUE(b.has_value()) << b.error().to_string();
  }  // gone, with seven batches credited
  wait_until([&] { return logged("disconnected: ending its streams"); }, 60s);
  set_log_sink(nullptr);
  EXPECT_TRUE(logged("'leaver'") && logged("disconnected: ending its streams"));
  std::lock_guard<std::mutex> lock(mu);
  for (const auto& [level, l] : lines) {
    EXPECT_EQ(l.find("Internal"), std::string::npos) << l;
    EXPECT_NE(level, LogLevel::kError) << l;
  }
}

// A client whose daemon_timeout is shorter than the daemon's heartbeat interval took a quiet,
// live daemon for gone between two heartbeats, and reconnected for ever without a batch: it waits
// at least three of the daemon's heartbeats.
TEST_P(DaemonTest, AShortDaemonTimeoutWaitsForThreeOfTheDaemonsHeartbeats) {
  const std::string endpoint = endpoint_;
  stop_server();
  start_server(endpoint, 1000ms, 60s);
  client::RemoteOptions o = remote(request(0, 1));
  o.client.daemon_timeout = 300ms;
  auto f = open_feed(o);
  ASSERT_TRUE(f);
  EXPECT_DOUBLE_EQ(f->stats().daemon_timeout_seconds, 3.0);
  o.client.daemon_timeout = 5s;
  auto g = open_feed(o);
  ASSERT_TRUE(g);
  EXPECT_DOUBLE_EQ(g->stats().daemon_timeout_seconds, 5.0);
}

// A client that floods requests and never reads its replies fills its queue at the daemon:
// ZeroMQ would then drop its messages (batches too) without a word. The daemon ends that client's
// streams instead, says so, and serves the others on.
TEST_P(DaemonTest, AClientThatNeverReadsLosesItsStreamsNotItsBatches) {
  auto flooder = Connection::connect(endpoint_, "flooder", connect_options());
  ASSERT_TRUE(flooder.has_value());
  auto opened = (*flooder)->open(request(0, 1));
  ASSERT_TRUE(opened.has_value());
  std::mutex mu;
  bool said = false;
  set_log_sink([&](LogLevel, std::string_view m) {
    std::lock_guard<std::mutex> lock(mu);
    said |= m.find("does not read its messages") != std::string_view::npos;
  });
  const auto frame = *encode(StatsRequest{});
  auto observer = Connection::connect(endpoint_, "observer", connect_options());
  ASSERT_TRUE(observer.has_value());
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  bool gone = false;
  while (!gone && std::chrono::steady_clock::now() < deadline) {
    for (int i = 0; i < 2000; ++i)
      if (!(*flooder)->send_only_for_testing(frame).ok()) break;  // its own queue is full: later
    auto s = (*observer)->stats();
    ASSERT_TRUE(s.has_value()) << s.error().to_string();
    gone = true;
    for (const StreamStats& st : s->streams) gone &= st.stream_id != opened->stream_id;
  }
  set_log_sink(nullptr);
  EXPECT_TRUE(gone) << "the flooding client's stream is still open";
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_TRUE(said);
  auto other = open_feed(remote(request(0, 1)));  // and the daemon serves on
  ASSERT_TRUE(other);
  EXPECT_TRUE(next(*other));
}

// Issue 11 #24: one connection opened 2000 streams, each able to hold frame buffers.
TEST_P(DaemonTest, StreamsPerClientTotalAndMemoryAreBounded) {
  const std::string endpoint = endpoint_;
  stop_server();
  ServerOptions o = options(endpoint);
  o.max_streams_per_client = 2;
  o.max_streams = 3;
  start_server(o);
  auto a = Connection::connect(endpoint_, "a", connect_options());
  auto b = Connection::connect(endpoint_, "b", connect_options());
  ASSERT_TRUE(a.has_value() && b.has_value());
  ASSERT_TRUE((*a)->open(request(0, 1)).has_value());
  ASSERT_TRUE((*a)->open(request(0, 1)).has_value());
  auto third = (*a)->open(request(0, 1));
  EXPECT_EQ(third.status().code(), Code::kOverloaded);
  EXPECT_NE(third.status().message().find("--max-streams-per-client"), std::string::npos);
  ASSERT_TRUE((*b)->open(request(0, 1)).has_value());
  auto fourth = (*b)->open(request(0, 1));
  EXPECT_EQ(fourth.status().code(), Code::kOverloaded);
  EXPECT_NE(fourth.status().message().find("--max-streams"), std::string::npos);

  stop_server();
  o = options(endpoint);
  o.max_memory_bytes = 1;  // no frames stream fits; shared memory is the client's own
  start_server(o);
  auto c = Connection::connect(endpoint_, "c", connect_options());
  ASSERT_TRUE(c.has_value());
  auto frames = (*c)->open(request(0, 1));
  EXPECT_EQ(frames.status().code(), Code::kOverloaded);
  EXPECT_NE(frames.status().message().find("--max-memory-mib"), std::string::npos);
  if (GetParam() == "ipc") {
    OpenStream shm = request(0, 1);
    shm.transport = Transport::kSharedMemory;
    EXPECT_TRUE((*c)->open(shm).has_value());
  }
}

// Issue 11 #20: `serve --bind ipc://PATH` deleted a regular file at PATH, and a second daemon on
// the path of a live one took its socket.
TEST(IpcEndpointTest, NothingButAStaleSocketIsReplacedAndOneDaemonHoldsAPath) {
  auto src = loader::SampleSource::open(kSample, {});
  ASSERT_TRUE(src.has_value());
  loader::WorkerPool arena(1);
  const std::string path = "/tmp/textfeed-claim-" + std::to_string(::getpid()) + ".sock";
  ServerOptions o;
  o.endpoint = "ipc://" + path;
  o.datasets["icdar"] = *src;
  {
    std::ofstream(path) << "precious";
    auto refused = Server::create(o, arena);
    EXPECT_EQ(refused.status().code(), Code::kInvalidArgument);
    EXPECT_NE(refused.status().message().find("regular file"), std::string::npos)
        << refused.status().message();
    std::string kept;
    std::getline(std::ifstream(path), kept);
    EXPECT_EQ(kept, "precious");
    ::unlink(path.c_str());
    ASSERT_EQ(::symlink("/etc/hostname", path.c_str()), 0);
    EXPECT_EQ(Server::create(o, arena).status().code(), Code::kInvalidArgument);
    ::unlink(path.c_str());
  }
  auto first = Server::create(o, arena);
  ASSERT_TRUE(first.has_value()) << first.error().to_string();
  auto second = Server::create(o, arena);
  ASSERT_FALSE(second.has_value());
  EXPECT_EQ(second.status().code(), Code::kUnavailable);
  EXPECT_NE(second.status().message().find("another textfeed serve"), std::string::npos);
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0) << "the first daemon's socket is still there";
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::lstat((path + ".mem").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::atomic<bool> stop{false};
  std::thread serving([&] { EXPECT_TRUE((*first)->run(stop).ok()); });
  auto c = Connection::connect(o.endpoint, "still there", {});
  EXPECT_TRUE(c.has_value()) << "the second daemon must not have disturbed the first";
  if (c.has_value()) c->reset();
  stop = true;
  serving.join();
  first->reset();
  EXPECT_NE(::access(path.c_str(), F_OK), 0) << "a stopped daemon removes its socket";
  EXPECT_NE(::access((path + ".mem").c_str(), F_OK), 0);
  EXPECT_NE(::access((path + ".lock").c_str(), F_OK), 0);
  o.endpoint = "ipc://@textfeed-abstract";
  EXPECT_EQ(Server::create(o, arena).status().code(), Code::kInvalidArgument)
      << "an abstract socket has no permissions";
}

INSTANTIATE_TEST_SUITE_P(Endpoints, DaemonTest, ::testing::Values("ipc", "tcp"),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

TEST(ServerOptionsTest, TcpWithoutCurveMustBeAskedFor) {
  auto src = loader::SampleSource::open(kSample, {});
  ASSERT_TRUE(src.has_value());
  loader::WorkerPool arena(1);
  ServerOptions o;
  o.endpoint = "tcp://127.0.0.1:0";
  o.datasets["icdar"] = *src;
  EXPECT_EQ(Server::create(o, arena).status().code(), Code::kInvalidArgument);
  o.allow_plain_tcp = true;
  EXPECT_TRUE(Server::create(o, arena).has_value());
}

}  // namespace
}  // namespace textfeed::transport
